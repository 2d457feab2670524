//! End-to-end: the failure cases of seed 001 through real gRPC on SQLite and
//! PostgreSQL — capacity running out on first provisioning (cleaned up to DESTROYED),
//! a cleanup the garbage collector retries until the host is back, a failed restart,
//! stop and scale (ALERT, with the size the cluster really has), operations timing
//! out, state sync and the recovery policies — and kill -9 in the middle of a start,
//! a scale and a delete, after which the workflow goes on from what the database
//! says and the IaaS holds exactly what the cluster records (nothing leaked).

use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_tests::{Backend, TestServer, error_view, eventually};
use tonic::Code;

use crate::common::container_clusters::*;

flotilla_tests::e2e_suite!(backend => out_of_capacity_on_first_start, gc_retries_failed_cleanup, failed_operations_raise_alert, operations_time_out, sync_and_recovery, crash_mid_operations);

fn nodes_reason(c: &ContainerCluster) -> String {
    condition(c, "NodesReady").reason.clone()
}

async fn fail_next(client: &mut flotilla_client::Client, operation: &str, count: i32) {
    client
        .simulator
        .fail_infrastructure_operations(FailInfrastructureOperationsRequest {
            operation: operation.into(),
            count,
        })
        .await
        .unwrap();
}

async fn set_hosts(client: &mut flotilla_client::Client, hosts: &[&str], reachable: bool) {
    for host in hosts {
        client
            .simulator
            .set_host_reachable(SetHostReachableRequest {
                host: (*host).into(),
                reachable,
            })
            .await
            .unwrap();
    }
}

/// Capacity runs out at VM 6 of 10 on first provisioning: EXPUNGING releases the five
/// VMs and the network, then DESTROYED, keeping why.
async fn out_of_capacity_on_first_start(backend: Backend) {
    let server =
        TestServer::start_with(backend, &["--sim", "--sim-iaas-latency-millis", "200"]).await;
    let mut client = server.client().await;
    let c = create(&mut client, spec("big", "zone-b", 10)).await;
    // The network takes 200 ms: the capacity is cut before the first VM.
    client
        .simulator
        .set_zone_capacity(SetZoneCapacityRequest {
            zone_id: "zone-b".into(),
            capacity: 5,
        })
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut most_vms = 0;
    let deadline = std::time::Instant::now() + WAIT;
    let gone = loop {
        let now = get(&mut client, &c.name).await;
        most_vms = most_vms.max(now.vms.len());
        if seen.last() != Some(&state(&now)) {
            seen.push(state(&now));
        }
        if state(&now) == ContainerClusterState::Destroyed {
            break now;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never DESTROYED: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(seen.contains(&ContainerClusterState::Expunging), "{seen:?}");
    assert_eq!(most_vms, 5, "VMs 1-5 were made, VM 6 was refused");
    assert_eq!(nodes_reason(&gone), "InsufficientCapacity", "{gone:?}");
    assert!(
        condition(&gone, "NodesReady")
            .message
            .contains("zone-b has no capacity")
    );
    assert_eq!(
        zone_capacity(&mut client, "zone-b").await,
        5,
        "the 5 VMs are released"
    );
    assert_eq!(
        iaas_objects(&server, &gone).await,
        (0, 0),
        "VMs and network released"
    );
}

/// A cleanup that cannot finish (its hosts are unreachable) leaves EXPUNGE; the
/// garbage collector finds it every period and retries, and reaches DESTROYED once
/// the hosts are back.
async fn gc_retries_failed_cleanup(backend: Backend) {
    let server = TestServer::start_with(
        backend,
        &[
            "--sim",
            "--sim-iaas-latency-millis",
            "20",
            "--cluster-gc-millis",
            "400",
        ],
    )
    .await;
    let mut client = server.client().await;
    let c = create(&mut client, spec("doomed", "zone-b", 2)).await;
    wait_state(&client, &c.name, ContainerClusterState::Running).await;
    verb(&mut client, &c.name, "stop").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Stopped).await;
    set_hosts(&mut client, &["host-b1", "host-b2"], false).await;
    verb(&mut client, &c.name, "delete").await.unwrap();
    let stuck = wait_state(&client, &c.name, ContainerClusterState::Expunge).await;
    assert_eq!(nodes_reason(&stuck), "HostUnreachable", "{stuck:?}");
    // The collector retries: each retry moves the cluster (EXPUNGING and back), so its
    // etag changes while the hosts stay down.
    let retried = eventually(WAIT, "a GC retry", || {
        let mut client = client.clone();
        let (name, etag) = (c.name.clone(), stuck.etag.clone());
        async move {
            let now = get(&mut client, &name).await;
            (now.etag != etag && state(&now) == ContainerClusterState::Expunge).then_some(now)
        }
    })
    .await;
    assert_eq!(retried.vms.len(), 2, "nothing could be released");
    set_hosts(&mut client, &["host-b1", "host-b2"], true).await;
    let gone = wait_state(&client, &c.name, ContainerClusterState::Destroyed).await;
    assert_eq!(iaas_objects(&server, &gone).await, (0, 0));
    assert_eq!(zone_capacity(&mut client, "zone-b").await, 100);
}

/// A restart that fails, a stop that leaves a VM running and a scale that fails half
/// way raise ALERT (the scale with the size the cluster really has); an operation
/// past its timeout fails.
async fn failed_operations_raise_alert(backend: Backend) {
    let server =
        TestServer::start_with(backend, &["--sim", "--sim-iaas-latency-millis", "20"]).await;
    let mut client = server.client().await;
    let c = create(&mut client, spec("flaky", "zone-a", 2)).await;
    wait_state(&client, &c.name, ContainerClusterState::Running).await;

    // Restart fails.
    verb(&mut client, &c.name, "stop").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Stopped).await;
    fail_next(&mut client, "start_vm", 1).await;
    verb(&mut client, &c.name, "start").await.unwrap();
    let alert = wait_state(&client, &c.name, ContainerClusterState::Alert).await;
    assert_eq!(nodes_reason(&alert), "InjectedFault", "{alert:?}");
    assert!(
        condition(&alert, "NodesReady")
            .message
            .contains("the start failed")
    );
    assert_eq!(alert.vms.len(), 2, "a failed restart keeps the VMs");

    // From ALERT: stop (which succeeds now), start again.
    verb(&mut client, &c.name, "stop").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Stopped).await;
    verb(&mut client, &c.name, "start").await.unwrap();
    let running = wait_state(&client, &c.name, ContainerClusterState::Running).await;
    assert_eq!(
        condition(&running, "NodesReady").status,
        ConditionStatus::True as i32
    );

    // Stop leaves a VM running.
    fail_next(&mut client, "stop_vm", 1).await;
    verb(&mut client, &c.name, "stop").await.unwrap();
    let alert = wait_state(&client, &c.name, ContainerClusterState::Alert).await;
    assert!(
        alert.vms.iter().any(|vm| vm.state == "Running"),
        "{alert:?}"
    );

    // Scale fails half way: the zone's capacity is cut to one VM as the scale starts;
    // the cluster ends in ALERT with the VMs it got (3, or 4 if the first VM was made
    // before the cut landed).
    let s = create(&mut client, spec("grow", "zone-b", 2)).await;
    wait_state(&client, &s.name, ContainerClusterState::Running).await;
    scale(&mut client, &s.name, 5).await.unwrap();
    client
        .simulator
        .set_zone_capacity(SetZoneCapacityRequest {
            zone_id: "zone-b".into(),
            capacity: 1,
        })
        .await
        .unwrap();
    let alert = wait_state(&client, &s.name, ContainerClusterState::Alert).await;
    assert_eq!(
        alert.size as usize,
        alert.vms.len(),
        "ALERT with the size it really has"
    );
    assert!((3..5).contains(&alert.size), "{alert:?}");
    assert_eq!(nodes_reason(&alert), "InsufficientCapacity");
    let error = error_view(scale(&mut client, &s.name, 4).await);
    assert_eq!(
        error.code,
        Code::FailedPrecondition,
        "scale only from RUNNING"
    );
}

/// An operation times out rather than hang: a first start slower than the timeout
/// fails with reason Timeout and cleans up.
async fn operations_time_out(backend: Backend) {
    let server = TestServer::start_with(
        backend,
        &[
            "--sim",
            "--sim-iaas-latency-millis",
            "1500",
            "--cluster-operation-timeout-secs",
            "1",
        ],
    )
    .await;
    let mut client = server.client().await;
    let c = create(&mut client, spec("slow", "zone-a", 2)).await;
    let gone = wait_state(&client, &c.name, ContainerClusterState::Destroyed).await;
    assert_eq!(nodes_reason(&gone), "Timeout", "{gone:?}");
    assert!(
        condition(&gone, "NodesReady")
            .message
            .contains("within 1 s")
    );
    assert_eq!(iaas_objects(&server, &gone).await, (0, 0));
}

/// State sync and the recovery policies: automatic re-provisioning of a VM deleted out
/// of band; RESTART_STOPPED cannot replace a lost VM (ALERT says why); NONE refuses
/// recovery; an ALERT cluster whose VMs agree again returns to its state.
async fn sync_and_recovery(backend: Backend) {
    let server = TestServer::start_with(
        backend,
        &[
            "--sim",
            "--sim-iaas-latency-millis",
            "20",
            "--cluster-sync-millis",
            "300",
        ],
    )
    .await;
    let mut client = server.client().await;

    let auto = create(
        &mut client,
        ContainerCluster {
            auto_recover: true,
            ..spec("auto", "zone-a", 3)
        },
    )
    .await;
    let running = wait_state(&client, &auto.name, ContainerClusterState::Running).await;
    let lost = running.vms[1].clone();
    // Watched from here: state sync's ALERT is streamed before the recovery it starts.
    let mut events = client
        .container_clusters
        .watch_container_clusters(WatchContainerClustersRequest::default())
        .await
        .expect("watch")
        .into_inner();
    client
        .simulator
        .delete_vm(DeleteVmRequest {
            vm_id: lost.vm_id.clone(),
        })
        .await
        .unwrap();
    let mut states = Vec::new();
    while !(states.contains(&ContainerClusterState::Recovering)
        && states.last() == Some(&ContainerClusterState::Running))
    {
        let message = tokio::time::timeout(WAIT, events.message())
            .await
            .expect("an event in time")
            .expect("the stream")
            .expect("a message");
        for event in message.events {
            if let Some(cluster) = event.container_cluster.filter(|c| c.name == auto.name) {
                let now = state(&cluster);
                if states.last() != Some(&now) {
                    states.push(now);
                }
            }
        }
    }
    let from_alert: Vec<_> = states
        .iter()
        .skip_while(|s| **s != ContainerClusterState::Alert)
        .take(2)
        .copied()
        .collect();
    assert_eq!(
        from_alert,
        [
            ContainerClusterState::Alert,
            ContainerClusterState::Recovering
        ],
        "{states:?}"
    );
    let healed = eventually(WAIT, "re-provisioned", || {
        let mut client = client.clone();
        let (name, lost) = (auto.name.clone(), lost.clone());
        async move {
            let now = get(&mut client, &name).await;
            let replaced = now
                .vms
                .iter()
                .any(|vm| vm.name == lost.name && vm.vm_id != lost.vm_id);
            (replaced && state(&now) == ContainerClusterState::Running).then_some(now)
        }
    })
    .await;
    assert_eq!(healed.vms.len(), 3);
    assert!(healed.vms.iter().all(|vm| vm.state == "Running"));

    // RESTART_STOPPED: a lost VM is not replaced.
    let manual = create(
        &mut client,
        ContainerCluster {
            recovery_policy: RecoveryPolicy::RestartStopped as i32,
            ..spec("manual", "zone-a", 2)
        },
    )
    .await;
    let running = wait_state(&client, &manual.name, ContainerClusterState::Running).await;
    let lost = running.vms[0].clone();
    client
        .simulator
        .delete_vm(DeleteVmRequest {
            vm_id: lost.vm_id.clone(),
        })
        .await
        .unwrap();
    let alert = wait_state(&client, &manual.name, ContainerClusterState::Alert).await;
    let nodes = condition(&alert, "NodesReady");
    assert!(
        nodes
            .message
            .contains(&format!("({}): deleted out of band", lost.vm_id)),
        "{nodes:?}"
    );
    assert!(
        alert
            .vms
            .iter()
            .any(|vm| vm.vm_id == lost.vm_id && vm.state == "Missing"),
        "the map keeps the lost VM"
    );
    verb(&mut client, &manual.name, "recover").await.unwrap();
    let still = eventually(WAIT, "recovery refused by policy", || {
        let mut client = client.clone();
        let name = manual.name.clone();
        async move {
            let now = get(&mut client, &name).await;
            (state(&now) == ContainerClusterState::Alert && nodes_reason(&now) == "VmMissing")
                .then_some(now)
        }
    })
    .await;
    assert!(
        condition(&still, "NodesReady")
            .message
            .contains("does not re-provision")
    );

    // NONE: recovery is refused; stopping by hand is how out.
    let none = create(
        &mut client,
        ContainerCluster {
            recovery_policy: RecoveryPolicy::None as i32,
            ..spec("none", "zone-a", 2)
        },
    )
    .await;
    let running = wait_state(&client, &none.name, ContainerClusterState::Running).await;
    client
        .simulator
        .stop_vm(StopVmRequest {
            vm_id: running.vms[0].vm_id.clone(),
        })
        .await
        .unwrap();
    wait_state(&client, &none.name, ContainerClusterState::Alert).await;
    let error = error_view(verb(&mut client, &none.name, "recover").await);
    assert_eq!(error.code, Code::FailedPrecondition);
    assert_eq!(error.reason, "RECOVERY_DISABLED");

    // ALERT whose VMs agree again: a stop left a VM running; stopped by hand, the
    // cluster returns to STOPPED.
    fail_next(&mut client, "stop_vm", 1).await;
    verb(&mut client, &none.name, "stop").await.unwrap();
    let alert = eventually(WAIT, "stop left a VM running", || {
        let mut client = client.clone();
        let name = none.name.clone();
        async move {
            let now = get(&mut client, &name).await;
            (state(&now) == ContainerClusterState::Alert
                && now.vms.iter().any(|vm| vm.state == "Running"))
            .then_some(now)
        }
    })
    .await;
    let still_running = alert.vms.iter().find(|vm| vm.state == "Running").unwrap();
    client
        .simulator
        .stop_vm(StopVmRequest {
            vm_id: still_running.vm_id.clone(),
        })
        .await
        .unwrap();
    let stopped = wait_state(&client, &none.name, ContainerClusterState::Stopped).await;
    assert!(stopped.vms.iter().all(|vm| vm.state == "Stopped"));
}

/// Polls fast until `pick` holds, returning what it saw (for catching a workflow in
/// the middle).
async fn catch(
    client: &flotilla_client::Client,
    name: &str,
    what: &str,
    pick: impl Fn(&ContainerCluster) -> bool,
) -> ContainerCluster {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let now = get(&mut client.clone(), name).await;
        if pick(&now) {
            return now;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never saw {what}: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// kill -9 mid-start, mid-scale and mid-delete: after restart the workflow continues
/// from the database, and the IaaS holds exactly the VMs the cluster records.
async fn crash_mid_operations(backend: Backend) {
    let mut server =
        TestServer::start_with(backend, &["--sim", "--sim-iaas-latency-millis", "300"]).await;
    let mut client = server.client().await;
    let c = create(&mut client, spec("tough", "zone-a", 6)).await;
    let seen = catch(&client, &c.name, "a start half done", |now| {
        state(now) == ContainerClusterState::Starting && (2..4).contains(&now.vms.len())
    })
    .await;
    server.kill9();
    eprintln!("killed mid-start with {} of 6 VMs", seen.vms.len());
    server.respawn().await;
    let mut client = server.client().await;
    let after = get(&mut client, &c.name).await;
    assert_eq!(
        state(&after),
        ContainerClusterState::Starting,
        "the kill landed mid-start"
    );
    assert!(after.vms.len() < 6);
    let running = wait_state(&client, &c.name, ContainerClusterState::Running).await;
    assert_eq!(running.vms.len(), 6);
    let mut names: Vec<&str> = running.vms.iter().map(|vm| vm.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 6);
    assert_eq!(
        iaas_objects(&server, &running).await,
        (6, 1),
        "no VM leaked"
    );

    scale(&mut client, &c.name, 2).await.unwrap();
    let seen = catch(&client, &c.name, "a scale half done", |now| {
        state(now) == ContainerClusterState::Scaling && (3..6).contains(&now.vms.len())
    })
    .await;
    server.kill9();
    eprintln!("killed mid-scale with {} VMs", seen.vms.len());
    server.respawn().await;
    let mut client = server.client().await;
    assert_eq!(
        state(&get(&mut client, &c.name).await),
        ContainerClusterState::Scaling
    );
    let two = wait_state(&client, &c.name, ContainerClusterState::Running).await;
    assert_eq!(two.vms.len(), 2);
    assert_eq!(iaas_objects(&server, &two).await, (2, 1));

    verb(&mut client, &c.name, "stop").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Stopped).await;
    verb(&mut client, &c.name, "delete").await.unwrap();
    catch(&client, &c.name, "a delete in flight", |now| {
        state(now) == ContainerClusterState::Expunging && now.vms.len() == 1
    })
    .await;
    server.kill9();
    server.respawn().await;
    let client = server.client().await;
    assert_eq!(
        state(&get(&mut client.clone(), &c.name).await),
        ContainerClusterState::Expunging,
        "the kill landed mid-delete"
    );
    let gone = wait_state(&client, &c.name, ContainerClusterState::Destroyed).await;
    assert_eq!(iaas_objects(&server, &gone).await, (0, 0));
}
