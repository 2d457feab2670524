//! `--demo`: seeds a cluster provider `edge` with two EMBEDDED_SIM clusters (`cluster1`,
//! `cluster2`) and a project `demo` whose composite app `shop`/`v1` (apps `collectd`
//! and `operator`, profile `default`) has an intent group `prod` placed on both
//! clusters, ready to approve and instantiate. The operator app runs one operator pod
//! and a VM, `guest`, whose pod carries KubeVirt's `kubevirt.io/domain` label (so it
//! can be snapshotted). Existing resources are left alone.

use serde_json::json;
use tracing::info;

use crate::app::lifecycle::Lifecycle;
use crate::domain::names::*;
use crate::domain::resources::*;
use crate::error::{Error, Result};

/// The demo's `collectd` app: valid for a real API server too (selector, containers).
pub const COLLECTD: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: collectd
spec:
  replicas: 1
  selector:
    matchLabels: {app: collectd}
  template:
    metadata:
      labels: {app: collectd}
    spec:
      containers:
      - name: collectd
        image: registry.k8s.io/pause:3.10
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: collectd-config
data:
  interval: \"10\"
";

/// The demo's `operator` app, with the `guest` VM stand-in.
pub const OPERATOR: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: operator
spec:
  replicas: 1
  selector:
    matchLabels: {app: operator}
  template:
    metadata:
      labels: {app: operator}
    spec:
      containers:
      - name: operator
        image: registry.k8s.io/pause:3.10
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: guest
spec:
  replicas: 1
  selector:
    matchLabels: {app: guest}
  template:
    metadata:
      labels: {app: guest, kubevirt.io/domain: guest}
    spec:
      containers:
      - name: guest
        image: registry.k8s.io/pause:3.10
";

fn name(kind: &'static Kind, text: &str) -> ResourceName {
    ResourceName::parse(kind, "name", text).expect("demo names are valid")
}

/// Ignores ALREADY_EXISTS so seeding is idempotent.
fn exists_ok<T>(result: Result<T>) -> Result<()> {
    match result {
        Ok(_) | Err(Error::AlreadyExists { .. }) => Ok(()),
        Err(error) => Err(error),
    }
}

/// Creates a plain object unless it exists.
async fn ensure<S>(app: &Lifecycle, kind: &'static Kind, text: &str, spec: S) -> Result<()>
where
    S: serde::Serialize + serde::de::DeserializeOwned + Clone,
{
    exists_ok(app.create(name(kind, text), spec, None).await)
}

pub async fn seed(app: &Lifecycle) -> Result<()> {
    ensure(
        app,
        &CLUSTER_PROVIDER,
        "clusterProviders/edge",
        ClusterProviderSpec::default(),
    )
    .await?;
    for cluster in ["cluster1", "cluster2"] {
        let spec = ClusterSpec {
            description: format!("embedded sim cluster {cluster}"),
            labels: [("site".to_string(), "store".to_string())].into(),
            connection_mode: ConnectionMode::EmbeddedSim,
            container_cluster: String::new(),
        };
        exists_ok(
            app.create_cluster(
                name(
                    &CLUSTER,
                    &format!("clusterProviders/edge/clusters/{cluster}"),
                ),
                spec,
                None,
            )
            .await,
        )?;
    }
    ensure(app, &PROJECT, "projects/demo", ProjectSpec::default()).await?;
    let version = "projects/demo/compositeApps/shop/versions/v1";
    ensure(app, &COMPOSITE_APP, version, CompositeAppSpec::default()).await?;
    for (app_id, manifests, count) in [("collectd", COLLECTD, 2), ("operator", OPERATOR, 2)] {
        let spec = AppSpec {
            description: String::new(),
            manifests: manifests.to_string(),
            document_count: count,
        };
        ensure(app, &APP, &format!("{version}/apps/{app_id}"), spec).await?;
    }
    ensure(
        app,
        &COMPOSITE_PROFILE,
        &format!("{version}/compositeProfiles/default"),
        CompositeProfileSpec::default(),
    )
    .await?;
    let patch = ManifestPatch {
        target_kind: "Deployment".into(),
        target_name: String::new(),
        merge_patch: json!({"spec": {"replicas": 2}}),
    };
    ensure(
        app,
        &APP_PROFILE,
        &format!("{version}/compositeProfiles/default/appProfiles/collectd"),
        AppProfileSpec {
            description: String::new(),
            app: "collectd".into(),
            patches: vec![patch],
        },
    )
    .await?;
    let dig = format!("{version}/deploymentIntentGroups/prod");
    exists_ok(
        app.create_dig(
            name(&DEPLOYMENT_INTENT_GROUP, &dig),
            DigSpec {
                description: "the demo".into(),
                composite_profile: "default".into(),
                override_values: vec![],
            },
            None,
        )
        .await,
    )?;
    for app_id in ["collectd", "operator"] {
        let spec = PlacementIntentSpec {
            description: String::new(),
            app: app_id.into(),
            cluster_provider: "edge".into(),
            cluster_names: vec!["cluster1".into(), "cluster2".into()],
            cluster_selector: Default::default(),
        };
        ensure(
            app,
            &PLACEMENT_INTENT,
            &format!("{dig}/placementIntents/{app_id}"),
            spec,
        )
        .await?;
    }
    info!(deployment_intent_group = %dig, "demo seeded: approve and instantiate it");
    Ok(())
}
