//! Portability of the PostgreSQL migrations (issue 21, point 9): no migration asks for
//! lz4 where the server may lack it; where it has it the event log still gets it; and a
//! database migrated with the old text of a rewritten migration still starts.

use flotilla_server::store::Store;

/// The SHA-384 of 0006's first text (with `COMPRESSION lz4` in its CREATE TABLE).
const OLD_0006: &str = "7362bd1a4436e9b72ac2c44c4f745b7ec17e1af1e71a311979f54f8349d51113ff3f1bb4e868d0d8be02577432bb8d44";

#[test]
fn no_create_table_asks_for_lz4() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations/postgres");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n");
        // PostgreSQL < 14 cannot parse COMPRESSION: only a version-guarded ALTER that
        // catches its own failure (0015) may use it.
        if code.contains("COMPRESSION") {
            assert!(
                !code.contains("CREATE TABLE")
                    && code.contains("server_version_num")
                    && code.contains("EXCEPTION WHEN"),
                "{}: an unguarded COMPRESSION clause",
                path.display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lz4_where_available_and_old_checksums_repaired() {
    let url = flotilla_tests::create_postgres_database().await;
    let store = Store::connect(&url).await.expect("migrated");
    let (compression,): (String,) = sqlx::query_as(
        "SELECT attcompression::text FROM pg_attribute \
         WHERE attrelid = 'watch_log'::regclass AND attname = 'events'",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    // This PostgreSQL (15, Debian's build) has lz4: 'l'. Without it the column keeps ''.
    let (lz4_built,): (bool,) = sqlx::query_as(
        "SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' \
         AND 'lz4' = ANY(enumvals))",
    )
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(
        compression == "l",
        lz4_built,
        "attcompression {compression:?}"
    );

    // A database that ran 0006's old text records its old checksum.
    let moved =
        sqlx::query("UPDATE _sqlx_migrations SET checksum = decode($1, 'hex') WHERE version = 6")
            .bind(OLD_0006)
            .execute(store.pool())
            .await
            .unwrap()
            .rows_affected();
    assert_eq!(moved, 1);
    store.close().await;
    let store = Store::connect(&url)
        .await
        .expect("starts on the old checksum");
    let (recorded,): (String,) =
        sqlx::query_as("SELECT encode(checksum, 'hex') FROM _sqlx_migrations WHERE version = 6")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_ne!(
        recorded, OLD_0006,
        "the checksum was moved to the current text"
    );
    store.close().await;
    flotilla_tests::drop_postgres_database(&url);
}

/// A database from before absent instances were NULL (0028 on SQLite, 0029 on
/// PostgreSQL): a group and a cluster that never had an instance held '', which the
/// migration turns into NULL; an instance id is kept; and the store reads both.
async fn absent_instances_become_null(url: &str, migrator: sqlx::migrate::Migrator, new: i64) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let mut before = migrator;
    before.migrations = before
        .migrations
        .iter()
        .filter(|m| m.version < new)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    before.run(&pool).await.unwrap();
    let instance = "01a23c4f-2467-77eb-9346-8000baa90f08";
    for (name, current) in [
        (
            "projects/p/compositeApps/a/versions/v/deploymentIntentGroups/new",
            "",
        ),
        (
            "projects/p/compositeApps/a/versions/v/deploymentIntentGroups/used",
            instance,
        ),
    ] {
        sqlx::query(
            "INSERT INTO deployment_intent_groups (name, parent, uid, body, generation, \
             create_time, update_time, state, revision, approved_hash, current_instance, \
             composite_profile) VALUES ($1, 'p', $1, '{}', 1, 0, 0, 'Created', 1, '', $2, 'x')",
        )
        .bind(name)
        .bind(current)
        .execute(&pool)
        .await
        .unwrap();
    }
    sqlx::query(
        "INSERT INTO clusters (name, parent, uid, body, generation, create_time, update_time, \
         network_state, network_revision, current_network_instance) \
         VALUES ('clusterProviders/cp/clusters/c', 'cp', 'u', '{}', 1, 0, 0, 'Created', 1, '')",
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let store = Store::connect(url).await.expect("migrated");
    let groups: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT name, current_instance FROM deployment_intent_groups ORDER BY name")
            .fetch_all(store.pool())
            .await
            .unwrap();
    assert_eq!(
        groups.into_iter().map(|(_, c)| c).collect::<Vec<_>>(),
        [None, Some(instance.to_string())]
    );
    let (cluster,): (Option<String>,) =
        sqlx::query_as("SELECT current_network_instance FROM clusters")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(cluster, None);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absent_instances_become_null_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("f.db").display());
    absent_instances_become_null(&url, sqlx::migrate!("../migrations/sqlite"), 28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absent_instances_become_null_postgres() {
    let url = flotilla_tests::create_postgres_database().await;
    absent_instances_become_null(&url, sqlx::migrate!("../migrations/postgres"), 29).await;
}
