//! Generated Rust code for Flotilla's gRPC API (`proto/flotilla/v1`) and the encoded
//! file descriptor set served by server reflection.

/// The `flotilla.v1` package: messages, service clients and servers.
pub mod flotilla {
    pub mod v1 {
        #![allow(clippy::all, missing_docs)]
        tonic::include_proto!("flotilla.v1");
    }
}

/// The vendored `google.rpc` error model.
pub mod google {
    pub mod rpc {
        #![allow(clippy::all, missing_docs)]
        tonic::include_proto!("google.rpc");
    }
}

pub use flotilla::v1;

pub mod case;
pub mod dynamic;
pub mod kinds;
pub mod names;

/// The Python client's `flotilla/names.py`, generated from the kind declarations
/// (`flotilla-gen-names python` writes it; the suite fails when the committed one differs).
pub const PYTHON_NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/names.py"));
/// The TypeScript client's `src/names.ts`, likewise.
pub const TYPESCRIPT_NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/names.ts"));
/// The Go client's `names/names.go`, likewise.
pub const GO_NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/names.go"));

/// The encoded `FileDescriptorSet` of every Flotilla proto and its imports.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/flotilla_descriptor.bin"));
