//! The one mapping from domain errors to `tonic::Status`. Every error carries an
//! `ErrorInfo` (reason, domain `flotilla.v1`); invalid input adds `BadRequest` field
//! violations, refused transitions a `PreconditionFailure`, missing or duplicate
//! resources a `ResourceInfo`.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};
use tracing::error;

use crate::error::Error;

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
            Error::Unavailable(_) => {
                details.set_error_info("DATABASE_UNAVAILABLE", ERROR_DOMAIN, []);
                Code::Unavailable
            }
            Error::Internal(ref cause) => {
                error!(%cause, "internal error");
                details.set_error_info("INTERNAL", ERROR_DOMAIN, []);
                Code::Internal
            }
        };
        Status::with_error_details(code, message, details)
    }
}
