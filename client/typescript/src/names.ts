// Generated from proto/ by scripts/gen-clients.sh (the kinds' resource declarations);
// do not edit.
// Validated builders of Flotilla resource names (AIP-122 paths). Each id must be an
// RFC 1123 label, as the server requires; a bad id throws before any call is made.

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Returns `id` if it is a valid id (1-63 chars of [a-z0-9-], alphanumeric at both ends). */
export function checkId(id: string): string {
  if (!LABEL.test(id)) {
    throw new RangeError(
      `${JSON.stringify(id)} is not a valid id: 1-63 characters of [a-z0-9-], starting and ending with a letter or digit`,
    );
  }
  return id;
}

/** `projects/{project}` */
export const project = (projectId: string): string =>
  `projects/${checkId(projectId)}`;

/** `projects/{project}/compositeApps/{composite_app}/versions/{version}` */
export const compositeApp = (projectId: string, compositeAppId: string, versionId: string): string =>
  `projects/${checkId(projectId)}/compositeApps/${checkId(compositeAppId)}/versions/${checkId(versionId)}`;

/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/apps/{app}` */
export const app = (compositeAppName: string, appId: string): string =>
  `${compositeAppName}/apps/${checkId(appId)}`;

/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}` */
export const compositeProfile = (compositeAppName: string, compositeProfileId: string): string =>
  `${compositeAppName}/compositeProfiles/${checkId(compositeProfileId)}`;

/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}/appProfiles/{app_profile}` */
export const appProfile = (compositeProfileName: string, appProfileId: string): string =>
  `${compositeProfileName}/appProfiles/${checkId(appProfileId)}`;

/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}` */
export const deploymentIntentGroup = (compositeAppName: string, deploymentIntentGroupId: string): string =>
  `${compositeAppName}/deploymentIntentGroups/${checkId(deploymentIntentGroupId)}`;

/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}/placementIntents/{placement_intent}` */
export const placementIntent = (deploymentIntentGroupName: string, placementIntentId: string): string =>
  `${deploymentIntentGroupName}/placementIntents/${checkId(placementIntentId)}`;

/** `clusterProviders/{cluster_provider}` */
export const clusterProvider = (clusterProviderId: string): string =>
  `clusterProviders/${checkId(clusterProviderId)}`;

/** `clusterProviders/{cluster_provider}/clusters/{cluster}` */
export const cluster = (clusterProviderId: string, clusterId: string): string =>
  `clusterProviders/${checkId(clusterProviderId)}/clusters/${checkId(clusterId)}`;

/** `clusterProviders/{cluster_provider}/clusters/{cluster}/networkIntents/{network_intent}` */
export const networkIntent = (clusterName: string, networkIntentId: string): string =>
  `${clusterName}/networkIntents/${checkId(networkIntentId)}`;

/** `clusterProviders/{cluster_provider}/clusters/{cluster}/kvPairs/{kv_pair}` */
export const clusterKvPair = (clusterName: string, kvPairId: string): string =>
  `${clusterName}/kvPairs/${checkId(kvPairId)}`;
