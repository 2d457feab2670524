//! A fleet to instantiate in one process: `apps` apps of `docs` ConfigMaps each
//! (`flotilla_tests::configmap_manifests`), placed by label on `clusters` agent-mode
//! clusters `clusterProviders/edge/clusters/c{n}`, in intent group [`DIG`]. Shared by
//! the status_writes bench (100 x 100 x 10) and the store tests that need a placed
//! instance (`#[path]`-included: a bench cannot use the tests' `common` module).

use flotilla_server::app::lifecycle::Lifecycle;
use flotilla_server::domain::names::*;
use flotilla_server::domain::resources::*;

pub const VERSION: &str = "projects/bench/compositeApps/fleet/versions/v1";
pub const DIG: &str = "projects/bench/compositeApps/fleet/versions/v1/deploymentIntentGroups/prod";

pub fn name(kind: &'static Kind, path: &str) -> ResourceName {
    ResourceName::parse(kind, "name", path).expect("a valid name")
}

/// Creates the fleet's project, apps, clusters, intent group and placements (not
/// approved, not instantiated).
pub async fn seed(app: &Lifecycle, apps: usize, clusters: usize, docs: usize) {
    app.create(
        name(&PROJECT, "projects/bench"),
        ProjectSpec::default(),
        None,
    )
    .await
    .expect("seed");
    app.create(
        name(&COMPOSITE_APP, VERSION),
        CompositeAppSpec::default(),
        None,
    )
    .await
    .expect("seed");
    app.create(
        name(
            &COMPOSITE_PROFILE,
            &format!("{VERSION}/compositeProfiles/default"),
        ),
        CompositeProfileSpec::default(),
        None,
    )
    .await
    .expect("seed");
    app.create(
        name(&CLUSTER_PROVIDER, "clusterProviders/edge"),
        ClusterProviderSpec::default(),
        None,
    )
    .await
    .expect("seed");
    for c in 0..clusters {
        app.create_cluster(
            name(&CLUSTER, &format!("clusterProviders/edge/clusters/c{c}")),
            ClusterSpec {
                labels: [("fleet".to_string(), "edge".to_string())].into(),
                connection_mode: ConnectionMode::Agent,
                ..Default::default()
            },
            None,
        )
        .await
        .expect("cluster");
    }
    app.create_dig(
        name(&DEPLOYMENT_INTENT_GROUP, DIG),
        DigSpec {
            composite_profile: "default".into(),
            ..Default::default()
        },
        None,
    )
    .await
    .expect("intent group");
    for a in 0..apps {
        app.create(
            name(&APP, &format!("{VERSION}/apps/a{a}")),
            AppSpec {
                manifests: flotilla_tests::configmap_manifests(a, docs),
                document_count: docs,
                ..Default::default()
            },
            None,
        )
        .await
        .expect("seed");
        app.create(
            name(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/a{a}")),
            PlacementIntentSpec {
                app: format!("a{a}"),
                cluster_provider: "edge".into(),
                cluster_selector: [("fleet".to_string(), "edge".to_string())].into(),
                ..Default::default()
            },
            None,
        )
        .await
        .expect("seed");
    }
}
