//! Container clusters' book-keeping on SQLite and PostgreSQL: records round-trip, every
//! move is a compare-and-swap (of two verbs racing on one cluster exactly one wins),
//! lists filter by state, zone and account and page, background work finds what is
//! due, and the cluster<->VM map keeps a VM's record after the IaaS lost it.

use flotilla_server::domain::cluster_workflow::Observed;
use flotilla_server::domain::container_cluster::{
    ClusterState, Event, Lifecycle, Verb, transition,
};
use flotilla_server::ids::ContainerClusterId;
use flotilla_server::store::Store;
use flotilla_server::store::container_cluster::*;

fn record(zone: &str, account: &str, now: i64) -> ContainerClusterRecord {
    ContainerClusterRecord {
        id: ContainerClusterId::new(),
        display_name: "web".into(),
        description: "a test cluster".into(),
        account_name: account.into(),
        domain_id: "root".into(),
        zone_id: zone.into(),
        service_offering_id: "small".into(),
        size: 3,
        network_id: String::new(),
        network_cleanup: true,
        infrastructure_ref: "simInfrastructures/web".into(),
        lifecycle: transition(&Lifecycle::created(), Event::Request(Verb::Start)).unwrap(),
        spec: ClusterSpec::default(),
        status: ClusterStatus::default(),
        operation: Some("{\"step\":\"network\"}".into()),
        next_run: Some(now),
        generation: 1,
        create_time: now,
        update_time: now,
    }
}

async fn book_keeping(store: Store) {
    let a = record("zone-a", "ops", 100);
    let b = record("zone-b", "ops", 200);
    let c = record("zone-a", "dev", 300);
    let mut tx = store.begin().await.unwrap();
    for r in [&a, &b, &c] {
        cluster_insert(&mut tx, r).await.unwrap();
    }
    tx.commit().await.unwrap();
    let mut conn = store.read().await.unwrap();
    assert_eq!(
        cluster_get(&mut conn, a.id).await.unwrap().as_ref(),
        Some(&a)
    );
    assert!(
        cluster_get(&mut conn, ContainerClusterId::new())
            .await
            .unwrap()
            .is_none()
    );

    // Two writers read generation 1 and move the cluster: one wins, one is told.
    let mut running = a.clone();
    running.lifecycle = transition(&a.lifecycle, Event::Succeeded).unwrap();
    running.generation = 2;
    running.operation = None;
    running.next_run = None;
    let mut failed = a.clone();
    failed.lifecycle = transition(&a.lifecycle, Event::Failed).unwrap();
    failed.generation = 2;
    let mut tx = store.begin().await.unwrap();
    let first = cluster_update(&mut tx, &running, 1).await.unwrap();
    tx.commit().await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let second = cluster_update(&mut tx, &failed, 1).await.unwrap();
    tx.commit().await.unwrap();
    assert!(first && !second, "exactly one compare-and-swap holds");
    let stored = cluster_get(&mut conn, a.id).await.unwrap().unwrap();
    assert_eq!(stored.lifecycle.state, ClusterState::Running);
    assert!(stored.lifecycle.provisioned);
    assert_eq!(stored.generation, 2);

    // Filters and pages.
    let all = cluster_list(&mut conn, &ClusterFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(all.len(), 3);
    let ids: Vec<_> = all.iter().map(|r| r.id).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "id order");
    let page = cluster_list(&mut conn, &ClusterFilter::default(), Some(ids[0]), 1)
        .await
        .unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(page[0].id, ids[1]);
    let zone_a = ClusterFilter {
        zone_id: Some("zone-a".into()),
        ..Default::default()
    };
    assert_eq!(
        cluster_list(&mut conn, &zone_a, None, 10)
            .await
            .unwrap()
            .len(),
        2
    );
    let ops_starting = ClusterFilter {
        state: Some(ClusterState::Starting),
        account_name: Some("ops".into()),
        ..Default::default()
    };
    let found = cluster_list(&mut conn, &ops_starting, None, 10)
        .await
        .unwrap();
    assert_eq!(found.iter().map(|r| r.id).collect::<Vec<_>>(), [b.id]);

    // Due work: b (200) and c (300) by 250 only b; a settled (no next_run).
    let due = cluster_due(&mut conn, 250, 10).await.unwrap();
    assert_eq!(due.iter().map(|r| r.id).collect::<Vec<_>>(), [b.id]);

    // The VM map keeps a lost VM's record, and forgets a released one.
    let mut tx = store.begin().await.unwrap();
    for ordinal in 0..3 {
        let vm = ClusterVm {
            vm_id: format!("vm-{ordinal}"),
            name: format!("web-{ordinal}"),
            ordinal,
            observed: Observed::Running,
            ip_address: format!("10.0.0.{ordinal}"),
        };
        cluster_vm_put(&mut tx, a.id, &vm).await.unwrap();
    }
    let lost = ClusterVm {
        vm_id: "vm-1".into(),
        name: "web-1".into(),
        ordinal: 1,
        observed: Observed::Missing,
        ip_address: "10.0.0.1".into(),
    };
    cluster_vm_put(&mut tx, a.id, &lost).await.unwrap();
    cluster_vm_remove(&mut tx, a.id, "vm-2").await.unwrap();
    // Sealed details: stored and replaced as given.
    cluster_details_put(&mut tx, a.id, "sealed-1")
        .await
        .unwrap();
    cluster_details_put(&mut tx, a.id, "sealed-2")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let vms = cluster_vms(&mut conn, &[a.id, b.id]).await.unwrap();
    let observed: Vec<(&str, &str)> = vms[&a.id]
        .iter()
        .map(|v| (v.vm_id.as_str(), v.observed.as_str()))
        .collect();
    assert_eq!(observed, [("vm-0", "Running"), ("vm-1", "Missing")]);
    assert!(!vms.contains_key(&b.id));

    assert_eq!(
        cluster_details_get(&mut conn, a.id)
            .await
            .unwrap()
            .as_deref(),
        Some("sealed-2")
    );
    assert!(
        cluster_details_get(&mut conn, b.id)
            .await
            .unwrap()
            .is_none()
    );
}

backend_suite!(book_keeping);
