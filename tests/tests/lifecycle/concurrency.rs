//! 100 concurrent conflicting verbs on one group: only valid transitions, a
//! consistent history, and no stale instance once rsync settles.

use super::*;

/// A group state's name without its enum prefix ("APPROVED").
pub(super) fn short(state: DeploymentIntentGroupState) -> &'static str {
    state
        .as_str_name()
        .trim_start_matches("DEPLOYMENT_INTENT_GROUP_STATE_")
}

/// Fires 100 concurrent verbs (approve, instantiate, terminate, update) at one intent
/// group and checks that the history is a valid walk of the state machine whose length
/// matches the state-changing verbs that succeeded.
pub(super) async fn concurrent_conflicting_verbs_keep_history_consistent(server: &TestServer) {
    let mut client = server.client().await;
    let dig = seed(&mut client).await;
    let mut tasks = Vec::new();
    for i in 0..100 {
        let mut client = client.clone();
        let dig = dig.clone();
        tasks.push(tokio::spawn(async move {
            let lc = &mut client.lifecycle;
            match i % 4 {
                0 => lc
                    .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
                        name: dig,
                        ..Default::default()
                    })
                    .await
                    .map(|r| ("approve", r.into_inner())),
                1 => lc
                    .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                        name: dig,
                        ..Default::default()
                    })
                    .await
                    .map(|r| ("instantiate", r.into_inner())),
                2 => lc
                    .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
                        name: dig,
                        ..Default::default()
                    })
                    .await
                    .map(|r| ("terminate", r.into_inner())),
                _ => lc
                    .update_deployment_intent_group(UpdateDeploymentIntentGroupRequest {
                        deployment_intent_group: Some(DeploymentIntentGroup {
                            name: dig,
                            description: format!("u{i}"),
                            ..Default::default()
                        }),
                        update_mask: Some(FieldMask {
                            paths: vec!["description".into()],
                        }),
                    })
                    .await
                    .map(|r| ("update", r.into_inner())),
            }
        }));
    }
    let mut transitions = 0;
    let mut succeeded: BTreeMap<&str, usize> = BTreeMap::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok((verb, _)) => *succeeded.entry(verb).or_default() += 1,
            Err(status) => assert!(
                matches!(status.code(), Code::FailedPrecondition | Code::Aborted),
                "unexpected {status:?}"
            ),
        }
    }
    let final_dig = client
        .lifecycle
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: dig.clone() })
        .await
        .unwrap()
        .into_inner();
    let states: Vec<&str> = final_dig.history.iter().map(|h| short(h.state())).collect();
    let kinds: Vec<DeploymentIntentGroupEventKind> =
        final_dig.history.iter().map(|h| h.kind()).collect();
    eprintln!("history after 100 concurrent verbs ({succeeded:?} succeeded): {kinds:?}");
    assert_eq!(states[0], "CREATED");
    // Every step is an edge of the state machine (DESIGN §7's table); approving the
    // pending revision of an instantiated group (edited by an update) keeps its state.
    for (pair, kind) in states.windows(2).zip(&kinds[1..]) {
        let valid = matches!(
            (pair[0], pair[1]),
            ("CREATED", "APPROVED")
                | ("APPROVED", "INSTANTIATED")
                | ("APPROVED", "CREATED")
                | ("INSTANTIATED", "TERMINATED")
                | ("TERMINATED", "INSTANTIATED")
                | ("TERMINATED", "APPROVED")
                | ("TERMINATED", "CREATED")
        ) || (pair == ["INSTANTIATED", "INSTANTIATED"]
            && *kind == DeploymentIntentGroupEventKind::RevisionApproved);
        assert!(
            valid,
            "invalid transition {} -> {} ({kind:?}) in {kinds:?}",
            pair[0], pair[1]
        );
        transitions += 1;
    }
    let last = *states.last().unwrap();
    assert_eq!(short(final_dig.state()), last);
    assert!(
        transitions >= 1,
        "some verbs must have succeeded: {states:?}"
    );
    // Each entry comes from exactly one verb that succeeded: instantiate and terminate
    // always record one; approve records one unless there was nothing to approve (a
    // no-op); an update records CREATED only when it moved the group back.
    use DeploymentIntentGroupEventKind as K;
    let entries = |kind: K| kinds.iter().skip(1).filter(|k| **k == kind).count();
    let ok = |verb: &str| succeeded.get(verb).copied().unwrap_or(0);
    assert_eq!(entries(K::Instantiated), ok("instantiate"), "{kinds:?}");
    assert_eq!(entries(K::Terminated), ok("terminate"), "{kinds:?}");
    assert!(
        entries(K::Approved) + entries(K::RevisionApproved) <= ok("approve"),
        "{kinds:?}"
    );
    assert!(entries(K::Created) <= ok("update"), "{kinds:?}");
    // Every instantiate made its own instance: no instance repeats anywhere in the
    // history, and each INSTANTIATED entry names a new one.
    let instances: Vec<&str> = final_dig
        .history
        .iter()
        .filter(|h| h.kind() == K::Instantiated)
        .map(|h| h.instance.as_str())
        .collect();
    let unique: std::collections::BTreeSet<&str> = instances.iter().copied().collect();
    assert_eq!(unique.len(), instances.len(), "{instances:?}");
    assert!(instances.iter().all(|i| !i.is_empty()), "{instances:?}");
    // Revisions never decrease along the history.
    let revisions: Vec<i64> = final_dig.history.iter().map(|h| h.revision).collect();
    assert!(revisions.windows(2).all(|w| w[0] <= w[1]), "{revisions:?}");

    // No stale instance: once rsync settles, no instance but a running current one
    // holds anything (Pending, Applied, Retrying); the older ones ended Terminated or
    // Superseded.
    let running = (last == "INSTANTIATED").then(|| final_dig.current_instance.clone());
    for instance in &instances {
        let id = instance.rsplit('/').next().unwrap_or(instance).to_string();
        let counts = flotilla_tests::eventually(
            std::time::Duration::from_secs(60),
            "the instance to settle",
            || {
                let mut client = client.clone();
                let (dig, id) = (dig.clone(), id.clone());
                let current = running.as_deref() == Some(*instance);
                async move {
                    let answer = client
                        .status
                        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                            name: dig,
                            instance: id,
                            output: StatusOutput::Summary as i32,
                            ..Default::default()
                        })
                        .await;
                    // Beyond the retention limit (10) an instance whose deletes are
                    // done is gone: nothing stale is left of it.
                    let c = match answer {
                        Ok(status) => status.into_inner().rsync_status.unwrap_or_default(),
                        Err(e) if e.code() == Code::NotFound && !current => {
                            return Some(None);
                        }
                        Err(e) => panic!("{e:?}"),
                    };
                    let settled = if current {
                        c.pending == 0 && c.retrying == 0
                    } else {
                        c.pending + c.applied + c.retrying == 0
                    };
                    settled.then_some(Some(c))
                }
            },
        )
        .await;
        eprintln!("instance {id}: {counts:?} (None: expired)");
    }
}
