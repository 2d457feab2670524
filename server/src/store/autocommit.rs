//! Writes made of one autocommitted statement (PostgreSQL). A write whose every part
//! fits one statement (data-modifying CTEs, the event-log append among them) needs no
//! BEGIN and no COMMIT round trip: the rows it locks, the event-log target's row
//! above all, are held for that statement and its WAL flush only, where a
//! transaction holds them while its COMMIT travels. Such a writer holds a write slot,
//! as a transaction does.

use std::sync::Arc;

use sqlx::Any;
use sqlx::pool::PoolConnection;

use super::slots::WritePermit;
use super::{Signals, Store, watch};
use crate::error::Result;

/// A connection for autocommitted writes, holding a write slot.
pub struct Autocommit {
    conn: PoolConnection<Any>,
    _write_slot: WritePermit,
    signals: Arc<Signals>,
}

impl Store {
    /// A connection for autocommitted writes (PostgreSQL), once a write slot is free
    /// (`urgent`: ahead of the ordinary writers waiting for one).
    pub async fn autocommit(&self, urgent: bool) -> Result<Autocommit> {
        let slot = self.write_slot(urgent).await;
        let conn = self.pool.acquire().await?;
        Ok(Autocommit {
            conn,
            _write_slot: slot,
            signals: self.signals.clone(),
        })
    }
}

impl Autocommit {
    /// Tells `target`'s readers of `events`, which a statement appended and committed.
    pub fn appended(&self, target: &str, events: Vec<watch::Event>) {
        crate::metrics::METRICS
            .status_events_appended
            .inc_by(events.len() as u64);
        self.signals.signal(target, Some(events));
    }
}

super::derefs_to_connection!(Autocommit, conn);
