/** Returns `id` if it is a valid id (1-63 chars of [a-z0-9-], alphanumeric at both ends). */
export declare function checkId(id: string): string;
/** `projects/{project}` */
export declare const project: (projectId: string) => string;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}` */
export declare const compositeApp: (projectId: string, compositeAppId: string, versionId: string) => string;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/apps/{app}` */
export declare const app: (compositeAppName: string, appId: string) => string;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}` */
export declare const compositeProfile: (compositeAppName: string, compositeProfileId: string) => string;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}/appProfiles/{app_profile}` */
export declare const appProfile: (compositeProfileName: string, appProfileId: string) => string;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}` */
export declare const deploymentIntentGroup: (compositeAppName: string, deploymentIntentGroupId: string) => string;
/** `projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}/placementIntents/{placement_intent}` */
export declare const placementIntent: (deploymentIntentGroupName: string, placementIntentId: string) => string;
/** `clusterProviders/{cluster_provider}` */
export declare const clusterProvider: (clusterProviderId: string) => string;
/** `clusterProviders/{cluster_provider}/clusters/{cluster}` */
export declare const cluster: (clusterProviderId: string, clusterId: string) => string;
/** `clusterProviders/{cluster_provider}/clusters/{cluster}/networkIntents/{network_intent}` */
export declare const networkIntent: (clusterName: string, networkIntentId: string) => string;
/** `clusterProviders/{cluster_provider}/clusters/{cluster}/kvPairs/{kv_pair}` */
export declare const clusterKvPair: (clusterName: string, kvPairId: string) => string;
