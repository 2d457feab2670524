//! The domain error type. It knows nothing about gRPC: `wire::status` maps it to
//! `tonic::Status` with `ErrorInfo`, `BadRequest`, `PreconditionFailure` and
//! `ResourceInfo` details in one place.

use std::fmt;

/// One invalid field of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// Path of the field in the request, e.g. `app.manifests[2].metadata.name`.
    pub field: String,
    /// Why the field is invalid.
    pub description: String,
}

impl FieldViolation {
    pub fn new(field: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            description: description.into(),
        }
    }
}

/// One failed precondition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreconditionViolation {
    /// The kind of precondition, e.g. `STATE`, `CHILDREN`, `REFERENCE`.
    pub kind: String,
    /// What it concerns, usually a resource name.
    pub subject: String,
    /// How it failed.
    pub description: String,
}

/// Why an operation is refused in the current state ([`Error::FailedPrecondition`]): the
/// `ErrorInfo` reason a client branches on, and the kind of its precondition violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// The container cluster is registered as a cluster already.
    AlreadyRegistered,
    /// The composite profile has an app profile for that app already.
    AppProfileExists,
    /// The container cluster is destroyed.
    ClusterDestroyed,
    /// An intent group places resources on the cluster.
    ClusterInUse,
    /// The cluster's agent never connected.
    ClusterNeverConnected,
    /// The cluster's agent is not connected.
    ClusterNotConnected,
    /// The group's content changed since it was approved.
    ContentChanged,
    /// Two apps render one object on one cluster.
    DuplicateObject,
    /// The resource still has children.
    HasChildren,
    /// The infrastructure belongs to another container cluster.
    InfrastructureOwned,
    /// The state machine does not allow the operation in the current state.
    InvalidStateTransition,
    /// Another resource refers to this one.
    InUse,
    /// The group has no pending revision to roll out.
    NothingPending,
    /// The cluster is not connected through an agent.
    NotAnAgentCluster,
    /// The cluster is not an embedded sim cluster.
    NotASimCluster,
    /// The pod is not a VM's.
    NotAVmPod,
    /// The reporter is not the action's executor.
    NotTheExecutor,
    /// The group places no apps.
    NoApps,
    /// There is no instance to act on.
    NoInstance,
    /// The cluster has no network intents.
    NoNetworkIntents,
    /// A placement selects no cluster.
    PlacementEmpty,
    /// An app has no placement intent.
    PlacementMissing,
    /// A placement names a cluster that does not exist.
    PlacementUnknownCluster,
    /// The pod is not running.
    PodNotRunning,
    /// The pod is on no node.
    PodNotScheduled,
    /// The container cluster's policy does not recover it.
    RecoveryDisabled,
    /// The apps did not render.
    RenderFailed,
    /// The request id was used for another request.
    RequestIdReused,
    /// Another owner holds the object on the cluster.
    ResourceOwned,
    /// The revision is past the history's retention.
    RevisionExpired,
    /// The server runs without --sim.
    SimDisabled,
}

impl Precondition {
    /// The reason as `ErrorInfo` carries it.
    pub fn as_str(self) -> &'static str {
        match self {
            Precondition::AlreadyRegistered => "ALREADY_REGISTERED",
            Precondition::AppProfileExists => "APP_PROFILE_EXISTS",
            Precondition::ClusterDestroyed => "CLUSTER_DESTROYED",
            Precondition::ClusterInUse => "CLUSTER_IN_USE",
            Precondition::ClusterNeverConnected => "CLUSTER_NEVER_CONNECTED",
            Precondition::ClusterNotConnected => "CLUSTER_NOT_CONNECTED",
            Precondition::ContentChanged => "CONTENT_CHANGED",
            Precondition::DuplicateObject => "DUPLICATE_OBJECT",
            Precondition::HasChildren => "HAS_CHILDREN",
            Precondition::InfrastructureOwned => "INFRASTRUCTURE_OWNED",
            Precondition::InvalidStateTransition => "INVALID_STATE_TRANSITION",
            Precondition::InUse => "IN_USE",
            Precondition::NothingPending => "NOTHING_PENDING",
            Precondition::NotAnAgentCluster => "NOT_AN_AGENT_CLUSTER",
            Precondition::NotASimCluster => "NOT_A_SIM_CLUSTER",
            Precondition::NotAVmPod => "NOT_A_VM_POD",
            Precondition::NotTheExecutor => "NOT_THE_EXECUTOR",
            Precondition::NoApps => "NO_APPS",
            Precondition::NoInstance => "NO_INSTANCE",
            Precondition::NoNetworkIntents => "NO_NETWORK_INTENTS",
            Precondition::PlacementEmpty => "PLACEMENT_EMPTY",
            Precondition::PlacementMissing => "PLACEMENT_MISSING",
            Precondition::PlacementUnknownCluster => "PLACEMENT_UNKNOWN_CLUSTER",
            Precondition::PodNotRunning => "POD_NOT_RUNNING",
            Precondition::PodNotScheduled => "POD_NOT_SCHEDULED",
            Precondition::RecoveryDisabled => "RECOVERY_DISABLED",
            Precondition::RenderFailed => "RENDER_FAILED",
            Precondition::RequestIdReused => "REQUEST_ID_REUSED",
            Precondition::ResourceOwned => "RESOURCE_OWNED",
            Precondition::RevisionExpired => "REVISION_EXPIRED",
            Precondition::SimDisabled => "SIM_DISABLED",
        }
    }

    /// The `PreconditionViolation.type` its violation carries.
    pub fn violation_type(self) -> &'static str {
        match self {
            Precondition::ContentChanged => "APPROVAL",
            Precondition::NotASimCluster => "BACKEND",
            Precondition::HasChildren => "CHILDREN",
            Precondition::SimDisabled => "CONFIGURATION",
            Precondition::NotAnAgentCluster => "CONNECTION_MODE",
            Precondition::ClusterNeverConnected | Precondition::ClusterNotConnected => {
                "CONNECTIVITY"
            }
            Precondition::NotTheExecutor => "EXECUTOR",
            Precondition::NoInstance => "INSTANCE",
            Precondition::NoNetworkIntents => "NETWORK_INTENTS",
            Precondition::InfrastructureOwned => "OWNER",
            Precondition::DuplicateObject | Precondition::ResourceOwned => "OWNERSHIP",
            Precondition::NoApps
            | Precondition::PlacementEmpty
            | Precondition::PlacementMissing
            | Precondition::PlacementUnknownCluster => "PLACEMENT",
            Precondition::NotAVmPod => "POD_KIND",
            Precondition::PodNotScheduled => "POD_NODE",
            Precondition::PodNotRunning => "POD_PHASE",
            Precondition::RecoveryDisabled => "POLICY",
            Precondition::ClusterInUse | Precondition::InUse => "REFERENCE",
            Precondition::AlreadyRegistered => "REGISTRATION",
            Precondition::RenderFailed => "RENDER",
            Precondition::RequestIdReused => "REQUEST_ID",
            Precondition::RevisionExpired => "RETENTION",
            Precondition::NothingPending => "REVISION",
            Precondition::ClusterDestroyed | Precondition::InvalidStateTransition => "STATE",
            Precondition::AppProfileExists => "UNIQUE",
        }
    }
}

/// Why a concurrent change won ([`Error::Aborted`]): the `ErrorInfo` reason a client
/// branches on. Each is retryable as a whole once the caller has read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// A compare-and-swap lost to another writer of the same row.
    ConcurrentChange,
    /// A resource changed between the read and the write of an update.
    ConcurrentModification,
    /// A status moved while an operation on it was being decided.
    ConcurrentStatusChange,
    /// The database aborted the transaction for another one (deadlock, serialization).
    ConcurrentTransaction,
    /// Another lifecycle verb moved the group or cluster first.
    ConcurrentTransition,
    /// The caller's etag is not the resource's current one (or was never issued).
    EtagMismatch,
    /// The infrastructure operation belongs to another run of the workflow.
    InfrastructureOwned,
    /// A newer instance of the deployment base committed meanwhile.
    InstanceReplaced,
    /// The same request id is still being answered.
    RequestInProgress,
    /// The pod or node has an open action.
    ActionInProgress,
}

impl Conflict {
    /// The reason as `ErrorInfo` carries it.
    pub fn as_str(self) -> &'static str {
        match self {
            Conflict::ConcurrentChange => "CONCURRENT_CHANGE",
            Conflict::ConcurrentModification => "CONCURRENT_MODIFICATION",
            Conflict::ConcurrentStatusChange => "CONCURRENT_STATUS_CHANGE",
            Conflict::ConcurrentTransaction => "CONCURRENT_TRANSACTION",
            Conflict::ConcurrentTransition => "CONCURRENT_TRANSITION",
            Conflict::EtagMismatch => "ETAG_MISMATCH",
            Conflict::InfrastructureOwned => "INFRASTRUCTURE_OWNED",
            Conflict::InstanceReplaced => "INSTANCE_REPLACED",
            Conflict::RequestInProgress => "REQUEST_IN_PROGRESS",
            Conflict::ActionInProgress => "ACTION_IN_PROGRESS",
        }
    }
}

/// Errors of Flotilla's domain and application layers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request is malformed; every violation is listed.
    #[error("invalid argument: {}", describe(.violations))]
    InvalidArgument { violations: Vec<FieldViolation> },
    /// A named resource does not exist.
    #[error("{kind} {name:?} not found")]
    NotFound {
        kind: &'static str,
        name: String,
        /// The request field that named the missing resource, if any.
        field: Option<String>,
    },
    /// A resource with this name exists already.
    #[error("{kind} {name:?} already exists")]
    AlreadyExists { kind: &'static str, name: String },
    /// The operation is not allowed in the current state.
    #[error("{message}")]
    FailedPrecondition {
        reason: Precondition,
        message: String,
        violations: Vec<PreconditionViolation>,
        metadata: Vec<(String, String)>,
    },
    /// A concurrent change won: etag mismatch, lost compare-and-swap, request in flight.
    #[error("{message}")]
    Aborted { reason: Conflict, message: String },
    /// A size or count limit was exceeded.
    #[error("{message}")]
    ResourceExhausted {
        reason: &'static str,
        message: String,
        violations: Vec<FieldViolation>,
    },
    /// The database cannot be reached; the caller may retry.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Another replica runs this cluster: its agent connects there.
    #[error("cluster {cluster} is run by replica {member} at {address}: connect there")]
    Elsewhere {
        cluster: String,
        member: String,
        address: String,
    },
    /// A bug or corrupted data.
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

fn describe(violations: &[FieldViolation]) -> String {
    violations
        .iter()
        .map(|v| format!("{}: {}", v.field, v.description))
        .collect::<Vec<_>>()
        .join("; ")
}

impl Error {
    pub fn invalid(field: impl Into<String>, description: impl Into<String>) -> Self {
        Error::InvalidArgument {
            violations: vec![FieldViolation::new(field, description)],
        }
    }

    pub fn not_found(kind: &'static str, name: impl Into<String>) -> Self {
        Error::NotFound {
            kind,
            name: name.into(),
            field: None,
        }
    }

    /// A refused lifecycle transition: FAILED_PRECONDITION / `INVALID_STATE_TRANSITION`.
    pub fn invalid_transition(
        resource: &str,
        current_state: impl fmt::Display,
        operation: &str,
        why: &str,
    ) -> Self {
        let current_state = current_state.to_string();
        Error::FailedPrecondition {
            reason: Precondition::InvalidStateTransition,
            message: format!("cannot {operation} {resource} in state {current_state}: {why}"),
            violations: vec![PreconditionViolation {
                kind: Precondition::InvalidStateTransition.violation_type().into(),
                subject: resource.to_string(),
                description: format!(
                    "current state {current_state} does not allow operation {operation}"
                ),
            }],
            metadata: vec![
                ("current_state".into(), current_state),
                ("operation".into(), operation.to_string()),
            ],
        }
    }

    /// A refused operation that is not a state transition (children exist, missing
    /// placement, render failure, ...).
    pub fn precondition(
        reason: Precondition,
        subject: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let message = message.into();
        Error::FailedPrecondition {
            reason,
            violations: vec![PreconditionViolation {
                kind: reason.violation_type().to_string(),
                subject: subject.into(),
                description: message.clone(),
            }],
            message,
            metadata: Vec::new(),
        }
    }

    /// A compare-and-swap that found the state moved: ABORTED / `CONCURRENT_TRANSITION`
    /// (the caller retries).
    pub fn concurrent_transition(what: impl fmt::Display) -> Self {
        Error::Aborted {
            reason: Conflict::ConcurrentTransition,
            message: format!("{what} concurrently; retry"),
        }
    }

    /// A write that found its row moved since it was read: ABORTED / `CONCURRENT_CHANGE`
    /// (the caller reads it again and retries).
    pub fn changed_meanwhile(what: impl fmt::Display) -> Self {
        Error::Aborted {
            reason: Conflict::ConcurrentChange,
            message: format!("{what} changed meanwhile: read it and retry"),
        }
    }

    pub fn internal(message: impl fmt::Display) -> Self {
        Error::Internal(message.to_string())
    }

    /// A size or count limit exceeded by `field`: RESOURCE_EXHAUSTED / `reason`, with
    /// `message` for the whole request and `limit` (e.g. "at most 10 documents") for
    /// the field.
    pub fn exhausted(
        reason: &'static str,
        message: impl Into<String>,
        field: &str,
        limit: impl Into<String>,
    ) -> Self {
        Error::ResourceExhausted {
            reason,
            message: message.into(),
            violations: vec![FieldViolation::new(field, limit)],
        }
    }

    /// RESOURCE_EXHAUSTED for a size or count past its limit: "{what} {count} {unit};
    /// the limit is {limit}", with the violation "at most {limit} {unit}" on `field`.
    pub fn over_limit(
        reason: &'static str,
        field: &str,
        what: &str,
        count: usize,
        limit: usize,
        unit: &str,
    ) -> Self {
        Error::exhausted(
            reason,
            format!("{what} {count} {unit}; the limit is {limit}"),
            field,
            format!("at most {limit} {unit}"),
        )
    }

    /// A NOT_FOUND that the request's `field` named; any other error as it is.
    pub fn found_through(self, field: &str) -> Self {
        match self {
            Error::NotFound { kind, name, .. } => Error::NotFound {
                kind,
                name,
                field: Some(field.into()),
            },
            other => other,
        }
    }
}

/// `Error::precondition(reason, subject, format!(...))`: a refused operation whose
/// message is formatted, as `format!` takes it.
macro_rules! precondition {
    ($reason:expr, $subject:expr, $($message:tt)+) => {
        $crate::error::Error::precondition($reason, $subject, format!($($message)+))
    };
}
pub(crate) use precondition;

/// The row of a named resource, or NOT_FOUND naming it: every read of a resource the
/// caller named ends so when the resource is not there.
pub trait Found<T> {
    /// The value, or NOT_FOUND for `name` (of the kind its name says).
    fn found(self, name: &crate::domain::names::ResourceName) -> Result<T>;
}

impl<T> Found<T> for Option<T> {
    fn found(self, name: &crate::domain::names::ResourceName) -> Result<T> {
        self.ok_or_else(|| Error::not_found(name.kind().type_name, name.to_string()))
    }
}

/// Collects field violations while validating a request, then fails once with all.
#[derive(Debug, Default)]
pub struct Violations(Vec<FieldViolation>);

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, field: impl Into<String>, description: impl Into<String>) {
        self.0.push(FieldViolation::new(field, description));
    }

    /// The parsed value of `field`, or None and a violation on `field` saying why not.
    pub fn parsed<T>(&mut self, field: &str, parsed: Result<T, &'static str>) -> Option<T> {
        parsed.map_err(|why| self.add(field, why)).ok()
    }

    /// Records the violations of a nested check and returns its value if it passed.
    pub fn check<T>(&mut self, result: Result<T, FieldViolation>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(violation) => {
                self.0.push(violation);
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_result(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidArgument { violations: self.0 })
        }
    }
}
