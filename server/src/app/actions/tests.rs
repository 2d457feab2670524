//! Two servers over one database, each with its own copies of the open actions: a
//! copy the other server made stale never decides a report wrongly.

use super::*;
use crate::domain::action::Executor;

async fn cluster_with_node(store: &Store) {
    let mut tx = store.begin().await.unwrap();
    sqlx::query(
        "INSERT INTO clusters (name, parent, uid, body, generation, create_time, \
         update_time, network_state, network_revision, current_network_instance, nodes, \
         connectivity) VALUES ('c1', 'p', 'u', '{}', 1, 0, 0, '', 0, '', '[\"n0\",\"n1\"]', \
         'Available')",
    )
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// A reboot of `node` that waits `delay_in_seconds` (cancellable while it waits).
fn reboot(node: &str, delay_in_seconds: i32) -> NewAction {
    NewAction {
        cluster: "c1".into(),
        target: NewTarget::Node { node: node.into() },
        operation: Operation::Reboot { delay_in_seconds },
    }
}

fn report(state: ActionState) -> Report {
    Report {
        state,
        reboot_successful: (state == ActionState::Succeeded).then_some(true),
        snapshot_size_in_bytes: None,
        snapshot_path: String::new(),
        error: String::new(),
        reason: String::new(),
        start_time: None,
    }
}

async fn stale_copies_decide_nothing(url: &str) {
    let store = Store::connect(url).await.unwrap();
    cluster_with_node(&store).await;
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
        .report(
            first.id,
            Executor::Session,
            report(ActionState::Running),
            None,
            None,
        )
        .await
        .unwrap();
    assert_eq!(claimed.state, ActionState::Running);
    let done = a
        .report(
            first.id,
            Executor::Session,
            report(ActionState::Succeeded),
            None,
            None,
        )
        .await
        .unwrap();
    assert_eq!((done.state, done.generation), (ActionState::Succeeded, 3));
    assert_eq!(a.open.len(), 0, "a finished action is forgotten");

    // A's copy says RUNNING while B cancelled it: A's success is a move, whose
    // compare-and-swap loses; the retry reads the database and refuses.
    let second = a.create(reboot("n1", 600), None).await.unwrap();
    a.report(
        second.id,
        Executor::Session,
        report(ActionState::Running),
        None,
        None,
    )
    .await
    .unwrap();
    b.cancel(second.id).await.unwrap();
    let refused = a
        .report(
            second.id,
            Executor::Session,
            report(ActionState::Succeeded),
            None,
            None,
        )
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
