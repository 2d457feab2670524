//! The permission table, end to end: every RPC of every service, called through a real
//! `flotilla-server` by every role (and without a token), must be allowed or refused
//! exactly as the table and `domain::access::decide` say. A new RPC without an entry
//! makes the server refuse to start (and `api::auth::wire`'s unit test fail); an entry
//! the layer does not enforce fails here.

use std::collections::HashMap;

use bytes::{Buf, BufMut};
use flotilla_client::v1::{self as pb, Role as PbRole};
use flotilla_client::{Client, names};
use flotilla_server::api::auth::rules::RULES;
use flotilla_server::domain::access::{
    Decision, Fact, Facts, Need, PodRef, Principal, Role, decide,
};
use flotilla_server::domain::names::ClusterName;
use flotilla_server::ids::TokenId;
use flotilla_tests::{Backend, TestServer};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// Passes encoded messages through untouched, so any method can be called.
#[derive(Default, Clone)]
struct RawCodec;

struct RawEncoder;
struct RawDecoder;

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawDecoder {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

/// An encoded message with `value` at the field path `numbers`.
fn encode_at(numbers: &[u32], value: &str) -> Vec<u8> {
    let Some((&number, rest)) = numbers.split_first() else {
        return Vec::new();
    };
    let inner = if rest.is_empty() {
        value.as_bytes().to_vec()
    } else {
        encode_at(rest, value)
    };
    let mut out = Vec::new();
    prost::encoding::encode_key(number, prost::encoding::WireType::LengthDelimited, &mut out);
    prost::encoding::encode_varint(inner.len() as u64, &mut out);
    out.extend(inner);
    out
}

/// What the server answered.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Answer {
    /// The call reached its handler (whatever the handler then said).
    Reached,
    /// The auth layer refused it.
    Denied,
    Unauthenticated,
}

fn classify(result: Result<(), Status>) -> Answer {
    match result {
        Ok(()) => Answer::Reached,
        Err(status) if status.code() == Code::Unauthenticated => Answer::Unauthenticated,
        Err(status) if status.code() == Code::PermissionDenied => {
            let info = status.get_details_error_info();
            if info.is_some_and(|i| {
                i.reason == "PERMISSION_DENIED" && i.metadata.contains_key("permission")
            }) {
                Answer::Denied
            } else {
                Answer::Reached
            }
        }
        Err(_) => Answer::Reached,
    }
}

/// Calls `path` with `body`, as the method's streaming shape requires.
async fn call(channel: &Channel, path: &str, body: Vec<u8>, token: Option<&str>) -> Answer {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.expect("channel ready");
    let path: http::uri::PathAndQuery = path.parse().unwrap();
    fn authorize<T>(request: &mut tonic::Request<T>, token: Option<&str>) {
        if let Some(token) = token {
            request
                .metadata_mut()
                .insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
    }
    if path.path().ends_with("/Connect") {
        let mut request = tonic::Request::new(futures::stream::iter(Vec::<Vec<u8>>::new()));
        authorize(&mut request, token);
        return classify(grpc.streaming(request, path, RawCodec).await.map(drop));
    }
    let streaming = path.path().contains("/Watch");
    let mut request = tonic::Request::new(body);
    authorize(&mut request, token);
    if streaming {
        classify(
            grpc.server_streaming(request, path, RawCodec)
                .await
                .map(drop),
        )
    } else {
        classify(grpc.unary(request, path, RawCodec).await.map(drop))
    }
}

/// The names tried in a field: a resource of project a and of project b,
/// infrastructure that does not exist, an action, garbage and nothing; for action
/// rules, the real clusters (project a is placed on both) instead of the projects.
/// Admin writes reach their handlers, so the resources they name do not exist (a
/// rotated agent token would end the agent role's part of the walk).
fn samples(need: Need, c1: &str, c2: &str) -> Vec<String> {
    let mut names = match need {
        Need::ReadActions(_) | Need::WriteActions(_) | Need::ReportActions(_) => {
            vec![c1.to_string(), c2.to_string()]
        }
        _ => vec![
            "projects/a/compositeApps/zz/versions/v1/deploymentIntentGroups/zz".to_string(),
            "projects/b/compositeApps/zz/versions/v1".to_string(),
        ],
    };
    names.extend([
        "clusterProviders/p/clusters/ghost".to_string(),
        format!("actions/{}", uuid::Uuid::now_v7()),
        "garbage/../x".to_string(),
        String::new(),
    ]);
    names
}

/// The expected answer, from the table and the decision function, with the facts the
/// setup established (project a placed on c1 and c2; no actions exist).
fn expected(
    principal: &Principal,
    need: Need,
    name: &str,
    placed: &HashMap<String, Vec<String>>,
) -> Answer {
    let mut facts = Facts::default();
    loop {
        match decide(principal, need, &facts) {
            Decision::Allow => return Answer::Reached,
            Decision::Deny(_) => return Answer::Denied,
            Decision::Needs(Fact::Field(_)) => facts.field = Some(name.to_string()),
            Decision::Needs(Fact::ClusterProjects(cluster)) => {
                facts.cluster_projects =
                    Some(placed.get(cluster.as_str()).cloned().unwrap_or_default())
            }
            Decision::Needs(Fact::ActionTarget(_)) => facts.action_target = Some(None),
            // The requests name no pod, and no project deployed one.
            Decision::Needs(Fact::Pod) => {
                facts.pod = Some(PodRef {
                    namespace: "".into(),
                    name: "".into(),
                })
            }
            Decision::Needs(Fact::PodProjects(..)) => facts.pod_projects = Some(Vec::new()),
        }
    }
}

/// Project a's group, instantiated on an embedded sim cluster c1 and an agent cluster c2.
async fn place_project_a(admin: &mut Client) -> String {
    let lifecycle = &mut admin.lifecycle;
    lifecycle
        .create_project(pb::CreateProjectRequest {
            project_id: "a".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let ca = names::composite_app("a", "shop", "v1");
    lifecycle
        .create_composite_app(pb::CreateCompositeAppRequest {
            parent: "projects/a".into(),
            composite_app_id: "shop".into(),
            version_id: "v1".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    lifecycle
        .create_app(pb::CreateAppRequest {
            parent: ca.clone(),
            app_id: "web".into(),
            app: Some(pb::App {
                manifests: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    lifecycle
        .create_composite_profile(pb::CreateCompositeProfileRequest {
            parent: ca.clone(),
            composite_profile_id: "default".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    lifecycle
        .create_cluster_provider(pb::CreateClusterProviderRequest {
            cluster_provider_id: "p".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut agent_token = String::new();
    for (id, mode) in [
        ("c1", pb::ConnectionMode::EmbeddedSim),
        ("c2", pb::ConnectionMode::Agent),
    ] {
        let cluster = lifecycle
            .create_cluster(pb::CreateClusterRequest {
                parent: "clusterProviders/p".into(),
                cluster_id: id.into(),
                cluster: Some(pb::Cluster {
                    connection_mode: mode as i32,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        if mode == pb::ConnectionMode::Agent {
            agent_token = cluster.agent_token;
        }
    }
    lifecycle
        .create_deployment_intent_group(pb::CreateDeploymentIntentGroupRequest {
            parent: ca.clone(),
            deployment_intent_group_id: "prod".into(),
            deployment_intent_group: Some(pb::DeploymentIntentGroup {
                composite_profile: "default".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let dig = names::deployment_intent_group(&ca, "prod");
    lifecycle
        .create_placement_intent(pb::CreatePlacementIntentRequest {
            parent: dig.clone(),
            placement_intent_id: "web".into(),
            placement_intent: Some(pb::PlacementIntent {
                app: "web".into(),
                cluster_provider: "p".into(),
                cluster_names: vec!["c1".into(), "c2".into()],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    flotilla_tests::demo::approve_and_instantiate_group(admin, &dig).await;
    agent_token
}

async fn every_rpc_follows_the_table(backend: Backend) {
    let server = TestServer::in_process(backend, &[]).await;
    let mut admin = server.client().await;
    let agent_token = place_project_a(&mut admin).await;
    let (c1, c2) = (names::cluster("p", "c1"), names::cluster("p", "c2"));
    let placed: HashMap<String, Vec<String>> = HashMap::from([
        (c1.clone(), vec!["a".into()]),
        (c2.clone(), vec!["a".into()]),
    ]);

    let principal = |role, projects: &[&str], cluster: Option<&str>| Principal {
        token: TokenId::new(),
        role,
        projects: projects.iter().map(|p| p.to_string()).collect(),
        cluster: cluster.map(ClusterName::from),
        expire_time: None,
    };
    let roles = vec![
        (
            "admin",
            server.admin_token.expose().to_string(),
            principal(Role::Admin, &[], None),
        ),
        (
            "editor of a",
            flotilla_tests::token_secret(&mut admin, PbRole::Editor, &["a"]).await,
            principal(Role::Editor, &["a"], None),
        ),
        (
            "editor of b",
            flotilla_tests::token_secret(&mut admin, PbRole::Editor, &["b"]).await,
            principal(Role::Editor, &["b"], None),
        ),
        (
            "viewer of a",
            flotilla_tests::token_secret(&mut admin, PbRole::Viewer, &["a"]).await,
            principal(Role::Viewer, &["a"], None),
        ),
        (
            "viewer of all",
            flotilla_tests::token_secret(&mut admin, PbRole::Viewer, &[]).await,
            principal(Role::Viewer, &[], None),
        ),
        (
            "agent of c2",
            agent_token,
            principal(Role::Agent, &[], Some(&c2)),
        ),
    ];
    let rules = flotilla_server::api::auth::wire::resolve(flotilla_api::FILE_DESCRIPTOR_SET)
        .expect("the table covers the API");
    let channel = server.channel().await;

    let mut checked = 0;
    let mut mismatches = Vec::new();
    // (reached, denied) per role: the walk must see both sides of every role.
    let mut sides: HashMap<&str, (usize, usize)> = HashMap::new();
    for (service, method, need) in RULES.iter() {
        let path = format!("/flotilla.v1.{service}/{method}");
        let field = rules[&path].field.clone();
        // Without a token: refused before anything else.
        let answer = call(&channel, &path, Vec::new(), None).await;
        if answer != Answer::Unauthenticated {
            mismatches.push(format!("{path} without a token: {answer:?}"));
        }
        let names = match &field {
            Some(_) => samples(*need, &c1, &c2),
            None => vec![String::new()],
        };
        for name in &names {
            let body = field
                .as_ref()
                .map(|f| encode_at(f, name))
                .unwrap_or_default();
            for (role, token, principal) in &roles {
                let want = expected(principal, *need, name, &placed);
                let got = call(&channel, &path, body.clone(), Some(token)).await;
                checked += 1;
                let side = sides.entry(role).or_default();
                match got {
                    Answer::Reached => side.0 += 1,
                    Answer::Denied => side.1 += 1,
                    Answer::Unauthenticated => {}
                }
                if want != got {
                    mismatches.push(format!(
                        "{path} as {role} on {name:?}: want {want:?}, got {got:?}"
                    ));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {checked} calls:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    // Every role was both allowed and refused somewhere: the walk exercised both sides.
    for (role, _, _) in &roles {
        let (reached, denied) = sides[role];
        assert!(
            reached > 0 && denied > 0,
            "{role}: reached {reached}, denied {denied}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_follows_the_table_on_sqlite() {
    every_rpc_follows_the_table(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_follows_the_table_on_postgres() {
    every_rpc_follows_the_table(Backend::Postgres).await;
}
