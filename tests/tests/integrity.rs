//! Referential integrity under concurrency (issue 21, point 1): a create of a child or
//! of a reference races the delete of its parent or referent, 50 rounds each, through
//! real gRPC on SQLite and PostgreSQL. Exactly one of each pair wins, and afterwards
//! neither SQL nor the API shows an orphan or a dangling reference.

use std::future::Future;
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{TestServer, e2e_suite, error_view, eventually, sql_count, wait_connectivity};
use tonic::Code;

e2e_suite!(
    child_creates_race_parent_deletes,
    reference_creates_race_referent_deletes,
    actions_race_and_go_with_their_cluster,
);

const ROUNDS: usize = 50;

/// Which of a racing create and delete won, checked: exactly one succeeded, and the
/// loser failed the way its side should (the create NOT_FOUND, the delete
/// FAILED_PRECONDITION because the child or user exists).
#[derive(Debug, Default)]
struct Tally {
    create_won: usize,
    delete_won: usize,
}

impl Tally {
    fn record<A: std::fmt::Debug, B: std::fmt::Debug>(
        &mut self,
        what: &str,
        round: usize,
        create: Result<A, tonic::Status>,
        delete: Result<B, tonic::Status>,
    ) -> bool {
        match (create.is_ok(), delete.is_ok()) {
            (true, false) => {
                let refusal = error_view(delete);
                assert_eq!(
                    refusal.code,
                    Code::FailedPrecondition,
                    "{what} round {round}: the losing delete: {refusal:?}"
                );
                self.create_won += 1;
                true
            }
            (false, true) => {
                let refusal = error_view(create);
                assert_eq!(
                    refusal.code,
                    Code::NotFound,
                    "{what} round {round}: the losing create: {refusal:?}"
                );
                self.delete_won += 1;
                false
            }
            (true, true) => panic!("{what} round {round}: both the create and the delete won"),
            (false, false) => panic!(
                "{what} round {round}: neither won: create {:?}, delete {:?}",
                create.err(),
                delete.err()
            ),
        }
    }
}

/// Runs `create` and `delete` at the same moment on two connections.
async fn race<A, B>(
    create: impl Future<Output = Result<A, tonic::Status>>,
    delete: impl Future<Output = Result<B, tonic::Status>>,
) -> (Result<A, tonic::Status>, Result<B, tonic::Status>) {
    let barrier = tokio::sync::Barrier::new(2);
    tokio::join!(
        async {
            barrier.wait().await;
            create.await
        },
        async {
            barrier.wait().await;
            delete.await
        }
    )
}

async fn orphans(server: &TestServer, child: &str, parent: &str) -> i64 {
    sql_count(
        &server.database_url,
        &format!(
            "SELECT COUNT(*) FROM {child} c WHERE NOT EXISTS \
             (SELECT 1 FROM {parent} p WHERE p.name = c.parent)"
        ),
    )
    .await
}

async fn child_creates_race_parent_deletes(server: &TestServer) {
    let mut a = server.client().await;
    let mut b = server.client().await;

    // Composite apps vs their project.
    let mut tally = Tally::default();
    for round in 0..ROUNDS {
        let project = format!("p{round}");
        a.lifecycle
            .create_project(CreateProjectRequest {
                project_id: project.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        let (create, delete) = race(
            a.lifecycle.create_composite_app(CreateCompositeAppRequest {
                parent: names::project(&project),
                composite_app_id: "ca".into(),
                version_id: "v1".into(),
                ..Default::default()
            }),
            b.lifecycle.delete_project(DeleteProjectRequest {
                name: names::project(&project),
                ..Default::default()
            }),
        )
        .await;
        let created = tally.record("composite app vs project", round, create, delete);
        let parent = a
            .lifecycle
            .get_project(GetProjectRequest {
                name: names::project(&project),
            })
            .await;
        assert_eq!(parent.is_ok(), created, "round {round}: {parent:?}");
    }
    eprintln!("composite app vs project: {tally:?}");
    assert_eq!(orphans(server, "composite_apps", "projects").await, 0);

    // Apps vs their composite app.
    project(&mut a, "apps").await;
    let mut tally = Tally::default();
    for round in 0..ROUNDS {
        let ca = composite_app(&mut a, "apps", &format!("ca{round}")).await;
        let (create, delete) = race(
            a.lifecycle.create_app(CreateAppRequest {
                parent: ca.clone(),
                app_id: "web".into(),
                app: Some(App {
                    manifests: MANIFEST.into(),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            b.lifecycle.delete_composite_app(DeleteCompositeAppRequest {
                name: ca.clone(),
                ..Default::default()
            }),
        )
        .await;
        let created = tally.record("app vs composite app", round, create, delete);
        let apps = a
            .lifecycle
            .list_apps(ListAppsRequest {
                parent: ca.clone(),
                ..Default::default()
            })
            .await;
        match created {
            true => assert_eq!(apps.unwrap().into_inner().apps.len(), 1),
            false => assert_eq!(error_view(apps).code, Code::NotFound),
        }
    }
    eprintln!("app vs composite app: {tally:?}");
    assert_eq!(orphans(server, "apps", "composite_apps").await, 0);

    // Clusters vs their provider (and so no agent token of a cluster without one).
    let mut tally = Tally::default();
    for round in 0..ROUNDS {
        let provider = format!("cp{round}");
        a.lifecycle
            .create_cluster_provider(CreateClusterProviderRequest {
                cluster_provider_id: provider.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        let (create, delete) = race(
            a.lifecycle.create_cluster(CreateClusterRequest {
                parent: names::cluster_provider(&provider),
                cluster_id: "edge".into(),
                cluster: Some(Cluster {
                    connection_mode: ConnectionMode::Agent as i32,
                    ..Default::default()
                }),
                ..Default::default()
            }),
            b.lifecycle
                .delete_cluster_provider(DeleteClusterProviderRequest {
                    name: names::cluster_provider(&provider),
                    ..Default::default()
                }),
        )
        .await;
        tally.record("cluster vs provider", round, create, delete);
    }
    eprintln!("cluster vs provider: {tally:?}");
    assert_eq!(orphans(server, "clusters", "cluster_providers").await, 0);
    let stray_tokens = sql_count(
        &server.database_url,
        "SELECT COUNT(*) FROM tokens t WHERE t.role = 'agent' AND t.revoke_time IS NULL \
         AND NOT EXISTS (SELECT 1 FROM clusters c WHERE c.name = t.cluster)",
    )
    .await;
    assert_eq!(
        stray_tokens, 0,
        "live agent tokens of clusters that do not exist"
    );
}

async fn reference_creates_race_referent_deletes(server: &TestServer) {
    let mut a = server.client().await;
    let mut b = server.client().await;
    project(&mut a, "refs").await;
    let ca = composite_app(&mut a, "refs", "shop").await;
    a.lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "cp".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    a.lifecycle
        .create_composite_profile(CreateCompositeProfileRequest {
            parent: ca.clone(),
            composite_profile_id: "base".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let dig = names::deployment_intent_group(&ca, "d");
    a.lifecycle
        .create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
            parent: ca.clone(),
            deployment_intent_group_id: "d".into(),
            deployment_intent_group: Some(DeploymentIntentGroup {
                composite_profile: "base".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();

    // A placement intent naming an app vs the app's delete.
    let mut tally = Tally::default();
    for round in 0..ROUNDS {
        let app = format!("app{round}");
        a.lifecycle
            .create_app(CreateAppRequest {
                parent: ca.clone(),
                app_id: app.clone(),
                app: Some(App {
                    manifests: MANIFEST.into(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .unwrap();
        let (create, delete) = race(
            a.lifecycle
                .create_placement_intent(CreatePlacementIntentRequest {
                    parent: dig.clone(),
                    placement_intent_id: format!("{app}-placement"),
                    placement_intent: Some(PlacementIntent {
                        app: app.clone(),
                        cluster_provider: "cp".into(),
                        cluster_names: vec!["edge".into()],
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
            b.lifecycle.delete_app(DeleteAppRequest {
                name: names::app(&ca, &app),
                ..Default::default()
            }),
        )
        .await;
        let created = tally.record("placement intent vs app", round, create, delete);
        let intent = a
            .lifecycle
            .get_placement_intent(GetPlacementIntentRequest {
                name: names::placement_intent(&dig, &format!("{app}-placement")),
            })
            .await;
        assert_eq!(intent.is_ok(), created, "round {round}: {intent:?}");
    }
    eprintln!("placement intent vs app: {tally:?}");
    // The placement's parent is the group, the group's parent the composite app version.
    let app_of = match server.backend {
        flotilla_tests::Backend::Postgres => "(p.body::json ->> 'app')",
        flotilla_tests::Backend::Sqlite => "json_extract(p.body, '$.app')",
    };
    let dangling = sql_count(
        &server.database_url,
        &format!(
            "SELECT COUNT(*) FROM placement_intents p \
             JOIN deployment_intent_groups d ON d.name = p.parent \
             WHERE NOT EXISTS (SELECT 1 FROM apps a WHERE a.name = d.parent || '/apps/' || {app_of})"
        ),
    )
    .await;
    assert_eq!(dangling, 0, "placement intents naming a deleted app");
    let intents = a
        .lifecycle
        .list_placement_intents(ListPlacementIntentsRequest {
            parent: dig.clone(),
            page_size: 1000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .placement_intents;
    for intent in &intents {
        let app = a
            .lifecycle
            .get_app(GetAppRequest {
                name: names::app(&ca, &intent.app),
            })
            .await;
        assert!(app.is_ok(), "{} names a deleted app: {app:?}", intent.name);
    }
    assert_eq!(intents.len(), tally.create_won);

    // A group using a composite profile vs the profile's delete.
    let mut tally = Tally::default();
    for round in 0..ROUNDS {
        let profile = format!("prof{round}");
        a.lifecycle
            .create_composite_profile(CreateCompositeProfileRequest {
                parent: ca.clone(),
                composite_profile_id: profile.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        let (create, delete) = race(
            a.lifecycle
                .create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
                    parent: ca.clone(),
                    deployment_intent_group_id: format!("d{round}"),
                    deployment_intent_group: Some(DeploymentIntentGroup {
                        composite_profile: profile.clone(),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
            b.lifecycle
                .delete_composite_profile(DeleteCompositeProfileRequest {
                    name: names::composite_profile(&ca, &profile),
                    ..Default::default()
                }),
        )
        .await;
        tally.record("group vs composite profile", round, create, delete);
    }
    eprintln!("group vs composite profile: {tally:?}");
    let dangling = sql_count(
        &server.database_url,
        "SELECT COUNT(*) FROM deployment_intent_groups d WHERE NOT EXISTS \
         (SELECT 1 FROM composite_profiles p \
          WHERE p.name = d.parent || '/compositeProfiles/' || d.composite_profile)",
    )
    .await;
    assert_eq!(dangling, 0, "groups naming a deleted composite profile");
}

const MANIFEST: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";

/// An embedded sim cluster `id` of provider `actions`, its agent connected.
async fn sim_cluster(client: &mut Client, id: &str) -> String {
    client
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: names::cluster_provider("actions"),
            cluster_id: id.into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::EmbeddedSim as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let cluster = names::cluster("actions", id);
    wait_connectivity(client, &cluster, Connectivity::Available).await;
    cluster
}

fn node_reboot(cluster: &str, node: &str, delay_in_seconds: i32) -> CreateNodeActionRequest {
    CreateNodeActionRequest {
        cluster: cluster.into(),
        node: node.into(),
        action_name: "Reboot".into(),
        params: Some(create_node_action_request::Params::RebootParams(
            RebootParams { delay_in_seconds },
        )),
        request_id: String::new(),
    }
}

async fn delete_cluster(client: &mut Client, cluster: &str) -> Result<(), tonic::Status> {
    client
        .lifecycle
        .delete_cluster(DeleteClusterRequest {
            name: cluster.into(),
            ..Default::default()
        })
        .await
        .map(|_| ())
}

async fn actions_of(client: &mut Client, cluster: &str) -> Vec<Action> {
    client
        .actions
        .list_actions(ListActionsRequest {
            cluster: cluster.into(),
            page_size: 1000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .actions
}

/// Actions name their cluster: a create racing the cluster's delete leaves either the
/// action (and the cluster, whose delete is refused while the action is open) or
/// neither, never an action of a cluster that is gone; a cluster's finished actions go
/// with it, so a new cluster of the same name starts with none.
async fn actions_race_and_go_with_their_cluster(server: &TestServer) {
    let mut a = server.client().await;
    let mut b = server.client().await;
    a.lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "actions".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    // The reboots wait 5 s, so an action that won is still open when the delete looks.
    let mut tally = Tally::default();
    for round in 0..ROUNDS {
        let id = format!("r{round}");
        let cluster = sim_cluster(&mut a, &id).await;
        // The delete starts a little later each round (0 to 2.45 ms), so that some
        // land after the create has resolved its node and before it commits: the
        // window in which a check outside the create's transaction lets both win.
        let lag = Duration::from_micros(50 * (round as u64 % 50));
        let (create, delete) = race(
            a.actions
                .create_node_action(node_reboot(&cluster, &format!("{id}-node-0"), 5)),
            async {
                tokio::time::sleep(lag).await;
                delete_cluster(&mut b, &cluster).await
            },
        )
        .await;
        let created = tally.record("node action vs cluster", round, create, delete);
        let remaining = actions_of(&mut a, &cluster).await;
        assert_eq!(remaining.len(), usize::from(created), "round {round}");
    }
    eprintln!("node action vs cluster: {tally:?}");
    let dangling = "SELECT COUNT(*) FROM actions a WHERE NOT EXISTS \
                    (SELECT 1 FROM clusters c WHERE c.name = a.cluster)";
    assert_eq!(sql_count(&server.database_url, dangling).await, 0);

    // An open action refuses the delete, naming it; once it finished, the delete takes
    // the cluster's actions with it.
    let cluster = sim_cluster(&mut a, "again").await;
    let open = a
        .actions
        .create_node_action(node_reboot(&cluster, "again-node-0", 600))
        .await
        .unwrap()
        .into_inner();
    let refusal = error_view(delete_cluster(&mut b, &cluster).await);
    assert_eq!(
        (refusal.code, refusal.reason.as_str()),
        (Code::FailedPrecondition, "CLUSTER_IN_USE"),
        "{refusal:?}"
    );
    assert!(refusal.message.contains(&open.name), "{refusal:?}");
    a.actions
        .cancel_action(CancelActionRequest {
            name: open.name.clone(),
        })
        .await
        .unwrap();
    let done = a
        .actions
        .create_node_action(node_reboot(&cluster, "again-node-1", 0))
        .await
        .unwrap()
        .into_inner();
    eventually(
        Duration::from_secs(20),
        "the node reboot to succeed",
        || {
            let (mut actions, name) = (a.actions.clone(), done.name.clone());
            async move {
                let action = actions
                    .get_action(GetActionRequest { name })
                    .await
                    .unwrap()
                    .into_inner();
                action
                    .status
                    .is_some_and(|s| s.state() == ActionState::Succeeded)
                    .then_some(())
            }
        },
    )
    .await;
    assert_eq!(actions_of(&mut a, &cluster).await.len(), 2);
    delete_cluster(&mut b, &cluster).await.unwrap();
    for name in [&open.name, &done.name] {
        let gone = a
            .actions
            .get_action(GetActionRequest { name: name.clone() })
            .await;
        assert_eq!(error_view(gone).code, Code::NotFound, "{name}");
    }
    let cluster = sim_cluster(&mut a, "again").await;
    assert!(actions_of(&mut a, &cluster).await.is_empty());
    assert_eq!(sql_count(&server.database_url, dangling).await, 0);
}

async fn project(client: &mut Client, id: &str) {
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: id.into(),
            ..Default::default()
        })
        .await
        .unwrap();
}

async fn composite_app(client: &mut Client, project: &str, id: &str) -> String {
    client
        .lifecycle
        .create_composite_app(CreateCompositeAppRequest {
            parent: names::project(project),
            composite_app_id: id.into(),
            version_id: "v1".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    names::composite_app(project, id, "v1")
}
