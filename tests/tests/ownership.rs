//! One owner per object, and truthful old instances (issue 21, points 3 and 4), on the
//! demo's two embedded sim clusters:
//!
//! - a second intent group that renders the demo's objects onto the same clusters is
//!   refused (FAILED_PRECONDITION `RESOURCE_OWNED` naming the demo) while the demo holds
//!   them, and instantiates once the demo's termination has finished;
//! - two apps of one group rendering the same object are refused (`DUPLICATE_OBJECT`);
//! - a group terminated while one cluster is down and re-instantiated, with a smaller
//!   placement, before it comes back: the objects the new instance renders again are
//!   taken over (`Superseded` in the old instance, never deleted), the ones it dropped
//!   are deleted when the cluster returns (`Terminated`); nothing stays `Retrying`.

use flotilla_client::Client;
use flotilla_client::v1::*;
use flotilla_tests::demo::{self, DIG};
use flotilla_tests::{TestServer, e2e_suite, error_view, eventually};
use std::time::Duration;
use tonic::Code;

e2e_suite!(
    args = ["--demo"],
    a_second_owner_of_an_object_is_refused,
    two_apps_rendering_one_object_are_refused,
    reinstantiating_before_a_cluster_returns_ends_the_old_instance_truthfully
);

const VERSION: &str = "projects/demo/compositeApps/shop/versions/v1";
const CLUSTER2: &str = "clusterProviders/edge/clusters/cluster2";

use flotilla_tests::rsync_counts as counts;

fn total(c: &RsyncStatusCounts) -> i32 {
    c.pending + c.applied + c.failed + c.retrying + c.terminated + c.superseded
}

/// Waits until every resource of `dig`'s current instance is Applied.
async fn wait_applied(client: &Client, dig: &str) -> i32 {
    eventually(Duration::from_secs(30), "all Applied", || {
        let mut client = client.clone();
        let dig = dig.to_string();
        async move {
            let c = counts(&mut client, &dig, "", &[]).await;
            (c.applied > 0 && c.applied == total(&c)).then_some(c.applied)
        }
    })
    .await
}

async fn a_second_owner_of_an_object_is_refused(server: &TestServer) {
    let mut client = server.client().await;
    demo::approve_and_instantiate(&mut client).await;
    let applied = wait_applied(&client, DIG).await;

    // A second group of the same version, same profile, same placement: it renders the
    // very objects the demo runs.
    let copy = format!("{VERSION}/deploymentIntentGroups/copy");
    let lc = &mut client.lifecycle;
    lc.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
        parent: VERSION.into(),
        deployment_intent_group_id: "copy".into(),
        deployment_intent_group: Some(DeploymentIntentGroup {
            composite_profile: "default".into(),
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    for app in ["collectd", "operator"] {
        lc.create_placement_intent(CreatePlacementIntentRequest {
            parent: copy.clone(),
            placement_intent_id: app.into(),
            placement_intent: Some(PlacementIntent {
                app: app.into(),
                cluster_provider: "edge".into(),
                cluster_names: vec!["cluster1".into(), "cluster2".into()],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    lc.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
        name: copy.clone(),
        ..Default::default()
    })
    .await
    .unwrap();
    let instantiate = InstantiateDeploymentIntentGroupRequest {
        name: copy.clone(),
        ..Default::default()
    };
    let refused = error_view(
        lc.instantiate_deployment_intent_group(instantiate.clone())
            .await,
    );
    assert_eq!(refused.code, Code::FailedPrecondition, "{refused:?}");
    assert_eq!(refused.reason, "RESOURCE_OWNED", "{refused:?}");
    assert!(
        refused.message.contains(DIG),
        "names the owner: {refused:?}"
    );
    let copy_now = lc
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: copy.clone() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        copy_now.state,
        DeploymentIntentGroupState::Approved as i32,
        "nothing of the refused instantiate stays"
    );
    assert!(copy_now.current_instance.is_empty());
    // The demo keeps what it had, truthfully.
    let c = counts(&mut client, DIG, "", &[]).await;
    assert_eq!((c.applied, total(&c)), (applied, applied), "{c:?}");

    // Once the demo's termination has finished, the objects are free.
    demo::terminate(&mut client).await;
    eventually(Duration::from_secs(30), "the demo's deletes done", || {
        let mut client = client.clone();
        async move {
            let c = counts(&mut client, DIG, "", &[]).await;
            (c.terminated == applied).then_some(())
        }
    })
    .await;
    client
        .lifecycle
        .instantiate_deployment_intent_group(instantiate)
        .await
        .unwrap();
    assert_eq!(wait_applied(&client, &copy).await, applied);
    // And now the demo is the one refused.
    let refused = error_view(
        client
            .lifecycle
            .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                name: DIG.into(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(refused.reason, "RESOURCE_OWNED", "{refused:?}");
    assert!(refused.message.contains(&copy), "{refused:?}");
}

async fn reinstantiating_before_a_cluster_returns_ends_the_old_instance_truthfully(
    server: &TestServer,
) {
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    let old = first.current_instance.clone();
    wait_applied(&client, DIG).await;
    let operator_on_2 = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: DIG.into(),
            apps: vec!["operator".into()],
            clusters: vec!["cluster2".into()],
            output: StatusOutput::Summary as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .rsync_status
        .unwrap_or_default()
        .applied;
    let on_1 = total(&counts(&mut client, DIG, "", &["cluster1"]).await);
    let on_2 = total(&counts(&mut client, DIG, "", &["cluster2"]).await);
    assert!(operator_on_2 > 0 && operator_on_2 < on_2);

    flotilla_tests::disconnect(&client, CLUSTER2).await;
    demo::terminate(&mut client).await;
    eventually(
        Duration::from_secs(30),
        "cluster1 deleted, cluster2 retrying",
        || {
            let mut client = client.clone();
            let old = old.clone();
            async move {
                let c1 = counts(&mut client, DIG, &old, &["cluster1"]).await;
                let c2 = counts(&mut client, DIG, &old, &["cluster2"]).await;
                (c1.terminated == on_1 && c2.retrying == on_2).then_some(())
            }
        },
    )
    .await;

    // The operator now runs on cluster1 only; collectd stays on both.
    client
        .lifecycle
        .update_placement_intent(UpdatePlacementIntentRequest {
            placement_intent: Some(PlacementIntent {
                name: format!("{DIG}/placementIntents/operator"),
                cluster_names: vec!["cluster1".into()],
                ..Default::default()
            }),
            update_mask: Some(prost_types::FieldMask {
                paths: vec!["cluster_names".into()],
            }),
        })
        .await
        .unwrap();
    let second = demo::approve_and_instantiate(&mut client).await;
    assert_ne!(second.current_instance, old);

    // At once, before cluster2 returns: what the new instance renders again is taken
    // over; the operator's objects on cluster2 still wait for their delete.
    let c2 = counts(&mut client, DIG, &old, &["cluster2"]).await;
    assert_eq!(
        (c2.superseded, c2.retrying, c2.pending, c2.applied),
        (on_2 - operator_on_2, operator_on_2, 0, 0),
        "{c2:?}"
    );
    let still = error_view(
        client
            .lifecycle
            .delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest {
                name: DIG.into(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(still.code, Code::FailedPrecondition, "{still:?}");

    flotilla_tests::reconnect(&client, CLUSTER2).await;
    eventually(
        Duration::from_secs(30),
        "the dropped objects deleted",
        || {
            let mut client = client.clone();
            let old = old.clone();
            async move {
                let c = counts(&mut client, DIG, &old, &["cluster2"]).await;
                (c.terminated == operator_on_2).then_some(())
            }
        },
    )
    .await;
    let c2 = counts(&mut client, DIG, &old, &["cluster2"]).await;
    assert_eq!(
        (c2.superseded, c2.terminated, c2.retrying, c2.applied),
        (on_2 - operator_on_2, operator_on_2, 0, 0),
        "{c2:?}"
    );
    // The new instance holds the rest, applied, and nothing of the operator on cluster2.
    let now = wait_applied(&client, DIG).await;
    assert_eq!(now, on_1 + on_2 - operator_on_2);
    let listed = client
        .status
        .list_instances(ListInstancesRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .instances;
    let old_listed = listed.iter().find(|i| i.id == old).expect("old listed");
    assert!(old_listed.terminated, "{old_listed:?}");
    // Settled: a later look finds the same.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(counts(&mut client, DIG, &old, &["cluster2"]).await, c2);
}

async fn two_apps_rendering_one_object_are_refused(server: &TestServer) {
    let mut client = server.client().await;
    let lc = &mut client.lifecycle;
    let collectd = lc
        .get_app(GetAppRequest {
            name: format!("{VERSION}/apps/collectd"),
        })
        .await
        .unwrap()
        .into_inner();
    // The operator app now renders collectd's objects too.
    lc.update_app(UpdateAppRequest {
        app: Some(App {
            name: format!("{VERSION}/apps/operator"),
            manifests: collectd.manifests,
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["manifests".into()],
        }),
    })
    .await
    .unwrap();
    lc.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
        name: DIG.into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let refused = error_view(
        lc.instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(refused.code, Code::FailedPrecondition, "{refused:?}");
    assert_eq!(refused.reason, "DUPLICATE_OBJECT", "{refused:?}");
    assert!(
        refused.message.contains("\"collectd\"") && refused.message.contains("\"operator\""),
        "names both apps: {refused:?}"
    );
    let group = lc
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: DIG.into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(group.state, DeploymentIntentGroupState::Approved as i32);
}
