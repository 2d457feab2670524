//! The SimulatorService with replicas: a call on a replica that does not run the
//! cluster is passed to the one that does.

use std::time::Duration;

use flotilla_client::v1::{
    Connectivity, DisconnectClusterRequest, FailAppliesRequest, ReconnectClusterRequest,
};
use flotilla_tests::etcd::Etcd;
use flotilla_tests::eventually;

use super::{IDS, ReplicaFleet, sessions_on};
use crate::common::fleet::{instantiate, summary, version_group};

/// The SimulatorService reaches a sim cluster through any replica: a call on a replica
/// that does not run the cluster is passed to the one that does. Disconnecting and
/// reconnecting an agent, and failing its applies, through the other replica act on
/// the cluster's agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulator_reaches_a_cluster_through_any_replica() {
    let etcd = Etcd::start().await.expect("etcd");
    let ReplicaFleet {
        first,
        second,
        shared,
        agents,
        ..
    } = ReplicaFleet::start_with(&etcd, &["--sim"]).await;
    // A cluster the second runs, and calls made through the first.
    let (id, _) = shared
        .iter()
        .find(|(unit, owner)| *owner == "r2" && *unit != "fleet-tasks")
        .expect("the second runs a cluster");
    let cluster = flotilla_client::names::cluster("cp", id);
    let mut through_first = first.client().await;
    let sessions_before = sessions_on(&second, id);
    through_first
        .simulator
        .disconnect_cluster(DisconnectClusterRequest {
            cluster: cluster.clone(),
        })
        .await
        .expect("disconnect through the first");
    flotilla_tests::wait_connectivity(&through_first, &cluster, Connectivity::Retrying).await;
    through_first
        .simulator
        .reconnect_cluster(ReconnectClusterRequest {
            cluster: cluster.clone(),
        })
        .await
        .expect("reconnect through the first");
    flotilla_tests::wait_connectivity(&through_first, &cluster, Connectivity::Available).await;
    assert!(
        sessions_on(&second, id) > sessions_before,
        "the agent came back to the replica that runs its cluster"
    );

    through_first
        .simulator
        .fail_applies(FailAppliesRequest {
            cluster: cluster.clone(),
            kind_pattern: "ConfigMap".into(),
            name_pattern: "refused*".into(),
        })
        .await
        .expect("fail applies through the first");
    let apps = [(
        "refused".to_owned(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: refused\ndata:\n  k: v\n".to_owned(),
    )];
    let dig = version_group(&mut through_first, "p", "sim", "v1", "f", &apps, &IDS).await;
    instantiate(&mut through_first, &dig).await;
    eventually(Duration::from_secs(30), "one cluster refuses", || {
        let mut client = through_first.clone();
        let dig = dig.clone();
        async move {
            let rsync = summary(&mut client, &dig, &[]).await.rsync_status?;
            (rsync.applied == 5 && rsync.failed == 1).then_some(())
        }
    })
    .await;
    let only: Vec<&str> = vec![id.as_str()];
    let on_it = summary(&mut through_first, &dig, &only).await;
    assert_eq!(on_it.rsync_status.unwrap_or_default().failed, 1);
    drop(agents);
}
