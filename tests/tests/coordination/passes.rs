//! Action creates with replicas: a create made on a replica that does not run its
//! cluster is passed to the one that does, with the caller's credentials; the owner's
//! answer (an action, or a refusal) comes back as it gave it. An owner that does not
//! answer (paused past its lease) leaves the create to the replica it was made on, and
//! cannot commit it when it wakes.

use std::collections::BTreeMap;
use std::time::Duration;

use flotilla_client::Client;
use flotilla_client::v1::{
    ActionState, Connectivity, CreateNodeActionRequest, GetActionRequest, ListActionsRequest,
    RebootParams, create_node_action_request,
};
use flotilla_tests::etcd::Etcd;
use flotilla_tests::metrics::{scrape, value};
use flotilla_tests::{Backend, TestServer, eventually, free_port};
use tonic::Code;

use super::{IDS, agent_fleet, owners, replica_args};

pub(super) fn reboot(cluster: &str, node: &str, request_id: &str) -> CreateNodeActionRequest {
    CreateNodeActionRequest {
        cluster: cluster.to_owned(),
        node: node.to_owned(),
        action_name: "Reboot".into(),
        params: Some(create_node_action_request::Params::RebootParams(
            RebootParams::default(),
        )),
        request_id: request_id.to_owned(),
    }
}

pub(super) fn node_of(cluster: &str) -> String {
    format!("{}-node-0", cluster.rsplit('/').next().unwrap())
}

/// A replica's passes by outcome: (answered, created here).
fn passes(metrics: &str) -> (f64, f64) {
    let text = scrape(metrics);
    let of = |outcome| {
        value(
            &text,
            "flotilla_passed_calls_total",
            &[("outcome", outcome)],
        )
    };
    (of("answered"), of("created_here"))
}

pub(super) async fn wait_succeeded(client: &Client, name: &str, what: &str) {
    eventually(Duration::from_secs(30), what, || {
        let (mut client, name) = (client.clone(), name.to_owned());
        async move {
            let action = client
                .actions
                .get_action(GetActionRequest { name })
                .await
                .ok()?
                .into_inner();
            let state = action.status.as_ref()?.state();
            assert_ne!(state, ActionState::Failed, "{what}: {action:?}");
            (state == ActionState::Succeeded).then_some(())
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_are_passed_to_the_replica_that_runs_their_cluster() {
    let etcd = Etcd::start().await.expect("etcd");
    let ttl = 3;
    let metrics = [
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    ];
    let args = |id: &'static str, metrics: &'static str| {
        let mut args = replica_args(&etcd, id, "3");
        args.extend([
            "--sim",
            "false",
            "--agent-heartbeat-millis",
            "1000",
            "--metrics-listen",
            metrics,
        ]);
        args
    };
    let (m1, m2): (&'static str, &'static str) =
        (metrics[0].clone().leak(), metrics[1].clone().leak());
    let first = TestServer::start_with(Backend::Postgres, &args("r1", m1)).await;
    let mut second = first.replica(&args("r2", m2)).await;
    second.spawn().await;
    let mut admin = first.client().await;
    let fleet = agent_fleet(&mut admin).await;
    let _agents = flotilla_tests::TestAgent::start_fleet(&first, "all", &fleet, &[]);
    let shared: BTreeMap<String, String> =
        eventually(Duration::from_secs(15), "every cluster owned", || async {
            let owners = owners(&etcd).await;
            let all = owners.len() == IDS.len() + 1;
            let both = ["r1", "r2"].iter().all(|r| owners.values().any(|o| o == r));
            (all && both).then_some(owners)
        })
        .await;
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&admin, cluster, Connectivity::Available).await;
    }
    let clients = [first.client().await, second.client().await];
    let owner_of = |cluster: &str| -> usize {
        let id = cluster.rsplit('/').next().unwrap();
        usize::from(shared[id] == "r2")
    };

    // A reboot of every cluster's node, each created on the replica that does not run
    // the cluster: every one passed and answered, delivered, done.
    let mut made = [0.0, 0.0];
    for (cluster, _) in &fleet {
        let elsewhere = 1 - owner_of(cluster);
        let action = clients[elsewhere]
            .clone()
            .actions
            .create_node_action(reboot(cluster, &node_of(cluster), ""))
            .await
            .unwrap_or_else(|e| panic!("{cluster}: {e}"))
            .into_inner();
        made[elsewhere] += 1.0;
        wait_succeeded(&admin, &action.name, "a passed reboot").await;
    }
    assert_eq!(passes(m1), (made[0], 0.0), "r1's passes");
    assert_eq!(passes(m2), (made[1], 0.0), "r2's passes");

    // A refusal comes back as the owner gave it: the same code and message as the
    // owner's answer to the same request made on it directly.
    let (cluster, _) = &fleet[0];
    let (owner, elsewhere) = (owner_of(cluster), 1 - owner_of(cluster));
    let missing = reboot(cluster, "no-such-node", "");
    let direct = clients[owner]
        .clone()
        .actions
        .create_node_action(missing.clone())
        .await
        .expect_err("no such node");
    let passed = clients[elsewhere]
        .clone()
        .actions
        .create_node_action(missing)
        .await
        .expect_err("no such node");
    assert_ne!(direct.code(), Code::Ok);
    assert_eq!(
        (passed.code(), passed.message()),
        (direct.code(), direct.message())
    );
    let metric = [m1, m2][elsewhere];
    assert_eq!(
        passes(metric).0,
        made[elsewhere] + 1.0,
        "the refusal was passed"
    );

    // A create another replica passed is committed only while the replica it was
    // passed to runs the cluster (checked in the commit's transaction): one marked as
    // passed, made on the replica that does not run the cluster, is refused and
    // creates nothing.
    let mut marked = tonic::Request::new(reboot(cluster, &node_of(cluster), ""));
    marked
        .metadata_mut()
        .insert("x-flotilla-passed-by", "r-gone".parse().unwrap());
    let fenced = clients[elsewhere]
        .clone()
        .actions
        .create_node_action(marked)
        .await
        .expect_err("fenced: not run here");
    assert_eq!(fenced.code(), Code::Unavailable, "{fenced:?}");
    assert!(
        fenced.message().contains("run by another replica"),
        "{fenced:?}"
    );
    assert_eq!(passes(metric).0, made[elsewhere] + 1.0, "not passed again");

    // A request id holds across replicas: the same create through the other replica
    // and then its owner is one action.
    let keyed = reboot(cluster, &node_of(cluster), "passed-once");
    let through = clients[elsewhere]
        .clone()
        .actions
        .create_node_action(keyed.clone())
        .await
        .expect("created through the other replica")
        .into_inner();
    let again = clients[owner]
        .clone()
        .actions
        .create_node_action(keyed)
        .await
        .expect("the retry answers the first response")
        .into_inner();
    assert_eq!(through.name, again.name);
    wait_succeeded(&admin, &through.name, "the keyed reboot").await;

    // The second replica stopped (SIGSTOP) with a create for one of its clusters on
    // its way: the first waits a lease TTL and a margin for it, then creates the action
    // itself (the cluster is its own by then, and the agents dial the first); woken,
    // the second cannot commit the create it was passed.
    let (cluster, _) = fleet
        .iter()
        .find(|(cluster, _)| owner_of(cluster) == 1)
        .expect("r2 runs a cluster");
    let node = node_of(cluster);
    let handled = |code| {
        value(
            &scrape(m2),
            "flotilla_grpc_server_handled_total",
            &[("grpc_method", "CreateNodeAction"), ("grpc_code", code)],
        )
    };
    // (Read while r2 answers: a stopped process holds a scrape.)
    let before = handled("OK");
    second.signal(libc::SIGSTOP);
    let started = std::time::Instant::now();
    let action = clients[0]
        .clone()
        .actions
        .create_node_action(reboot(cluster, &node, ""))
        .await
        .expect("created on r1 after the pass got no answer")
        .into_inner();
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(ttl),
        "answered after {waited:?}: the pass waited for the paused owner"
    );
    assert_eq!(passes(m1).1, 1.0, "r1 created it itself");
    wait_succeeded(&clients[0], &action.name, "the reboot r1 created").await;
    second.signal(libc::SIGCONT);
    // Woken, r2 commits nothing of the create it was passed: the passer gave up on it
    // (its stream was reset), and r2 no longer runs the cluster (see above).
    eventually(Duration::from_secs(15), "r2 answers again", || async {
        second
            .client()
            .await
            .lifecycle
            .list_projects(flotilla_client::v1::ListProjectsRequest::default())
            .await
            .ok()
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(handled("OK"), before, "r2 created nothing after it woke");
    let on_node = clients[0]
        .clone()
        .actions
        .list_actions(ListActionsRequest {
            cluster: cluster.clone(),
            node_name: node.clone(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .actions;
    // The first round's reboot (and the keyed one, when this is that cluster) and this
    // one: the create r2 was passed is not among them.
    let expected = if cluster == &fleet[0].0 { 3 } else { 2 };
    assert_eq!(on_node.len(), expected, "{on_node:#?}");
}

/// With TLS and client certificates (mTLS) a replica passes creates over TLS, trusting
/// `--peer-ca-file` and presenting its own serving certificate. When the files rotate
/// (SIGHUP) to a new CA, the passes dial with the new ones: a replica that comes back
/// serving the new CA and trusting only it is still reached, not skipped until the
/// passer restarts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passes_over_mtls_follow_rotated_certificates() {
    use flotilla_tests::tls::{TestCa, TestPki};

    let etcd = Etcd::start().await.expect("etcd");
    let pki = TestPki::new(true);
    let peer_ca = pki.path("ca.pem").display().to_string();
    let metrics = format!("127.0.0.1:{}", free_port());
    let args = |id: &'static str, extra: &[&'static str]| {
        let mut args = replica_args(&etcd, id, "3");
        args.extend(["--sim", "false", "--peer-ca-file", peer_ca.as_str()]);
        args.extend(extra);
        args
    };
    let m1: &'static str = metrics.leak();
    let first = TestServer::start_tls(
        Backend::Postgres,
        &args("r1", &["--metrics-listen", m1]),
        pki.clone(),
    )
    .await;
    let mut second = first.replica(&args("r2", &[])).await;
    second.spawn().await;
    let mut admin = first.client().await;
    let fleet = agent_fleet(&mut admin).await;
    // A node reboot through r1 on a cluster r2 runs: the owner's answer (no agent ever
    // connected, so FAILED_PRECONDITION) comes back through the pass. Until r1 sees r2
    // run the cluster it answers itself, which counts no pass: then it is made again.
    let pass_through_r1 = async |client: &Client, passed: f64| {
        eventually(Duration::from_secs(20), "a create passed to r2", || async {
            let owners = owners(&etcd).await;
            let owned = fleet.iter().map(|(cluster, _)| cluster).find(|cluster| {
                owners.get(cluster.rsplit('/').next().unwrap()) == Some(&"r2".to_string())
            })?;
            let refused = client
                .clone()
                .actions
                .create_node_action(reboot(owned, "no-such-node", ""))
                .await
                .expect_err("never connected");
            assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
            let (answered, created_here) = passes(m1);
            assert_eq!(
                created_here,
                0.0,
                "a pass r2 did not answer:\n{}",
                first.log()
            );
            (answered == passed).then_some(())
        })
        .await;
    };
    pass_through_r1(&admin, 1.0).await;

    // Every file rotates to a new CA; both replicas reload on SIGHUP.
    let second_ca = TestCa::new("second ca");
    pki.install_server_cert(&second_ca);
    pki.install_client_cert(&second_ca);
    pki.install_ca(&second_ca);
    for replica in [&first, &second] {
        replica.signal(libc::SIGHUP);
    }
    let rotated = eventually(Duration::from_secs(10), "r1 serves the new CA", || async {
        first.options().connect().await.ok()
    })
    .await;
    // r2 comes back serving the new certificate and trusting only the new CA: the
    // connection r1 held to it is gone, and a new one needs r1's new files.
    assert!(second.stop_with(libc::SIGTERM).success());
    second.spawn().await;
    pass_through_r1(&rotated, 2.0).await;
    assert!(
        first
            .log()
            .contains("passes to the other replicas use the reloaded TLS files"),
        "{}",
        first.log()
    );
}
