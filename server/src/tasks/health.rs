//! `grpc.health.v1` that tells the truth: each pass pings the database, and while it
//! does not answer every service (and the server as a whole, `""`) reports
//! NOT_SERVING, so a load balancer or an orchestrator's probe can act. SERVING comes
//! back with the first answer.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use serde_json::json;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;
use tracing::{info, warn};

use super::BackgroundTask;
use crate::error::Result;
use crate::store::Store;

/// How long one ping may take before the database counts as unreachable.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

const UNKNOWN: u8 = 0;
const SERVING: u8 = 1;
const NOT_SERVING: u8 = 2;

/// The health reporter and the services it speaks for.
#[derive(Clone)]
pub struct Health {
    reporter: HealthReporter,
    services: Vec<&'static str>,
}

impl Health {
    pub fn new(reporter: HealthReporter, services: Vec<&'static str>) -> Self {
        Self { reporter, services }
    }

    /// Sets the status of the server (`""`) and of every service.
    pub async fn set(&self, status: ServingStatus) {
        self.reporter.set_service_status("", status).await;
        for service in &self.services {
            self.reporter.set_service_status(*service, status).await;
        }
    }
}

/// The background task that keeps `Health` true to the database.
pub struct HealthCheck {
    pub store: Store,
    pub health: Health,
    /// What the last pass reported (UNKNOWN before the first).
    last: AtomicU8,
}

impl HealthCheck {
    pub fn new(store: Store, health: Health) -> Self {
        Self {
            store,
            health,
            last: AtomicU8::new(UNKNOWN),
        }
    }
}

#[tonic::async_trait]
impl BackgroundTask for HealthCheck {
    fn name(&self) -> &'static str {
        "health"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let answer = tokio::time::timeout(PING_TIMEOUT, self.store.ping()).await;
        let (now, status, cause) = match answer {
            Ok(Ok(())) => (SERVING, ServingStatus::Serving, String::new()),
            Ok(Err(error)) => (NOT_SERVING, ServingStatus::NotServing, error.to_string()),
            Err(_) => (
                NOT_SERVING,
                ServingStatus::NotServing,
                format!("no answer in {PING_TIMEOUT:?}"),
            ),
        };
        let before = self.last.swap(now, Ordering::SeqCst);
        if before != now {
            self.health.set(status).await;
            match now {
                SERVING if before != UNKNOWN => info!("database reachable again: SERVING"),
                NOT_SERVING => warn!(%cause, "database unreachable: NOT_SERVING"),
                _ => {}
            }
        }
        Ok(json!({ "serving": now == SERVING }))
    }
}
