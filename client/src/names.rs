//! Builders of resource names (AIP-122 paths). The plain builders format what they are
//! given; [`checked`] validates each id first, as the server will, so a bad name fails
//! before any call is made.

use std::fmt;

/// The largest length of an id (an RFC 1123 label).
pub const MAX_ID_LEN: usize = 63;

/// An id that is not an RFC 1123 label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidId {
    pub id: String,
}

impl fmt::Display for InvalidId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a valid id: an RFC 1123 label, 1-{MAX_ID_LEN} characters of [a-z0-9-], \
             starting and ending with a letter or digit",
            self.id
        )
    }
}

impl std::error::Error for InvalidId {}

/// Checks that `id` is an RFC 1123 label, as the server requires of every id.
pub fn check_id(id: &str) -> Result<&str, InvalidId> {
    let bytes = id.as_bytes();
    let valid = !bytes.is_empty()
        && bytes.len() <= MAX_ID_LEN
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-';
    if valid {
        Ok(id)
    } else {
        Err(InvalidId { id: id.to_string() })
    }
}

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

/// `tokens/{id}`
pub fn token(id: &str) -> String {
    format!("tokens/{id}")
}

/// The same builders, validating every id they are given.
pub mod checked {
    use super::{InvalidId, check_id};

    /// `projects/{project}`
    pub fn project(project: &str) -> Result<String, InvalidId> {
        Ok(super::project(check_id(project)?))
    }

    /// `projects/{project}/compositeApps/{app}/versions/{version}`
    pub fn composite_app(
        project: &str,
        composite_app: &str,
        version: &str,
    ) -> Result<String, InvalidId> {
        Ok(super::composite_app(
            check_id(project)?,
            check_id(composite_app)?,
            check_id(version)?,
        ))
    }

    /// `…/versions/{version}/apps/{app}`
    pub fn app(composite_app: &str, app: &str) -> Result<String, InvalidId> {
        Ok(super::app(composite_app, check_id(app)?))
    }

    /// `…/versions/{version}/compositeProfiles/{profile}`
    pub fn composite_profile(composite_app: &str, profile: &str) -> Result<String, InvalidId> {
        Ok(super::composite_profile(composite_app, check_id(profile)?))
    }

    /// `…/compositeProfiles/{profile}/appProfiles/{app_profile}`
    pub fn app_profile(composite_profile: &str, app_profile: &str) -> Result<String, InvalidId> {
        Ok(super::app_profile(
            composite_profile,
            check_id(app_profile)?,
        ))
    }

    /// `…/versions/{version}/deploymentIntentGroups/{dig}`
    pub fn deployment_intent_group(composite_app: &str, dig: &str) -> Result<String, InvalidId> {
        Ok(super::deployment_intent_group(
            composite_app,
            check_id(dig)?,
        ))
    }

    /// `…/deploymentIntentGroups/{dig}/placementIntents/{intent}`
    pub fn placement_intent(dig: &str, intent: &str) -> Result<String, InvalidId> {
        Ok(super::placement_intent(dig, check_id(intent)?))
    }

    /// `clusterProviders/{provider}`
    pub fn cluster_provider(provider: &str) -> Result<String, InvalidId> {
        Ok(super::cluster_provider(check_id(provider)?))
    }

    /// `clusterProviders/{provider}/clusters/{cluster}`
    pub fn cluster(provider: &str, cluster: &str) -> Result<String, InvalidId> {
        Ok(super::cluster(check_id(provider)?, check_id(cluster)?))
    }

    /// `clusterProviders/{provider}/clusters/{cluster}/networkIntents/{intent}`
    pub fn network_intent(cluster: &str, intent: &str) -> Result<String, InvalidId> {
        Ok(super::network_intent(cluster, check_id(intent)?))
    }
}
