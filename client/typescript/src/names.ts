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
export const project = (projectId: string): string => `projects/${checkId(projectId)}`;

/** `projects/{project}/compositeApps/{app}/versions/{version}` */
export const compositeApp = (projectId: string, compositeAppId: string, version: string): string =>
  `${project(projectId)}/compositeApps/${checkId(compositeAppId)}/versions/${checkId(version)}`;

/** `…/versions/{version}/apps/{app}` */
export const app = (compositeAppName: string, appId: string): string => `${compositeAppName}/apps/${checkId(appId)}`;

/** `…/versions/{version}/compositeProfiles/{profile}` */
export const compositeProfile = (compositeAppName: string, profileId: string): string =>
  `${compositeAppName}/compositeProfiles/${checkId(profileId)}`;

/** `…/compositeProfiles/{profile}/appProfiles/{appProfile}` */
export const appProfile = (compositeProfileName: string, appProfileId: string): string =>
  `${compositeProfileName}/appProfiles/${checkId(appProfileId)}`;

/** `…/versions/{version}/deploymentIntentGroups/{group}` */
export const deploymentIntentGroup = (compositeAppName: string, groupId: string): string =>
  `${compositeAppName}/deploymentIntentGroups/${checkId(groupId)}`;

/** `…/deploymentIntentGroups/{group}/placementIntents/{intent}` */
export const placementIntent = (groupName: string, intentId: string): string =>
  `${groupName}/placementIntents/${checkId(intentId)}`;

/** `clusterProviders/{provider}` */
export const clusterProvider = (providerId: string): string => `clusterProviders/${checkId(providerId)}`;

/** `clusterProviders/{provider}/clusters/{cluster}` */
export const cluster = (providerId: string, clusterId: string): string =>
  `${clusterProvider(providerId)}/clusters/${checkId(clusterId)}`;

/** `clusterProviders/{provider}/clusters/{cluster}/networkIntents/{intent}` */
export const networkIntent = (clusterName: string, intentId: string): string =>
  `${clusterName}/networkIntents/${checkId(intentId)}`;
