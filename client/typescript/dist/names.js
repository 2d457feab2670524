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
/** `projects/{project}/compositeApps/{app}/versions/{version}` */
export const compositeApp = (projectId, compositeAppId, version) => `${project(projectId)}/compositeApps/${checkId(compositeAppId)}/versions/${checkId(version)}`;
/** `…/versions/{version}/apps/{app}` */
export const app = (compositeAppName, appId) => `${compositeAppName}/apps/${checkId(appId)}`;
/** `…/versions/{version}/compositeProfiles/{profile}` */
export const compositeProfile = (compositeAppName, profileId) => `${compositeAppName}/compositeProfiles/${checkId(profileId)}`;
/** `…/compositeProfiles/{profile}/appProfiles/{appProfile}` */
export const appProfile = (compositeProfileName, appProfileId) => `${compositeProfileName}/appProfiles/${checkId(appProfileId)}`;
/** `…/versions/{version}/deploymentIntentGroups/{group}` */
export const deploymentIntentGroup = (compositeAppName, groupId) => `${compositeAppName}/deploymentIntentGroups/${checkId(groupId)}`;
/** `…/deploymentIntentGroups/{group}/placementIntents/{intent}` */
export const placementIntent = (groupName, intentId) => `${groupName}/placementIntents/${checkId(intentId)}`;
/** `clusterProviders/{provider}` */
export const clusterProvider = (providerId) => `clusterProviders/${checkId(providerId)}`;
/** `clusterProviders/{provider}/clusters/{cluster}` */
export const cluster = (providerId, clusterId) => `${clusterProvider(providerId)}/clusters/${checkId(clusterId)}`;
/** `clusterProviders/{provider}/clusters/{cluster}/networkIntents/{intent}` */
export const networkIntent = (clusterName, intentId) => `${clusterName}/networkIntents/${checkId(intentId)}`;
