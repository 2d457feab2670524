//! Test databases: a fresh SQLite file or a fresh PostgreSQL database per test, so the
//! same suite runs against both backends in parallel without interference.

use flotilla_server::store::Store;

/// A store on a database that lives as long as the guard.
pub struct TestDb {
    pub store: Store,
    _dir: Option<tempfile::TempDir>,
    /// The PostgreSQL database, dropped with the guard unless the test failed.
    postgres: Option<String>,
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(url) = &self.postgres {
            flotilla_tests::drop_postgres_database(url);
        }
    }
}

pub async fn sqlite() -> TestDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    TestDb {
        store: Store::connect(&url).await.expect("sqlite store"),
        _dir: Some(dir),
        postgres: None,
    }
}

pub async fn postgres() -> TestDb {
    let url = flotilla_tests::create_postgres_database().await;
    TestDb {
        store: Store::connect(&url).await.expect("postgres store"),
        _dir: None,
        postgres: Some(url),
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
