//! Builders of resource names (AIP-122 paths): one per kind, generated from the
//! proto's resource declarations (`flotilla_api::names`), and the names of what is not
//! a declared kind. The plain builders format what they are given; [`checked`]
//! validates each id first, as the server will, so a bad name fails before any call is
//! made.

pub use flotilla_api::names::*;

/// `{owner}/instances/{id}`
pub fn instance(owner: &str, id: &str) -> String {
    format!("{owner}/instances/{id}")
}

/// `tokens/{id}`
pub fn token(id: &str) -> String {
    format!("tokens/{id}")
}
