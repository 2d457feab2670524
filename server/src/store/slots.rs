//! The write slots (see the module doc of `store`), with two queues: a writer that a
//! caller is waiting on with a deadline of its own (an action group: its creates are
//! answered, and delivered to their agents, only once it commits) is handed the next
//! free slot before the ordinary writers queued ahead of it (status ingests, the
//! checkpoint's log restart). Within a queue, first come first served.
//!
//! Nothing starves: an urgent writer that releases its slot hands it to the next
//! urgent writer only if one is already waiting, and the one urgent writer there is
//! (the action groups take turns one at a time) queues again only after its group
//! released the slot to whoever was waiting.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// The write slots.
pub struct WriteSlots {
    state: Mutex<State>,
}

struct State {
    free: usize,
    urgent: VecDeque<oneshot::Sender<WritePermit>>,
    ordinary: VecDeque<oneshot::Sender<WritePermit>>,
}

/// A held write slot, handed on when dropped.
pub struct WritePermit {
    /// None once the permit was taken back from a waiter that gave up.
    slots: Option<Arc<WriteSlots>>,
}

impl WriteSlots {
    pub fn new(slots: usize) -> Arc<WriteSlots> {
        Arc::new(WriteSlots {
            state: Mutex::new(State {
                free: slots,
                urgent: VecDeque::new(),
                ordinary: VecDeque::new(),
            }),
        })
    }

    /// A slot, once one is free and no writer ahead of this one in its queue (for an
    /// ordinary writer: no urgent one either) is waiting.
    pub async fn acquire(self: &Arc<Self>, urgent: bool) -> WritePermit {
        let waiting = {
            let mut state = self.state.lock().expect("write slots lock");
            let clear = state.urgent.is_empty() && (urgent || state.ordinary.is_empty());
            if state.free > 0 && clear {
                state.free -= 1;
                return WritePermit {
                    slots: Some(self.clone()),
                };
            }
            let (sender, receiver) = oneshot::channel();
            match urgent {
                true => state.urgent.push_back(sender),
                false => state.ordinary.push_back(sender),
            }
            receiver
        };
        // A permit sent to a waiter that is gone is dropped with the channel, and
        // handed on from there.
        waiting.await.expect("a queued waiter is answered")
    }

    /// Hands a released slot to the next waiter that is still there, or frees it.
    fn release(self: &Arc<Self>) {
        let mut state = self.state.lock().expect("write slots lock");
        loop {
            let next = match state.urgent.pop_front() {
                Some(next) => next,
                None => match state.ordinary.pop_front() {
                    Some(next) => next,
                    None => {
                        state.free += 1;
                        return;
                    }
                },
            };
            let permit = WritePermit {
                slots: Some(self.clone()),
            };
            match next.send(permit) {
                Ok(()) => return,
                // Its waiter gave up: the permit comes back, emptied so that dropping
                // it does not release again (under this lock); try the next waiter.
                Err(mut permit) => drop(permit.slots.take()),
            }
        }
    }

    #[cfg(test)]
    fn free(&self) -> usize {
        self.state.lock().expect("write slots lock").free
    }
}

impl Drop for WritePermit {
    fn drop(&mut self) {
        if let Some(slots) = self.slots.take() {
            slots.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Waits until `n` writers are queued.
    async fn queued(slots: &WriteSlots, n: usize) {
        for _ in 0..1000 {
            let waiting = {
                let state = slots.state.lock().unwrap();
                state.urgent.len() + state.ordinary.len()
            };
            if waiting == n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        panic!("{n} writers never queued");
    }

    /// Records the order in which `writers` (name, urgent) get the slot, queued in
    /// that order while it is held.
    async fn order(writers: &[(&'static str, bool)]) -> Vec<&'static str> {
        let slots = WriteSlots::new(1);
        let held = slots.acquire(false).await;
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (n, (name, urgent)) in writers.iter().copied().enumerate() {
            let (mine, got) = (slots.clone(), got.clone());
            tasks.push(tokio::spawn(async move {
                let _permit = mine.acquire(urgent).await;
                got.lock().unwrap().push(name);
            }));
            queued(&slots, n + 1).await;
        }
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(slots.free(), 1, "every slot comes back");
        Arc::try_unwrap(got).unwrap().into_inner().unwrap()
    }

    #[tokio::test]
    async fn urgent_writers_go_before_ordinary_ones_queued_earlier() {
        assert_eq!(
            order(&[("ingest", false), ("checkpoint", false), ("actions", true)]).await,
            ["actions", "ingest", "checkpoint"]
        );
        assert_eq!(
            order(&[("a1", true), ("i1", false), ("a2", true), ("i2", false)]).await,
            ["a1", "a2", "i1", "i2"],
            "first come first served within each queue"
        );
    }

    #[tokio::test]
    async fn free_slots_are_taken_at_once_and_come_back() {
        let slots = WriteSlots::new(2);
        let a = slots.acquire(false).await;
        let b = slots.acquire(true).await;
        assert_eq!(slots.free(), 0);
        drop((a, b));
        assert_eq!(slots.free(), 2);
    }

    /// A waiter that gives up (its future dropped) neither keeps a slot nor loses one,
    /// whether it is dropped before or after it was handed the slot.
    #[tokio::test]
    async fn waiters_that_give_up_lose_no_slot() {
        let slots = WriteSlots::new(1);
        let held = slots.acquire(false).await;
        let quitter = tokio::spawn({
            let slots = slots.clone();
            async move { slots.acquire(true).await }
        });
        queued(&slots, 1).await;
        quitter.abort();
        let _ = quitter.await;
        drop(held);
        assert_eq!(slots.free(), 1, "handed to a gone waiter, then freed");

        // Handed the slot, then dropped before it ran: the permit in the channel
        // goes back to the next waiter.
        let held = slots.acquire(false).await;
        let slow = tokio::spawn({
            let slots = slots.clone();
            async move { slots.acquire(false).await }
        });
        queued(&slots, 1).await;
        let next = tokio::spawn({
            let slots = slots.clone();
            async move {
                let _permit = slots.acquire(false).await;
            }
        });
        queued(&slots, 2).await;
        // One thread: the slot is sent to `slow`, which has not run since, and is
        // aborted with the permit still in its channel.
        drop(held);
        slow.abort();
        assert!(slow.await.is_err_and(|e| e.is_cancelled()));
        tokio::time::timeout(Duration::from_secs(5), next)
            .await
            .expect("the next waiter gets the slot")
            .unwrap();
        assert_eq!(slots.free(), 1);
        assert_eq!(Arc::strong_count(&slots), 1, "no permit was leaked");
    }
}
