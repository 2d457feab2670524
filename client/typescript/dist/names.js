// Generated from proto/ by scripts/gen-clients.sh (the kinds' resource declarations);
// do not edit.
// Validated builders of Flotilla resource names (AIP-122 paths). Each id must be an
// RFC 1123 label, as the server requires; a bad id throws before any call is made.
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** Returns `id` if it is a valid id (1-63 chars of [a-z0-9-], alphanumeric at both ends). */
export function checkId(id) {
    if (!LABEL.test(id)) {
        throw new RangeError(`${JSON.stringify(id)} is not a valid id: 1-63 characters of [a-z0-9-], starting and ending with a letter or digit`);
    }
    return id;
}
/** `projects/{project}` */
export const project = (projectId) => `projects/${checkId(projectId)}`;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}` */
export const compositeApp = (projectId, compositeAppId, versionId) => `projects/${checkId(projectId)}/compositeApps/${checkId(compositeAppId)}/versions/${checkId(versionId)}`;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/apps/{app}` */
export const app = (compositeAppName, appId) => `${compositeAppName}/apps/${checkId(appId)}`;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}` */
export const compositeProfile = (compositeAppName, compositeProfileId) => `${compositeAppName}/compositeProfiles/${checkId(compositeProfileId)}`;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}/appProfiles/{app_profile}` */
export const appProfile = (compositeProfileName, appProfileId) => `${compositeProfileName}/appProfiles/${checkId(appProfileId)}`;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}` */
export const deploymentIntentGroup = (compositeAppName, deploymentIntentGroupId) => `${compositeAppName}/deploymentIntentGroups/${checkId(deploymentIntentGroupId)}`;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}/placementIntents/{placement_intent}` */
export const placementIntent = (deploymentIntentGroupName, placementIntentId) => `${deploymentIntentGroupName}/placementIntents/${checkId(placementIntentId)}`;
/** `clusterProviders/{cluster_provider}` */
export const clusterProvider = (clusterProviderId) => `clusterProviders/${checkId(clusterProviderId)}`;
/** `clusterProviders/{cluster_provider}/clusters/{cluster}` */
export const cluster = (clusterProviderId, clusterId) => `clusterProviders/${checkId(clusterProviderId)}/clusters/${checkId(clusterId)}`;
/** `clusterProviders/{cluster_provider}/clusters/{cluster}/networkIntents/{network_intent}` */
export const networkIntent = (clusterName, networkIntentId) => `${clusterName}/networkIntents/${checkId(networkIntentId)}`;
/** `clusterProviders/{cluster_provider}/clusters/{cluster}/kvPairs/{kv_pair}` */
export const clusterKvPair = (clusterName, kvPairId) => `${clusterName}/kvPairs/${checkId(kvPairId)}`;
