//! What an IaaS provides container clusters: zones, service offerings, networks and
//! VMs (the values `infra::Provider` takes and returns).

/// A zone VMs are provisioned in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    pub id: String,
    pub name: String,
    /// How many more VMs the zone accepts.
    pub capacity: i64,
}

/// A service offering: the size of a VM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offering {
    pub id: String,
    pub name: String,
    pub cpus: i64,
    pub memory_mib: i64,
}

/// A network VMs are attached to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    pub id: String,
    pub zone_id: String,
    pub name: String,
    /// An isolated network with source NAT (the kind provisioned for a cluster).
    pub source_nat: bool,
}

super::named_enum! {
    /// The power state of a VM.
    pub enum VmState ("VM power state") {
        Running,
        Stopped,
    }
}

/// A VM as the IaaS has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vm {
    pub id: String,
    pub name: String,
    pub zone_id: String,
    pub offering_id: String,
    pub network_id: String,
    pub host_id: String,
    pub state: VmState,
    pub ip_address: String,
}

/// What a new VM is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmSpec {
    pub name: String,
    pub zone_id: String,
    pub offering_id: String,
    pub network_id: String,
}
