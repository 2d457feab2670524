//! Certificates for TLS tests, made at run time with rcgen: a CA, a server certificate
//! for `localhost` and 127.0.0.1, and a client certificate, written to a directory the
//! server reads them from.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// A certificate authority.
pub struct TestCa {
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("ca key");
        let cert = params.self_signed(&key).expect("ca cert");
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A leaf certificate (PEM, key PEM) for `names`, for a server or a client.
    pub fn leaf(&self, common_name: &str, names: &[&str], client: bool) -> (String, String) {
        let purpose = if client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        };
        self.leaf_for(common_name, names, vec![purpose])
    }

    /// A leaf certificate (PEM, key PEM) for `names` with the extended key usages
    /// `purposes`.
    pub fn leaf_for(
        &self,
        common_name: &str,
        names: &[&str],
        purposes: Vec<ExtendedKeyUsagePurpose>,
    ) -> (String, String) {
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .expect("leaf params");
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        params.extended_key_usages = purposes;
        let key = KeyPair::generate().expect("leaf key");
        let cert = params.signed_by(&key, &self.issuer).expect("leaf cert");
        (cert.pem(), key.serialize_pem())
    }
}

/// A CA with a server and a client certificate, on disk.
#[derive(Clone)]
pub struct TestPki {
    dir: Arc<tempfile::TempDir>,
    pub ca: Arc<TestCa>,
    pub ca_pem: String,
    pub client_cert_pem: String,
    pub client_key_pem: String,
    /// Whether the server requires client certificates (mTLS).
    pub require_client_certs: bool,
}

impl TestPki {
    /// A new CA and certificates; `mtls` makes the server require client certificates.
    pub fn new(mtls: bool) -> TestPki {
        let ca = TestCa::new("flotilla test ca");
        let (client_cert_pem, client_key_pem) = ca.leaf("test client", &["client"], true);
        let pki = TestPki {
            dir: Arc::new(tempfile::tempdir().expect("pki dir")),
            ca_pem: ca.pem.clone(),
            ca: Arc::new(ca),
            client_cert_pem,
            client_key_pem,
            require_client_certs: mtls,
        };
        write(&pki.path("ca.pem"), &pki.ca_pem);
        write(&pki.path("client.pem"), &pki.client_cert_pem);
        write(&pki.path("client.key"), &pki.client_key_pem);
        pki.install_server_cert(&pki.ca);
        pki
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }

    /// Writes a new server certificate signed by `ca` where the server reads it. It
    /// allows client authentication too: with mTLS a replica presents its serving
    /// certificate to the replicas it passes calls to.
    pub fn install_server_cert(&self, ca: &TestCa) {
        let (cert, key) = ca.leaf_for(
            "flotilla test server",
            &["localhost", "127.0.0.1"],
            vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ],
        );
        // The key first: a reload between the two writes sees a mismatched pair, fails,
        // and the next change (the certificate) reloads both.
        write(&self.path("server.key"), &key);
        write(&self.path("server.pem"), &cert);
    }

    /// Makes `ca` the one the server trusts clients (and replicas) of, and the one
    /// `ca.pem` names for agents and peers.
    pub fn install_ca(&self, ca: &TestCa) {
        write(&self.path("ca.pem"), &ca.pem);
    }

    /// Writes a new client certificate signed by `ca` where agents (and
    /// `TestServer::options`) read it.
    pub fn install_client_cert(&self, ca: &TestCa) {
        let (cert, key) = ca.leaf("test client", &["client"], true);
        write(&self.path("client.key"), &key);
        write(&self.path("client.pem"), &cert);
    }

    /// The server's flags.
    pub fn server_args(&self) -> Vec<String> {
        let mut args = vec![
            "--tls-cert".to_string(),
            self.path("server.pem").display().to_string(),
            "--tls-key".to_string(),
            self.path("server.key").display().to_string(),
        ];
        if self.require_client_certs {
            args.push("--tls-client-ca".into());
            args.push(self.path("ca.pem").display().to_string());
        }
        args
    }

    /// An agent's flags.
    pub fn agent_args(&self) -> Vec<String> {
        let mut args = vec![
            "--ca-cert".to_string(),
            self.path("ca.pem").display().to_string(),
        ];
        if self.require_client_certs {
            args.extend([
                "--client-cert".to_string(),
                self.path("client.pem").display().to_string(),
                "--client-key".to_string(),
                self.path("client.key").display().to_string(),
            ]);
        }
        args
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}
