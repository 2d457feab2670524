//! Container cluster workflows (DESIGN §12): what an operation in flight does next.
//! Pure: [`plan`] reads the cluster's VM map as the book-keeping has it and names one
//! IaaS call, whose result the driver commits before it plans again. A server killed
//! anywhere in between plans the same step after restart; steps are idempotent in the
//! IaaS (a VM that is running stays running, a deleted VM is gone) or adopt what a
//! crashed attempt made (VMs and networks have deterministic names: [`vm_name`],
//! [`network_name`]).

use serde::{Deserialize, Serialize};

use super::conditions::{Condition, Severity};
use super::container_cluster::{ClusterState, Lifecycle};

super::named_enum! {
    /// The provisioning phase of an infrastructure object (seed 004).
    #[derive(Serialize, Deserialize, Default)]
    pub enum Phase ("infrastructure phase") {
        #[default]
        Pending,
        Provisioning,
        Provisioned,
        Deleting,
        Failed,
    }
}

/// The phase the provider reports for the infrastructure of a cluster in `lifecycle`
/// (`failed`: the last operation failed).
pub fn phase_of(lifecycle: &Lifecycle, failed: bool) -> Phase {
    use ClusterState::*;
    match lifecycle.state {
        Expunging | Expunge | Destroyed => Phase::Deleting,
        Created => Phase::Pending,
        _ if !lifecycle.provisioned && failed => Phase::Failed,
        _ if !lifecycle.provisioned => Phase::Provisioning,
        _ => Phase::Provisioned,
    }
}

/// The Ready condition of an infrastructure object in `phase` (Cluster API semantics:
/// True once provisioned; a failure is an Error, provisioning Info).
pub fn infrastructure_ready(phase: Phase, failure: Option<(&str, &str)>) -> Condition {
    match (phase, failure) {
        (Phase::Provisioned, _) => Condition::true_("Ready"),
        (Phase::Failed, Some((reason, message))) => {
            Condition::false_("Ready", Severity::Error, reason, message)
        }
        (Phase::Deleting, _) => Condition::false_(
            "Ready",
            Severity::Info,
            "Deleting",
            "the infrastructure is being released",
        ),
        (Phase::Pending, _) => Condition::false_(
            "Ready",
            Severity::Info,
            "WaitingForOwner",
            "nothing is provisioned until a container cluster owns the object",
        ),
        _ => Condition::false_(
            "Ready",
            Severity::Info,
            "Provisioning",
            "the network and VMs are being provisioned",
        ),
    }
}

/// The operation a workflow carries out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Operation {
    /// Provision (first start) or restart every VM: the network if the cluster needs
    /// one, a VM for every missing ordinal below the size, then start stopped ones.
    Start,
    /// Stop every running VM.
    Stop,
    /// Release VMs from the highest ordinal down to `to`, or add VMs up to `to`.
    Scale { to: i64 },
    /// Restart stopped VMs; with `reprovision`, also replace VMs the IaaS lost.
    Recover { reprovision: bool },
    /// Release every VM, then the network if it was provisioned for the cluster.
    Expunge,
}

impl Operation {
    /// The operation as a condition message or log says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Start => "start",
            Operation::Stop => "stop",
            Operation::Scale { .. } => "scale",
            Operation::Recover { .. } => "recovery",
            Operation::Expunge => "cleanup",
        }
    }
}

/// A workflow in flight: the persisted `operation` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workflow {
    pub operation: Operation,
    /// When it started and when it times out (microseconds since the epoch).
    pub started: i64,
    pub deadline: i64,
}

super::named_enum! {
    /// A VM of the cluster as the book-keeping last saw it.
    #[derive(Serialize, Deserialize)]
    pub enum Observed ("VM state") {
        Running,
        Stopped,
        /// The IaaS lost it (state sync found it gone).
        Missing,
    }
}

impl From<super::container_cluster::Desired> for Observed {
    /// The state a VM should be seen in when its cluster is to be `desired`.
    fn from(desired: super::container_cluster::Desired) -> Self {
        match desired {
            super::container_cluster::Desired::Running => Observed::Running,
            super::container_cluster::Desired::Stopped => Observed::Stopped,
        }
    }
}

/// What [`plan`] reads of one VM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmView {
    pub vm_id: String,
    pub ordinal: i64,
    pub observed: Observed,
}

/// What [`plan`] reads of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan<'a> {
    pub operation: Operation,
    /// The number of VMs the cluster should have.
    pub size: i64,
    /// The cluster's network ("" while none is provisioned).
    pub network_id: &'a str,
    /// Whether the network was provisioned for the cluster (released with it).
    pub network_cleanup: bool,
    pub vms: &'a [VmView],
}

/// One IaaS call of a workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Provision the cluster's isolated network.
    CreateNetwork,
    /// Provision the VM of this ordinal; `replaces` the record of a VM the IaaS lost.
    CreateVm {
        ordinal: i64,
        replaces: Option<String>,
    },
    StartVm {
        vm_id: String,
    },
    StopVm {
        vm_id: String,
    },
    /// Release a VM (one the IaaS lost already is only forgotten).
    DeleteVm {
        vm_id: String,
    },
    /// Release the network provisioned for the cluster.
    DeleteNetwork {
        network_id: String,
    },
    /// Nothing is left to do: the operation succeeded.
    Done,
    /// The operation cannot succeed: (reason, message).
    Fail {
        reason: &'static str,
        message: String,
    },
}

/// The deterministic name of a cluster's VM.
pub fn vm_name(cluster_id: &str, ordinal: i64) -> String {
    format!("{cluster_id}-{ordinal}")
}

/// The deterministic name of the network provisioned for a cluster.
pub fn network_name(cluster_id: &str) -> String {
    format!("{cluster_id}-net")
}

/// The next step of a workflow.
pub fn plan(p: &Plan<'_>) -> Step {
    let by_ordinal = |ordinal: i64| p.vms.iter().find(|vm| vm.ordinal == ordinal);
    let first = |observed: Observed| p.vms.iter().find(|vm| vm.observed == observed);
    let missing_ordinal = |size: i64| (0..size).find(|&ordinal| by_ordinal(ordinal).is_none());
    match p.operation {
        Operation::Start => {
            if p.network_id.is_empty() {
                return Step::CreateNetwork;
            }
            if let Some(ordinal) = missing_ordinal(p.size) {
                return Step::CreateVm {
                    ordinal,
                    replaces: None,
                };
            }
            if let Some(vm) = p.vms.iter().find(|vm| vm.observed != Observed::Running) {
                if vm.observed == Observed::Missing {
                    return Step::Fail {
                        reason: "VmMissing",
                        message: format!("VM {} is gone from the IaaS", vm.vm_id),
                    };
                }
                return Step::StartVm {
                    vm_id: vm.vm_id.clone(),
                };
            }
            Step::Done
        }
        Operation::Stop => match first(Observed::Running) {
            Some(vm) => Step::StopVm {
                vm_id: vm.vm_id.clone(),
            },
            None => Step::Done,
        },
        Operation::Scale { to } => {
            if let Some(vm) = p
                .vms
                .iter()
                .filter(|vm| vm.ordinal >= to)
                .max_by_key(|vm| vm.ordinal)
            {
                return Step::DeleteVm {
                    vm_id: vm.vm_id.clone(),
                };
            }
            match missing_ordinal(to) {
                Some(ordinal) => Step::CreateVm {
                    ordinal,
                    replaces: None,
                },
                None => Step::Done,
            }
        }
        Operation::Recover { reprovision } => {
            if let Some(vm) = first(Observed::Missing) {
                if !reprovision {
                    return Step::Fail {
                        reason: "VmMissing",
                        message: format!(
                            "VM {} is gone from the IaaS and the recovery policy does not \
                             re-provision",
                            vm.vm_id
                        ),
                    };
                }
                return Step::CreateVm {
                    ordinal: vm.ordinal,
                    replaces: Some(vm.vm_id.clone()),
                };
            }
            if let Some(ordinal) = missing_ordinal(p.size) {
                if !reprovision {
                    return Step::Fail {
                        reason: "VmMissing",
                        message: format!(
                            "the cluster has {} of {} VMs and the recovery policy does not \
                             re-provision",
                            p.vms.len(),
                            p.size
                        ),
                    };
                }
                return Step::CreateVm {
                    ordinal,
                    replaces: None,
                };
            }
            match first(Observed::Stopped) {
                Some(vm) => Step::StartVm {
                    vm_id: vm.vm_id.clone(),
                },
                None => Step::Done,
            }
        }
        Operation::Expunge => {
            if let Some(vm) = p.vms.iter().max_by_key(|vm| vm.ordinal) {
                return Step::DeleteVm {
                    vm_id: vm.vm_id.clone(),
                };
            }
            if p.network_cleanup && !p.network_id.is_empty() {
                return Step::DeleteNetwork {
                    network_id: p.network_id.to_string(),
                };
            }
            Step::Done
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn vm(ordinal: i64, observed: Observed) -> VmView {
        VmView {
            vm_id: format!("vm-{ordinal}"),
            ordinal,
            observed,
        }
    }

    fn plan_of(operation: Operation, size: i64, network: &str, vms: &[VmView]) -> Step {
        plan(&Plan {
            operation,
            size,
            network_id: network,
            network_cleanup: true,
            vms,
        })
    }

    fn create_vm(ordinal: i64, replaces: Option<&str>) -> Step {
        let replaces = replaces.map(Into::into);
        Step::CreateVm { ordinal, replaces }
    }

    fn start_vm(vm_id: &str) -> Step {
        let vm_id = vm_id.into();
        Step::StartVm { vm_id }
    }

    fn delete_vm(vm_id: &str) -> Step {
        let vm_id = vm_id.into();
        Step::DeleteVm { vm_id }
    }

    #[test]
    fn a_first_start_makes_the_network_then_the_vms_in_order() {
        assert_eq!(plan_of(Operation::Start, 3, "", &[]), Step::CreateNetwork);
        assert_eq!(
            plan_of(Operation::Start, 3, "net", &[vm(0, Observed::Running)]),
            create_vm(1, None)
        );
        let all = [0, 1, 2].map(|o| vm(o, Observed::Running));
        assert_eq!(plan_of(Operation::Start, 3, "net", &all), Step::Done);
    }

    #[test]
    fn a_restart_starts_stopped_vms_and_fails_on_a_lost_one() {
        let vms = [vm(0, Observed::Running), vm(1, Observed::Stopped)];
        assert_eq!(plan_of(Operation::Start, 2, "net", &vms), start_vm("vm-1"));
        let vms = [vm(0, Observed::Running), vm(1, Observed::Missing)];
        assert!(matches!(
            plan_of(Operation::Start, 2, "net", &vms),
            Step::Fail {
                reason: "VmMissing",
                ..
            }
        ));
    }

    #[test]
    fn scale_down_releases_the_highest_ordinals_first() {
        let vms = [0, 1, 2, 3].map(|o| vm(o, Observed::Running));
        assert_eq!(
            plan_of(Operation::Scale { to: 2 }, 4, "net", &vms),
            delete_vm("vm-3")
        );
        assert_eq!(
            plan_of(Operation::Scale { to: 4 }, 2, "net", &vms[..2]),
            create_vm(2, None)
        );
    }

    #[test]
    fn recovery_follows_its_policy() {
        let vms = [
            vm(0, Observed::Stopped),
            vm(1, Observed::Missing),
            vm(2, Observed::Running),
        ];
        let reprovision = Operation::Recover { reprovision: true };
        assert_eq!(
            plan_of(reprovision, 3, "net", &vms),
            create_vm(1, Some("vm-1"))
        );
        let restart = Operation::Recover { reprovision: false };
        assert!(matches!(
            plan_of(restart, 3, "net", &vms),
            Step::Fail { .. }
        ));
        assert_eq!(
            plan_of(restart, 2, "net", &vms[..1]),
            Step::Fail {
                reason: "VmMissing",
                message: "the cluster has 1 of 2 VMs and the recovery policy does not \
                          re-provision"
                    .into()
            }
        );
        assert_eq!(plan_of(restart, 1, "net", &vms[..1]), start_vm("vm-0"));
    }

    #[test]
    fn cleanup_releases_vms_then_only_a_provisioned_network() {
        let vms = [vm(0, Observed::Running), vm(1, Observed::Missing)];
        assert_eq!(
            plan_of(Operation::Expunge, 2, "net", &vms),
            delete_vm("vm-1")
        );
        assert_eq!(
            plan_of(Operation::Expunge, 2, "net", &[]),
            Step::DeleteNetwork {
                network_id: "net".into()
            }
        );
        let given = plan(&Plan {
            operation: Operation::Expunge,
            size: 2,
            network_id: "net",
            network_cleanup: false,
            vms: &[],
        });
        assert_eq!(given, Step::Done);
    }

    fn observed() -> impl Strategy<Value = Observed> {
        prop_oneof![
            Just(Observed::Running),
            Just(Observed::Stopped),
            Just(Observed::Missing)
        ]
    }

    fn operation() -> impl Strategy<Value = Operation> {
        prop_oneof![
            Just(Operation::Start),
            Just(Operation::Stop),
            (0i64..8).prop_map(|to| Operation::Scale { to }),
            any::<bool>().prop_map(|reprovision| Operation::Recover { reprovision }),
            Just(Operation::Expunge),
        ]
    }

    /// Carries a step out on the book-keeping as the driver commits it (every IaaS
    /// call succeeds).
    fn apply(vms: &mut Vec<VmView>, network: &mut String, step: &Step) {
        let mut set = |id: &str, to: Observed| {
            if let Some(vm) = vms.iter_mut().find(|vm| vm.vm_id == id) {
                vm.observed = to;
            }
        };
        match step {
            Step::CreateNetwork => *network = "net".into(),
            Step::CreateVm { ordinal, replaces } => {
                vms.retain(|vm| Some(&vm.vm_id) != replaces.as_ref());
                vms.push(VmView {
                    vm_id: format!("new-{ordinal}"),
                    ordinal: *ordinal,
                    observed: Observed::Running,
                });
            }
            Step::StartVm { vm_id } => set(vm_id, Observed::Running),
            Step::StopVm { vm_id } => set(vm_id, Observed::Stopped),
            Step::DeleteVm { vm_id } => vms.retain(|vm| &vm.vm_id != vm_id),
            Step::DeleteNetwork { .. } => network.clear(),
            Step::Done | Step::Fail { .. } => {}
        }
    }

    proptest! {
        /// Whatever the VM map, a workflow whose calls succeed ends (Done or Fail)
        /// within a bounded number of steps, and Done means its goal holds.
        #[test]
        fn every_workflow_ends_and_done_means_its_goal_holds(
            operation in operation(),
            size in 0i64..6,
            states in proptest::collection::vec(observed(), 0..8),
            with_network in any::<bool>(),
        ) {
            let mut vms: Vec<VmView> = states
                .iter()
                .enumerate()
                .map(|(i, &o)| vm(i as i64, o))
                .collect();
            let mut network = if with_network { "net".to_string() } else { String::new() };
            let mut steps = 0;
            let end = loop {
                let step = plan(&Plan {
                    operation,
                    size,
                    network_id: &network,
                    network_cleanup: true,
                    vms: &vms,
                });
                if matches!(step, Step::Done | Step::Fail { .. }) {
                    break step;
                }
                apply(&mut vms, &mut network, &step);
                steps += 1;
                prop_assert!(steps <= 40, "workflow {operation:?} does not end");
            };
            if end == Step::Done {
                let running = |vm: &VmView| vm.observed == Observed::Running;
                match operation {
                    Operation::Start | Operation::Recover { .. } => {
                        prop_assert!(vms.iter().all(running));
                        for ordinal in 0..size {
                            prop_assert!(vms.iter().any(|vm| vm.ordinal == ordinal));
                        }
                    }
                    Operation::Stop => prop_assert!(!vms.iter().any(running)),
                    Operation::Scale { to } => {
                        prop_assert_eq!(vms.len() as i64, to);
                        prop_assert!(vms.iter().all(|vm| vm.ordinal < to));
                    }
                    Operation::Expunge => {
                        prop_assert!(vms.is_empty());
                        prop_assert!(network.is_empty());
                    }
                }
            }
        }
    }
}
