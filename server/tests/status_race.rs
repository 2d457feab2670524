//! Recording rsync outcomes while another writer holds one of the resources. On
//! PostgreSQL the other writer gets in between the recording's read and its update:
//! the recording must fail with ABORTED and change nothing, not record events and
//! counts for moves it did not make. On SQLite writers take turns: the recording waits
//! for the other one, sees its change and records the rest.

mod common;

use flotilla_server::app::lifecycle::Lifecycle;
use flotilla_server::app::status::{Outcome, StatusApp};
use flotilla_server::domain::names::*;
use flotilla_server::error::Error;
use flotilla_server::store::status::rsync_work;
use flotilla_server::store::{Backend, Store};
use sqlx::Row;

#[path = "common/fleet.rs"]
mod fleet;

use fleet::{DIG, name};

const CLUSTER_NAME: &str = "clusterProviders/edge/clusters/c0";

/// The fleet's one app (three ConfigMaps, a0-cm0..2) on its one cluster, approved
/// and instantiated, so its three resources are Pending.
async fn instantiated(app: &Lifecycle) {
    fleet::seed(app, 1, 1, 3).await;
    let dig = name(&DEPLOYMENT_INTENT_GROUP, DIG);
    app.approve_dig(&dig, None, None).await.unwrap();
    app.instantiate_dig(&dig, None, None).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_race_aborts_the_recording_on_postgres() {
    let db = common::postgres().await;
    recording_beside_another_writer(db.store.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_take_turns_on_sqlite() {
    let db = common::sqlite().await;
    recording_beside_another_writer(db.store.clone()).await;
}

async fn revision(store: &Store) -> i64 {
    sqlx::query("SELECT revision FROM watch_targets WHERE target = $1")
        .bind(DIG)
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get("revision")
}

async fn recording_beside_another_writer(store: Store) {
    instantiated(&Lifecycle::new(store.clone())).await;
    let work = {
        let mut conn = store.read().await.unwrap();
        rsync_work(&mut conn, CLUSTER_NAME, None, 100)
            .await
            .unwrap()
    };
    assert_eq!(work.len(), 3);
    let events_before = revision(&store).await;

    // Another writer moves a0-cm0 and holds its row until it commits.
    let mut other = store.begin().await.unwrap();
    sqlx::query("UPDATE rsync_resources SET rsync_status = 'Failed' WHERE name = 'a0-cm0'")
        .execute(&mut *other)
        .await
        .unwrap();
    let status = StatusApp::new(store.clone());
    let outcomes: Vec<_> = work.into_iter().map(|w| (w, Outcome::Succeeded)).collect();
    let recording =
        tokio::spawn(async move { status.record_outcomes(&[outcomes.as_slice()]).await });
    // PostgreSQL: the recording reads the three Pending rows, then its update waits
    // for a0-cm0's row. SQLite: it waits for the write slot.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(
        !recording.is_finished(),
        "the recording waits for the other writer"
    );
    other.commit().await.unwrap();
    let result = recording.await.unwrap();
    let (expected, moved) = match store.backend() {
        Backend::Postgres => {
            let error = result.unwrap_err();
            assert!(matches!(error, Error::Aborted { .. }), "{error:?}");
            ("Pending", 0)
        }
        Backend::Sqlite => {
            result.unwrap();
            ("Applied", 2)
        }
    };
    let statuses: Vec<(String, String)> =
        sqlx::query("SELECT name, rsync_status FROM rsync_resources ORDER BY name")
            .fetch_all(store.pool())
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get("name"), r.get("rsync_status")))
            .collect();
    assert_eq!(
        statuses,
        [
            ("a0-cm0".to_string(), "Failed".to_string()),
            ("a0-cm1".to_string(), expected.to_string()),
            ("a0-cm2".to_string(), expected.to_string()),
        ]
    );
    assert_eq!(
        revision(&store).await,
        events_before + moved,
        "an event for each move made, none for the others"
    );
    let applied: i64 = sqlx::query(
        "SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) AS n FROM status_counts \
         WHERE dimension = 'rsync' AND value = 'Applied'",
    )
    .fetch_one(store.pool())
    .await
    .unwrap()
    .get("n");
    assert_eq!(applied, moved, "counts of the moves made only");
}
