//! The web console ships inside the server binary: `flotilla-server --demo`, started
//! with nothing on its PATH (no Node, no npm, nothing to build assets with), serves the
//! console page and its script on the console port. The browser suite
//! (`console/test`) tests what the page does; this tests that a checkout's binary
//! needs nothing else to serve it.

use std::time::{Duration, Instant};

use flotilla_tests::{binary, free_port};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A plain HTTP/1.1 GET: status line and headers, and the body.
async fn get(address: &str, path: &str) -> (String, String) {
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    (head.to_ascii_lowercase(), body.to_string())
}

#[tokio::test]
async fn the_binary_serves_the_console_without_node() {
    let data = tempfile::tempdir().expect("data dir");
    let empty = tempfile::tempdir().expect("an empty PATH");
    let console = format!("127.0.0.1:{}", free_port());
    let log_path = data.path().join("server.log");
    let log = std::fs::File::create(&log_path).expect("log");
    let mut child = std::process::Command::new(binary("flotilla-server"))
        .env_clear()
        .env("PATH", empty.path())
        .env("HOME", data.path())
        .env("RUST_LOG", "info")
        .args(["--demo", "--listen", &format!("127.0.0.1:{}", free_port())])
        .args(["--console-listen", &console, "--data-dir"])
        .arg(data.path())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start flotilla-server");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .contains("console listening")
    {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "flotilla-server exited:\n{}",
            std::fs::read_to_string(&log_path).unwrap_or_default()
        );
        assert!(Instant::now() < deadline, "no console after 60 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (head, page) = get(&console, "/").await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(page.contains(r#"<div id="app">"#), "{page}");
    // A console route is the same page (the console routes in the browser).
    let (head, _) = get(&console, "/groups/x").await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let script = page
        .split(r#"src=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the page names its script");
    assert!(script.starts_with("/assets/"), "{script}");
    let (head, body) = get(&console, script).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("javascript"), "{head}");
    assert!(body.len() > 10_000, "the script is the built console");
    let (head, _) = get(&console, "/assets/missing.js").await;
    assert!(head.starts_with("http/1.1 404"), "{head}");

    child.kill().expect("stop");
    child.wait().expect("stopped");
}
