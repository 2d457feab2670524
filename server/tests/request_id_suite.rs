//! Request ids, run against SQLite and PostgreSQL alike: a retry with the same id returns
//! the first result, the same id with another request is refused, and expired ids are
//! forgotten by the upkeep task; and the migrated schema starts empty.

use std::time::Duration;

use flotilla_server::app::RequestKey;
use flotilla_server::app::lifecycle::Lifecycle;
use flotilla_server::domain::names::{Kind, PROJECT, ResourceName};
use flotilla_server::domain::resources::ProjectSpec;
use flotilla_server::error::Error;
use flotilla_server::store::Store;
use flotilla_server::tasks::BackgroundTask;
use flotilla_server::tasks::upkeep::{StoreUpkeep, Upkeep};

backend_suite!(
    request_ids_are_idempotent,
    expired_request_ids_are_forgotten,
    schema_has_expected_tables,
);

fn n(kind: &'static Kind, name: &str) -> ResourceName {
    ResourceName::parse(kind, "name", name).unwrap()
}

async fn request_ids_are_idempotent(store: Store) {
    let app = Lifecycle::new(store);
    let key = RequestKey {
        scope: "CreateProject:".into(),
        request_id: "req-1".into(),
        request_hash: "h1".into(),
    };
    let first = app
        .create(
            n(&PROJECT, "projects/x"),
            ProjectSpec::default(),
            Some(&key),
        )
        .await
        .unwrap();
    let retry = app
        .create(
            n(&PROJECT, "projects/x"),
            ProjectSpec::default(),
            Some(&key),
        )
        .await
        .unwrap();
    assert_eq!(
        first, retry,
        "a retry returns the first result, not ALREADY_EXISTS"
    );
    let other = RequestKey {
        request_hash: "h2".into(),
        ..key
    };
    let err = app
        .create(
            n(&PROJECT, "projects/y"),
            ProjectSpec::default(),
            Some(&other),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        Error::FailedPrecondition {
            reason: flotilla_server::error::Precondition::RequestIdReused,
            ..
        }
    ));
}

async fn expired_request_ids_are_forgotten(store: Store) {
    let app = Lifecycle::new(store.clone());
    let key = RequestKey {
        scope: "CreateProject:".into(),
        request_id: "r".into(),
        request_hash: "h".into(),
    };
    let name = ResourceName::parse(&PROJECT, "name", "projects/e").unwrap();
    app.create(name.clone(), ProjectSpec::default(), Some(&key))
        .await
        .unwrap();
    let keep = StoreUpkeep {
        store: store.clone(),
        job: Upkeep::ExpireRequests {
            retention: Duration::from_secs(3600),
        },
    };
    assert_eq!(keep.activate().await.unwrap()["expired"], 0);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let expire = StoreUpkeep {
        store: store.clone(),
        job: Upkeep::ExpireRequests {
            retention: Duration::from_millis(1),
        },
    };
    assert_eq!(expire.activate().await.unwrap()["expired"], 1);
    assert_eq!(expire.activate().await.unwrap()["expired"], 0, "idempotent");
    // The key is forgotten: the same request is a new create now, and the project exists.
    let again = app
        .create(name, ProjectSpec::default(), Some(&key))
        .await
        .unwrap_err();
    assert!(matches!(again, Error::AlreadyExists { .. }));
}

async fn schema_has_expected_tables(store: Store) {
    let mut conn = store.read().await.unwrap();
    for table in [
        "projects",
        "composite_apps",
        "apps",
        "composite_profiles",
        "app_profiles",
        "deployment_intent_groups",
        "placement_intents",
        "cluster_providers",
        "clusters",
        "network_intents",
        "lifecycle_history",
        "instances",
        "instance_clusters",
        "rsync_resources",
        "request_ids",
    ] {
        let count: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
            .fetch_one(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("table {table}: {e}"));
        assert_eq!(count, 0, "{table} starts empty");
    }
}
