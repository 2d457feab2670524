//! End-to-end of the agent's kube backend: a real `flotilla-server` and a real
//! `flotilla-agent --backend kube` against the Kubernetes API emulator
//! (`flotilla_tests::kubeapi`), on SQLite and PostgreSQL. The group deploys a
//! ConfigMap, a Deployment and a Service into a namespace the cluster lacks, plus a
//! Deployment the API server refuses; then an object deleted behind the agent's back,
//! a compaction that expires the agent's watches, and the terminate.

use std::time::Duration;

use flotilla_client::names;
use flotilla_client::v1::*;
use flotilla_tests::kubeapi::{KubeApi, Options};
use flotilla_tests::{
    TestAgent, TestServer, e2e_suite, eventually, wait_action, wait_connectivity,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

e2e_suite!(
    args = ["--sim", "false"],
    kube_agent_deploys_reports_and_heals,
    kube_agent_runs_vm_actions_through_kubevirt,
    a_rollout_keeps_the_pods_of_unchanged_deployments,
);

#[path = "common/fleet.rs"]
mod fleet;
#[path = "kube_backend/kubevirt.rs"]
mod kubevirt;
use fleet::{WAIT, clusters, summary};
use kubevirt::*;

const WEB: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: shop
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: {app: web}
  ports:
  - port: 80
";

/// A Deployment without a selector: the API server refuses it (422); and a ConfigMap
/// whose field another manager (Helm) owns with another value: a conflict (409).
const BROKEN: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: shared-settings
data:
  mode: flotilla
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: broken
  namespace: shop
spec:
  replicas: 1
  template:
    metadata:
      labels: {app: broken}
    spec:
      containers:
      - name: broken
        image: busybox
";

/// A KubeVirt VM (its virt-launcher pod is the VM pod actions target).
const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: guest
spec:
  running: true
  template:
    metadata:
      labels: {app: guest}
    spec:
      domain:
        resources:
          requests: {memory: 2Gi}
";

/// The group `prod` of apps (id, manifests) on cluster k1, approved.
async fn group(client: &mut flotilla_client::Client, apps: &[(&str, &str)]) -> String {
    let apps: Vec<(String, String)> = apps
        .iter()
        .map(|(id, manifests)| (id.to_string(), manifests.to_string()))
        .collect();
    fleet::group(client, "shop", "prod", &apps, &["k1"]).await
}

/// The group's resources (every app and cluster) as the status reports them.
async fn detail(client: &mut flotilla_client::Client, dig: &str) -> Vec<ResourceStatusEntry> {
    client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: dig.into(),
            output: StatusOutput::All as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .resources
        .into_iter()
        .flat_map(|app| app.clusters)
        .flat_map(|cluster| cluster.resources)
        .collect()
}

fn find<'a>(
    resources: &'a [ResourceStatusEntry],
    kind: &str,
    name: &str,
) -> Option<&'a ResourceStatusEntry> {
    resources
        .iter()
        .find(|r| r.gvk.as_ref().is_some_and(|g| g.kind == kind) && r.name == name)
}

fn present(r: &ResourceStatusEntry) -> bool {
    r.cluster_status() == ClusterResourceStatus::Present
}

/// Waits until the group's summary counts (rsync, cluster, readiness) satisfy `done`.
async fn wait_summary(
    client: &flotilla_client::Client,
    dig: &str,
    what: &str,
    done: fn(&RsyncStatusCounts, &ClusterStatusCounts, &ReadinessCounts) -> bool,
) {
    eventually(WAIT, what, || {
        let mut client = client.clone();
        let dig = dig.to_string();
        async move {
            let s = summary(&mut client, &dig, &[]).await;
            let (r, c, ready) = (
                s.rsync_status.unwrap_or_default(),
                s.cluster_status.unwrap_or_default(),
                s.readiness.unwrap_or_default(),
            );
            done(&r, &c, &ready).then_some(())
        }
    })
    .await;
}

/// An emulated cluster `k1` served by a `flotilla-agent --backend kube`.
struct Kube {
    api: KubeApi,
    agent: TestAgent,
    _stop: tokio_util::sync::DropGuard,
}

async fn kube_cluster(
    server: &TestServer,
    client: &mut flotilla_client::Client,
    options: Options,
) -> Kube {
    let stop = CancellationToken::new();
    let guard = stop.clone().drop_guard();
    let api = KubeApi::start(options, stop).await;
    let kubeconfig = server.data_dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, api.kubeconfig()).unwrap();
    let tokens = clusters(client, &["k1"]).await;
    let cluster = names::cluster("cp", "k1");
    let agent = TestAgent::start_with(
        server,
        &cluster,
        &tokens["k1"],
        &[
            "--backend",
            "kube",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--context",
            "emulator",
            "--unreachable-after-seconds",
            "2",
        ],
    );
    wait_connectivity(client, &cluster, Connectivity::Available).await;
    Kube {
        api,
        agent,
        _stop: guard,
    }
}

async fn kube_agent_deploys_reports_and_heals(server: &TestServer) {
    let mut client = server.client().await;
    let Kube { api, agent, _stop } = kube_cluster(server, &mut client, Options::default()).await;
    // The hello's facts show on the cluster.
    let k1 = client
        .lifecycle
        .get_cluster(GetClusterRequest {
            name: names::cluster("cp", "k1"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (
            k1.agent_backend.as_str(),
            k1.cluster_version.as_str(),
            k1.nodes.clone()
        ),
        (
            "kube",
            "v1.33.0-flotilla-emulator",
            vec!["node-0".to_string(), "node-1".into(), "node-2".into()]
        ),
        "{k1:?}"
    );
    let log = agent.log_text();
    assert!(log.contains("serving a Kubernetes cluster"), "{log}");
    // Helm owns a field the group sets to another value.
    api.apply_as(
        "helm",
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "shared-settings", "namespace": "default"}, "data": {"mode": "helm"}}),
    )
    .unwrap();

    // The demo's apps (valid Kubernetes) next to ours.
    let dig = group(
        &mut client,
        &[
            ("web", WEB),
            ("broken", BROKEN),
            ("collectd", flotilla_server::demo::COLLECTD),
            ("operator", flotilla_server::demo::OPERATOR),
        ],
    )
    .await;
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();

    // web, collectd, operator: 7 applied and present, their 5 pods present and Ready;
    // broken: 2 Failed with the API server's messages.
    wait_summary(
        &client,
        &dig,
        "web to be applied, present and ready",
        |r, c, ready| r.applied == 7 && r.failed == 2 && c.present == 12 && ready.ready == 12,
    )
    .await;
    let resources = detail(&mut client, &dig).await;
    let broken = find(&resources, "Deployment", "broken").expect("broken listed");
    assert_eq!(broken.rsync_status(), RsyncStatus::Failed, "{broken:?}");
    // The group's condition quotes the API server: the invalid Deployment and the
    // conflict with Helm's field (which stays Helm's).
    let conditions = summary(&mut client, &dig, &[]).await.conditions;
    let applied = conditions
        .iter()
        .find(|c| c.r#type == "ResourcesApplied")
        .expect("ResourcesApplied");
    assert!(
        applied.message.contains("2 of 9 resources were rejected")
            && applied.message.contains(
                "Deployment shop/broken on k1: the API server refused it (422 Invalid): \
                 Deployment.apps \"broken\" is invalid: spec.selector: Required value"
            )
            && applied.message.contains("ConfigMap shared-settings on k1")
            && applied.message.contains("409 Conflict")
            && applied
                .message
                .contains("conflict with \"helm\": .data.mode"),
        "{applied:?}"
    );
    assert_eq!(
        api.get("ConfigMap", "default", "shared-settings").unwrap()["data"]["mode"],
        "helm"
    );
    let web = find(&resources, "Deployment", "web").expect("web listed");
    assert_eq!(web.readiness(), Readiness::Ready, "{web:?}");
    // The namespace the manifests needed was created; the objects are the agent's.
    assert!(api.get("Namespace", "", "shop").is_some());
    let pods: Vec<Value> = api
        .list("Pod")
        .into_iter()
        .filter(|p| p.pointer("/metadata/namespace").and_then(Value::as_str) == Some("shop"))
        .collect();
    assert_eq!(pods.len(), 2, "{pods:?}");
    assert!(
        pods.iter().all(|p| p
            .pointer("/metadata/labels/flotilla~1deployment-id")
            .is_some()),
        "the pods carry the deployment id through the template: {pods:?}"
    );

    // The demo's guest pod carries KubeVirt's label, but this cluster has no KubeVirt.
    let guest = resources
        .iter()
        .find(|r| r.gvk.as_ref().is_some_and(|g| g.kind == "Pod") && r.name.starts_with("guest-"))
        .expect("the guest pod")
        .name
        .clone();
    let reboot = client
        .actions
        .create_pod_action(CreatePodActionRequest {
            cluster: names::cluster("cp", "k1"),
            namespace: String::new(),
            pod: guest,
            action_name: "Reboot".into(),
            params: Some(create_pod_action_request::Params::RebootParams(
                RebootParams::default(),
            )),
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let done = wait_action(&client, &reboot.name).await;
    assert_eq!(action_state(&done), ActionState::Failed, "{done:?}");
    assert_eq!(
        done.status.as_ref().unwrap().reason,
        "KubeVirtNotInstalled",
        "{done:?}"
    );

    // Deleted behind the agent's back: reported NotPresent, then applied again.
    let uid = api.get("ConfigMap", "shop", "web-config").unwrap()["metadata"]["uid"].clone();
    assert!(api.delete_object("ConfigMap", "shop", "web-config"));
    eventually(
        WAIT,
        "the deleted ConfigMap to be reported NotPresent",
        || {
            let mut client = client.clone();
            let dig = dig.clone();
            async move {
                let resources = detail(&mut client, &dig).await;
                let config = find(&resources, "ConfigMap", "web-config")?;
                (config.cluster_status() == ClusterResourceStatus::NotPresent).then_some(())
            }
        },
    )
    .await;
    eventually(
        WAIT,
        "the ConfigMap to be applied again and Present",
        || {
            let mut client = client.clone();
            let dig = dig.clone();
            let api = api.clone();
            let uid = uid.clone();
            async move {
                let again = api.get("ConfigMap", "shop", "web-config")?;
                let resources = detail(&mut client, &dig).await;
                let config = find(&resources, "ConfigMap", "web-config")?;
                (again["metadata"]["uid"] != uid && present(config)).then_some(())
            }
        },
    )
    .await;

    // A compaction expires the agent's watches (410 Gone): it lists again and sees
    // what changed while it was not watching (a pod deleted, then recreated by its
    // ReplicaSet under another name).
    let before = api.expired_watches();
    let old_pod = pods[0]["metadata"]["name"].as_str().unwrap().to_string();
    api.compact();
    assert!(api.delete_object("Pod", "shop", &old_pod));
    eventually(
        WAIT,
        "the agent to list again after 410 and report the new pod",
        || {
            let mut client = client.clone();
            let dig = dig.clone();
            let api = api.clone();
            let old_pod = old_pod.clone();
            async move {
                if api.expired_watches() <= before {
                    return None;
                }
                let resources = detail(&mut client, &dig).await;
                let pods: Vec<&ResourceStatusEntry> = resources
                    .iter()
                    .filter(|r| r.gvk.as_ref().is_some_and(|g| g.kind == "Pod"))
                    .collect();
                let gone = pods.iter().any(|p| p.name == old_pod && !present(p));
                let ready = pods
                    .iter()
                    .filter(|p| present(p) && p.readiness() == Readiness::Ready)
                    .count();
                (gone && ready == 5).then_some(())
            }
        },
    )
    .await;

    // The API server goes away: the agent ends its session after 2 s without answers,
    // so the server holds the cluster's resources Retrying; when it answers again the
    // agent reconnects and everything is Applied again.
    api.pause();
    eventually(WAIT, "the cluster's resources to be Retrying", || {
        let mut client = client.clone();
        let dig = dig.clone();
        async move {
            let r = summary(&mut client, &dig, &[])
                .await
                .rsync_status
                .unwrap_or_default();
            (r.retrying == 7).then_some(())
        }
    })
    .await;
    assert!(agent.log_text().contains("the cluster does not answer"));
    api.resume();
    eventually(
        WAIT,
        "the cluster to converge again after the API server is back",
        || {
            let mut client = client.clone();
            let dig = dig.clone();
            async move {
                let s = summary(&mut client, &dig, &[]).await;
                let (r, c) = (
                    s.rsync_status.unwrap_or_default(),
                    s.cluster_status.unwrap_or_default(),
                );
                (r.applied == 7 && r.retrying == 0 && c.present == 12).then_some(())
            }
        },
    )
    .await;

    // Terminate: every object deleted (foreground) and confirmed gone.
    client
        .lifecycle
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    eventually(WAIT, "the objects to be deleted from the cluster", || {
        let api = api.clone();
        async move {
            let left: usize = ["ConfigMap", "Deployment", "Service", "ReplicaSet", "Pod"]
                .iter()
                .map(|kind| {
                    api.list(kind)
                        .iter()
                        .filter(|o| {
                            o.pointer("/metadata/labels/flotilla~1deployment-id")
                                .is_some()
                        })
                        .count()
                })
                .sum();
            (left == 0).then_some(())
        }
    })
    .await;
    eventually(
        Duration::from_secs(60),
        "the group's resources to be Terminated",
        || {
            let mut client = client.clone();
            let dig = dig.clone();
            async move {
                let s = summary(&mut client, &dig, &[]).await;
                let r = s.rsync_status.unwrap_or_default();
                (r.applied == 0 && r.pending == 0 && r.retrying == 0).then_some(())
            }
        },
    )
    .await;
}

const SETTINGS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  mode: one
";

/// On a real cluster a Deployment's pods are owned by a ReplicaSet, which is not
/// rendered (nor watched). A rollout that changes another app carries web's Deployment
/// over unchanged, and with it the pods its cluster reported: in the new instance the
/// moment the rollout answers, with no report from the agent (nothing changed on the
/// cluster for web, so it sends none).
async fn a_rollout_keeps_the_pods_of_unchanged_deployments(server: &TestServer) {
    let mut client = server.client().await;
    let Kube {
        api,
        agent: _agent,
        _stop,
    } = kube_cluster(server, &mut client, Options::default()).await;
    let dig = group(&mut client, &[("web", WEB), ("settings", SETTINGS)]).await;
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    // 4 rendered, web's 2 pods: present and Ready.
    wait_summary(
        &client,
        &dig,
        "web and its pods to be ready",
        |r, c, ready| r.applied == 4 && c.present == 6 && ready.ready == 6,
    )
    .await;
    let owners: Vec<String> = api
        .list("Pod")
        .iter()
        .filter_map(|p| p.pointer("/metadata/ownerReferences/0/kind"))
        .filter_map(|k| k.as_str().map(String::from))
        .collect();
    assert_eq!(owners, ["ReplicaSet", "ReplicaSet"], "the emulator's pods");
    let pods_before: Vec<String> = detail(&mut client, &dig)
        .await
        .iter()
        .filter(|r| r.gvk.as_ref().is_some_and(|g| g.kind == "Pod") && present(r))
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(pods_before.len(), 2, "{pods_before:?}");

    let ca = names::composite_app("p", "shop", "v1");
    client
        .lifecycle
        .update_app(UpdateAppRequest {
            app: Some(App {
                name: format!("{ca}/apps/settings"),
                manifests: SETTINGS.replace("mode: one", "mode: two"),
                ..Default::default()
            }),
            update_mask: Some(prost_types::FieldMask {
                paths: vec!["manifests".into()],
            }),
        })
        .await
        .unwrap();
    client
        .lifecycle
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let before = summary(&mut client, &dig, &[]).await.instance;
    client
        .lifecycle
        .rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let resources = detail(&mut client, &dig).await;
    let pods_after: Vec<String> = resources
        .iter()
        .filter(|r| r.gvk.as_ref().is_some_and(|g| g.kind == "Pod") && present(r))
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(pods_after, pods_before, "{resources:?}");
    assert_ne!(summary(&mut client, &dig, &[]).await.instance, before);
    // The changed ConfigMap converges as usual; the pods stay.
    wait_summary(
        &client,
        &dig,
        "the new settings to be applied",
        |r, c, _| r.applied == 4 && c.present == 6,
    )
    .await;
    assert_eq!(
        api.get("ConfigMap", "shop", "settings").unwrap()["data"]["mode"],
        "two"
    );
}

/// The documents of `deploy/{file}`.
fn deploy_documents(file: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|document| {
            let value: Value =
                serde::Deserialize::deserialize(document).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(
                value["apiVersion"].is_string()
                    && value["kind"].is_string()
                    && value["metadata"]["name"].is_string(),
                "{file}: a document without apiVersion, kind or name: {value}"
            );
            value
        })
        .collect()
}

/// The in-cluster manifests agree with each other and with the README, and the API
/// server (the emulator) takes the agent's Deployment.
#[tokio::test]
async fn deploy_manifests_hold_together() {
    let namespace = deploy_documents("namespace.yaml");
    let ns = namespace[0]["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let rbac = deploy_documents("rbac.yaml");
    let find = |kind: &str| {
        rbac.iter()
            .find(|d| d["kind"] == kind)
            .unwrap_or_else(|| panic!("rbac.yaml has a {kind}"))
    };
    let account = find("ServiceAccount");
    assert_eq!(account["metadata"]["namespace"], ns.as_str());
    let binding = find("ClusterRoleBinding");
    assert_eq!(
        binding["roleRef"]["name"],
        find("ClusterRole")["metadata"]["name"]
    );
    assert_eq!(binding["subjects"][0]["name"], account["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["namespace"], ns.as_str());
    let rules = find("ClusterRole")["rules"].as_array().unwrap().clone();
    for (group, resource, verb) in [
        ("", "configmaps", "patch"),
        ("apps", "deployments", "watch"),
        ("", "namespaces", "create"),
        ("", "nodes", "watch"),
        (
            "subresources.kubevirt.io",
            "virtualmachines/restart",
            "update",
        ),
    ] {
        assert!(
            rules.iter().any(|r| {
                let has = |field: &str, v: &str| {
                    r[field]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|x| x == v))
                };
                has("apiGroups", group) && has("resources", resource) && has("verbs", verb)
            }),
            "the ClusterRole lets the agent {verb} {group}/{resource}"
        );
    }
    let agent = deploy_documents("agent.yaml").remove(0);
    assert_eq!(agent["metadata"]["namespace"], ns.as_str());
    let pod = &agent["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], account["metadata"]["name"]);
    let container = &pod["containers"][0];
    assert_eq!(container["args"], serde_json::json!(["--backend", "kube"]));
    let secret = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "FLOTILLA_AGENT_TOKEN")
        .expect("the token from a Secret");
    let secret_name = secret["valueFrom"]["secretKeyRef"]["name"]
        .as_str()
        .unwrap();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    assert!(
        readme.contains(&format!("-n {ns} create secret generic {secret_name}")),
        "the README creates the Secret the Deployment reads"
    );
    // The API server takes the namespace and the Deployment as they are.
    let stop = CancellationToken::new();
    let _stop = stop.clone().drop_guard();
    let api = KubeApi::start(Options::default(), stop).await;
    api.apply_as("kubectl", namespace[0].clone()).unwrap();
    api.apply_as("kubectl", agent).unwrap();
    eventually(WAIT, "the agent Deployment's pod to run", || {
        let api = api.clone();
        let ns = ns.clone();
        async move {
            api.list("Pod")
                .iter()
                .any(|p| p["metadata"]["namespace"] == ns.as_str())
                .then_some(())
        }
    })
    .await;
}
