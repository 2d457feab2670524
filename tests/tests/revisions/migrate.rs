//! Migrating a running deployment to a group of another version (issue 22): only the
//! difference moves, and the source ends TERMINATED without deleting what the target
//! runs.

use super::*;

flotilla_tests::e2e_suite!(backend => migrate_moves_the_deployment_to_another_version);

async fn migrate_moves_the_deployment_to_another_version(backend: Backend) {
    let (server, metrics) = start(backend).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    let before = converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 8.0).await;

    // Version v2: collectd as in v1 (same profile), operator without the guest VM.
    let v2 = "projects/demo/compositeApps/shop/versions/v2";
    let target = format!("{v2}/deploymentIntentGroups/prod");
    let lc = &mut client.lifecycle;
    lc.create_composite_app(CreateCompositeAppRequest {
        parent: "projects/demo".into(),
        composite_app_id: "shop".into(),
        version_id: "v2".into(),
        composite_app: Some(CompositeApp::default()),
        ..Default::default()
    })
    .await
    .expect("v2");
    for app in ["collectd", "operator"] {
        let mut manifests = lc
            .get_app(GetAppRequest {
                name: format!("{VERSION}/apps/{app}"),
            })
            .await
            .unwrap()
            .into_inner()
            .manifests;
        if app == "operator" {
            manifests = manifests
                .split("---")
                .next()
                .unwrap()
                .trim_end()
                .to_string();
        }
        lc.create_app(CreateAppRequest {
            parent: v2.into(),
            app_id: app.into(),
            app: Some(App {
                manifests,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("v2 app");
    }
    lc.create_composite_profile(CreateCompositeProfileRequest {
        parent: v2.into(),
        composite_profile_id: "default".into(),
        composite_profile: Some(CompositeProfile::default()),
        ..Default::default()
    })
    .await
    .unwrap();
    let profile = lc
        .get_app_profile(GetAppProfileRequest {
            name: PROFILE.into(),
        })
        .await
        .unwrap()
        .into_inner();
    lc.create_app_profile(CreateAppProfileRequest {
        parent: format!("{v2}/compositeProfiles/default"),
        app_profile_id: "collectd".into(),
        app_profile: Some(AppProfile {
            app: "collectd".into(),
            patches: profile.patches,
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    lc.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
        parent: v2.into(),
        deployment_intent_group_id: "prod".into(),
        deployment_intent_group: Some(DeploymentIntentGroup {
            composite_profile: "default".into(),
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    for app in ["collectd", "operator"] {
        lc.create_placement_intent(CreatePlacementIntentRequest {
            parent: target.clone(),
            placement_intent_id: app.into(),
            placement_intent: Some(PlacementIntent {
                app: app.into(),
                cluster_provider: "edge".into(),
                cluster_names: vec!["cluster1".into(), "cluster2".into()],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    let migrating = client.clone();
    let migrate = |target: String| {
        let mut client = migrating.clone();
        async move {
            client
                .lifecycle
                .migrate_deployment_intent_group(MigrateDeploymentIntentGroupRequest {
                    name: DIG.into(),
                    target,
                    ..Default::default()
                })
                .await
        }
    };
    // Not approved yet; and a group of another composite app is no target.
    let refused = migrate(target.clone()).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    let other =
        migrate("projects/demo/compositeApps/other/versions/v1/deploymentIntentGroups/x".into())
            .await
            .unwrap_err();
    assert_eq!(other.code(), Code::InvalidArgument, "{other:?}");
    approve(&mut client, &target).await;
    let moved = migrate(target.clone()).await.expect("migrate").into_inner();
    assert_eq!(moved.name, target);
    assert_eq!(moved.state(), DeploymentIntentGroupState::Instantiated);
    assert_eq!(
        last_event(&moved).0,
        DeploymentIntentGroupEventKind::MigratedIn
    );
    let source = get(&mut client, DIG).await;
    assert_eq!(source.state(), DeploymentIntentGroupState::Terminated);
    assert_eq!(
        last_event(&source),
        (
            DeploymentIntentGroupEventKind::MigratedOut,
            source.revision,
            first.current_instance.clone()
        )
    );
    // v2 renders collectd (2 objects) and operator alike: nothing is applied again;
    // the guest VM goes on both clusters.
    let after = converged(&client, &target, 6, 6).await;
    applies_settle_at(&metrics, "delete", 2.0).await;
    assert_eq!(rsync_succeeded(&metrics, "apply"), 8.0);
    for (pod, uid) in &after {
        assert_eq!(before.get(pod), Some(uid), "{pod:?} kept running");
    }
    let old = counts(&mut client, DIG, &first.current_instance, &[]).await;
    assert_eq!((old.superseded, old.terminated), (6, 2), "{old:?}");
    // The source is deletable once its deletes are done; its objects stay with v2.
    client
        .lifecycle
        .delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .expect_err("still has placement intents");
    let still = converged(&client, &target, 6, 6).await;
    assert_eq!(still, after);

    // Terminating the target deletes what it took over: the source's superseded
    // instance ends in a true final status, nothing of it present or ready.
    client
        .lifecycle
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: target.clone(),
            ..Default::default()
        })
        .await
        .expect("terminate v2");
    eventually(WAIT, "v2's objects to go", || {
        let mut client = client.clone();
        let target = target.clone();
        async move {
            let s = mirror::query(&mut client, &target, StatusOutput::Summary, &[], &[]).await;
            (s.cluster_status.unwrap_or_default().present == 0).then_some(())
        }
    })
    .await;
    nothing_left(&client, DIG, &first.current_instance).await;
    nothing_left(&client, &target, &moved.current_instance).await;
}
