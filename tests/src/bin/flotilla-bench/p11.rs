//! P11: failover. Three replicas (3 s leases) on one PostgreSQL and etcd, behind a TCP
//! balancer that the agents dial; five times, the replica running the most clusters is
//! killed with SIGKILL and the time is measured until every cluster has an agent
//! session again on a live replica (each replica's `flotilla_agent_sessions`) and etcd
//! names no dead owner. The victim is started again between rounds. Target: the median
//! within the lease TTL + 2 s.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::etcd::Etcd;
use flotilla_tests::metrics::{scrape, value};
use flotilla_tests::proxy::TcpBalancer;
use flotilla_tests::{Backend, TestAgent, TestServer, free_port};

use super::{Row, Target};

const TTL_SECS: u64 = 3;
const ROUNDS: usize = 5;
const PREFIX: &str = "/flotilla-p11";

/// Clusters per scale.
pub const QUICK: usize = 6;
pub const FULL: usize = 20;

/// A replica: its server and where its metrics are served.
struct Replica {
    id: &'static str,
    server: TestServer,
    metrics: String,
}

fn replica_args(etcd: &Etcd, id: &str, metrics: &str) -> Vec<String> {
    [
        "--coordination",
        "etcd",
        "--etcd-endpoints",
        &etcd.endpoint,
        "--etcd-prefix",
        PREFIX,
        "--replica-id",
        id,
        "--lease-ttl-secs",
        &TTL_SECS.to_string(),
        "--sim",
        "false",
        "--agent-heartbeat-millis",
        "1000",
        "--metrics-listen",
        metrics,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Cluster → owning replica, from etcd.
async fn owners(etcd: &Etcd) -> Result<BTreeMap<String, String>> {
    etcd.owners(PREFIX).await
}

/// Agent sessions open on each live replica.
async fn sessions(replicas: &[&Replica]) -> Result<f64> {
    let addresses: Vec<String> = replicas.iter().map(|r| r.metrics.clone()).collect();
    Ok(tokio::task::spawn_blocking(move || {
        addresses
            .iter()
            .map(|a| value(&scrape(a), "flotilla_agent_sessions", &[]))
            .sum()
    })
    .await?)
}

/// Waits until every cluster has a session on one of `live` and etcd names only
/// them as owners of every unit; returns how long that took.
async fn settled(
    etcd: &Etcd,
    live: &[&Replica],
    clusters: usize,
    limit: Duration,
) -> Result<Duration> {
    let started = Instant::now();
    loop {
        let owners = owners(etcd).await?;
        let owned =
            owners.len() == clusters + 1 && owners.values().all(|o| live.iter().any(|r| r.id == o));
        if owned && sessions(live).await? as usize == clusters {
            return Ok(started.elapsed());
        }
        if started.elapsed() > limit {
            bail!("not settled after {limit:?}: owners {owners:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn agent_clusters(client: &mut Client, count: usize) -> Result<Vec<(String, String)>> {
    client
        .lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "cp".into(),
            ..Default::default()
        })
        .await?;
    let mut fleet = Vec::new();
    for i in 0..count {
        let cluster = client
            .lifecycle
            .create_cluster(CreateClusterRequest {
                parent: names::cluster_provider("cp"),
                cluster_id: format!("c{i}"),
                cluster: Some(Cluster {
                    connection_mode: ConnectionMode::Agent as i32,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await?
            .into_inner();
        fleet.push((cluster.name, cluster.agent_token));
    }
    Ok(fleet)
}

pub async fn run(clusters: usize, etcd: &Etcd, rows: &mut Vec<Row>) -> Result<()> {
    eprintln!("P11 postgres: 3 replicas, {clusters} clusters, {TTL_SECS} s leases, {ROUNDS} kills");
    let metrics: Vec<String> = (0..3)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let ids = ["r1", "r2", "r3"];
    let args = |i: usize| replica_args(etcd, ids[i], &metrics[i]);
    let first = TestServer::start_with(Backend::Postgres, &as_strs(&args(0))).await;
    let mut replicas = Vec::new();
    for i in 1..3 {
        let mut server = first.replica(&as_strs(&args(i))).await;
        server.spawn().await;
        replicas.push(Replica {
            id: ids[i],
            server,
            metrics: metrics[i].clone(),
        });
    }
    replicas.insert(
        0,
        Replica {
            id: ids[0],
            server: first,
            metrics: metrics[0].clone(),
        },
    );
    let balancer = TcpBalancer::start(
        replicas
            .iter()
            .map(|r| format!("127.0.0.1:{}", r.server.port()))
            .collect(),
    )
    .await;
    let mut client = replicas[0].server.client().await;
    let fleet = agent_clusters(&mut client, clusters).await?;
    let _agents =
        TestAgent::start_fleet_via(&replicas[0].server, &balancer.url(), "p11", &fleet, &[]);
    let all: Vec<&Replica> = replicas.iter().collect();
    settled(etcd, &all, clusters, Duration::from_secs(60)).await?;

    let mut failovers = Vec::new();
    for round in 0..ROUNDS {
        // The replica running the most clusters.
        let owners = owners(etcd).await?;
        let victim = (0..3)
            .max_by_key(|i| owners.values().filter(|o| *o == ids[*i]).count())
            .expect("three replicas");
        let moved = owners.values().filter(|o| *o == ids[victim]).count();
        replicas[victim].server.kill9();
        let killed = Instant::now();
        let live: Vec<&Replica> = replicas
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != victim)
            .map(|(_, r)| r)
            .collect();
        settled(etcd, &live, clusters, Duration::from_secs(60)).await?;
        let failover = killed.elapsed();
        eprintln!(
            "P11 round {round}: {} ({moved} units) killed; every cluster served again after {:.2} s",
            ids[victim],
            failover.as_secs_f64()
        );
        failovers.push(failover);
        replicas[victim].server.respawn().await;
        let all: Vec<&Replica> = replicas.iter().collect();
        settled(etcd, &all, clusters, Duration::from_secs(60)).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    failovers.sort();
    let median = failovers[failovers.len() / 2];
    let target = Duration::from_secs(TTL_SECS + 2);
    rows.push(Row {
        backend: "postgres",
        id: "P11 failover",
        figure: format!(
            "median {:.2} s of {ROUNDS} kills (max {:.2} s; {clusters} clusters, 3 replicas)",
            median.as_secs_f64(),
            failovers.last().expect("rounds").as_secs_f64()
        ),
        baseline: format!("lease TTL {TTL_SECS} s"),
        ratio: format!("{:.2}x", median.as_secs_f64() / TTL_SECS as f64),
        target: format!("<= TTL + 2 s ({} s)", target.as_secs()),
        pass: median <= target,
        gating: true,
        unit: None,
    });
    Ok(())
}

/// Arguments as the server helpers take them.
fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// One side of the coordination's overhead: one server as users run it alone (no
/// etcd), or three replicas on etcd: clients dealt over them, agents behind a TCP
/// balancer (see `Target`).
struct Arm {
    servers: Vec<TestServer>,
    balancer: Option<TcpBalancer>,
}

impl Arm {
    /// `replicas` servers (1: alone) on a fresh PostgreSQL database with `args`; a
    /// replica set joins under its own etcd `prefix`.
    async fn start(replicas: usize, etcd: &Etcd, prefix: &str, args: &[&str]) -> Arm {
        if replicas == 1 {
            let server = TestServer::start_with(Backend::Postgres, args).await;
            return Arm {
                servers: vec![server],
                balancer: None,
            };
        }
        let ids: Vec<String> = (1..=replicas).map(|i| format!("r{i}")).collect();
        let replica_args = |id: &str| -> Vec<String> {
            let mut all: Vec<String> = [
                "--coordination",
                "etcd",
                "--etcd-endpoints",
                &etcd.endpoint,
                "--etcd-prefix",
                prefix,
                "--replica-id",
                id,
                "--lease-ttl-secs",
                &TTL_SECS.to_string(),
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            all.extend(args.iter().map(|s| s.to_string()));
            all
        };
        let first =
            TestServer::start_with(Backend::Postgres, &as_strs(&replica_args(&ids[0]))).await;
        let mut servers = vec![];
        for id in &ids[1..] {
            let mut server = first.replica(&as_strs(&replica_args(id))).await;
            server.spawn().await;
            servers.push(server);
        }
        servers.insert(0, first);
        let balancer = TcpBalancer::start(
            servers
                .iter()
                .map(|s| format!("127.0.0.1:{}", s.port()))
                .collect(),
        )
        .await;
        Arm {
            servers,
            balancer: Some(balancer),
        }
    }

    fn target(&self) -> Target<'_> {
        match &self.balancer {
            None => Target::of(&self.servers[0]),
            Some(balancer) => Target::spread(
                &self.servers[0],
                self.servers.iter().map(TestServer::url).collect(),
                balancer.url(),
            ),
        }
    }
}

/// P4 and P5 on `arm`: the bench's fleet (its agents in one `--sim-fleet` process),
/// instantiate → converged, then P5's subscribers and changes. Returns (P4 seconds, P5
/// p99 ms, P5 changes/s, P5 events lost).
async fn p4_p5(arm: &Arm, scale: super::Scale) -> Result<(f64, f64, f64, u64)> {
    let target = arm.target();
    let mut client = target.client().await?;
    let clusters = super::setup(&mut client, scale).await?;
    let _agents =
        TestAgent::start_fleet_via(target.server, &target.agents, "p11-fleet", &clusters, &[]);
    for (cluster, _) in &clusters {
        flotilla_tests::wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    super::settle_postgres("P11's P4", &target.server.database_url).await;
    let started = Instant::now();
    super::instantiate(&mut client).await?;
    super::wait_converged(&mut client, scale).await?;
    let p4 = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    super::settle_postgres("P11's P5", &target.server.database_url).await;
    let mut round = super::p5_flotilla(&target, scale).await?;
    Ok((
        p4,
        super::percentile(&mut round.latencies, 0.99),
        round.rate,
        round.lost,
    ))
}

/// Which overhead checks to run.
#[derive(Debug, Clone, Copy)]
pub struct Parts {
    pub p4p5: bool,
    pub p8: bool,
}

/// The coordination's overhead: P4, P5 and P8 with three replicas against one server
/// alone, in the same run (one then three for P4/P5, three then one for P8, so drift of
/// the machine's speed falls on both sides). Target: three replicas within 1.3× of one.
pub async fn overhead(
    scale: super::Scale,
    p8_scale: super::p8::P8Scale,
    parts: Parts,
    etcd: &Etcd,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let mut p45 = BTreeMap::new();
    let p45_arms: &[usize] = if parts.p4p5 { &[1, 3] } else { &[] };
    for (n, &replicas) in p45_arms.iter().enumerate() {
        eprintln!(
            "P11 overhead: P4 and P5 on {replicas} replica(s), {} resources",
            scale.apps * scale.clusters * scale.docs
        );
        let arm = Arm::start(
            replicas,
            etcd,
            &format!("{PREFIX}-p45-{n}"),
            super::SERVER_ARGS,
        )
        .await;
        let figures = p4_p5(&arm, scale).await?;
        eprintln!(
            "  {replicas}: P4 {:.2} s; P5 p99 {:.1} ms at {:.0}/s, {} lost",
            figures.0, figures.1, figures.2, figures.3
        );
        p45.insert(replicas, figures);
    }
    let mut p8 = BTreeMap::new();
    let p8_arms: &[usize] = if parts.p8 { &[3, 1] } else { &[] };
    for (n, &replicas) in p8_arms.iter().enumerate() {
        eprintln!("P11 overhead: P8 on {replicas} replica(s)");
        let arm = Arm::start(
            replicas,
            etcd,
            &format!("{PREFIX}-p8-{n}"),
            super::p8::SERVER_ARGS,
        )
        .await;
        p8.insert(replicas, super::p8::measure(&arm.target(), p8_scale).await?);
    }
    let ratio_row = |id: &'static str, three: f64, one: f64, unit: &str, detail: String| Row {
        backend: "postgres",
        id,
        figure: format!("{three:.2} {unit} with 3 replicas{detail}"),
        baseline: format!("{one:.2} {unit} one server"),
        ratio: format!("{:.2}x", three / one),
        target: "<= 1.3x".into(),
        pass: three <= 1.3 * one,
        gating: !scale.quick,
        unit: None,
    };
    let mut lost = (0, 0, 0);
    if let (Some(one), Some(three)) = (p45.get(&1), p45.get(&3)) {
        rows.push(ratio_row(
            "P11 P4 converge",
            three.0,
            one.0,
            "s",
            String::new(),
        ));
        rows.push(ratio_row(
            "P11 P5 watch p99",
            three.1,
            one.1,
            "ms",
            format!(" @ {:.0}/s (one: @ {:.0}/s)", three.2, one.2),
        ));
        lost.0 = three.3 + one.3;
    }
    if let (Some(one8), Some(three8)) = (p8.get(&1), p8.get(&3)) {
        rows.push(ratio_row(
            "P11 P8 actions done",
            three8.total,
            one8.total,
            "s",
            String::new(),
        ));
        rows.push(ratio_row(
            "P11 P8 create->agent",
            three8.p99,
            one8.p99,
            "ms",
            " (p99)".into(),
        ));
        lost.1 = three8.lost + one8.lost;
        lost.2 = three8.duplicated + one8.duplicated;
    }
    if p45.is_empty() && p8.is_empty() {
        return Ok(());
    }
    rows.push(Row {
        backend: "postgres",
        id: "P11 lost",
        figure: format!(
            "{} events lost, {} actions lost, {} duplicated (both sides)",
            lost.0, lost.1, lost.2
        ),
        baseline: "-".into(),
        ratio: "-".into(),
        target: "0".into(),
        pass: lost == (0, 0, 0),
        gating: true,
        unit: None,
    });
    Ok(())
}
