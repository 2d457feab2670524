//! Membership and ownership at the coordinator: replicas register under leases and
//! leave at once on SIGTERM or within a TTL when killed; owner keys are exclusive and
//! their epochs grow; a replica cut off from etcd stops counting on its lease within
//! the TTL and keeps serving what needs only PostgreSQL.

use std::time::{Duration, Instant};

use flotilla_client::v1::ListProjectsRequest;
use flotilla_server::coord::etcd::EtcdCoordinator;
use flotilla_server::coord::{Claim, Coordinator, EtcdSettings, Member, MemberId};
use flotilla_tests::etcd::Etcd;
use flotilla_tests::{Backend, TestServer, eventually};

use super::{registered, replica_args};

/// Two replicas on one PostgreSQL: both register with their addresses and see each
/// other; SIGTERM takes a replica out at once (its lease revoked), kill -9 within the
/// TTL; while etcd is down, RPCs that need only PostgreSQL still answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_register_and_leave() {
    let mut etcd = Etcd::start().await.expect("etcd");
    let mut first =
        TestServer::start_with(Backend::Postgres, &replica_args(&etcd, "r1", "3")).await;
    let mut second = first.replica(&replica_args(&etcd, "r2", "30")).await;
    second.spawn().await;

    let mut want = vec![
        ("r1".to_owned(), first.url()),
        ("r2".to_owned(), second.url()),
    ];
    want.sort();
    assert_eq!(registered(&etcd).await, want);
    // Each saw the other through its watch of the member list.
    for server in [&first, &second] {
        eventually(
            Duration::from_secs(5),
            "both replicas in the member list",
            || async {
                server
                    .log()
                    .lines()
                    .any(|line| {
                        line.contains("replica set changed")
                            && line.contains("r1")
                            && line.contains("r2")
                    })
                    .then_some(())
            },
        )
        .await;
    }

    // etcd down: the PostgreSQL-only API goes on.
    etcd.stop();
    let mut client = second.client().await;
    client
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await
        .expect("ListProjects with etcd down");
    etcd.resume().await.expect("etcd again");
    eventually(
        Duration::from_secs(10),
        "both registered again after the outage",
        || async { (registered(&etcd).await.len() == 2).then_some(()) },
    )
    .await;

    // SIGTERM: gone well before its 30 s TTL.
    let stopped = Instant::now();
    let status = second.stop_with(libc::SIGTERM);
    assert!(status.success(), "{status}");
    eventually(Duration::from_secs(3), "r2 gone on SIGTERM", || async {
        (registered(&etcd).await.iter().all(|(id, _)| id != "r2")).then_some(())
    })
    .await;
    assert!(
        second.log().contains("left the replica set"),
        "{}",
        second.log()
    );
    assert!(stopped.elapsed() < Duration::from_secs(10));

    // kill -9: still registered just after, gone within its 3 s TTL.
    first.kill9();
    let killed = Instant::now();
    assert_eq!(
        registered(&etcd).await.len(),
        1,
        "r1 outlives its process by up to a TTL"
    );
    eventually(Duration::from_secs(6), "r1 expired", || async {
        registered(&etcd).await.is_empty().then_some(())
    })
    .await;
    assert!(
        killed.elapsed() >= Duration::from_secs(1),
        "expired by its lease, not at once"
    );
}

fn settings(etcd: &Etcd, ttl: u64) -> EtcdSettings {
    EtcdSettings {
        endpoints: vec![etcd.endpoint.clone()],
        prefix: "/flotilla".into(),
        lease_ttl: Duration::from_secs(ttl),
        tls: None,
        peer_ca: None,
    }
}

async fn coordinator(etcd: &Etcd, id: &str, ttl: u64) -> std::sync::Arc<EtcdCoordinator> {
    let me = Member {
        id: MemberId::from(id),
        address: format!("http://{id}.example:50051"),
    };
    let coordinator = EtcdCoordinator::start(me, settings(etcd, ttl), Default::default())
        .await
        .expect("coordinator");
    assert!(
        coordinator.joined(Duration::from_secs(5)).await,
        "{id} joined"
    );
    coordinator
}

/// Owner keys: one owner at a time, a claim by the holder answers its epoch, a
/// release or the owner's departure frees the cluster, and each new owner's epoch is
/// larger than every earlier one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_keys_are_exclusive_and_epochs_grow() {
    let etcd = Etcd::start().await.expect("etcd");
    let a = coordinator(&etcd, "a", 5).await;
    let b = coordinator(&etcd, "b", 5).await;
    let cluster = "clusterProviders/edge/clusters/c1";

    let Claim::Ours(first) = a.claim(cluster).await.unwrap() else {
        panic!("a free cluster is taken by the first claim");
    };
    assert_eq!(
        a.claim(cluster).await.unwrap(),
        Claim::Ours(first),
        "idempotent"
    );
    assert_eq!(
        b.claim(cluster).await.unwrap(),
        Claim::Held {
            owner: MemberId::from("a"),
            epoch: first
        }
    );
    // Releasing at an old epoch is no release.
    a.release(cluster, flotilla_server::coord::Epoch(first.0 - 1))
        .await
        .unwrap();
    assert!(matches!(
        b.claim(cluster).await.unwrap(),
        Claim::Held { .. }
    ));
    a.release(cluster, first).await.unwrap();
    let Claim::Ours(second) = b.claim(cluster).await.unwrap() else {
        panic!("a released cluster is free");
    };
    assert!(second > first, "{second:?} after {first:?}");
    let owners = a.owners().await.unwrap();
    assert_eq!(owners[cluster].member, MemberId::from("b"));
    assert_eq!(owners[cluster].epoch, second);

    // b resigns: its claims go with its lease, and a takes the cluster at once.
    let mut members = a.members();
    b.resign().await;
    members
        .wait_for(|m| m.len() == 1)
        .await
        .expect("a sees b leave");
    let Claim::Ours(third) = a.claim(cluster).await.unwrap() else {
        panic!("a resigned owner's cluster is free");
    };
    assert!(third > second);
    a.resign().await;
    assert!(a.owners().await.unwrap().is_empty());
}

/// etcd down: the replica stops counting on its lease before the lease can have
/// expired at etcd (so it stops writing before anyone could take its clusters), claims
/// fail, and it is a member again with no manual step when etcd is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_etcd_outage_ends_holding_within_the_ttl() {
    let mut etcd = Etcd::start().await.expect("etcd");
    let ttl = 3;
    let a = coordinator(&etcd, "a", ttl).await;
    eventually(Duration::from_secs(5), "a live lease", || async {
        a.holding().then_some(())
    })
    .await;
    etcd.stop();
    let down = Instant::now();
    while a.holding() {
        assert!(
            down.elapsed() < Duration::from_secs(ttl),
            "still holding {:?} into an outage with a {ttl} s lease",
            down.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        a.claim("c").await.is_err(),
        "no claims without a live lease"
    );
    etcd.resume().await.expect("etcd again");
    eventually(Duration::from_secs(15), "holding again", || async {
        a.holding().then_some(())
    })
    .await;
    assert!(matches!(a.claim("c").await.unwrap(), Claim::Ours(_)));
    assert_eq!(registered(&etcd).await.len(), 1);
    a.resign().await;
}
