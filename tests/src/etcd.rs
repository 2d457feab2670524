//! A real etcd on loopback for the tests and the benchmark's baselines: started on a
//! fresh data directory, stopped and started again on the same ports and data (an
//! outage), killed when its handle drops.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::free_port;

/// A local single-member etcd.
pub struct Etcd {
    child: Option<Child>,
    /// The client URL, `http://127.0.0.1:{port}`.
    pub endpoint: String,
    peer: String,
    dir: tempfile::TempDir,
}

impl Etcd {
    /// Starts etcd (Debian's `etcd-server`, which the suite's setup installs) and waits
    /// until it answers.
    pub async fn start() -> Result<Etcd> {
        let dir = tempfile::tempdir()?;
        let mut etcd = Etcd {
            child: None,
            endpoint: format!("http://127.0.0.1:{}", free_port()),
            peer: format!("http://127.0.0.1:{}", free_port()),
            dir,
        };
        etcd.resume().await?;
        Ok(etcd)
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A client of this etcd.
    pub async fn client(&self) -> Result<etcd_client::Client> {
        Ok(etcd_client::Client::connect([&self.endpoint], None).await?)
    }

    /// The owner keys of a replica set whose keys live under `prefix` (`--etcd-prefix`,
    /// default `/flotilla`): unit (a cluster's last name segment, or `fleet-tasks`) →
    /// the replica id holding it.
    pub async fn owners(&self, prefix: &str) -> Result<std::collections::BTreeMap<String, String>> {
        let listing = self
            .client()
            .await?
            .get(
                format!("{prefix}/owners/"),
                Some(etcd_client::GetOptions::new().with_prefix()),
            )
            .await?;
        let mut owners = std::collections::BTreeMap::new();
        for kv in listing.kvs() {
            let unit = kv
                .key_str()?
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            owners.insert(unit, kv.value_str()?.to_owned());
        }
        Ok(owners)
    }

    /// Kills the process (SIGKILL): an outage, until `resume`.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the process again on the same ports and data, and waits until it answers.
    pub async fn resume(&mut self) -> Result<()> {
        self.stop();
        let child = Command::new("etcd")
            .args([
                "--data-dir",
                &self.dir.path().join("etcd").display().to_string(),
                "--listen-client-urls",
                &self.endpoint,
                "--advertise-client-urls",
                &self.endpoint,
                "--listen-peer-urls",
                &self.peer,
                "--initial-advertise-peer-urls",
                &self.peer,
                "--initial-cluster",
                &format!("default={}", self.peer),
                "--quota-backend-bytes",
                "8589934592",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("etcd (Debian package etcd-server) must be installed")?;
        self.child = Some(child);
        for _ in 0..100 {
            if let Ok(mut client) = self.client().await
                && client.status().await.is_ok()
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        bail!("etcd did not start on {}", self.endpoint)
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.stop();
    }
}
