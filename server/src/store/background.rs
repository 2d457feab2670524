//! Reads for background work that runs once per cluster (rsync passes), which a fleet
//! of a thousand clusters starts all at once after an instantiate or an update.
//!
//! Every read waits for a pooled connection at most the pool's acquire timeout (5 s),
//! then fails UNAVAILABLE. With 1,000 rsync passes queued for SQLite's 8 read
//! connections (100–600 ms each while the fleet converges), a user's status query
//! queued behind them and failed: `--scale 10`'s P9 got UNAVAILABLE. Background reads
//! therefore take a permit first, without a timeout: at most a quarter of the pool's
//! connections read for them at once, and the queue of the rest waits here, not in the
//! pool's.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use sqlx::Any;
use sqlx::pool::PoolConnection;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::Store;
use crate::error::Result;

/// The permits of background reads: a quarter of `connections`, at least one.
pub(super) fn permits(connections: u32) -> Arc<Semaphore> {
    Arc::new(Semaphore::new((connections as usize / 4).max(1)))
}

/// A read connection held for background work (see the module doc).
pub struct BackgroundRead {
    conn: PoolConnection<Any>,
    _permit: OwnedSemaphorePermit,
}

impl Deref for BackgroundRead {
    type Target = PoolConnection<Any>;

    fn deref(&self) -> &Self::Target {
        &self.conn
    }
}

impl DerefMut for BackgroundRead {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.conn
    }
}

impl Store {
    /// A read connection for background work done per cluster: it waits its turn among
    /// the background readers first, so that they never hold more than a quarter of the
    /// pool and the API's reads find a connection.
    pub async fn read_background(&self) -> Result<BackgroundRead> {
        let permit = self
            .background_reads
            .clone()
            .acquire_owned()
            .await
            .expect("the background read permits are never closed");
        let conn = self.read().await?;
        Ok(BackgroundRead {
            conn,
            _permit: permit,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// With as many background reads open as they may hold, another one waits while
    /// an API read still gets a connection at once.
    async fn background_reads_leave_the_api_its_connections(url: &str) {
        let store = Store::connect(url).await.unwrap();
        let limit = store.background_reads.available_permits();
        let mut held = Vec::new();
        for _ in 0..limit {
            held.push(store.read_background().await.unwrap());
        }
        let waiting = tokio::time::timeout(Duration::from_millis(300), store.read_background());
        assert!(
            waiting.await.is_err(),
            "a background read beyond {limit} waits"
        );
        let mut api = tokio::time::timeout(Duration::from_secs(1), store.read())
            .await
            .expect("an API read gets a connection at once")
            .unwrap();
        let one: i64 = sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut *api)
            .await
            .unwrap();
        assert_eq!(one, 1);
        let one: i64 = sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut **held[0])
            .await
            .unwrap();
        assert_eq!(one, 1);
        // A permit given back lets the next background read in.
        held.pop();
        tokio::time::timeout(Duration::from_secs(1), store.read_background())
            .await
            .expect("a background read gets in once a permit is back")
            .unwrap();
        drop((api, held));
        store.close().await;
    }

    on_both_backends!(
        background_reads_leave_the_api_its_connections_sqlite,
        background_reads_leave_the_api_its_connections_postgres,
        background_reads_leave_the_api_its_connections
    );
}
