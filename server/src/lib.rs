//! Flotilla's control plane server: a multi-cluster lifecycle manager served over gRPC.
//!
//! Layers (DESIGN §2): `api` holds thin tonic handlers, `app` orchestrates one use
//! case inside one transaction, `domain` is pure logic, `store` is the SQL repository,
//! `watch` fans the status event log out to WatchStatus streams.

/// Unit tests on both backends: `$sqlite` runs `$check(url)` on a fresh SQLite file,
/// `$postgres` on a fresh PostgreSQL database (dropped afterwards).
#[cfg(test)]
macro_rules! on_both_backends {
    ($sqlite:ident, $postgres:ident, $check:path) => {
        #[tokio::test]
        async fn $sqlite() {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
            $check(&url).await;
        }

        #[tokio::test]
        async fn $postgres() {
            let url = flotilla_tests::create_postgres_database().await;
            $check(&url).await;
            flotilla_tests::drop_postgres_database(&url);
        }
    };
}

pub mod agent;
pub mod api;
pub mod app;
pub mod config;
pub mod coord;
pub mod demo;
pub mod domain;
pub mod error;
pub mod ids;
pub mod infra;
pub mod k8s;
pub mod metrics;
pub mod net;
pub mod rsync;
pub mod server;
pub mod sim;
pub mod store;
pub mod tasks;
pub mod vault;
pub mod watch;
pub mod wire;

#[cfg(test)]
mod layers;
