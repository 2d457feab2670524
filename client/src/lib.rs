//! A typed Rust client for Flotilla: one handle per service over a shared channel,
//! and helpers that build resource names.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use flotilla_client::{Client, names};
//! use flotilla_client::v1::GetProjectRequest;
//!
//! let mut client = Client::connect("http://127.0.0.1:50051").await?;
//! let project = client
//!     .lifecycle
//!     .get_project(GetProjectRequest { name: names::project("demo") })
//!     .await?
//!     .into_inner();
//! println!("{}", project.name);
//! # Ok(()) }
//! ```

use std::collections::VecDeque;

pub use flotilla_api::v1;
use tonic::Streaming;
use tonic::transport::{Channel, Endpoint};
use v1::action_service_client::ActionServiceClient;
use v1::agent_service_client::AgentServiceClient;
use v1::container_cluster_service_client::ContainerClusterServiceClient;
use v1::lifecycle_service_client::LifecycleServiceClient;
use v1::simulator_service_client::SimulatorServiceClient;
use v1::status_service_client::StatusServiceClient;

/// A connection to a Flotilla server with a client per service. Clones share the
/// connection.
#[derive(Debug, Clone)]
pub struct Client {
    pub lifecycle: LifecycleServiceClient<Channel>,
    pub status: StatusServiceClient<Channel>,
    pub actions: ActionServiceClient<Channel>,
    pub container_clusters: ContainerClusterServiceClient<Channel>,
    pub agent: AgentServiceClient<Channel>,
    pub simulator: SimulatorServiceClient<Channel>,
}

impl Client {
    /// Connects to `address`, e.g. `http://127.0.0.1:50051` (a bare `host:port` is
    /// taken as plaintext HTTP/2).
    pub async fn connect(address: impl Into<String>) -> Result<Client, tonic::transport::Error> {
        let mut address = address.into();
        if !address.contains("://") {
            address = format!("http://{address}");
        }
        let channel = Endpoint::from_shared(address)?.connect().await?;
        Ok(Client::from_channel(channel))
    }

    /// Builds the service clients over an existing channel.
    pub fn from_channel(channel: Channel) -> Client {
        Client {
            lifecycle: LifecycleServiceClient::new(channel.clone()),
            status: StatusServiceClient::new(channel.clone()),
            actions: ActionServiceClient::new(channel.clone()),
            container_clusters: ContainerClusterServiceClient::new(channel.clone()),
            agent: AgentServiceClient::new(channel.clone()),
            simulator: SimulatorServiceClient::new(channel),
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

/// Builders of resource names (AIP-122 paths).
pub mod names {
    /// `projects/{project}`
    pub fn project(project: &str) -> String {
        format!("projects/{project}")
    }

    /// `projects/{project}/compositeApps/{app}/versions/{version}`
    pub fn composite_app(project: &str, composite_app: &str, version: &str) -> String {
        format!("projects/{project}/compositeApps/{composite_app}/versions/{version}")
    }

    /// `…/versions/{version}/apps/{app}`
    pub fn app(composite_app: &str, app: &str) -> String {
        format!("{composite_app}/apps/{app}")
    }

    /// `…/versions/{version}/compositeProfiles/{profile}`
    pub fn composite_profile(composite_app: &str, profile: &str) -> String {
        format!("{composite_app}/compositeProfiles/{profile}")
    }

    /// `…/compositeProfiles/{profile}/appProfiles/{app_profile}`
    pub fn app_profile(composite_profile: &str, app_profile: &str) -> String {
        format!("{composite_profile}/appProfiles/{app_profile}")
    }

    /// `…/versions/{version}/deploymentIntentGroups/{dig}`
    pub fn deployment_intent_group(composite_app: &str, dig: &str) -> String {
        format!("{composite_app}/deploymentIntentGroups/{dig}")
    }

    /// `…/deploymentIntentGroups/{dig}/placementIntents/{intent}`
    pub fn placement_intent(dig: &str, intent: &str) -> String {
        format!("{dig}/placementIntents/{intent}")
    }

    /// `clusterProviders/{provider}`
    pub fn cluster_provider(provider: &str) -> String {
        format!("clusterProviders/{provider}")
    }

    /// `clusterProviders/{provider}/clusters/{cluster}`
    pub fn cluster(provider: &str, cluster: &str) -> String {
        format!("clusterProviders/{provider}/clusters/{cluster}")
    }

    /// `clusterProviders/{provider}/clusters/{cluster}/networkIntents/{intent}`
    pub fn network_intent(cluster: &str, intent: &str) -> String {
        format!("{cluster}/networkIntents/{intent}")
    }

    /// `{owner}/instances/{id}`
    pub fn instance(owner: &str, id: &str) -> String {
        format!("{owner}/instances/{id}")
    }
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn builds_nested_names() {
        let ca = names::composite_app("p", "ca", "v1");
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
}
