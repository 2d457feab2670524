//! Instance retention and truthful old instances (issue 21, point 3, in part): a
//! group keeps its last N instances (`--instance-retention`); older ones go with their
//! rendered resources and statuses, and a query of a kept old instance reports that
//! instance's state, not the group's.

use flotilla_client::Client;
use flotilla_client::v1::*;
use flotilla_tests::demo::{self, DIG};
use flotilla_tests::{TestServer, e2e_suite, error_view, eventually, sql_count};
use tonic::Code;

e2e_suite!(
    args = ["--demo", "--instance-retention", "2"],
    old_instances_are_kept_up_to_the_limit
);

async fn old_instances_are_kept_up_to_the_limit(server: &TestServer) {
    let mut client = server.client().await;
    let mut ids = Vec::new();
    for round in 0..3 {
        let group = if round == 0 {
            demo::approve_and_instantiate(&mut client).await
        } else {
            client
                .lifecycle
                .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                    name: DIG.into(),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
        };
        ids.push(group.current_instance.clone());
        if round < 2 {
            // Settled first: an instance whose deletes are still outstanding is kept
            // beyond the limit until they are done.
            settle(&client, |c| c.applied > 0 && c.pending + c.retrying == 0).await;
            demo::terminate(&mut client).await;
            settle(&client, |c| c.applied + c.pending + c.retrying == 0).await;
        }
    }
    let listed: Vec<String> = client
        .status
        .list_instances(ListInstancesRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .instances
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(
        listed,
        [ids[2].clone(), ids[1].clone()],
        "the newest two, newest first"
    );

    // The expired one is gone from the API and from every table.
    let expired = error_view(
        client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: DIG.into(),
                instance: ids[0].clone(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(expired.code, Code::NotFound, "{expired:?}");
    // (Each instantiate starts its own deployment base, whose cluster resources go
    // with its last instance.)
    for (table, column) in [
        ("rsync_resources", "instance_id"),
        ("cluster_resources", "base_id"),
        ("instance_clusters", "instance_id"),
        ("status_counts", "instance_id"),
    ] {
        let left = sql_count(
            &server.database_url,
            &format!("SELECT COUNT(*) FROM {table} WHERE {column} = '{}'", ids[0]),
        )
        .await;
        assert_eq!(left, 0, "{table} still holds the expired instance");
    }

    // The kept old one answers with its own state.
    let old = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: DIG.into(),
            instance: ids[1].clone(),
            output: StatusOutput::Summary as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(old.state, "TERMINATED");
}

/// Waits until the demo's current instance's rsync counts satisfy `done`.
async fn settle(client: &Client, done: impl Fn(&RsyncStatusCounts) -> bool + Copy) {
    eventually(
        std::time::Duration::from_secs(30),
        "rsync to settle",
        || {
            let mut client = client.clone();
            async move {
                let counts = flotilla_tests::rsync_counts(&mut client, DIG, "", &[]).await;
                done(&counts).then_some(())
            }
        },
    )
    .await;
}
