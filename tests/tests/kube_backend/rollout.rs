//! Rollouts on a real cluster: the pods of Deployments a rollout leaves unchanged stay,
//! and server-side apply merges Flotilla's containers with another manager's.

use super::*;

const SETTINGS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: {ns}
data:
  mode: one
";

/// Replaces app `app`'s manifests, approves and rolls the group out.
async fn roll_out(client: &mut flotilla_client::Client, dig: &str, app: &str, manifests: String) {
    let ca = names::composite_app("p", "shop", "v1");
    client
        .lifecycle
        .update_app(UpdateAppRequest {
            app: Some(App {
                name: format!("{ca}/apps/{app}"),
                manifests,
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
            name: dig.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    client
        .lifecycle
        .rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
            name: dig.into(),
            ..Default::default()
        })
        .await
        .unwrap();
}

/// On a real cluster a Deployment's pods are owned by a ReplicaSet, which is not
/// rendered (nor watched). A rollout that changes another app carries web's Deployment
/// over unchanged, and with it the pods its cluster reported: in the new instance the
/// moment the rollout answers, with no report from the agent; and the pods themselves
/// are the same ones (the Deployment was not touched).
pub(super) async fn a_rollout_keeps_the_pods_of_unchanged_deployments(server: &TestServer) {
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let _agent = kube_agent(server, &mut client, plane, &[]).await;
    let settings = in_namespace(SETTINGS, &ns);
    let dig = group(
        &mut client,
        &[("web", &in_namespace(WEB, &ns)), ("settings", &settings)],
    )
    .await;
    instantiate(&mut client, &dig).await;
    // 4 rendered, web's 2 pods: present and Ready.
    wait_summary(
        &client,
        &dig,
        "web and its pods to be ready",
        |r, c, ready| r.applied == 4 && c.present == 6 && ready.ready == 6,
    )
    .await;
    let pods: Api<Pod> = Api::namespaced(admin.clone(), &ns);
    let uids = |list: Vec<Pod>| -> Vec<String> {
        let mut uids: Vec<String> = list.into_iter().filter_map(|p| p.metadata.uid).collect();
        uids.sort();
        uids
    };
    let uids_before = uids(pods.list(&ListParams::default()).await.unwrap().items);
    let pods_before: Vec<String> = detail(&mut client, &dig)
        .await
        .iter()
        .filter(|r| is_pod(r) && present(r))
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(pods_before.len(), 2, "{pods_before:?}");

    let before = summary(&mut client, &dig, &[]).await.instance;
    roll_out(
        &mut client,
        &dig,
        "settings",
        settings.replace("mode: one", "mode: two"),
    )
    .await;
    let resources = detail(&mut client, &dig).await;
    let pods_after: Vec<String> = resources
        .iter()
        .filter(|r| is_pod(r) && present(r))
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(pods_after, pods_before, "{resources:?}");
    assert_ne!(summary(&mut client, &dig, &[]).await.instance, before);
    // The changed ConfigMap converges as usual; the pods stay.
    let configs: Api<ConfigMap> = Api::namespaced(admin.clone(), &ns);
    eventually(WAIT, "the new settings to be applied", || {
        let configs = configs.clone();
        async move {
            let settings = configs.get("settings").await.ok()?;
            (settings.data?["mode"] == "two").then_some(())
        }
    })
    .await;
    wait_summary(&client, &dig, "the new instance to converge", |r, c, _| {
        r.applied == 4 && c.present == 6
    })
    .await;
    assert_eq!(
        uids(pods.list(&ListParams::default()).await.unwrap().items),
        uids_before,
        "web's pods were not replaced"
    );
}

/// The agent's server-side apply is a merge, per field manager: a container another
/// manager added to web's Deployment (containers is a list map keyed by name) stays
/// when Flotilla rolls out a new image of its own container.
pub(super) async fn list_merge_keeps_what_another_manager_added(server: &TestServer) {
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let _agent = kube_agent(server, &mut client, plane, &[]).await;
    let web = in_namespace(WEB, &ns);
    let dig = group(&mut client, &[("web", &web)]).await;
    instantiate(&mut client, &dig).await;
    wait_summary(&client, &dig, "web to be ready", |r, c, ready| {
        r.applied == 3 && c.present == 5 && ready.ready == 5
    })
    .await;
    // A mesh injector's manager adds a sidecar to the pod template.
    controlplane::apply(
        &admin,
        &json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": ns},
            "spec": {"template": {"spec": {"containers": [
                {"name": "sidecar", "image": "envoyproxy/envoy:v1.31"}
            ]}}},
        }),
        "mesh-injector",
    )
    .await
    .unwrap();
    roll_out(
        &mut client,
        &dig,
        "web",
        web.replace("image: nginx:1.27", "image: nginx:1.28"),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), &ns);
    let containers = eventually(WAIT, "web's new image to be applied", || {
        let deployments = deployments.clone();
        async move {
            let web = deployments.get("web").await.ok()?;
            let containers: Vec<(String, String)> = web
                .spec?
                .template
                .spec?
                .containers
                .into_iter()
                .map(|c| (c.name, c.image.unwrap_or_default()))
                .collect();
            containers
                .iter()
                .any(|(name, image)| name == "web" && image == "nginx:1.28")
                .then_some(containers)
        }
    })
    .await;
    assert_eq!(
        containers,
        [
            ("web".to_string(), "nginx:1.28".to_string()),
            ("sidecar".into(), "envoyproxy/envoy:v1.31".into())
        ],
        "both managers' containers, merged by name"
    );
    wait_summary(&client, &dig, "the rollout to converge", |r, c, ready| {
        r.applied == 3 && c.present == 5 && ready.ready == 5
    })
    .await;
}
