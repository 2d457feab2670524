//! Recording rsync outcomes while another writer holds one of the resources. On
//! PostgreSQL the other writer gets in between the recording's read and its update:
//! the recording must fail with ABORTED and change nothing, not record events and
//! counts for moves it did not make. On SQLite writers take turns: the recording waits
//! for the other one, sees its change and records the rest.

use flotilla_server::app::lifecycle::{Lifecycle, Verb};
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
    app.run_dig_verb(&dig, Verb::Approve, None, None)
        .await
        .unwrap();
    app.run_dig_verb(&dig, Verb::Instantiate, None, None)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_race_aborts_the_recording_on_postgres() {
    let db = crate::common::postgres().await;
    recording_beside_another_writer(db.store.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_take_turns_on_sqlite() {
    let db = crate::common::sqlite().await;
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

async fn work_of(store: &Store) -> Vec<flotilla_server::store::status::RsyncWork> {
    let mut conn = store.read().await.unwrap();
    rsync_work(&mut conn, &CLUSTER_NAME.into(), None, 100)
        .await
        .unwrap()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

async fn recording_beside_another_writer(store: Store) {
    instantiated(&Lifecycle::new(store.clone())).await;
    let work = work_of(&store).await;
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
        pairs(&[
            ("a0-cm0", "Failed"),
            ("a0-cm1", expected),
            ("a0-cm2", expected)
        ])
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

/// Applies that raced a rollout: rsync sent the first instance's three applies, one
/// result came back before the rollout and two after it. The rollout keeps a0-cm0 as
/// it was (carried over), changes a0-cm1 and drops a0-cm2. The late results must not
/// make the replaced instance's rows look taken over: a0-cm1 stays with the new
/// instance (which applies its own version; nothing is deleted), a0-cm2, which the
/// rollout had recorded as never applied (Terminated), is Applied after all and is
/// deleted from the cluster (`removed`, see `rsync_set_statuses`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn applies_that_raced_a_rollout_are_settled_on_postgres() {
    let db = crate::common::postgres().await;
    applies_racing_a_rollout(db.store.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn applies_that_raced_a_rollout_are_settled_on_sqlite() {
    let db = crate::common::sqlite().await;
    applies_racing_a_rollout(db.store.clone()).await;
}

/// (name, status as the API shows it) of `instance`'s rendered resources.
async fn shown(store: &Store, instance: &str) -> Vec<(String, String)> {
    let shown = flotilla_server::store::rsync_resource::shown_rsync_status("");
    sqlx::query(&format!(
        "SELECT name, {shown} AS status FROM rsync_resources WHERE instance_id = $1 ORDER BY name"
    ))
    .bind(instance)
    .fetch_all(store.pool())
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get("name"), r.get("status")))
    .collect()
}

async fn applies_racing_a_rollout(store: Store) {
    use flotilla_server::domain::resources::AppSpec;

    let app = Lifecycle::new(store.clone());
    instantiated(&app).await;
    let dig = name(&DEPLOYMENT_INTENT_GROUP, DIG);
    let first = app
        .get_dig(&dig)
        .await
        .unwrap()
        .status
        .current_instance
        .unwrap();
    let status = StatusApp::new(store.clone());
    let sent = work_of(&store).await;
    assert_eq!(sent.len(), 3);
    let (before, late): (Vec<_>, Vec<_>) = sent
        .into_iter()
        .map(|w| (w, Outcome::Succeeded))
        .partition(|(w, _)| w.key.name == "a0-cm0");
    status.record_outcomes(&[before.as_slice()]).await.unwrap();

    // The rollout: a0-cm0 unchanged, a0-cm1 changed, a0-cm2 gone.
    let manifests = format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a0-cm1\ndata:\n  key: changed\n",
        flotilla_tests::configmap_manifests(0, 1)
    );
    app.update(
        &name(&APP, &format!("{}/apps/a0", fleet::VERSION)),
        None,
        0,
        |current: &flotilla_server::store::object::Object<AppSpec>| {
            Ok(AppSpec {
                manifests: manifests.clone(),
                document_count: 2,
                ..current.spec.clone()
            })
        },
    )
    .await
    .unwrap();
    app.run_dig_verb(&dig, Verb::Approve, None, None)
        .await
        .unwrap();
    app.run_dig_verb(&dig, Verb::Rollout, None, None)
        .await
        .unwrap();
    let second = app
        .get_dig(&dig)
        .await
        .unwrap()
        .status
        .current_instance
        .unwrap();
    assert_ne!(first, second);
    let (first, second) = (first.to_string(), second.to_string());
    assert_eq!(
        shown(&store, &first).await,
        pairs(&[
            ("a0-cm0", "Superseded"),
            ("a0-cm1", "Superseded"),
            ("a0-cm2", "Terminated")
        ]),
        "the rollout takes over what it renders again; what it drops was never applied \
         as far as the server knows"
    );

    // The two results that were in flight land now.
    status.record_outcomes(&[late.as_slice()]).await.unwrap();
    assert_eq!(
        shown(&store, &first).await,
        pairs(&[
            ("a0-cm0", "Superseded"),
            ("a0-cm1", "Superseded"),
            ("a0-cm2", "Applied")
        ]),
        "a0-cm1 stays with the new instance; a0-cm2 is on the cluster after all, for \
         rsync to delete"
    );
    let work: std::collections::BTreeSet<(String, String, bool)> = work_of(&store)
        .await
        .iter()
        .map(|w| (w.instance.to_string(), w.key.name.clone(), w.delete))
        .collect();
    assert_eq!(
        work,
        [
            (second.clone(), "a0-cm1".to_string(), false),
            (first.clone(), "a0-cm2".to_string(), true),
        ]
        .into_iter()
        .collect(),
        "apply the new a0-cm1, delete a0-cm2, nothing else"
    );
    let done: Vec<_> = work_of(&store)
        .await
        .into_iter()
        .map(|w| (w, Outcome::Succeeded))
        .collect();
    status.record_outcomes(&[done.as_slice()]).await.unwrap();
    assert!(work_of(&store).await.is_empty());
    assert_eq!(
        shown(&store, &first).await,
        pairs(&[
            ("a0-cm0", "Superseded"),
            ("a0-cm1", "Superseded"),
            ("a0-cm2", "Terminated")
        ])
    );
    assert_eq!(
        shown(&store, &second).await,
        pairs(&[("a0-cm0", "Applied"), ("a0-cm1", "Applied")])
    );
}
