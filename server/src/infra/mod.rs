//! Infrastructure providers: the IaaS that container clusters' VMs run on (DESIGN §12).
//! [`Provider`] is what a cluster's workflows call; a real CloudStack or OpenStack
//! provider would implement it against that system's API. [`sim::SimIaas`], the
//! embedded default, keeps zones, service offerings, hosts, networks and VMs in tables
//! of its own and lets the SimulatorService inject the faults the seed's failure cases
//! need.

pub mod sim;

use std::fmt;

pub use crate::domain::iaas::{Network, Offering, Vm, VmSpec, VmState, Zone};
use crate::error::Error;

/// Why the IaaS refused or failed an operation.
#[derive(Debug)]
pub enum InfraError {
    /// The zone accepts no more VMs.
    NoCapacity { zone: String },
    /// No such zone, offering, network or VM.
    NotFound { kind: &'static str, id: String },
    /// The VM's host cannot be reached: the operation cannot be carried out now.
    HostUnreachable { host: String },
    /// A fault injected through the SimulatorService.
    Injected { operation: &'static str },
    /// The provider's own failure (its database, its API).
    Provider(Error),
}

impl InfraError {
    /// The machine-readable reason (a condition's reason, a failure_reason).
    pub fn reason(&self) -> &'static str {
        match self {
            InfraError::NoCapacity { .. } => "InsufficientCapacity",
            InfraError::NotFound { .. } => "NotFound",
            InfraError::HostUnreachable { .. } => "HostUnreachable",
            InfraError::Injected { .. } => "InjectedFault",
            InfraError::Provider(_) => "ProviderError",
        }
    }

    /// Whether retrying later may succeed (a retry of a failed cleanup, say).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            InfraError::HostUnreachable { .. }
                | InfraError::Injected { .. }
                | InfraError::Provider(_)
        )
    }
}

impl fmt::Display for InfraError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InfraError::NoCapacity { zone } => write!(f, "zone {zone} has no capacity left"),
            InfraError::NotFound { kind, id } => write!(f, "{kind} {id} does not exist"),
            InfraError::HostUnreachable { host } => write!(f, "host {host} is unreachable"),
            InfraError::Injected { operation } => {
                write!(f, "{operation} failed (fault injected by the simulator)")
            }
            InfraError::Provider(error) => write!(f, "the IaaS failed: {error}"),
        }
    }
}

impl From<Error> for InfraError {
    fn from(error: Error) -> Self {
        InfraError::Provider(error)
    }
}

pub type InfraResult<T> = std::result::Result<T, InfraError>;

/// An IaaS as container clusters use it. Every mutating call is one operation of the
/// IaaS: it either happened or did not (a failure leaves nothing half-made), so a
/// workflow that crashed can read what exists and go on.
#[tonic::async_trait]
pub trait Provider: Send + Sync {
    /// Zones, with what each still accepts.
    async fn zones(&self) -> InfraResult<Vec<Zone>>;
    /// Service offerings.
    async fn offerings(&self) -> InfraResult<Vec<Offering>>;
    /// A network, if it exists.
    async fn network(&self, id: &str) -> InfraResult<Option<Network>>;
    /// The network of `zone_id` named `name`, if one exists (how a workflow that
    /// crashed after creating it finds it again).
    async fn network_named(&self, zone_id: &str, name: &str) -> InfraResult<Option<Network>>;
    /// Provisions an isolated network with source NAT in `zone_id`; the zone's network
    /// already named `name`, if there is one (names are unique per zone, so a step
    /// repeated by a replica that lost the fleet-wide tasks makes nothing twice).
    async fn create_network(&self, zone_id: &str, name: &str) -> InfraResult<Network>;
    /// Releases a network (NotFound if it is gone already).
    async fn delete_network(&self, id: &str) -> InfraResult<()>;
    /// Provisions and starts a VM (NoCapacity when the zone is full); the VM already
    /// named `spec.name` on `spec.network_id`, if there is one (as for networks).
    async fn create_vm(&self, spec: &VmSpec) -> InfraResult<Vm>;
    /// Starts a VM (a running one stays running).
    async fn start_vm(&self, id: &str) -> InfraResult<()>;
    /// Stops a VM (a stopped one stays stopped).
    async fn stop_vm(&self, id: &str) -> InfraResult<()>;
    /// Destroys a VM and gives its capacity back (NotFound if it is gone already).
    async fn delete_vm(&self, id: &str) -> InfraResult<()>;
    /// The VM named `name`, if one exists (how a workflow that crashed after creating
    /// it finds it again).
    async fn vm_named(&self, name: &str) -> InfraResult<Option<Vm>>;
    /// The states of the VMs of `ids` that exist, (id, state): one call for a whole
    /// state sync pass, which needs nothing else of them (CloudStack's
    /// listVirtualMachines with `details=min`).
    async fn vm_states(&self, ids: &[String]) -> InfraResult<Vec<(String, VmState)>>;
}

/// A provider's refusal as the API answers it: a full zone is RESOURCE_EXHAUSTED, a
/// missing object NOT_FOUND, an unreachable host or injected fault UNAVAILABLE
/// (retryable).
impl From<InfraError> for Error {
    fn from(error: InfraError) -> Self {
        match error {
            InfraError::NoCapacity { .. } => Error::ResourceExhausted {
                reason: "ZONE_CAPACITY",
                message: error.to_string(),
                violations: Vec::new(),
            },
            InfraError::NotFound { kind, id } => Error::NotFound {
                kind,
                name: id,
                field: None,
            },
            InfraError::HostUnreachable { .. } | InfraError::Injected { .. } => {
                Error::Unavailable(error.to_string())
            }
            InfraError::Provider(error) => error,
        }
    }
}
