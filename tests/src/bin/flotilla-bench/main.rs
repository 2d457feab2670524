//! flotilla-bench: DESIGN §14's P1–P6 against real `flotilla-server` processes on
//! SQLite and PostgreSQL, with the baselines measured in the same run: a no-op RPC on
//! the same server (gRPC health check), an etcd prefix read plus JSON decode of the
//! same instance in EMCO's AppContext key layout, and etcd's own watch with the same
//! subscriber count, change rate and bursts (etcd-server started by the bench on
//! loopback). The simulated clusters run as one `flotilla-agent` process each, so P6
//! measures the server alone.
//!
//!   cargo build --release -p flotilla-server    # the server and agents the bench starts
//!   cargo run --release -p flotilla-tests --bin flotilla-bench            # full scale
//!   cargo run --release -p flotilla-tests --bin flotilla-bench -- --quick # CI scale
//!
//! Prints one table (figure, baseline, ratio, target, pass/fail) and exits non-zero
//! when a check fails. P2 alternates reads of the tree and of etcd and compares their
//! medians. P5 runs in rounds, Flotilla's and etcd's alternating, and
//! compares the p99s of all rounds' latencies (on PostgreSQL after a CHECKPOINT that
//! writes out the bulk load); it also reports each round's p99, the
//! CPU each process family used while the changes were driven, and the latency of
//! each change's first and last event.
//!
//! Profiling: `--serve [--backend postgres] [--scale N]` converges the instance and keeps serving
//! it; `P2LOOP=n` then reads the `all` tree n times (alternating with etcd's read
//! when `P2ETCD` is set), `P5LOOP=n` runs P5 n times, and
//! `P5CHANGES=1` lists every change of P5 (subscribers, first and last latencies).
//! The unknown-names check (issue 21: 100,000 names that do not exist leave the
//! server's RSS where it was) runs at both scales; `--names` runs it alone.
//! `--p7`, `--p8`, `--p9`, `--p10`, `--p11` run that target alone (P9 on a freshly
//! converged instance; P10 on three real Kubernetes control planes, which need
//! FLOTILLA_KUBE_BIN: `export FLOTILLA_KUBE_BIN=$(scripts/kube/build.sh)`; P11, the
//! failover of a replica set, on PostgreSQL only).
//!
//! `--scale N` (issue 61) runs P1–P9 on N times the full fleet — clusters,
//! subscribers, container clusters and actions; apps, documents and change rates as
//! at full scale; agents in `--sim-fleet` processes of 100 clusters — with every
//! baseline loaded at the same scale, and the targets of issue 61's table at N = 10.
//! `--scale 1,10` runs both and adds the cost table: each figure's cost per unit of
//! work (per resource, event, action, container cluster) at both scales and the ratio,
//! which must stay within 1.5×. `--p9 --scale 10`, `--p8 --scale 10` and
//! `--p7 --scale 10` run P9, P8 or P7 alone on the scaled fleet.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use flotilla_client::Client;
use flotilla_client::v1::*;
use flotilla_tests::{
    Backend, TestAgent, TestServer, configmap_manifests, free_port, wait_connectivity,
};
use tokio::sync::Mutex;

mod cpu;
mod etcd;
mod fleet;
mod names;
mod p10;
mod p11;
mod p5;
mod p7;
mod p8;
mod p9;
mod parse;
mod scale;
mod table;

use cpu::{cpu_report, cpu_since, cpu_snapshot, rss_kib};
use etcd::{Etcd, etcd_load, etcd_put_watch, etcd_read, etcd_settle};
use p5::{p5_etcd, p5_flotilla, settle_postgres};
use scale::{FULL, QUICK, Scale, at_scale, run_scales};

/// The bench decodes every page it reads, as any client does: with glibc's malloc that
/// decoding (and etcd's JSON baseline) spent most of its time in the allocator, which
/// the server does not use either (see its Cargo.toml).
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// What a row's figure costs per unit of work (a resource, a change, an action): the
/// cost table of a run of several scales compares it between them.
#[derive(Debug, Clone, Copy)]
struct Unit {
    cost: f64,
    /// What `cost` is in and per what ("us per resource").
    of: &'static str,
}

/// One line of the result table.
struct Row {
    backend: &'static str,
    id: &'static str,
    figure: String,
    baseline: String,
    ratio: String,
    target: String,
    pass: bool,
    /// Whether a failure fails the run (`--quick` reports the targets the project does
    /// not meet yet without failing CI on them; BENCHMARKS.md lists them).
    gating: bool,
    /// The figure's cost per unit of work, for `--scale`'s cost table.
    unit: Option<Unit>,
}

impl Unit {
    /// A row's `unit`: `cost` per unit of work, as `of` says.
    fn per(cost: f64, of: &'static str) -> Option<Unit> {
        Some(Unit { cost, of })
    }
}

impl Row {
    /// A run that failed with `error`.
    fn error(backend: &'static str, error: anyhow::Error) -> Row {
        Row {
            backend,
            id: "run",
            figure: format!("error: {error:#}"),
            baseline: "-".into(),
            ratio: "-".into(),
            target: "-".into(),
            pass: false,
            gating: true,
            unit: None,
        }
    }
}

/// Where a check sends its clients and agents: one server, or a replica set (P11);
/// `server` is the first (its data directory, TLS and database).
///
/// A replica set's clients are dealt over the replicas' own addresses a connection
/// each in turn, as a kernel balancer (a Kubernetes Service's) spreads connections
/// without touching their bytes: so two thirds of the calls still land on a replica
/// that does not run their cluster, and no proxy of ours spends the bench's own cores
/// copying P5's streams. Agents dial `agents` (a balancer, for a replica set): their
/// first connection may land anywhere and follow a redirect.
struct Target<'a> {
    server: &'a TestServer,
    clients: Vec<String>,
    agents: String,
    dealt: std::sync::atomic::AtomicUsize,
}

impl<'a> Target<'a> {
    /// The server itself.
    fn of(server: &'a TestServer) -> Target<'a> {
        Target::spread(server, vec![server.url()], server.url())
    }

    /// Clients dealt over `clients`, agents dialling `agents`.
    fn spread(server: &'a TestServer, clients: Vec<String>, agents: String) -> Target<'a> {
        Target {
            server,
            clients,
            agents,
            dealt: Default::default(),
        }
    }

    /// A client (a connection of its own) to the next of `clients`.
    async fn client(&self) -> Result<Client> {
        let n = self
            .dealt
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut options = self.server.options();
        options.address = self.clients[n % self.clients.len()].clone();
        Ok(options.connect().await?)
    }
}

/// The server's whole log, written to FLOTILLA_BENCH_LOG if set; returned either way.
fn server_log(server: &TestServer) -> Result<String> {
    let log = server.log();
    if let Ok(path) = std::env::var("FLOTILLA_BENCH_LOG") {
        std::fs::write(&path, &log)?;
    }
    Ok(log)
}

fn micros_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or_default()
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

const DIG: &str = "projects/bench/compositeApps/fleet/versions/v1/deploymentIntentGroups/prod";

/// The bench's fleet: project bench, composite app fleet, provider edge, clusters
/// c0…, apps a0… of ConfigMaps.
fn fleet(scale: Scale) -> fleet::Fleet {
    fleet::Fleet {
        project: "bench",
        composite_app: "fleet",
        provider: "edge",
        cluster_prefix: "c",
        app_prefix: "a",
        clusters: scale.clusters,
        apps: scale.apps,
    }
}

/// Creates the fleet and approves its group; returns each cluster's name and agent
/// token.
async fn setup(client: &mut Client, scale: Scale) -> Result<Vec<(String, String)>> {
    fleet(scale)
        .create(client, |a| configmap_manifests(a, scale.docs))
        .await
}

/// Starts the clusters' `flotilla-agent` processes (sim backend), one per cluster or
/// one per `scale.fleet_size` clusters (`--sim-fleet`), and waits until every cluster's
/// agent is connected.
async fn start_agents(
    server: &TestServer,
    client: &Client,
    clusters: &[(String, String)],
    scale: Scale,
) -> Vec<TestAgent> {
    let agents = if scale.fleet_size == 0 {
        clusters
            .iter()
            .map(|(cluster, token)| TestAgent::start(server, cluster, token))
            .collect()
    } else {
        clusters
            .chunks(scale.fleet_size)
            .enumerate()
            .map(|(i, fleet)| TestAgent::start_fleet(server, &format!("f{i}"), fleet, &[]))
            .collect()
    };
    for (cluster, _) in clusters {
        wait_connectivity(client, cluster, Connectivity::Available).await;
    }
    agents
}

async fn summary(client: &mut Client) -> Result<ResourceStatus> {
    Ok(client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: DIG.into(),
            output: StatusOutput::Summary as i32,
            ..Default::default()
        })
        .await?
        .into_inner())
}

/// Reads the whole `all` tree page by page; returns the resources read.
async fn read_all(client: &mut Client) -> Result<usize> {
    let mut token = String::new();
    let mut count = 0;
    loop {
        let page = client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: DIG.into(),
                output: StatusOutput::All as i32,
                page_size: 10_000,
                page_token: token,
                ..Default::default()
            })
            .await?
            .into_inner();
        count += page
            .resources
            .iter()
            .flat_map(|a| &a.clusters)
            .map(|c| c.resources.len())
            .sum::<usize>();
        token = page.next_page_token;
        if token.is_empty() {
            return Ok(count);
        }
    }
}

/// "1.2M, 1.5M, ..." of read rates, in the order measured.
fn rates(samples: &[f64]) -> String {
    samples
        .iter()
        .map(|r| format!("{:.2}M", r / 1e6))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Waits until every resource is Applied and Present (at most [`Scale::patience`]).
async fn wait_converged(client: &mut Client, scale: Scale) -> Result<()> {
    let total = scale.total() as i32;
    let started = Instant::now();
    let deadline = started + scale.patience();
    let mut last_report = Instant::now();
    loop {
        let s = summary(client).await?;
        let rsync = s.rsync_status.unwrap_or_default();
        let cluster = s.cluster_status.unwrap_or_default();
        if rsync.applied == total && cluster.present == total {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("not converged: {rsync:?} {cluster:?}");
        }
        if last_report.elapsed() > Duration::from_secs(1) {
            eprintln!(
                "  converging: {:.1} s: applied {} present {} of {total}",
                started.elapsed().as_secs_f64(),
                rsync.applied,
                cluster.present
            );
            last_report = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The server's flags in every run (and in `--serve`, so that what is profiled is what
/// is measured). Watch heartbeats keep the default (15 s): at 10,000 subscribers a
/// shorter one is a per-subscriber cost of its own (20,000 messages/s at 500 ms).
const SERVER_ARGS: &[&str] = &["--sim-pod-ready-millis", "100", "--max-watches", "20000"];

/// A server with the bench's arguments and a `/metrics` listener; returns it and that
/// listener's address.
async fn start_metered(backend: Backend) -> (TestServer, String) {
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut args = SERVER_ARGS.to_vec();
    args.extend(["--metrics-listen", &metrics]);
    (TestServer::start_with(backend, &args).await, metrics)
}

/// Instantiates the bench's group.
async fn instantiate(client: &mut Client) -> Result<()> {
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await?;
    Ok(())
}

async fn run_backend(
    backend: Backend,
    label: &'static str,
    scale: Scale,
    etcd: &Etcd,
    context: &str,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let (server, metrics) = start_metered(backend).await;
    let result = run_checks(&server, &metrics, label, scale, etcd, context, rows).await;
    if result.is_err() {
        // What the server warned of last explains most failures (the log is gone with
        // its temporary directory once dropped; FLOTILLA_BENCH_LOG keeps all of it). Its
        // last lines are the agents' sessions closing as the fleet stops: left out.
        let log = server_log(&server).unwrap_or_else(|e| format!("no log: {e}"));
        let lines: Vec<&str> = log
            .lines()
            .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
            .collect();
        eprintln!("[{label}] the server's last warnings and errors:");
        for line in &lines[lines.len().saturating_sub(40)..] {
            eprintln!("  {line}");
        }
    }
    result
}

async fn run_checks(
    server: &TestServer,
    metrics: &str,
    label: &'static str,
    scale: Scale,
    etcd: &Etcd,
    context: &str,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let total = scale.total();
    let pid = server.pid().context("server pid")?;
    let mut client = server.client().await;
    eprintln!("[{label}] setting up {total} resources");
    let clusters = setup(&mut client, scale).await?;
    let agents = start_agents(server, &client, &clusters, scale).await;

    // P3: instantiate (render + persist + hand to rsync).
    let cpu = cpu_snapshot();
    let started = Instant::now();
    instantiate(&mut client).await?;
    let p3 = started.elapsed().as_secs_f64();
    let p3_target = match server.backend {
        Backend::Sqlite => scale.time_target(5.0, 15.0),
        Backend::Postgres => scale.time_target(10.0, 25.0),
    };
    rows.push(Row {
        backend: label,
        id: "P3 instantiate",
        figure: format!("{p3:.2} s"),
        baseline: "-".into(),
        ratio: "-".into(),
        target: format!("<= {p3_target:.2} s"),
        pass: p3 <= p3_target,
        gating: true,
        unit: Unit::per(p3 * 1e6 / total as f64, "us per resource"),
    });

    // P4: convergence through the sim agents.
    wait_converged(&mut client, scale).await?;
    let p4 = started.elapsed().as_secs_f64();
    let p4_target = scale.time_target(15.0, 90.0);
    rows.push(Row {
        backend: label,
        id: "P4 converge",
        figure: format!("{p4:.2} s"),
        baseline: "-".into(),
        ratio: "-".into(),
        target: format!("<= {p4_target:.2} s"),
        pass: p4 <= p4_target,
        gating: true,
        unit: Unit::per(p4 * 1e6 / total as f64, "us per resource"),
    });
    rows.push(cpu::per_unit_row(
        server.backend,
        label,
        "P4 CPU per resource",
        cpu::per_unit(&cpu_since(&cpu), total),
        &format!("{total} resources instantiated and converged"),
    ));
    let (_, after_p4) = rss_kib(pid);
    // Let the status reports settle before timing queries.
    tokio::time::sleep(Duration::from_secs(2)).await;

    // P1: summary vs a no-op RPC, interleaved.
    let mut health = tonic_health::pb::health_client::HealthClient::new(
        tonic::transport::Endpoint::from_shared(server.url())?
            .connect()
            .await?,
    );
    let (mut noop, mut sums) = (Vec::new(), Vec::new());
    for _ in 0..scale.samples {
        let t = Instant::now();
        health
            .check(tonic_health::pb::HealthCheckRequest::default())
            .await?;
        noop.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        summary(&mut client).await?;
        sums.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (noop50, sum50) = (percentile(&mut noop, 0.5), percentile(&mut sums, 0.5));
    rows.push(Row {
        backend: label,
        id: "P1 summary p50",
        figure: format!("{sum50:.0} us"),
        baseline: format!("{noop50:.0} us no-op"),
        ratio: format!("{:.2}x", sum50 / noop50),
        target: "<= 2x".into(),
        pass: sum50 <= 2.0 * noop50,
        gating: true,
        unit: Unit::per(sum50, "us per summary"),
    });

    // P2: the whole `all` tree, paged, against etcd's prefix read of the same data;
    // the two alternate, and each side's figure is its median: a read takes 0.04 s
    // (ours) to 0.7 s (etcd's), and this machine's speed moves within seconds, so one
    // read of each, minutes apart, compared the hours more than the reads.
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut read = total;
    for _ in 0..scale.p2_samples {
        let started = Instant::now();
        let n = etcd_read(etcd, context).await?;
        theirs.push(n as f64 / started.elapsed().as_secs_f64());
        let started = Instant::now();
        let n = read_all(&mut client).await?;
        ours.push(n as f64 / started.elapsed().as_secs_f64());
        if n != total {
            read = n;
        }
    }
    eprintln!(
        "  P2 reads (res/s): ours {}; etcd {}",
        rates(&ours),
        rates(&theirs)
    );
    let (p2, etcd_rate) = (percentile(&mut ours, 0.5), percentile(&mut theirs, 0.5));
    let p2_floor = at_scale(scale.n as f64, 500_000.0, 1_000_000.0);
    rows.push(Row {
        backend: label,
        id: "P2 all, paged",
        figure: format!("{p2:.0} res/s"),
        baseline: format!("{etcd_rate:.0} res/s etcd"),
        ratio: format!("{:.1}x", p2 / etcd_rate),
        target: format!(">= {p2_floor:.0}/s, >= 10x"),
        pass: read == total && p2 >= p2_floor && p2 >= 10.0 * etcd_rate,
        gating: !scale.quick || read != total,
        unit: Unit::per(1e6 / p2, "us per resource read"),
    });

    // P5: watch fan-out.
    if server.backend == Backend::Postgres {
        settle_postgres("P5", &server.database_url).await;
    }
    eprintln!(
        "[{label}] P5 with {} subscribers, {} rounds (Flotilla and etcd alternate)",
        scale.subscribers, scale.p5_rounds
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut rates, mut lost, mut etcd_delivered, mut etcd_expected) = (Vec::new(), 0, 0, 0);
    // CPU seconds per family while Flotilla's changes were driven, over every round.
    let mut p5_cpu = vec![0.0; cpu::CPU_FAMILIES.len()];
    for round in 0..scale.p5_rounds {
        // etcd runs at the rate Flotilla achieved; in odd rounds it goes first, at the
        // rate of the round before.
        let flotilla_first = round % 2 == 0;
        let mut etcd_round = async |rate: f64| -> Result<()> {
            let (latencies, delivered, expected) =
                p5_etcd(etcd, scale, rate, scale.p5_seconds).await?;
            theirs.extend(latencies);
            etcd_delivered += delivered;
            etcd_expected += expected;
            Ok(())
        };
        if !flotilla_first {
            etcd_round(rates.last().copied().unwrap_or(scale.rate as f64)).await?;
        }
        let round = p5_flotilla(&Target::of(server), scale).await?;
        ours.extend(round.latencies);
        rates.push(round.rate);
        lost += round.lost;
        p5_cpu
            .iter_mut()
            .zip(&round.cpu)
            .for_each(|(sum, c)| *sum += c);
        if flotilla_first {
            etcd_round(round.rate).await?;
        }
    }
    let delivered = ours.len();
    let p99 = percentile(&mut ours, 0.99);
    let etcd_p99 = percentile(&mut theirs, 0.99);
    let rate = rates.iter().sum::<f64>() / rates.len() as f64;
    rows.push(Row {
        backend: label,
        id: "P5 watch p99",
        figure: format!("{p99:.1} ms @ {rate:.0}/s"),
        baseline: "-".into(),
        ratio: "-".into(),
        target: format!("<= 50 ms at {}/s", scale.rate),
        pass: p99 <= 50.0 && rate >= scale.rate as f64 * 0.9,
        gating: true,
        unit: Unit::per(p99, "ms p99 per event"),
    });
    rows.push(cpu::per_unit_row(
        server.backend,
        label,
        "P5 CPU per event delivered",
        cpu::per_unit(&p5_cpu, delivered),
        &format!("{delivered} events to {} subscribers", scale.subscribers),
    ));
    rows.push(Row {
        backend: label,
        id: "P5 p99 vs etcd",
        figure: format!("{p99:.1} ms"),
        baseline: format!("{etcd_p99:.1} ms etcd watch"),
        ratio: format!("{:.2}x", p99 / etcd_p99),
        target: "<= 1x".into(),
        pass: p99 <= etcd_p99,
        gating: !scale.quick,
        unit: None,
    });
    rows.push(Row {
        backend: label,
        id: "P5 events lost",
        figure: format!("{lost}"),
        baseline: format!("{} etcd", etcd_expected.saturating_sub(etcd_delivered)),
        ratio: "-".into(),
        target: "0".into(),
        pass: lost == 0,
        gating: true,
        unit: None,
    });

    // P6: memory through all of the above (the sim agents' processes are not the
    // server's; their sum is shown for scale).
    let (rss, hwm) = rss_kib(pid);
    let rss_target = at_scale(scale.n as f64, 500.0, 1000.0);
    let agents_peak: u64 = agents.iter().map(|a| rss_kib(a.pid()).1).sum();
    rows.push(Row {
        backend: label,
        id: "P6 server RSS",
        figure: format!(
            "{} MB peak ({} MB by P4's end, {} MB now)",
            hwm / 1024,
            after_p4 / 1024,
            rss / 1024
        ),
        baseline: format!(
            "{} MB in {} sim agent processes",
            agents_peak / 1024,
            agents.len()
        ),
        ratio: "-".into(),
        target: format!("<= {rss_target:.0} MB"),
        pass: hwm as f64 <= rss_target * 1024.0,
        gating: true,
        unit: Unit::per(hwm as f64 * 1024.0 / total as f64, "bytes per resource"),
    });

    // P9, after P6's figure (its terminate + instantiate baseline renders the instance
    // again), while the agents still run.
    eprintln!("[{label}] P9: an update of 1% of the instance");
    p9::run(&mut client, metrics, scale, (server.backend, label), rows).await?;
    drop(agents);
    eprintln!("[{label}] parse: the worst-case manifests' cost per KB");
    parse::run(&mut client, label, rows).await?;
    Ok(())
}

/// The bench's command line (the module doc says what each target measures).
#[derive(clap::Parser)]
#[command(
    name = "flotilla-bench",
    about = "DESIGN §14's performance targets against real servers, agents, etcd and \
             Kubernetes control planes, with baselines measured in the same run"
)]
struct Args {
    /// The CI scale (a few minutes) instead of the full one.
    #[arg(long)]
    quick: bool,
    /// One backend only.
    #[arg(long, value_parser = ["sqlite", "postgres"])]
    backend: Option<String>,
    /// Converge the instance and keep serving it, for profiling (P2LOOP, P5LOOP).
    #[arg(long)]
    serve: bool,
    /// P7 (state sync) alone.
    #[arg(long)]
    p7: bool,
    /// P8 (actions) alone.
    #[arg(long)]
    p8: bool,
    /// P9 (updates) alone.
    #[arg(long)]
    p9: bool,
    /// P10 (converging on kube-apiserver) alone; needs FLOTILLA_KUBE_BIN.
    #[arg(long)]
    p10: bool,
    /// P11 (failover of a replica set, PostgreSQL) alone.
    #[arg(long)]
    p11: bool,
    /// One part of P11 alone (implies --p11): the failover, P4 and P5's overhead, or
    /// P8's overhead.
    #[arg(long, value_parser = ["failover", "p4p5", "p8"])]
    p11_part: Option<String>,
    /// The unknown-names memory check alone.
    #[arg(long)]
    names: bool,
    /// Issue 61's scaled runs: P1–P9 on the full fleet's clusters, subscribers,
    /// container clusters and actions times N, each N in turn (`--scale 10`, or
    /// `--scale 1,10` for the cost table that compares their costs per unit of work).
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = clap::value_parser!(u64).range(1..=100),
        conflicts_with_all = ["quick", "p10", "p11", "p11_part", "names"]
    )]
    scale: Vec<u64>,
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = <Args as clap::Parser>::parse();
    args.p11 |= args.p11_part.is_some();
    let quick = args.quick;
    let only: Option<&str> = args.backend.as_deref();
    let scale = if quick { QUICK } else { FULL };
    eprintln!("flotilla-bench {scale:?}");
    if args.serve {
        // For profiling: set up and converge the instance (on SQLite unless `--backend
        // postgres`; N times the fleet with `--scale N`), then keep serving.
        let scale = match args.scale.first() {
            Some(&n) => Scale::times(n as usize),
            None => scale,
        };
        let backend = match only {
            Some("postgres") => Backend::Postgres,
            _ => Backend::Sqlite,
        };
        let server = TestServer::start_with(backend, SERVER_ARGS).await;
        let mut client = server.client().await;
        let clusters = setup(&mut client, scale).await?;
        let _agents = start_agents(&server, &client, &clusters, scale).await;
        let started = Instant::now();
        instantiate(&mut client).await?;
        wait_converged(&mut client, scale).await?;
        println!(
            "converged in {:.2} s; serving {DIG} at {}",
            started.elapsed().as_secs_f64(),
            server.address
        );
        if let Ok(n) = std::env::var("P2LOOP") {
            // With P2ETCD set, each read alternates with etcd's baseline read.
            let etcd = match std::env::var("P2ETCD") {
                Ok(_) => {
                    let etcd = Etcd::start().await?;
                    let context = etcd_load(&etcd, scale).await?;
                    Some((etcd, context))
                }
                Err(_) => None,
            };
            for _ in 0..n.parse::<usize>().unwrap_or(10) {
                if let Some((etcd, context)) = &etcd {
                    let t = Instant::now();
                    let n = etcd_read(etcd, context).await?;
                    println!("etcd {n} in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
                }
                let t = Instant::now();
                let n = read_all(&mut client).await?;
                println!("p2 {n} in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
            }
        }
        if let Ok(n) = std::env::var("P5LOOP") {
            for _ in 0..n.parse::<usize>().unwrap_or(3) {
                let mut round = p5_flotilla(&Target::of(&server), scale).await?;
                let p99 = percentile(&mut round.latencies, 0.99);
                println!(
                    "p5 p99 {p99:.1} ms at {:.0}/s, {} lost",
                    round.rate, round.lost
                );
            }
        }
        tokio::time::sleep(Duration::from_secs(3600)).await;
        return Ok(());
    }

    let backends: Vec<(Backend, &'static str)> =
        [(Backend::Sqlite, "sqlite"), (Backend::Postgres, "postgres")]
            .into_iter()
            .filter(|(_, l)| only.is_none_or(|o| o == *l))
            .collect();
    // `--p9 --scale N`, `--p7 --scale N`, `--p8 --scale N`: that target alone on N
    // times the fleet.
    let alone = args.p9 || args.p7 || args.p8;
    if alone && args.scale.len() > 1 {
        bail!("--p7, --p8 and --p9 take one --scale");
    }
    let scale = match args.scale.first() {
        Some(&n) if alone => Scale::times(n as usize),
        _ => scale,
    };
    if !args.scale.is_empty() && !alone {
        return run_scales(&args.scale, &backends).await;
    }
    let etcd = Etcd::start().await?;
    eprintln!("loading etcd with the AppContext layout");
    let context = if args.p7 || args.p8 || args.p9 || args.p10 || args.p11 || args.names {
        String::new()
    } else {
        let context = etcd_load(&etcd, scale).await?;
        etcd_settle(&etcd).await;
        context
    };

    let mut rows = Vec::new();
    let p8_scale = match (quick, scale.n) {
        (true, _) => p8::QUICK,
        (false, n) => p8::P8Scale::times(n),
    };
    let p7_scale = match (quick, scale.n) {
        (true, _) => p7::QUICK,
        (false, n) => p7::P7Scale::times(n),
    };
    // `--p8`, `--p7`: that target alone.
    let (p7_only, p8_only, p9_only, p10_only) = (args.p7, args.p8, args.p9, args.p10);
    let p10_scale = if quick { p10::QUICK } else { p10::FULL };
    let p11_clusters = if quick { p11::QUICK } else { p11::FULL };
    for (backend, label) in backends {
        // P11 needs PostgreSQL (a replica set refuses SQLite).
        let p11 = backend == Backend::Postgres
            && (args.p11 || !(args.names || p7_only || p8_only || p9_only || p10_only));
        let part = |name: &str| p11 && args.p11_part.as_deref().is_none_or(|p| p == name);
        if part("failover")
            && let Err(error) = p11::run(p11_clusters, &etcd, &mut rows).await
        {
            rows.push(Row::error(label, error));
        }
        let parts = p11::Parts {
            p4p5: part("p4p5"),
            p8: part("p8"),
        };
        if let Err(error) = p11::overhead(scale, p8_scale, parts, &etcd, &mut rows).await {
            rows.push(Row::error(label, error));
        }
        if args.p11 {
            continue;
        }
        if args.names {
            if let Err(error) = names::run(backend, label, &mut rows).await {
                rows.push(Row::error(label, error));
            }
            continue;
        }
        if p10_only || !(p7_only || p8_only || p9_only) {
            if let Err(error) = p10::run(backend, label, p10_scale, &mut rows).await {
                rows.push(Row::error(label, error));
            }
            if p10_only {
                continue;
            }
        }
        if p9_only {
            if let Err(error) = p9::run_alone(backend, label, scale, &mut rows).await {
                rows.push(Row::error(label, error));
            }
            continue;
        }
        if !p8_only
            && !p7_only
            && let Err(error) = run_backend(backend, label, scale, &etcd, &context, &mut rows).await
        {
            rows.push(Row::error(label, error));
        }
        if !p8_only && let Err(error) = p7::run(backend, label, p7_scale, &mut rows).await {
            rows.push(Row::error(label, error));
        }
        if !p7_only
            && let Err(error) = p8::run(backend, label, p8_scale, quick, &etcd, &mut rows).await
        {
            rows.push(Row::error(label, error));
        }
        if !(p7_only || p8_only)
            && let Err(error) = names::run(backend, label, &mut rows).await
        {
            rows.push(Row::error(label, error));
        }
    }
    table::print(
        &format!(
            "flotilla-bench ({}: {})",
            match (quick, scale.n) {
                (true, _) => "quick".to_string(),
                (false, 1) => "full".to_string(),
                (false, n) => format!("--scale {n}"),
            },
            scale.shape()
        ),
        &rows,
    );
    if rows.iter().any(|r| !r.pass && r.gating) {
        // exit() runs no destructors: stop etcd first, or it outlives the bench.
        drop(etcd);
        std::process::exit(1);
    }
    Ok(())
}
