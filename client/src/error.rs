//! A failed call with its `google.rpc.Status` details decoded.

use std::collections::BTreeMap;
use std::fmt;

use tonic::Code;
use tonic_types::StatusExt;

/// A bad field of a request: its path (e.g. `project_id`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    pub field: String,
    pub description: String,
}

/// A precondition a request failed: its type (e.g. `STATE`), subject and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreconditionViolation {
    pub kind: String,
    pub subject: String,
    pub description: String,
}

/// A failed call: the gRPC code and message with the error details the server sent
/// (`ErrorInfo` reason, domain and metadata, `BadRequest` field violations,
/// `PreconditionFailure` violations, `ResourceInfo`).
///
/// ```no_run
/// # async fn demo(mut client: flotilla_client::Client) {
/// use flotilla_client::ApiError;
/// use flotilla_client::v1::CreateProjectRequest;
///
/// let request = CreateProjectRequest { project_id: "Bad_Name".into(), ..Default::default() };
/// if let Err(status) = client.lifecycle.create_project(request).await {
///     let error = ApiError::from(status);
///     assert_eq!(error.fields(), ["project_id"]);
///     eprintln!("{error}");
/// }
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: Code,
    pub message: String,
    /// `ErrorInfo.reason`, e.g. `INVALID_STATE_TRANSITION`; empty without one.
    pub reason: String,
    /// `ErrorInfo.domain`: `flotilla.v1` for the server's own errors.
    pub domain: String,
    /// `ErrorInfo.metadata`, e.g. `current_state`.
    pub metadata: BTreeMap<String, String>,
    pub field_violations: Vec<FieldViolation>,
    pub precondition_violations: Vec<PreconditionViolation>,
    /// `ResourceInfo.resource_name`, when the server named the resource.
    pub resource_name: Option<String>,
}

impl ApiError {
    /// The fields of the field violations, in order.
    pub fn fields(&self) -> Vec<&str> {
        self.field_violations
            .iter()
            .map(|v| v.field.as_str())
            .collect()
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> ApiError {
        let details = status.get_error_details();
        let info = details.error_info();
        ApiError {
            code: status.code(),
            message: status.message().to_string(),
            reason: info.map(|i| i.reason.clone()).unwrap_or_default(),
            domain: info.map(|i| i.domain.clone()).unwrap_or_default(),
            metadata: info
                .map(|i| i.metadata.clone().into_iter().collect())
                .unwrap_or_default(),
            field_violations: details
                .bad_request()
                .map(|b| {
                    b.field_violations
                        .iter()
                        .map(|v| FieldViolation {
                            field: v.field.clone(),
                            description: v.description.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            precondition_violations: details
                .precondition_failure()
                .map(|p| {
                    p.violations
                        .iter()
                        .map(|v| PreconditionViolation {
                            kind: v.r#type.clone(),
                            subject: v.subject.clone(),
                            description: v.description.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            resource_name: details.resource_info().map(|r| r.resource_name.clone()),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)?;
        if !self.reason.is_empty() {
            write!(f, " [{}]", self.reason)?;
        }
        for v in &self.field_violations {
            write!(f, "\n  {}: {}", v.field, v.description)?;
        }
        for v in &self.precondition_violations {
            write!(f, "\n  {} {}: {}", v.kind, v.subject, v.description)?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}
