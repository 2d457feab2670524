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
use super::{Backend, Conn, Signals, Store, Tx, watch};
use crate::error::Result;

/// A connection for autocommitted writes, holding a write slot.
pub struct Autocommit {
    conn: PoolConnection<Any>,
    _write_slot: WritePermit,
    signals: Arc<Signals>,
}

/// How a group that appends to one hot event-log target is written (the action groups,
/// all on the `actions` target). On SQLite, a transaction: the one writer serializes
/// groups anyway. On PostgreSQL, one autocommitted statement: a writer holds the
/// target's row from its revision allocation to its commit and the groups queue for it;
/// a statement holds it for its tail and WAL flush, where a transaction also holds it
/// for the COMMIT's round trip.
pub enum GroupWrite {
    Tx(Tx),
    AtOnce(Autocommit),
}

impl GroupWrite {
    /// The connection the group reads through before it writes.
    pub fn conn(&mut self) -> &mut Conn {
        match self {
            GroupWrite::Tx(tx) => tx,
            GroupWrite::AtOnce(conn) => conn,
        }
    }
}

impl Store {
    /// A writer for a group on a hot target (see [`GroupWrite`]), ahead of the ordinary
    /// writers waiting for a slot.
    pub async fn group_write(&self) -> Result<GroupWrite> {
        Ok(match self.backend {
            Backend::Sqlite => GroupWrite::Tx(self.begin_urgent().await?),
            Backend::Postgres => GroupWrite::AtOnce(self.autocommit(true).await?),
        })
    }

    /// Whether reads on other connections run beside the writers, so that a write
    /// path gains by reading ahead of its write slot (PostgreSQL). On SQLite reads
    /// and the one writer share the file's lock, and a read ahead only adds a turn.
    pub fn reads_beside_writes(&self) -> bool {
        self.backend == Backend::Postgres
    }

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
        self.signals.signal(super::signals::FLEET, None);
    }
}

super::derefs_to_connection!(Autocommit, conn);
