//! The status write path in one process, without agents: what P4 (convergence) costs
//! the database writer. Instantiates 100 apps x 100 clusters x 10 ConfigMaps, records
//! every resource's rsync outcome in the batches the rsync workers use, then ingests a
//! bundle state per app and cluster in the groups the agent hub commits. The writer is
//! the one thing P4's hundred agents wait on (on SQLite it is held ~100% of the time
//! while converging), and unlike a P4 run, which moves by a tenth from one run to the
//! next with the machine, this measures its work alone.
//!
//!   cargo bench -p flotilla-server --bench status_writes [-- --backend postgres] [-- --small]
//!
//! Prints each phase's resources/s and the bytes it wrote (the write-ahead log and
//! its checkpoints) per resource.

use std::time::Instant;

use flotilla_server::app::lifecycle::{Lifecycle, Verb};
use flotilla_server::app::status::{Bundle, Outcome, Reported, StatusApp};
use flotilla_server::domain::manifest::Gvk;
use flotilla_server::domain::names::ClusterName;
use flotilla_server::domain::names::*;
use flotilla_server::store::Store;
use flotilla_server::store::status::rsync_work;
use serde_json::json;

#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[path = "../tests/common/fleet.rs"]
mod fleet;

use fleet::{DIG, name, seed};

/// The rsync workers' batch and the agent hub's group, as the server runs them.
const RSYNC_BATCH: i64 = 500;
const GROUP_BUNDLES: usize = 256;

/// What an agent reports for app `a` on a cluster: its ConfigMaps, present.
fn bundle(instance: &str, a: usize, docs: usize) -> Bundle {
    let deployment_id = format!("{instance}-a{a}");
    Bundle {
        resources: (0..docs)
            .map(|d| {
                Reported::new(
                    Gvk {
                        group: String::new(),
                        version: "v1".into(),
                        kind: "ConfigMap".into(),
                    },
                    String::new(),
                    format!("a{a}-cm{d}"),
                    &json!({"name": format!("a{a}-cm{d}"),
                            "labels": {"flotilla/deployment-id": deployment_id}}),
                    &json!({"data": {"key": format!("value-{d}")}}),
                    &json!({}),
                )
            })
            .collect(),
        deployment_id,
        partial: false,
    }
}

/// Bytes this process wrote so far (the database writer's log and checkpoints).
fn written() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("wchar: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The bytes are this process's own writes: SQLite's; PostgreSQL writes in its server.
fn rate(resources: usize, seconds: f64, bytes: u64) -> String {
    let written = if bytes == 0 {
        String::new()
    } else {
        format!(", {:>5} bytes written a resource", bytes / resources as u64)
    };
    format!(
        "{:>9.0} res/s ({seconds:.2} s){written}",
        resources as f64 / seconds
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let postgres = args
        .windows(2)
        .any(|w| w[0] == "--backend" && w[1] == "postgres");
    let (apps, clusters, docs) = if args.iter().any(|a| a == "--small") {
        (10, 10, 10)
    } else {
        (100, 100, 10)
    };
    let total = apps * clusters * docs;
    let dir = tempfile::tempdir().expect("temp dir");
    let url = if postgres {
        flotilla_tests::create_postgres_database().await
    } else {
        format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("bench.db").display()
        )
    };
    let store = Store::connect(&url).await.expect("store");
    let lifecycle = Lifecycle::new(store.clone());
    seed(&lifecycle, apps, clusters, docs).await;
    let dig = name(&DEPLOYMENT_INTENT_GROUP, DIG);
    lifecycle
        .run_dig_verb(&dig, Verb::Approve, None, None)
        .await
        .expect("approve");
    let (started, before) = (Instant::now(), written());
    let view = lifecycle
        .run_dig_verb(&dig, Verb::Instantiate, None, None)
        .await
        .expect("instantiate");
    let instantiate = (started.elapsed().as_secs_f64(), written() - before);
    let instance = view
        .status
        .current_instance
        .expect("an instance")
        .to_string();
    let status = StatusApp::new(store.clone());

    // Every cluster's work in the rsync workers' batches, read before timing: what is
    // measured is recording the outcomes.
    let mut batches = Vec::new();
    for c in 0..clusters {
        let cluster = ClusterName::of("edge", &format!("c{c}"));
        let mut after = None;
        loop {
            let mut conn = store.read().await.expect("read");
            let work = rsync_work(&mut conn, &cluster, after.as_ref(), RSYNC_BATCH)
                .await
                .expect("work");
            let Some(last) = work.last() else { break };
            after = Some((last.instance.to_string(), last.key.clone()));
            batches.push(work);
        }
    }
    let (started, before) = (Instant::now(), written());
    for work in batches {
        let outcomes: Vec<_> = work.into_iter().map(|w| (w, Outcome::Succeeded)).collect();
        status
            .record_outcomes(&[outcomes.as_slice()])
            .await
            .expect("record");
    }
    let outcomes = (started.elapsed().as_secs_f64(), written() - before);

    let reports: Vec<(ClusterName, Bundle)> = (0..clusters)
        .flat_map(|c| {
            let instance = &instance;
            (0..apps).map(move |a| {
                (
                    ClusterName::of("edge", &format!("c{c}")),
                    bundle(instance, a, docs),
                )
            })
        })
        .collect();
    let (started, before) = (Instant::now(), written());
    for group in reports.chunks(GROUP_BUNDLES) {
        let batches: Vec<(&ClusterName, &[Bundle])> = group
            .iter()
            .map(|(cluster, bundle)| (cluster, std::slice::from_ref(bundle)))
            .collect();
        status.ingest_clusters(&batches).await.expect("ingest");
    }
    let ingest = (started.elapsed().as_secs_f64(), written() - before);

    let summary = status
        .query(
            &dig,
            &flotilla_server::app::status::StatusQuery {
                selection: flotilla_server::app::status::Selection::everything(
                    flotilla_server::app::status::Output::Summary,
                ),
                ..flotilla_server::app::status::StatusQuery::all_page(None, 1, None)
            },
        )
        .await
        .expect("summary");
    let count = |key: (&str, &str)| {
        summary
            .counts
            .get(
                &flotilla_server::domain::status::CountKey::parse(key.0, key.1)
                    .expect("a count key"),
            )
            .copied()
            .unwrap_or(0)
    };
    assert_eq!(
        count(("rsync", "Applied")),
        total as i64,
        "{:?}",
        summary.counts
    );
    assert_eq!(
        count(("cluster", "Present")),
        total as i64,
        "{:?}",
        summary.counts
    );

    println!(
        "status_writes on {} ({apps} apps x {clusters} clusters x {docs} docs = {total} resources)",
        if postgres { "postgres" } else { "sqlite" }
    );
    println!(
        "  instantiate      {}",
        rate(total, instantiate.0, instantiate.1)
    );
    println!("  rsync outcomes   {}", rate(total, outcomes.0, outcomes.1));
    println!("  bundle ingest    {}", rate(total, ingest.0, ingest.1));
    println!(
        "  both             {}",
        rate(total, outcomes.0 + ingest.0, outcomes.1 + ingest.1)
    );
    store.close().await;
    if postgres {
        flotilla_tests::drop_postgres_database(&url);
    }
}
