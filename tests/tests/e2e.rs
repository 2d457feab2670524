//! The end-to-end suites: real `flotilla-server` and `flotilla-agent` processes (or
//! servers in process where no process is needed), real SQLite and PostgreSQL, real
//! Kubernetes control planes, real grpcurl. One test binary: each suite is a module, so
//! the shared code is compiled and linked once. Run one test with
//! `cargo test -p flotilla-tests --test e2e <suite>::<backend>::<test>`.

mod common;

mod action_agents;
mod actions;
mod agents;
mod bad_input;
mod bench_cli;
mod clients;
mod console;
mod container_cluster_faults;
mod container_cluster_fleet;
mod container_cluster_lifecycle;
mod container_clusters;
mod controlplane;
mod coordination;
mod declared_kinds;
mod faults;
mod fleet_watch;
mod fuzz;
mod grpcurl;
mod health;
mod integrity;
mod kube_backend;
mod lifecycle;
mod limits;
mod metrics;
mod ownership;
mod retention;
mod revisions;
mod rsync_budget;
mod security;
mod shared_cluster;
mod status;
mod tls;
mod watch;
mod watch_pacing;
