//! WatchActions: the open actions of a cluster, of one of its nodes or of every
//! cluster as a snapshot, SYNCED, then every create, change and deletion (`records`'
//! contract). Every cluster's action events share the target `actions`; a stream
//! selects its cluster's (and node's).

use crate::store::Conn;
use flotilla_api::v1 as pb;

use super::records::{Kind, Records};
use crate::app::actions::ACTIONS_TARGET;
use crate::domain::names::{ClusterName, NodeName};
use crate::error::{Error, Result};
use crate::store::action::{ActionFilter, ActionRecord, action_list};
use crate::store::watch::{Event, Payload};
use crate::wire::convert::action_to_proto;

/// What a WatchActions call asks for.
#[derive(Debug, Clone)]
pub struct ActionWatch {
    /// None: every cluster.
    pub cluster: Option<ClusterName>,
    /// None: every node.
    pub node: Option<NodeName>,
}

impl ActionWatch {
    fn wanted(&self, action: &ActionRecord) -> bool {
        self.node.as_ref().is_none_or(|node| action.node == *node)
    }
}

#[tonic::async_trait]
impl Records for ActionWatch {
    type Event = pb::ActionEvent;
    const KIND: &'static str = "actions";
    const TARGET: &'static str = ACTIONS_TARGET;

    fn clusters(&self) -> Vec<String> {
        self.cluster.iter().map(ToString::to_string).collect()
    }

    async fn snapshot(&self, conn: &mut Conn) -> Result<Vec<pb::Action>> {
        let filter = ActionFilter {
            cluster: self.cluster.clone(),
            node: self.node.clone(),
            open_only: true,
            ..Default::default()
        };
        let mut open = action_list(conn, &filter, None, usize::MAX >> 1).await?;
        open.reverse();
        Ok(open.iter().map(action_to_proto).collect())
    }

    fn select(&self, event: &Event) -> Result<Option<(Kind, pb::Action)>> {
        let Payload::Action { change, record } = &event.payload else {
            return Ok(None);
        };
        if self
            .cluster
            .as_ref()
            .is_some_and(|cluster| *cluster != event.cluster)
        {
            return Ok(None);
        }
        let action: ActionRecord = serde_json::from_str(record.text())
            .map_err(|e| Error::internal(format!("action event: {e}")))?;
        if !self.wanted(&action) {
            return Ok(None);
        }
        Ok(Some(((*change).into(), action_to_proto(&action))))
    }
}
