//! ContainerClusterService. Served today: discovery of the IaaS (`ListZones`,
//! `ListServiceOfferings`) from the infrastructure provider; the container cluster
//! lifecycle, the infrastructure objects and registration answer UNIMPLEMENTED until
//! they land (issue 20).

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::container_cluster_service_server::ContainerClusterService;

use super::rpc;
use crate::infra::Provider;

pub struct ContainerClusterApi {
    iaas: Arc<dyn Provider>,
}

impl ContainerClusterApi {
    pub fn new(iaas: Arc<dyn Provider>) -> Self {
        Self { iaas }
    }
}

#[tonic::async_trait]
impl ContainerClusterService for ContainerClusterApi {
    rpc!(self, list_zones(ListZonesRequest) -> pb::ListZonesResponse, |_req| {
        let zones = self.iaas.zones().await?;
        Ok(pb::ListZonesResponse {
            zones: zones
                .into_iter()
                .map(|z| pb::Zone { id: z.id, name: z.name, vm_capacity: z.capacity.max(0) })
                .collect(),
        })
    });

    rpc!(self, list_service_offerings(ListServiceOfferingsRequest) -> pb::ListServiceOfferingsResponse, |_req| {
        let offerings = self.iaas.offerings().await?;
        Ok(pb::ListServiceOfferingsResponse {
            service_offerings: offerings
                .into_iter()
                .map(|o| pb::ServiceOffering { id: o.id, name: o.name, cpus: o.cpus, memory_mib: o.memory_mib })
                .collect(),
        })
    });
}
