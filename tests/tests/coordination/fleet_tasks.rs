//! The fleet-wide tasks' fence (issue 58, point 2): container cluster workflows run on
//! the replica holding the `fleet-tasks` unit. That replica is stopped (SIGSTOP) in the
//! middle of a start, its lease runs out, the other replica takes the unit and finishes
//! the workflow; woken (SIGCONT), the stopped replica's step in flight is refused by
//! the fence, and the cluster ends as the new holder made it: Running, its VMs once
//! each in the IaaS.

use std::time::{Duration, Instant};

use flotilla_client::v1::ContainerClusterState;
use flotilla_tests::etcd::Etcd;
use flotilla_tests::{Backend, TestServer, eventually, sql_count};

use super::{owners, replica_args};
use crate::common::container_clusters::{create, iaas_objects, spec, wait_state};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_holder_of_the_fleet_tasks_commits_no_workflow_step() {
    let etcd = Etcd::start().await.expect("etcd");
    let args = |id: &'static str| {
        let mut args = replica_args(&etcd, id, "3");
        // Every IaaS call takes 1.5 s: the pause lands inside one.
        args.extend(["--sim", "--sim-iaas-latency-millis", "1500"]);
        args
    };
    let r1 = TestServer::start_with(Backend::Postgres, &args("r1")).await;
    let mut r2 = r1.replica(&args("r2")).await;
    r2.spawn().await;
    let holder = eventually(Duration::from_secs(15), "the fleet tasks held", || async {
        owners(&etcd).await.get("fleet-tasks").cloned()
    })
    .await;
    let (paused, other) = if holder == "r1" { (r1, r2) } else { (r2, r1) };
    let other_id = if holder == "r1" { "r2" } else { "r1" };
    let mut client = other.client().await;
    let cluster = create(&mut client, spec("fenced", "zone-a", 3)).await;
    // The network is made and recorded, then the first VM's call is under way.
    eventually(Duration::from_secs(30), "the network recorded", || async {
        let recorded = sql_count(
            &other.database_url,
            &format!(
                "SELECT COUNT(*) FROM container_clusters WHERE id = '{}' AND network_id <> ''",
                cluster.id
            ),
        )
        .await;
        (recorded == 1).then_some(())
    })
    .await;
    paused.signal(libc::SIGSTOP);
    let stopped = Instant::now();
    eventually(
        Duration::from_secs(15),
        "the other replica holds the fleet tasks",
        || async {
            (owners(&etcd).await.get("fleet-tasks").map(String::as_str) == Some(other_id))
                .then_some(())
        },
    )
    .await;
    let running = wait_state(&client, &cluster.name, ContainerClusterState::Running).await;
    eprintln!(
        "{other_id} took the fleet tasks and finished the start {:?} after {holder} stopped",
        stopped.elapsed()
    );
    paused.signal(libc::SIGCONT);
    eventually(
        Duration::from_secs(20),
        "the woken step refused",
        || async {
            paused
                .log()
                .contains("no longer runs the fleet-wide tasks")
                .then_some(())
        },
    )
    .await;
    // It wrote nothing after: the cluster is as the new holder left it.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = crate::common::container_clusters::get(&mut client, &cluster.name).await;
    assert_eq!(after.etag, running.etag, "{after:?}");
    assert_eq!(
        crate::common::container_clusters::state(&after),
        ContainerClusterState::Running
    );
    assert_eq!(
        iaas_objects(&other, &after).await,
        (3, 1),
        "VMs and network, once each"
    );
    drop(paused);
}
