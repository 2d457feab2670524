//! End-to-end: the infrastructure side of ContainerClusterService through real gRPC on
//! SQLite and PostgreSQL: zones and service offerings are discoverable, the
//! SimulatorService drives the sim IaaS's faults (with every bad input refused), and
//! the IaaS's state survives a server restart, as an external IaaS's would; the
//! credentials key is made on first start (0600) and a wrong or missing one stops the
//! server from starting.

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

/// Runs the server binary on `server`'s data dir and database until it exits (at most
/// 30 s: a server that starts when it must not fails the test).
fn start_once(server: &TestServer) -> std::process::Output {
    let mut child = std::process::Command::new(flotilla_tests::binary("flotilla-server"))
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(server.data_dir.path())
        .env("FLOTILLA_DATABASE_URL", &server.database_url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start flotilla-server");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server started with a wrong or missing credentials key");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

async fn credentials_key_guards_the_start(backend: Backend) {
    use std::os::unix::fs::PermissionsExt;
    let mut server = TestServer::start(backend).await;
    let key_file = server.data_dir.path().join("credentials.key");
    let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the key file is the owner's alone");
    let key = std::fs::read_to_string(&key_file).unwrap();
    assert_eq!(key.trim().len(), 64);
    assert!(
        !server.log().contains(key.trim()),
        "the key is never logged"
    );
    assert!(server.log().contains("credentials.key"), "its path is");
    assert!(server.stop_with(15).success());

    // Another key: the server refuses to start, saying why.
    std::fs::write(&key_file, "ab".repeat(32)).unwrap();
    let out = start_once(&server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("is not the key"), "{stderr}");

    // No key while the database holds the check value: refused, and no new key made.
    std::fs::remove_file(&key_file).unwrap();
    let out = start_once(&server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("is missing"), "{stderr}");
    assert!(!key_file.exists());

    // Not a key at all.
    std::fs::write(&key_file, "hunter2").unwrap();
    let out = start_once(&server);
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 hex digits"));

    // The right key back: it starts and serves.
    std::fs::write(&key_file, &key).unwrap();
    server.respawn().await;
    assert_eq!(zones(&server).await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_credentials_key_guards_the_start() {
    credentials_key_guards_the_start(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_credentials_key_guards_the_start() {
    credentials_key_guards_the_start(Backend::Postgres).await;
}
