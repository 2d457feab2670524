//! A typed Rust client for Flotilla: one handle per service over a shared channel,
//! connection options (TLS, mTLS, bearer token, timeouts), and helpers that build
//! resource names.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use flotilla_client::{Client, names};
//! use flotilla_client::v1::GetProjectRequest;
//!
//! // The token comes from FLOTILLA_TOKEN unless one is given.
//! let mut client = Client::connect("http://127.0.0.1:50051").await?;
//! let project = client
//!     .lifecycle
//!     .get_project(GetProjectRequest { name: names::project("demo") })
//!     .await?
//!     .into_inner();
//! println!("{}", project.name);
//! # Ok(()) }
//! ```

// ApiError (a decoded google.rpc.Status) is as large as tonic::Status; it is the error
// of network calls, where its size costs nothing next to the round trip.
#![allow(clippy::result_large_err)]

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use flotilla_api::v1;

mod error;
pub mod names;
mod pages;
pub mod watch;

pub use error::{ApiError, FieldViolation, PreconditionViolation};
pub use pages::{PagedRequest, PagedResponse, pages};
use tonic::Streaming;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use v1::access_service_client::AccessServiceClient;
use v1::action_service_client::ActionServiceClient;
use v1::agent_service_client::AgentServiceClient;
use v1::container_cluster_service_client::ContainerClusterServiceClient;
use v1::lifecycle_service_client::LifecycleServiceClient;
use v1::simulator_service_client::SimulatorServiceClient;
use v1::status_service_client::StatusServiceClient;
pub use watch::{
    ActionWatch, ContainerClusterWatch, Reconnect, ResumingWatch, StatusWatch, is_transient,
};

/// The environment variable the client reads its token from by default.
pub const TOKEN_ENV: &str = "FLOTILLA_TOKEN";

/// A bearer token. Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    pub fn new(secret: impl Into<String>) -> Token {
        Token(secret.into().trim().to_string())
    }

    /// The token in `FLOTILLA_TOKEN`, if set and not empty.
    pub fn from_env() -> Option<Token> {
        std::env::var(TOKEN_ENV)
            .ok()
            .map(Token::new)
            .filter(|t| !t.0.is_empty())
    }

    /// Reads a token file (surrounding whitespace is ignored).
    pub fn from_file(path: impl AsRef<Path>) -> std::io::Result<Token> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot read token file {}: {e}", path.display()),
            )
        })?;
        let token = Token::new(text);
        if token.0.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("token file {} is empty", path.display()),
            ));
        }
        Ok(token)
    }

    /// The secret, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The `authorization` metadata value, marked sensitive (HPACK never-indexed, and
    /// hidden from `Debug`).
    pub fn header(&self) -> Result<MetadataValue<Ascii>, Error> {
        let mut value: MetadataValue<Ascii> = format!("Bearer {}", self.0)
            .parse()
            .map_err(|_| Error::Config("the token is not valid header text".into()))?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(***)")
    }
}

/// Adds the bearer token to every call.
#[derive(Clone, Default)]
pub struct Credentials {
    header: Option<MetadataValue<Ascii>>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("token", &self.header.as_ref().map(|_| "***"))
            .finish()
    }
}

impl Credentials {
    pub fn new(token: Option<&Token>) -> Result<Credentials, Error> {
        Ok(Credentials {
            header: token.map(Token::header).transpose()?,
        })
    }
}

impl Interceptor for Credentials {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        // A call that carries its own credentials keeps them.
        if let Some(header) = &self.header
            && !request.metadata().contains_key("authorization")
        {
            request
                .metadata_mut()
                .insert("authorization", header.clone());
        }
        Ok(request)
    }
}

/// The transport of every service client: the channel plus the token.
pub type Transport = InterceptedService<Channel, Credentials>;

/// Why a client could not be built or connected.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Config(String),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot connect to {address}: {source}")]
    Connect {
        address: String,
        #[source]
        source: tonic::transport::Error,
    },
}

impl Error {
    /// The error and its causes on one line (transport errors hide the useful part,
    /// e.g. a certificate the client does not trust, in their sources).
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            let line = cause.to_string();
            if !text.contains(&line) {
                text.push_str(": ");
                text.push_str(&line);
            }
            source = cause.source();
        }
        text
    }
}

/// How to reach a server: address, TLS, client certificate, token and timeouts.
///
/// `https://` addresses speak TLS (verified against `ca_certificate`, or the system's
/// roots without one); `http://` addresses speak plaintext; a bare `host:port` speaks
/// TLS when a CA or client certificate is given, plaintext otherwise.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    pub address: String,
    /// The bearer token; `ConnectOptions::new` takes it from `FLOTILLA_TOKEN`.
    pub token: Option<Token>,
    /// PEM of the CA that signed the server's certificate.
    pub ca_certificate: Option<Vec<u8>>,
    /// PEM of a client certificate and its key, for servers that require mTLS.
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
    /// The name to verify the server's certificate against (default: the address's host).
    pub domain: Option<String>,
    pub connect_timeout: Duration,
    /// A deadline for every call; None = none.
    pub timeout: Option<Duration>,
}

impl ConnectOptions {
    pub fn new(address: impl Into<String>) -> ConnectOptions {
        ConnectOptions {
            address: address.into(),
            token: Token::from_env(),
            ca_certificate: None,
            identity: None,
            domain: None,
            connect_timeout: Duration::from_secs(5),
            timeout: None,
        }
    }

    pub fn token(mut self, token: Option<Token>) -> Self {
        self.token = token;
        self
    }

    pub fn ca_certificate_file(mut self, path: impl AsRef<Path>) -> Result<Self, Error> {
        self.ca_certificate = Some(read(path.as_ref())?);
        Ok(self)
    }

    pub fn identity_files(
        mut self,
        cert: impl AsRef<Path>,
        key: impl AsRef<Path>,
    ) -> Result<Self, Error> {
        self.identity = Some((read(cert.as_ref())?, read(key.as_ref())?));
        Ok(self)
    }

    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    fn tls(&self) -> bool {
        if self.address.starts_with("https://") {
            return true;
        }
        !self.address.contains("://") && (self.ca_certificate.is_some() || self.identity.is_some())
    }

    /// The endpoint, with TLS configured when the address asks for it.
    pub fn endpoint(&self) -> Result<Endpoint, Error> {
        let tls = self.tls();
        let address = match self.address.split_once("://") {
            Some(("http" | "https", _)) => self.address.clone(),
            Some((scheme, _)) => {
                return Err(Error::Config(format!(
                    "unsupported scheme {scheme:?} in {}: use http:// or https://",
                    self.address
                )));
            }
            None if tls => format!("https://{}", self.address),
            None => format!("http://{}", self.address),
        };
        let mut endpoint = Endpoint::from_shared(address.clone())
            .map_err(|e| Error::Config(format!("invalid server address {address:?}: {e}")))?
            .connect_timeout(self.connect_timeout);
        if let Some(timeout) = self.timeout {
            endpoint = endpoint.timeout(timeout);
        }
        if tls {
            let mut config = ClientTlsConfig::new();
            config = match &self.ca_certificate {
                Some(pem) => config.ca_certificate(Certificate::from_pem(pem)),
                None => config.with_native_roots(),
            };
            if let Some((cert, key)) = &self.identity {
                config = config.identity(Identity::from_pem(cert, key));
            }
            if let Some(domain) = &self.domain {
                config = config.domain_name(domain.clone());
            }
            endpoint = endpoint
                .tls_config(config)
                .map_err(|e| Error::Config(format!("invalid TLS settings: {e}")))?;
        } else if self.ca_certificate.is_some() || self.identity.is_some() {
            return Err(Error::Config(format!(
                "{} is a plaintext address, but TLS settings were given: use https://",
                self.address
            )));
        }
        Ok(endpoint)
    }

    /// Connects a channel.
    pub async fn channel(&self) -> Result<Channel, Error> {
        self.endpoint()?
            .connect()
            .await
            .map_err(|source| Error::Connect {
                address: self.address.clone(),
                source,
            })
    }

    /// Connects a channel that sends the token: what the service clients run on, and
    /// what a caller of its own (a dynamic client) can use directly.
    pub async fn transport(&self) -> Result<Transport, Error> {
        let channel = self.channel().await?;
        transport(channel, self.token.as_ref())
    }

    /// Connects and builds the service clients.
    pub async fn connect(&self) -> Result<Client, Error> {
        Ok(Client::over(self.transport().await?))
    }
}

fn transport(channel: Channel, token: Option<&Token>) -> Result<Transport, Error> {
    Ok(InterceptedService::new(channel, Credentials::new(token)?))
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// A connection to a Flotilla server with a client per service. Clones share the
/// connection.
#[derive(Debug, Clone)]
pub struct Client {
    pub lifecycle: LifecycleServiceClient<Transport>,
    pub status: StatusServiceClient<Transport>,
    pub actions: ActionServiceClient<Transport>,
    pub container_clusters: ContainerClusterServiceClient<Transport>,
    pub access: AccessServiceClient<Transport>,
    pub agent: AgentServiceClient<Transport>,
    pub simulator: SimulatorServiceClient<Transport>,
}

impl Client {
    /// Connects to `address`, e.g. `http://127.0.0.1:50051`, with the token in
    /// `FLOTILLA_TOKEN` (if set). See [`ConnectOptions`] for TLS and other settings.
    pub async fn connect(address: impl Into<String>) -> Result<Client, Error> {
        ConnectOptions::new(address).connect().await
    }

    /// Builds the service clients over an existing channel, without a token.
    pub fn from_channel(channel: Channel) -> Client {
        Client::with_token(channel, None).expect("no token, no header to build")
    }

    /// Builds the service clients over an existing channel, sending `token`.
    pub fn with_token(channel: Channel, token: Option<&Token>) -> Result<Client, Error> {
        Ok(Client::over(transport(channel, token)?))
    }

    /// Builds the service clients over a transport.
    pub fn over(transport: Transport) -> Client {
        Client {
            lifecycle: LifecycleServiceClient::new(transport.clone()),
            status: StatusServiceClient::new(transport.clone()),
            actions: ActionServiceClient::new(transport.clone()),
            container_clusters: ContainerClusterServiceClient::new(transport.clone()),
            access: AccessServiceClient::new(transport.clone()),
            agent: AgentServiceClient::new(transport.clone()),
            simulator: SimulatorServiceClient::new(transport),
        }
    }
}

/// The events of a WatchStatus stream, one at a time. The server sends the events of a
/// burst together, several to a response message; this hands them out in order.
///
/// ```no_run
/// # async fn demo(mut client: flotilla_client::Client) -> Result<(), tonic::Status> {
/// use flotilla_client::WatchEvents;
/// use flotilla_client::v1::WatchStatusRequest;
///
/// let request = WatchStatusRequest {
///     name: "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod".into(),
///     ..Default::default()
/// };
/// let mut events = WatchEvents::new(client.status.watch_status(request).await?.into_inner());
/// while let Some(event) = events.next().await? {
///     println!("{:?} {}", event.r#type(), event.resume_token);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct WatchEvents {
    stream: Streaming<v1::WatchStatusResponse>,
    /// The rest of the last message received, in order.
    pending: VecDeque<v1::WatchEvent>,
}

impl WatchEvents {
    pub fn new(stream: Streaming<v1::WatchStatusResponse>) -> WatchEvents {
        WatchEvents {
            stream,
            pending: VecDeque::new(),
        }
    }

    /// The next event; `None` when the server ended the stream.
    pub async fn next(&mut self) -> Result<Option<v1::WatchEvent>, tonic::Status> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            match self.stream.message().await? {
                Some(message) => self.pending.extend(message.events),
                None => return Ok(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_nested_names() {
        let ca = names::composite_app("p", "ca", "v1");
        assert_eq!(names::checked::composite_app("p", "ca", "v1").unwrap(), ca);
        let bad = names::checked::project("Bad_Name").unwrap_err();
        assert!(bad.to_string().contains("RFC 1123"), "{bad}");
        assert!(names::checked::cluster("cp", "-x").is_err());
        assert!(names::check_id(&"a".repeat(64)).is_err());
        assert!(names::check_id(&"a".repeat(63)).is_ok());
        assert_eq!(ca, "projects/p/compositeApps/ca/versions/v1");
        let dig = names::deployment_intent_group(&ca, "d");
        assert_eq!(
            names::placement_intent(&dig, "pi"),
            "projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d/placementIntents/pi"
        );
        assert_eq!(
            names::network_intent(&names::cluster("cp", "c1"), "n"),
            "clusterProviders/cp/clusters/c1/networkIntents/n"
        );
    }

    #[test]
    fn tokens_never_show_in_debug_output() {
        let token = Token::new("flt_secret\n");
        assert_eq!(token.expose(), "flt_secret");
        assert_eq!(format!("{token:?}"), "Token(***)");
        let credentials = Credentials::new(Some(&token)).unwrap();
        assert!(!format!("{credentials:?}").contains("secret"));
        let options = ConnectOptions::new("127.0.0.1:1").token(Some(token));
        assert!(!format!("{options:?}").contains("secret"));
    }

    #[test]
    fn the_scheme_decides_tls() {
        let plain = ConnectOptions::new("127.0.0.1:1");
        assert!(!plain.tls());
        assert!(ConnectOptions::new("https://127.0.0.1:1").tls());
        let mut with_ca = ConnectOptions::new("127.0.0.1:1");
        with_ca.ca_certificate = Some(b"pem".to_vec());
        assert!(with_ca.tls());
        with_ca.address = "http://127.0.0.1:1".into();
        assert!(with_ca.endpoint().is_err());
        assert!(ConnectOptions::new("ftp://x:1").endpoint().is_err());
    }
}
