//! The server crate's integration suites against real SQLite and PostgreSQL stores
//! (no server process): one test binary, each suite a module. Run one with
//! `cargo test -p flotilla-server --test store <suite>::`.

#[macro_use]
mod common;

mod container_cluster_store;
mod fuzz_domain;
mod lifecycle_suite;
mod migrations;
mod permissions;
mod request_id_suite;
mod sim_iaas;
mod status_race;
