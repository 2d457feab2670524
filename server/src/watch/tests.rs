//! Unit tests of the watch hub's feeds and segments.

use prost::bytes::Bytes;

use super::*;
use crate::domain::readiness::Connectivity;
use crate::store::watch::Statuses;

fn resource(revision: i64, batch: i64, cluster: &str) -> Event {
    Event {
        revision,
        batch,
        time: 0,
        instance: "i1".into(),
        app: "app".into(),
        cluster: cluster.into(),
        name: format!("r{revision}"),
        payload: Payload::Resource {
            kind: "ConfigMap".into(),
            group: String::new(),
            version: "v1".into(),
            namespace: "default".into(),
            rendered: true,
            old: None,
            new: Statuses::default(),
            body: None,
        },
    }
}

fn feed(start: i64) -> Feed {
    Feed {
        tail: RwLock::new(Tail {
            start,
            events: VecDeque::new(),
            trimmed: VecDeque::new(),
        }),
        latest: AtomicI64::new(start),
        waiters: Mutex::default(),
    }
}

#[test]
fn a_whole_run_is_cut_into_messages_of_about_batch_bytes() {
    let entry = |n: usize| Encoded(Bytes::from(vec![n as u8; 1000]));
    // 40 entries of 1,000 bytes, every third one not sent at this level.
    let whole = Whole::of((1..=40).map(|r| (r, (r % 3 != 0).then(|| entry(r as usize)))));
    let sizes: Vec<usize> = whole.messages.iter().map(|m| m.0.len()).collect();
    assert_eq!(
        sizes,
        vec![BATCH_BYTES.div_ceil(1000) * 1000, 27_000 - 17_000]
    );
    assert_eq!(whole.last_sent, Some(40));
    // The entries end to end, in order, none lost or repeated.
    let all: Vec<u8> = whole.messages.iter().flat_map(|m| m.0.to_vec()).collect();
    let expected: Vec<u8> = (1..=40u8)
        .filter(|r| r % 3 != 0)
        .flat_map(|r| vec![r; 1000])
        .collect();
    assert_eq!(all, expected);
    let none = Whole::of((1..=3).map(|r| (r, None)));
    assert!(none.messages.is_empty());
    assert_eq!(none.last_sent, None);
}

#[test]
fn only_runs_of_one_instances_resources_can_be_taken_whole() {
    let run: Vec<Arc<FeedEvent>> = (11..=13)
        .map(|r| Arc::new(FeedEvent::new(resource(r, 13, "a"))))
        .collect();
    let segment = Segment::of(&run);
    assert_eq!((segment.start, segment.end), (11, 13));
    assert!(segment.ends_batch);
    assert_eq!(segment.resources_of(), Some("i1"));
    // The first part of a transaction whose rest comes later.
    assert!(!Segment::of(&run[..2]).ends_batch);
    let mut mixed = run.clone();
    mixed.push(Arc::new(FeedEvent::new(Event {
        payload: Payload::Connectivity {
            connectivity: Connectivity::Available,
            previous: None,
        },
        ..resource(14, 14, "a")
    })));
    assert_eq!(Segment::of(&mixed).resources_of(), None);
    let mut other = run.clone();
    other.push(Arc::new(FeedEvent::new(Event {
        instance: "i2".into(),
        ..resource(14, 14, "a")
    })));
    assert_eq!(Segment::of(&other).resources_of(), None);
    // The tail hands out a run only from its start.
    let feed = feed(10);
    assert!(feed.push(run.iter().map(|e| e.event.clone()).collect(), 100));
    assert_eq!(feed.segment_after(10).map(|s| s.end), Some(13));
    assert!(feed.segment_after(11).is_none());
    assert!(feed.segment_after(13).is_none());
    assert!(feed.segment_after(9).is_none());
}

#[test]
fn passes_over_unwanted_transactions_only() {
    let feed = feed(10);
    let connectivity = |revision: i64, cluster: &str| Event {
        payload: Payload::Connectivity {
            connectivity: Connectivity::Available,
            previous: None,
        },
        ..resource(revision, revision, cluster)
    };
    let mut events: Vec<Event> = (11..=13).map(|r| resource(r, 13, "a")).collect();
    events.extend((14..=15).map(|r| resource(r, 15, "b")));
    events.push(connectivity(16, "a"));
    // A cluster cut: its resources and its connectivity in one transaction.
    events.extend((17..=18).map(|r| resource(r, 19, "a")));
    events.push(Event {
        batch: 19,
        ..connectivity(19, "a")
    });
    events.push(connectivity(20, "b"));
    events.push(Event {
        payload: Payload::Lifecycle {
            state: "INSTANTIATED".into(),
            instance: "i1".into(),
            previous: "i1".into(),
        },
        ..resource(21, 21, "")
    });
    events.extend((22..=23).map(|r| resource(r, 23, "a")));
    assert!(feed.push(events, 100));
    let only_b = |s: &Segment| s.may_concern("i1", |c| c == "b", &[]);
    // From the start: batch 11..13 (cluster a) is passed over, 14..15 is wanted.
    assert_eq!(feed.pass_over(10, only_b), 13);
    assert_eq!(feed.pass_over(13, only_b), 13);
    // Cluster a's connectivity and its cut are passed over; b's connectivity is
    // looked at.
    assert_eq!(feed.pass_over(15, only_b), 19);
    // Lifecycle events are looked at by every watch.
    assert_eq!(feed.pass_over(20, only_b), 20);
    // Past it, the rest of the tail (cluster a) is passed over.
    assert_eq!(feed.pass_over(21, only_b), 23);
    // Cluster a's watches look at both of its transactions; another instance's
    // or app's watches do not.
    let only_a = |s: &Segment| s.may_concern("i1", |c| c == "a", &[]);
    assert_eq!(feed.pass_over(15, only_a), 15);
    assert_eq!(feed.pass_over(16, only_a), 16);
    let other_instance = |s: &Segment| s.may_concern("i2", |c| c == "a", &[]);
    assert_eq!(
        feed.pass_over(16, other_instance),
        16,
        "the cut's connectivity"
    );
    assert_eq!(feed.pass_over(21, other_instance), 23);
    let other_app = |s: &Segment| s.may_concern("i1", |_| true, &["web".to_string()]);
    assert_eq!(
        feed.pass_over(10, other_app),
        15,
        "stops at a connectivity event"
    );
    // A position older than the tail is left for the log.
    assert_eq!(feed.pass_over(5, only_b), 5);
    // Many distinct clusters: the segment does not list them and is always wanted.
    let many: Vec<Event> = (24..=24 + SEGMENT_KEYS as i64)
        .map(|r| resource(r, 24 + SEGMENT_KEYS as i64, &format!("c{r}")))
        .collect();
    assert!(feed.push(many, 100));
    assert_eq!(feed.pass_over(23, only_b), 23);
}

/// A watch that slept while the tail moved on (its cluster idle, its heartbeat far)
/// passes over the dropped runs that did not concern it without the log: 10,000
/// watches of idle clusters each read the whole log once they woke.
#[test]
fn a_position_older_than_the_tail_passes_over_the_dropped_runs_it_does_not_want() {
    let feed = feed(10);
    let mut events = Vec::new();
    for (batch, cluster) in [(12, "a"), (14, "a"), (16, "b"), (18, "a"), (20, "a")] {
        events.extend((batch - 1..=batch).map(|r| resource(r, batch, cluster)));
    }
    // The tail keeps 17..=20; the runs 11..=12, 13..=14 and 15..=16 are dropped.
    assert!(feed.push(events, 4));
    assert!(matches!(feed.after(10, 10), Next::Behind));
    let watching =
        |cluster: &'static str| move |s: &Segment| s.may_concern("i1", |c| c == cluster, &[]);
    assert_eq!(feed.pass_over(10, watching("c")), 20, "through the tail");
    assert_eq!(
        feed.pass_over(10, watching("b")),
        14,
        "b's run is in the log"
    );
    assert_eq!(feed.pass_over(16, watching("b")), 20);
    assert_eq!(feed.pass_over(10, watching("a")), 10);
    // Inside a run it was reading, and before the runs remembered: the log.
    assert_eq!(feed.pass_over(11, watching("c")), 11);
    assert_eq!(feed.pass_over(5, watching("c")), 5);
    // A restart forgets them.
    feed.restart(30);
    assert_eq!(feed.pass_over(10, watching("c")), 10);
}

/// Many watches of one target starting at once share one feed, and that feed
/// keeps the commit hand-over (committed events reach it without a read of the
/// log); a start that raced another used to take the hand-over from the feed that
/// won, which then read the log after every commit.
async fn concurrent_starts_keep_the_hand_over(url: &str) {
    let store = Store::connect(url).await.unwrap();
    let options = WatchOptions {
        poll: Duration::from_secs(3600),
        ..WatchOptions::default()
    };
    let hub = WatchHub::new(store.clone(), options, CancellationToken::new());
    let target = "projects/p/compositeApps/a/versions/v/deploymentIntentGroups/g";
    let feeds = futures::future::join_all((0..20).map(|_| hub.feed(target))).await;
    let feeds: Vec<Arc<Feed>> = feeds.into_iter().map(Result::unwrap).collect();
    assert!(feeds.iter().all(|f| Arc::ptr_eq(f, &feeds[0])), "one feed");
    assert!(
        store.signals().attached(target),
        "the feed holds the hand-over"
    );
    let waiter = Arc::new(Notify::new());
    feeds[0].register(&[], &waiter);
    let mut tx = store.begin().await.unwrap();
    tx.emit(crate::store::watch::NewEvent::connectivity(
        target,
        "clusterProviders/p/clusters/c",
        None,
        Connectivity::Available,
    ));
    tx.commit().await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), waiter.notified())
        .await
        .expect("the feed is woken by the commit");
    match feeds[0].after(0, 10) {
        Next::Events(events) => assert_eq!(events.len(), 1),
        Next::Behind => panic!("the feed starts at revision 0"),
    }
    drop(feeds);
    store.close().await;
}

on_both_backends!(
    concurrent_starts_keep_the_hand_over_sqlite,
    concurrent_starts_keep_the_hand_over_postgres,
    concurrent_starts_keep_the_hand_over
);

/// Whether `waiter` holds a wake-up (consuming it).
fn woken(waiter: &Arc<Notify>) -> bool {
    let notified = waiter.notified();
    futures::pin_mut!(notified);
    let waker = futures::task::noop_waker();
    notified
        .as_mut()
        .poll(&mut std::task::Context::from_waker(&waker))
        .is_ready()
}

#[test]
fn wakes_only_the_subscribers_a_transaction_may_concern() {
    let feed = feed(0);
    let (a, b, all) = (
        Arc::new(Notify::new()),
        Arc::new(Notify::new()),
        Arc::new(Notify::new()),
    );
    feed.register(&["a".to_string()], &a);
    feed.register(&["cp/clusters/b".to_string()], &b);
    feed.register(&[], &all);
    // A transaction on cluster a: its watcher and the unfiltered one.
    assert!(feed.push(
        vec![
            resource(1, 2, "cp/clusters/a"),
            resource(2, 2, "cp/clusters/a")
        ],
        100
    ));
    assert!(woken(&a) && woken(&all) && !woken(&b));
    // A cluster's connectivity concerns its watches; lifecycle events concern
    // everyone.
    let connectivity = Event {
        payload: Payload::Connectivity {
            connectivity: Connectivity::Available,
            previous: None,
        },
        ..resource(3, 3, "cp/clusters/a")
    };
    assert!(feed.push(vec![connectivity], 100));
    assert!(woken(&a) && woken(&all) && !woken(&b));
    let lifecycle = Event {
        payload: Payload::Lifecycle {
            state: "INSTANTIATED".into(),
            instance: "i1".into(),
            previous: String::new(),
        },
        ..resource(4, 4, "")
    };
    assert!(feed.push(vec![lifecycle], 100));
    assert!(woken(&a) && woken(&b) && woken(&all));
    // The rest of a transaction begun in the previous push: everyone.
    assert!(feed.push(vec![resource(5, 7, "cp/clusters/a")], 100));
    assert!(woken(&a) && woken(&all) && !woken(&b));
    assert!(feed.push(
        vec![
            resource(6, 7, "cp/clusters/c"),
            resource(7, 7, "cp/clusters/c")
        ],
        100
    ));
    assert!(woken(&a) && woken(&b) && woken(&all));
    // A dropped subscriber is forgotten.
    drop(b);
    assert!(feed.push(vec![resource(8, 8, "cp/clusters/b")], 100));
    assert!(woken(&all) && !woken(&a));
    assert!(!feed.waiters.lock().unwrap().contains_key("b"));
}
