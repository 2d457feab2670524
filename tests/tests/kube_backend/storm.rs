//! The concurrent-verbs model test (issue 56): random bursts of concurrent verbs
//! (edit and approve, instantiate, rollout, rollback, migrate, terminate) on two
//! versions of one composite app, with the agent killed and restarted between them,
//! checked against what the Kubernetes API server really holds: every pod an
//! instance (current or superseded, of either group) lists Present exists, the
//! running group's current instance lists every pod there is, each instance's
//! counts agree with its tree, and an action on a pod that is gone is NOT_FOUND.
//!
//! The seed and the number of rounds are fixed (`STORM_SEED`, `STORM_ROUNDS`: seeds 1
//! to 4 at 30 rounds each found stale pods, leaked objects or frozen counts before the
//! fixes of issue 56); a
//! longer run: `FLOTILLA_STORM_ROUNDS=200 FLOTILLA_STORM_SEED=7 cargo test -p
//! flotilla-tests --test e2e concurrent_verbs_leave_no_stale_pod`.

use std::collections::BTreeSet;

use tonic::Code;

use super::*;

const STORM_SEED: u64 = 1;
const STORM_ROUNDS: usize = 30;
/// Rounds between two checks against the cluster.
const CHECK_EVERY: usize = 4;

/// SplitMix64: a seeded sequence with no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// App `web` of the storm: a Deployment of `replicas` whose pod template carries
/// `generation` (a change replaces the pods) and a ConfigMap.
fn web(ns: &str, replicas: u64, generation: u64) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: {ns}
data:
  generation: \"{generation}\"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
      annotations: {{storm/generation: \"{generation}\"}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
"
    )
}

/// Version v2 of composite app `shop` with group `prod` of app `web` on k1, approved.
async fn version_two(client: &mut flotilla_client::Client, manifests: &str) -> String {
    let apps = [("web".to_string(), manifests.to_string())];
    fleet::version_group(client, "p", "shop", "v2", "prod", &apps, &["k1"]).await
}

/// One verb of the storm on `dig` (`other` is the group of the other version).
#[derive(Debug, Clone)]
enum Verb {
    Edit { replicas: u64, generation: u64 },
    Instantiate,
    Rollout,
    Rollback,
    Migrate,
    Terminate,
}

impl Verb {
    fn pick(rng: &mut Rng, generation: u64) -> Verb {
        match rng.below(6) {
            0 => Verb::Edit {
                replicas: 1 + rng.below(3),
                generation,
            },
            1 => Verb::Instantiate,
            2 => Verb::Rollout,
            3 => Verb::Rollback,
            4 => Verb::Migrate,
            _ => Verb::Terminate,
        }
    }

    /// Runs the verb; an error a valid race may bring (a refused transition, a lost
    /// etag race) is Ok, anything else fails the test.
    async fn run(
        self,
        mut client: flotilla_client::Client,
        dig: String,
        other: String,
        ns: String,
    ) {
        let lc = &mut client.lifecycle;
        let outcome: Result<(), tonic::Status> = match &self {
            Verb::Edit {
                replicas,
                generation,
            } => {
                let ca = dig.rsplit_once("/deploymentIntentGroups/").unwrap().0;
                let edited = lc
                    .update_app(UpdateAppRequest {
                        app: Some(App {
                            name: format!("{ca}/apps/web"),
                            manifests: web(&ns, *replicas, *generation),
                            ..Default::default()
                        }),
                        update_mask: Some(prost_types::FieldMask {
                            paths: vec!["manifests".into()],
                        }),
                    })
                    .await;
                match edited {
                    Ok(_) => lc
                        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
                            name: dig.clone(),
                            ..Default::default()
                        })
                        .await
                        .map(|_| ()),
                    Err(e) => Err(e),
                }
            }
            Verb::Instantiate => lc
                .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                    name: dig.clone(),
                    ..Default::default()
                })
                .await
                .map(|_| ()),
            Verb::Rollout => lc
                .rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
                    name: dig.clone(),
                    ..Default::default()
                })
                .await
                .map(|_| ()),
            Verb::Rollback => {
                let group = lc
                    .get_deployment_intent_group(GetDeploymentIntentGroupRequest {
                        name: dig.clone(),
                    })
                    .await
                    .unwrap()
                    .into_inner();
                // The oldest revision an instance was rendered from (and is kept).
                let instances = flotilla_tests::instances(&mut client, &dig).await;
                let revision = instances
                    .iter()
                    .map(|i| i.revision)
                    .filter(|r| *r != group.running_revision)
                    .min();
                let lc = &mut client.lifecycle;
                match revision {
                    Some(revision) => lc
                        .rollback_deployment_intent_group(RollbackDeploymentIntentGroupRequest {
                            name: dig.clone(),
                            revision,
                            ..Default::default()
                        })
                        .await
                        .map(|_| ()),
                    None => Ok(()),
                }
            }
            Verb::Migrate => lc
                .migrate_deployment_intent_group(MigrateDeploymentIntentGroupRequest {
                    name: dig.clone(),
                    target: other.clone(),
                    ..Default::default()
                })
                .await
                .map(|_| ()),
            Verb::Terminate => lc
                .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
                    name: dig.clone(),
                    ..Default::default()
                })
                .await
                .map(|_| ()),
        };
        if let Err(status) = outcome {
            assert!(
                matches!(status.code(), Code::FailedPrecondition | Code::Aborted),
                "{self:?} on {dig}: {status:?}"
            );
        }
    }
}

/// The pods of `ns` as the API server has them: name -> uid.
async fn pods_in(admin: &kube::Client, ns: &str) -> BTreeSet<String> {
    let pods: Api<Pod> = Api::namespaced(admin.clone(), ns);
    pods.list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|p| p.metadata.name)
        .collect()
}

/// What the server says of one instance: the pods it lists Present, and whether
/// its counts agree with its tree.
struct Said {
    instance: String,
    current: bool,
    pods: BTreeSet<String>,
    agree: bool,
    /// What disagrees, when the counts do not match the tree.
    disagreement: String,
}

/// Every instance of `dig` as the server describes it.
async fn said_of(
    client: &mut flotilla_client::Client,
    dig: &str,
) -> (DeploymentIntentGroupState, Vec<Said>) {
    let group = client
        .lifecycle
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: dig.into() })
        .await
        .unwrap()
        .into_inner();
    let instances = flotilla_tests::instances(client, dig).await;
    let mut said = Vec::new();
    for instance in instances {
        let s = client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: dig.into(),
                instance: instance.id.clone(),
                output: StatusOutput::All as i32,
                page_size: 1000,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let entries: Vec<&ResourceStatusEntry> = s
            .resources
            .iter()
            .flat_map(|a| a.clusters.iter().flat_map(|c| c.resources.iter()))
            .collect();
        let listed_present = entries.iter().filter(|r| present(r)).count() as i32;
        let counts = s.cluster_status.unwrap_or_default();
        said.push(Said {
            instance: instance.id,
            current: instance.current,
            pods: entries
                .iter()
                .filter(|r| is_pod(r) && present(r))
                .map(|r| r.name.clone())
                .collect(),
            agree: counts.present == listed_present,
            disagreement: format!(
                "counts {counts:?}, tree {:?}",
                entries
                    .iter()
                    .map(|r| (r.name.clone(), r.cluster_status(), r.rsync_status()))
                    .collect::<Vec<_>>()
            ),
        });
    }
    (group.state(), said)
}

/// Waits until the server's account of both groups matches the cluster (see the
/// module doc); returns every pod name any instance listed on the way.
async fn agrees_with_the_cluster(
    client: &flotilla_client::Client,
    admin: &kube::Client,
    ns: &str,
    groups: &[String; 2],
) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let truth = pods_in(admin, ns).await;
        let mut client = client.clone();
        let mut wrong = Vec::new();
        let mut running = BTreeSet::new();
        let mut instantiated = 0;
        for dig in groups {
            let (state, said) = said_of(&mut client, dig).await;
            let running_group = state == DeploymentIntentGroupState::Instantiated;
            instantiated += running_group as usize;
            for s in &said {
                seen.extend(s.pods.iter().cloned());
                let ghosts: Vec<_> = s.pods.difference(&truth).collect();
                if !ghosts.is_empty() {
                    wrong.push(format!("{dig} {} lists gone pods {ghosts:?}", s.instance));
                }
                if !s.agree {
                    wrong.push(format!(
                        "{dig} {}: counts disagree with the tree: {}",
                        s.instance, s.disagreement
                    ));
                }
                if s.current && running_group {
                    running = s.pods.clone();
                }
            }
        }
        if instantiated > 1 {
            wrong.push("both groups INSTANTIATED".into());
        }
        if running != truth {
            wrong.push(format!(
                "the running instance lists {running:?}, the cluster has {truth:?}"
            ));
        }
        if wrong.is_empty() {
            return seen;
        }
        if std::time::Instant::now() > deadline {
            for dig in groups {
                let (state, said) = said_of(&mut client, dig).await;
                eprintln!("{dig}: {state:?}");
                for s in said {
                    let counts =
                        flotilla_tests::rsync_counts(&mut client, dig, &s.instance, &[]).await;
                    eprintln!(
                        "  {} current {} pods {:?} {counts:?}",
                        s.instance, s.current, s.pods
                    );
                }
            }
            eprintln!("the cluster: {:?}", labelled(admin, ns).await);
            panic!(
                "the server's account never matched the cluster:\n{}",
                wrong.join("\n")
            );
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

pub(super) async fn concurrent_verbs_leave_no_stale_pod(server: &TestServer) {
    let _dump = Dump(server);
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["k1"]).await;
    let mut agent = Some(start_kube_agent(server, &tokens["k1"], plane, &[]));
    wait_connectivity(
        &client,
        &names::cluster("cp", "k1"),
        Connectivity::Available,
    )
    .await;
    let v1 = group(&mut client, &[("web", &web(&ns, 2, 0))]).await;
    let v2 = version_two(&mut client, &web(&ns, 2, 0)).await;
    instantiate(&mut client, &v1).await;
    let groups = [v1.clone(), v2.clone()];

    let seed = env_or("FLOTILLA_STORM_SEED", STORM_SEED);
    let rounds = env_or("FLOTILLA_STORM_ROUNDS", STORM_ROUNDS);
    let mut rng = Rng(seed);
    let mut seen = BTreeSet::new();
    for round in 1..=rounds {
        // Two or three verbs at once, each on either group.
        let mut verbs = Vec::new();
        for _ in 0..2 + rng.below(2) {
            let which = rng.below(2) as usize;
            let verb = Verb::pick(&mut rng, round as u64);
            let (dig, other) = (groups[which].clone(), groups[1 - which].clone());
            verbs.push(verb.run(client.clone(), dig, other, ns.clone()));
        }
        futures::future::join_all(verbs).await;
        // The agent goes away now and then, and comes back a round later.
        match agent.take() {
            Some(running) if rng.below(4) == 0 => drop(running),
            Some(running) => agent = Some(running),
            None => agent = Some(start_kube_agent(server, &tokens["k1"], plane, &[])),
        }
        tokio::time::sleep(Duration::from_millis(rng.below(400))).await;
        if round % CHECK_EVERY == 0 || round == rounds {
            if agent.is_none() {
                agent = Some(start_kube_agent(server, &tokens["k1"], plane, &[]));
            }
            seen.extend(agrees_with_the_cluster(&client, &admin, &ns, &groups).await);
        }
    }

    // The end: nothing runs, nothing is believed to.
    for dig in &groups {
        let _ = client
            .lifecycle
            .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
                name: dig.clone(),
                ..Default::default()
            })
            .await;
    }
    seen.extend(agrees_with_the_cluster(&client, &admin, &ns, &groups).await);
    assert!(pods_in(&admin, &ns).await.is_empty());
    assert!(!seen.is_empty(), "the storm ran pods");
    // The server's belief that serves actions: a pod that is gone is NOT_FOUND.
    for pod in &seen {
        let refused = client
            .actions
            .create_pod_action(CreatePodActionRequest {
                cluster: names::cluster("cp", "k1"),
                namespace: ns.clone(),
                pod: pod.clone(),
                action_name: "Reboot".into(),
                params: Some(create_pod_action_request::Params::RebootParams(
                    RebootParams::default(),
                )),
                ..Default::default()
            })
            .await
            .expect_err("no action on a pod that is gone");
        assert_eq!(refused.code(), Code::NotFound, "{pod}: {refused:?}");
    }
    drop(agent);
}

/// Keeps the server's log of a failed storm (the sequence of verbs and sessions that
/// led there), and says where.
struct Dump<'a>(&'a TestServer);

impl Drop for Dump<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let path =
                std::env::temp_dir().join(format!("flotilla-storm-{}.log", std::process::id()));
            if std::fs::write(&path, self.0.log()).is_ok() {
                eprintln!("the storm's server log: {}", path.display());
            }
        }
    }
}
