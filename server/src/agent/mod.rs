//! Cluster agents. `runner` is the agent side (the `flotilla-agent` binary and the
//! embedded sim agents use it alike), over a `backend` (the sim or a Kubernetes
//! cluster); `hub` is the server side: one session per
//! cluster, authenticated by the cluster's token, carrying rsync operations out and
//! results, resource bundle states and heartbeats in; `executor` runs the actions an
//! agent receives, and `actions` delivers them from the server's side; `wire` is the
//! agent's decoder, which outlives a message it cannot read.

pub mod actions;
pub mod backend;
pub mod executor;
pub mod hub;
mod reports;
pub mod runner;
mod wire;

pub use hub::{AgentHub, ClusterLink, Session};
