//! End-to-end: the infrastructure side of ContainerClusterService through real gRPC on
//! SQLite and PostgreSQL: zones and service offerings are discoverable, the
//! SimulatorService drives the sim IaaS's faults (with every bad input refused), and
//! the IaaS's state survives a server restart, as an external IaaS's would.

use flotilla_client::v1::*;
use flotilla_tests::{Backend, TestServer, error_view};
use tonic::Code;

async fn zones(server: &TestServer) -> Vec<Zone> {
    let mut client = server.client().await;
    let request = ListZonesRequest {};
    let response = client.container_clusters.list_zones(request).await;
    response.unwrap().into_inner().zones
}

async fn zone_capacity(server: &TestServer, zone: &str) -> i64 {
    let zones = zones(server).await;
    zones.iter().find(|z| z.id == zone).expect(zone).vm_capacity
}

async fn discovery_faults_and_restart(backend: Backend) {
    let mut server =
        TestServer::start_with(backend, &["--sim", "--sim-iaas-latency-millis", "0"]).await;
    let mut client = server.client().await;

    let zones = zones(&server).await;
    let ids: Vec<&str> = zones.iter().map(|z| z.id.as_str()).collect();
    assert_eq!(ids, ["zone-a", "zone-b"]);
    assert_eq!(zones[1].vm_capacity, 100);
    let offerings = client
        .container_clusters
        .list_service_offerings(ListServiceOfferingsRequest {})
        .await
        .unwrap()
        .into_inner()
        .service_offerings;
    let sizes: Vec<(&str, i64, i64)> = offerings
        .iter()
        .map(|o| (o.id.as_str(), o.cpus, o.memory_mib))
        .collect();
    assert_eq!(
        sizes,
        [("small", 2, 4096), ("medium", 4, 8192), ("large", 8, 16384)]
    );

    let sim = &mut client.simulator;
    sim.set_zone_capacity(SetZoneCapacityRequest {
        zone_id: "zone-b".into(),
        capacity: 7,
    })
    .await
    .unwrap();
    assert_eq!(zone_capacity(&server, "zone-b").await, 7);
    sim.set_host_reachable(SetHostReachableRequest {
        host: "host-b1".into(),
        reachable: false,
    })
    .await
    .unwrap();
    sim.fail_infrastructure_operations(FailInfrastructureOperationsRequest {
        operation: "create_vm".into(),
        count: 2,
    })
    .await
    .unwrap();

    // Every bad input: the right code and the field it is about.
    let bad = [
        (
            error_view(
                sim.set_zone_capacity(SetZoneCapacityRequest {
                    zone_id: "zone-b".into(),
                    capacity: -1,
                })
                .await,
            ),
            Code::InvalidArgument,
            Some("capacity"),
        ),
        (
            error_view(
                sim.set_zone_capacity(SetZoneCapacityRequest {
                    zone_id: "zone-z".into(),
                    capacity: 1,
                })
                .await,
            ),
            Code::NotFound,
            None,
        ),
        (
            error_view(sim.stop_vm(StopVmRequest { vm_id: "".into() }).await),
            Code::InvalidArgument,
            Some("vm_id"),
        ),
        (
            error_view(
                sim.stop_vm(StopVmRequest {
                    vm_id: "vm-missing".into(),
                })
                .await,
            ),
            Code::NotFound,
            None,
        ),
        (
            error_view(
                sim.delete_vm(DeleteVmRequest {
                    vm_id: "vm-missing".into(),
                })
                .await,
            ),
            Code::NotFound,
            None,
        ),
        (
            error_view(
                sim.set_host_reachable(SetHostReachableRequest {
                    host: "host-z9".into(),
                    reachable: true,
                })
                .await,
            ),
            Code::NotFound,
            None,
        ),
        (
            error_view(
                sim.fail_infrastructure_operations(FailInfrastructureOperationsRequest {
                    operation: "reboot_everything".into(),
                    count: 1,
                })
                .await,
            ),
            Code::InvalidArgument,
            Some("operation"),
        ),
        (
            error_view(
                sim.fail_infrastructure_operations(FailInfrastructureOperationsRequest {
                    operation: "create_vm".into(),
                    count: -1,
                })
                .await,
            ),
            Code::InvalidArgument,
            Some("count"),
        ),
    ];
    for (error, code, field) in bad {
        assert_eq!(error.code, code, "{error:?}");
        if let Some(field) = field {
            assert!(error.fields().contains(&field), "{field}: {error:?}");
        }
    }

    // A restart: the IaaS is as it was left (the capacity, not the seed's default).
    server.respawn().await;
    assert_eq!(zone_capacity(&server, "zone-b").await, 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_discovery_faults_and_restart() {
    discovery_faults_and_restart(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_discovery_faults_and_restart() {
    discovery_faults_and_restart(Backend::Postgres).await;
}
