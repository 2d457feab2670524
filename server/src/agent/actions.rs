//! Actions through agent sessions, on the server's side. A session whose agent
//! executes actions gets every open action of its cluster when it opens, and each
//! action as it is created or changes (cancelled, failed by a deadline) afterwards;
//! the agent dedups by uid. The agent's reports (claims and outcomes) are applied in
//! order by a task per session with a compare-and-swap each; a claim is answered with
//! an `ActionClaim` saying whether the agent may run the action.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::connect_response::Message as Down;
use tokio::sync::mpsc;
use tracing::{debug, warn};

use super::hub::{AgentHub, Session};
use crate::app::actions::Actions;
use crate::domain::action::{ActionState, Executor};
use crate::error::Error;
use crate::store::action::{ActionRecord, cluster_set_agent_facts};
use crate::wire::convert::{action_id, action_state_to_proto, action_to_proto, report_from_proto};

impl AgentHub {
    /// Lets sessions carry actions (attached once, after both exist).
    pub fn attach_actions(&self, actions: Actions) {
        let _ = self.actions.set(actions);
    }

    /// Sends `action` to its cluster's session, if one is open and executes actions.
    pub async fn deliver_action(&self, action: &ActionRecord) {
        let Some(session) = self
            .existing_link(&action.cluster)
            .and_then(|link| link.current())
        else {
            return;
        };
        if session.executes_actions {
            let _ = session.send(Down::Action(action_to_proto(action))).await;
        }
    }

    /// Records what a new session's agent said of the cluster (nodes, backend,
    /// version). Before the cluster is recorded Available: whoever sees it Available
    /// sees its facts too.
    pub(super) async fn record_agent_facts(&self, session: &Arc<Session>, hello: &pb::AgentHello) {
        let Some(actions) = self.actions.get() else {
            return;
        };
        let recorded = async {
            let mut tx = actions.store().begin().await?;
            let cluster = [session.cluster.as_str()];
            if !self
                .ownership()
                .fenced_out(&mut tx, &cluster)
                .await?
                .is_empty()
            {
                return Ok(());
            }
            cluster_set_agent_facts(
                &mut tx,
                &session.cluster,
                &hello.nodes,
                &hello.backend,
                &hello.cluster_version,
            )
            .await?;
            tx.commit().await
        }
        .await;
        if let Err(error) = recorded {
            warn!(cluster = %session.cluster, %error, "cannot record the cluster's nodes");
        }
    }

    /// A session opened: starts its report task and delivers the cluster's open
    /// actions.
    pub(super) async fn actions_session_opened(
        &self,
        session: &Arc<Session>,
        reports: mpsc::UnboundedReceiver<pb::UpdateActionStatusRequest>,
    ) {
        let Some(actions) = self.actions.get() else {
            return;
        };
        tokio::spawn(process_reports(actions.clone(), session.clone(), reports));
        if !session.executes_actions {
            return;
        }
        match actions.open_on(&session.cluster).await {
            Ok(open) => {
                for action in open {
                    if session
                        .send(Down::Action(action_to_proto(&action)))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }
            Err(error) => {
                warn!(cluster = %session.cluster, %error, "cannot read the open actions to deliver")
            }
        }
    }
}

/// Applies a session's action reports until the session ends: all reports at hand
/// together (they go into the same group transaction), claims answered in order. A
/// claim and the outcome of one action are never at hand together: the agent runs an
/// action only once its claim was granted, after that claim committed.
async fn process_reports(
    actions: Actions,
    session: Arc<Session>,
    mut reports: mpsc::UnboundedReceiver<pb::UpdateActionStatusRequest>,
) {
    loop {
        let first = tokio::select! {
            report = reports.recv() => match report {
                Some(report) => report,
                None => return,
            },
            () = session.closed.cancelled() => return,
        };
        let mut batch = vec![first];
        while let Ok(report) = reports.try_recv() {
            batch.push(report);
        }
        let results = futures::future::join_all(
            batch
                .iter()
                .map(|report| apply_report(&actions, &session, report)),
        )
        .await;
        for (report, result) in batch.iter().zip(results) {
            let claim = report
                .status
                .as_ref()
                .is_some_and(|s| s.state() == pb::ActionState::Running);
            if !claim {
                if let Err(error) = result {
                    // A late or repeated outcome of an action that finished meanwhile.
                    debug!(cluster = %session.cluster, action = %report.name, %error, "action report not applied");
                }
                continue;
            }
            let (granted, state) = match result {
                Ok(action) => (
                    action.state == ActionState::Running
                        && action.executor == Some(Executor::Session),
                    action.state,
                ),
                Err(error) => {
                    debug!(cluster = %session.cluster, action = %report.name, %error, "claim refused");
                    let state = match action_id("name", &report.name) {
                        Ok(id) => actions.get(id).await.map(|a| a.state).ok(),
                        Err(_) => None,
                    };
                    (false, state.unwrap_or(ActionState::Failed))
                }
            };
            let answer = Down::ActionClaim(pb::ActionClaim {
                name: report.name.clone(),
                granted,
                state: action_state_to_proto(state) as i32,
            });
            if session.send(answer).await.is_err() {
                return;
            }
        }
    }
}

async fn apply_report(
    actions: &Actions,
    session: &Session,
    report: &pb::UpdateActionStatusRequest,
) -> Result<ActionRecord, Error> {
    let id = action_id("name", &report.name)?;
    let status = report_from_proto(report.status.as_ref())?;
    actions
        .report(id, Executor::Session, status, None, Some(&session.cluster))
        .await
}
