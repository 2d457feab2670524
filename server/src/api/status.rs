//! The one mapping from domain errors to `tonic::Status`. Every error carries an
//! `ErrorInfo` (reason, domain `flotilla.v1`); invalid input adds `BadRequest` field
//! violations, refused transitions a `PreconditionFailure`, missing or duplicate
//! resources a `ResourceInfo`.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};
use tracing::{error, warn};

use crate::error::Error;
use crate::store::DATABASE;

/// A short random id that ties an answer to its log line.
fn error_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_string()
}

/// The ErrorInfo domain of every Flotilla error.
pub const ERROR_DOMAIN: &str = "flotilla.v1";

impl From<Error> for Status {
    fn from(err: Error) -> Status {
        let message = err.to_string();
        let mut details = ErrorDetails::new();
        let code = match err {
            Error::InvalidArgument { violations } => {
                details.set_error_info("INVALID_ARGUMENT", ERROR_DOMAIN, []);
                for v in violations {
                    details.add_bad_request_violation(v.field, v.description);
                }
                Code::InvalidArgument
            }
            Error::NotFound { kind, name, field } => {
                details.set_error_info(
                    "NOT_FOUND",
                    ERROR_DOMAIN,
                    [("resource_name".to_string(), name.clone())],
                );
                details.set_resource_info(kind, name.clone(), "", "not found");
                if let Some(field) = field {
                    details.add_bad_request_violation(field, format!("{name} does not exist"));
                }
                Code::NotFound
            }
            Error::AlreadyExists { kind, name } => {
                details.set_error_info(
                    "ALREADY_EXISTS",
                    ERROR_DOMAIN,
                    [("resource_name".to_string(), name.clone())],
                );
                details.set_resource_info(kind, name, "", "already exists");
                Code::AlreadyExists
            }
            Error::FailedPrecondition {
                reason,
                violations,
                metadata,
                ..
            } => {
                details.set_error_info(
                    reason,
                    ERROR_DOMAIN,
                    metadata
                        .into_iter()
                        .collect::<std::collections::HashMap<_, _>>(),
                );
                for v in violations {
                    details.add_precondition_failure_violation(v.kind, v.subject, v.description);
                }
                Code::FailedPrecondition
            }
            Error::Aborted { reason, .. } => {
                details.set_error_info(reason, ERROR_DOMAIN, []);
                Code::Aborted
            }
            Error::ResourceExhausted {
                reason, violations, ..
            } => {
                details.set_error_info(reason, ERROR_DOMAIN, []);
                for v in violations {
                    details.add_bad_request_violation(v.field, v.description);
                }
                Code::ResourceExhausted
            }
            // The causes of these two are for operators, not callers (database
            // messages, stored data): the log has them under an id the answer names.
            Error::Unavailable(cause) => {
                let id = error_id();
                let (reason, public) = match cause.strip_prefix(DATABASE) {
                    Some(database) => {
                        warn!(error_id = %id, cause = %database, "database unavailable");
                        (
                            "DATABASE_UNAVAILABLE",
                            "the database cannot be reached right now".to_string(),
                        )
                    }
                    None => ("UNAVAILABLE", cause),
                };
                details.set_error_info(
                    reason,
                    ERROR_DOMAIN,
                    [("error_id".to_string(), id.clone())],
                );
                return Status::with_error_details(
                    Code::Unavailable,
                    format!("unavailable: {public}; retry (error id {id})"),
                    details,
                );
            }
            Error::Internal(cause) => {
                let id = error_id();
                error!(error_id = %id, %cause, "internal error");
                details.set_error_info(
                    "INTERNAL",
                    ERROR_DOMAIN,
                    [("error_id".to_string(), id.clone())],
                );
                return Status::with_error_details(
                    Code::Internal,
                    format!("internal error; the server log has the details under error id {id}"),
                    details,
                );
            }
        };
        Status::with_error_details(code, message, details)
    }
}
