//! The ContainerClusterService use cases (seed 001, DESIGN §12): create, query and the
//! verbs of the state machine, the credentials, and the sim provider's infrastructure
//! objects (seed 004). A verb only moves the cluster (a compare-and-swap on the
//! generation the caller's request read: of two verbs racing one wins, the other is
//! ABORTED) and records the workflow it starts; the workflow driver (`workflow`)
//! carries it out in the background, one committed IaaS call at a time, so a crash
//! loses nothing. State sync (`sync`) compares the book-keeping with the IaaS.

mod infra;
mod register;
mod save;
pub mod sync;
mod workflow;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

pub use self::infra::NewInfra;
use self::save::save;
use super::{RequestKey, idempotent};
use crate::app::Activator;
use crate::domain::cluster_workflow::{Operation, Workflow};
use crate::domain::container_cluster::{ClusterState, Event, Lifecycle, Verb, transition};
use crate::error::{Conflict, Error, Precondition, Result, precondition};
use crate::ids::ContainerClusterId;
use crate::infra::Provider;
use crate::store::container_cluster::{
    ClusterFilter, ClusterSpec, ClusterStatus, ClusterVm, ContainerClusterRecord, RecoveryPolicy,
    cluster_details_get, cluster_details_put, cluster_get, cluster_insert, cluster_list,
    cluster_vms,
};
use crate::store::sim_infrastructure::{InfraRecord, InfraSpec, cluster_infra};
use crate::store::{Store, now_micros};
use crate::vault::Vault;

/// The target of container cluster events in the event log (one for all clusters).
pub const CLUSTERS_TARGET: &str = "containerClusters";

/// The most VMs a cluster has (CloudStack's CKS caps node counts per cluster too).
pub const MAX_SIZE: i64 = 100;

/// Timeouts and periods.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// An operation still in flight after this long fails (CloudStack: an hour).
    pub operation_timeout: Duration,
    /// Workflows driven at once.
    pub parallel: usize,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        Self {
            operation_timeout: Duration::from_secs(3600),
            parallel: 16,
        }
    }
}

/// Registry credentials given at create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    pub url: String,
    pub username: String,
    pub password: String,
}

/// What is sealed in a cluster's details (never in a response but
/// GetContainerClusterCredentials, never in a log line).
#[derive(Clone, Serialize, Deserialize)]
struct Sealed {
    username: String,
    password: String,
    token: String,
    registry: Option<Registry>,
}

/// A cluster's credentials, unsealed.
#[derive(Clone)]
pub struct Credentials {
    pub username: String,
    pub password: String,
    pub token: String,
    pub kubeconfig: String,
    pub registry: Option<Registry>,
}

/// Where a new cluster's infrastructure object comes from.
#[derive(Debug, Clone)]
pub enum InfraSource {
    /// An existing unowned object, `simInfrastructures/{id}` (its id).
    Existing(String),
    /// A new object made from the cluster's fields.
    New(InfraSpec),
}

/// A validated create request.
#[derive(Debug, Clone)]
pub struct NewCluster {
    pub display_name: String,
    pub description: String,
    pub account_name: String,
    pub domain_id: String,
    pub infra: InfraSource,
    pub spec: ClusterSpec,
    pub registry: Option<Registry>,
}

/// A cluster with what its responses show (and its WatchContainerClusters events
/// carry).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct View {
    pub cluster: ContainerClusterRecord,
    pub vms: Vec<ClusterVm>,
    pub infra: Option<InfraRecord>,
}

/// The ContainerClusterService use cases.
#[derive(Clone)]
pub struct ContainerClusters {
    store: Store,
    iaas: Arc<dyn Provider>,
    vault: Arc<Vault>,
    options: ClusterOptions,
    /// Wakes the workflow driver.
    driver: Activator,
    /// Clusters whose workflow a task of this server is driving.
    driving: Arc<Mutex<HashSet<ContainerClusterId>>>,
    slots: Arc<Semaphore>,
    /// In a replica set: the ownership whose fleet-wide tasks unit fences the
    /// background writes (workflow steps, garbage collection, state sync).
    fencing: Option<Arc<crate::coord::ownership::Ownership>>,
}

impl ContainerClusters {
    /// Fences the background writes by this replica's hold on the fleet-wide tasks.
    pub fn with_fencing(mut self, ownership: Arc<crate::coord::ownership::Ownership>) -> Self {
        self.fencing = ownership.replicated().then_some(ownership);
        self
    }

    /// Refuses to start a workflow step (its IaaS call) on a replica that does not
    /// hold the fleet-wide tasks now (a quick look at its lease and claims; the
    /// commit checks the fence again).
    fn check_fleet_tasks(&self) -> Result<()> {
        if let Some(ownership) = &self.fencing
            && ownership
                .owns(crate::coord::ownership::FLEET_TASKS)
                .is_none()
        {
            return Err(not_the_fleet_tasks_holder());
        }
        Ok(())
    }

    /// Refuses a background write (a workflow step's commit, garbage collection, state
    /// sync) of a replica that no longer runs the fleet-wide tasks, checked in `tx`: a
    /// replica paused past its lease cannot commit a step its successor may have
    /// planned again and carried out since.
    async fn fleet_fence(&self, tx: &mut crate::store::Tx) -> Result<()> {
        match &self.fencing {
            Some(ownership) if !ownership.runs_fleet_tasks(tx).await? => {
                Err(not_the_fleet_tasks_holder())
            }
            _ => Ok(()),
        }
    }

    pub fn new(
        store: Store,
        iaas: Arc<dyn Provider>,
        vault: Arc<Vault>,
        options: ClusterOptions,
        driver: Activator,
    ) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(options.parallel.max(1))),
            store,
            iaas,
            vault,
            options,
            driver,
            driving: Arc::default(),
            fencing: None,
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn iaas(&self) -> &Arc<dyn Provider> {
        &self.iaas
    }

    /// Creates a cluster and starts provisioning it: the cluster is recorded STARTING
    /// with a Start workflow, its infrastructure object owned by it, its credentials
    /// sealed, in one transaction.
    pub async fn create(&self, new: NewCluster, key: Option<&RequestKey>) -> Result<View> {
        let spec = match &new.infra {
            InfraSource::New(spec) => spec.clone(),
            InfraSource::Existing(id) => self.unowned_infra(id).await?.spec,
        };
        self.check_spec(&spec, "").await?;
        let id: String = idempotent(&self.store, key, async |tx| {
            let now = now_micros();
            let id = ContainerClusterId::new();
            let name = format!("containerClusters/{id}");
            let infra_id = match &new.infra {
                InfraSource::Existing(existing) => {
                    self.take_infra(tx, existing, &name).await?;
                    existing.clone()
                }
                InfraSource::New(spec) => {
                    let id = id.to_string();
                    self.insert_infra(tx, &id, spec, &name).await?;
                    id
                }
            };
            let lifecycle = transition(&Lifecycle::created(), Event::Request(Verb::Start))
                .map_err(|refused| Error::internal(refused.why))?;
            let mut record = ContainerClusterRecord {
                id,
                display_name: new.display_name.clone(),
                description: new.description.clone(),
                account_name: new.account_name.clone(),
                domain_id: new.domain_id.clone(),
                zone_id: spec.zone_id.clone(),
                service_offering_id: spec.service_offering_id.clone(),
                size: spec.size,
                network_id: spec.network_id.clone(),
                network_cleanup: false,
                infrastructure_ref: format!("simInfrastructures/{infra_id}"),
                lifecycle,
                spec: new.spec.clone(),
                status: ClusterStatus::default(),
                operation: None,
                next_run: None,
                generation: 0,
                create_time: now,
                update_time: now,
            };
            self.start_workflow(&mut record, Operation::Start, now);
            cluster_insert(tx, &record).await?;
            save(tx, &mut record, 0, &[]).await?;
            let sealed = Sealed {
                username: "admin".into(),
                password: crate::app::access::Secret::generate().expose()[4..36].to_string(),
                token: crate::app::access::Secret::generate().expose().to_string(),
                registry: new.registry.clone(),
            };
            let json = serde_json::to_vec(&sealed).map_err(Error::internal)?;
            cluster_details_put(tx, id, &self.vault.seal(&name, &json)).await?;
            Ok(id.to_string())
        })
        .await?;
        self.driver.activate();
        self.get(parse_id(&id)?).await
    }

    /// A cluster with its VMs and infrastructure object.
    pub async fn get(&self, id: ContainerClusterId) -> Result<View> {
        let mut conn = self.store.read().await?;
        let cluster = cluster_get(&mut conn, id)
            .await?
            .ok_or_else(|| not_found(id))?;
        let vms = cluster_vms(&mut conn, &[id])
            .await?
            .remove(&id)
            .unwrap_or_default();
        let infra = cluster_infra(&mut conn, &cluster).await?;
        Ok(View {
            cluster,
            vms,
            infra,
        })
    }

    /// A page of clusters (DESTROYED ones only when the filter asks for that state);
    /// true if more follow.
    pub async fn list(
        &self,
        filter: &ClusterFilter,
        after: Option<ContainerClusterId>,
        limit: usize,
    ) -> Result<(Vec<View>, bool)> {
        let mut conn = self.store.read().await?;
        let clusters = cluster_list(&mut conn, filter, after, limit + 1).await?;
        let (clusters, more) = crate::app::page_of(clusters, limit);
        let ids: Vec<_> = clusters.iter().map(|c| c.id).collect();
        let mut vms = cluster_vms(&mut conn, &ids).await?;
        let mut views = Vec::with_capacity(clusters.len());
        for cluster in clusters {
            let infra = cluster_infra(&mut conn, &cluster).await?;
            views.push(View {
                vms: vms.remove(&cluster.id).unwrap_or_default(),
                cluster,
                infra,
            });
        }
        Ok((views, more))
    }

    /// A verb: moves the cluster (compare-and-swap on the generation read first) and
    /// starts the verb's workflow. `scale_to` is the new size of a Scale.
    pub async fn request(
        &self,
        id: ContainerClusterId,
        verb: Verb,
        scale_to: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<View> {
        let before = self.get(id).await?;
        // Capacity only matters for a scale the state machine allows (a refused one
        // is told about the state).
        if let Some(to) = scale_to
            && to > before.cluster.size
            && transition(&before.cluster.lifecycle, Event::Request(verb)).is_ok()
        {
            let spec = InfraSpec {
                zone_id: before.cluster.zone_id.clone(),
                service_offering_id: before.cluster.service_offering_id.clone(),
                size: to - before.cluster.size,
                network_id: String::new(),
            };
            self.check_capacity(&spec, "size").await?;
        }
        let _: String = idempotent(&self.store, key, async |tx| {
            let mut record = before.cluster.clone();
            let name = record.name();
            record.lifecycle =
                transition(&record.lifecycle, Event::Request(verb)).map_err(|refused| {
                    Error::invalid_transition(
                        &format!("container cluster {name}"),
                        record.lifecycle.state,
                        verb.as_str(),
                        refused.why,
                    )
                })?;
            let operation = match verb {
                Verb::Start => Operation::Start,
                Verb::Stop => Operation::Stop,
                Verb::Scale => {
                    let to = scale_to.ok_or_else(|| Error::invalid("size", "is required"))?;
                    record.size = to;
                    Operation::Scale { to }
                }
                Verb::Recover => match record.spec.recovery_policy {
                    RecoveryPolicy::None => {
                        return Err(precondition!(
                            Precondition::RecoveryDisabled,
                            name.clone(),
                            "{name} has recovery policy NONE: stop or delete it, or \
                                 change its policy"
                        ));
                    }
                    RecoveryPolicy::RestartStopped => Operation::Recover { reprovision: false },
                    RecoveryPolicy::RestartAndReprovision => {
                        Operation::Recover { reprovision: true }
                    }
                },
                Verb::Delete => Operation::Expunge,
            };
            record.status.failure = None;
            self.start_workflow(&mut record, operation, now_micros());
            if !save(tx, &mut record, before.cluster.generation, &before.vms).await? {
                return Err(Error::Aborted {
                    reason: Conflict::ConcurrentChange,
                    message: format!(
                        "{name} changed while the {} request was handled: read it and retry",
                        verb.as_str()
                    ),
                });
            }
            Ok(record.id.to_string())
        })
        .await?;
        self.driver.activate();
        self.get(id).await
    }

    /// The cluster's credentials, unsealed; the kubeconfig once it has an endpoint.
    pub async fn credentials(&self, id: ContainerClusterId) -> Result<Credentials> {
        let view = self.get(id).await?;
        let name = view.cluster.name();
        if view.cluster.lifecycle.state == ClusterState::Destroyed {
            return Err(precondition!(
                Precondition::ClusterDestroyed,
                name.clone(),
                "{name} is destroyed: its credentials are gone"
            ));
        }
        let sealed = {
            let mut conn = self.store.read().await?;
            cluster_details_get(&mut conn, id).await?
        }
        .ok_or_else(|| Error::internal(format!("{name} has no stored credentials")))?;
        let sealed: Sealed = serde_json::from_slice(&self.vault.unseal(&name, &sealed)?)
            .map_err(|_| Error::internal(format!("the credentials of {name} do not parse")))?;
        let endpoint = &view.cluster.status.endpoint;
        let kubeconfig = if endpoint.is_empty() {
            String::new()
        } else {
            kubeconfig(&view.cluster.display_name, endpoint, &sealed.token)
        };
        Ok(Credentials {
            username: sealed.username,
            password: sealed.password,
            token: sealed.token,
            kubeconfig,
            registry: sealed.registry,
        })
    }

    /// Sets the workflow of `operation` on `record`, due now.
    fn start_workflow(&self, record: &mut ContainerClusterRecord, operation: Operation, now: i64) {
        let timeout = self.options.operation_timeout.as_micros() as i64;
        let workflow = Workflow {
            operation,
            started: now,
            deadline: now.saturating_add(timeout),
        };
        record.operation = Some(serde_json::to_string(&workflow).expect("a workflow serializes"));
        record.next_run = Some(now);
    }
}

/// A kubeconfig for the cluster's admin user.
fn kubeconfig(cluster: &str, endpoint: &str, token: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {cluster}\n  cluster:\n    server: \
         {endpoint}\n    insecure-skip-tls-verify: true\nusers:\n- name: {cluster}-admin\n  \
         user:\n    token: {token}\ncontexts:\n- name: {cluster}\n  context:\n    cluster: \
         {cluster}\n    user: {cluster}-admin\ncurrent-context: {cluster}\n"
    )
}

fn parse_id(id: &str) -> Result<ContainerClusterId> {
    id.parse()
        .map_err(|_| Error::internal(format!("recorded container cluster id {id:?}")))
}

fn not_found(id: ContainerClusterId) -> Error {
    Error::NotFound {
        kind: "flotilla.v1.ContainerCluster",
        name: format!("containerClusters/{id}"),
        field: Some("name".into()),
    }
}

/// What a workflow step of a replica that no longer runs the fleet-wide tasks gets.
fn not_the_fleet_tasks_holder() -> Error {
    Error::Unavailable(
        "this replica no longer runs the fleet-wide tasks: the step is left to the one that does"
            .into(),
    )
}
