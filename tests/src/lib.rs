//! Harness of the end-to-end tests: starts the real `flotilla-server` binary on a fresh
//! SQLite file or a fresh PostgreSQL database, waits until it is healthy, and hands out
//! generated clients. Servers are killed when their handle drops.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub mod controlplane;
pub mod etcd;
mod in_process;
pub mod kubeapi;
pub mod proxy;
pub mod readme;
mod server;

pub use server::TestServer;

use flotilla_client::Client;

/// Which database a test server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server tests create their databases on: `FLOTILLA_TEST_POSTGRES_URL`,
/// else the role `scripts/setup.sh` creates on the local cluster.
pub fn postgres_admin_url() -> String {
    std::env::var("FLOTILLA_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        "postgres://flotilla_test:flotilla-test-pw@127.0.0.1:5432/postgres".to_string()
    })
}

/// Creates a fresh PostgreSQL database and returns its URL.
pub async fn create_postgres_database() -> String {
    use sqlx::Connection;
    let admin = postgres_admin_url();
    let db = format!("flotilla_e2e_{}", uuid::Uuid::now_v7().simple());
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {admin} is required for the tests: {e}"));
    sqlx::query(&format!("CREATE DATABASE {db}"))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let (base, _) = admin.rsplit_once('/').expect("url has a database");
    format!("{base}/{db}")
}

/// The path of a workspace binary, built by `cargo test --workspace`.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> (tests) or target/<profile>/<bin> (flotilla-bench)
    // -> target/<profile>/<name>
    let mut dir = exe.parent().expect("target dir");
    if dir.ends_with("deps") {
        dir = dir.parent().expect("target dir");
    }
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build it first (`cargo test --workspace` builds the debug binaries; \
         `cargo build --release -p flotilla-server` the release one flotilla-bench uses)",
        path.display()
    );
    path
}

/// The documents of app number `app` in the benchmarks' fleet: `docs` ConfigMaps
/// (monitored kinds, no pods), named per app so that apps sharing a cluster do not
/// claim each other's objects.
pub fn configmap_manifests(app: usize, docs: usize) -> String {
    (0..docs)
        .map(|d| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a{app}-cm{d}\ndata:\n  key: value-{d}\n"
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// A port on loopback that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Drops a database `create_postgres_database` made, for the guards that own one
/// (from a thread of its own: drop runs inside the test's runtime, which must not
/// block on itself). A failing test keeps its database and prints its URL.
pub fn drop_postgres_database(url: &str) {
    use sqlx::Connection;
    if std::thread::panicking() {
        eprintln!("kept the failed test's database: {url}");
        return;
    }
    let Some((_, name)) = url.rsplit_once('/') else {
        return;
    };
    let name = name.to_string();
    let result = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let mut conn = sqlx::PgConnection::connect(&postgres_admin_url()).await?;
            sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut conn)
                .await?;
            anyhow::Ok(())
        })
    })
    .join();
    if let Ok(Err(error)) = result {
        eprintln!("could not drop test database {url}: {error:#}");
    }
}

/// The decoded error details of a failed call (the client's [`ApiError`]).
pub type ErrorView = flotilla_client::ApiError;

/// Decodes a failed call's status with its details (google.rpc.Status).
/// A new token of `role` for `projects` (no expiry), created by `admin`: its secret.
pub async fn token_secret(
    admin: &mut Client,
    role: flotilla_client::v1::Role,
    projects: &[&str],
) -> String {
    admin
        .access
        .create_token(flotilla_client::v1::CreateTokenRequest {
            token: Some(flotilla_client::v1::Token {
                role: role as i32,
                projects: projects.iter().map(|p| p.to_string()).collect(),
                description: format!("{role:?} of {projects:?}"),
                ..Default::default()
            }),
            ttl: None,
        })
        .await
        .expect("create token")
        .into_inner()
        .secret
}

pub fn error_view<T: std::fmt::Debug>(result: Result<T, tonic::Status>) -> ErrorView {
    ErrorView::from(result.expect_err("the call should have failed"))
}

/// Runs each named async test function against a server on SQLite and on PostgreSQL:
/// a `flotilla-server` process, or with `in_process` first a server in the test's own
/// process (`TestServer::in_process`), for suites that never kill or signal it.
#[macro_export]
macro_rules! e2e_suite {
    // Each test on both backends, with a server `$start(backend, args)` gave it.
    (@both $start:path, $args:expr, $($test:ident),+) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                let args: &[&str] = &$args;
                let server = $start($crate::Backend::Sqlite, args).await;
                super::$test(&server).await;
            })+
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                let args: &[&str] = &$args;
                let server = $start($crate::Backend::Postgres, args).await;
                super::$test(&server).await;
            })+
        }
    };
    (in_process, $($test:ident),+ $(,)?) => {
        $crate::e2e_suite!(@both $crate::TestServer::in_process, [], $($test),+);
    };
    (in_process, args = $args:expr, $($test:ident),+ $(,)?) => {
        $crate::e2e_suite!(@both $crate::TestServer::in_process, $args, $($test),+);
    };
    // Tests that start their own servers (own flags, restarts): each gets the backend.
    (backend => $($test:ident),+ $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                super::$test($crate::Backend::Sqlite).await;
            })+
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                super::$test($crate::Backend::Postgres).await;
            })+
        }
    };
    (args = $args:expr, $($test:ident),+ $(,)?) => {
        $crate::e2e_suite!(@both $crate::TestServer::start_with, $args, $($test),+);
    };
    ($($test:ident),+ $(,)?) => {
        $crate::e2e_suite!(@both $crate::TestServer::start_with, [], $($test),+);
    };
}

/// A running `flotilla-agent` process with the sim backend.
pub struct TestAgent {
    child: Child,
    pub log: PathBuf,
}

impl TestAgent {
    /// Starts an agent for `cluster` against `server` with `token`.
    pub fn start(server: &TestServer, cluster: &str, token: &str) -> TestAgent {
        Self::start_with(server, cluster, token, &[])
    }

    /// Starts an agent with extra flags (e.g. `--execute-actions false`).
    pub fn start_with(server: &TestServer, cluster: &str, token: &str, args: &[&str]) -> TestAgent {
        let log = server
            .data_dir
            .path()
            .join(format!("agent-{}.log", cluster.replace('/', "_")));
        Self::spawn(
            server,
            &server.url(),
            log,
            &["--cluster", cluster],
            token,
            args,
            "info",
        )
    }

    /// Starts one agent process serving every `(cluster, token)` of `fleet`
    /// (`--sim-fleet`), with extra flags; `name` names its fleet file and log.
    pub fn start_fleet(
        server: &TestServer,
        name: &str,
        fleet: &[(String, String)],
        args: &[&str],
    ) -> TestAgent {
        Self::start_fleet_via(server, &server.url(), name, fleet, args)
    }

    /// [`TestAgent::start_fleet`] dialing `url` (a load balancer in front of
    /// `server` and its replicas) instead of `server` itself.
    pub fn start_fleet_via(
        server: &TestServer,
        url: &str,
        name: &str,
        fleet: &[(String, String)],
        args: &[&str],
    ) -> TestAgent {
        Self::fleet(server, url, name, fleet, args, "info")
    }

    /// [`TestAgent::start_fleet_via`] with every apply logged (see
    /// [`TestAgent::applies`]).
    pub fn start_fleet_logging_applies(
        server: &TestServer,
        url: &str,
        name: &str,
        fleet: &[(String, String)],
        args: &[&str],
    ) -> TestAgent {
        Self::fleet(
            server,
            url,
            name,
            fleet,
            args,
            "info,flotilla::applies=debug",
        )
    }

    fn fleet(
        server: &TestServer,
        url: &str,
        name: &str,
        fleet: &[(String, String)],
        args: &[&str],
        log_filter: &str,
    ) -> TestAgent {
        let dir = server.data_dir.path();
        let file = dir.join(format!("fleet-{name}.txt"));
        let lines: String = fleet
            .iter()
            .map(|(cluster, token)| format!("{cluster} {token}\n"))
            .collect();
        std::fs::write(&file, lines).expect("fleet file");
        let log = dir.join(format!("agent-fleet-{name}.log"));
        let file = file.to_str().expect("utf-8 path");
        Self::spawn(
            server,
            url,
            log,
            &["--sim-fleet", file],
            "",
            args,
            log_filter,
        )
    }

    /// Every apply the agent logged (started by
    /// [`TestAgent::start_fleet_logging_applies`]), in the order they completed.
    pub fn applies(&self) -> Vec<AgentApply> {
        self.log_text()
            .lines()
            .filter(|line| line.contains("flotilla::applies"))
            .filter_map(AgentApply::parse)
            .collect()
    }

    fn spawn(
        server: &TestServer,
        url: &str,
        log: PathBuf,
        serves: &[&str],
        token: &str,
        args: &[&str],
        log_filter: &str,
    ) -> TestAgent {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("agent log");
        let mut command = Command::new(binary("flotilla-agent"));
        command
            .args(["--server", url])
            .args(serves)
            .args(["--pod-ready-millis", "100"]);
        if let Some(pki) = &server.tls {
            command.args(pki.agent_args());
        }
        command.args(args);
        if !token.is_empty() {
            command.env("FLOTILLA_AGENT_TOKEN", token);
        }
        let child = command
            .env("RUST_LOG", log_filter)
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start flotilla-agent");
        TestAgent { child, log }
    }

    /// The agent's log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The agent's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` to the agent process (SIGSTOP to make it silent, SIGCONT, ...).
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the pid of a child we own.
        let sent = unsafe { libc::kill(self.child.id() as i32, signal) };
        assert_eq!(sent, 0, "kill({signal}) of the agent");
    }

    /// Waits up to `timeout` for the agent to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// One apply an agent made, from its log: which replica's session asked for it and
/// whether it wrote the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentApply {
    pub cluster: String,
    pub replica: String,
    pub deployment_id: String,
    /// `Kind/namespace/name`.
    pub resource: String,
    /// `written`, `unchanged` or `accepted`.
    pub outcome: String,
}

impl AgentApply {
    fn parse(line: &str) -> Option<AgentApply> {
        let field = |key: &str| -> Option<String> {
            let start = line.find(&format!(" {key}="))? + key.len() + 2;
            let rest = &line[start..];
            let value = rest.split(' ').next().unwrap_or_default();
            Some(value.trim_matches('"').to_owned())
        };
        Some(AgentApply {
            cluster: field("cluster")?,
            replica: field("replica")?,
            deployment_id: field("deployment_id")?,
            resource: field("resource")?,
            outcome: field("outcome")?,
        })
    }

    /// Whether it wrote the object.
    pub fn written(&self) -> bool {
        self.outcome == "written"
    }
}

impl Drop for TestAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = self.log_text();
            let lines: Vec<&str> = log.lines().collect();
            eprintln!(
                "agent log {}, the last 30 lines:\n{}",
                self.log.display(),
                lines[lines.len().saturating_sub(30)..].join("\n")
            );
        }
    }
}

/// Polls `check` until it returns Some or `timeout` passes (then panics with `what`).
pub async fn eventually<T, F, Fut>(timeout: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Cluster provider `provider` with embedded sim cluster `cluster`; returns the
/// cluster's name.
pub async fn sim_cluster(client: &Client, provider: &str, cluster: &str) -> String {
    use flotilla_client::names;
    use flotilla_client::v1::*;
    let mut lifecycle = client.lifecycle.clone();
    lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: provider.into(),
            ..Default::default()
        })
        .await
        .expect("create the cluster provider");
    lifecycle
        .create_cluster(CreateClusterRequest {
            parent: names::cluster_provider(provider),
            cluster_id: cluster.into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::EmbeddedSim as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("create the cluster");
    names::cluster(provider, cluster)
}

/// Cuts the agent session of sim cluster `cluster` (SimulatorService).
pub async fn disconnect(client: &Client, cluster: &str) {
    let request = flotilla_client::v1::DisconnectClusterRequest {
        cluster: cluster.to_string(),
    };
    let mut simulator = client.simulator.clone();
    simulator
        .disconnect_cluster(request)
        .await
        .expect("disconnect");
}

/// Lets the agent of sim cluster `cluster` connect again (SimulatorService).
pub async fn reconnect(client: &Client, cluster: &str) {
    let request = flotilla_client::v1::ReconnectClusterRequest {
        cluster: cluster.to_string(),
    };
    let mut simulator = client.simulator.clone();
    simulator
        .reconnect_cluster(request)
        .await
        .expect("reconnect");
}

/// Waits until `cluster` reports `connectivity`.
pub async fn wait_connectivity(
    client: &Client,
    cluster: &str,
    connectivity: flotilla_client::v1::Connectivity,
) {
    eventually(
        Duration::from_secs(60),
        &format!("{cluster} to be {connectivity:?}"),
        || {
            let mut client = client.clone();
            let name = cluster.to_string();
            async move {
                let c = client
                    .lifecycle
                    .get_cluster(flotilla_client::v1::GetClusterRequest { name })
                    .await
                    .ok()?
                    .into_inner();
                (c.connectivity == connectivity as i32).then_some(())
            }
        },
    )
    .await;
}

/// Waits up to two minutes until the action `name` finished (`status.complete`);
/// returns it.
pub async fn wait_action(client: &Client, name: &str) -> flotilla_client::v1::Action {
    eventually(
        Duration::from_secs(120),
        &format!("{name} to finish"),
        || {
            let mut client = client.clone();
            let name = name.to_string();
            async move {
                let action = client
                    .actions
                    .get_action(flotilla_client::v1::GetActionRequest { name })
                    .await
                    .ok()?
                    .into_inner();
                action
                    .status
                    .as_ref()
                    .is_some_and(|s| s.complete)
                    .then_some(action)
            }
        },
    )
    .await
}

pub mod tls;

/// The instances of `owner` (an intent group or a cluster), newest first (the first
/// page of 100).
pub async fn instances(client: &mut Client, owner: &str) -> Vec<flotilla_client::v1::Instance> {
    client
        .status
        .list_instances(flotilla_client::v1::ListInstancesRequest {
            name: owner.into(),
            page_size: 100,
            ..Default::default()
        })
        .await
        .expect("ListInstances")
        .into_inner()
        .instances
}

/// The rsync counts of `instance` of group `dig` (its current one when empty) on
/// `clusters` (every one when empty), from a summary status query.
pub async fn rsync_counts(
    client: &mut Client,
    dig: &str,
    instance: &str,
    clusters: &[&str],
) -> flotilla_client::v1::RsyncStatusCounts {
    client
        .status
        .get_deployment_intent_group_status(
            flotilla_client::v1::GetDeploymentIntentGroupStatusRequest {
                name: dig.into(),
                instance: instance.into(),
                clusters: clusters.iter().map(|c| c.to_string()).collect(),
                output: flotilla_client::v1::StatusOutput::Summary as i32,
                ..Default::default()
            },
        )
        .await
        .expect("status query")
        .into_inner()
        .rsync_status
        .unwrap_or_default()
}

/// The rendered resources of an instance of `dig` (the current one for "") with their
/// rsync status as the RSYNC tree shows it: (app, cluster, name) -> status, read three
/// resources a page.
pub async fn rsync_tree(
    client: &mut Client,
    dig: &str,
    instance: &str,
) -> std::collections::BTreeMap<(String, String, String), flotilla_client::v1::RsyncStatus> {
    let mut tree = std::collections::BTreeMap::new();
    let mut page_token = String::new();
    loop {
        let page = client
            .status
            .get_deployment_intent_group_status(
                flotilla_client::v1::GetDeploymentIntentGroupStatusRequest {
                    name: dig.into(),
                    instance: instance.into(),
                    output: flotilla_client::v1::StatusOutput::Rsync as i32,
                    page_size: 3,
                    page_token: page_token.clone(),
                    ..Default::default()
                },
            )
            .await
            .expect("status query")
            .into_inner();
        for app in &page.resources {
            for cluster in &app.clusters {
                for r in &cluster.resources {
                    tree.insert(
                        (app.app_name.clone(), cluster.name.clone(), r.name.clone()),
                        r.rsync_status(),
                    );
                }
            }
        }
        if page.next_page_token.is_empty() {
            return tree;
        }
        page_token = page.next_page_token;
    }
}

pub mod metrics;

pub mod demo;

/// A protobuf Struct (DETAIL status bodies) as JSON.
pub fn struct_json(value: &prost_types::Struct) -> serde_json::Value {
    serde_json::Value::Object(
        value
            .fields
            .iter()
            .map(|(k, v)| (k.clone(), value_json(v)))
            .collect(),
    )
}

fn value_json(value: &prost_types::Value) -> serde_json::Value {
    use prost_types::value::Kind;
    match &value.kind {
        None | Some(Kind::NullValue(_)) => serde_json::Value::Null,
        Some(Kind::NumberValue(n)) => serde_json::json!(n),
        Some(Kind::StringValue(s)) => serde_json::json!(s),
        Some(Kind::BoolValue(b)) => serde_json::json!(b),
        Some(Kind::StructValue(s)) => struct_json(s),
        Some(Kind::ListValue(l)) => l.values.iter().map(value_json).collect(),
    }
}

/// A JSON object as a protobuf Struct (merge patches).
pub fn json_struct(value: &serde_json::Value) -> prost_types::Struct {
    prost_types::Struct {
        fields: value
            .as_object()
            .expect("a JSON object")
            .iter()
            .map(|(k, v)| (k.clone(), json_value(v)))
            .collect(),
    }
}

fn json_value(value: &serde_json::Value) -> prost_types::Value {
    use prost_types::value::Kind;
    use serde_json::Value;
    let kind = match value {
        Value::Null => Kind::NullValue(0),
        Value::Bool(b) => Kind::BoolValue(*b),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or_default()),
        Value::String(s) => Kind::StringValue(s.clone()),
        Value::Array(items) => Kind::ListValue(prost_types::ListValue {
            values: items.iter().map(json_value).collect(),
        }),
        Value::Object(_) => Kind::StructValue(json_struct(value)),
    };
    prost_types::Value { kind: Some(kind) }
}

/// `SELECT COUNT(*) …` on the server's database, by a connection of the test's own.
pub async fn sql_count(database_url: &str, sql: &str) -> i64 {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(database_url)
        .await
        .expect("connect to the test database");
    let row: (i64,) = sqlx::query_as(sql)
        .fetch_one(&mut conn)
        .await
        .expect("count query");
    row.0
}

/// Runs a statement against a test database (to corrupt or change rows behind the
/// server's back); returns the rows it affected.
pub async fn sql_execute(database_url: &str, sql: &str) -> u64 {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(database_url)
        .await
        .expect("connect to the test database");
    sqlx::query(sql)
        .execute(&mut conn)
        .await
        .expect("statement")
        .rows_affected()
}

/// Project `p` with composite app `ca` version `v1`; returns the version's name.
pub async fn project_and_version(client: &mut Client) -> String {
    use flotilla_client::names;
    use flotilla_client::v1::{CreateCompositeAppRequest, CreateProjectRequest};
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: "p".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    client
        .lifecycle
        .create_composite_app(CreateCompositeAppRequest {
            parent: names::project("p"),
            composite_app_id: "ca".into(),
            version_id: "v1".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    names::composite_app("p", "ca", "v1")
}

/// A process's resident memory (VmRSS) in KiB, from /proc.
pub fn rss_kib(pid: u32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}
