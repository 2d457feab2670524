//! The test control plane is a real one: a Deployment applied to it gets a ReplicaSet
//! (controller-manager), pods bound to kwok's nodes (scheduler) and Ready pods (kwok),
//! and the agent's ServiceAccount has exactly `deploy/rbac.yaml`'s rights.

use std::time::Duration;

use flotilla_tests::controlplane::{self, ControlPlane};
use flotilla_tests::eventually;
use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_gets_replicas_scheduled_and_ready() {
    let plane = ControlPlane::shared();
    eprintln!("{}", plane.version);
    assert!(
        plane.version.starts_with("Kubernetes v1."),
        "{}",
        plane.version
    );
    let admin = plane.admin().await;
    let namespace = format!("smoke-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    controlplane::apply(
        &admin,
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
        "test",
    )
    .await
    .unwrap();
    controlplane::apply(
        &admin,
        &json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": namespace},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
                },
            },
        }),
        "test",
    )
    .await
    .unwrap();
    let pods: Api<Pod> = Api::namespaced(admin.clone(), &namespace);
    let ready = eventually(WAIT, "three Ready pods on kwok nodes", || {
        let pods = pods.clone();
        async move {
            let list = pods.list(&ListParams::default()).await.ok()?.items;
            let ready: Vec<Pod> = list
                .into_iter()
                .filter(|p| {
                    p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_some()
                        && p.status
                            .as_ref()
                            .and_then(|s| s.conditions.as_ref())
                            .is_some_and(|c| {
                                c.iter().any(|c| c.type_ == "Ready" && c.status == "True")
                            })
                })
                .collect();
            (ready.len() == 3).then_some(ready)
        }
    })
    .await;
    let nodes: Vec<String> = Api::<Node>::all(admin.clone())
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    for pod in &ready {
        let node = pod.spec.as_ref().unwrap().node_name.clone().unwrap();
        assert!(nodes.contains(&node), "{node} not in {nodes:?}");
        let owner = &pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(owner.kind, "ReplicaSet");
        assert!(pod.status.as_ref().unwrap().pod_ip.is_some(), "{pod:?}");
    }
    let sets: Api<ReplicaSet> = Api::namespaced(admin, &namespace);
    assert_eq!(
        sets.list(&ListParams::default()).await.unwrap().items.len(),
        1
    );

    // The agent's token: what deploy/rbac.yaml grants, and nothing more.
    let agent = plane.as_agent().await;
    let agent_pods: Api<Pod> = Api::namespaced(agent.clone(), &namespace);
    assert_eq!(
        agent_pods
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        3
    );
    let roles: Api<k8s_openapi::api::rbac::v1::Role> = Api::namespaced(agent, &namespace);
    match roles.list(&ListParams::default()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 403, "{status:?}");
            assert!(status.message.contains(&plane.agent_user), "{status:?}");
        }
        other => panic!("the agent may not list roles: {other:?}"),
    }
}
