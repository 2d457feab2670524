//! ContainerClusterService handlers: validate, call `app::container_clusters`, encode.
//! Discovery of the IaaS (`ListZones`, `ListServiceOfferings`) comes straight from the
//! infrastructure provider.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::container_cluster_service_server::ContainerClusterService;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::page::Paging;
use super::{request_key, rpc};
use crate::app::container_clusters::{
    CLUSTERS_TARGET, ContainerClusters, InfraSource, MAX_SIZE, NewCluster, NewInfra, Registry,
};
use crate::app::lifecycle::Lifecycle;
use crate::domain::container_cluster::Verb;
use crate::domain::names::validate_id;
use crate::domain::names::{CLUSTER, CLUSTER_PROVIDER};
use crate::error::{Error, Result, Violations};
use crate::ids::ContainerClusterId;
use crate::store::container_cluster::{ClusterFilter, ClusterSpec};
use crate::watch::WatchHub;
use crate::watch::container_clusters::ClusterWatch;
use crate::wire::convert::{
    check_description, check_labels, cluster_state_from_proto, cluster_to_proto,
    container_cluster_id, container_cluster_to_proto, infra_spec_from_proto, infra_to_proto, name,
    parse_etag, policy_from_proto, sim_infrastructure_id,
};

/// The longest account, domain or registry field accepted, in characters.
const MAX_FIELD_CHARS: usize = 255;

type Rpc<T> = std::result::Result<Response<T>, Status>;
type WatchStream = std::pin::Pin<
    Box<
        dyn tokio_stream::Stream<
                Item = std::result::Result<pb::WatchContainerClustersResponse, Status>,
            > + Send
            + 'static,
    >,
>;

pub struct ContainerClusterApi {
    app: ContainerClusters,
    watch: Arc<WatchHub>,
    lifecycle: Lifecycle,
}

impl ContainerClusterApi {
    pub fn new(app: ContainerClusters, watch: Arc<WatchHub>, lifecycle: Lifecycle) -> Self {
        Self {
            app,
            watch,
            lifecycle,
        }
    }

    /// A verb on `name`.
    async fn verb(
        &self,
        verb: Verb,
        name: &str,
        scale_to: Option<i64>,
        key: Result<Option<crate::app::RequestKey>>,
    ) -> Result<pb::ContainerCluster> {
        let id = container_cluster_id("name", name)?;
        let view = self.app.request(id, verb, scale_to, key?.as_ref()).await?;
        Ok(container_cluster_to_proto(&view))
    }
}

fn check_text(violations: &mut Violations, field: &str, value: &str) {
    if value.chars().count() > MAX_FIELD_CHARS {
        violations.add(
            field,
            format!("must be at most {MAX_FIELD_CHARS} characters"),
        );
    }
}

/// Validates a create request into a `NewCluster`, every violation at once.
fn new_cluster(req: &pb::CreateContainerClusterRequest) -> Result<NewCluster> {
    let Some(c) = &req.container_cluster else {
        return Err(Error::invalid("container_cluster", "is required"));
    };
    let mut violations = Violations::new();
    let field = |name: &str| format!("container_cluster.{name}");
    if c.display_name.is_empty() {
        violations.add(field("display_name"), "is required");
    } else if validate_id(&c.display_name).is_err() {
        violations.add(
            field("display_name"),
            "must be lower-case letters, digits and '-', start with a letter, at most 63 characters",
        );
    }
    check_description(&mut violations, &field("description"), &c.description);
    check_text(&mut violations, &field("account_name"), &c.account_name);
    check_text(&mut violations, &field("domain_id"), &c.domain_id);
    let infra = if c.infrastructure_ref.is_empty() {
        if c.zone_id.is_empty() {
            violations.add(field("zone_id"), "is required (ListZones)");
        }
        if c.service_offering_id.is_empty() {
            violations.add(
                field("service_offering_id"),
                "is required (ListServiceOfferings)",
            );
        }
        if !(1..=MAX_SIZE).contains(&i64::from(c.size)) {
            violations.add(field("size"), format!("must be between 1 and {MAX_SIZE}"));
        }
        InfraSource::New(infra_spec_from_proto(&pb::SimInfrastructureSpec {
            zone_id: c.zone_id.clone(),
            service_offering_id: c.service_offering_id.clone(),
            size: c.size,
            network_id: c.network_id.clone(),
        }))
    } else {
        for (name, set) in [
            ("zone_id", !c.zone_id.is_empty()),
            ("service_offering_id", !c.service_offering_id.is_empty()),
            ("size", c.size != 0),
            ("network_id", !c.network_id.is_empty()),
        ] {
            if set {
                violations.add(
                    field(name),
                    "must be empty when infrastructure_ref is given (the object's spec is used)",
                );
            }
        }
        match sim_infrastructure_id(&field("infrastructure_ref"), &c.infrastructure_ref) {
            Ok(id) => InfraSource::Existing(id.to_string()),
            Err(_) => {
                violations.add(
                    field("infrastructure_ref"),
                    "must be simInfrastructures/{id}",
                );
                InfraSource::Existing(String::new())
            }
        }
    };
    let policy = violations.check(
        policy_from_proto(&field("recovery_policy"), c.recovery_policy)
            .map_err(super::actions::first_violation),
    );
    let registry = req.registry.as_ref().map(|r| {
        if r.url.is_empty() {
            violations.add("registry.url", "is required with registry credentials");
        }
        if r.username.is_empty() {
            violations.add("registry.username", "is required with registry credentials");
        }
        check_text(&mut violations, "registry.url", &r.url);
        check_text(&mut violations, "registry.username", &r.username);
        check_text(&mut violations, "registry.password", &r.password);
        Registry {
            url: r.url.clone(),
            username: r.username.clone(),
            password: r.password.clone(),
        }
    });
    violations.into_result()?;
    let or = |value: &str, default: &str| {
        if value.is_empty() {
            default.to_string()
        } else {
            value.to_string()
        }
    };
    Ok(NewCluster {
        display_name: c.display_name.clone(),
        description: c.description.clone(),
        account_name: or(&c.account_name, "admin"),
        domain_id: or(&c.domain_id, "ROOT"),
        infra,
        spec: ClusterSpec {
            recovery_policy: policy.unwrap_or_default(),
            auto_recover: c.auto_recover,
        },
        registry,
    })
}

#[tonic::async_trait]
impl ContainerClusterService for ContainerClusterApi {
    rpc!(self, create_container_cluster(CreateContainerClusterRequest) -> pb::ContainerCluster, |req| {
        let new = new_cluster(&req)?;
        let key = request_key("CreateContainerCluster", "", &req.request_id, &req)?;
        Ok(container_cluster_to_proto(&self.app.create(new, key.as_ref()).await?))
    });

    rpc!(self, get_container_cluster(GetContainerClusterRequest) -> pb::ContainerCluster, |req| {
        let id = container_cluster_id("name", &req.name)?;
        Ok(container_cluster_to_proto(&self.app.get(id).await?))
    });

    rpc!(self, list_container_clusters(ListContainerClustersRequest) -> pb::ListContainerClustersResponse, |req| {
        let mut violations = Violations::new();
        let state = violations.check(
            cluster_state_from_proto("state", req.state).map_err(super::actions::first_violation),
        );
        check_text(&mut violations, "zone_id", &req.zone_id);
        check_text(&mut violations, "account_name", &req.account_name);
        violations.into_result()?;
        let some = |value: &str| (!value.is_empty()).then(|| value.to_string());
        let filter = ClusterFilter {
            state: state.flatten(),
            zone_id: some(&req.zone_id),
            account_name: some(&req.account_name),
        };
        let scope = format!(
            "ListContainerClusters:{:?}:{}:{}",
            filter.state, req.zone_id, req.account_name
        );
        let paging = Paging::<ContainerClusterId>::new(scope, req.page_size, &req.page_token)?;
        let (views, more) = self.app.list(&filter, paging.after, paging.size).await?;
        let next_page_token = paging.next_token(more, views.last().map(|v| v.cluster.id));
        Ok(pb::ListContainerClustersResponse {
            container_clusters: views.iter().map(container_cluster_to_proto).collect(),
            next_page_token,
        })
    });

    rpc!(self, start_container_cluster(StartContainerClusterRequest) -> pb::ContainerCluster, |req| {
        let key = request_key("StartContainerCluster", &req.name, &req.request_id, &req);
        self.verb(Verb::Start, &req.name, None, key).await
    });

    rpc!(self, stop_container_cluster(StopContainerClusterRequest) -> pb::ContainerCluster, |req| {
        let key = request_key("StopContainerCluster", &req.name, &req.request_id, &req);
        self.verb(Verb::Stop, &req.name, None, key).await
    });

    rpc!(self, scale_container_cluster(ScaleContainerClusterRequest) -> pb::ContainerCluster, |req| {
        container_cluster_id("name", &req.name)?;
        if !(1..=MAX_SIZE).contains(&i64::from(req.size)) {
            return Err(Error::invalid("size", format!("must be between 1 and {MAX_SIZE}")));
        }
        let key = request_key("ScaleContainerCluster", &req.name, &req.request_id, &req);
        self.verb(Verb::Scale, &req.name, Some(i64::from(req.size)), key).await
    });

    rpc!(self, recover_container_cluster(RecoverContainerClusterRequest) -> pb::ContainerCluster, |req| {
        let key = request_key("RecoverContainerCluster", &req.name, &req.request_id, &req);
        self.verb(Verb::Recover, &req.name, None, key).await
    });

    rpc!(self, delete_container_cluster(DeleteContainerClusterRequest) -> (), |req| {
        let key = request_key("DeleteContainerCluster", &req.name, &req.request_id, &req);
        self.verb(Verb::Delete, &req.name, None, key).await?;
        Ok(())
    });

    async fn watch_container_clusters(
        &self,
        request: Request<pb::WatchContainerClustersRequest>,
    ) -> Rpc<WatchStream> {
        let req = super::check_size(request)?;
        let watch = async {
            let mut violations = Violations::new();
            let mut states = Vec::new();
            for (i, state) in req.states.iter().enumerate() {
                let field = format!("states[{i}]");
                match cluster_state_from_proto(&field, *state) {
                    Ok(Some(state)) => states.push(state),
                    Ok(None) => violations.add(field, "must be a state, not UNSPECIFIED"),
                    Err(error) => {
                        violations.check::<()>(Err(super::actions::first_violation(error)));
                    }
                }
            }
            violations.into_result()?;
            let resume = match req.resume_token.as_str() {
                "" => None,
                token => Some(crate::watch::token::decode(CLUSTERS_TARGET, token)?),
            };
            crate::watch::records::start(self.watch.clone(), ClusterWatch { states }, resume).await
        }
        .await
        .map_err(Status::from)?;
        Ok(Response::new(Box::pin(ReceiverStream::new(watch))))
    }

    rpc!(self, get_container_cluster_credentials(GetContainerClusterCredentialsRequest) -> pb::ContainerClusterCredentials, |req| {
        let id = container_cluster_id("name", &req.name)?;
        let credentials = self.app.credentials(id).await?;
        Ok(pb::ContainerClusterCredentials {
            name: req.name.clone(),
            kubeconfig: credentials.kubeconfig,
            username: credentials.username,
            password: credentials.password,
            token: credentials.token,
            registry: credentials.registry.map(|r| pb::RegistryCredentials {
                url: r.url,
                username: r.username,
                password: r.password,
            }),
        })
    });

    rpc!(self, register_container_cluster(RegisterContainerClusterRequest) -> pb::Cluster, |req| {
        let mut violations = Violations::new();
        let id = violations.check(
            container_cluster_id("name", &req.name).map_err(super::actions::first_violation),
        );
        let provider = violations.check(
            name(&CLUSTER_PROVIDER, "parent", &req.parent).map_err(super::actions::first_violation),
        );
        if validate_id(&req.cluster_id).is_err() {
            violations.add(
                "cluster_id",
                "must be lower-case letters, digits and '-', start with a letter, at most 63 characters",
            );
        }
        let labels: std::collections::BTreeMap<String, String> =
            req.labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        check_labels(&mut violations, "labels", &labels);
        violations.into_result()?;
        let cluster = name(
            &CLUSTER,
            "cluster_id",
            &format!("{}/clusters/{}", provider.expect("validated"), req.cluster_id),
        )?;
        let view = self
            .app
            .register(id.expect("validated"), cluster, labels, &self.lifecycle)
            .await?;
        Ok(cluster_to_proto(&view))
    });

    rpc!(self, list_zones(ListZonesRequest) -> pb::ListZonesResponse, |_req| {
        let zones = self.app.iaas().zones().await?;
        Ok(pb::ListZonesResponse {
            zones: zones
                .into_iter()
                .map(|z| pb::Zone { id: z.id, name: z.name, vm_capacity: z.capacity.max(0) })
                .collect(),
        })
    });

    rpc!(self, list_service_offerings(ListServiceOfferingsRequest) -> pb::ListServiceOfferingsResponse, |_req| {
        let offerings = self.app.iaas().offerings().await?;
        Ok(pb::ListServiceOfferingsResponse {
            service_offerings: offerings
                .into_iter()
                .map(|o| pb::ServiceOffering { id: o.id, name: o.name, cpus: o.cpus, memory_mib: o.memory_mib })
                .collect(),
        })
    });

    rpc!(self, create_sim_infrastructure(CreateSimInfrastructureRequest) -> pb::SimInfrastructure, |req| {
        let Some(object) = &req.sim_infrastructure else {
            return Err(Error::invalid("sim_infrastructure", "is required"));
        };
        let Some(spec) = &object.spec else {
            return Err(Error::invalid("sim_infrastructure.spec", "is required"));
        };
        if !req.sim_infrastructure_id.is_empty() && validate_id(&req.sim_infrastructure_id).is_err() {
            return Err(Error::invalid(
                "sim_infrastructure_id",
                "must be lower-case letters, digits and '-', start with a letter, at most 63 characters",
            ));
        }
        let key = request_key("CreateSimInfrastructure", &req.sim_infrastructure_id, &req.request_id, &req)?;
        let new = NewInfra { id: req.sim_infrastructure_id.clone(), spec: infra_spec_from_proto(spec) };
        Ok(infra_to_proto(&self.app.create_infra(new, key.as_ref()).await?))
    });

    rpc!(self, get_sim_infrastructure(GetSimInfrastructureRequest) -> pb::SimInfrastructure, |req| {
        let id = sim_infrastructure_id("name", &req.name)?;
        Ok(infra_to_proto(&self.app.get_infra(id).await?))
    });

    rpc!(self, list_sim_infrastructures(ListSimInfrastructuresRequest) -> pb::ListSimInfrastructuresResponse, |req| {
        let paging = Paging::<String>::new("ListSimInfrastructures".into(), req.page_size, &req.page_token)?;
        let (page, more) = self.app.list_infra(paging.after.as_deref(), paging.size).await?;
        let next_page_token = paging.next_token(more, page.last().map(|i| i.id.clone()));
        Ok(pb::ListSimInfrastructuresResponse {
            sim_infrastructures: page.iter().map(infra_to_proto).collect(),
            next_page_token,
        })
    });

    rpc!(self, delete_sim_infrastructure(DeleteSimInfrastructureRequest) -> (), |req| {
        let id = sim_infrastructure_id("name", &req.name)?;
        let etag = parse_etag(&req.etag);
        self.app.delete_infra(id, etag).await
    });
}
