//! Replica loss at scale (issue 58's acceptance): three replicas on PostgreSQL and etcd,
//! 20 AGENT clusters whose agents (one process) dial a TCP balancer in front of them, and
//! a rollout of 10,000 ConfigMaps (500 per cluster). Each apply takes the agent up to
//! 800 ms (`--apply-millis 400`), so a cluster's applies are still landing when the
//! replica that runs the most clusters is killed with SIGKILL, some of its clusters'
//! resources written on its word and the rest not yet. Then:
//!
//! - the survivors own its clusters, and every cluster is Available, within the lease
//!   TTL + 5 s;
//! - the rollout converges;
//! - every resource was written once at its agent, on one replica's word: the new owner
//!   sends the moved clusters' desired state again, and what the dead one had already
//!   written comes back unchanged (the agents log every apply);
//! - WatchStatus subscribers on the survivors (no resume) and through the balancer (one
//!   on the victim, which resumes elsewhere with its token) each saw every event exactly
//!   once, compared with a fresh snapshot and with the log replayed from their first
//!   token.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use flotilla_client::names;
use flotilla_client::v1::*;
use flotilla_tests::etcd::Etcd;
use flotilla_tests::eventually;
use tokio::sync::oneshot;

use super::watched::{assert_exactly_once, watcher};
use super::{owners, registered, three_behind_a_balancer};
use crate::common::fleet::{clusters, group, instantiate, wait_counts};

const CLUSTERS: usize = 20;
const APPS: usize = 20;
const CONFIG_MAPS: usize = 25;
const RESOURCES: usize = CLUSTERS * APPS * CONFIG_MAPS;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_rollout_loses_no_event_and_applies_nothing_twice() {
    let etcd = Etcd::start().await.expect("etcd");
    let ttl = 3;
    let (mut replicas, balancer) = three_behind_a_balancer(&etcd, &[]).await;
    let ids: Vec<String> = (0..CLUSTERS).map(|i| format!("c{i:02}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut client = replicas[0].client().await;
    let tokens = clusters(&mut client, &ids).await;
    let fleet: Vec<(String, String)> = ids
        .iter()
        .map(|id| (names::cluster("cp", id), tokens[*id].clone()))
        .collect();
    let agents = flotilla_tests::TestAgent::start_fleet_logging_applies(
        &replicas[0],
        &balancer.url(),
        "all",
        &fleet,
        &["--apply-millis", "400"],
    );
    let shared = eventually(
        Duration::from_secs(20),
        "every cluster owned, by all three",
        || async {
            let owners = owners(&etcd).await;
            let all = owners.len() == CLUSTERS + 1;
            let three = ["r1", "r2", "r3"]
                .iter()
                .all(|r| owners.values().any(|o| o == r));
            (all && three).then_some(owners)
        },
    )
    .await;
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }

    // The victim: the replica that runs the most member clusters.
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (unit, owner) in &shared {
        if unit != "fleet-tasks" {
            *counts.entry(owner.as_str()).or_default() += 1;
        }
    }
    let (victim, _) = counts
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(r, n)| (r.to_string(), *n))
        .expect("owners");
    let moved: BTreeSet<String> = shared
        .iter()
        .filter(|(unit, owner)| **owner == victim && *unit != "fleet-tasks")
        .map(|(unit, _)| names::cluster("cp", unit))
        .collect();
    let members = registered(&etcd).await;
    let victim_at = replicas
        .iter()
        .position(|r| {
            members
                .iter()
                .any(|(id, address)| *id == victim && address.ends_with(&format!(":{}", r.port())))
        })
        .expect("the victim is one of ours");
    eprintln!("ownership {counts:?}; the victim {victim} runs {moved:?}");

    // The group: 20 apps of 25 ConfigMaps on every cluster, approved, not yet rolled out.
    let apps: Vec<(String, String)> = (0..APPS)
        .map(|a| {
            let manifests: String = (0..CONFIG_MAPS)
                .map(|d| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a{a}-cm{d}\ndata:\n  k: v\n---\n"))
                .collect();
            (format!("a{a}"), manifests)
        })
        .collect();
    let dig = group(&mut client, "big", "d", &apps, &ids).await;

    // Subscribers: one on each survivor, three through the balancer (one lands on each
    // replica: it hands connections out in turn), all synced before the rollout.
    let stop = Arc::new(AtomicBool::new(false));
    let mut subscribers = Vec::new();
    for (i, replica) in replicas.iter().enumerate() {
        if i != victim_at {
            subscribers.push((format!("on r{}", i + 1), replica.client().await));
        }
    }
    for n in 0..3 {
        let mut options = replicas[0].options();
        options.address = balancer.url();
        let client = options.connect().await.expect("connect");
        subscribers.push((format!("balanced {n}"), client));
    }
    let mut watching = Vec::new();
    for (who, subscriber) in subscribers {
        let (synced, is_synced) = oneshot::channel();
        let task = tokio::spawn(watcher(subscriber, dig.clone(), stop.clone(), Some(synced)));
        is_synced.await.expect("the subscriber synced");
        watching.push((who, task));
    }

    instantiate(&mut client, &dig).await;
    let rolled = Instant::now();
    // Kill the victim once its clusters' applies are landing: some written on its word.
    let written_by = |applies: &[flotilla_tests::AgentApply], replica: &str| {
        applies
            .iter()
            .filter(|a| a.written() && a.replica == replica)
            .count()
    };
    eventually(
        Duration::from_secs(30),
        "the victim's clusters' applies landing",
        || async { (written_by(&agents.applies(), &victim) >= 50).then_some(()) },
    )
    .await;
    replicas[victim_at].kill9();
    let killed = Instant::now();
    let at_kill = agents.applies();
    let written_at_kill = at_kill.iter().filter(|a| a.written()).count();
    let victim_wrote = written_by(&at_kill, &victim);
    eprintln!(
        "killed {victim} {:?} after the rollout began: {written_at_kill} of {RESOURCES} written, \
         {victim_wrote} of them on its word",
        rolled.elapsed()
    );
    assert!(
        written_at_kill < RESOURCES && victim_wrote < moved.len() * APPS * CONFIG_MAPS,
        "the kill came after the victim's part of the rollout"
    );

    // Its clusters are owned by the survivors and Available within the TTL + 5 s.
    let survivor = replicas
        .iter()
        .enumerate()
        .find(|(i, _)| *i != victim_at)
        .map(|(_, r)| r)
        .expect("survivors");
    let mut client = survivor.client().await;
    eventually(
        Duration::from_secs(ttl + 5),
        "the survivors own every cluster",
        || async {
            let owners = owners(&etcd).await;
            (owners.len() == CLUSTERS + 1 && owners.values().all(|o| *o != victim)).then_some(())
        },
    )
    .await;
    for cluster in &moved {
        eventually(
            Duration::from_secs(ttl + 5),
            "a moved cluster Available",
            || {
                let mut client = client.clone();
                async move {
                    let got = client
                        .lifecycle
                        .get_cluster(GetClusterRequest {
                            name: cluster.clone(),
                        })
                        .await
                        .ok()?
                        .into_inner();
                    (got.connectivity == Connectivity::Available as i32).then_some(())
                }
            },
        )
        .await;
    }
    let failover = killed.elapsed();
    eprintln!(
        "{} clusters owned again and Available {failover:?} after the kill",
        moved.len()
    );
    assert!(failover <= Duration::from_secs(ttl + 5), "{failover:?}");

    // The rollout converges.
    wait_counts(
        &client,
        &dig,
        &[],
        RESOURCES as i32,
        RESOURCES as i32,
        "the rollout converged after the kill",
    )
    .await;
    eprintln!(
        "the rollout converged {:?} after it began",
        rolled.elapsed()
    );

    // Every resource written once at its agent, on one replica's word.
    let applies = agents.applies();
    let mut writes: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for apply in applies.iter().filter(|a| a.written()) {
        writes
            .entry((&apply.cluster, &apply.resource))
            .or_default()
            .push(&apply.replica);
    }
    let twice: Vec<_> = writes.iter().filter(|(_, by)| by.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "written more than once: {:?}",
        &twice[..twice.len().min(10)]
    );
    assert_eq!(writes.len(), RESOURCES, "every resource written");
    let sent_again = applies.len() - RESOURCES;
    let mut by_replica: BTreeMap<&str, usize> = BTreeMap::new();
    for by in writes.values() {
        *by_replica.entry(by[0]).or_default() += 1;
    }
    // The moved clusters' resources: some written on the victim's word, the rest on
    // their new owners' (the kill landed mid-way through those clusters).
    let moved_writes: Vec<&str> = writes
        .iter()
        .filter(|((cluster, _), _)| moved.contains(*cluster))
        .map(|(_, by)| by[0])
        .collect();
    let by_victim = moved_writes.iter().filter(|r| **r == victim).count();
    eprintln!(
        "writes by replica {by_replica:?}; {sent_again} applies sent again came back unchanged; \
         of the moved clusters' {} resources, {by_victim} written on the victim's word",
        moved_writes.len()
    );
    assert!(by_victim > 0 && by_victim < moved_writes.len());

    // Every subscriber saw every event exactly once.
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::SeqCst);
    let mut resumed = 0;
    for (who, task) in watching {
        let watched = task.await.expect("a subscriber");
        let resumes = watched.resumes;
        if who.starts_with("on ") {
            assert_eq!(resumes, 0, "the subscriber {who} on a survivor resumed");
        }
        resumed += usize::from(resumes > 0);
        let events = assert_exactly_once(&mut client, &dig, watched).await;
        eprintln!("subscriber {who}: {events} events exactly once, {resumes} resumes");
    }
    assert!(
        resumed >= 1,
        "the subscriber on the victim resumed elsewhere"
    );
    drop(agents);
}
