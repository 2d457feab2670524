//! Flotilla's control plane server: a multi-cluster lifecycle manager served over gRPC.
//!
//! Layers (DESIGN §2): `api` holds thin tonic handlers, `app` orchestrates one use
//! case inside one transaction, `domain` is pure logic, `store` is the SQL repository,
//! `watch` fans the status event log out to WatchStatus streams.

pub mod agent;
pub mod api;
pub mod app;
pub mod config;
pub mod demo;
pub mod domain;
pub mod error;
pub mod ids;
pub mod rsync;
pub mod server;
pub mod sim;
pub mod store;
pub mod tasks;
pub mod watch;
