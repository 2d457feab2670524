//! Where CPU-bound work on caller input runs: a parse of a large manifest, the
//! conversion of a large request. Small work runs in place; large work runs with its
//! worker handed over (`block_in_place`), so the runtime's other tasks (another
//! tenant's GetProject, an agent's heartbeat) move to another thread instead of waiting
//! behind it, and at most one such piece per core runs at a time, so a burst of large
//! requests queues here instead of taking every core from the rest.

use std::sync::LazyLock;

use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::Semaphore;

/// Input smaller than this (bytes) is handled in place: its cost is below a
/// scheduling slice.
pub const IN_PLACE_BYTES: usize = 16 * 1024;

static PERMITS: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

/// Runs `work`, CPU-bound over `bytes` of caller input, where it cannot stall the
/// runtime's other tasks.
pub async fn off_executor<T>(bytes: usize, work: impl FnOnce() -> T) -> T {
    if bytes < IN_PLACE_BYTES {
        return work();
    }
    let _permit = PERMITS
        .acquire()
        .await
        .expect("the semaphore is never closed");
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        // A single-threaded runtime (a unit test) has no other worker to hand to.
        _ => work(),
    }
}
