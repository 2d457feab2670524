//! End-to-end of the agent's kube backend against a real Kubernetes control plane
//! (`flotilla_tests::controlplane`: kube-apiserver, kube-controller-manager,
//! kube-scheduler, kwok nodes, etcd), on SQLite and PostgreSQL. The agent runs with a
//! token of `deploy/rbac.yaml`'s ServiceAccount, so every call it makes is authorised as
//! it would be in a cluster. Tests share one control plane, each in namespaces of its
//! own; the one that restarts and pauses the API server has a control plane to itself.
//! KubeVirt's API (virt-api's subresources, its snapshot controller) cannot run here:
//! VM actions stay on the emulator (`kube_backend/kubevirt.rs`).

use std::time::Duration;

use flotilla_client::names;
use flotilla_client::v1::*;
use flotilla_tests::controlplane::{self, ControlPlane};
use flotilla_tests::{TestAgent, TestServer, e2e_suite, eventually, wait_connectivity};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DeleteParams, ListParams};
use serde_json::{Value, json};

e2e_suite!(
    args = ["--sim", "false"],
    kube_agent_deploys_reports_and_heals,
    a_cluster_that_stops_answering_or_forgets_its_history_is_recovered,
    force_conflicts_takes_fields_over,
    a_rollout_keeps_the_pods_of_unchanged_deployments,
    list_merge_keeps_what_another_manager_added,
    network_intents_apply_once_their_crds_are_installed,
    lists_are_paged,
    an_app_id_of_63_characters_deploys,
    kube_agent_runs_vm_actions_through_kubevirt,
    concurrent_verbs_leave_no_stale_pod,
);

#[path = "kube_backend/apply.rs"]
mod apply;
use crate::common::fleet;
#[path = "kube_backend/kubevirt.rs"]
mod kubevirt;
#[path = "kube_backend/rollout.rs"]
mod rollout;
#[path = "kube_backend/storm.rs"]
mod storm;
use apply::*;
use fleet::{WAIT, clusters, instantiate, summary};
use kubevirt::*;
use rollout::*;
use storm::*;

/// `{ns}` stands for the test's namespace.
const WEB: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: {ns}
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
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
  namespace: {ns}
spec:
  selector: {app: web}
  ports:
  - port: 80
";

/// A Deployment without a selector: the API server refuses it (422); a ConfigMap whose
/// field another manager (Helm) owns with another value: a conflict (409); a
/// ServiceAccount, which deploy/rbac.yaml does not let the agent write (403).
const BROKEN: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: shared-settings
  namespace: {ns}
data:
  mode: flotilla
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: broken
  namespace: {ns}
spec:
  replicas: 1
  template:
    metadata:
      labels: {app: broken}
    spec:
      containers:
      - name: broken
        image: busybox
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: robot
  namespace: {ns}
";

/// A fresh namespace name for one test.
fn namespace() -> String {
    format!("t-{}", &uuid::Uuid::new_v4().simple().to_string()[..10])
}

/// `manifests` with `{ns}` replaced, and every top-level object that names no
/// namespace put in `ns`.
fn in_namespace(manifests: &str, ns: &str) -> String {
    manifests
        .replace("{ns}", ns)
        .split("---\n")
        .map(|document| {
            // A document that names its namespace keeps it (a key twice is refused).
            if document.contains("\n  namespace: ") {
                document.to_string()
            } else {
                document.replace(
                    "metadata:\n  name:",
                    &format!("metadata:\n  namespace: {ns}\n  name:"),
                )
            }
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

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

fn is_pod(r: &ResourceStatusEntry) -> bool {
    r.gvk.as_ref().is_some_and(|g| g.kind == "Pod")
}

/// Waits until the group's summary counts (rsync, cluster, readiness) satisfy `done`.
async fn wait_summary(
    client: &flotilla_client::Client,
    dig: &str,
    what: &str,
    done: impl Fn(&RsyncStatusCounts, &ClusterStatusCounts, &ReadinessCounts) -> bool,
) {
    eventually(WAIT, what, || {
        let mut client = client.clone();
        let dig = dig.to_string();
        let done = &done;
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

/// Cluster `k1` of provider `cp`, served by a `flotilla-agent --backend kube` on
/// `plane` as deploy/rbac.yaml's ServiceAccount.
async fn kube_agent(
    server: &TestServer,
    client: &mut flotilla_client::Client,
    plane: &ControlPlane,
    extra: &[&str],
) -> TestAgent {
    let tokens = clusters(client, &["k1"]).await;
    let agent = start_kube_agent(server, &tokens["k1"], plane, extra);
    wait_connectivity(client, &names::cluster("cp", "k1"), Connectivity::Available).await;
    agent
}

/// Starts the kube agent of `k1` with `token` (no wait).
fn start_kube_agent(
    server: &TestServer,
    token: &str,
    plane: &ControlPlane,
    extra: &[&str],
) -> TestAgent {
    let kubeconfig = plane.agent_kubeconfig.to_str().unwrap().to_string();
    let mut args = vec![
        "--backend",
        "kube",
        "--kubeconfig",
        &kubeconfig,
        "--context",
        controlplane::CONTEXT,
        "--unreachable-after-seconds",
        "2",
    ];
    args.extend_from_slice(extra);
    TestAgent::start_with(server, &names::cluster("cp", "k1"), token, &args)
}

/// Helm owns the field `data.mode` (set to `helm`) of ConfigMap `shared-settings` in
/// namespace `ns`, which it creates.
async fn helm_owns_mode(admin: &kube::Client, ns: &str) {
    controlplane::apply(
        admin,
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        "helm",
    )
    .await
    .unwrap();
    controlplane::apply(
        admin,
        &json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "shared-settings", "namespace": ns}, "data": {"mode": "helm"}}),
        "helm",
    )
    .await
    .unwrap();
}

/// The objects of `namespace` carrying the deployment-id label, by kind.
async fn labelled(admin: &kube::Client, namespace: &str) -> Vec<String> {
    let params = ListParams::default().labels("flotilla/deployment-id");
    let mut found = Vec::new();
    for (api_version, kind, plural) in [
        ("v1", "ConfigMap", "configmaps"),
        ("apps/v1", "Deployment", "deployments"),
        ("v1", "Service", "services"),
        ("apps/v1", "ReplicaSet", "replicasets"),
        ("v1", "Pod", "pods"),
    ] {
        let api = controlplane::api_of(admin, api_version, kind, plural, Some(namespace));
        for object in api.list(&params).await.unwrap().items {
            found.push(format!(
                "{kind}/{}",
                object.metadata.name.unwrap_or_default()
            ));
        }
    }
    found
}

async fn kube_agent_deploys_reports_and_heals(server: &TestServer) {
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let agent = kube_agent(server, &mut client, plane, &[]).await;
    // The hello's facts show on the cluster: the API server's version, kwok's nodes.
    let k1 = client
        .lifecycle
        .get_cluster(GetClusterRequest {
            name: names::cluster("cp", "k1"),
        })
        .await
        .unwrap()
        .into_inner();
    let version = plane.version.trim_start_matches("Kubernetes ");
    assert_eq!(
        (
            k1.agent_backend.as_str(),
            k1.cluster_version.as_str(),
            k1.nodes.clone()
        ),
        (
            "kube",
            version,
            vec![
                "kwok-node-0".to_string(),
                "kwok-node-1".into(),
                "kwok-node-2".into()
            ]
        ),
        "{k1:?}"
    );
    assert!(agent.log_text().contains("serving a Kubernetes cluster"));
    // Helm owns a field the group sets to another value.
    helm_owns_mode(&admin, &ns).await;

    // The demo's apps (valid Kubernetes) next to ours.
    let (web, broken) = (in_namespace(WEB, &ns), in_namespace(BROKEN, &ns));
    let collectd = in_namespace(flotilla_server::demo::COLLECTD, &ns);
    let operator = in_namespace(flotilla_server::demo::OPERATOR, &ns);
    let dig = group(
        &mut client,
        &[
            ("web", &web),
            ("broken", &broken),
            ("collectd", &collectd),
            ("operator", &operator),
        ],
    )
    .await;
    instantiate(&mut client, &dig).await;

    // web, collectd, operator: 7 applied and present, their 5 pods present and Ready;
    // broken: 3 Failed with the API server's messages.
    wait_summary(
        &client,
        &dig,
        "web to be applied, present and ready",
        |r, c, ready| r.applied == 7 && r.failed == 3 && c.present == 12 && ready.ready == 12,
    )
    .await;
    let resources = detail(&mut client, &dig).await;
    let broken = find(&resources, "Deployment", "broken").expect("broken listed");
    assert_eq!(broken.rsync_status(), RsyncStatus::Failed, "{broken:?}");
    // The group's condition quotes the API server: the invalid Deployment, the conflict
    // with Helm's field (which stays Helm's), the ServiceAccount RBAC forbids.
    let conditions = summary(&mut client, &dig, &[]).await.conditions;
    let applied = conditions
        .iter()
        .find(|c| c.r#type == "ResourcesApplied")
        .expect("ResourcesApplied");
    let message = &applied.message;
    for expected in [
        "3 of 10 resources were rejected".to_string(),
        format!(
            "Deployment {ns}/broken on k1: the API server refused it (422 Invalid): \
             Deployment.apps \"broken\" is invalid: "
        ),
        "spec.selector: Required value".into(),
        format!("ConfigMap {ns}/shared-settings on k1"),
        "409 Conflict".into(),
        "conflict with \"helm\"".into(),
        ".data.mode".into(),
        format!("ServiceAccount {ns}/robot on k1: the API server refused it (403 Forbidden)"),
        format!(
            "User \"{}\" cannot patch resource \"serviceaccounts\" in API group \"\" in the namespace \"{ns}\"",
            plane.agent_user
        ),
    ] {
        assert!(message.contains(&expected), "{expected:?} in {applied:?}");
    }
    let configs: Api<ConfigMap> = Api::namespaced(admin.clone(), &ns);
    let helm = configs.get("shared-settings").await.unwrap();
    assert_eq!(helm.data.unwrap()["mode"], "helm");
    let web = find(&resources, "Deployment", "web").expect("web listed");
    assert_eq!(web.readiness(), Readiness::Ready, "{web:?}");
    // The pods are the ReplicaSet's, bound to kwok's nodes, and carry the deployment id
    // through the template.
    let pods: Api<Pod> = Api::namespaced(admin.clone(), &ns);
    let web_pods = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap()
        .items;
    assert_eq!(web_pods.len(), 2, "{web_pods:?}");
    for pod in &web_pods {
        assert!(
            pod.metadata
                .labels
                .as_ref()
                .unwrap()
                .contains_key("flotilla/deployment-id")
        );
        assert_eq!(
            pod.metadata.owner_references.as_ref().unwrap()[0].kind,
            "ReplicaSet"
        );
        assert!(pod.spec.as_ref().unwrap().node_name.is_some(), "{pod:?}");
    }

    // Deleted behind the agent's back: reported NotPresent, then applied again.
    let uid = configs.get("web-config").await.unwrap().metadata.uid;
    configs
        .delete("web-config", &DeleteParams::default())
        .await
        .unwrap();
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
            let configs = configs.clone();
            let uid = uid.clone();
            async move {
                let again = configs.get_opt("web-config").await.ok()??;
                let resources = detail(&mut client, &dig).await;
                let config = find(&resources, "ConfigMap", "web-config")?;
                (again.metadata.uid != uid && present(config)).then_some(())
            }
        },
    )
    .await;

    // A pod deleted: its ReplicaSet makes another, reported in its place.
    let old_pod = web_pods[0].metadata.name.clone().unwrap();
    pods.delete(&old_pod, &DeleteParams::default())
        .await
        .unwrap();
    eventually(WAIT, "the replacement pod to be reported Ready", || {
        let mut client = client.clone();
        let dig = dig.clone();
        let old_pod = old_pod.clone();
        async move {
            let resources = detail(&mut client, &dig).await;
            let pods: Vec<&ResourceStatusEntry> = resources.iter().filter(|r| is_pod(r)).collect();
            let gone = pods.iter().all(|p| p.name != old_pod || !present(p));
            let ready = pods
                .iter()
                .filter(|p| present(p) && p.readiness() == Readiness::Ready)
                .count();
            (gone && ready == 5).then_some(())
        }
    })
    .await;

    // Terminate: every object deleted (foreground: the ReplicaSets and pods first) and
    // confirmed gone.
    client
        .lifecycle
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    eventually(WAIT, "the objects to be deleted from the cluster", || {
        let admin = admin.clone();
        let ns = ns.clone();
        async move { labelled(&admin, &ns).await.is_empty().then_some(()) }
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
    // The agent's deletes were foreground, as the API server's audit log recorded them.
    let deletes: Vec<Value> = plane
        .agent_requests()
        .into_iter()
        .filter(|e| e["verb"] == "delete" && e["objectRef"]["namespace"] == ns.as_str())
        .collect();
    let deployments: std::collections::BTreeSet<&str> = deletes
        .iter()
        .filter(|e| e["objectRef"]["resource"] == "deployments")
        .filter_map(|e| e["objectRef"]["name"].as_str())
        .collect();
    assert_eq!(
        deployments,
        ["collectd", "guest", "operator", "web"].into(),
        "{deletes:?}"
    );
    for delete in &deletes {
        assert_eq!(
            delete["requestObject"]["propagationPolicy"], "Foreground",
            "{delete}"
        );
    }
    drop(agent);
}

/// The API server restarted after an etcd compaction: the agent's watches resume
/// from versions that are gone (`410 Gone`), so it lists again and sees what changed.
/// Then the API server stops answering (SIGSTOP): the agent ends its session after 2 s,
/// the server holds the cluster's resources Retrying, and when it answers again the
/// agent reconnects and everything is Applied again.
async fn a_cluster_that_stops_answering_or_forgets_its_history_is_recovered(server: &TestServer) {
    let plane = ControlPlane::start(controlplane::Options::default()).await;
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let agent = kube_agent(server, &mut client, &plane, &[]).await;
    let dig = group(&mut client, &[("web", &in_namespace(WEB, &ns))]).await;
    instantiate(&mut client, &dig).await;
    wait_summary(&client, &dig, "web to be ready", |r, c, ready| {
        r.applied == 3 && c.present == 5 && ready.ready == 5
    })
    .await;
    let lists = |plane: &ControlPlane| {
        plane
            .agent_requests()
            .iter()
            .filter(|e| e["verb"] == "list" && e["objectRef"]["resource"] == "pods")
            .count()
    };
    let before = lists(&plane);
    plane.compact_and_restart_apiserver().await;
    // While the agent relists, a pod goes: the new one is reported, the old one not.
    let pods: Api<Pod> = Api::namespaced(admin.clone(), &ns);
    let old_pod = pods.list(&ListParams::default()).await.unwrap().items[0]
        .metadata
        .name
        .clone()
        .unwrap();
    pods.delete(&old_pod, &DeleteParams::default())
        .await
        .unwrap();
    eventually(
        WAIT,
        "the agent to list again after 410 and report the new pod",
        || {
            let mut client = client.clone();
            let dig = dig.clone();
            let old_pod = old_pod.clone();
            let relisted = lists(&plane) > before;
            async move {
                let resources = detail(&mut client, &dig).await;
                let pods: Vec<&ResourceStatusEntry> =
                    resources.iter().filter(|r| is_pod(r)).collect();
                let gone = pods.iter().all(|p| p.name != old_pod || !present(p));
                let ready = pods
                    .iter()
                    .filter(|p| present(p) && p.readiness() == Readiness::Ready)
                    .count();
                (relisted && gone && ready == 2).then_some(())
            }
        },
    )
    .await;
    let log = agent.log_text();
    assert!(
        log.contains("410") || log.contains("too old resource version"),
        "the agent's watch was expired: {log}"
    );

    plane.pause_apiserver();
    eventually(WAIT, "the cluster's resources to be Retrying", || {
        let mut client = client.clone();
        let dig = dig.clone();
        async move {
            let r = summary(&mut client, &dig, &[])
                .await
                .rsync_status
                .unwrap_or_default();
            (r.retrying == 3).then_some(())
        }
    })
    .await;
    assert!(agent.log_text().contains("the cluster does not answer"));
    plane.resume_apiserver();
    wait_summary(
        &client,
        &dig,
        "the cluster to converge again after the API server is back",
        |r, c, _| r.applied == 3 && r.retrying == 0 && c.present == 5,
    )
    .await;
    drop(agent);
}
