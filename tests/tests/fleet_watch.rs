//! End-to-end: WatchFleet and the fleet-wide WatchActions, on SQLite and PostgreSQL.
//! The fleet's rows follow the groups' lifecycle and counts and the clusters'
//! connectivity without a poll, agree with the status query, and show a token only
//! the projects it may read; every cluster's open actions in one stream.

use std::collections::BTreeMap;
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::demo::DIG;
use flotilla_tests::{TestServer, e2e_suite, error_view, token_secret};
use tonic::Code;
use tonic::codec::Streaming;

e2e_suite!(
    args = [
        "--demo",
        "--sim-pod-ready-millis",
        "100",
        "--watch-heartbeat-millis",
        "300",
    ],
    the_fleet_follows_groups_and_clusters,
    a_token_sees_the_fleet_of_its_projects,
    open_actions_of_every_cluster_in_one_stream,
);

const WAIT: Duration = Duration::from_secs(60);

/// The rows a WatchFleet client holds, by name.
#[derive(Debug, Default)]
struct Fleet {
    groups: BTreeMap<String, FleetGroup>,
    clusters: BTreeMap<String, FleetCluster>,
    synced: bool,
    heartbeats: usize,
}

impl Fleet {
    fn apply(&mut self, event: FleetEvent) {
        let kind = event.r#type();
        match (kind, event.row) {
            (FleetEventType::Synced, None) => self.synced = true,
            (FleetEventType::Heartbeat, None) => self.heartbeats += 1,
            (FleetEventType::Added, Some(fleet_event::Row::Group(g))) => {
                assert!(
                    self.groups.insert(g.name.clone(), g).is_none(),
                    "ADDED twice"
                );
            }
            (FleetEventType::Modified, Some(fleet_event::Row::Group(g))) => {
                let before = self.groups.insert(g.name.clone(), g.clone());
                assert!(
                    before.is_some_and(|b| b != g),
                    "MODIFIED of a row the client does not hold, or unchanged"
                );
            }
            (FleetEventType::Deleted, Some(fleet_event::Row::Group(g))) => {
                assert!(self.groups.remove(&g.name).is_some(), "DELETED unknown row");
            }
            (FleetEventType::Added, Some(fleet_event::Row::Cluster(c))) => {
                assert!(
                    self.clusters.insert(c.name.clone(), c).is_none(),
                    "ADDED twice"
                );
            }
            (FleetEventType::Modified, Some(fleet_event::Row::Cluster(c))) => {
                let before = self.clusters.insert(c.name.clone(), c.clone());
                assert!(before.is_some_and(|b| b != c), "MODIFIED of an unknown row");
            }
            (FleetEventType::Deleted, Some(fleet_event::Row::Cluster(c))) => {
                assert!(
                    self.clusters.remove(&c.name).is_some(),
                    "DELETED unknown row"
                );
            }
            (kind, row) => panic!("unexpected event {kind:?} with {row:?}"),
        }
    }

    /// Reads events until `done` holds of the rows.
    async fn until(
        &mut self,
        stream: &mut Streaming<WatchFleetResponse>,
        what: &str,
        done: impl Fn(&Fleet) -> bool,
    ) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while !(self.synced && done(self)) {
            let message = tokio::time::timeout_at(deadline, stream.message())
                .await
                .unwrap_or_else(|_| panic!("{what} within {WAIT:?}; the fleet is {self:#?}"))
                .expect("the stream goes on")
                .expect("a message");
            for event in message.events {
                self.apply(event);
            }
        }
    }

    fn group(&self, name: &str) -> &FleetGroup {
        self.groups
            .get(name)
            .unwrap_or_else(|| panic!("no row of {name}"))
    }

    fn connectivity(&self, cluster: &str) -> Connectivity {
        self.clusters
            .get(cluster)
            .map_or(Connectivity::Unspecified, |c| c.connectivity())
    }
}

async fn watch_fleet(client: &mut Client) -> Streaming<WatchFleetResponse> {
    client
        .status
        .watch_fleet(WatchFleetRequest {})
        .await
        .unwrap()
        .into_inner()
}

async fn summary(client: &mut Client, dig: &str) -> ResourceStatus {
    client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: dig.into(),
            output: StatusOutput::Summary as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

fn ready(group: &FleetGroup) -> i32 {
    group.readiness.as_ref().map_or(0, |r| r.ready)
}

/// The demo group: its row follows approve and instantiate and its counts reach
/// Ready; it agrees with the status query; a cluster cut and reconnected shows
/// RETRYING then AVAILABLE; a new group is ADDED, a deleted one DELETED.
async fn the_fleet_follows_groups_and_clusters(server: &TestServer) {
    let mut admin = server.client().await;
    let mut stream = watch_fleet(&mut admin).await;
    let mut fleet = Fleet::default();
    let cluster1 = names::cluster("edge", "cluster1");
    let cluster2 = names::cluster("edge", "cluster2");
    fleet
        .until(&mut stream, "the demo's group and clusters", |f| {
            f.groups.contains_key(DIG)
                && f.connectivity(&cluster1) == Connectivity::Available
                && f.connectivity(&cluster2) == Connectivity::Available
        })
        .await;
    let group = fleet.group(DIG);
    assert_eq!(group.project, "demo");
    assert_eq!(group.state(), DeploymentIntentGroupState::Created);
    assert!(group.current_instance.is_empty());
    assert_eq!(ready(group), 0);

    flotilla_tests::demo::approve_and_instantiate(&mut admin).await;
    fleet
        .until(&mut stream, "the group Ready on its fleet row", |f| {
            let g = f.group(DIG);
            g.state() == DeploymentIntentGroupState::Instantiated
                && ready(g) > 0
                && g.conditions
                    .iter()
                    .any(|c| c.r#type == "Ready" && c.status() == ConditionStatus::True)
        })
        .await;
    // The row says what a SUMMARY query says once the group settled.
    let status = summary(&mut admin, DIG).await;
    fleet
        .until(&mut stream, "the row's counts those of the query", |f| {
            let g = f.group(DIG);
            (&g.rsync_status, &g.cluster_status, &g.readiness)
                == (
                    &status.rsync_status,
                    &status.cluster_status,
                    &status.readiness,
                )
        })
        .await;
    let row = fleet.group(DIG);
    assert_eq!(
        row.current_instance,
        status.instance.rsplit('/').next().unwrap()
    );
    assert!(
        row.conditions.iter().any(|c| c.r#type == "Ready"),
        "the group's conditions ride along: {:?}",
        row.conditions
    );

    // Connectivity, live.
    admin
        .simulator
        .disconnect_cluster(DisconnectClusterRequest {
            cluster: cluster1.clone(),
        })
        .await
        .unwrap();
    fleet
        .until(&mut stream, "cluster1 RETRYING", |f| {
            f.connectivity(&cluster1) == Connectivity::Retrying
        })
        .await;
    assert_eq!(fleet.connectivity(&cluster2), Connectivity::Available);
    admin
        .simulator
        .reconnect_cluster(ReconnectClusterRequest {
            cluster: cluster1.clone(),
        })
        .await
        .unwrap();
    fleet
        .until(&mut stream, "cluster1 AVAILABLE again", |f| {
            f.connectivity(&cluster1) == Connectivity::Available
        })
        .await;

    // Groups come and go.
    let other = group_of(&mut admin, "other").await;
    fleet
        .until(&mut stream, "the new group", |f| {
            f.groups.contains_key(&other)
        })
        .await;
    assert_eq!(
        fleet.group(&other).state(),
        DeploymentIntentGroupState::Created
    );
    admin
        .lifecycle
        .delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest {
            name: other.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    fleet
        .until(&mut stream, "the deleted group gone", |f| {
            !f.groups.contains_key(&other)
        })
        .await;

    // An idle stream beats; a fresh watch starts with the same rows.
    let beats = fleet.heartbeats;
    fleet
        .until(&mut stream, "a heartbeat", |f| f.heartbeats > beats)
        .await;
    let mut again = Fleet::default();
    let mut second = watch_fleet(&mut admin).await;
    again
        .until(&mut second, "a second snapshot", |_| true)
        .await;
    assert_eq!(again.groups, fleet.groups);
    assert_eq!(again.clusters, fleet.clusters);
}

/// A project `project` with a composite app and an empty group (CREATED).
async fn group_of(client: &mut Client, project: &str) -> String {
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: project.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    crate::common::fleet::empty_group(client, project, "ca", "v1", "g").await
}

/// A viewer of one project sees that project's groups and every cluster, and hears
/// nothing of another project's changes; an agent token may not watch the fleet.
async fn a_token_sees_the_fleet_of_its_projects(server: &TestServer) {
    let mut admin = server.client().await;
    let mine = group_of(&mut admin, "mine").await;
    let viewer = token_secret(&mut admin, Role::Viewer, &["mine"]).await;
    let mut client = server.client_as(&viewer).await;
    let mut stream = watch_fleet(&mut client).await;
    let mut fleet = Fleet::default();
    fleet
        .until(&mut stream, "the snapshot", |f| {
            f.groups.contains_key(&mine)
        })
        .await;
    assert_eq!(
        fleet.groups.keys().collect::<Vec<_>>(),
        vec![&mine],
        "only the project's groups"
    );
    assert!(
        fleet
            .clusters
            .contains_key(&names::cluster("edge", "cluster1")),
        "clusters are infrastructure, which every human token reads"
    );
    // The demo group changes: the viewer's stream says nothing of it, while a change
    // of its own project arrives.
    flotilla_tests::demo::approve_and_instantiate(&mut admin).await;
    admin
        .lifecycle
        .delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest {
            name: mine.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    fleet
        .until(&mut stream, "its group deleted", |f| f.groups.is_empty())
        .await;
    assert!(!fleet.groups.contains_key(DIG));

    let agent = admin
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: names::cluster_provider("edge"),
            cluster_id: "remote".into(),
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
    let mut agent = server.client_as(&agent).await;
    let refused = error_view(agent.status.watch_fleet(WatchFleetRequest {}).await);
    assert_eq!(refused.code, Code::PermissionDenied, "{refused:?}");
}

/// WatchActions without a cluster: every cluster's open actions in one stream, for a
/// token that may read them all; refused for a token confined to a project, and a
/// node filter needs its cluster.
async fn open_actions_of_every_cluster_in_one_stream(server: &TestServer) {
    let mut admin = server.client().await;
    flotilla_tests::demo::approve_and_instantiate(&mut admin).await;
    let mut stream = admin
        .actions
        .watch_actions(WatchActionsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let mut open: BTreeMap<String, Action> = BTreeMap::new();
    let mut synced = false;
    let mut created = Vec::new();
    for cluster in ["cluster1", "cluster2"] {
        let cluster = names::cluster("edge", cluster);
        let pod = flotilla_tests::eventually(WAIT, "a Ready pod", || {
            let mut client = admin.clone();
            let cluster = cluster.clone();
            async move {
                let status = client
                    .status
                    .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                        name: DIG.into(),
                        clusters: vec![cluster.rsplit('/').next().unwrap().to_string()],
                        ..Default::default()
                    })
                    .await
                    .ok()?
                    .into_inner();
                status
                    .resources
                    .iter()
                    .flat_map(|a| a.clusters.iter().flat_map(|c| c.resources.iter()))
                    .find(|r| {
                        r.gvk.as_ref().is_some_and(|g| g.kind == "Pod")
                            && r.readiness() == Readiness::Ready
                    })
                    .map(|r| (r.namespace.clone(), r.name.clone()))
            }
        })
        .await;
        let action = admin
            .actions
            .create_pod_action(CreatePodActionRequest {
                cluster: cluster.clone(),
                namespace: pod.0,
                pod: pod.1,
                action_name: "Reboot".into(),
                params: Some(create_pod_action_request::Params::RebootParams(
                    RebootParams::default(),
                )),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        created.push(action.name);
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    let mut done: Vec<String> = Vec::new();
    while !(synced && created.iter().all(|name| done.contains(name))) {
        let message = tokio::time::timeout_at(deadline, stream.message())
            .await
            .expect("both actions done within the wait")
            .unwrap()
            .expect("the stream goes on");
        for event in message.events {
            match event.r#type() {
                ActionEventType::Synced => synced = true,
                ActionEventType::Added | ActionEventType::Modified => {
                    let action = event.action.unwrap();
                    let state = action.status.as_ref().map(|s| s.state());
                    if state == Some(ActionState::Succeeded) {
                        done.push(action.name.clone());
                    }
                    open.insert(action.name.clone(), action);
                }
                _ => {}
            }
        }
    }
    let clusters: std::collections::BTreeSet<_> = created
        .iter()
        .map(|name| open[name].cluster.clone())
        .collect();
    assert_eq!(clusters.len(), 2, "one stream, two clusters: {clusters:?}");

    let viewer = token_secret(&mut admin, Role::Viewer, &["demo"]).await;
    let mut viewer = server.client_as(&viewer).await;
    let refused = error_view(
        viewer
            .actions
            .watch_actions(WatchActionsRequest::default())
            .await,
    );
    assert_eq!(refused.code, Code::PermissionDenied, "{refused:?}");
    let refused = error_view(
        admin
            .actions
            .watch_actions(WatchActionsRequest {
                node_name: "node-1".into(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(refused.code, Code::InvalidArgument, "{refused:?}");
    assert_eq!(refused.fields(), ["cluster"], "{refused:?}");
}
