//! Prometheus metrics: one registry for the process, the handles the code updates, and
//! the text exposition the `--metrics-listen` endpoint serves (see `http`).
//!
//! Labels are bounded: services and methods come from the API (an unknown path is
//! counted as `unknown`), clusters only while they exist (their series go with them),
//! tasks, kinds and outcomes from fixed lists. Handles are process-wide statics, as the
//! prometheus crate's own default registry is; updating one is an atomic add.

pub mod grpc;
pub mod http;

use std::sync::LazyLock;

use prometheus::core::Collector;
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Latency buckets (seconds) for RPCs, commits and watch lag: 0.5 ms to 30 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Every metric of the server.
pub struct Metrics {
    pub registry: Registry,
    // gRPC
    pub grpc_handled: IntCounterVec,
    pub grpc_duration: HistogramVec,
    pub grpc_open_streams: IntGaugeVec,
    // Agent sessions
    pub agent_sessions: IntGauge,
    pub agent_sessions_opened: IntCounter,
    pub agent_bundle_resources: IntCounterVec,
    pub cluster_connectivity: IntGaugeVec,
    // Replicas
    pub owned_units: IntGauge,
    pub passed_calls: IntCounterVec,
    // rsync
    pub rsync_workers: IntGauge,
    pub rsync_in_flight: IntGauge,
    pub rsync_operations: IntCounterVec,
    pub rsync_retries: IntCounter,
    pub rsync_backing_off: IntGauge,
    pub rsync_backoff: Histogram,
    // Status events and watches
    pub status_events_appended: IntCounter,
    pub watch_events_delivered: IntCounterVec,
    pub watch_lag: Histogram,
    pub watch_output_bytes: IntGauge,
    pub commit_duration: Histogram,
    // Background tasks
    pub task_runs: IntCounterVec,
    pub task_last_run: IntGaugeVec,
    pub task_last_success: IntGaugeVec,
    pub task_duration: HistogramVec,
    // Database
    pub db_connections: IntGaugeVec,
    pub db_errors: IntCounterVec,
}

fn counter(name: &str, help: &str) -> IntCounter {
    IntCounter::new(name, help).expect("valid metric")
}

fn counters(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric")
}

fn gauge(name: &str, help: &str) -> IntGauge {
    IntGauge::new(name, help).expect("valid metric")
}

fn gauges(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    IntGaugeVec::new(Opts::new(name, help), labels).expect("valid metric")
}

fn histogram(name: &str, help: &str, buckets: &[f64]) -> Histogram {
    Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets.to_vec()))
        .expect("valid metric")
}

fn histograms(name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    HistogramVec::new(
        HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec()),
        labels,
    )
    .expect("valid metric")
}

impl Metrics {
    fn new() -> Metrics {
        let m = Metrics {
            registry: Registry::new_custom(Some("flotilla".into()), None).expect("registry"),
            grpc_handled: counters(
                "grpc_server_handled_total",
                "RPCs completed, by service, method and gRPC status code.",
                &["grpc_service", "grpc_method", "grpc_code"],
            ),
            grpc_duration: histograms(
                "grpc_server_handling_seconds",
                "Time from request to the end of the response (a stream's whole life), by service and method.",
                &["grpc_service", "grpc_method"],
            ),
            grpc_open_streams: gauges(
                "grpc_server_open_streams",
                "Server streams open now, by method (WatchStatus, WatchActions, WatchContainerClusters, agent Connect).",
                &["grpc_method"],
            ),
            agent_sessions: gauge(
                "agent_sessions",
                "Agent sessions open now (remote and embedded sim agents).",
            ),
            agent_sessions_opened: counter("agent_sessions_opened_total", "Agent sessions opened."),
            agent_bundle_resources: counters(
                "agent_bundle_resources_total",
                "Resources received in agents' bundle states, by the state's kind (full: every resource of a deployment, partial: the changed ones).",
                &["state"],
            ),
            cluster_connectivity: gauges(
                "cluster_connectivity",
                "1 while the cluster's agent session is up, 0 while rsync retries it; one series per existing cluster that had a session.",
                &["cluster"],
            ),
            owned_units: gauge(
                "owned_units",
                "In a replica set: the clusters this replica runs now, plus one while it runs the fleet-wide tasks (held under its live lease; sampled every 100 ms). 0 in a single process.",
            ),
            passed_calls: counters(
                "passed_calls_total",
                "In a replica set: action creates passed to the replica that runs their cluster, by outcome (answered: the owner's answer, success or refusal; created_here: the owner did not answer, so this replica committed the create).",
                &["outcome"],
            ),
            rsync_workers: gauge("rsync_workers", "rsync workers running (one per cluster)."),
            rsync_in_flight: gauge(
                "rsync_in_flight_operations",
                "Applies and deletes sent to agents and waiting for their result: rsync's queue at the clusters.",
            ),
            rsync_operations: counters(
                "rsync_operations_total",
                "Applies and deletes rsync finished, by operation and outcome.",
                &["operation", "outcome"],
            ),
            rsync_retries: counter(
                "rsync_retries_total",
                "rsync passes that could not finish (cluster unreachable or an error) and were retried after a backoff.",
            ),
            rsync_backing_off: gauge(
                "rsync_backing_off_workers",
                "rsync workers waiting out a backoff now.",
            ),
            rsync_backoff: histogram(
                "rsync_backoff_seconds",
                "The backoff waits of rsync workers.",
                &[0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0],
            ),
            status_events_appended: counter(
                "status_events_appended_total",
                "Status events committed to the event log (the source of every watch).",
            ),
            watch_events_delivered: counters(
                "watch_events_delivered_total",
                "Events sent to watchers, by watch kind.",
                &["kind"],
            ),
            watch_lag: histogram(
                "watch_lag_seconds",
                "From an event's commit to a live watcher processing it.",
                LATENCY_BUCKETS,
            ),
            watch_output_bytes: gauge(
                "watch_output_bytes",
                "Watch response bytes the server holds until the sockets take them (bounded by the output budget).",
            ),
            commit_duration: histogram(
                "db_commit_seconds",
                "Write transactions: appending their status events and committing.",
                LATENCY_BUCKETS,
            ),
            task_runs: counters(
                "task_runs_total",
                "Background task passes, by task and outcome (ok, error).",
                &["task", "outcome"],
            ),
            task_last_run: gauges(
                "task_last_run_timestamp_seconds",
                "When each background task last ran (Unix time).",
                &["task"],
            ),
            task_last_success: gauges(
                "task_last_success_timestamp_seconds",
                "When each background task last ran without error (Unix time).",
                &["task"],
            ),
            task_duration: histograms(
                "task_duration_seconds",
                "How long background task passes take, by task.",
                &["task"],
            ),
            db_connections: gauges(
                "db_pool_connections",
                "Database pool connections, by pool (read, write) and state (open, idle).",
                &["pool", "state"],
            ),
            db_errors: counters(
                "db_errors_total",
                "Database errors, by kind (unavailable, conflict, invalid_input, internal).",
                &["kind"],
            ),
        };
        let r = &m.registry;
        let register = |c: Box<dyn prometheus::core::Collector>| {
            r.register(c).expect("metric registered once");
        };
        register(Box::new(m.grpc_handled.clone()));
        register(Box::new(m.grpc_duration.clone()));
        register(Box::new(m.grpc_open_streams.clone()));
        register(Box::new(m.agent_sessions.clone()));
        register(Box::new(m.agent_sessions_opened.clone()));
        register(Box::new(m.agent_bundle_resources.clone()));
        register(Box::new(m.cluster_connectivity.clone()));
        register(Box::new(m.owned_units.clone()));
        register(Box::new(m.passed_calls.clone()));
        register(Box::new(m.rsync_workers.clone()));
        register(Box::new(m.rsync_in_flight.clone()));
        register(Box::new(m.rsync_operations.clone()));
        register(Box::new(m.rsync_retries.clone()));
        register(Box::new(m.rsync_backing_off.clone()));
        register(Box::new(m.rsync_backoff.clone()));
        register(Box::new(m.status_events_appended.clone()));
        register(Box::new(m.watch_events_delivered.clone()));
        register(Box::new(m.watch_lag.clone()));
        register(Box::new(m.watch_output_bytes.clone()));
        register(Box::new(m.commit_duration.clone()));
        register(Box::new(m.task_runs.clone()));
        register(Box::new(m.task_last_run.clone()));
        register(Box::new(m.task_last_success.clone()));
        register(Box::new(m.task_duration.clone()));
        register(Box::new(m.db_connections.clone()));
        register(Box::new(m.db_errors.clone()));
        #[cfg(target_os = "linux")]
        register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ));
        m
    }

    /// The Prometheus text exposition (format 0.0.4) of every metric.
    pub fn encode(&self) -> String {
        let mut out = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut out)
            .expect("text encoding into memory");
        String::from_utf8(out).expect("the text format is UTF-8")
    }

    /// A cluster's agent session came up (`true`) or went (`false`). A session going
    /// only updates a series a session created: a late close after the cluster's
    /// deletion does not bring its series back.
    pub fn connectivity(&self, cluster: &str, up: bool) {
        if up {
            self.cluster_connectivity
                .with_label_values(&[cluster])
                .set(1);
        } else if self.has_series(cluster) {
            self.cluster_connectivity
                .with_label_values(&[cluster])
                .set(0);
        }
    }

    fn has_series(&self, cluster: &str) -> bool {
        self.cluster_connectivity
            .collect()
            .iter()
            .flat_map(|family| family.get_metric())
            .any(|m| m.get_label().iter().any(|l| l.value() == cluster))
    }

    /// A cluster was deleted: its series go with it.
    pub fn cluster_gone(&self, cluster: &str) {
        let _ = self.cluster_connectivity.remove_label_values(&[cluster]);
    }
}

/// The server's metrics.
pub static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// Seconds since the Unix epoch, for timestamp gauges.
pub fn unix_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Holds `n` in a gauge until released or dropped.
pub struct GaugeHold {
    gauge: &'static prometheus::IntGauge,
    held: i64,
}

impl GaugeHold {
    pub fn new(gauge: &'static prometheus::IntGauge, n: i64) -> GaugeHold {
        gauge.add(n);
        GaugeHold { gauge, held: n }
    }

    pub fn release(&mut self, n: i64) {
        let n = n.min(self.held);
        self.gauge.sub(n);
        self.held -= n;
    }
}

impl Drop for GaugeHold {
    fn drop(&mut self) {
        self.gauge.sub(self.held);
    }
}
