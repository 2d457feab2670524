//! Test databases: a fresh SQLite file or a fresh PostgreSQL database per test, so the
//! same suite runs against both backends in parallel without interference.

use flotilla_server::store::Store;

/// The PostgreSQL server tests create their databases on.
pub fn postgres_admin_url() -> String {
    std::env::var("FLOTILLA_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

/// A store on a database that lives as long as the guard.
pub struct TestDb {
    pub store: Store,
    _dir: Option<tempfile::TempDir>,
}

pub async fn sqlite() -> TestDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    TestDb {
        store: Store::connect(&url).await.expect("sqlite store"),
        _dir: Some(dir),
    }
}

pub async fn postgres() -> TestDb {
    use sqlx::Connection;
    let admin = postgres_admin_url();
    let db = format!("flotilla_test_{}", uuid::Uuid::now_v7().simple());
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {admin} is required for the tests: {e}"));
    sqlx::query(&format!("CREATE DATABASE {db}"))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let (base, _) = admin.rsplit_once('/').expect("url has a database");
    let url = format!("{base}/{db}");
    TestDb {
        store: Store::connect(&url).await.expect("postgres store"),
        _dir: None,
    }
}

/// Runs each named async test function against SQLite and PostgreSQL.
#[macro_export]
macro_rules! backend_suite {
    ($($test:ident),+ $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                let db = $crate::common::sqlite().await;
                super::$test(db.store.clone()).await;
            })+
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                let db = $crate::common::postgres().await;
                super::$test(db.store.clone()).await;
            })+
        }
    };
}
