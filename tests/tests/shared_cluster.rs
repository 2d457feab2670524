//! One tenant's input must not reach the other tenants of a cluster they share (issue
//! 56, class 1), on SQLite and PostgreSQL, through a real `flotilla-agent` session.
//! Project `q` is the neighbour: its group runs on the shared cluster throughout, and
//! each test checks it unaffected and the agent's session never cut.

use std::time::{Duration, Instant};

use flotilla_client::names;
use flotilla_client::v1::Role;
use flotilla_client::v1::*;
use flotilla_tests::{TestAgent, TestServer, e2e_suite, error_view, eventually, json_struct};
use serde_json::{Value, json};
use tonic::Code;

use crate::common::fleet;
use fleet::{WAIT, clusters, group_in, instantiate, wait_counts, wait_ready};

e2e_suite!(
    args = ["--sim", "false"],
    nesting_has_one_limit_that_every_decoder_accepts,
    a_resource_the_agent_cannot_decode_fails_alone,
    large_and_hostile_manifests_stall_no_one,
    actions_follow_the_tenant_of_their_target,
    one_object_has_one_owner_however_its_namespace_is_spelled,
);

/// The API's limit (`domain::nesting::MAX_NESTING`).
const MAX_NESTING: usize = 32;

/// `depth` objects nested, innermost holding a string.
fn nested(depth: usize) -> Value {
    let mut value = json!("leaf");
    for _ in 0..depth {
        value = json!({ "k": value });
    }
    value
}

/// A document nesting `depth` deep in all (the document itself is one level).
fn document(name: &str, depth: usize) -> Value {
    json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": name},
        "spec": nested(depth - 1),
    })
}

/// The neighbour: project `q`'s group of two ConfigMaps on the shared cluster,
/// converged.
async fn neighbour(client: &mut flotilla_client::Client) -> String {
    let manifests = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q1\ndata:\n  k: v\n---\n\
                     apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q2\ndata:\n  k: v\n";
    let dig = group_in(
        client,
        "q",
        "ca",
        "d",
        &[("settings".into(), manifests.into())],
        &["shared"],
    )
    .await;
    instantiate(client, &dig).await;
    dig
}

/// The agent's session was established `n` times.
fn sessions(agent: &TestAgent) -> usize {
    agent
        .log_text()
        .matches("agent session established")
        .count()
}

async fn nesting_has_one_limit_that_every_decoder_accepts(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["shared"]).await;
    let agent = TestAgent::start(server, &names::cluster("cp", "shared"), &tokens["shared"]);
    let q = neighbour(&mut client).await;
    wait_counts(&client, &q, &[], 2, 2, "the neighbour to converge").await;

    // At the limit: taken, rendered, decoded by the agent and applied, and its status
    // tree decodes in this client.
    let limit = serde_json::to_string(&vec![document("edge", MAX_NESTING)]).unwrap();
    let p = group_in(
        &mut client,
        "p",
        "ca",
        "d",
        &[("edge".into(), limit)],
        &["shared"],
    )
    .await;
    instantiate(&mut client, &p).await;
    eventually(WAIT, "the document at the limit to apply", || {
        let mut client = client.clone();
        let p = p.clone();
        async move {
            let counts = flotilla_tests::rsync_counts(&mut client, &p, "", &[]).await;
            (counts.applied == 1).then_some(())
        }
    })
    .await;
    let tree = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: p.clone(),
            output: StatusOutput::Rsync as i32,
            ..Default::default()
        })
        .await
        .expect("a status tree at the limit decodes")
        .into_inner();
    let spec = &tree.resources[0].clusters[0].resources[0].spec;
    assert_eq!(
        spec.as_ref().map(flotilla_tests::struct_json),
        Some(nested(MAX_NESTING - 1))
    );

    // Past it, in YAML or JSON, however deep: INVALID_ARGUMENT naming the path.
    let ca = names::composite_app("p", "ca", "v1");
    for (depth, yaml) in [
        (MAX_NESTING + 1, false),
        (MAX_NESTING + 1, true),
        (100, false),
    ] {
        let doc = document("deep", depth);
        let manifests = if yaml {
            serde_yaml_ng::to_string(&doc).unwrap()
        } else {
            serde_json::to_string(&vec![doc]).unwrap()
        };
        let error = error_view(
            client
                .lifecycle
                .create_app(CreateAppRequest {
                    parent: ca.clone(),
                    app_id: "deep".into(),
                    app: Some(App {
                        manifests,
                        ..Default::default()
                    }),
                    ..Default::default()
                })
                .await,
        );
        assert_eq!(error.code, Code::InvalidArgument, "{depth}: {error:?}");
        let violation = &error.field_violations[0];
        assert!(
            violation.field.starts_with("app.manifests[0].spec.k.k")
                && violation.description.contains("32 deep"),
            "{depth}: {error:?}"
        );
    }

    // A merge patch past the limit, or with a number JSON cannot hold.
    let profile = |patch: Value| CreateAppProfileRequest {
        parent: names::composite_profile(&ca, "prof"),
        app_profile_id: "edge".into(),
        app_profile: Some(AppProfile {
            app: "edge".into(),
            patches: vec![ManifestPatch {
                merge_patch: Some(json_struct(&patch)),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    // Past the limit a Struct no longer decodes at the server either (the limit is
    // what prost takes in a merge patch): the refusal names the field all the same.
    for depth in [MAX_NESTING + 1, 200] {
        let error = error_view(
            client
                .lifecycle
                .create_app_profile(profile(nested(depth)))
                .await,
        );
        assert_eq!(
            (
                error.code,
                error.reason.as_str(),
                error.field_violations.first().map(|v| v.field.as_str())
            ),
            (
                Code::InvalidArgument,
                "NESTED_TOO_DEEP",
                Some("app_profile.patches.merge_patch")
            ),
            "{depth}: {error:?}"
        );
    }
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut request = profile(json!({"spec": {"replicas": 1}}));
        let patch = request.app_profile.as_mut().unwrap().patches[0]
            .merge_patch
            .as_mut()
            .unwrap();
        let spec = patch.fields.get_mut("spec").unwrap();
        if let Some(prost_types::value::Kind::StructValue(spec)) = &mut spec.kind {
            spec.fields.insert(
                "replicas".into(),
                prost_types::Value {
                    kind: Some(prost_types::value::Kind::NumberValue(bad)),
                },
            );
        }
        let error = error_view(client.lifecycle.create_app_profile(request).await);
        assert_eq!(
            (
                error.code,
                error.field_violations.first().map(|v| v.field.as_str())
            ),
            (
                Code::InvalidArgument,
                Some("app_profile.patches[0].merge_patch.spec.replicas")
            ),
            "{bad}: {error:?}"
        );
    }
    // The limit itself is taken.
    client
        .lifecycle
        .create_app_profile(profile(nested(MAX_NESTING)))
        .await
        .expect("a merge patch at the limit");

    // The neighbour never noticed.
    wait_counts(&client, &q, &[], 2, 2, "the neighbour, unaffected").await;
    assert_eq!(sessions(&agent), 1, "{}", agent.log_text());
}

/// A manifest stored before the API bounded nesting (written into the database here)
/// reaches the agent in a message it cannot decode: that resource fails, with the
/// reason; the session, the rest of the group and the neighbour carry on.
async fn a_resource_the_agent_cannot_decode_fails_alone(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["shared"]).await;
    let q = neighbour(&mut client).await;
    let manifests = serde_json::to_string(&vec![
        document("poison", 3),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fine"}}),
    ])
    .unwrap();
    let p = group_in(
        &mut client,
        "p",
        "ca",
        "d",
        &[("mixed".into(), manifests)],
        &["shared"],
    )
    .await;
    instantiate(&mut client, &p).await;
    // No agent yet: the rendered resources wait. One of them becomes 40 deep, as one
    // an older server took would be.
    let deep = serde_json::to_string(&document("poison", 40)).unwrap();
    let changed = flotilla_tests::sql_execute(
        &server.database_url,
        &format!(
            "UPDATE rsync_resources SET manifest = '{}' WHERE name = 'poison'",
            deep.replace('\'', "''")
        ),
    )
    .await;
    assert_eq!(changed, 1);

    let agent = TestAgent::start(server, &names::cluster("cp", "shared"), &tokens["shared"]);
    wait_counts(&client, &q, &[], 2, 2, "the neighbour to converge").await;
    let failed = eventually(WAIT, "the poisoned resource to fail", || {
        let mut client = client.clone();
        let p = p.clone();
        async move {
            let tree = flotilla_tests::rsync_tree(&mut client, &p, "").await;
            let status = |name: &str| {
                tree.iter()
                    .find(|((_, _, n), _)| n == name)
                    .map(|(_, s)| *s)
            };
            (status("poison") == Some(RsyncStatus::Failed)
                && status("fine") == Some(RsyncStatus::Applied))
            .then_some(tree)
        }
    })
    .await;
    assert_eq!(failed.len(), 2);
    // The agent said why, and never reconnected.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let log = agent.log_text();
    assert!(
        log.contains("a message from the server does not decode"),
        "{log}"
    );
    assert_eq!(sessions(&agent), 1, "{log}");
    wait_counts(&client, &q, &[], 2, 2, "the neighbour, unaffected").await;
}

/// The largest manifests text the API takes (`domain::manifest::MAX_MANIFESTS_BYTES`).
const MAX_MANIFESTS_BYTES: usize = 1024 * 1024;

/// A valid manifest of about `bytes`: one ConfigMap of many keys.
fn large_config_map(name: &str, bytes: usize) -> String {
    let mut text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n");
    let mut i = 0;
    while text.len() + 40 < bytes {
        text.push_str(&format!("  key-{i:07}: value-{i:07}\n"));
        i += 1;
    }
    text
}

/// Parsing costs what the text's size says, whatever its shape, and runs where it
/// stalls no one: the YAML shapes whose cost grew with the square of their nesting
/// (nested `[` and `{`, 1 MiB of them) are refused sooner than a valid manifest of
/// the same size is taken, naming the first level too deep; and while one editor
/// sends several megabytes at once, another tenant's reads keep answering.
async fn large_and_hostile_manifests_stall_no_one(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["shared"]).await;
    let agent = TestAgent::start(server, &names::cluster("cp", "shared"), &tokens["shared"]);
    let q = neighbour(&mut client).await;
    wait_counts(&client, &q, &[], 2, 2, "the neighbour to converge").await;
    let p = group_in(
        &mut client,
        "p",
        "ca",
        "d",
        &[(
            "small".into(),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n".into(),
        )],
        &["shared"],
    )
    .await;
    let ca = names::composite_app("p", "ca", "v1");
    let create = |id: String, manifests: String| {
        let mut client = client.clone();
        let ca = ca.clone();
        async move {
            let started = Instant::now();
            let outcome = client
                .lifecycle
                .create_app(CreateAppRequest {
                    parent: ca,
                    app_id: id,
                    app: Some(App {
                        manifests,
                        ..Default::default()
                    }),
                    ..Default::default()
                })
                .await;
            (outcome, started.elapsed())
        }
    };

    // The baseline: a valid manifest of the largest size, taken.
    let (taken, valid) = create(
        "large".into(),
        large_config_map("large", MAX_MANIFESTS_BYTES),
    )
    .await;
    taken.expect("a valid manifest of the largest size");

    // The shapes past the limit, each as large: refused, faster than the valid one.
    let shapes = [
        (
            "flow-sequences",
            format!("a: {}", "[".repeat(MAX_MANIFESTS_BYTES - 3)),
        ),
        ("flow-mappings", "{".repeat(MAX_MANIFESTS_BYTES)),
        (
            "flow-pairs",
            format!("a: {}", "[a, ".repeat((MAX_MANIFESTS_BYTES - 3) / 4)),
        ),
        (
            "flow-keys",
            format!("a: {}", "{a: ".repeat((MAX_MANIFESTS_BYTES - 3) / 4)),
        ),
        (
            "block-sequences",
            (0..200)
                .map(|i| format!("{}- \n", "  ".repeat(i)))
                .collect::<String>(),
        ),
    ];
    for (shape, manifests) in shapes {
        assert!(manifests.len() <= MAX_MANIFESTS_BYTES);
        let (outcome, took) = create("deep".into(), manifests).await;
        let error = error_view(outcome);
        assert_eq!(error.code, Code::InvalidArgument, "{shape}: {error:?}");
        let violation = &error.field_violations[0];
        assert!(
            violation.field.starts_with("app.manifests[0]")
                && violation.description.contains("32 deep"),
            "{shape}: {error:?}"
        );
        eprintln!("{shape}: refused in {took:?} (valid: {valid:?})");
        assert!(
            took < valid,
            "{shape}: refused in {took:?}, a valid manifest of the same size took {valid:?}"
        );
    }

    // Four large creates at once (two cores' worth each) while the neighbour reads:
    // its reads never wait for a parse to end.
    let storm: Vec<_> = (0..4)
        .map(|i| {
            tokio::spawn(create(
                format!("storm-{i}"),
                large_config_map(&format!("storm-{i}"), MAX_MANIFESTS_BYTES),
            ))
        })
        .collect();
    let mut slowest = Duration::ZERO;
    let mut reads = 0;
    while !storm.iter().all(|t| t.is_finished()) {
        let started = Instant::now();
        client
            .lifecycle
            .get_project(GetProjectRequest {
                name: names::project("q"),
            })
            .await
            .expect("the neighbour reads");
        slowest = slowest.max(started.elapsed());
        reads += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut each = Vec::new();
    for task in storm {
        let (outcome, took) = task.await.unwrap();
        outcome.expect("a large valid create");
        each.push(took);
    }
    each.sort();
    eprintln!("neighbour: {reads} reads, slowest {slowest:?}, during creates of {each:?}");
    assert!(reads >= 3, "{reads} reads during {each:?}");
    assert!(
        slowest < each[0] / 2,
        "the neighbour's slowest read took {slowest:?} during creates of {each:?}"
    );

    // The neighbour and the group already there never noticed.
    wait_counts(&client, &q, &[], 2, 2, "the neighbour, unaffected").await;
    let _ = p;
    assert_eq!(sessions(&agent), 1, "{}", agent.log_text());
}

fn reboot_pod(cluster: &str, namespace: &str, pod: &str) -> CreatePodActionRequest {
    CreatePodActionRequest {
        cluster: cluster.into(),
        namespace: namespace.into(),
        pod: pod.into(),
        action_name: "Reboot".into(),
        params: Some(create_pod_action_request::Params::RebootParams(
            RebootParams::default(),
        )),
        request_id: String::new(),
    }
}

/// The tenancy of actions (README, "Who may act on what"): on a cluster projects `p`
/// and `q` share, a pod belongs to the project whose group deployed it, and a node to
/// every project placed on its cluster. An editor of `p` reboots `p`'s pod, but not
/// `q`'s, not a pod nobody deployed (refused exactly alike, so the refusal tells
/// nothing of `q`), and not a node; nor cancels `q`'s action. An editor of both does
/// all of it, and reading the cluster's actions stays open to both projects.
async fn actions_follow_the_tenant_of_their_target(server: &TestServer) {
    let mut admin = server.client().await;
    let tokens = clusters(&mut admin, &["shared"]).await;
    let cluster = names::cluster("cp", "shared");
    let _agent = TestAgent::start(server, &cluster, &tokens["shared"]);
    let pod = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: c\n    image: example/vm\n"
        )
    };
    for project in ["p", "q"] {
        let dig = group_in(
            &mut admin,
            project,
            "ca",
            "d",
            &[("vm".into(), pod(&format!("{project}-vm")))],
            &["shared"],
        )
        .await;
        instantiate(&mut admin, &dig).await;
        wait_ready(&admin, &dig, 1, "the pod to be ready").await;
    }
    let mut editor_p = server
        .client_as(&flotilla_tests::token_secret(&mut admin, Role::Editor, &["p"]).await)
        .await;
    let mut editor_pq = server
        .client_as(&flotilla_tests::token_secret(&mut admin, Role::Editor, &["p", "q"]).await)
        .await;

    // p's own pod, in either spelling of the default namespace.
    let own = eventually(WAIT, "p's pod to take an action", || {
        let mut editor_p = editor_p.clone();
        let cluster = cluster.clone();
        async move {
            editor_p
                .actions
                .create_pod_action(reboot_pod(&cluster, "default", "p-vm"))
                .await
                .ok()
        }
    })
    .await
    .into_inner();
    let denied = |result: Result<tonic::Response<Action>, tonic::Status>| {
        let error = error_view(result);
        assert_eq!(
            (
                error.code,
                error.metadata.get("permission").map(String::as_str)
            ),
            (Code::PermissionDenied, Some("actions.write")),
            "{error:?}"
        );
        error.message
    };
    let foreign = denied(
        editor_p
            .actions
            .create_pod_action(reboot_pod(&cluster, "", "q-vm"))
            .await,
    );
    let nobodys = denied(
        editor_p
            .actions
            .create_pod_action(reboot_pod(&cluster, "", "no-such-vm"))
            .await,
    );
    assert_eq!(
        foreign.replace("q-vm", "X"),
        nobodys.replace("no-such-vm", "X")
    );
    let node = CreateNodeActionRequest {
        cluster: cluster.clone(),
        node: own.spec.as_ref().expect("a spec").node_name.clone(),
        action_name: "Reboot".into(),
        params: Some(create_node_action_request::Params::RebootParams(
            RebootParams::default(),
        )),
        request_id: String::new(),
    };
    denied(editor_p.actions.create_node_action(node.clone()).await);

    // q's pod by an editor of both; p's editor may not cancel it, but reads it.
    let mut delayed = reboot_pod(&cluster, "", "q-vm");
    delayed.params = Some(create_pod_action_request::Params::RebootParams(
        RebootParams {
            delay_in_seconds: 600,
        },
    ));
    let theirs = editor_pq
        .actions
        .create_pod_action(delayed)
        .await
        .expect("an editor of q acts on q's pod")
        .into_inner();
    denied(
        editor_p
            .actions
            .cancel_action(CancelActionRequest {
                name: theirs.name.clone(),
            })
            .await,
    );
    editor_p
        .actions
        .get_action(GetActionRequest {
            name: theirs.name.clone(),
        })
        .await
        .expect("the cluster's actions are readable to every project placed on it");
    editor_pq
        .actions
        .cancel_action(CancelActionRequest {
            name: theirs.name.clone(),
        })
        .await
        .expect("an editor of q cancels q's action");
    // The node, once p's reboot has finished: an editor of every project placed there.
    eventually(WAIT, "a node action by an editor of both", || {
        let mut editor_pq = editor_pq.clone();
        let node = node.clone();
        async move { editor_pq.actions.create_node_action(node).await.ok() }
    })
    .await;
}

/// `namespace: default` and no namespace name one object (a Kubernetes API server has
/// one): the second project that renders it is refused as its owner, as it would be
/// with the same spelling; the first owner's status reports one spelling.
async fn one_object_has_one_owner_however_its_namespace_is_spelled(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["shared"]).await;
    let _agent = TestAgent::start(server, &names::cluster("cp", "shared"), &tokens["shared"]);
    let config = |namespace: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n{namespace}data:\n  k: v\n"
        )
    };
    let p = group_in(
        &mut client,
        "p",
        "ca",
        "d",
        &[("cm".into(), config("  namespace: default\n"))],
        &["shared"],
    )
    .await;
    instantiate(&mut client, &p).await;
    wait_counts(&client, &p, &[], 1, 1, "p's object to apply").await;
    let tree = flotilla_tests::rsync_tree(&mut client, &p, "").await;
    assert!(
        tree.keys().all(|(_, _, name)| name == "settings"),
        "{tree:?}"
    );
    for (project, namespace) in [("q", ""), ("r", "  namespace: default\n")] {
        let other = group_in(
            &mut client,
            project,
            "ca",
            "d",
            &[("cm".into(), config(namespace))],
            &["shared"],
        )
        .await;
        let refused = error_view(
            client
                .lifecycle
                .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                    name: other.clone(),
                    ..Default::default()
                })
                .await,
        );
        assert_eq!(
            (refused.code, refused.reason.as_str()),
            (Code::FailedPrecondition, "RESOURCE_OWNED"),
            "{project}: {refused:?}"
        );
    }
    let status = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: p.clone(),
            output: StatusOutput::Detail as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let namespaces: Vec<&str> = status
        .resources
        .iter()
        .flat_map(|a| &a.clusters)
        .flat_map(|c| &c.resources)
        .map(|r| r.namespace.as_str())
        .collect();
    assert_eq!(namespaces, [""], "one spelling, one entry: {status:?}");
}
