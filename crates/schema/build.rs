//! Compiles `proto/xla_data.proto` in-process (protox, no system `protoc`)
//! into prost types, and keeps the descriptor set for text format and JSON.

use protox::prost::Message as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_dir = manifest.join("../../proto");
    println!("cargo:rerun-if-changed={}", proto_dir.display());
    let fds = protox::compile(["xla_data.proto"], [&proto_dir])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("xla_data.fds.bin"), fds.encode_to_vec())?;
    prost_build::Config::new()
        .enable_type_names()
        .compile_fds(fds)?;
    Ok(())
}
