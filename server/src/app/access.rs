//! Tokens: issuing them (shown once, stored as SHA-256), authenticating calls with
//! them, revoking them, and cutting the streams of a token that stops being valid.
//!
//! Memory stays bounded by what exists, not by what callers send: the cache holds only
//! valid tokens (at most [`CACHE_TOKENS`]); an unknown token costs a database lookup
//! and leaves nothing behind. Stream guards exist per token with open streams only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;
use tracing::info;

use crate::domain::access::{ActionTarget, PodRef, Principal, Role};
use crate::domain::action::Target;
use crate::domain::names::ClusterName;
use crate::error::{Error, Result};
use crate::ids::{ActionId, TokenId};
use crate::store::action::{action_get, pod_projects};
use crate::store::instance::instance_instantiated_users_of_cluster;
use crate::store::token::{
    TokenRecord, token_active_admin_exists, token_bootstrap_lock, token_find_by_hash, token_get,
    token_insert, token_list, token_revoke, token_revoke_agent,
};
use crate::store::{Store, Tx, now_micros};

/// Valid tokens kept in memory, at most.
const CACHE_TOKENS: usize = 10_000;
/// The name of the bootstrap admin token's file in the data directory.
pub const ADMIN_TOKEN_FILE: &str = "admin.token";

/// A token's secret. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A new random secret: `flt_` and 244 bits of the OS random source.
    pub fn generate() -> Secret {
        Secret(format!(
            "flt_{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        ))
    }

    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The secret, for the response that shows it once.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The stored form: SHA-256, hex. Secrets carry 244 random bits, so a fast hash
    /// is enough (no password stretching needed).
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("unknown token")]
    Unknown,
    #[error("the token was revoked")]
    Revoked,
    #[error("the token expired")]
    Expired,
}

/// A new token's settings.
#[derive(Debug, Clone)]
pub struct NewToken {
    pub role: Role,
    pub projects: Vec<String>,
    pub description: String,
    pub ttl: Option<Duration>,
}

/// The token service.
pub struct Access {
    store: Store,
    /// Valid tokens by secret hash.
    cache: Mutex<HashMap<String, Principal>>,
    /// Tokens with open streams: cancelled when the token is revoked.
    streams: Mutex<HashMap<TokenId, Watched>>,
}

struct Watched {
    revoked: CancellationToken,
    streams: usize,
}

/// Held by an open stream of a token; resolves [`StreamGuard::ended`] when the token
/// is revoked or expires.
pub struct StreamGuard {
    access: Arc<Access>,
    token: TokenId,
    revoked: CancellationToken,
    expire_time: Option<i64>,
}

impl StreamGuard {
    /// Resolves when the stream must end, with why.
    pub async fn ended(&self) -> Rejection {
        let expiry = async {
            match self.expire_time {
                Some(at) => {
                    let left = (at - now_micros()).max(0) as u64;
                    tokio::time::sleep(Duration::from_micros(left)).await
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = self.revoked.cancelled() => Rejection::Revoked,
            () = expiry => Rejection::Expired,
        }
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut streams = self.access.streams.lock().expect("streams lock");
        if let Some(watched) = streams.get_mut(&self.token) {
            watched.streams -= 1;
            if watched.streams == 0 {
                streams.remove(&self.token);
            }
        }
    }
}

impl Access {
    pub fn new(store: Store) -> Arc<Access> {
        Arc::new(Access {
            store,
            cache: Mutex::default(),
            streams: Mutex::default(),
        })
    }

    /// The principal a secret stands for.
    pub async fn authenticate(&self, secret: &Secret) -> Result<Result<Principal, Rejection>> {
        let hash = secret.hash();
        let now = now_micros();
        let cached = self.cache.lock().expect("cache lock").get(&hash).cloned();
        if let Some(principal) = cached {
            if principal.expire_time.is_none_or(|t| now < t) {
                return Ok(Ok(principal));
            }
            self.cache.lock().expect("cache lock").remove(&hash);
            return Ok(Err(Rejection::Expired));
        }
        let record = {
            let mut conn = self.store.read().await?;
            token_find_by_hash(&mut conn, &hash).await?
        };
        let Some(record) = record else {
            return Ok(Err(Rejection::Unknown));
        };
        if record.revoke_time.is_some() {
            return Ok(Err(Rejection::Revoked));
        }
        if !record.active_at(now) {
            return Ok(Err(Rejection::Expired));
        }
        let principal = principal_of(&record);
        let mut cache = self.cache.lock().expect("cache lock");
        if cache.len() >= CACHE_TOKENS {
            cache.clear();
        }
        cache.insert(hash, principal.clone());
        Ok(Ok(principal))
    }

    /// Registers an open stream of `principal`'s token.
    pub fn guard(self: &Arc<Self>, principal: &Principal) -> StreamGuard {
        let mut streams = self.streams.lock().expect("streams lock");
        let watched = streams.entry(principal.token).or_insert_with(|| Watched {
            revoked: CancellationToken::new(),
            streams: 0,
        });
        watched.streams += 1;
        StreamGuard {
            access: self.clone(),
            token: principal.token,
            revoked: watched.revoked.clone(),
            expire_time: principal.expire_time,
        }
    }

    /// Forgets revoked tokens: the next call with them is refused, their streams end.
    pub fn forget(&self, tokens: &[TokenId]) {
        self.cache
            .lock()
            .expect("cache lock")
            .retain(|_, principal| !tokens.contains(&principal.token));
        let streams = self.streams.lock().expect("streams lock");
        for token in tokens {
            if let Some(watched) = streams.get(token) {
                watched.revoked.cancel();
            }
        }
    }

    /// Creates a token; returns it with its secret (shown once).
    pub async fn create_token(
        &self,
        creator: Option<TokenId>,
        new: NewToken,
    ) -> Result<(TokenRecord, Secret)> {
        let secret = Secret::generate();
        let now = now_micros();
        let record = TokenRecord {
            id: TokenId::new(),
            hash: secret.hash(),
            role: new.role,
            projects: new.projects,
            cluster: None,
            description: new.description,
            creator,
            create_time: now,
            expire_time: new.ttl.map(|ttl| now + ttl.as_micros() as i64),
            revoke_time: None,
        };
        let mut tx = self.store.begin().await?;
        token_insert(&mut tx, &record).await?;
        tx.commit().await?;
        info!(token = %record.id, role = %record.role, "token created");
        Ok((record, secret))
    }

    pub async fn get_token(&self, id: TokenId) -> Result<TokenRecord> {
        let mut conn = self.store.read().await?;
        token_get(&mut conn, id)
            .await?
            .ok_or_else(|| Error::not_found("flotilla.v1.Token", format!("tokens/{id}")))
    }

    /// A page of tokens, newest first; `size + 1` are read to tell whether more follow.
    pub async fn list_tokens(
        &self,
        after: Option<(i64, TokenId)>,
        show_inactive: bool,
        size: usize,
    ) -> Result<(Vec<TokenRecord>, bool)> {
        let mut conn = self.store.read().await?;
        let active_at = (!show_inactive).then(now_micros);
        let tokens = token_list(&mut conn, after, active_at, size + 1).await?;
        Ok(super::page_of(tokens, size))
    }

    /// Revokes a token (a revoked one stays revoked: the call is a no-op).
    pub async fn revoke_token(&self, id: TokenId) -> Result<TokenRecord> {
        let mut tx = self.store.begin().await?;
        let record = token_get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::not_found("flotilla.v1.Token", format!("tokens/{id}")))?;
        if token_revoke(&mut tx, id, now_micros()).await? {
            info!(token = %id, role = %record.role, "token revoked");
        }
        let record = token_get(&mut tx, id)
            .await?
            .expect("read in this transaction");
        tx.commit().await?;
        self.forget(&[id]);
        Ok(record)
    }

    /// On first start (no admin token is active), creates the bootstrap admin token
    /// and writes it to `ADMIN_TOKEN_FILE` in `data_dir` (mode 0600). Returns the file
    /// it wrote, if it wrote one.
    ///
    /// Replicas that start together decide under one lock: the first makes the token,
    /// the others find it.
    pub async fn bootstrap_admin(&self, data_dir: &Path) -> anyhow::Result<Option<PathBuf>> {
        {
            let mut conn = self.store.read().await?;
            if token_active_admin_exists(&mut conn, now_micros()).await? {
                return Ok(None);
            }
        }
        let mut tx = self.store.begin().await?;
        token_bootstrap_lock(&mut tx).await?;
        if token_active_admin_exists(&mut tx, now_micros()).await? {
            return Ok(None);
        }
        let path = data_dir.join(ADMIN_TOKEN_FILE);
        let secret = Secret::generate();
        // The file first: a token whose secret no one can read would lock the admin out
        // until the next start.
        write_private(&path, &format!("{}\n", secret.expose()))?;
        let now = now_micros();
        let record = TokenRecord {
            id: TokenId::new(),
            hash: secret.hash(),
            role: Role::Admin,
            projects: Vec::new(),
            cluster: None,
            description: "bootstrap admin token".to_string(),
            creator: None,
            create_time: now,
            expire_time: None,
            revoke_time: None,
        };
        token_insert(&mut tx, &record).await?;
        tx.commit().await?;
        Ok(Some(path))
    }
}

/// What the auth layer looks up outside the request.
#[tonic::async_trait]
pub trait FactSource: Send + Sync {
    /// The projects whose instantiated groups are placed on `cluster`.
    async fn cluster_projects(&self, cluster: &ClusterName) -> Result<Vec<String>>;
    /// The projects whose groups deployed `pod` on `cluster`.
    async fn pod_projects(&self, cluster: &ClusterName, pod: &PodRef) -> Result<Vec<String>>;
    /// The cluster and pod of action `id`; None if there is no such action.
    async fn action_target(&self, id: ActionId) -> Result<Option<ActionTarget>>;
}

/// [`FactSource`] over the store.
pub struct StoreFacts {
    pub store: Store,
}

#[tonic::async_trait]
impl FactSource for StoreFacts {
    async fn cluster_projects(&self, cluster: &ClusterName) -> Result<Vec<String>> {
        let mut conn = self.store.read().await?;
        let groups = instance_instantiated_users_of_cluster(&mut conn, cluster).await?;
        let mut projects: Vec<String> = groups
            .iter()
            .filter_map(|group| group.strip_prefix("projects/"))
            .filter_map(|rest| rest.split('/').next())
            .map(str::to_string)
            .collect();
        projects.dedup();
        Ok(projects)
    }

    async fn pod_projects(&self, cluster: &ClusterName, pod: &PodRef) -> Result<Vec<String>> {
        let mut conn = self.store.read().await?;
        pod_projects(&mut conn, cluster, &pod.namespace, &pod.name).await
    }

    async fn action_target(&self, id: ActionId) -> Result<Option<ActionTarget>> {
        let mut conn = self.store.read().await?;
        Ok(action_get(&mut conn, id).await?.map(|action| ActionTarget {
            cluster: action.cluster,
            pod: match action.spec.target {
                Target::Pod { namespace, pod } => Some(PodRef {
                    namespace,
                    name: pod,
                }),
                Target::Node => None,
            },
        }))
    }
}

/// Issues a new agent token for `cluster` in `tx`, revoking the ones it had; returns
/// the secret and the revoked token ids (for [`Access::forget`] after commit).
pub async fn issue_agent_token(
    tx: &mut Tx,
    cluster: &ClusterName,
) -> Result<(Secret, Vec<TokenId>)> {
    let now = now_micros();
    let revoked = token_revoke_agent(tx, cluster, now).await?;
    let secret = Secret::generate();
    let record = TokenRecord {
        id: TokenId::new(),
        hash: secret.hash(),
        role: Role::Agent,
        projects: Vec::new(),
        cluster: Some(cluster.clone()),
        description: format!("agent of {cluster}"),
        creator: None,
        create_time: now,
        expire_time: None,
        revoke_time: None,
    };
    token_insert(tx, &record).await?;
    Ok((secret, revoked))
}

/// Revokes every agent token of `cluster` in `tx` (the cluster is deleted).
pub async fn revoke_agent_tokens(tx: &mut Tx, cluster: &ClusterName) -> Result<Vec<TokenId>> {
    token_revoke_agent(tx, cluster, now_micros()).await
}

fn principal_of(record: &TokenRecord) -> Principal {
    Principal {
        token: record.id,
        role: record.role,
        projects: record.projects.clone(),
        cluster: record.cluster.clone(),
        expire_time: record.expire_time,
    }
}

/// Writes `text` to `path` readable by the owner only, replacing it atomically.
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let temporary = path.with_extension("tmp");
    let _ = std::fs::remove_file(&temporary);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", temporary.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", temporary.display()))?;
    std::fs::rename(&temporary, path)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn access_on(url: &str) {
        let store = Store::connect(url).await.unwrap();
        let access = Access::new(store.clone());
        let dir = tempfile::tempdir().unwrap();

        // First start: a bootstrap admin token, in a file only the owner reads.
        let path = access.bootstrap_admin(dir.path()).await.unwrap().unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let secret = Secret::new(std::fs::read_to_string(&path).unwrap().trim());
        let admin = access.authenticate(&secret).await.unwrap().unwrap();
        assert_eq!(admin.role, Role::Admin);
        // Second start: nothing new.
        assert_eq!(access.bootstrap_admin(dir.path()).await.unwrap(), None);

        // Only the hash is stored.
        let stored = {
            let mut conn = store.read().await.unwrap();
            crate::store::token::token_hashes(&mut conn).await.unwrap()
        };
        assert_eq!(stored, vec![secret.hash()]);
        assert!(!stored.iter().any(|h| h.contains(secret.expose())));

        // A viewer token, then revoked: refused on the next call, its stream ends.
        let (record, viewer) = access
            .create_token(
                Some(admin.token),
                NewToken {
                    role: Role::Viewer,
                    projects: vec!["a".into()],
                    description: "ci".into(),
                    ttl: Some(Duration::from_secs(60)),
                },
            )
            .await
            .unwrap();
        let principal = access.authenticate(&viewer).await.unwrap().unwrap();
        assert_eq!(principal.projects, vec!["a".to_string()]);
        let guard = access.guard(&principal);
        access.revoke_token(record.id).await.unwrap();
        assert_eq!(
            access.authenticate(&viewer).await.unwrap(),
            Err(Rejection::Revoked)
        );
        assert_eq!(guard.ended().await, Rejection::Revoked);
        drop(guard);
        assert!(access.streams.lock().unwrap().is_empty());

        // An expired token is refused; unknown ones leave nothing in memory.
        let (_, short) = access
            .create_token(
                None,
                NewToken {
                    role: Role::Editor,
                    projects: vec!["a".into()],
                    description: String::new(),
                    ttl: Some(Duration::from_millis(1)),
                },
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(
            access.authenticate(&short).await.unwrap(),
            Err(Rejection::Expired)
        );
        let before = access.cache.lock().unwrap().len();
        for _ in 0..100 {
            assert_eq!(
                access.authenticate(&Secret::generate()).await.unwrap(),
                Err(Rejection::Unknown)
            );
        }
        assert_eq!(access.cache.lock().unwrap().len(), before);

        // Agent tokens: rotating revokes the previous one.
        let mut tx = store.begin().await.unwrap();
        let (first, none) = issue_agent_token(&mut tx, &"clusterProviders/p/clusters/c".into())
            .await
            .unwrap();
        let (second, revoked) = issue_agent_token(&mut tx, &"clusterProviders/p/clusters/c".into())
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert!(none.is_empty());
        assert_eq!(revoked.len(), 1);
        assert_eq!(
            access.authenticate(&first).await.unwrap(),
            Err(Rejection::Revoked)
        );
        let agent = access.authenticate(&second).await.unwrap().unwrap();
        assert_eq!(agent.role, Role::Agent);
        assert_eq!(
            agent.cluster.as_deref(),
            Some("clusterProviders/p/clusters/c")
        );

        // Lists: newest first, active only unless asked, paged.
        let (active, more) = access.list_tokens(None, false, 10).await.unwrap();
        assert!(!more);
        assert_eq!(active.len(), 2, "{active:?}");
        let (all, _) = access.list_tokens(None, true, 10).await.unwrap();
        assert_eq!(all.len(), 5);
        assert!(all.windows(2).all(|w| w[0].create_time >= w[1].create_time));
        let (first_page, more) = access.list_tokens(None, true, 2).await.unwrap();
        assert!(more);
        let last = first_page.last().unwrap();
        let (rest, _) = access
            .list_tokens(Some((last.create_time, last.id)), true, 10)
            .await
            .unwrap();
        assert_eq!(first_page.len() + rest.len(), 5);
        assert!(rest.iter().all(|t| !first_page.contains(t)));

        // With every admin token revoked, the next start makes a new one.
        access.revoke_token(admin.token).await.unwrap();
        assert!(access.bootstrap_admin(dir.path()).await.unwrap().is_some());
        store.close().await;
    }

    on_both_backends!(tokens_on_sqlite, tokens_on_postgres, access_on);

    /// Replicas that start together on an empty PostgreSQL database (a Deployment's
    /// pods) make one bootstrap admin token between them, not one each: every start
    /// checks and inserts under one lock, and the one that made it has the file.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn replicas_starting_together_make_one_admin_token_postgres() {
        let url = flotilla_tests::create_postgres_database().await;
        let starts = 8;
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(starts));
        let mut tasks = Vec::new();
        for _ in 0..starts {
            // Each replica has its own pool and data directory.
            let store = Store::connect(&url).await.unwrap();
            let barrier = barrier.clone();
            tasks.push(tokio::spawn(async move {
                let dir = tempfile::tempdir().unwrap();
                let access = Access::new(store.clone());
                barrier.wait().await;
                let wrote = access.bootstrap_admin(dir.path()).await.unwrap();
                let secret = wrote.map(|path| std::fs::read_to_string(path).unwrap());
                store.close().await;
                secret
            }));
        }
        let mut secrets = Vec::new();
        for task in tasks {
            secrets.extend(task.await.unwrap());
        }
        assert_eq!(secrets.len(), 1, "one start writes the token file");
        let store = Store::connect(&url).await.unwrap();
        let access = Access::new(store.clone());
        let (active, _) = access.list_tokens(None, false, 100).await.unwrap();
        let admins = active.iter().filter(|t| t.role == Role::Admin).count();
        assert_eq!(admins, 1, "one bootstrap admin token");
        let admin = access
            .authenticate(&Secret::new(secrets[0].trim()))
            .await
            .unwrap()
            .expect("the file holds the token's secret");
        assert_eq!(admin.role, Role::Admin);
        store.close().await;
        flotilla_tests::drop_postgres_database(&url);
    }
}
