//! The demo group (`--demo`): its name and the verbs the tests drive it with.

use flotilla_client::Client;
use flotilla_client::v1::{
    ApproveDeploymentIntentGroupRequest, DeploymentIntentGroup,
    InstantiateDeploymentIntentGroupRequest, TerminateDeploymentIntentGroupRequest,
};

/// The demo's deployment intent group.
pub const DIG: &str = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";

/// Approves and instantiates the demo group; returns it.
pub async fn approve_and_instantiate(client: &mut Client) -> DeploymentIntentGroup {
    approve_and_instantiate_group(client, DIG).await
}

/// Approves and instantiates the group `name`; returns it.
pub async fn approve_and_instantiate_group(
    client: &mut Client,
    name: &str,
) -> DeploymentIntentGroup {
    client
        .lifecycle
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: name.into(),
            ..Default::default()
        })
        .await
        .expect("approve");
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: name.into(),
            ..Default::default()
        })
        .await
        .expect("instantiate")
        .into_inner()
}

/// Terminates the demo group.
pub async fn terminate(client: &mut Client) {
    client
        .lifecycle
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .expect("terminate");
}
