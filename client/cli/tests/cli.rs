//! The `flotilla` CLI, the built binary against a real server (SQLite): apply and
//! delete of multi-document YAML, every output format, wait (reached, timed out,
//! failing fast), errors and exit codes, the live view on a real terminal (tmux), and
//! the README's CLI quickstart run verbatim.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_tests::readme::{readme_block, run_block};
use flotilla_tests::{Backend, TestServer, eventually, wait_connectivity};

const TOUR: &str = "projects/tour/compositeApps/web/versions/v1/deploymentIntentGroups/prod";

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// The binary under test, built by cargo for this test.
fn cli() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_flotilla"))
}

/// Runs `flotilla args…` against `server`.
fn flotilla(server: &TestServer, args: &[&str]) -> Output {
    Command::new(cli())
        .args(args)
        .env("FLOTILLA_SERVER", &server.address)
        .env("FLOTILLA_TOKEN", server.admin_token.expose())
        .env("NO_COLOR", "1")
        .output()
        .expect("run flotilla")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).to_string()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

/// Runs and expects success; returns stdout.
fn ok(server: &TestServer, args: &[&str]) -> String {
    let output = flotilla(server, args);
    assert!(
        output.status.success(),
        "flotilla {args:?}: {}\n{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

fn apply_demo(server: &TestServer, values: &Path, extra: &[&str]) -> String {
    let demo = examples().join("demo.yaml");
    let mut args = vec![
        "apply",
        "-f",
        demo.to_str().unwrap(),
        "-v",
        values.to_str().unwrap(),
    ];
    args.extend(extra);
    ok(server, &args)
}

fn verbs(lines: &str) -> Vec<&str> {
    lines
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap_or_default())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_twice_configure_and_delete() {
    let server = TestServer::start(Backend::Sqlite).await;
    let values = examples().join("values.yaml");
    let first = apply_demo(&server, &values, &[]);
    assert_eq!(verbs(&first), ["created"; 12], "{first}");
    // Parents first, whatever the file's order.
    assert!(
        first.starts_with("Project projects/tour created\n"),
        "{first}"
    );
    let second = apply_demo(&server, &values, &[]);
    assert_eq!(verbs(&second), ["unchanged"; 12], "{second}");

    // A changed value: only the profile it feeds is configured; a dry run first
    // changes nothing.
    let dir = tempfile::tempdir().unwrap();
    let five = dir.path().join("values.yaml");
    std::fs::write(&five, "replicas: 5\n").unwrap();
    let dry = apply_demo(&server, &five, &["--dry-run"]);
    assert!(
        dry.contains("appProfiles/frontend configured (dry run)"),
        "{dry}"
    );
    let profile = "projects/tour/compositeApps/web/versions/v1/compositeProfiles/default/appProfiles/frontend";
    let before = ok(&server, &["get", "appprofile", profile, "-o", "json"]);
    assert!(before.contains("\"replicas\": 3.0"), "{before}");
    let third = apply_demo(&server, &five, &[]);
    assert_eq!(
        third
            .lines()
            .filter(|l| l.ends_with("configured"))
            .collect::<Vec<_>>(),
        [format!("AppProfile {profile} configured")],
        "{third}"
    );
    let after = ok(&server, &["get", "appprofile", profile, "-o", "json"]);
    assert!(after.contains("\"replicas\": 5.0"), "{after}");

    // Delete: children first, everything gone.
    let demo = examples().join("demo.yaml");
    let deleted = ok(
        &server,
        &[
            "delete",
            "-f",
            demo.to_str().unwrap(),
            "-v",
            five.to_str().unwrap(),
        ],
    );
    assert_eq!(verbs(&deleted), ["deleted"; 12], "{deleted}");
    assert!(deleted.starts_with("PlacementIntent "), "{deleted}");
    let gone = flotilla(&server, &["get", "project", "projects/tour"]);
    assert_eq!(gone.status.code(), Some(3), "{}", stderr(&gone));
}

/// A kind only the proto declares (ClusterKvPair) needs nothing of the CLI: apply
/// orders it after its cluster, get and delete find it by its names and aliases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kind_only_the_proto_declares_applies_gets_and_deletes() {
    let server = TestServer::start(Backend::Sqlite).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kv.yaml");
    let write = |mtu: &str| {
        std::fs::write(
            &file,
            format!(
                "kind: ClusterKvPair
name: clusterProviders/lab/clusters/lab1/kvPairs/net
spec:
  description: network settings
  pairs:
    mtu: \"{mtu}\"
---
kind: Cluster
name: clusterProviders/lab/clusters/lab1
spec:
  connectionMode: CONNECTION_MODE_EMBEDDED_SIM
---
kind: ClusterProvider
name: clusterProviders/lab
"
            ),
        )
        .unwrap();
    };
    write("1450");
    let path = file.to_str().unwrap();
    let first = ok(&server, &["apply", "-f", path]);
    assert_eq!(verbs(&first), ["created"; 3], "{first}");
    assert!(
        first.ends_with("ClusterKvPair clusterProviders/lab/clusters/lab1/kvPairs/net created\n"),
        "{first}"
    );
    assert_eq!(
        verbs(&ok(&server, &["apply", "-f", path])),
        ["unchanged"; 3]
    );
    write("9000");
    let changed = ok(&server, &["apply", "-f", path]);
    assert_eq!(
        changed
            .lines()
            .filter(|l| l.ends_with("configured"))
            .count(),
        1,
        "{changed}"
    );
    let name = "clusterProviders/lab/clusters/lab1/kvPairs/net";
    let listed: serde_json::Value = serde_json::from_str(&ok(
        &server,
        &[
            "get",
            "kv",
            "--parent",
            "clusterProviders/lab/clusters/lab1",
            "-o",
            "json",
        ],
    ))
    .expect("JSON");
    assert_eq!(listed[0]["name"], name, "{listed}");
    assert_eq!(listed[0]["pairs"]["mtu"], "9000", "{listed}");
    let shown = ok(&server, &["get", "clusterkvpair", name, "-o", "yaml"]);
    assert!(shown.contains("description: network settings"), "{shown}");
    let deleted = ok(&server, &["delete", "-f", path]);
    assert_eq!(verbs(&deleted), ["deleted"; 3], "{deleted}");
    assert!(
        deleted.starts_with("ClusterKvPair "),
        "children first: {deleted}"
    );
    let gone = flotilla(&server, &["get", "kvpairs", name]);
    assert_eq!(gone.status.code(), Some(3), "{}", stderr(&gone));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_document_names_file_document_and_field_and_writes_nothing() {
    let server = TestServer::start(Backend::Sqlite).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(
        &file,
        "kind: Project\nname: projects/fine\n---\nkind: App\n\
         name: projects/fine/compositeApps/a/versions/v1/apps/x\nspec:\n  manifest: typo\n",
    )
    .unwrap();
    let output = flotilla(&server, &["apply", "-f", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("bad.yaml document 2: field spec: unrecognized field name 'manifest'"),
        "{message}"
    );
    // The valid first document was not applied either.
    let listed = ok(&server, &["get", "projects", "-o", "name"]);
    assert!(!listed.contains("projects/fine"), "{listed}");

    // Each of these, as the second document after a valid project, is refused naming
    // its file, document and whole field path, and nothing is written: a wrong type
    // deep in a spec, an app manifest without a name, a parent that is nowhere.
    let version = "projects/fine/compositeApps/a/versions/v1";
    for (second, expected) in [
        (
            format!(
                "kind: DeploymentIntentGroup\nname: {version}/deploymentIntentGroups/d\n\
                 spec:\n  overrideValues:\n  - app: x\n    patches:\n    - targetKind: [1]\n"
            ),
            "bad.yaml document 2: field spec.overrideValues[0].patches[0].targetKind: invalid type",
        ),
        (
            format!(
                "kind: App\nname: {version}/apps/x\nspec:\n  manifests: |\n    apiVersion: v1\n    kind: ConfigMap\n    metadata: {{}}\n"
            ),
            "bad.yaml document 2: field spec.manifests[0].metadata.name: a non-empty string is required",
        ),
        (
            "kind: CompositeApp\nname: projects/elsewhere/compositeApps/a/versions/v1\n"
                .to_string(),
            "bad.yaml document 2: field name: its parent Project projects/elsewhere is neither in the files nor on the server",
        ),
    ] {
        std::fs::write(
            &file,
            format!("kind: Project\nname: projects/fine\n---\n{second}"),
        )
        .unwrap();
        for dry_run in [false, true] {
            let mut args = vec!["apply", "-f", file.to_str().unwrap()];
            if dry_run {
                args.push("--dry-run");
            }
            let output = flotilla(&server, &args);
            let message = stderr(&output);
            assert_eq!(output.status.code(), Some(2), "{second}: {message}");
            assert!(message.contains(expected), "{second}: {message}");
        }
        let listed = ok(&server, &["get", "projects", "-o", "name"]);
        assert!(!listed.contains("projects/fine"), "{second}: {listed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_output_format_and_the_exit_codes() {
    let server = TestServer::start_with(Backend::Sqlite, &["--demo"]).await;
    let group = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
    let parent = "projects/demo/compositeApps/shop/versions/v1";
    let table = ok(&server, &["get", "groups", "--parent", parent]);
    assert!(
        table.starts_with("NAME   STATE     AGE\nprod   CREATED   "),
        "{table}"
    );
    let wide = ok(
        &server,
        &["get", "groups", "--parent", parent, "-o", "wide"],
    );
    assert!(wide.lines().next().unwrap().contains("UID"), "{wide}");
    let json: serde_json::Value = serde_json::from_str(&ok(
        &server,
        &["get", "groups", "--parent", parent, "-o", "json"],
    ))
    .expect("JSON");
    assert_eq!(json[0]["state"], "DEPLOYMENT_INTENT_GROUP_STATE_CREATED");
    // A top-level kind's bare id, as kubectl takes it.
    for verb in ["get", "describe"] {
        let shown = ok(&server, &[verb, "project", "demo", "-o", "yaml"]);
        assert!(shown.contains("name: projects/demo\n"), "{verb}: {shown}");
    }
    let yaml = ok(&server, &["get", "group", group, "-o", "yaml"]);
    assert!(yaml.contains(&format!("name: {group}\n")), "{yaml}");
    assert_eq!(
        ok(
            &server,
            &["get", "groups", "--parent", parent, "-o", "name"]
        ),
        format!("{group}\n")
    );
    let clusters = ok(
        &server,
        &["get", "clusters", "--parent", "clusterProviders/edge"],
    );
    assert!(clusters.contains("cluster1   AVAILABLE"), "{clusters}");
    let described = ok(&server, &["describe", "group", group]);
    assert!(described.contains("history:"), "{described}");

    // Verbs, then a refused one: exit 4, with the reason and the precondition.
    assert_eq!(
        ok(&server, &["approve", group]),
        format!("{group}: approved\n")
    );
    assert_eq!(
        ok(&server, &["instantiate", group]),
        format!("{group}: instantiated\n")
    );
    let refused = flotilla(&server, &["instantiate", group]);
    assert_eq!(refused.status.code(), Some(4));
    let message = stderr(&refused);
    assert!(message.contains("INVALID_STATE_TRANSITION"), "{message}");
    assert!(message.contains("state "), "{message}");
    ok(
        &server,
        &["wait", group, "--for", "ready", "--timeout", "30s"],
    );

    // Status: the tree, JSON and YAML; a watch in a pipe prints lines, -o json NDJSON.
    let tree = ok(
        &server,
        &[
            "status",
            group,
            "--cluster",
            "cluster1",
            "--app",
            "collectd",
        ],
    );
    assert!(tree.contains("rsync: pending 0 applied 2"), "{tree}");
    assert!(tree.contains("Deployment   collectd"), "{tree}");
    let status: serde_json::Value = serde_json::from_str(&ok(
        &server,
        &["status", group, "--view", "summary", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(
        status["rsyncStatus"]["applied"], 8,
        "counts are JSON numbers"
    );
    assert!(ok(&server, &["status", group, "-o", "yaml"]).contains("state: INSTANTIATED"));
    let watched = Command::new("timeout")
        .args([
            "2",
            cli().to_str().unwrap(),
            "status",
            group,
            "--watch",
            "-o",
            "json",
        ])
        .env("FLOTILLA_SERVER", &server.address)
        .env("FLOTILLA_TOKEN", server.admin_token.expose())
        .output()
        .unwrap();
    let events: Vec<serde_json::Value> = stdout(&watched)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON event per line"))
        .collect();
    assert_eq!(events[0]["type"], "WATCH_EVENT_TYPE_LIFECYCLE_CHANGED");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "WATCH_EVENT_TYPE_SYNCED")
    );

    // Not found, usage, unavailable.
    let missing = flotilla(&server, &["get", "project", "projects/nope"]);
    assert_eq!(missing.status.code(), Some(3), "{}", stderr(&missing));
    let usage = flotilla(&server, &["get", "widgets"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        stderr(&usage).contains("unknown kind"),
        "{}",
        stderr(&usage)
    );
    let bad_name = flotilla(&server, &["get", "project", "Bad_Name"]);
    assert_eq!(bad_name.status.code(), Some(2), "{}", stderr(&bad_name));
    assert!(
        stderr(&bad_name).contains("field name"),
        "{}",
        stderr(&bad_name)
    );
    let down = Command::new(cli())
        .args(["get", "projects", "--server", "127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(down.status.code(), Some(5), "{}", stderr(&down));
    let completion = ok(&server, &["completion", "bash"]);
    assert!(
        completion.contains("_flotilla()"),
        "a bash completion function"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_times_out_listing_what_is_pending() {
    // Pods that take a minute to turn Ready.
    let server = TestServer::start_with(
        Backend::Sqlite,
        &["--demo", "--sim-pod-ready-millis", "60000"],
    )
    .await;
    let group = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
    ok(&server, &["approve", group]);
    ok(&server, &["instantiate", group]);
    ok(
        &server,
        &["wait", group, "--for", "applied", "--timeout", "30s"],
    );
    let started = std::time::Instant::now();
    let output = flotilla(
        &server,
        &["wait", group, "--for", "ready", "--timeout", "2s"],
    );
    assert_eq!(output.status.code(), Some(6), "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(20));
    let message = stderr(&output);
    assert!(message.contains("timed out"), "{message}");
    assert!(
        message.contains("NotReady"),
        "the pending resources are listed: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_fails_fast_on_failed_resources() {
    let server = TestServer::start_with(Backend::Sqlite, &["--demo"]).await;
    let group = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
    let mut client = server.client().await;
    // The fault goes to the cluster's agent session: wait until it is up.
    let cluster2 = "clusterProviders/edge/clusters/cluster2";
    wait_connectivity(&client, cluster2, Connectivity::Available).await;
    client
        .simulator
        .fail_applies(FailAppliesRequest {
            cluster: cluster2.into(),
            kind_pattern: "ConfigMap".into(),
            name_pattern: "*".into(),
        })
        .await
        .expect("inject a failing apply");
    ok(&server, &["approve", group]);
    ok(&server, &["instantiate", group]);
    let started = std::time::Instant::now();
    let output = flotilla(
        &server,
        &["wait", group, "--for", "ready", "--timeout", "60s"],
    );
    assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(30), "failed fast");
    let message = stderr(&output);
    assert!(
        message.contains("collectd-config") && message.contains("Failed"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_view_reaches_100_percent_on_a_terminal() {
    let server = TestServer::start_with(Backend::Sqlite, &["--demo"]).await;
    let group = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
    ok(&server, &["approve", group]);
    let session = format!("flotilla-live-{}", server.port());
    let command = format!("{} status {group} --watch", cli().display());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(args)
            .env("FLOTILLA_SERVER", &server.address)
            .env("FLOTILLA_TOKEN", server.admin_token.expose())
            .output()
            .expect("tmux is needed for this test")
    };
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "120",
        "-y",
        "30",
        &command,
    ]);
    assert!(started.status.success(), "{}", stderr(&started));
    struct Kill(String);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = Command::new("tmux")
                .args(["kill-session", "-t", &self.0])
                .output();
        }
    }
    let _kill = Kill(session.clone());
    let screen = || stdout(&tmux(&["capture-pane", "-p", "-t", &session]));
    // Before the instantiate: the view is up, nothing applied yet.
    eventually(Duration::from_secs(10), "the live view", || async {
        screen().contains("state APPROVED").then_some(())
    })
    .await;
    ok(&server, &["instantiate", group]);
    let last = eventually(Duration::from_secs(30), "100% on every row", || async {
        let text = screen();
        // The table's rows: app, cluster, connectivity, two progress bars.
        let rows: Vec<&str> = text.lines().filter(|l| l.contains("%")).collect();
        (rows.len() == 4 && rows.iter().all(|r| r.matches("100%").count() == 2)).then_some(text)
    })
    .await;
    assert!(last.contains("state INSTANTIATED"), "{last}");
    assert!(last.contains("APPLIED") && last.contains("READY"), "{last}");
    assert!(last.contains("[##########] 100%"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readme_cli_quickstart_works_as_written() {
    let server = TestServer::start_with(Backend::Sqlite, &["--demo"]).await;
    let script =
        readme_block("## Quickstart with the CLI").replace("localhost:50051", &server.address);
    let text = run_block(&server, &[], &format!("set -e\n{script}"));
    assert_eq!(text.matches(" created\n").count(), 12, "{text}");
    // Applied again: 12 unchanged; with 4 replicas: the profile configured, 11 unchanged.
    assert_eq!(text.matches(" unchanged\n").count(), 23, "{text}");
    assert_eq!(text.matches(" configured\n").count(), 1, "{text}");
    // The rollout sent frontend's Deployment: a 4th pod runs on lab1.
    assert!(text.contains("frontend-3"), "a 4th frontend pod:\n{text}");
    assert!(text.contains(&format!("{TOUR}: ready\n")), "{text}");
    assert!(text.contains("prod   INSTANTIATED"), "{text}");
    assert!(text.contains("6/6 applied, 12/12 ready"), "{text}");
    assert!(
        text.contains("Service   cache   Applied   Present   Ready"),
        "{text}"
    );
    assert!(text.contains(&format!("{TOUR}: terminated\n")), "{text}");
    assert_eq!(text.matches(" deleted\n").count(), 12, "{text}");
    // The group and everything else are gone.
    let mut client = server.client().await;
    let projects = client
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(projects.projects.iter().all(|p| p.name != "projects/tour"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_and_container_clusters_from_the_command_line() {
    let server = TestServer::start_with(Backend::Sqlite, &["--demo"]).await;
    let group = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
    let cluster = "clusterProviders/edge/clusters/cluster1";
    ok(&server, &["approve", group]);
    ok(&server, &["instantiate", group]);
    ok(
        &server,
        &["wait", group, "--for", "ready", "--timeout", "30s"],
    );

    // A reboot of the demo's VM pod: the persisted action, PENDING, on its node.
    let reboot: serde_json::Value = serde_json::from_str(&ok(
        &server,
        &[
            "action",
            "reboot",
            "--cluster",
            cluster,
            "--pod",
            "guest-0",
            // Still open when the second reboot comes.
            "--delay",
            "30",
            "-o",
            "json",
        ],
    ))
    .unwrap();
    assert!(
        reboot["name"].as_str().unwrap().starts_with("actions/"),
        "{reboot}"
    );
    assert_eq!(reboot["status"]["state"], "ACTION_STATE_PENDING");
    assert!(
        reboot["spec"]["nodeName"]
            .as_str()
            .unwrap()
            .starts_with("cluster1-node-")
    );
    let listed = ok(&server, &["get", "actions", "--parent", cluster]);
    assert!(listed.starts_with("NAME"), "{listed}");
    assert!(listed.contains("Reboot"), "{listed}");
    // A second reboot while the first is open is refused (exit 4, naming it).
    let again = flotilla(
        &server,
        &["action", "reboot", "--cluster", cluster, "--pod", "guest-0"],
    );
    assert_eq!(again.status.code(), Some(4), "{}", stderr(&again));
    // Snapshots need a VM pod.
    let not_vm = flotilla(
        &server,
        &[
            "action",
            "snapshot",
            "--cluster",
            cluster,
            "--pod",
            "collectd-0",
            "--location",
            "/tmp/s",
        ],
    );
    assert_eq!(not_vm.status.code(), Some(4), "{}", stderr(&not_vm));

    // A container cluster: created STARTING, RUNNING after, scaled, its kubeconfig;
    // deleting it running is refused, stopped it is deleted.
    let created: serde_json::Value = serde_json::from_str(&ok(
        &server,
        &[
            "cc",
            "create",
            "--display-name",
            "web",
            "--zone",
            "zone-a",
            "--offering",
            "small",
            "--size",
            "2",
            "--account",
            "team-a",
            "-o",
            "json",
        ],
    ))
    .unwrap();
    let name = created["name"].as_str().unwrap().to_string();
    assert_eq!(created["state"], "CONTAINER_CLUSTER_STATE_STARTING");
    let running = |server: &TestServer, name: &str| {
        let got = ok(server, &["get", "cc", name, "-o", "json"]);
        let value: serde_json::Value = serde_json::from_str(&got).unwrap();
        value["state"] == "CONTAINER_CLUSTER_STATE_RUNNING"
    };
    eventually(Duration::from_secs(30), "RUNNING", || async {
        running(&server, &name).then_some(())
    })
    .await;
    let table = ok(&server, &["get", "containerclusters"]);
    assert!(table.contains("RUNNING"), "{table}");
    ok(&server, &["cc", "scale", &name, "--size", "3"]);
    eventually(Duration::from_secs(30), "scaled", || async {
        let got = ok(&server, &["get", "cc", &name, "-o", "json"]);
        let value: serde_json::Value = serde_json::from_str(&got).unwrap();
        (value["size"] == 3 && value["state"] == "CONTAINER_CLUSTER_STATE_RUNNING").then_some(())
    })
    .await;
    let kubeconfig = ok(&server, &["cc", "credentials", &name]);
    assert!(kubeconfig.contains("server:"), "{kubeconfig}");
    let refused = flotilla(&server, &["cc", "delete", &name]);
    assert_eq!(refused.status.code(), Some(4), "{}", stderr(&refused));
    ok(&server, &["cc", "stop", &name]);
    eventually(Duration::from_secs(30), "STOPPED", || async {
        let got = ok(&server, &["get", "cc", &name, "-o", "json"]);
        let value: serde_json::Value = serde_json::from_str(&got).unwrap();
        (value["state"] == "CONTAINER_CLUSTER_STATE_STOPPED").then_some(())
    })
    .await;
    assert_eq!(
        ok(&server, &["cc", "delete", &name]),
        format!("{name} deleting\n")
    );
}

/// A reader that goes away ends the CLI quietly (no "Broken pipe" error, no panic),
/// and the token is never a command-line flag.
#[test]
fn a_closed_pipe_ends_quietly_and_no_token_flag_exists() {
    // The reader is gone before the CLI writes a byte: every write meets a closed pipe.
    let script = format!(
        "{{ sleep 0.3; exec {} --help; }} | true; echo \"status ${{PIPESTATUS[0]}}\"",
        cli().display()
    );
    let output = Command::new("bash").args(["-c", &script]).output().unwrap();
    let (out, err) = (stdout(&output), stderr(&output));
    assert!(
        !err.contains("Broken pipe") && !err.contains("panicked"),
        "{err}"
    );
    // Ended by SIGPIPE, as `cat` would be.
    assert!(out.contains("status 141"), "{out}{err}");
    let output = Command::new(cli())
        .args(["--token", "secret", "get", "projects"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--token"), "{}", stderr(&output));
}

/// A YAML syntax error is reported at once, naming file and document (it used to loop
/// for ever, growing), and nothing is sent to a server.
#[test]
fn a_yaml_syntax_error_is_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Project\nmetadata:\n  name: fine\n---\nkind: [unclosed\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let mut child = Command::new(cli())
        .args(["apply", "-f", file.to_str().unwrap()])
        // Nothing listens there: a parse error must come before any call.
        .env("FLOTILLA_SERVER", "127.0.0.1:9")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("apply of a YAML syntax error did not return in 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.yaml document 2: not YAML"), "{err}");
}
