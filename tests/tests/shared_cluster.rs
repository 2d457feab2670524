//! One tenant's input must not reach the other tenants of a cluster they share (issue
//! 56, class 1), on SQLite and PostgreSQL, through a real `flotilla-agent` session.
//! Project `q` is the neighbour: its group runs on the shared cluster throughout, and
//! each test checks it unaffected and the agent's session never cut.

use std::time::Duration;

use flotilla_client::names;
use flotilla_client::v1::*;
use flotilla_tests::{TestAgent, TestServer, e2e_suite, error_view, eventually, json_struct};
use serde_json::{Value, json};
use tonic::Code;

#[path = "common/fleet.rs"]
mod fleet;
use fleet::{WAIT, clusters, group_in, instantiate, wait_counts};

e2e_suite!(
    args = ["--sim", "false"],
    nesting_has_one_limit_that_every_decoder_accepts,
    a_resource_the_agent_cannot_decode_fails_alone,
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
