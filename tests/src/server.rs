//! The `flotilla-server` process of a test: started on a fresh database, restarted,
//! signalled, killed when its handle drops.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use flotilla_client::{Client, ConnectOptions, Token};

use crate::in_process::InProcess;
use crate::{Backend, binary, create_postgres_database, drop_postgres_database, free_port, tls};

/// A running `flotilla-server` process.
pub struct TestServer {
    pub address: String,
    pub backend: Backend,
    pub database_url: String,
    pub data_dir: tempfile::TempDir,
    /// Extra flags passed to every (re)start.
    pub args: Vec<String>,
    /// The bootstrap admin token the server wrote to its data directory.
    pub admin_token: Token,
    /// TLS: the certificates the server was started with, if any.
    pub tls: Option<tls::TestPki>,
    /// The server's RUST_LOG (the test's own RUST_LOG, or info).
    pub log_filter: String,
    /// Whether (re)starts run the server in this process (`in_process`) instead of as
    /// a `flotilla-server` child.
    pub in_process_mode: bool,
    /// Whether dropping this server drops its PostgreSQL database (replicas share
    /// their first server's).
    owns_database: bool,
    child: Option<Child>,
    in_process: Option<InProcess>,
}

impl TestServer {
    /// Starts a server on a fresh database of `backend`.
    pub async fn start(backend: Backend) -> TestServer {
        Self::start_with(backend, &[]).await
    }

    /// Starts a server with extra flags (e.g. `--demo`). The sim backends are on
    /// (`--sim`) unless the flags say otherwise.
    pub async fn start_with(backend: Backend, args: &[&str]) -> TestServer {
        Self::start_full(backend, args, None).await
    }

    /// Starts a server serving TLS with certificates from `pki` (mTLS too when
    /// `pki.require_client_certs`).
    pub async fn start_tls(backend: Backend, args: &[&str], pki: tls::TestPki) -> TestServer {
        Self::start_full(backend, args, Some(pki)).await
    }

    async fn start_full(backend: Backend, args: &[&str], pki: Option<tls::TestPki>) -> TestServer {
        let mut server = Self::prepare(backend, args, pki).await;
        server.spawn().await;
        server
    }

    /// Starts a server inside this process (see `in_process`) on a fresh database of
    /// `backend`, with extra flags: for suites that never kill, signal or watch the
    /// process. Clients reach it through in-process pipes; it listens on loopback too.
    pub async fn in_process(backend: Backend, args: &[&str]) -> TestServer {
        let mut server = Self::prepare(backend, args, None).await;
        server.in_process_mode = true;
        server.spawn().await;
        server
    }

    /// A server on a fresh database, not started yet: adjust it, then `spawn` it.
    pub async fn prepare(backend: Backend, args: &[&str], pki: Option<tls::TestPki>) -> TestServer {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let database_url = match backend {
            Backend::Sqlite => format!(
                "sqlite://{}?mode=rwc",
                data_dir.path().join("flotilla.db").display()
            ),
            Backend::Postgres => create_postgres_database().await,
        };
        let mut server = TestServer {
            address: String::new(),
            backend,
            database_url,
            data_dir,
            args: args.iter().map(|a| a.to_string()).collect(),
            admin_token: Token::new(""),
            tls: pki,
            log_filter: std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into()),
            in_process_mode: false,
            owns_database: true,
            child: None,
            in_process: None,
        };
        if !server
            .args
            .iter()
            .any(|a| a == "--sim" || a.starts_with("--sim=") || a == "--demo")
        {
            server.args.push("--sim".into());
        }
        // The demo turns the console on at a fixed port; the suite's many demo servers
        // would race for it, so theirs is off unless a test asks for one.
        if server.args.iter().any(|a| a == "--demo")
            && !server
                .args
                .iter()
                .any(|a| a.starts_with("--console-listen"))
        {
            server
                .args
                .extend(["--console-listen".into(), "off".into()]);
        }
        if let Some(pki) = &server.tls {
            server.args.extend(pki.server_args());
        }
        server
    }

    /// Another replica on this server's database, not started yet: a fresh data
    /// directory holding the same admin token and credentials key (replicas must share
    /// the key that seals container cluster credentials), and `args` instead of this
    /// server's flags. The first server owns the database; dropping a replica leaves it.
    pub async fn replica(&self, args: &[&str]) -> TestServer {
        let mut replica = Self::prepare(Backend::Sqlite, args, self.tls.clone()).await;
        replica.backend = self.backend;
        replica.database_url = self.database_url.clone();
        replica.owns_database = false;
        for file in ["admin.token", "credentials.key"] {
            std::fs::copy(
                self.data_dir.path().join(file),
                replica.data_dir.path().join(file),
            )
            .unwrap_or_else(|e| panic!("the first server wrote {file}: {e}"));
        }
        replica
    }

    /// The password in the database URL, if it has one.
    pub fn database_password(&self) -> Option<&str> {
        let (_, rest) = self.database_url.split_once("://")?;
        let (credentials, _) = rest.split_once('@')?;
        credentials.split_once(':').map(|(_, password)| password)
    }

    /// (Re)starts the process on the same database and data directory, on a new port.
    /// The port was free when picked, but another test's process may bind it before
    /// this server does (tests run in parallel): then the server exits with "Address
    /// already in use" and is started again on another port.
    pub async fn spawn(&mut self) {
        for _ in 0..5 {
            let address = format!("127.0.0.1:{}", free_port());
            if self.spawn_on(address, true).await {
                return;
            }
        }
        panic!(
            "flotilla-server found no free port in 5 tries:\n{}",
            self.log()
        );
    }

    /// Restarts the process on the same address, so connected agents find it again.
    pub async fn respawn(&mut self) {
        let address = self.address.clone();
        self.spawn_on(address, false).await;
    }

    /// Starts the process on `address`; false if it could not listen there and
    /// `new_port_on_conflict` lets the caller try another port.
    async fn spawn_on(&mut self, address: String, new_port_on_conflict: bool) -> bool {
        // A process still running is killed first: a "restart" that left it running
        // would leak it and be answered by the old process.
        if let Some(mut old) = self.child.take() {
            let _ = old.kill();
            let _ = old.wait();
        }
        if let Some(mut old) = self.in_process.take() {
            let _ = old.stop();
        }
        let logged = self.log().len();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.data_dir.path().join("server.log"))
            .expect("log file");
        self.address = address;
        if self.in_process_mode {
            return self.start_in_process(log, new_port_on_conflict).await;
        }
        let child = Command::new(binary("flotilla-server"))
            .args(["--listen", &self.address, "--data-dir"])
            .arg(self.data_dir.path())
            .args(&self.args)
            .env("FLOTILLA_DATABASE_URL", &self.database_url)
            .env("RUST_LOG", &self.log_filter)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start flotilla-server");
        self.child = Some(child);
        self.wait_healthy(logged, new_port_on_conflict).await
    }

    /// Starts the server in this process on `self.address`; false if the port was taken
    /// and `port_conflict_ok`.
    async fn start_in_process(&mut self, log: std::fs::File, port_conflict_ok: bool) -> bool {
        let mut args = vec![
            "--listen".to_string(),
            self.address.clone(),
            "--data-dir".to_string(),
            self.data_dir.path().display().to_string(),
            "--database-url".to_string(),
            self.database_url.clone(),
        ];
        args.extend(self.args.iter().cloned());
        let filter = self.log_filter.clone();
        let started = tokio::task::spawn_blocking(move || InProcess::start(args, log, &filter))
            .await
            .expect("in-process start");
        match started {
            Ok(server) => {
                self.admin_token = Token::from_file(self.data_dir.path().join("admin.token"))
                    .expect("the server wrote its admin token before serving");
                self.in_process = Some(server);
                true
            }
            Err(error) if port_conflict_ok && error.contains("Address already in use") => false,
            Err(error) => panic!(
                "in-process flotilla-server stopped: {error}\n{}",
                self.log()
            ),
        }
    }

    /// Waits until the server answers; false if it exited because its port was taken
    /// (`port_conflict_ok`), a panic on any other exit. `logged`: the log's length
    /// before this start.
    async fn wait_healthy(&mut self, logged: usize, port_conflict_ok: bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(30);
        let token_file = self.data_dir.path().join("admin.token");
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                let log = self.log();
                if port_conflict_ok
                    && log
                        .get(logged..)
                        .is_some_and(|new| new.contains("Address already in use"))
                {
                    self.child = None;
                    return false;
                }
                panic!("flotilla-server exited with {status}:\n{log}");
            }
            // The bootstrap token is written before the server listens.
            if let Ok(token) = Token::from_file(&token_file) {
                self.admin_token = token;
                if let Ok(mut client) = self.options().connect().await
                    && client
                        .lifecycle
                        .list_projects(flotilla_client::v1::ListProjectsRequest::default())
                        .await
                        .is_ok()
                {
                    return true;
                }
            }
            assert!(
                Instant::now() < deadline,
                "server not healthy:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The server process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The server's address with its scheme (`https://localhost:…` with TLS).
    pub fn url(&self) -> String {
        match &self.tls {
            Some(_) => format!("https://localhost:{}", self.port()),
            None => format!("http://{}", self.address),
        }
    }

    pub fn port(&self) -> u16 {
        self.address
            .rsplit_once(':')
            .and_then(|(_, port)| port.parse().ok())
            .expect("address has a port")
    }

    /// Connection options with the admin token (and the test CA and client certificate
    /// under TLS).
    /// A raw channel to the server (no token): for health checks and hand-built calls.
    pub async fn channel(&self) -> tonic::transport::Channel {
        if let Some(server) = &self.in_process {
            return server.local.channel().await.expect("in-process channel");
        }
        self.options()
            .endpoint()
            .expect("endpoint")
            .connect()
            .await
            .expect("connect")
    }

    pub fn options(&self) -> ConnectOptions {
        let mut options = ConnectOptions::new(self.url()).token(Some(self.admin_token.clone()));
        // The files as they are now (a test may have rotated them).
        if let Some(pki) = &self.tls {
            let read =
                |file| std::fs::read(pki.path(file)).unwrap_or_else(|e| panic!("read {file}: {e}"));
            options.ca_certificate = Some(read("ca.pem"));
            if pki.require_client_certs {
                options.identity = Some((read("client.pem"), read("client.key")));
            }
        }
        options
    }

    /// A client with the admin token.
    pub async fn client(&self) -> Client {
        let token = self.admin_token.clone();
        self.client_with(Some(&token)).await
    }

    /// A client presenting `token`.
    pub async fn client_as(&self, token: &str) -> Client {
        self.client_with(Some(&Token::new(token))).await
    }

    /// A client presenting `token` (none: no authorization header), over the
    /// in-process pipes of an in-process server.
    pub async fn client_with(&self, token: Option<&Token>) -> Client {
        if self.in_process.is_some() {
            return Client::with_token(self.channel().await, token).expect("token header");
        }
        self.options()
            .token(token.cloned())
            .connect()
            .await
            .expect("connect")
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.data_dir.path().join("server.log")).unwrap_or_default()
    }

    /// Kills the server with SIGKILL (no shutdown at all).
    pub fn kill9(&mut self) {
        let status = self.stop_with(9);
        assert!(!status.success());
    }

    /// Sends `signal` without waiting (the server keeps running its shutdown).
    pub fn signal(&self, signal: i32) {
        let child = self.child.as_ref().expect("server running");
        // SAFETY: kill(2) on the pid of a child we own.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
    }

    /// Waits for the exit status of a server told to stop.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("server running");
        child.wait().expect("wait for server")
    }

    /// Sends `signal` and waits for the exit status.
    pub fn stop_with(&mut self, signal: i32) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("server running");
        // SAFETY: kill(2) on the pid of a child we own.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        child.wait().expect("wait for server")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(mut server) = self.in_process.take() {
            let _ = server.stop();
        }
        if std::thread::panicking() {
            // The data dir goes with the test: print what the server complained of, so
            // an INTERNAL's error id can be looked up in the failed run's output.
            let log = self.log();
            let complaints: Vec<&str> = log
                .lines()
                .filter(|line| line.contains(" WARN ") || line.contains(" ERROR "))
                .collect();
            let shown = &complaints[complaints.len().saturating_sub(40)..];
            eprintln!(
                "server log: {} warnings/errors, the last {}:\n{}",
                complaints.len(),
                shown.len(),
                shown.join("\n")
            );
        }
        if self.backend == Backend::Postgres && self.owns_database {
            drop_postgres_database(&self.database_url);
        }
    }
}
