//! Actions: proto ↔ domain.

use flotilla_api::v1 as pb;

use super::{conditions_to_proto, etag, timestamp};
use crate::app::actions::Report;
use crate::domain::action::{ActionState, Operation, Params, Target};
use crate::error::{Error, Result};
use crate::ids::ActionId;
use crate::store::action::ActionRecord;

pub fn action_state_to_proto(state: ActionState) -> pb::ActionState {
    match state {
        ActionState::Pending => pb::ActionState::Pending,
        ActionState::Running => pb::ActionState::Running,
        ActionState::Succeeded => pb::ActionState::Succeeded,
        ActionState::Failed => pb::ActionState::Failed,
        ActionState::Cancelled => pb::ActionState::Cancelled,
    }
}

/// An action state of a request (`field` names it in errors); UNSPECIFIED is None.
pub fn action_state_from_proto(field: &str, state: i32) -> Result<Option<ActionState>> {
    match pb::ActionState::try_from(state) {
        Ok(pb::ActionState::Unspecified) => Ok(None),
        Ok(pb::ActionState::Pending) => Ok(Some(ActionState::Pending)),
        Ok(pb::ActionState::Running) => Ok(Some(ActionState::Running)),
        Ok(pb::ActionState::Succeeded) => Ok(Some(ActionState::Succeeded)),
        Ok(pb::ActionState::Failed) => Ok(Some(ActionState::Failed)),
        Ok(pb::ActionState::Cancelled) => Ok(Some(ActionState::Cancelled)),
        Err(_) => Err(Error::invalid(
            field,
            format!("{state} is not an action state"),
        )),
    }
}

fn params_to_proto(
    operation: &Operation,
) -> (Option<pb::RebootParams>, Option<pb::SnapshotParams>) {
    match operation {
        Operation::Reboot { delay_in_seconds } => (
            Some(pb::RebootParams {
                delay_in_seconds: *delay_in_seconds,
            }),
            None,
        ),
        Operation::Snapshot { snapshot_location } => (
            None,
            Some(pb::SnapshotParams {
                snapshot_location: snapshot_location.clone(),
            }),
        ),
    }
}

pub fn action_to_proto(action: &ActionRecord) -> pb::Action {
    let (reboot, snapshot) = params_to_proto(&action.spec.operation);
    let target = match &action.spec.target {
        Target::Pod { namespace, pod } => pb::action_spec::Target::PodAction(pb::PodAction {
            namespace: namespace.to_string(),
            pod_name: pod.to_string(),
            action: match (reboot, snapshot) {
                (Some(r), _) => Some(pb::pod_action::Action::RebootAction(r)),
                (_, s) => s.map(pb::pod_action::Action::SnapshotAction),
            },
        }),
        Target::Node => pb::action_spec::Target::NodeAction(pb::NodeAction {
            action: match (reboot, snapshot) {
                (Some(r), _) => Some(pb::node_action::Action::RebootAction(r)),
                (_, s) => s.map(pb::node_action::Action::SnapshotAction),
            },
        }),
    };
    let outcome = &action.outcome;
    pb::Action {
        name: action.name(),
        uid: action.id.to_string(),
        cluster: action.cluster.to_string(),
        action_name: action.spec.operation.name().to_string(),
        spec: Some(pb::ActionSpec {
            node_name: action.node.to_string(),
            target: Some(target),
        }),
        status: Some(pb::ActionStatus {
            state: action_state_to_proto(action.state) as i32,
            complete: action.state.is_finished(),
            reboot_status: outcome
                .reboot_successful
                .map(|reboot_successful| pb::RebootStatus { reboot_successful }),
            snapshot_status: outcome
                .snapshot_size_in_bytes
                .map(|size| pb::SnapshotStatus {
                    snapshot_size_in_bytes: size,
                    snapshot_path: outcome.snapshot_path.clone(),
                }),
            error: outcome.error.clone(),
            conditions: conditions_to_proto(&outcome.conditions),
            reason: outcome.reason.clone(),
            start_time: outcome.start_time.and_then(timestamp),
            finish_time: outcome.finish_time.and_then(timestamp),
        }),
        etag: etag(action.generation),
        create_time: timestamp(action.create_time),
        update_time: timestamp(action.update_time),
        expire_time: action.expire_time.and_then(timestamp),
    }
}

/// The parameters of a create request.
pub fn params_from_proto(
    reboot: Option<&pb::RebootParams>,
    snapshot: Option<&pb::SnapshotParams>,
) -> Params {
    match (reboot, snapshot) {
        (Some(r), _) => Params::Reboot {
            delay_in_seconds: r.delay_in_seconds,
        },
        (None, Some(s)) => Params::Snapshot {
            snapshot_location: s.snapshot_location.clone(),
        },
        (None, None) => Params::None,
    }
}

/// Parses `actions/{uuid}` from request field `field`.
pub fn action_id(field: &str, name: &str) -> Result<ActionId> {
    name.strip_prefix("actions/")
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| Error::invalid(field, "must be actions/{uid}, with the uid a UUID"))
}

/// A status an executor posts.
pub fn report_from_proto(status: Option<&pb::ActionStatus>) -> Result<Report> {
    let status = status.ok_or_else(|| Error::invalid("status", "is required"))?;
    let state = action_state_from_proto("status.state", status.state)?
        .ok_or_else(|| Error::invalid("status.state", "is required"))?;
    let start_time = status
        .start_time
        .map(|t| t.seconds.saturating_mul(1_000_000) + i64::from(t.nanos / 1000));
    Ok(Report {
        state,
        reboot_successful: status.reboot_status.map(|r| r.reboot_successful),
        snapshot_size_in_bytes: status
            .snapshot_status
            .as_ref()
            .map(|s| s.snapshot_size_in_bytes),
        snapshot_path: status
            .snapshot_status
            .as_ref()
            .map(|s| s.snapshot_path.clone())
            .unwrap_or_default(),
        error: status.error.chars().take(4096).collect(),
        reason: status.reason.chars().take(128).collect(),
        start_time,
    })
}
