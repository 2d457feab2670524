//! End-to-end: TLS and mTLS with certificates made at run time. Clients and agents
//! that trust the server's CA connect; a plaintext client, a client trusting another
//! CA and (under mTLS) a client without or with a foreign certificate fail with an
//! error that says why. Certificates rotate (SIGHUP, or the files changing) without
//! dropping an open watch. Plaintext on a non-loopback address needs --insecure. On
//! SQLite and PostgreSQL.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use flotilla_client::v1::*;
use flotilla_client::{ConnectOptions, WatchEvents, names};
use flotilla_tests::tls::{TestCa, TestPki};
use flotilla_tests::{Backend, TestAgent, TestServer, binary, free_port, wait_connectivity};

macro_rules! tls_suite {
    ($($test:ident),+ $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                super::$test(flotilla_tests::Backend::Sqlite).await;
            })+
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                super::$test(flotilla_tests::Backend::Postgres).await;
            })+
        }
    };
}

tls_suite!(
    tls_serves_verified_clients_and_refuses_others_clearly,
    mtls_requires_a_client_certificate_from_its_ca,
    certificates_rotate_without_dropping_a_watch,
);

const ARGS: [&str; 3] = ["--demo", "--sim-pod-ready-millis", "100"];

/// Connects with `options` and makes one call; the error chain on failure.
async fn try_call(options: ConnectOptions) -> Result<(), String> {
    let mut client = options.connect().await.map_err(|e| e.chain())?;
    client
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await
        .map(drop)
        .map_err(|status| format!("{status:?}"))
}

fn trusting(server: &TestServer, ca_pem: &str) -> ConnectOptions {
    let mut options = server.options();
    options.ca_certificate = Some(ca_pem.as_bytes().to_vec());
    options
}

async fn agent_connects(server: &TestServer, id: &str) -> TestAgent {
    let mut admin = server.client().await;
    let token = admin
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: "clusterProviders/edge".into(),
            cluster_id: id.into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::Agent as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .agent_token;
    let cluster = names::cluster("edge", id);
    let agent = TestAgent::start(server, &cluster, &token);
    wait_connectivity(&admin, &cluster, Connectivity::Available).await;
    agent
}

async fn tls_serves_verified_clients_and_refuses_others_clearly(backend: Backend) {
    let server = TestServer::start_tls(backend, &ARGS, TestPki::new(false)).await;
    try_call(server.options())
        .await
        .expect("a client trusting the CA connects");
    // The embedded sim agents (in-process) and a remote agent over TLS both work.
    let mut admin = server.client().await;
    flotilla_tests::demo::approve_and_instantiate(&mut admin).await;
    let _agent = agent_connects(&server, "remote").await;

    // A plaintext client is told to use TLS.
    let plaintext = ConnectOptions::new(format!("http://127.0.0.1:{}", server.port()))
        .token(Some(server.admin_token.clone()));
    let error = try_call(plaintext).await.expect_err("plaintext is refused");
    assert!(
        error.contains("Unavailable") && error.contains("accepts TLS connections only"),
        "{error}"
    );
    // So is grpcurl -plaintext.
    let output = Command::new("grpcurl")
        .args(["-plaintext", &server.address, "list"])
        .output()
        .expect("grpcurl");
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && text.contains("accepts TLS connections only"),
        "{text}"
    );
    // A client trusting another CA does not trust this server, and says so.
    let stranger = TestCa::new("another ca");
    let error = try_call(trusting(&server, &stranger.pem))
        .await
        .expect_err("a server signed by an unknown CA is refused");
    assert!(error.contains("UnknownIssuer"), "{error}");
    // The name must match too.
    let error = try_call(server.options().domain("flotilla.example.com"))
        .await
        .expect_err("a certificate for another name is refused");
    assert!(error.contains("not valid for name"), "{error}");
}

async fn mtls_requires_a_client_certificate_from_its_ca(backend: Backend) {
    let pki = TestPki::new(true);
    let server = TestServer::start_tls(backend, &ARGS, pki.clone()).await;
    try_call(server.options())
        .await
        .expect("a client with a certificate connects");
    let _agent = agent_connects(&server, "remote").await;

    // Without a client certificate: told so, even with a valid token.
    let mut bare = server.options();
    bare.identity = None;
    let error = try_call(bare.clone())
        .await
        .expect_err("no client certificate");
    assert!(
        error.contains("Unauthenticated") && error.contains("requires a client certificate"),
        "{error}"
    );
    // Health stays open, as without mTLS.
    let mut health = tonic_health::pb::health_client::HealthClient::new(
        bare.endpoint().unwrap().connect().await.unwrap(),
    );
    health
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .expect("health is open");
    // With a certificate of another CA: the handshake fails; the server logs why.
    let stranger = TestCa::new("another ca");
    let (cert, key) = stranger.leaf("intruder", &["intruder"], true);
    let mut foreign = server.options();
    foreign.identity = Some((cert.into_bytes(), key.into_bytes()));
    try_call(foreign)
        .await
        .expect_err("a foreign client certificate");
    // The client can see the refusal before the server has written its line.
    let logged = wait_until(Duration::from_secs(5), async || {
        let log = server.log();
        log.contains("TLS handshake failed") && log.contains("UnknownIssuer")
    })
    .await;
    assert!(logged, "{}", server.log());
}

async fn next_event(events: &mut WatchEvents) -> WatchEvent {
    tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("an event within 10 s")
        .expect("the stream stays up")
        .expect("the stream does not end")
}

async fn certificates_rotate_without_dropping_a_watch(backend: Backend) {
    let pki = TestPki::new(false);
    let server = TestServer::start_tls(backend, &ARGS, pki.clone()).await;
    let mut admin = server.client().await;
    let mut events = WatchEvents::new(
        admin
            .status
            .watch_status(WatchStatusRequest {
                name: flotilla_tests::demo::DIG.into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner(),
    );
    while next_event(&mut events).await.r#type() != WatchEventType::Synced {}

    // SIGHUP: a certificate of a new CA is served to new connections at once.
    let second = TestCa::new("second ca");
    pki.install_server_cert(&second);
    let pid = server.pid().expect("running") as i32;
    // SAFETY: kill(2) on our child's pid.
    unsafe { libc::kill(pid, libc::SIGHUP) };
    let reloaded = wait_until(Duration::from_secs(5), async || {
        try_call(trusting(&server, &second.pem)).await.is_ok()
    })
    .await;
    assert!(
        reloaded,
        "the new certificate after SIGHUP:\n{}",
        server.log()
    );
    let error = try_call(trusting(&server, &pki.ca_pem))
        .await
        .expect_err("the old CA no longer verifies the server");
    assert!(error.contains("UnknownIssuer"), "{error}");

    // Without a signal: the files changing is enough.
    let third = TestCa::new("third ca");
    pki.install_server_cert(&third);
    let reloaded = wait_until(Duration::from_secs(10), async || {
        try_call(trusting(&server, &third.pem)).await.is_ok()
    })
    .await;
    assert!(reloaded, "the new certificate after the files changed");

    // The watch opened before both rotations is still up: a change streams live.
    let mut admin2 = trusting(&server, &third.pem).connect().await.unwrap();
    flotilla_tests::demo::approve_and_instantiate(&mut admin2).await;
    let event = next_event(&mut events).await;
    assert_ne!(event.r#type(), WatchEventType::Synced);
    assert!(!event.resume_token.is_empty());
    // A broken pair on disk is refused and the current certificate kept.
    std::fs::write(pki.path("server.pem"), "not a certificate").unwrap();
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGHUP) };
    tokio::time::sleep(Duration::from_millis(500)).await;
    try_call(trusting(&server, &third.pem))
        .await
        .expect("the last good certificate is kept");
    assert!(
        server.log().contains("keeping the previous one"),
        "{}",
        server.log()
    );
}

async fn wait_until(timeout: Duration, mut check: impl AsyncFnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Plaintext on a non-loopback address: refused with the reason, unless --insecure.
#[test]
fn plaintext_beyond_loopback_needs_insecure() {
    let dir = tempfile::tempdir().unwrap();
    let listen = format!("0.0.0.0:{}", free_port());
    let refused = Command::new(binary("flotilla-server"))
        .args(["--listen", &listen, "--data-dir"])
        .arg(dir.path())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{text}");
    assert!(
        text.contains("refusing to serve plaintext on 0.0.0.0"),
        "{text}"
    );
    assert!(text.contains("--insecure"), "{text}");

    // A data directory the server creates: its own, like what it holds.
    let data = dir.path().join("data");
    let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
    let mut accepted = Command::new(binary("flotilla-server"))
        .args(["--listen", &listen, "--insecure", "--data-dir"])
        .arg(&data)
        .stderr(log)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let token_file = data.join("admin.token");
    while !token_file.exists() {
        assert!(accepted.try_wait().unwrap().is_none(), "--insecure starts");
        assert!(Instant::now() < deadline, "no bootstrap token written");
        std::thread::sleep(Duration::from_millis(50));
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the admin token is the owner's only");
    for (path, wanted) in [(data.clone(), 0o700), (data.join("flotilla.db"), 0o600)] {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, wanted, "{}", path.display());
    }
    accepted.kill().unwrap();
    let _ = accepted.wait();
    let text = std::fs::read_to_string(dir.path().join("server.log")).unwrap();
    assert!(
        text.contains("serving plaintext beyond loopback (--insecure)"),
        "{text}"
    );
}
