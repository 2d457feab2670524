//! Helpers of the container cluster end-to-end tests.
#![allow(dead_code)]

use std::time::Duration;

use flotilla_client::Client;
use flotilla_client::v1::*;
use flotilla_tests::{TestServer, eventually, sql_count};

pub const WAIT: Duration = Duration::from_secs(60);

pub fn spec(name: &str, zone: &str, size: i32) -> ContainerCluster {
    ContainerCluster {
        display_name: name.into(),
        zone_id: zone.into(),
        service_offering_id: "small".into(),
        size,
        account_name: "team-a".into(),
        ..Default::default()
    }
}

pub async fn create(client: &mut Client, cluster: ContainerCluster) -> ContainerCluster {
    client
        .container_clusters
        .create_container_cluster(CreateContainerClusterRequest {
            container_cluster: Some(cluster),
            ..Default::default()
        })
        .await
        .expect("create container cluster")
        .into_inner()
}

pub async fn get(client: &mut Client, name: &str) -> ContainerCluster {
    client
        .container_clusters
        .get_container_cluster(GetContainerClusterRequest { name: name.into() })
        .await
        .expect("get container cluster")
        .into_inner()
}

pub fn state(c: &ContainerCluster) -> ContainerClusterState {
    ContainerClusterState::try_from(c.state).unwrap()
}

pub async fn wait_state(
    client: &Client,
    name: &str,
    want: ContainerClusterState,
) -> ContainerCluster {
    eventually(WAIT, &format!("{name} {want:?}"), || {
        let mut client = client.clone();
        async move {
            let c = get(&mut client, name).await;
            (state(&c) == want).then_some(c)
        }
    })
    .await
}

pub fn condition<'a>(c: &'a ContainerCluster, kind: &str) -> &'a Condition {
    c.conditions
        .iter()
        .find(|x| x.r#type == kind)
        .unwrap_or_else(|| panic!("{kind} on {c:?}"))
}

pub fn is_true(c: &Condition) -> bool {
    c.status == ConditionStatus::True as i32
}

pub async fn zone_capacity(client: &mut Client, zone: &str) -> i64 {
    let zones = client
        .container_clusters
        .list_zones(ListZonesRequest {})
        .await
        .unwrap()
        .into_inner()
        .zones;
    zones.iter().find(|z| z.id == zone).unwrap().vm_capacity
}

/// The sim IaaS's VMs and networks named after the cluster (what a leak would leave).
pub async fn iaas_objects(server: &TestServer, c: &ContainerCluster) -> (i64, i64) {
    let vms = sql_count(
        &server.database_url,
        &format!("SELECT COUNT(*) FROM sim_vms WHERE name LIKE '{}-%'", c.id),
    )
    .await;
    let networks = sql_count(
        &server.database_url,
        &format!(
            "SELECT COUNT(*) FROM sim_networks WHERE name = '{}-net'",
            c.id
        ),
    )
    .await;
    (vms, networks)
}

pub async fn verb(
    client: &mut Client,
    name: &str,
    verb: &str,
) -> Result<ContainerCluster, tonic::Status> {
    let cc = &mut client.container_clusters;
    let name = name.to_string();
    let response = match verb {
        "start" => {
            cc.start_container_cluster(StartContainerClusterRequest {
                name,
                ..Default::default()
            })
            .await
        }
        "stop" => {
            cc.stop_container_cluster(StopContainerClusterRequest {
                name,
                ..Default::default()
            })
            .await
        }
        "recover" => {
            cc.recover_container_cluster(RecoverContainerClusterRequest {
                name,
                ..Default::default()
            })
            .await
        }
        "delete" => {
            let name2 = name.clone();
            cc.delete_container_cluster(DeleteContainerClusterRequest {
                name,
                ..Default::default()
            })
            .await?;
            return Ok(get(client, &name2).await);
        }
        other => panic!("verb {other}"),
    };
    response.map(|r| r.into_inner())
}

pub async fn scale(
    client: &mut Client,
    name: &str,
    size: i32,
) -> Result<ContainerCluster, tonic::Status> {
    client
        .container_clusters
        .scale_container_cluster(ScaleContainerClusterRequest {
            name: name.into(),
            size,
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner())
}
