//! Replicas coordinating through a real etcd (issue 58), with real server processes,
//! agents and PostgreSQL. Here: the settings' refusals, clusters shared out and moved
//! when a replica dies, fencing of a paused replica, watches on every replica, the
//! README's replicas and actions through both replicas. The modules: membership and
//! owner keys at the coordinator, the fleet-wide tasks, etcd outages, creates passed
//! to owners, replica loss at scale, rolling restarts, the simulator, and watches
//! through a replica's death.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use flotilla_client::v1::Connectivity;
use flotilla_tests::etcd::Etcd;
use flotilla_tests::{Backend, TestServer, binary, eventually};

mod fleet_tasks;
mod membership;
mod outage;
mod passes;
mod replica_loss;
mod rolling;
mod simulator;
mod watched;

/// The registrations under `/flotilla/members/`: replica id → advertised address.
async fn registered(etcd: &Etcd) -> Vec<(String, String)> {
    let mut client = etcd.client().await.expect("etcd client");
    let listing = client
        .get(
            "/flotilla/members/",
            Some(etcd_client::GetOptions::new().with_prefix()),
        )
        .await
        .expect("etcd get");
    listing
        .kvs()
        .iter()
        .map(|kv| {
            let member: serde_json::Value = serde_json::from_slice(kv.value()).expect("json");
            (
                member["id"].as_str().unwrap().to_owned(),
                member["address"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn replica_args<'a>(etcd: &'a Etcd, id: &'a str, ttl: &'a str) -> Vec<&'a str> {
    vec![
        "--coordination",
        "etcd",
        "--etcd-endpoints",
        &etcd.endpoint,
        "--replica-id",
        id,
        "--lease-ttl-secs",
        ttl,
    ]
}

/// Start refusals: each names what is wrong and what to do.
#[test]
fn coordination_settings_are_checked_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let refusal = |args: &[&str], database: Option<&str>| {
        let mut command = Command::new(binary("flotilla-server"));
        command
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .args(args)
            .env_remove("FLOTILLA_DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(url) = database {
            command.env("FLOTILLA_DATABASE_URL", url);
        }
        let output = command.output().unwrap();
        assert!(!output.status.success(), "{args:?} started");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let etcd = [
        "--coordination",
        "etcd",
        "--etcd-endpoints",
        "http://127.0.0.1:2379",
    ];
    let text = refusal(&etcd, None);
    assert!(
        text.contains("--coordination etcd needs PostgreSQL"),
        "{text}"
    );
    let sqlite = format!("sqlite://{}/x.db?mode=rwc", dir.path().display());
    let text = refusal(&etcd, Some(&sqlite));
    assert!(text.contains("needs PostgreSQL"), "{text}");
    // The configuration file says the same as the flags.
    let file = dir.path().join("flotilla.toml");
    std::fs::write(
        &file,
        "coordination = \"etcd\"\netcd_endpoints = [\"http://127.0.0.1:2379\"]\n",
    )
    .unwrap();
    let text = refusal(&["--config", file.to_str().unwrap()], None);
    assert!(text.contains("needs PostgreSQL"), "{text}");

    let postgres = Some("postgres://nobody@127.0.0.1:1/none");
    let text = refusal(&["--coordination", "etcd"], postgres);
    assert!(text.contains("needs --etcd-endpoints"), "{text}");
    let text = refusal(&["--etcd-endpoints", "http://127.0.0.1:2379"], postgres);
    assert!(text.contains("only with --coordination etcd"), "{text}");
    let text = refusal(
        &[
            "--coordination",
            "etcd",
            "--etcd-endpoints",
            "127.0.0.1:2379",
        ],
        postgres,
    );
    assert!(
        text.contains("must be an http:// or https:// URL"),
        "{text}"
    );
    let text = refusal(&["--coordination", "sideways"], postgres);
    assert!(text.contains("invalid value 'sideways'"), "{text}");
    let text = refusal(&[&etcd[..], &["--replica-id", "a b"]].concat(), postgres);
    assert!(text.contains("--replica-id"), "{text}");
}

/// The owners of every cluster of provider `cp` (and the fleet-wide tasks), from etcd:
/// cluster id → replica id.
async fn owners(etcd: &Etcd) -> std::collections::BTreeMap<String, String> {
    etcd.owners("/flotilla").await.expect("etcd owners")
}

/// Waits until `member` holds every owner key, within `limit`.
async fn wait_sole_owner(etcd: &Etcd, member: &str, limit: Duration) {
    eventually(limit, &format!("{member} owns every cluster"), || async {
        owners(etcd)
            .await
            .values()
            .all(|o| o == member)
            .then_some(())
    })
    .await;
}

/// Two replicas share six clusters out; every agent dials the first, and those of the
/// second's clusters are sent there. A rollout made through the first reaches every
/// cluster (the second is nudged through etcd). kill -9 of the second: the first takes
/// its clusters within the lease TTL plus 5 s, their agents follow, every cluster is
/// Available again and a new rollout converges.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clusters_are_shared_out_and_move_when_a_replica_dies() {
    use crate::common::fleet::{instantiate, wait_counts};

    let etcd = Etcd::start().await.expect("etcd");
    let ttl = 3;
    let ReplicaFleet {
        first,
        mut second,
        mut client,
        agents,
        fleet,
        shared,
        ..
    } = ReplicaFleet::start(&etcd).await;
    assert!(
        agents
            .log_text()
            .contains("sent to the replica that runs the cluster"),
        "{}",
        agents.log_text()
    );

    let before: Vec<usize> = IDS.iter().map(|c| sessions_on(&first, c)).collect();
    second.kill9();
    let killed = Instant::now();
    let moved: Vec<&String> = shared
        .iter()
        .filter(|(_, owner)| *owner == "r2")
        .map(|(cluster, _)| cluster)
        .collect();
    eventually(
        Duration::from_secs(ttl + 5),
        "the survivor owns every cluster",
        || async {
            let owners = owners(&etcd).await;
            (owners.len() == IDS.len() + 1 && owners.values().all(|o| o == "r1")).then_some(())
        },
    )
    .await;
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    // The moved clusters' agents are on the survivor now (a new session each).
    for (i, id) in IDS.iter().enumerate() {
        if shared[*id] == "r2" {
            eventually(
                Duration::from_secs(ttl + 5),
                "the agent on the survivor",
                || async { (sessions_on(&first, id) > before[i]).then_some(()) },
            )
            .await;
        }
    }
    let failover = killed.elapsed();
    eprintln!("owners before the kill: {shared:?}; {moved:?} Available on r1 after {failover:?}");
    assert!(
        failover < Duration::from_secs(ttl + 5),
        "{moved:?} Available again after {failover:?}"
    );

    // A second rollout, after the move, reaches every cluster.
    let apps = [(
        "extra".to_owned(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  k: v\n".to_owned(),
    )];
    let extra =
        crate::common::fleet::version_group(&mut client, "p", "cb", "v1", "e", &apps, &IDS).await;
    instantiate(&mut client, &extra).await;
    wait_counts(&client, &extra, &[], 6, 6, "a rollout after the failover").await;
}

const IDS: [&str; 6] = ["c0", "c1", "c2", "c3", "c4", "c5"];

/// Three replicas r1–r3 (3 s leases, no embedded sims, 1 s agent and 500 ms watch
/// heartbeats, then `extra`) on one PostgreSQL, and a TCP balancer in front of them, as
/// a Kubernetes Service would be.
async fn three_behind_a_balancer(
    etcd: &Etcd,
    extra: &[&'static str],
) -> (Vec<TestServer>, flotilla_tests::proxy::TcpBalancer) {
    let args = |id: &'static str| {
        let mut args = replica_args(etcd, id, "3");
        args.extend([
            "--sim",
            "false",
            "--agent-heartbeat-millis",
            "1000",
            "--watch-heartbeat-millis",
            "500",
        ]);
        args.extend(extra);
        args
    };
    let mut replicas = vec![TestServer::start_with(Backend::Postgres, &args("r1")).await];
    for id in ["r2", "r3"] {
        let mut replica = replicas[0].replica(&args(id)).await;
        replica.spawn().await;
        replicas.push(replica);
    }
    let balancer = flotilla_tests::proxy::TcpBalancer::start(
        replicas
            .iter()
            .map(|r| format!("127.0.0.1:{}", r.port()))
            .collect(),
    )
    .await;
    (replicas, balancer)
}

/// The AGENT clusters [`IDS`] of provider `cp`, created: (cluster name, agent token).
async fn agent_fleet(client: &mut flotilla_client::Client) -> Vec<(String, String)> {
    let tokens = crate::common::fleet::clusters(client, &IDS).await;
    IDS.iter()
        .map(|id| {
            (
                flotilla_client::names::cluster("cp", id),
                tokens[*id].clone(),
            )
        })
        .collect()
}

/// Two replicas (3 s leases, 1 s agent heartbeats, no embedded sims) on one
/// PostgreSQL, six AGENT clusters of provider `cp`, and one agent process serving them
/// all that dials the first replica; returned once every cluster has an owner, both
/// replicas run some, and every cluster is Available.
struct ReplicaFleet {
    first: TestServer,
    second: TestServer,
    client: flotilla_client::Client,
    agents: flotilla_tests::TestAgent,
    /// (cluster name, agent token) of each cluster.
    fleet: Vec<(String, String)>,
    /// Cluster id (or `fleet-tasks`) → replica id, once shared out.
    shared: std::collections::BTreeMap<String, String>,
    /// A group rolled out through both replicas: 2 apps x (2 ConfigMaps + 1
    /// Deployment) on each cluster, a pod each (36 applied, 48 present).
    dig: String,
}

impl ReplicaFleet {
    async fn start(etcd: &Etcd) -> ReplicaFleet {
        Self::start_with(etcd, &[]).await
    }

    /// [`ReplicaFleet::start`] with `extra` arguments for both replicas.
    async fn start_with(etcd: &Etcd, extra: &[&'static str]) -> ReplicaFleet {
        let args = |id: &'static str| {
            let mut args = replica_args(etcd, id, "3");
            if !extra.contains(&"--sim") {
                args.extend(["--sim", "false"]);
            }
            args.extend(["--agent-heartbeat-millis", "1000"]);
            args.extend(extra);
            args
        };
        let first = TestServer::start_with(Backend::Postgres, &args("r1")).await;
        let mut second = first.replica(&args("r2")).await;
        second.spawn().await;
        let mut client = first.client().await;
        let fleet = agent_fleet(&mut client).await;
        let agents = flotilla_tests::TestAgent::start_fleet(&first, "all", &fleet, &[]);
        let shared = eventually(Duration::from_secs(15), "every cluster owned", || async {
            let owners = owners(etcd).await;
            let all = owners.len() == IDS.len() + 1;
            let both = ["r1", "r2"].iter().all(|r| owners.values().any(|o| o == r));
            (all && both).then_some(owners)
        })
        .await;
        for (cluster, _) in &fleet {
            flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
        }
        let dig = crate::common::fleet::deployment(&mut client, 2, 2, true, &IDS).await;
        crate::common::fleet::instantiate(&mut client, &dig).await;
        let what = "a rollout through both replicas";
        crate::common::fleet::wait_counts(&client, &dig, &[], 36, 48, what).await;
        ReplicaFleet {
            first,
            second,
            client,
            agents,
            fleet,
            shared,
            dig,
        }
    }
}

/// How many agent sessions of cluster `id` (of provider `cp`) `server` has opened.
fn sessions_on(server: &TestServer, id: &str) -> usize {
    let cluster = format!("cluster={}", flotilla_client::names::cluster("cp", id));
    server
        .log()
        .lines()
        .filter(|l| l.contains("agent session opened") && l.contains(&cluster))
        .count()
}

/// Fencing: a replica stopped (SIGSTOP) past its lease loses its clusters to the other;
/// woken (SIGCONT), it writes nothing for them (their connectivity stays the new
/// owner's, and every session close it makes is refused by its fences), and it joins
/// the replica set again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_replica_writes_nothing_for_the_clusters_it_lost() {
    use crate::common::fleet::wait_counts;
    let etcd = Etcd::start().await.expect("etcd");
    let ttl = 3;
    let ReplicaFleet {
        first,
        second,
        mut client,
        shared,
        fleet,
        agents,
        dig,
    } = ReplicaFleet::start(&etcd).await;
    let moved: Vec<&str> = IDS
        .iter()
        .copied()
        .filter(|id| shared[*id] == "r2")
        .collect();
    let before: Vec<usize> = moved.iter().map(|id| sessions_on(&first, id)).collect();

    second.signal(libc::SIGSTOP);
    // Stopped past its lease: its registration goes, and the first runs everything.
    eventually(
        Duration::from_secs(ttl + 5),
        "r2's lease expired",
        || async {
            registered(&etcd)
                .await
                .iter()
                .all(|(id, _)| id != "r2")
                .then_some(())
        },
    )
    .await;
    wait_sole_owner(&etcd, "r1", Duration::from_secs(ttl + 5)).await;
    // An agent that was sent to r2 just before it stopped waits out its accept timeout
    // (5 s) and a reconnect backoff (up to 5 s) before it dials r1 again.
    for (i, id) in moved.iter().enumerate() {
        let deadline = Instant::now() + Duration::from_secs(20);
        while sessions_on(&first, id) <= before[i] {
            assert!(
                Instant::now() < deadline,
                "{id}'s agent not on r1:\n{}\nr1:\n{}",
                agents.log_text(),
                first.log()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }

    let logged = second.log().len();
    second.signal(libc::SIGCONT);
    // The woken replica's first moments: its sessions time out and its ownership pass
    // runs; nothing it does reaches the database for the moved clusters.
    // Until it takes a cluster back (it joins again, and the placement gives it some),
    // every moved cluster stays as its new owner recorded it.
    let woken = Instant::now();
    while woken.elapsed() < Duration::from_millis(1500)
        && !second.log()[logged..].contains("took a cluster")
    {
        for id in &moved {
            let name = flotilla_client::names::cluster("cp", id);
            let cluster = client
                .lifecycle
                .get_cluster(flotilla_client::v1::GetClusterRequest { name })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(
                cluster.connectivity(),
                Connectivity::Available,
                "{id} after r2 woke"
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eventually(Duration::from_secs(10), "r2 a member again", || async {
        registered(&etcd)
            .await
            .iter()
            .any(|(id, _)| id == "r2")
            .then_some(())
    })
    .await;
    let woke: String = second.log()[logged..].to_owned();
    assert!(
        woke.contains("giving up every cluster") || woke.contains("fenced out"),
        "{woke}"
    );
    // Every session close it logged for a moved cluster was refused its write.
    for id in &moved {
        let cluster = flotilla_client::names::cluster("cp", id);
        let closed = woke
            .lines()
            .filter(|l| l.contains("agent session closed") && l.contains(&cluster))
            .count();
        let refused = woke
            .lines()
            .filter(|l| l.contains("fenced out") && l.contains(&cluster))
            .count();
        assert!(
            refused >= closed,
            "{id}: {closed} closes, {refused} refused\n{woke}"
        );
    }
    // And the fleet still converges with r2 back in it.
    wait_counts(&client, &dig, &[], 36, 48, "converged after r2 rejoined").await;
}

/// Watches on every replica (point 4). Feeds poll the log once a minute here, so what
/// arrives within seconds was woken through etcd. A group on the clusters r1 runs is
/// rolled out through r1, so r1 commits all of it: a watch on r2 sees it, a status
/// query on r2 (cached before) answers from fresh data, and a resume token of a stream
/// on r1 resumes on r2 with the same events, once each, in the same order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_on_every_replica_see_every_commit() {
    use crate::common::fleet::{instantiate, summary, version_group, wait_counts};
    use crate::common::mirror::{next_event, settle_of, settled_watch_of, watch, watch_request_of};
    use flotilla_client::v1::{StatusOutput, WatchEventType};
    let etcd = Etcd::start().await.expect("etcd");
    let fleet = ReplicaFleet::start_with(
        &etcd,
        &[
            "--watch-poll-millis",
            "60000",
            "--watch-heartbeat-millis",
            "500",
        ],
    )
    .await;
    let mut on_r1 = fleet.client.clone();
    let mut on_r2 = fleet.second.client().await;
    let r1s: Vec<&str> = IDS
        .iter()
        .copied()
        .filter(|id| fleet.shared[*id] == "r1")
        .collect();
    let apps = [(
        "w".to_owned(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w1\ndata:\n  k: v\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w2\ndata:\n  k: v\n"
            .to_owned(),
    )];
    let dig = version_group(&mut on_r1, "p", "cw", "v1", "w", &apps, &r1s).await;
    let n = 2 * r1s.len() as i32;
    // r2 answers (and caches) the approved group's empty counts.
    let before = summary(&mut on_r2, &dig, &[]).await;
    assert_eq!(before.rsync_status.unwrap_or_default().applied, 0);
    let (mut watch_r1, mut mirror_r1) = settled_watch_of(&mut on_r1, &dig).await;
    let (mut watch_r2, mut mirror_r2) = settled_watch_of(&mut on_r2, &dig).await;
    let token = mirror_r1.token.clone();
    // And r2's fleet rows, which only the relay can tell of r1's commits (r2's fleet
    // reader polls only while the relay is cut).
    let mut fleet_r2 = on_r2
        .status
        .watch_fleet(flotilla_client::v1::WatchFleetRequest {})
        .await
        .unwrap()
        .into_inner();

    instantiate(&mut on_r1, &dig).await;
    let instantiated = Instant::now();
    let first = next_event(&mut watch_r2).await;
    let relayed = instantiated.elapsed();
    assert_eq!(
        first.r#type,
        WatchEventType::LifecycleChanged as i32,
        "{first:?}"
    );
    assert!(
        relayed < Duration::from_secs(10),
        "r1's commit reached r2's watch after {relayed:?} (feeds poll every 60 s)"
    );
    eprintln!("r1's instantiation on r2's watch after {relayed:?}");
    mirror_r2.apply(&first);
    wait_counts(&on_r2, &dig, &[], n, n, "r2 answers the rollout r1 made").await;
    let settle = |client, stream, mirror| {
        settle_of(client, &dig, stream, mirror, StatusOutput::All, &[], &[])
    };
    settle(&mut on_r2, &mut watch_r2, &mut mirror_r2).await;
    let after_token: Vec<_> = settle(&mut on_r1, &mut watch_r1, &mut mirror_r1)
        .await
        .into_iter()
        .filter(|e| e.r#type != WatchEventType::Heartbeat as i32)
        .collect();
    assert!(after_token.len() > 1, "{after_token:?}");
    assert_eq!(mirror_r1.comparable(), mirror_r2.comparable());

    // r2's fleet row of the group: instantiated, every resource applied.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut row = None;
    while row
        .as_ref()
        .is_none_or(|g: &flotilla_client::v1::FleetGroup| {
            g.rsync_status.unwrap_or_default().applied != n
        })
    {
        let message = tokio::time::timeout_at(deadline, fleet_r2.message())
            .await
            .unwrap_or_else(|_| panic!("r2's fleet row of r1's rollout within 10 s: {row:?}"))
            .unwrap()
            .expect("the fleet stream goes on");
        for event in message.events {
            if let Some(flotilla_client::v1::fleet_event::Row::Group(g)) = event.row
                && g.name == dig
            {
                row = Some(g);
            }
        }
    }
    let row = row.unwrap();
    assert_eq!(
        row.state(),
        flotilla_client::v1::DeploymentIntentGroupState::Instantiated
    );

    // r1's token, resumed on r2: the same events after it, once each, in order.
    let request = watch_request_of(&dig, StatusOutput::All, &token);
    let mut resumed = watch(&mut on_r2, request).await;
    for (i, expected) in after_token.iter().enumerate() {
        let got = next_event(&mut resumed).await;
        assert_eq!(
            (got.r#type, &got.resume_token),
            (expected.r#type, &expected.resume_token),
            "event {i} after r1's token, resumed on r2"
        );
    }
}

/// A prefix `p` such that ports `p1`, `p2` and `p3` (`p` * 10 + 1..3) are free now.
fn free_port_decade() -> String {
    (2000..6000)
        .map(|_| 2000 + rand_below(4000))
        .find(|prefix| {
            (1..=3).all(|i| {
                std::net::TcpListener::bind(("127.0.0.1", (prefix * 10 + i) as u16)).is_ok()
            })
        })
        .expect("three free ports")
        .to_string()
}

fn rand_below(n: u32) -> u32 {
    (uuid::Uuid::new_v4().as_u128() % n as u128) as u32
}

/// The README's "Running more than one replica" block, verbatim but for the binary
/// and the ports: three replicas and etcd on loopback, a group deployed through one and
/// ready through another, then the first killed and the group torn down through the
/// third (so its clusters moved and their sims restarted on the survivors).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readme_replicas_run_as_written() {
    use flotilla_tests::readme::{readme_blocks, run_block};
    let blocks = readme_blocks("## Running more than one replica");
    assert_eq!(blocks.len(), 1);
    // A fresh database (the block starts the servers itself).
    let server = TestServer::prepare(Backend::Postgres, &[], None).await;
    let decade = free_port_decade();
    let script = blocks[0]
        .replace(
            "cargo run -p flotilla-server --",
            &binary("flotilla-server").display().to_string(),
        )
        .replace("2379", &flotilla_tests::free_port().to_string())
        .replace("2380", &flotilla_tests::free_port().to_string())
        .replace("5006", &decade);
    let text = run_block(
        &server,
        &[("DATABASE_URL", server.database_url.as_str())],
        &script,
    );
    // lab1 taken twice, by two replicas (the second after the first was killed).
    let lab1: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("took a cluster") && l.contains("clusters/lab1"))
        .filter_map(|l| l.split(".log:").next())
        .collect();
    assert_eq!(lab1.len(), 2, "lab1 taken, then taken again:\n{text}");
    assert_ne!(lab1[0], lab1[1], "by another replica:\n{text}");
    assert!(text.contains("prod: ready"), "{text}");
    assert_eq!(text.matches("prod: terminated").count(), 2, "{text}");
    assert!(text.contains("Killed"), "the owner was killed:\n{text}");
    assert!(
        !text.contains("ERROR") && !text.contains("error:"),
        "{text}"
    );
}

/// Actions with replicas: a node reboot created through r1 on every cluster runs once
/// on its cluster's agent, whichever replica runs it (those of r2's clusters are passed to r2),
/// its claim and outcome written in fenced transactions; and after r2 is killed, a
/// second round runs on r1 alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_run_on_the_replica_that_runs_their_cluster() {
    use passes::{node_of, reboot, wait_succeeded};
    let etcd = Etcd::start().await.expect("etcd");
    let ReplicaFleet {
        first,
        mut second,
        client,
        fleet,
        agents: _agents,
        ..
    } = ReplicaFleet::start(&etcd).await;
    let round = |what: &'static str| {
        let (client, fleet) = (client.clone(), fleet.clone());
        async move {
            let mut names = Vec::new();
            for (cluster, _) in &fleet {
                let action = client
                    .clone()
                    .actions
                    .create_node_action(reboot(cluster, &node_of(cluster), ""))
                    .await
                    .unwrap_or_else(|e| panic!("{what}: {cluster}: {e}"))
                    .into_inner();
                names.push(action.name);
            }
            for name in names {
                wait_succeeded(&client, &name, what).await;
            }
        }
    };
    round("reboots through both replicas").await;
    // Every claim and outcome was written by the replica that runs the cluster.
    let fenced = |server: &TestServer| {
        server
            .log()
            .lines()
            .filter(|l| l.contains("fenced out"))
            .count()
    };
    assert_eq!(fenced(&first) + fenced(&second), 0, "no write fenced out");
    second.kill9();
    wait_sole_owner(&etcd, "r1", Duration::from_secs(10)).await;
    for (cluster, _) in &fleet {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    round("reboots after r2 died").await;
}
