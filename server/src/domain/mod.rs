//! Pure domain logic: names, resource specs, manifest parsing, rendering and the
//! lifecycle state machines. Nothing here does I/O.

pub mod access;
pub mod action;
pub mod conditions;
pub mod container_cluster;
pub mod lifecycle;
pub mod manifest;
pub mod names;
pub mod readiness;
pub mod render;
pub mod resources;
pub mod status;
