//! Use cases: each public function runs one operation in one transaction over the
//! store, applying the domain's rules. Callers (the gRPC handlers) have validated the
//! shape of the input already.

pub mod access;
pub mod actions;
mod activator;
pub mod container_clusters;
pub mod cpu;
pub mod lifecycle;
pub mod status;

pub use activator::Activator;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Conflict, Error, Precondition, Result, precondition};
use crate::store::request::{request_find, request_record};
use crate::store::{Store, Tx};

/// The idempotency key of a create or verb: the method and its target, the caller's
/// request id, and a hash of the whole request.
#[derive(Debug, Clone)]
pub struct RequestKey {
    pub scope: String,
    pub request_id: String,
    pub request_hash: String,
}

/// A page from `items` read with one more than `size`: the first `size`, and whether
/// more follow.
pub fn page_of<T>(mut items: Vec<T>, size: usize) -> (Vec<T>, bool) {
    let more = items.len() > size;
    items.truncate(size);
    (items, more)
}

/// Runs `operation` in a write transaction. With a request key, a retry returns the
/// recorded response of the first call, and a different request under the same id is
/// refused; the response is recorded in the same transaction as the change.
pub async fn idempotent<T>(
    store: &Store,
    key: Option<&RequestKey>,
    operation: impl AsyncFnOnce(&mut Tx) -> Result<T>,
) -> Result<T>
where
    T: Serialize + DeserializeOwned,
{
    let mut tx = store.begin().await?;
    if let Some(key) = key
        && let Some(recorded) = request_find(&mut tx, &key.request_id).await?
    {
        let reused = if recorded.scope != key.scope {
            Some(format!("another method or target ({})", recorded.scope))
        } else if recorded.request_hash != key.request_hash {
            Some("a different request".to_string())
        } else {
            None
        };
        if let Some(what) = reused {
            return Err(precondition!(
                Precondition::RequestIdReused,
                key.request_id.clone(),
                "request_id {:?} was already used for {what}",
                key.request_id
            ));
        }
        return serde_json::from_str(&recorded.response).map_err(Error::internal);
    }
    let response = operation(&mut tx).await?;
    if let Some(key) = key {
        let json = serde_json::to_string(&response).map_err(Error::internal)?;
        request_record(
            &mut tx,
            &key.scope,
            &key.request_id,
            &key.request_hash,
            &json,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(response)
}

/// Checks an optional etag (the generation the caller read) against the stored one.
pub fn check_etag(name: &impl std::fmt::Display, expected: Option<i64>, actual: i64) -> Result<()> {
    match expected {
        Some(expected) if expected != actual => Err(Error::Aborted {
            reason: Conflict::EtagMismatch,
            message: format!("etag mismatch: {name} was changed since it was read"),
        }),
        _ => Ok(()),
    }
}

/// What the lifecycle use cases tell the rest of the server after a commit: new rsync
/// work for clusters, clusters created or deleted. Without hooks (tests of the use
/// cases alone) nothing is told.
#[tonic::async_trait]
pub trait Hooks: Send + Sync {
    /// These clusters have new rsync work.
    async fn work_changed(&self, clusters: &[String]);
    /// An update re-rendered these deployments of `cluster`: their agent should report
    /// their state as it is now.
    async fn report_wanted(&self, cluster: &str, deployment_ids: Vec<String>);
    /// A cluster was created; `embedded_sim` for EMBEDDED_SIM clusters.
    async fn cluster_created(&self, cluster: &str, embedded_sim: bool);
    /// A cluster was deleted.
    async fn cluster_deleted(&self, cluster: &str);
    /// These tokens were revoked (an agent token rotated, a cluster deleted): calls
    /// and sessions holding them must end.
    async fn tokens_revoked(&self, tokens: &[crate::ids::TokenId]);
}
