//! The response bytes of watch streams the process holds until the socket takes them,
//! bounded per stream and over the whole server.
//!
//! A slow client is not a reason to buffer: gRPC flow control lets a server push as
//! much as the client's windows allow (megabytes per connection with hyper's
//! defaults), and what the socket cannot take yet waits in h2's send queue. With
//! 10,000 subscribers syncing at once that was most of the server's memory. So a
//! subscriber takes [`Credit`] for a message before it sends it: from its stream's
//! share ([`PER_STREAM`]) and then from the server's [`Budget`]. The credit travels
//! with the message to the response body ([`super::routes`]), which ties it to the
//! frame's bytes ([`Credit::hold`]), so it comes back when h2 has written the frame to
//! the socket and drops it. A subscriber whose client does not read waits for credit,
//! and its events wait in the SQL log, not in memory.
//!
//! Only WatchStatus is paced: its subscribers number in the thousands and its
//! snapshots are large.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

use super::Encoded;

/// The bytes one stream may hold (written to the client's queue, not yet to the
/// socket): four full watch messages.
pub const PER_STREAM: usize = 4 * 17 * 1024;

/// The bytes all paced streams together may hold by default.
pub const BUDGET: usize = 64 * 1024 * 1024;

/// gRPC's framing adds five bytes to every message.
pub const FRAME_HEADER: usize = 5;

/// A message towards a client with the output credit it took, if paced.
pub type Sent = (Result<Encoded, Status>, Option<Credit>);

/// The server-wide budget of held response bytes.
#[derive(Clone)]
pub struct Budget {
    bytes: Arc<Semaphore>,
    size: usize,
    /// Shows the bytes held.
    gauge: prometheus::IntGauge,
}

impl Budget {
    pub fn new(size: usize, gauge: prometheus::IntGauge) -> Budget {
        let size = size.clamp(PER_STREAM, u32::MAX as usize);
        Budget {
            bytes: Arc::new(Semaphore::new(size)),
            size,
            gauge,
        }
    }

    /// Shows the bytes held now.
    fn show(&self) {
        let held = self.size - self.bytes.available_permits();
        self.gauge.set(held as i64);
    }
}

/// The pacing of one response stream.
pub struct Outbound {
    budget: Budget,
    stream: Arc<Semaphore>,
}

/// Room for one message's bytes, from its stream's share and the server's budget.
/// Given back when dropped: with its frame, or with its message if the stream ends
/// before the message is sent.
pub struct Credit {
    stream: OwnedSemaphorePermit,
    budget: OwnedSemaphorePermit,
    /// Dropped after the permits (fields drop in order): shows what is left.
    _shown: Shown,
}

/// Shows the budget's bytes held when dropped.
struct Shown(Budget);

impl Drop for Shown {
    fn drop(&mut self) {
        self.0.show();
    }
}

impl Credit {
    /// Adds `other`'s room to this credit (the messages of one frame).
    pub fn merge(&mut self, other: Credit) {
        self.stream.merge(other.stream);
        self.budget.merge(other.budget);
    }

    /// `bytes`, holding this credit until the last of them is dropped.
    pub fn hold(self, bytes: Bytes) -> Bytes {
        Bytes::from_owner(Held {
            bytes,
            _credit: self,
        })
    }
}

/// A frame's bytes with the credit they hold.
struct Held {
    bytes: Bytes,
    _credit: Credit,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Outbound {
    pub fn new(budget: Budget) -> Outbound {
        Outbound {
            budget,
            stream: Arc::new(Semaphore::new(PER_STREAM)),
        }
    }

    /// Waits for room for a message of `len` bytes (a message longer than the
    /// stream's share takes all of it).
    pub async fn credit(&self, len: usize) -> Credit {
        let len = len + FRAME_HEADER;
        let permits = |cap: usize| len.min(cap) as u32;
        let stream = self.stream.clone().acquire_many_owned(permits(PER_STREAM));
        let stream = stream.await.expect("a stream's semaphore is never closed");
        let budget = self.budget.bytes.clone();
        let budget = budget.acquire_many_owned(permits(self.budget.size));
        let budget = budget
            .await
            .expect("the budget's semaphore is never closed");
        self.budget.show();
        Credit {
            stream,
            budget,
            _shown: Shown(self.budget.clone()),
        }
    }
}
