//! etcd down for twice the lease TTL while two replicas serve six clusters and a
//! rollout goes on (issue 58, point 7): ownership is sampled every 100 ms from both
//! replicas (`owned_units`) and from SQL (`cluster_fences`), and from etcd once it is
//! back. No cluster has two owners at any sample; the owners stop running their
//! clusters within the TTL; nobody takes one while etcd is down; PostgreSQL-only calls
//! keep working; when etcd returns every cluster is owned and Available again and the
//! rollout converges, with no manual step.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use flotilla_client::v1::Connectivity;
use flotilla_tests::etcd::Etcd;
use flotilla_tests::metrics::{scrape, value};
use flotilla_tests::{Backend, TestServer, eventually, free_port};
use sqlx::Connection;

use super::{IDS, agent_fleet, owners, replica_args};
use crate::common::fleet::{group, instantiate, wait_counts};

/// The fences in SQL: cluster → epoch.
async fn fences(database_url: &str) -> BTreeMap<String, i64> {
    let mut conn = sqlx::PgConnection::connect(database_url)
        .await
        .expect("connect to the test database");
    sqlx::query_as::<_, (String, i64)>("SELECT cluster, epoch FROM cluster_fences")
        .fetch_all(&mut conn)
        .await
        .expect("read the fences")
        .into_iter()
        .collect()
}

/// The units each replica says it runs now (`owned_units`), in the order of `metrics`.
async fn running(metrics: &[String]) -> Vec<i64> {
    let metrics = metrics.to_vec();
    tokio::task::spawn_blocking(move || {
        metrics
            .iter()
            .map(|address| value(&scrape(address), "flotilla_owned_units", &[]) as i64)
            .collect()
    })
    .await
    .expect("scrape")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_etcd_outage_of_twice_the_ttl_splits_no_cluster_and_heals_itself() {
    let mut etcd = Etcd::start().await.expect("etcd");
    let ttl = Duration::from_secs(3);
    let metrics: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let args = |id: &'static str, metrics: &str| -> Vec<String> {
        let mut args: Vec<String> = replica_args(&etcd, id, "3")
            .into_iter()
            .map(str::to_owned)
            .collect();
        for arg in [
            "--sim",
            "false",
            "--agent-heartbeat-millis",
            "1000",
            "--metrics-listen",
            metrics,
        ] {
            args.push(arg.to_owned());
        }
        args
    };
    let first_args = args("r1", &metrics[0]);
    let second_args = args("r2", &metrics[1]);
    let first = TestServer::start_with(Backend::Postgres, &as_strs(&first_args)).await;
    let mut second = first.replica(&as_strs(&second_args)).await;
    second.spawn().await;
    let mut client = first.client().await;
    let fleet = agent_fleet(&mut client).await;
    let _agents = flotilla_tests::TestAgent::start_fleet(&first, "all", &fleet, &[]);
    let units = IDS.len() as i64 + 1;
    eventually(
        Duration::from_secs(15),
        "every unit owned, by both",
        || async {
            let owners = owners(&etcd).await;
            let both = ["r1", "r2"].iter().all(|r| owners.values().any(|o| o == r));
            (owners.len() as i64 == units && both).then_some(())
        },
    )
    .await;
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    eventually(
        Duration::from_secs(5),
        "both replicas report their units",
        || async { (running(&metrics).await.iter().sum::<i64>() == units).then_some(()) },
    )
    .await;
    let before = fences(&first.database_url).await;
    assert_eq!(before.len() as i64, units, "{before:?}");

    etcd.stop();
    let stopped = Instant::now();
    // Status traffic through the outage: a rollout made now (PostgreSQL only).
    let apps = [(
        "o".to_owned(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o1\ndata:\n  k: v\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o2\ndata:\n  k: v\n"
            .to_owned(),
    )];
    // PostgreSQL-only calls work while etcd is down.
    let dig = group(&mut client, "co", "o", &apps, &IDS).await;
    instantiate(&mut client, &dig).await;
    let mut samples = 0;
    let mut all_dropped: Option<Duration> = None;
    while stopped.elapsed() < 2 * ttl {
        let now = running(&metrics).await;
        samples += 1;
        assert!(
            now.iter().sum::<i64>() <= units,
            "two owners of one unit: {now:?} of {units} at {:?}",
            stopped.elapsed()
        );
        if now.iter().all(|n| *n == 0) {
            all_dropped.get_or_insert(stopped.elapsed());
        } else {
            assert!(
                stopped.elapsed() < ttl,
                "still running {now:?} units {:?} into the outage (TTL {ttl:?})",
                stopped.elapsed()
            );
        }
        assert_eq!(
            fences(&first.database_url).await,
            before,
            "a cluster was taken while etcd was down"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let all_dropped = all_dropped.expect("the owners stopped running their clusters");

    etcd.resume().await.expect("etcd again");
    let resumed = Instant::now();
    let mut etcd_samples = 0;
    loop {
        let now = running(&metrics).await;
        let owners = owners(&etcd).await;
        samples += 1;
        etcd_samples += 1;
        assert!(
            now.iter().sum::<i64>() <= units,
            "two owners of one unit: {now:?}"
        );
        assert!(owners.len() as i64 <= units, "{owners:?}");
        let fences = fences(&first.database_url).await;
        for (cluster, epoch) in &before {
            assert!(
                fences.get(cluster).is_some_and(|now| now >= epoch),
                "{cluster}'s fence went back: {epoch} then {:?}",
                fences.get(cluster)
            );
        }
        if now.iter().sum::<i64>() == units && owners.len() as i64 == units {
            break;
        }
        assert!(
            resumed.elapsed() < Duration::from_secs(20),
            "not every unit owned 20 s after etcd came back: {now:?}, {owners:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let owned_again = resumed.elapsed();
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    wait_counts(
        &client,
        &dig,
        &[],
        12,
        12,
        "the rollout made during the outage",
    )
    .await;
    eprintln!(
        "{samples} samples ({etcd_samples} with etcd): every owner stopped {all_dropped:?} \
         into the outage; every unit owned again {owned_again:?} after etcd came back; the \
         rollout converged {:?} after",
        resumed.elapsed()
    );
}

/// Arguments as the server helpers take them.
fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}
