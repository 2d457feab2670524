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

/// The longest text of a caller's that an error repeats (a name, a description).
const MAX_ECHO: usize = 200;
/// The most violations an error lists (then one saying how many were left out).
const MAX_VIOLATIONS: usize = 10;
/// The longest `grpc-message` (the details list every violation again). With the
/// limits above an error's headers stay well under 16 KiB.
const MAX_MESSAGE: usize = 1024;

/// `text`, cut to `MAX_ECHO` bytes (at a character boundary) with its length noted.
fn clip(text: String) -> String {
    clip_to(text, MAX_ECHO)
}

fn clip_to(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], text.len())
}

/// The first `MAX_VIOLATIONS` of `items`, and how many were left out.
fn first<T>(mut items: Vec<T>) -> (Vec<T>, usize) {
    let left = items.len().saturating_sub(MAX_VIOLATIONS);
    items.truncate(MAX_VIOLATIONS);
    (items, left)
}

/// `err` with everything it repeats from the request bounded. An error travels in
/// HTTP/2 headers (`grpc-message`, `grpc-status-details-bin`), which clients cap (16
/// KiB by default in h2): a request naming a 5,000-character resource got its answer
/// replaced by a PROTOCOL_ERROR reset, so the caller never learnt what was wrong.
fn bounded(err: Error) -> Error {
    use crate::error::{FieldViolation, PreconditionViolation};
    let field_violations = |violations: Vec<FieldViolation>| {
        let (mut kept, left) = first(violations);
        for v in &mut kept {
            v.field = clip(std::mem::take(&mut v.field));
            v.description = clip(std::mem::take(&mut v.description));
        }
        if left > 0 {
            kept.push(FieldViolation::new(
                "…",
                format!("{left} more violations not listed"),
            ));
        }
        kept
    };
    match err {
        Error::InvalidArgument { violations } => Error::InvalidArgument {
            violations: field_violations(violations),
        },
        Error::NotFound { kind, name, field } => Error::NotFound {
            kind,
            name: clip(name),
            field: field.map(clip),
        },
        Error::AlreadyExists { kind, name } => Error::AlreadyExists {
            kind,
            name: clip(name),
        },
        Error::FailedPrecondition {
            reason,
            message,
            violations,
            metadata,
        } => {
            let (mut kept, left) = first(violations);
            for v in &mut kept {
                v.subject = clip(std::mem::take(&mut v.subject));
                v.description = clip(std::mem::take(&mut v.description));
            }
            if left > 0 {
                kept.push(PreconditionViolation {
                    kind: "MORE".into(),
                    subject: String::new(),
                    description: format!("{left} more violations not listed"),
                });
            }
            Error::FailedPrecondition {
                reason,
                message: clip(message),
                violations: kept,
                metadata: metadata.into_iter().map(|(k, v)| (k, clip(v))).collect(),
            }
        }
        Error::Aborted { reason, message } => Error::Aborted {
            reason,
            message: clip(message),
        },
        Error::ResourceExhausted {
            reason,
            message,
            violations,
        } => Error::ResourceExhausted {
            reason,
            message: clip(message),
            violations: field_violations(violations),
        },
        other => other,
    }
}

impl From<Error> for Status {
    fn from(err: Error) -> Status {
        let err = bounded(err);
        let message = clip_to(err.to_string(), MAX_MESSAGE);
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
                    reason.as_str(),
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
                details.set_error_info(reason.as_str(), ERROR_DOMAIN, []);
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
            Error::Elsewhere {
                cluster,
                member,
                address,
            } => {
                details.set_error_info(
                    CLUSTER_ELSEWHERE,
                    ERROR_DOMAIN,
                    [
                        ("cluster".to_string(), cluster),
                        ("replica".to_string(), member),
                        ("address".to_string(), address),
                    ],
                );
                Code::Unavailable
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
                let message = format!("unavailable: {public}; retry (error id {id})");
                return logged(Code::Unavailable, reason, &id, message, details);
            }
            Error::Internal(cause) => {
                let id = error_id();
                error!(error_id = %id, %cause, "internal error");
                let message =
                    format!("internal error; the server log has the details under error id {id}");
                return logged(Code::Internal, "INTERNAL", &id, message, details);
            }
        };
        Status::with_error_details(code, message, details)
    }
}

/// An answer whose cause is in the server log under `id`: the ErrorInfo names the id.
fn logged(
    code: Code,
    reason: &str,
    id: &str,
    message: String,
    mut details: ErrorDetails,
) -> Status {
    details.set_error_info(
        reason,
        ERROR_DOMAIN,
        [("error_id".to_string(), id.to_string())],
    );
    Status::with_error_details(code, message, details)
}

/// The ErrorInfo reason of an agent session refused by a replica that does not run the
/// agent's cluster; its metadata's `address` is the replica that does.
pub const CLUSTER_ELSEWHERE: &str = "CLUSTER_ELSEWHERE";

/// A refusal made outside the domain (the transport's, authentication's): `code` with
/// an ErrorInfo of `reason`.
pub fn refusal(code: Code, reason: &str, message: impl Into<String>) -> Status {
    let mut details = ErrorDetails::new();
    details.set_error_info(reason, ERROR_DOMAIN, []);
    Status::with_error_details(code, clip_to(message.into(), MAX_MESSAGE), details)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{FieldViolation, Precondition};

    #[test]
    fn what_an_error_repeats_of_the_request_is_bounded() {
        let long = "a".repeat(5000);
        let errors = [
            Error::not_found("flotilla.v1.Cluster", long.clone()),
            Error::InvalidArgument {
                violations: (0..1000)
                    .map(|i| FieldViolation::new(format!("names[{i}]"), long.clone()))
                    .collect(),
            },
            Error::precondition(Precondition::HasChildren, long.clone(), long.clone()),
        ];
        for error in errors {
            let status = Status::from(error);
            // What travels in the HTTP/2 headers, well under a client's 16 KiB.
            let headers = status.message().len() + status.details().len() * 4 / 3;
            assert!(headers < 8 * 1024, "{headers} bytes of headers");
        }
    }
}
