//! Compiles `proto/shape_service.proto`, which imports `xla_data.proto`,
//! in-process with protox (no system `protoc`); the `xla` messages map to
//! the `schema` crate's types instead of being generated again.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/shape_service.proto");
    let fds = protox::compile(["shape_service.proto"], ["proto", schema::PROTO_DIR])?;
    tonic_prost_build::configure()
        .extern_path(".xla", "::schema")
        .bytes(".shape_service")
        // Messages that do not decode are bad input (INVALID_ARGUMENT).
        .codec_path("crate::codec::XlaCodec")
        .compile_fds(fds)?;
    Ok(())
}
