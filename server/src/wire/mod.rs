//! The wire: everything between domain values and protobuf bytes, shared by the
//! services (`api/`), the watch streams (`watch/`) and the agent sessions (`agent/`).
//!
//! - [`convert`]: messages to domain values (validating, with field violations) and
//!   back.
//! - [`status`]: the one mapping from domain errors to `tonic::Status`.
//! - [`Encoded`], [`tree`] and [`routes`]: the hand-written encoding of the answers
//!   written once for many readers (watch events) or straight from memory (status tree
//!   pages), and the StatusService that serves them in place of the generated
//!   handlers. Clients see the declared messages either way.
//! - [`outbound`]: the credit that bounds the watch output the process holds.
//!
//! The module depends on `domain/`, `app/`'s result types and `store/`'s rows, never
//! on `api/` or `watch/`.

pub mod convert;
mod encoded;
pub mod outbound;
pub mod routes;
pub mod status;
pub mod tree;

pub use encoded::{EVENTS_FIELD, Encoded};
