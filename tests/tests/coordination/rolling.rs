//! A rolling restart of three replicas behind one load balancer (issue 58, point 6):
//! each replica in turn gets SIGTERM, hands its clusters over, ends its streams with
//! UNAVAILABLE and exits; it is started again on the same address before the next one
//! goes. Meanwhile a client keeps doing verbs (each retried on UNAVAILABLE under its
//! request id) and a watcher keeps a WatchStatus stream open (resumed with its token on
//! UNAVAILABLE), both through the balancer, while the verbs keep the watched group
//! changing. No verb fails; the watcher sees every event once, in the log's order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use flotilla_client::v1::*;
use flotilla_client::{Client, is_transient, names};
use flotilla_tests::etcd::Etcd;
use flotilla_tests::eventually;

use super::watched::{assert_exactly_once, watcher};
use super::{IDS, agent_fleet, owners, registered, three_behind_a_balancer};
use crate::common::fleet::{group, instantiate, wait_counts};

/// Retries `call` while it fails transiently (UNAVAILABLE, or the connection to a
/// replica that is leaving broke under it: the client's `is_transient`), up to 20 s,
/// under the same request id; any other error, or a transient one past that, is a
/// failed verb.
async fn retried<T, F, Fut>(what: &str, retries: &AtomicUsize, mut call: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match call().await {
            Ok(answer) => return Ok(answer.into_inner()),
            Err(status) if is_transient(&status) && Instant::now() < deadline => {
                retries.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => return Err(format!("{what}: {status:?}")),
        }
    }
}

/// What the traffic did: verbs done, retries made, the failures.
#[derive(Default)]
struct Traffic {
    verbs: AtomicUsize,
    retries: AtomicUsize,
    failures: std::sync::Mutex<Vec<String>>,
}

/// Verbs until `stop`: a project created (under a request id) and read back, the
/// watched group `watched` terminated or instantiated in turn, its status read. Returns
/// whether the group was left instantiated.
async fn verbs(
    client: Client,
    watched: String,
    traffic: Arc<Traffic>,
    stop: Arc<AtomicBool>,
) -> bool {
    let mut instantiated = true;
    let mut i = 0;
    while !stop.load(Ordering::SeqCst) {
        i += 1;
        let mut outcome = Vec::new();
        let project = format!("rolling-{i}");
        let lc = client.lifecycle.clone();
        outcome.push(
            retried("CreateProject", &traffic.retries, || {
                let mut lc = lc.clone();
                let project = project.clone();
                async move {
                    lc.create_project(CreateProjectRequest {
                        project_id: project,
                        request_id: format!("rolling-create-{i}"),
                        ..Default::default()
                    })
                    .await
                }
            })
            .await
            .map(drop),
        );
        outcome.push(
            retried("GetProject", &traffic.retries, || {
                let mut lc = lc.clone();
                let name = names::project(&project);
                async move { lc.get_project(GetProjectRequest { name }).await }
            })
            .await
            .map(drop),
        );
        if i % 4 == 0 {
            let name = watched.clone();
            let request_id = format!("rolling-verb-{i}");
            let verb = if instantiated {
                retried("Terminate", &traffic.retries, || {
                    let mut lc = lc.clone();
                    let (name, request_id) = (name.clone(), request_id.clone());
                    async move {
                        lc.terminate_deployment_intent_group(
                            TerminateDeploymentIntentGroupRequest {
                                name,
                                request_id,
                                ..Default::default()
                            },
                        )
                        .await
                    }
                })
                .await
            } else {
                retried("Instantiate", &traffic.retries, || {
                    let mut lc = lc.clone();
                    let (name, request_id) = (name.clone(), request_id.clone());
                    async move {
                        lc.instantiate_deployment_intent_group(
                            InstantiateDeploymentIntentGroupRequest {
                                name,
                                request_id,
                                ..Default::default()
                            },
                        )
                        .await
                    }
                })
                .await
            };
            if verb.is_ok() {
                instantiated = !instantiated;
            }
            outcome.push(verb.map(drop));
        }
        let status = client.status.clone();
        outcome.push(
            retried("GetDeploymentIntentGroupStatus", &traffic.retries, || {
                let mut status = status.clone();
                let name = watched.clone();
                async move {
                    status
                        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                            name,
                            output: StatusOutput::Summary as i32,
                            ..Default::default()
                        })
                        .await
                }
            })
            .await
            .map(drop),
        );
        for result in outcome {
            traffic.verbs.fetch_add(1, Ordering::Relaxed);
            if let Err(failure) = result {
                traffic.failures.lock().unwrap().push(failure);
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    instantiated
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_fails_no_verb_and_loses_no_event() {
    let etcd = Etcd::start().await.expect("etcd");
    // Every instance the verbs make is kept, so the watcher's first token can be
    // replayed to the end.
    let (mut replicas, balancer) =
        three_behind_a_balancer(&etcd, &["--instance-retention", "1000"]).await;
    let through_balancer = || {
        let mut options = replicas[0].options();
        options.address = balancer.url();
        options
    };
    let mut client = through_balancer().connect().await.expect("connect");
    let fleet = agent_fleet(&mut client).await;
    let agents = flotilla_tests::TestAgent::start_fleet_via(
        &replicas[0],
        &balancer.url(),
        "all",
        &fleet,
        &[],
    );
    eventually(Duration::from_secs(15), "every cluster owned", || async {
        (owners(&etcd).await.len() == IDS.len() + 1).then_some(())
    })
    .await;
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    // The watched group: two apps of five ConfigMaps on every cluster.
    let manifests = |app: &str| -> String {
        (0..5)
            .map(|d| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {app}{d}\ndata:\n  k: v\n---\n"))
            .collect()
    };
    let apps = [
        ("a".to_owned(), manifests("a")),
        ("b".to_owned(), manifests("b")),
    ];
    let dig = group(&mut client, "cr", "w", &apps, &IDS).await;
    instantiate(&mut client, &dig).await;
    wait_counts(&client, &dig, &[], 60, 60, "the watched group rolled out").await;

    let stop = Arc::new(AtomicBool::new(false));
    let watching = tokio::spawn(watcher(
        through_balancer().connect().await.expect("connect"),
        dig.clone(),
        stop.clone(),
        None,
    ));
    let traffic = Arc::new(Traffic::default());
    let verbs_done = tokio::spawn(verbs(
        through_balancer().connect().await.expect("connect"),
        dig.clone(),
        traffic.clone(),
        stop.clone(),
    ));
    tokio::time::sleep(Duration::from_secs(2)).await;

    for replica in replicas.iter_mut() {
        let id = registered(&etcd)
            .await
            .into_iter()
            .find(|(_, address)| address.ends_with(&format!(":{}", replica.port())))
            .map(|(id, _)| id)
            .expect("the replica is registered");
        let owned_before = owners(&etcd).await.values().filter(|o| **o == id).count();
        let stopping = Instant::now();
        replica.signal(libc::SIGTERM);
        // Its clusters are handed over while it drains, not a lease TTL after it exits.
        eventually(
            Duration::from_secs(2),
            "the leaving replica's clusters taken",
            || async {
                let owners = owners(&etcd).await;
                (owners.len() == IDS.len() + 1 && owners.values().all(|o| *o != id)).then_some(())
            },
        )
        .await;
        let handed_over = stopping.elapsed();
        let status = replica.wait_exit();
        assert!(
            status.success(),
            "{id} exited with {status}:\n{}",
            replica.log()
        );
        eprintln!(
            "{id}: {owned_before} units handed over {handed_over:?} after SIGTERM; exited after {:?}",
            stopping.elapsed()
        );
        replica.respawn().await;
        eventually(
            Duration::from_secs(10),
            "the restarted replica is a member",
            || async {
                registered(&etcd)
                    .await
                    .iter()
                    .any(|(r, _)| *r == id)
                    .then_some(())
            },
        )
        .await;
        tokio::time::sleep(Duration::from_secs(3)).await;
    }

    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::SeqCst);
    let instantiated = verbs_done.await.expect("verbs");
    let watched = watching.await.expect("watcher");
    let failures = traffic.failures.lock().unwrap().clone();
    let verbs = traffic.verbs.load(Ordering::Relaxed);
    eprintln!(
        "{verbs} verbs, {} retried UNAVAILABLE, {} failed; the watcher resumed {} times over {} events",
        traffic.retries.load(Ordering::Relaxed),
        failures.len(),
        watched.resumes,
        watched.events.len()
    );
    assert!(failures.is_empty(), "failed verbs: {failures:#?}");
    assert!(verbs > 50, "only {verbs} verbs during the restarts");
    assert!(
        watched.resumes >= 1,
        "the watcher's replica restarted, so it resumed"
    );

    // Everything settles: every cluster Available, the group where the verbs left it.
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    if !instantiated {
        instantiate(&mut client, &dig).await;
    }
    wait_counts(&client, &dig, &[], 60, 60, "the group rolled out again").await;
    assert_exactly_once(&mut client, &dig, watched).await;
    drop(agents);
}
