//! The sim IaaS on SQLite and PostgreSQL: discovery, capacity, placement on reachable
//! hosts, unreachable hosts refusing operations, injected faults, out-of-band changes,
//! and state that survives reopening (it stands for an external system).

use std::time::Duration;

use flotilla_server::infra::sim::SimIaas;
use flotilla_server::infra::{InfraError, Provider, VmSpec, VmState};
use flotilla_server::store::Store;

fn spec(name: &str, network: &str) -> VmSpec {
    VmSpec {
        name: name.into(),
        zone_id: "zone-b".into(),
        offering_id: "small".into(),
        network_id: network.into(),
    }
}

async fn capacity_hosts_and_faults(store: Store) {
    let iaas = SimIaas::open(store.clone(), Duration::ZERO).await.unwrap();
    let zones = iaas.zones().await.unwrap();
    assert!(
        zones.iter().any(|z| z.id == "zone-b" && z.capacity == 100),
        "{zones:?}"
    );
    let offerings = iaas.offerings().await.unwrap();
    assert_eq!(offerings[0].id, "small");

    let net = iaas.create_network("zone-b", "cluster-net").await.unwrap();
    assert!(net.source_nat);
    iaas.set_zone_capacity("zone-b", 3).await.unwrap();
    let mut vms = Vec::new();
    for i in 0..3 {
        vms.push(
            iaas.create_vm(&spec(&format!("vm{i}"), &net.id))
                .await
                .unwrap(),
        );
    }
    // Spread over the zone's two hosts; the fourth VM finds no capacity.
    assert!(vms.iter().any(|v| v.host_id == "host-b1"));
    assert!(vms.iter().any(|v| v.host_id == "host-b2"));
    match iaas.create_vm(&spec("vm3", &net.id)).await {
        Err(InfraError::NoCapacity { zone }) => assert_eq!(zone, "zone-b"),
        other => panic!("expected NoCapacity, got {other:?}"),
    }
    // A wrong offering or network is refused before any capacity is taken.
    iaas.set_zone_capacity("zone-b", 1).await.unwrap();
    let mut wrong = spec("bad", &net.id);
    wrong.offering_id = "huge".into();
    assert!(matches!(
        iaas.create_vm(&wrong).await,
        Err(InfraError::NotFound {
            kind: "ServiceOffering",
            ..
        })
    ));
    assert_eq!(zone_capacity(&iaas, "zone-b").await, 1);

    // An unreachable host refuses operations on its VMs until it is back.
    let victim = vms[0].clone();
    iaas.set_host_reachable(&victim.host_id, false)
        .await
        .unwrap();
    match iaas.delete_vm(&victim.id).await {
        Err(error @ InfraError::HostUnreachable { .. }) => assert!(error.is_transient()),
        other => panic!("expected HostUnreachable, got {other:?}"),
    }
    iaas.set_host_reachable(&victim.host_id, true)
        .await
        .unwrap();
    iaas.delete_vm(&victim.id).await.unwrap();
    assert_eq!(
        zone_capacity(&iaas, "zone-b").await,
        2,
        "a deleted VM gives its slot back"
    );
    assert!(matches!(
        iaas.delete_vm(&victim.id).await,
        Err(InfraError::NotFound { kind: "VM", .. })
    ));

    // The next two stops fail, the third works.
    iaas.fail_next("stop_vm", 2).await.unwrap();
    for _ in 0..2 {
        assert!(matches!(
            iaas.stop_vm(&vms[1].id).await,
            Err(InfraError::Injected {
                operation: "stop_vm"
            })
        ));
    }
    iaas.stop_vm(&vms[1].id).await.unwrap();
    assert!(iaas.fail_next("reboot_everything", 1).await.is_err());

    // Out of band: a stop and a deletion the control plane did not ask for.
    iaas.start_vm(&vms[1].id).await.unwrap();
    iaas.stop_out_of_band(&vms[2].id).await.unwrap();
    iaas.delete_out_of_band(&vms[1].id).await.unwrap();
    let ids: Vec<String> = vms.iter().map(|v| v.id.clone()).collect();

    // Reopened (a server restart): the IaaS is as it was left.
    let reopened = SimIaas::open(store, Duration::ZERO).await.unwrap();
    let left = reopened.vm_states(&ids).await.unwrap();
    assert_eq!(left, vec![(vms[2].id.clone(), VmState::Stopped)]);
    assert_eq!(zone_capacity(&reopened, "zone-b").await, 3);
    reopened.delete_vm(&vms[2].id).await.unwrap();
    reopened.delete_network(&net.id).await.unwrap();
    assert!(reopened.network(&net.id).await.unwrap().is_none());
}

async fn zone_capacity(iaas: &SimIaas, zone: &str) -> i64 {
    let zones = iaas.zones().await.unwrap();
    zones.iter().find(|z| z.id == zone).unwrap().capacity
}

backend_suite!(capacity_hosts_and_faults);
