use super::*;
use serde_json::Value;

use crate::domain::readiness::{ClusterStatus, Readiness};
use crate::domain::status::RsyncStatus;
use crate::store::Store;

/// Statuses are stored by name, as their columns are, and what the log holds from
/// before they were typed ("" for none, absent fields) reads back the same.
#[test]
fn statuses_keep_their_stored_names() {
    let statuses = Statuses {
        rsync: Some(RsyncStatus::Pending),
        cluster: Some(ClusterStatus::NotPresent),
        readiness: Readiness::NotReady,
    };
    let json = serde_json::to_string(&statuses).unwrap();
    assert_eq!(
        json,
        r#"{"rsync":"Pending","cluster":"NotPresent","readiness":"NotReady"}"#
    );
    assert_eq!(serde_json::from_str::<Statuses>(&json).unwrap(), statuses);
    let cluster_only = Statuses {
        rsync: None,
        cluster: Some(ClusterStatus::Present),
        readiness: Readiness::None,
    };
    assert_eq!(
        serde_json::to_string(&cluster_only).unwrap(),
        r#"{"cluster":"Present"}"#
    );
    for stored in [
        r#"{"cluster":"Present"}"#,
        r#"{"rsync":"","cluster":"Present","readiness":""}"#,
    ] {
        assert_eq!(
            serde_json::from_str::<Statuses>(stored).unwrap(),
            cluster_only
        );
    }
    assert!(serde_json::from_str::<Statuses>(r#"{"rsync":"Sideways"}"#).is_err());
}

/// A body is written into the log as the JSON object it is and read back equal,
/// through the payload's tagged enum.
#[test]
fn bodies_are_stored_as_json_objects() {
    let body = Body::of(
        &serde_json::json!({"name": "cm", "labels": {"b": "2", "a": "1"}}),
        &serde_json::json!({"data": {"key": "value"}}),
        &Value::Null,
    );
    let payload = Payload::Resource {
        kind: "ConfigMap".into(),
        group: String::new(),
        version: "v1".into(),
        namespace: String::new(),
        rendered: true,
        old: None,
        new: Statuses::default(),
        body: Some(body.clone()),
    };
    let text = serde_json::to_string(&payload).unwrap();
    assert!(
        text.contains(
            r#""body":{"metadata":{"labels":{"a":"1","b":"2"},"name":"cm"},"spec":{"data":{"key":"value"}},"status":null}"#
        ),
        "{text}"
    );
    let back: Payload = serde_json::from_str(&text).unwrap();
    assert_eq!(back, payload);
    assert_eq!(body.value()["spec"]["data"]["key"], "value");
    assert!(Body::from_text("{not json".into()).is_none());
}

fn connectivity(target: &str, n: usize) -> NewEvent {
    NewEvent::connectivity(
        target,
        &format!("clusterProviders/p/clusters/c{n}"),
        None,
        Connectivity::Available,
    )
}

/// Transactions larger than a row of the log read back exactly: every revision
/// range, limit and batch, across row boundaries.
async fn rows_read_back_as_events(url: &str) {
    let store = Store::connect(url).await.unwrap();
    // Revisions 1..=1300 (one transaction, three rows), then 1301..=1302.
    for (target_events, other) in [(1300usize, 3usize), (2, 1)] {
        let mut tx = store.begin().await.unwrap();
        for n in 0..target_events {
            tx.emit(connectivity("t", n));
        }
        for n in 0..other {
            tx.emit(connectivity("other", n));
        }
        tx.commit().await.unwrap();
    }
    let mut conn = store.read().await.unwrap();
    assert_eq!(target_revision(&mut conn, "t").await.unwrap(), (1302, 0));
    for (after, until, limit) in [
        (0, 1302, 5000),
        (0, 1302, 7),
        (510, 1302, 10),
        (511, 515, 100),
        (1023, 1025, 100),
        (1299, 1302, 100),
        (1302, 1302, 100),
        (700, 600, 100),
    ] {
        let events = events_after(&mut conn, "t", after, until, limit)
            .await
            .unwrap();
        let expected: Vec<i64> = ((after + 1)..=until).take(limit as usize).collect();
        let revisions: Vec<i64> = events.iter().map(|e| e.revision).collect();
        assert_eq!(revisions, expected, "({after}, {until}] limit {limit}");
        for e in &events {
            let batch = if e.revision <= 1300 { 1300 } else { 1302 };
            assert_eq!(e.batch, batch);
            let n = if e.revision <= 1300 {
                e.revision - 1
            } else {
                e.revision - 1301
            };
            assert_eq!(e.cluster, format!("clusterProviders/p/clusters/c{n}"));
        }
    }
    for (batch, until, first) in [(1300, 1300, 1), (1300, 700, 1), (1302, 1302, 1301)] {
        let events = batch_events(&mut conn, "t", batch, until).await.unwrap();
        let revisions: Vec<i64> = events.iter().map(|e| e.revision).collect();
        assert_eq!(
            revisions,
            (first..=until).collect::<Vec<_>>(),
            "batch {batch}"
        );
    }
    let other = events_after(&mut conn, "other", 0, i64::MAX, 100)
        .await
        .unwrap();
    assert_eq!(
        other.iter().map(|e| e.revision).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    drop(conn);
    store.close().await;
}

/// Times stamped out of revision order (a writer stamps, then waits for the
/// target's row lock behind another) let compaction remove a later transaction
/// before an earlier one: readers never step over the hole.
async fn reads_stop_at_a_compaction_hole(url: &str) {
    let store = Store::connect(url).await.unwrap();
    for _ in 0..3 {
        let mut tx = store.begin().await.unwrap();
        for n in 0..3 {
            tx.emit(connectivity("t", n));
        }
        tx.commit().await.unwrap();
    }
    // The middle transaction (revisions 4..=6) was stamped first.
    let mut tx = store.begin().await.unwrap();
    sqlx::query("UPDATE watch_log SET time = CASE WHEN first = 4 THEN 100 ELSE 300 END")
        .execute(&mut *tx)
        .await
        .unwrap();
    assert_eq!(compact(&mut tx, 200).await.unwrap(), 3);
    tx.commit().await.unwrap();
    let mut conn = store.read().await.unwrap();
    assert_eq!(target_revision(&mut conn, "t").await.unwrap(), (9, 6));
    let revisions = |events: Vec<Event>| events.iter().map(|e| e.revision).collect::<Vec<_>>();
    let read = events_after(&mut conn, "t", 0, i64::MAX, 100)
        .await
        .unwrap();
    assert_eq!(revisions(read), [1, 2, 3], "the read stops at the hole");
    let read = events_after(&mut conn, "t", 3, i64::MAX, 100)
        .await
        .unwrap();
    assert_eq!(
        revisions(read),
        [7, 8, 9],
        "the next read shows it: 7 is not 4"
    );
    drop(conn);
    store.close().await;
}

/// A cluster's connectivity at a revision is the `previous` of its first change
/// after it; clusters whose first change predates `previous` are left out.
async fn connectivity_at_a_revision(url: &str) {
    let store = Store::connect(url).await.unwrap();
    let (a, b, c) = ("cp/clusters/a", "cp/clusters/b", "cp/clusters/c");
    use Connectivity::*;
    for (cluster, previous, now) in [
        (a, Some(Unknown), Available),  // 1
        (b, None, Available),           // 2
        (a, Some(Available), Retrying), // 3
        (c, Some(Unknown), Available),  // 4
        (a, Some(Retrying), Available), // 5
    ] {
        let mut tx = store.begin().await.unwrap();
        tx.emit(NewEvent::connectivity("t", cluster, previous, now));
        tx.emit(NewEvent::connectivity(
            "other",
            cluster,
            Some(Retrying),
            now,
        ));
        tx.commit().await.unwrap();
    }
    let mut conn = store.read().await.unwrap();
    let all = HashSet::from([a, b, c]);
    for (at, expected) in [
        (0, vec![(a, Unknown), (c, Unknown)]),
        (1, vec![(a, Available), (c, Unknown)]),
        (3, vec![(a, Retrying), (c, Unknown)]),
        (4, vec![(a, Retrying)]),
        (5, vec![]),
    ] {
        let mut got: Vec<(String, Connectivity)> = connectivity_at(&mut conn, "t", at, &all)
            .await
            .unwrap()
            .into_iter()
            .collect();
        got.sort_by(|x, y| x.0.cmp(&y.0));
        let expected: Vec<(String, Connectivity)> = expected
            .into_iter()
            .map(|(c, s)| (c.to_string(), s))
            .collect();
        assert_eq!(got, expected, "at {at}");
    }
    drop(conn);
    store.close().await;
}

on_both_backends!(
    connectivity_at_a_revision_sqlite,
    connectivity_at_a_revision_postgres,
    connectivity_at_a_revision
);

on_both_backends!(
    reads_stop_at_a_compaction_hole_sqlite,
    reads_stop_at_a_compaction_hole_postgres,
    reads_stop_at_a_compaction_hole
);

on_both_backends!(
    rows_read_back_as_events_sqlite,
    rows_read_back_as_events_postgres,
    rows_read_back_as_events
);
