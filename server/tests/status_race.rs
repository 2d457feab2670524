//! Recording rsync outcomes while another writer holds one of the resources. On
//! PostgreSQL the other writer gets in between the recording's read and its update:
//! the recording must fail with ABORTED and change nothing, not record events and
//! counts for moves it did not make. On SQLite writers take turns: the recording waits
//! for the other one, sees its change and records the rest.

mod common;

use flotilla_server::app::lifecycle::Lifecycle;
use flotilla_server::app::status::{Outcome, StatusApp};
use flotilla_server::domain::names::*;
use flotilla_server::domain::resources::*;
use flotilla_server::error::Error;
use flotilla_server::store::status::rsync_work;
use flotilla_server::store::{Backend, Store};
use sqlx::Row;

const VERSION: &str = "projects/p/compositeApps/ca/versions/v1";
const DIG: &str = "projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d";
const CLUSTER_NAME: &str = "clusterProviders/cp/clusters/c1";

fn n(kind: &'static Kind, name: &str) -> ResourceName {
    ResourceName::parse(kind, "name", name).unwrap()
}

/// Intent group d places app a (three ConfigMaps) on cluster c1; approved and
/// instantiated, so its three resources are Pending.
async fn instantiated(app: &Lifecycle) {
    app.create(n(&PROJECT, "projects/p"), ProjectSpec::default(), None)
        .await
        .unwrap();
    app.create(
        n(&COMPOSITE_APP, VERSION),
        CompositeAppSpec::default(),
        None,
    )
    .await
    .unwrap();
    let manifests = (0..3)
        .map(|i| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\n"))
        .collect::<Vec<_>>()
        .join("---\n");
    app.create(
        n(&APP, &format!("{VERSION}/apps/a")),
        AppSpec {
            manifests,
            document_count: 3,
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    app.create(
        n(
            &COMPOSITE_PROFILE,
            &format!("{VERSION}/compositeProfiles/prof"),
        ),
        CompositeProfileSpec::default(),
        None,
    )
    .await
    .unwrap();
    app.create(
        n(&CLUSTER_PROVIDER, "clusterProviders/cp"),
        ClusterProviderSpec::default(),
        None,
    )
    .await
    .unwrap();
    app.create_cluster(n(&CLUSTER, CLUSTER_NAME), ClusterSpec::default(), None)
        .await
        .unwrap();
    app.create_dig(
        n(&DEPLOYMENT_INTENT_GROUP, DIG),
        DigSpec {
            composite_profile: "prof".into(),
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    app.create(
        n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/a")),
        PlacementIntentSpec {
            app: "a".into(),
            cluster_provider: "cp".into(),
            cluster_names: vec!["c1".into()],
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    let dig = n(&DEPLOYMENT_INTENT_GROUP, DIG);
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

    // Another writer moves cm0 and holds its row until it commits.
    let mut other = store.begin().await.unwrap();
    sqlx::query("UPDATE rsync_resources SET rsync_status = 'Failed' WHERE name = 'cm0'")
        .execute(&mut *other)
        .await
        .unwrap();
    let status = StatusApp::new(store.clone());
    let outcomes: Vec<_> = work.into_iter().map(|w| (w, Outcome::Succeeded)).collect();
    let recording = tokio::spawn(async move { status.record_outcomes(&outcomes).await });
    // PostgreSQL: the recording reads the three Pending rows, then its update waits
    // for cm0's row. SQLite: it waits for the write slot.
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
            ("cm0".to_string(), "Failed".to_string()),
            ("cm1".to_string(), expected.to_string()),
            ("cm2".to_string(), expected.to_string()),
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
