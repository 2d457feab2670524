//! TLS for the gRPC listener (rustls with ring): the server's certificate chain and
//! key, and optionally the CA that client certificates must chain to (mTLS). The files
//! are read again on SIGHUP and whenever they change on disk; each new handshake uses
//! the latest good configuration, and established connections (open streams) are not
//! touched. A reload that fails keeps the previous configuration and logs why.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig, crypto};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

/// The PEM files TLS is configured from.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// The server's certificate chain (leaf first).
    pub cert: PathBuf,
    /// The server's private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// mTLS: the CA bundle client certificates must chain to.
    pub client_ca: Option<PathBuf>,
}

impl TlsFiles {
    fn paths(&self) -> Vec<&Path> {
        let mut paths = vec![self.cert.as_path(), self.key.as_path()];
        paths.extend(self.client_ca.as_deref());
        paths
    }

    /// Builds a rustls configuration from the files as they are now.
    pub fn load(&self) -> anyhow::Result<ServerConfig> {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&self.cert)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", self.cert.display()))?
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!("invalid certificate in {}: {e}", self.cert.display()))?;
        if certs.is_empty() {
            anyhow::bail!("{} holds no certificate", self.cert.display());
        }
        let key = PrivateKeyDer::from_pem_file(&self.key).map_err(|e| {
            anyhow::anyhow!("cannot read a private key from {}: {e}", self.key.display())
        })?;
        let provider = Arc::new(crypto::ring::default_provider());
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| anyhow::anyhow!("TLS protocol versions: {e}"))?;
        let builder = match &self.client_ca {
            None => builder.with_no_client_auth(),
            Some(path) => {
                let mut roots = RootCertStore::empty();
                for cert in CertificateDer::pem_file_iter(path)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?
                {
                    let cert = cert.map_err(|e| {
                        anyhow::anyhow!("invalid certificate in {}: {e}", path.display())
                    })?;
                    roots.add(cert).map_err(|e| {
                        anyhow::anyhow!("unusable CA certificate in {}: {e}", path.display())
                    })?;
                }
                if roots.is_empty() {
                    anyhow::bail!("{} holds no CA certificate", path.display());
                }
                // A client without a certificate completes the handshake and is refused
                // by the auth layer with a message that says why; one whose
                // certificate does not verify fails the handshake.
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .allow_unauthenticated()
                        .build()
                        .map_err(|e| anyhow::anyhow!("client CA {}: {e}", path.display()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_single_cert(certs, key).map_err(|e| {
            anyhow::anyhow!(
                "{} and {} do not make a usable certificate: {e}",
                self.cert.display(),
                self.key.display()
            )
        })?;
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(config)
    }
}

/// The current TLS configuration, swapped whole on reload.
pub struct TlsState {
    files: TlsFiles,
    config: RwLock<Arc<ServerConfig>>,
    /// The files' modification stamps at the last (attempted) load.
    stamps: Mutex<Vec<Option<(SystemTime, u64)>>>,
    /// Counts the reloads that succeeded, for what else uses the files (the
    /// certificate a replica presents to the others).
    reloaded: tokio::sync::watch::Sender<u64>,
}

impl TlsState {
    /// Loads the files; fails (the server does not start) if they are unusable.
    pub fn new(files: TlsFiles) -> anyhow::Result<Arc<TlsState>> {
        let stamps = stamps(&files);
        let config = files.load()?;
        Ok(Arc::new(TlsState {
            files,
            config: RwLock::new(Arc::new(config)),
            stamps: Mutex::new(stamps),
            reloaded: tokio::sync::watch::Sender::new(0),
        }))
    }

    /// An acceptor with the current configuration.
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.config.read().expect("tls config lock").clone())
    }

    /// Reads the files again; on success new handshakes use them.
    pub fn reload(&self, why: &str) {
        *self.stamps.lock().expect("tls stamps lock") = stamps(&self.files);
        match self.files.load() {
            Ok(config) => {
                *self.config.write().expect("tls config lock") = Arc::new(config);
                self.reloaded.send_modify(|count| *count += 1);
                info!(cert = %self.files.cert.display(), %why, "reloaded the TLS certificate");
            }
            Err(error) => {
                warn!(%error, %why, "cannot reload the TLS certificate; keeping the previous one")
            }
        }
    }

    /// Changes after every reload that succeeded.
    pub fn reloads(&self) -> tokio::sync::watch::Receiver<u64> {
        self.reloaded.subscribe()
    }

    /// Whether clients must present a certificate (mTLS).
    pub fn requires_client_certificates(&self) -> bool {
        self.files.client_ca.is_some()
    }

    /// Whether a file changed since the last load.
    fn changed(&self) -> bool {
        *self.stamps.lock().expect("tls stamps lock") != stamps(&self.files)
    }
}

fn stamps(files: &TlsFiles) -> Vec<Option<(SystemTime, u64)>> {
    files
        .paths()
        .iter()
        .map(|path| {
            // Follows symlinks: Kubernetes swaps a secret volume's files by relinking.
            std::fs::metadata(path)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())))
        })
        .collect()
}

/// Reloads `state` on SIGHUP and when its files change (checked every `period`).
pub fn spawn_reloader(state: Arc<TlsState>, period: Duration, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let mut hangup = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        {
            Ok(signal) => Some(signal),
            Err(error) => {
                warn!(%error, "cannot listen for SIGHUP; TLS files are reloaded on change only");
                None
            }
        };
        let mut ticker = tokio::time::interval(period);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                Some(()) = async {
                    match hangup.as_mut() {
                        Some(signal) => signal.recv().await,
                        None => std::future::pending().await,
                    }
                } => state.reload("SIGHUP"),
                _ = ticker.tick() => {
                    if state.changed() {
                        state.reload("the files changed");
                    }
                }
            }
        }
    });
}
