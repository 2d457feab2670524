//! Memory that callers cannot grow (issue 21, point 2): `NAMES` distinct names that do
//! not exist, sent through the read and watch RPCs (and the simulator's), must leave
//! the server's resident memory where it was, within `SLACK_KIB`. Measured by the
//! server's own RSS from /proc after a warm-up round and a short idle, not timed; every
//! call must be refused NOT_FOUND. The same at the quick and the full scale (a server
//! that kept a few hundred bytes per name would grow by tens of MB).

use std::time::Duration;

use anyhow::{Result, bail};
use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{Backend, TestServer, rss_kib};
use futures::StreamExt;
use tonic::Code;

use super::Row;

/// How many distinct unknown names the measured round sends.
const NAMES: usize = 100_000;
/// How much the server's RSS may differ from before the round, after the idle.
const SLACK_KIB: i64 = 8 * 1024;

/// One call with the `i`th unknown name; every one must be refused NOT_FOUND.
async fn call(mut client: Client, i: usize) -> Result<()> {
    let dig =
        names::deployment_intent_group(&names::composite_app("p", "ca", "v1"), &format!("g{i}"));
    let cluster = names::cluster("cp", &format!("c{i}"));
    let code = match i % 12 {
        0 => client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: dig,
                ..Default::default()
            })
            .await
            .map(drop),
        1 => client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: dig,
                output: StatusOutput::Summary as i32,
                ..Default::default()
            })
            .await
            .map(drop),
        2 => client
            .status
            .get_cluster_network_status(GetClusterNetworkStatusRequest {
                name: cluster,
                ..Default::default()
            })
            .await
            .map(drop),
        3 => client
            .status
            .list_instances(ListInstancesRequest {
                name: dig,
                ..Default::default()
            })
            .await
            .map(drop),
        4 => client
            .status
            .watch_status(WatchStatusRequest {
                name: dig,
                ..Default::default()
            })
            .await
            .map(drop),
        5 => client
            .actions
            .watch_actions(WatchActionsRequest {
                cluster,
                ..Default::default()
            })
            .await
            .map(drop),
        6 => client
            .lifecycle
            .get_cluster(GetClusterRequest { name: cluster })
            .await
            .map(drop),
        7 => client
            .lifecycle
            .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: dig })
            .await
            .map(drop),
        8 => client
            .lifecycle
            .list_placement_intents(ListPlacementIntentsRequest {
                parent: dig,
                ..Default::default()
            })
            .await
            .map(drop),
        9 => client
            .simulator
            .disconnect_cluster(DisconnectClusterRequest { cluster })
            .await
            .map(drop),
        10 => client
            .simulator
            .delete_pod(DeletePodRequest {
                cluster,
                namespace: String::new(),
                pod: format!("pod{i}"),
            })
            .await
            .map(drop),
        _ => client
            .lifecycle
            .list_rendered_resources(ListRenderedResourcesRequest {
                parent: dig,
                ..Default::default()
            })
            .await
            .map(drop),
    };
    match code {
        Err(status) if status.code() == Code::NotFound => Ok(()),
        other => bail!(
            "call {i} ({} of 12): want NOT_FOUND, got {:?}",
            i % 12,
            other.map_err(|s| s.code())
        ),
    }
}

async fn round(server: &TestServer, from: usize, count: usize) -> Result<()> {
    let client = server.client().await;
    let answers: Vec<Result<()>> = futures::stream::iter(from..from + count)
        .map(|i| call(client.clone(), i))
        .buffer_unordered(32)
        .collect()
        .await;
    answers.into_iter().collect()
}

pub async fn run(backend: Backend, label: &'static str, rows: &mut Vec<Row>) -> Result<()> {
    let server = TestServer::start(backend).await;
    let pid = server.pid().expect("server running");
    // Warm up: pools, allocator arenas and caches reach their working size.
    round(&server, 0, 10_000).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_kib(pid);
    round(&server, 10_000, NAMES).await?;
    // The allocator hands freed pages back after a few seconds: wait for it, bounded.
    let mut after = rss_kib(pid);
    for _ in 0..30 {
        if after - before <= SLACK_KIB {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        after = rss_kib(pid);
    }
    rows.push(Row {
        backend: label,
        id: "unknown names",
        figure: format!("{:+} KiB RSS after {NAMES} unknown names", after - before),
        baseline: format!("{before} KiB before"),
        ratio: "-".into(),
        target: format!("<= {SLACK_KIB:+} KiB"),
        pass: after - before <= SLACK_KIB,
        gating: true,
        unit: None,
    });
    Ok(())
}
