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
        reason: &'static str,
        message: String,
        violations: Vec<PreconditionViolation>,
        metadata: Vec<(String, String)>,
    },
    /// A concurrent change won: etag mismatch, lost compare-and-swap, request in flight.
    #[error("{message}")]
    Aborted {
        reason: &'static str,
        message: String,
    },
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
            reason: "INVALID_STATE_TRANSITION",
            message: format!("cannot {operation} {resource} in state {current_state}: {why}"),
            violations: vec![PreconditionViolation {
                kind: "STATE".into(),
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
        reason: &'static str,
        kind: &str,
        subject: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let message = message.into();
        Error::FailedPrecondition {
            reason,
            violations: vec![PreconditionViolation {
                kind: kind.to_string(),
                subject: subject.into(),
                description: message.clone(),
            }],
            message,
            metadata: Vec::new(),
        }
    }

    pub fn internal(message: impl fmt::Display) -> Self {
        Error::Internal(message.to_string())
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
