//! Calls from one replica to another. A create for an action on a cluster that another
//! replica runs is passed to that replica, with the caller's own credentials, so that
//! the replica that holds the cluster's agent session commits the action and delivers
//! it at once, rather than committing here and waking the owner through etcd (a nudge,
//! then a SQL read of the action). The owner authorises the passed call as if it had
//! been called directly.
//!
//! A pass that gets no answer from the owner (it cannot be reached, it dies, it does
//! not answer within the lease TTL and [`PASS_MARGIN`]) is committed here instead, as
//! before passes existed. The owner commits a passed create only while it runs the
//! cluster, checked in the commit's transaction (see `NewAction::passed`); an owner
//! that did not answer within a TTL has lost its lease, so it cannot commit the create
//! after the passer gave up. Where both could still commit (an owner slow past a TTL
//! while keeping its lease), a create with a `request_id` is idempotent across replicas
//! (the request ids are in SQL), and one without cannot make a second open action on
//! the same target (the unique index on open actions).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::action_service_client::ActionServiceClient;
use tonic::metadata::{AsciiMetadataValue, MetadataMap};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::{Code, Request, Status};
use tracing::{debug, warn};

use super::ownership::{Ownership, Whereabouts};

/// The header a passed call carries: the id of the replica that passed it. A call
/// that carries it is never passed again (no loops while ownership moves).
pub const PASSED_BY: &str = "x-flotilla-passed-by";

/// How long a pass waits for the owner beyond the lease TTL before the create is
/// committed here.
pub const PASS_MARGIN: Duration = Duration::from_secs(2);

/// What a call brings that a pass needs: the caller's credentials, and whether it was
/// passed here already.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    authorization: Option<AsciiMetadataValue>,
    passed: bool,
}

impl Origin {
    /// Whether another replica passed the call here.
    pub fn passed(&self) -> bool {
        self.passed
    }

    pub fn of<T>(request: &Request<T>) -> Origin {
        let metadata = request.metadata();
        Origin {
            authorization: metadata.get("authorization").cloned(),
            passed: metadata.contains_key(PASSED_BY),
        }
    }
}

/// A create as its caller sent it.
pub enum Create<'a> {
    Pod(&'a pb::CreatePodActionRequest),
    Node(&'a pb::CreateNodeActionRequest),
}

/// How a replica reaches the others.
pub struct Peers {
    ownership: Arc<Ownership>,
    me: AsciiMetadataValue,
    /// None: the replicas serve plaintext. Replaced when the files are reloaded.
    tls: Mutex<Option<ClientTlsConfig>>,
    /// How long a pass waits for an answer: the lease TTL and [`PASS_MARGIN`].
    timeout: Duration,
    channels: Mutex<HashMap<String, Channel>>,
}

/// The TLS a replica dials the others with: the CA that signed their certificates,
/// and with mTLS its own certificate as the client's.
pub struct PeerTls {
    pub ca_pem: Vec<u8>,
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
}

impl PeerTls {
    fn client_config(self) -> ClientTlsConfig {
        let config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(self.ca_pem));
        match self.identity {
            Some((cert, key)) => config.identity(Identity::from_pem(cert, key)),
            None => config,
        }
    }
}

impl Peers {
    /// Passes for a replica set; None for a single process (it runs every cluster).
    pub fn new(
        ownership: Arc<Ownership>,
        tls: Option<PeerTls>,
        lease_ttl: Duration,
    ) -> Option<Arc<Peers>> {
        if !ownership.replicated() {
            return None;
        }
        let me = ownership.coordinator().me().id.as_str().parse().ok()?;
        Some(Arc::new(Peers {
            ownership,
            me,
            tls: Mutex::new(tls.map(PeerTls::client_config)),
            timeout: lease_ttl + PASS_MARGIN,
            channels: Mutex::new(HashMap::new()),
        }))
    }

    /// Dials the other replicas with `tls` from now on (the files were reloaded: a
    /// rotated certificate, a new CA). Channels made with the old ones are dropped;
    /// calls already on them finish.
    pub fn set_tls(&self, tls: Option<PeerTls>) {
        *self.tls.lock().expect("peer tls") = tls.map(PeerTls::client_config);
        self.channels.lock().expect("channels").clear();
    }

    /// The create's answer from the replica that runs its cluster, or None: the
    /// cluster runs here (or nowhere yet), the call was passed here already, or the
    /// owner gave no answer; then it is created here.
    pub async fn pass_create(
        &self,
        cluster: &str,
        origin: &Origin,
        create: Create<'_>,
    ) -> Option<Result<pb::Action, Status>> {
        if origin.passed {
            return None;
        }
        let Whereabouts::Elsewhere { member, address } = self.ownership.whereabouts(cluster) else {
            return None;
        };
        if !self.reaches(&address) {
            return None;
        }
        let mut client = ActionServiceClient::new(self.channel(&address)?);
        let answer = match create {
            Create::Pod(request) => {
                let request = self.request(origin, request.clone());
                client.create_pod_action(request).await
            }
            Create::Node(request) => {
                let request = self.request(origin, request.clone());
                client.create_node_action(request).await
            }
        };
        let passed = &crate::metrics::METRICS.passed_calls;
        match answer {
            Ok(action) => {
                passed.with_label_values(&["answered"]).inc();
                Some(Ok(action.into_inner()))
            }
            Err(status) if unanswered(&status) => {
                passed.with_label_values(&["created_here"]).inc();
                debug!(%cluster, %member, %status, "the owner did not answer a passed create; creating it here");
                None
            }
            Err(status) => {
                passed.with_label_values(&["answered"]).inc();
                Some(Err(status))
            }
        }
    }

    /// The passed request: the caller's credentials, this replica's mark, a deadline.
    fn request<T>(&self, origin: &Origin, message: T) -> Request<T> {
        let mut request = Request::new(message);
        request.set_timeout(self.timeout);
        let metadata: &mut MetadataMap = request.metadata_mut();
        if let Some(authorization) = &origin.authorization {
            metadata.insert("authorization", authorization.clone());
        }
        metadata.insert(PASSED_BY, self.me.clone());
        request
    }

    /// The channel to `address`, made on first use (it connects lazily, and again
    /// after a failure).
    fn channel(&self, address: &str) -> Option<Channel> {
        let mut channels = self.channels.lock().expect("channels");
        if let Some(channel) = channels.get(address) {
            return Some(channel.clone());
        }
        let endpoint = match self.endpoint(address) {
            Ok(endpoint) => endpoint,
            Err(error) => {
                warn!(%address, %error, "cannot pass calls to this replica");
                return None;
            }
        };
        let channel = endpoint.connect_lazy();
        channels.insert(address.to_owned(), channel.clone());
        Some(channel)
    }

    fn endpoint(&self, address: &str) -> Result<Endpoint, tonic::transport::Error> {
        let endpoint = Endpoint::from_shared(address.to_owned())?
            .connect_timeout(self.timeout)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(10))
            .keep_alive_timeout(Duration::from_secs(5));
        match &*self.tls.lock().expect("peer tls") {
            Some(tls) if address.starts_with("https://") => endpoint.tls_config(tls.clone()),
            _ => Ok(endpoint),
        }
    }

    /// Whether a pass to `address` can be made at all: plaintext, or TLS with a CA.
    fn reaches(&self, address: &str) -> bool {
        address.starts_with("http://") || self.tls.lock().expect("peer tls").is_some()
    }
}

/// A status that is not the owner's answer to the create: it was not reached, went
/// away, or did not answer in time.
fn unanswered(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Cancelled | Code::DeadlineExceeded | Code::Unknown
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_owner_did_not_answer_is_created_here() {
        for code in [
            Code::Unavailable,
            Code::Cancelled,
            Code::DeadlineExceeded,
            Code::Unknown,
        ] {
            assert!(unanswered(&Status::new(code, "x")), "{code:?}");
        }
        for code in [
            Code::InvalidArgument,
            Code::NotFound,
            Code::Aborted,
            Code::FailedPrecondition,
            Code::PermissionDenied,
            Code::Unauthenticated,
            Code::ResourceExhausted,
            Code::Internal,
        ] {
            assert!(!unanswered(&Status::new(code, "x")), "{code:?}");
        }
    }
}
