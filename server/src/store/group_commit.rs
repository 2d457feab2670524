//! Group commit: many callers that each want a small write transaction at about the
//! same time (a hundred agent sessions reporting, a hundred rsync workers recording
//! their outcomes) are written as a few larger transactions instead. Whoever takes a
//! turn writes what every caller queued by then, in one transaction, and answers each.
//! The transaction's fixed costs (locks, aggregates, conditions, the event log's
//! revision, the commit) are paid once for the group, and writers that would queue one
//! by one on the same rows (the instance's totals, the group's conditions) do not.
//!
//! Every queued item brings a caller that takes a turn once after queueing, so there
//! are never fewer turns to come than items queued: each item is answered.

use std::sync::Mutex;

use tokio::sync::{Semaphore, oneshot};

use crate::error::Result;
use crate::store::{Backend, Store};

/// Group transactions in flight at once on PostgreSQL. Writes of different clusters
/// overlap up to the rows they share (see `store::status::lock_owners`); on SQLite there
/// is one writer, so one group at a time.
const POSTGRES_TURNS: usize = 4;

/// Writes a group of items in one transaction.
pub trait GroupWriter<I>: Sync {
    fn write<'a>(&'a self, items: &'a [&'a I]) -> impl Future<Output = Result<()>> + Send + 'a;
}

/// A queue of items written in groups (see the module).
pub struct GroupCommit<I> {
    queue: Mutex<Vec<Queued<I>>>,
    turns: Semaphore,
    /// The turn light groups share (see [`GroupCommit::light_below`]).
    light_turn: Semaphore,
    /// A caller that finds less than this weight queued (itself included) takes
    /// `light_turn` before a turn (0: none does).
    light_below: usize,
    /// The weight (`weigh`) of a group at most; a heavier item goes alone.
    limit: usize,
    weigh: fn(&I) -> usize,
}

struct Queued<I> {
    item: I,
    done: oneshot::Sender<(I, Result<()>)>,
}

impl<I> GroupCommit<I> {
    /// Groups of at most `limit`, each item weighing `weigh(item)`, one in flight at a
    /// time.
    pub fn new(limit: usize, weigh: fn(&I) -> usize) -> Self {
        GroupCommit {
            queue: Mutex::default(),
            turns: Semaphore::new(1),
            light_turn: Semaphore::new(1),
            light_below: 0,
            limit,
            weigh,
        }
    }

    /// Groups written through `store`, as many in flight as its backend lets writers
    /// overlap: one on SQLite (one writer), [`POSTGRES_TURNS`] on PostgreSQL.
    pub fn writing_to(store: &Store, limit: usize, weigh: fn(&I) -> usize) -> Self {
        Self::new(limit, weigh).turns(match store.backend() {
            Backend::Sqlite => 1,
            Backend::Postgres => POSTGRES_TURNS,
        })
    }

    /// At most `n` groups in flight at once.
    pub fn turns(mut self, n: usize) -> Self {
        self.turns = Semaphore::new(n);
        self
    }

    /// Light groups, whose queue weighed less than `weight` when their caller queued,
    /// are written one at a time; heavier ones still take any free turn. Groups that
    /// would write the same rows (one intent group's totals and conditions) then wait
    /// for each other here rather than on those rows in the database, where a waiting
    /// transaction holds a connection and its locks; and the items that queue
    /// meanwhile go in the next group instead of in a transaction of their own. Heavy
    /// groups (a fleet converging) keep writing side by side: most of their time is
    /// reading and writing rows of their own.
    pub fn light_below(mut self, weight: usize) -> Self {
        self.light_below = weight;
        self
    }

    /// Writes `item` with whatever else is queued, by `write` (one transaction for the
    /// group); returns it with its result. If the group's transaction fails, each item
    /// of it is written on its own, so that one item's error is not another's.
    pub async fn submit(&self, item: I, writer: &impl GroupWriter<I>) -> (I, Result<()>) {
        let (done, answer) = oneshot::channel();
        let light = {
            let mut queue = self.queue.lock().expect("group commit queue lock");
            queue.push(Queued { item, done });
            self.light_below > 0
                && queue.iter().map(|q| (self.weigh)(&q.item)).sum::<usize>() < self.light_below
        };
        {
            let _light = match light {
                true => Some(self.light_turn.acquire().await.expect("never closed")),
                false => None,
            };
            let _turn = self.turns.acquire().await.expect("never closed");
            let mut group = self.take();
            if !group.is_empty() {
                let items: Vec<&I> = group.iter().map(|q| &q.item).collect();
                let result = writer.write(&items).await;
                match result {
                    Ok(()) => {
                        for q in group {
                            let _ = q.done.send((q.item, Ok(())));
                        }
                    }
                    Err(error) if group.len() == 1 => {
                        let q = group.pop().expect("one item");
                        let _ = q.done.send((q.item, Err(error)));
                    }
                    Err(_) => {
                        for q in group {
                            let result = writer.write(&[&q.item]).await;
                            let _ = q.done.send((q.item, result));
                        }
                    }
                }
            }
        }
        answer.await.expect("every queued item is answered")
    }

    /// The oldest queued items, up to `limit` in weight (at least one item).
    fn take(&self) -> Vec<Queued<I>> {
        let mut queue = self.queue.lock().expect("group commit queue lock");
        let mut weight = 0;
        let count = queue
            .iter()
            .take_while(|q| {
                weight += (self.weigh)(&q.item);
                weight <= self.limit
            })
            .count()
            .max(1)
            .min(queue.len());
        queue.drain(..count).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::error::Error;

    /// Records each group it writes; fails any group holding `poison`.
    #[derive(Default)]
    struct Log {
        groups: Mutex<Vec<Vec<u32>>>,
        writing: AtomicUsize,
        /// Groups being written now, and the most ever at once.
        active: AtomicUsize,
        most_active: AtomicUsize,
    }

    const POISON: u32 = 13;

    impl GroupWriter<u32> for Log {
        async fn write(&self, items: &[&u32]) -> Result<()> {
            self.writing.fetch_add(1, Ordering::SeqCst);
            let active = self.active.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_active.fetch_max(active, Ordering::SeqCst);
            // Long enough for every other caller to queue behind the first group.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            self.active.fetch_sub(1, Ordering::SeqCst);
            self.groups
                .lock()
                .unwrap()
                .push(items.iter().map(|i| **i).collect());
            if items.contains(&&POISON) {
                return Err(Error::internal("poisoned group"));
            }
            Ok(())
        }
    }

    async fn submit_all(items: Vec<u32>, limit: usize) -> (Arc<Log>, Vec<(u32, bool)>) {
        submit_all_to(GroupCommit::new(limit, |_: &u32| 1), items).await
    }

    async fn submit_all_to(
        group: GroupCommit<u32>,
        items: Vec<u32>,
    ) -> (Arc<Log>, Vec<(u32, bool)>) {
        let group = Arc::new(group);
        let log = Arc::new(Log::default());
        let mut calls = Vec::new();
        for item in items {
            let (group, log) = (group.clone(), log.clone());
            calls.push(tokio::spawn(async move {
                let (item, result) = group.submit(item, &*log).await;
                (item, result.is_ok())
            }));
            // The first caller takes the turn before the others queue.
            tokio::task::yield_now().await;
        }
        let mut answers = Vec::new();
        for call in calls {
            answers.push(call.await.unwrap());
        }
        (log, answers)
    }

    #[tokio::test]
    async fn callers_queued_behind_a_turn_are_written_together_and_all_answered() {
        let (log, answers) = submit_all((0..10).collect(), 100).await;
        assert_eq!(answers, (0..10).map(|i| (i, true)).collect::<Vec<_>>());
        let groups = log.groups.lock().unwrap().clone();
        // The first item alone (its caller took the free turn), then the nine that
        // queued meanwhile in one transaction.
        assert_eq!(groups, vec![vec![0], (1..10).collect()]);
    }

    #[tokio::test]
    async fn a_group_is_at_most_its_limit() {
        let (log, answers) = submit_all((0..10).collect(), 4).await;
        assert!(answers.iter().all(|(_, ok)| *ok));
        let groups = log.groups.lock().unwrap().clone();
        assert_eq!(
            groups,
            vec![vec![0], vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9]]
        );
    }

    #[tokio::test]
    async fn a_failing_item_fails_alone() {
        let (log, answers) = submit_all(vec![1, 2, POISON, 4], 100).await;
        assert_eq!(
            answers,
            vec![(1, true), (2, true), (POISON, false), (4, true)]
        );
        let groups = log.groups.lock().unwrap().clone();
        // The group with the poison failed, then each of its items was written alone.
        assert_eq!(
            groups,
            vec![vec![1], vec![2, POISON, 4], vec![2], vec![POISON], vec![4]]
        );
        assert_eq!(log.writing.load(Ordering::SeqCst), 5);
    }

    /// Items weigh their value; groups of at most 1000.
    fn postgres_group(light_below: usize) -> GroupCommit<u32> {
        GroupCommit::new(1000, |i: &u32| *i as usize)
            .turns(POSTGRES_TURNS)
            .light_below(light_below)
    }

    #[tokio::test]
    async fn light_groups_are_written_one_at_a_time() {
        // Each caller finds less than 100 queued: one group at a time, whatever the
        // free turns, and the callers queued meanwhile go together.
        let (log, answers) = submit_all_to(postgres_group(100), vec![1; 10]).await;
        assert!(answers.iter().all(|(_, ok)| *ok));
        assert_eq!(log.most_active.load(Ordering::SeqCst), 1);
        assert_eq!(log.groups.lock().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn heavy_groups_take_any_free_turn() {
        // Items of 200 weigh more than the light bound: up to the four turns at once.
        let (log, answers) = submit_all_to(postgres_group(100), vec![200; 10]).await;
        assert!(answers.iter().all(|(_, ok)| *ok));
        assert!(log.most_active.load(Ordering::SeqCst) > 1);
        // Without a light bound, light items take any free turn too.
        let (log, _) = submit_all_to(postgres_group(0), vec![1; 10]).await;
        assert!(log.most_active.load(Ordering::SeqCst) > 1);
    }
}
