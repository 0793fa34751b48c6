//! Compiles `proto/xla_data.proto` in-process (protox, no system `protoc`)
//! into prost types, and keeps the descriptor set for text format, JSON and
//! downstream crates (`schema::FILE_DESCRIPTOR_SET`).
//!
//! `proto/xla_data.proto` in this crate is a symlink to the workspace's
//! `proto/xla_data.proto`, the one source of truth; in the packaged crate it
//! is the file itself.

use protox::prost::Message as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_dir = manifest.join("proto");
    println!(
        "cargo:rerun-if-changed={}",
        proto_dir.join("xla_data.proto").display()
    );
    let fds = protox::compile(["xla_data.proto"], [&proto_dir])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("xla_data.fds.bin"), fds.encode_to_vec())?;
    prost_build::Config::new()
        .enable_type_names()
        // Map fields encode in key order, so a message encodes to the same
        // bytes every time (a HashMap's order changes from run to run).
        .btree_map(["."])
        .compile_fds(fds)?;
    Ok(())
}
