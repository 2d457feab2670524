//! Helpers shared by several suites.

pub mod container_clusters;
pub mod fleet;
pub mod mirror;
