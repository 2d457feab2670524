//! Two servers over one database, each with its own copies of the open actions: a
//! copy the other server made stale never decides a report wrongly.

use super::*;
use crate::domain::action::Executor;
use crate::store::action::tests::insert_cluster;

/// A reboot of `node` that waits `delay_in_seconds` (cancellable while it waits).
fn reboot(node: &str, delay_in_seconds: i32) -> NewAction {
    NewAction {
        cluster: "c1".into(),
        target: NewTarget::Node { node: node.into() },
        operation: Operation::Reboot { delay_in_seconds },
        passed: false,
    }
}

impl Actions {
    /// The agent session's report of `state`.
    async fn session_report(&self, id: ActionId, state: ActionState) -> Result<ActionRecord> {
        let report = Report {
            state,
            reboot_successful: (state == ActionState::Succeeded).then_some(true),
            snapshot_size_in_bytes: None,
            snapshot_path: String::new(),
            error: String::new(),
            reason: String::new(),
            start_time: None,
        };
        self.report(id, Executor::Session, report, None, None).await
    }
}

async fn stale_copies_decide_nothing(url: &str) {
    let store = Store::connect(url).await.unwrap();
    insert_cluster(&store, "c1", &["n0", "n1"]).await;
    let (a, b) = (
        Actions::new(store.clone(), ActionOptions::default(), None),
        Actions::new(store.clone(), ActionOptions::default(), None),
    );

    // A's copy says PENDING while B claimed it: A's refusal of a success "not claimed"
    // would be wrong. The refusal came from a copy, so it is decided again from the
    // database, where the success holds.
    let first = a.create(reboot("n0", 0), None).await.unwrap();
    assert_eq!(a.open.len(), 1, "a new action is kept");
    let claimed = b
        .session_report(first.id, ActionState::Running)
        .await
        .unwrap();
    assert_eq!(claimed.state, ActionState::Running);
    let done = a
        .session_report(first.id, ActionState::Succeeded)
        .await
        .unwrap();
    assert_eq!((done.state, done.generation), (ActionState::Succeeded, 3));
    assert_eq!(a.open.len(), 0, "a finished action is forgotten");

    // A's copy says RUNNING while B cancelled it: A's success is a move, whose
    // compare-and-swap loses; the retry reads the database and refuses.
    let second = a.create(reboot("n1", 600), None).await.unwrap();
    a.session_report(second.id, ActionState::Running)
        .await
        .unwrap();
    b.cancel(second.id).await.unwrap();
    let refused = a
        .session_report(second.id, ActionState::Succeeded)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, Error::FailedPrecondition { .. }),
        "{refused:?}"
    );
    let stored = a.get(second.id).await.unwrap();
    assert_eq!(
        (stored.state, stored.generation),
        (ActionState::Cancelled, 3)
    );
    assert_eq!(a.open.len(), 0, "the stale copy is gone");

    // B deleted a finished action A still has an old copy of: NOT_FOUND, not a write.
    let third = a.create(reboot("n1", 600), None).await.unwrap();
    b.cancel(third.id).await.unwrap();
    b.delete(third.id).await.unwrap();
    let gone = a.cancel(third.id).await.unwrap_err();
    assert!(matches!(gone, Error::NotFound { .. }), "{gone:?}");
    store.close().await;
}

on_both_backends!(
    stale_copies_decide_nothing_sqlite,
    stale_copies_decide_nothing_postgres,
    stale_copies_decide_nothing
);
