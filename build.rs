//! Compiles `proto/` with protox (a pure-Rust protobuf compiler, so building Flotilla
//! needs no system `protoc`), generates prost messages and tonic services, and writes
//! the encoded descriptor set that the server's reflection service serves.

use std::path::PathBuf;

#[path = "src/case.rs"]
mod case;
#[path = "src/kinds/derive.rs"]
mod kinds;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "flotilla/v1/common.proto",
        "flotilla/v1/lifecycle.proto",
        "flotilla/v1/status.proto",
        "flotilla/v1/action.proto",
        "flotilla/v1/container_cluster.proto",
        "flotilla/v1/agent.proto",
        "flotilla/v1/simulator.proto",
        "flotilla/v1/access.proto",
        "google/rpc/status.proto",
        "google/rpc/code.proto",
        "google/rpc/error_details.proto",
    ];
    println!("cargo:rerun-if-changed=proto");
    let mut compiler = protox::Compiler::new(["proto"])?;
    compiler
        .include_imports(true)
        .include_source_info(true)
        .open_files(files)?;
    let descriptors = compiler.file_descriptor_set();

    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    // Encoded with the extension options (the resource declarations), which
    // `file_descriptor_set()` leaves out: reflection clients read them too.
    std::fs::write(
        out_dir.join("flotilla_descriptor.bin"),
        compiler.encode_file_descriptor_set(),
    )?;
    let kinds = kinds::declared(&compiler.descriptor_pool())?;
    std::fs::write(out_dir.join("kinds.rs"), kinds::statics(&kinds))?;
    std::fs::write(out_dir.join("names.rs"), kinds::rust_names(&kinds))?;
    std::fs::write(out_dir.join("names.py"), kinds::python_names(&kinds))?;
    std::fs::write(out_dir.join("names.ts"), kinds::typescript_names(&kinds))?;
    std::fs::write(out_dir.join("names.go"), kinds::go_names(&kinds))?;

    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        // `AgentService.Connect` would clash with the generated `connect` constructor;
        // clients build a `Channel` themselves (see flotilla-client).
        .build_transport(false)
        .generate_default_stubs(true)
        // BTreeMap for every map field: deterministic encoding (request hashes of
        // idempotency keys) and sorted labels in responses.
        .btree_map(".")
        .compile_fds(descriptors)?;
    Ok(())
}
