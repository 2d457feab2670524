//! The repository and use-case suite, run against SQLite and PostgreSQL alike: CRUD with
//! pagination and etags, the intent group and network intent lifecycles, rendering,
//! approval resets and refused instantiates (request ids: `request_id_suite`).

use flotilla_server::app::lifecycle::{DigView, Lifecycle, Verb};
use flotilla_server::domain::lifecycle::{DigState, NetworkOp, NetworkState, PendingKind};
use flotilla_server::domain::names::*;
use flotilla_server::domain::render::DEPLOYMENT_ID_LABEL;
use flotilla_server::domain::resources::*;
use flotilla_server::domain::status::RsyncStatus;
use flotilla_server::error::{Conflict, Error, Precondition};
use flotilla_server::store::Store;
use flotilla_server::store::object::Object;
use flotilla_server::store::rsync_resource::ResourceFilter;
use serde_json::json;

backend_suite!(
    crud_pagination_and_etags,
    children_block_deletes,
    dig_lifecycle_renders_and_terminates,
    changes_reset_approval_and_are_pending_while_instantiated,
    refused_instantiate_writes_nothing,
    network_intents_lifecycle,
);

fn n(kind: &'static Kind, name: &str) -> ResourceName {
    ResourceName::parse(kind, "name", name).unwrap()
}

const VERSION: &str = "projects/p/compositeApps/ca/versions/v1";
const DIG: &str = "projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d";

fn manifests(app: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {app}\n"
    )
}

/// Project p, composite app ca/v1 with apps a1 and a2, profile prof with a patch for a1,
/// provider cp with clusters c1 (region=east) and c2 (region=west), intent group d
/// with a1 on c1 by name and a2 on region=west by selector.
async fn seed(app: &Lifecycle) {
    app.create(n(&PROJECT, "projects/p"), ProjectSpec::default(), None)
        .await
        .unwrap();
    app.create(
        n(&COMPOSITE_APP, VERSION),
        CompositeAppSpec::default(),
        None,
    )
    .await
    .unwrap();
    for a in ["a1", "a2"] {
        let spec = AppSpec {
            manifests: manifests(a),
            document_count: 2,
            ..Default::default()
        };
        app.create(n(&APP, &format!("{VERSION}/apps/{a}")), spec, None)
            .await
            .unwrap();
    }
    app.create(
        n(
            &COMPOSITE_PROFILE,
            &format!("{VERSION}/compositeProfiles/prof"),
        ),
        CompositeProfileSpec::default(),
        None,
    )
    .await
    .unwrap();
    let patch = ManifestPatch {
        target_kind: "Deployment".into(),
        target_name: String::new(),
        merge_patch: json!({"spec": {"replicas": 3}}),
    };
    app.create(
        n(
            &APP_PROFILE,
            &format!("{VERSION}/compositeProfiles/prof/appProfiles/a1"),
        ),
        AppProfileSpec {
            app: "a1".into(),
            patches: vec![patch],
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    app.create(
        n(&CLUSTER_PROVIDER, "clusterProviders/cp"),
        ClusterProviderSpec::default(),
        None,
    )
    .await
    .unwrap();
    for (c, region) in [("c1", "east"), ("c2", "west")] {
        let spec = ClusterSpec {
            labels: [("region".to_string(), region.to_string())].into(),
            connection_mode: ConnectionMode::EmbeddedSim,
            ..Default::default()
        };
        app.create_cluster(
            n(&CLUSTER, &format!("clusterProviders/cp/clusters/{c}")),
            spec,
            None,
        )
        .await
        .unwrap();
    }
    app.create_dig(
        n(&DEPLOYMENT_INTENT_GROUP, DIG),
        DigSpec {
            composite_profile: "prof".into(),
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    app.create(
        n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/p1")),
        PlacementIntentSpec {
            app: "a1".into(),
            cluster_provider: "cp".into(),
            cluster_names: vec!["c1".into()],
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
    app.create(
        n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/p2")),
        PlacementIntentSpec {
            app: "a2".into(),
            cluster_provider: "cp".into(),
            cluster_selector: [("region".to_string(), "west".to_string())].into(),
            ..Default::default()
        },
        None,
    )
    .await
    .unwrap();
}

fn dig() -> ResourceName {
    n(&DEPLOYMENT_INTENT_GROUP, DIG)
}

/// Runs `verb` on the test's group, without an etag or request id.
async fn verb(app: &Lifecycle, verb: Verb) -> Result<DigView, Error> {
    app.run_dig_verb(&dig(), verb, None, None).await
}

async fn crud_pagination_and_etags(store: Store) {
    let app = Lifecycle::new(store);
    for i in 0..7 {
        app.create(
            n(&PROJECT, &format!("projects/p{i}")),
            ProjectSpec::default(),
            None,
        )
        .await
        .unwrap();
    }
    let page1 = app
        .list::<ProjectSpec>(&PROJECT, None, "", 3)
        .await
        .unwrap();
    assert_eq!(page1.items.len(), 3);
    assert!(page1.more);
    let after = page1.items.last().unwrap().name.to_string();
    let page2 = app
        .list::<ProjectSpec>(&PROJECT, None, &after, 10)
        .await
        .unwrap();
    assert_eq!(page2.items.len(), 4);
    assert!(!page2.more);
    assert_eq!(page2.items[0].name.to_string(), "projects/p3");

    let err = app
        .create(n(&PROJECT, "projects/p0"), ProjectSpec::default(), None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AlreadyExists { .. }), "{err}");

    let name = n(&PROJECT, "projects/p0");
    let before: Object<ProjectSpec> = app.get(&name).await.unwrap();
    let updated = app
        .update(
            &name,
            Some(before.generation),
            0,
            |current: &Object<ProjectSpec>| {
                Ok(ProjectSpec {
                    description: "new".into(),
                    ..current.spec.clone()
                })
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.spec.description, "new");
    assert_eq!(updated.generation, before.generation + 1);
    let stale = app
        .update(
            &name,
            Some(before.generation),
            0,
            |c: &Object<ProjectSpec>| Ok(c.spec.clone()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            stale,
            Error::Aborted {
                reason: Conflict::EtagMismatch,
                ..
            }
        ),
        "{stale}"
    );
    let stale_delete = app
        .delete(&name, Some(before.generation))
        .await
        .unwrap_err();
    assert!(matches!(stale_delete, Error::Aborted { .. }));
    app.delete(&name, Some(updated.generation)).await.unwrap();
    let gone = app.get::<ProjectSpec>(&name).await.unwrap_err();
    assert!(matches!(gone, Error::NotFound { .. }));

    let missing_parent = app
        .create(
            n(&COMPOSITE_APP, "projects/nope/compositeApps/x/versions/v1"),
            CompositeAppSpec::default(),
            None,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(missing_parent, Error::NotFound { .. }),
        "{missing_parent}"
    );
}

async fn children_block_deletes(store: Store) {
    let app = Lifecycle::new(store);
    seed(&app).await;
    for (kind, name) in [
        (&PROJECT, "projects/p"),
        (&COMPOSITE_APP, VERSION),
        (&CLUSTER_PROVIDER, "clusterProviders/cp"),
    ] {
        let err = app.delete(&n(kind, name), None).await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::FailedPrecondition {
                    reason: Precondition::HasChildren,
                    ..
                }
            ),
            "{name}: {err}"
        );
    }
    // An app used by an app profile and a placement intent cannot go.
    let err = app
        .delete(&n(&APP, &format!("{VERSION}/apps/a1")), None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::InUse,
                ..
            }
        ),
        "{err}"
    );
    // A profile used by an intent group cannot go either (after its app profile).
    app.delete(
        &n(
            &APP_PROFILE,
            &format!("{VERSION}/compositeProfiles/prof/appProfiles/a1"),
        ),
        None,
    )
    .await
    .unwrap();
    let err = app
        .delete(
            &n(
                &COMPOSITE_PROFILE,
                &format!("{VERSION}/compositeProfiles/prof"),
            ),
            None,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::InUse,
                ..
            }
        ),
        "{err}"
    );
    let err = app.delete_dig(&dig(), None).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::HasChildren,
                ..
            }
        ),
        "{err}"
    );
}

async fn dig_lifecycle_renders_and_terminates(store: Store) {
    let app = Lifecycle::new(store);
    seed(&app).await;
    let created = app.get_dig(&dig()).await.unwrap();
    assert_eq!(created.status.state, DigState::Created);

    let refused = verb(&app, Verb::Instantiate).await.unwrap_err();
    match &refused {
        Error::FailedPrecondition {
            reason,
            message,
            metadata,
            ..
        } => {
            assert_eq!(*reason, Precondition::InvalidStateTransition);
            assert!(message.contains("must be approved"), "{message}");
            assert!(metadata.contains(&("current_state".into(), "CREATED".into())));
        }
        other => panic!("unexpected {other}"),
    }

    let approved = verb(&app, Verb::Approve).await.unwrap();
    assert_eq!(approved.status.state, DigState::Approved);
    assert!(!approved.status.approved_hash.is_empty());
    // Approving again is a no-op: no new history entry.
    let again = verb(&app, Verb::Approve).await.unwrap();
    assert_eq!(again.history.len(), approved.history.len());

    let instantiated = verb(&app, Verb::Instantiate).await.unwrap();
    assert_eq!(instantiated.status.state, DigState::Instantiated);
    let instance = instantiated.status.current_instance.unwrap();
    let states: Vec<_> = instantiated
        .history
        .iter()
        .map(|h| h.event.as_str())
        .collect();
    assert_eq!(states, ["CREATED", "APPROVED", "INSTANTIATED"]);
    assert_eq!(instantiated.history[2].instance, Some(instance));
    // Verbs without an instance record none (not an empty id).
    assert_eq!(instantiated.history[1].instance, None);

    let page = app
        .list_rendered(&dig(), None, &ResourceFilter::default(), None, 100)
        .await
        .unwrap();
    // a1 on c1 (2 docs) + a2 on c2 (2 docs).
    assert_eq!(page.resources.len(), 4);
    assert_eq!(page.instance.resource_count, 4);
    for r in &page.resources {
        assert_eq!(r.status, RsyncStatus::Pending);
        let manifest: serde_json::Value = serde_json::from_str(&r.manifest).unwrap();
        assert_eq!(
            manifest["metadata"]["labels"][DEPLOYMENT_ID_LABEL],
            format!("{instance}-{}", r.app)
        );
    }
    let a1_deployment = page
        .resources
        .iter()
        .find(|r| r.app == "a1" && r.gvk.kind == "Deployment")
        .unwrap();
    assert_eq!(a1_deployment.cluster, "clusterProviders/cp/clusters/c1");
    let manifest: serde_json::Value = serde_json::from_str(&a1_deployment.manifest).unwrap();
    assert_eq!(manifest["spec"]["replicas"], 3, "profile patch applied");
    let a2 = page.resources.iter().find(|r| r.app == "a2").unwrap();
    assert_eq!(
        a2.cluster, "clusterProviders/cp/clusters/c2",
        "selector region=west"
    );

    // Filters and paging.
    let only_c2 = ResourceFilter {
        clusters: vec!["c2".into()],
        ..Default::default()
    };
    let filtered = app
        .list_rendered(&dig(), None, &only_c2, None, 100)
        .await
        .unwrap();
    assert!(filtered.resources.iter().all(|r| r.app == "a2"));
    let first = app
        .list_rendered(&dig(), None, &ResourceFilter::default(), None, 3)
        .await
        .unwrap();
    assert!(first.more);
    let key = first.resources.last().unwrap().key();
    let rest = app
        .list_rendered(&dig(), None, &ResourceFilter::default(), Some(&key), 3)
        .await
        .unwrap();
    assert_eq!(rest.resources.len(), 1);
    assert!(!rest.more);

    // Delete while instantiated is refused; terminate, then delete works.
    let err = app.delete_dig(&dig(), None).await.unwrap_err();
    assert!(matches!(
        err,
        Error::FailedPrecondition {
            reason: Precondition::InvalidStateTransition,
            ..
        }
    ));
    let terminated = verb(&app, Verb::Terminate).await.unwrap();
    assert_eq!(terminated.status.state, DigState::Terminated);
    let after = app
        .list_rendered(
            &dig(),
            Some(instance),
            &ResourceFilter::default(),
            None,
            100,
        )
        .await
        .unwrap();
    assert!(
        after
            .resources
            .iter()
            .all(|r| r.status == RsyncStatus::Terminated)
    );
    let err = verb(&app, Verb::Terminate).await.unwrap_err();
    assert!(err.to_string().contains("not instantiated"), "{err}");

    // Re-instantiate from TERMINATED makes a new instance; the old one stays queryable.
    let second = verb(&app, Verb::Instantiate).await.unwrap();
    let second_instance = second.status.current_instance.unwrap();
    assert_ne!(second_instance, instance);
    let old = app
        .list_rendered(
            &dig(),
            Some(instance),
            &ResourceFilter::default(),
            None,
            100,
        )
        .await
        .unwrap();
    assert_eq!(old.resources.len(), 4);
    verb(&app, Verb::Terminate).await.unwrap();

    for p in ["p1", "p2"] {
        app.delete(
            &n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/{p}")),
            None,
        )
        .await
        .unwrap();
    }
    app.delete_dig(&dig(), None).await.unwrap();
    let gone = app
        .list_rendered(&dig(), Some(instance), &ResourceFilter::default(), None, 10)
        .await
        .unwrap_err();
    assert!(matches!(gone, Error::NotFound { .. }));
}

async fn changes_reset_approval_and_are_pending_while_instantiated(store: Store) {
    let app = Lifecycle::new(store);
    seed(&app).await;
    verb(&app, Verb::Approve).await.unwrap();
    // Changing an app the group uses moves it back to CREATED, with a history entry.
    let a1 = n(&APP, &format!("{VERSION}/apps/a1"));
    app.update(&a1, None, 0, |c: &Object<AppSpec>| {
        Ok(AppSpec {
            description: "x".into(),
            ..c.spec.clone()
        })
    })
    .await
    .unwrap();
    let view = app.get_dig(&dig()).await.unwrap();
    assert_eq!(view.status.state, DigState::Created);
    let states: Vec<_> = view.history.iter().map(|h| h.event.as_str()).collect();
    assert_eq!(states, ["CREATED", "APPROVED", "CREATED"]);
    assert!(view.status.revision > 1);

    // Same for an app profile and a placement intent.
    for change in 0..2 {
        verb(&app, Verb::Approve).await.unwrap();
        if change == 0 {
            let ap = n(
                &APP_PROFILE,
                &format!("{VERSION}/compositeProfiles/prof/appProfiles/a1"),
            );
            app.update(&ap, None, 0, |c: &Object<AppProfileSpec>| {
                Ok(AppProfileSpec {
                    description: "y".into(),
                    ..c.spec.clone()
                })
            })
            .await
            .unwrap();
        } else {
            let pi = n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/p1"));
            app.update(&pi, None, 0, |c: &Object<PlacementIntentSpec>| {
                Ok(c.spec.clone())
            })
            .await
            .unwrap();
        }
        assert_eq!(
            app.get_dig(&dig()).await.unwrap().status.state,
            DigState::Created
        );
    }

    verb(&app, Verb::Approve).await.unwrap();
    let running = verb(&app, Verb::Instantiate).await.unwrap();
    assert!(running.pending.is_empty());
    // While INSTANTIATED, changes are a pending revision: accepted, the running
    // instance untouched, Get lists what changed.
    app.update(&a1, None, 0, |c: &Object<AppSpec>| {
        Ok(AppSpec {
            description: "changed while running".into(),
            ..c.spec.clone()
        })
    })
    .await
    .unwrap();
    app.delete(
        &n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/p1")),
        None,
    )
    .await
    .unwrap();
    let view = app.get_dig(&dig()).await.unwrap();
    assert_eq!(view.status.state, DigState::Instantiated);
    assert_eq!(
        view.status.current_instance,
        running.status.current_instance
    );
    assert_eq!(view.running_revision, running.status.revision);
    assert_eq!(view.status.revision, running.status.revision + 2);
    let changes: Vec<(String, PendingKind)> = view
        .pending
        .iter()
        .map(|c| (c.name.clone(), c.kind))
        .collect();
    assert_eq!(
        changes,
        [
            (a1.to_string(), PendingKind::Changed),
            (format!("{DIG}/placementIntents/p1"), PendingKind::Removed),
        ]
    );
    assert!(!view.pending_approved);
}

async fn refused_instantiate_writes_nothing(store: Store) {
    let app = Lifecycle::new(store.clone());
    seed(&app).await;
    // Placement of a2 now selects no cluster.
    let p2 = n(&PLACEMENT_INTENT, &format!("{DIG}/placementIntents/p2"));
    app.update(&p2, None, 0, |c: &Object<PlacementIntentSpec>| {
        Ok(PlacementIntentSpec {
            cluster_selector: [("region".to_string(), "mars".to_string())].into(),
            ..c.spec.clone()
        })
    })
    .await
    .unwrap();
    verb(&app, Verb::Approve).await.unwrap();
    let err = verb(&app, Verb::Instantiate).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::PlacementEmpty,
                ..
            }
        ),
        "{err}"
    );
    let view = app.get_dig(&dig()).await.unwrap();
    assert_eq!(view.status.state, DigState::Approved);
    assert_eq!(view.status.current_instance, None);
    let mut conn = store.read().await.unwrap();
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rsync_resources")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    assert_eq!(count, 0);

    // A profile patch that breaks a manifest is a render error, also leaving nothing.
    app.update(&p2, None, 0, |c: &Object<PlacementIntentSpec>| {
        Ok(PlacementIntentSpec {
            cluster_selector: Default::default(),
            cluster_names: vec!["c2".into()],
            ..c.spec.clone()
        })
    })
    .await
    .unwrap();
    let ap = n(
        &APP_PROFILE,
        &format!("{VERSION}/compositeProfiles/prof/appProfiles/a1"),
    );
    app.update(&ap, None, 0, |c: &Object<AppProfileSpec>| {
        Ok(AppProfileSpec {
            patches: vec![ManifestPatch {
                merge_patch: json!({"kind": null}),
                ..Default::default()
            }],
            ..c.spec.clone()
        })
    })
    .await
    .unwrap();
    verb(&app, Verb::Approve).await.unwrap();
    let err = verb(&app, Verb::Instantiate).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::RenderFailed,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        app.get_dig(&dig()).await.unwrap().status.state,
        DigState::Approved
    );
    let instances: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM instances")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    assert_eq!(instances, 0);
}

async fn network_intents_lifecycle(store: Store) {
    let app = Lifecycle::new(store);
    seed(&app).await;
    let cluster = n(&CLUSTER, "clusterProviders/cp/clusters/c1");
    let err = app
        .network_intents_verb(&cluster, NetworkOp::Apply, None, None)
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        Error::FailedPrecondition {
            reason: Precondition::NoNetworkIntents,
            ..
        }
    ));
    let err = app
        .network_intents_verb(&cluster, NetworkOp::Terminate, None, None)
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        Error::FailedPrecondition {
            reason: Precondition::InvalidStateTransition,
            ..
        }
    ));

    let intent = n(
        &NETWORK_INTENT,
        "clusterProviders/cp/clusters/c1/networkIntents/net1",
    );
    let spec = NetworkIntentSpec {
        description: String::new(),
        kind: NetworkIntentKind::Network {
            cni_type: "ovn4nfv".into(),
            ipv4_subnets: vec![Ipv4Subnet {
                name: "s".into(),
                subnet: "10.1.0.0/24".into(),
                gateway: "10.1.0.1/24".into(),
                exclude_ips: vec![],
            }],
        },
    };
    app.create(intent.clone(), spec.clone(), None)
        .await
        .unwrap();
    let applied = app
        .network_intents_verb(&cluster, NetworkOp::Apply, None, None)
        .await
        .unwrap();
    assert_eq!(applied.network.state, NetworkState::Applied);
    let again = app
        .network_intents_verb(&cluster, NetworkOp::Apply, None, None)
        .await
        .unwrap();
    assert_eq!(
        again.history.len(),
        applied.history.len(),
        "apply twice is a no-op"
    );
    let rendered = app
        .list_rendered(&cluster, None, &ResourceFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(rendered.resources.len(), 1);
    assert_eq!(rendered.resources[0].app, "network-intents");
    assert_eq!(rendered.resources[0].gvk.kind, "Network");

    let err = app
        .create(
            n(
                &NETWORK_INTENT,
                "clusterProviders/cp/clusters/c1/networkIntents/net2",
            ),
            spec.clone(),
            None,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::InvalidStateTransition,
                ..
            }
        ),
        "{err}"
    );
    let err = app.delete_cluster(&cluster, None).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::InvalidStateTransition,
                ..
            }
        ),
        "{err}"
    );

    let terminated = app
        .network_intents_verb(&cluster, NetworkOp::Terminate, None, None)
        .await
        .unwrap();
    assert_eq!(terminated.network.state, NetworkState::Terminated);
    let states: Vec<_> = terminated
        .history
        .iter()
        .map(|h| h.event.as_str())
        .collect();
    assert_eq!(states, ["CREATED", "APPLIED", "TERMINATED"]);
    // Terminate again is a no-op.
    app.network_intents_verb(&cluster, NetworkOp::Terminate, None, None)
        .await
        .unwrap();

    let err = app.delete_cluster(&cluster, None).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::HasChildren,
                ..
            }
        ),
        "{err}"
    );
    app.delete(&intent, None).await.unwrap();

    // A cluster an instantiated intent group is placed on cannot be deleted.
    verb(&app, Verb::Approve).await.unwrap();
    verb(&app, Verb::Instantiate).await.unwrap();
    let err = app.delete_cluster(&cluster, None).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::FailedPrecondition {
                reason: Precondition::ClusterInUse,
                ..
            }
        ),
        "{err}"
    );
    verb(&app, Verb::Terminate).await.unwrap();
    app.delete_cluster(&cluster, None).await.unwrap();
}
