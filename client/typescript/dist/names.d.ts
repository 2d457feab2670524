/** Returns `id` if it is a valid id (1-63 chars of [a-z0-9-], alphanumeric at both ends). */
export declare function checkId(id: string): string;
/** `projects/{project}` */
export declare const project: (projectId: string) => string;
/** `projects/{project}/compositeApps/{app}/versions/{version}` */
export declare const compositeApp: (projectId: string, compositeAppId: string, version: string) => string;
/** `…/versions/{version}/apps/{app}` */
export declare const app: (compositeAppName: string, appId: string) => string;
/** `…/versions/{version}/compositeProfiles/{profile}` */
export declare const compositeProfile: (compositeAppName: string, profileId: string) => string;
/** `…/compositeProfiles/{profile}/appProfiles/{appProfile}` */
export declare const appProfile: (compositeProfileName: string, appProfileId: string) => string;
/** `…/versions/{version}/deploymentIntentGroups/{group}` */
export declare const deploymentIntentGroup: (compositeAppName: string, groupId: string) => string;
/** `…/deploymentIntentGroups/{group}/placementIntents/{intent}` */
export declare const placementIntent: (groupName: string, intentId: string) => string;
/** `clusterProviders/{provider}` */
export declare const clusterProvider: (providerId: string) => string;
/** `clusterProviders/{provider}/clusters/{cluster}` */
export declare const cluster: (providerId: string, clusterId: string) => string;
/** `clusterProviders/{provider}/clusters/{cluster}/networkIntents/{intent}` */
export declare const networkIntent: (clusterName: string, intentId: string) => string;
