//! Compiles XLA's `hlo.proto` (and `metrics.proto`, which it imports) into
//! prost types from their descriptors as compiled into jaxlib 0.12.0.1
//! (`proto/*.binpb`, extracted by `build-tools/extract_descriptor.py`;
//! `xla_data.binpb` is read only to know the types `hlo.proto` uses).
//! Every `xla_data.proto` type they name is the `schema` crate's
//! (`extern_path`), under our names for XLA's `ShapeProto`, `LayoutProto`,
//! `TileProto`, `SplitConfigProto` and `ProgramShapeProto`; the
//! `google.protobuf` types are `prost_types`' (prost-build's default).

use prost::Message as _;
use prost_types::{FileDescriptorProto, FileDescriptorSet};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    // prost-build sees every message the generated ones use (to choose
    // their derives), and generates none of the extern ones: the
    // google.protobuf files (from protox) and XLA's xla_data.proto.
    let mut files = protox::compile(
        [
            "google/protobuf/any.proto",
            "google/protobuf/duration.proto",
            "google/protobuf/timestamp.proto",
        ],
        [] as [&str; 0],
    )?
    .file;
    for name in ["xla_data.binpb", "metrics.binpb", "hlo.binpb"] {
        let path = manifest.join("proto").join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        files.push(FileDescriptorProto::decode(
            std::fs::read(&path)?.as_slice(),
        )?);
    }
    let mut config = prost_build::Config::new();
    // Our names for xla_data.proto's types, and XLA's where they differ.
    let ours = FileDescriptorSet::decode(schema::FILE_DESCRIPTOR_SET)?;
    for file in ours.file.iter().filter(|f| f.package() == "xla") {
        let names = file
            .message_type
            .iter()
            .map(|m| m.name())
            .chain(file.enum_type.iter().map(|e| e.name()));
        for name in names {
            let qualified = format!("xla.{name}");
            let xla = schema::CLASSIC_NAMES
                .iter()
                .find(|(our, _)| *our == qualified)
                .map_or(qualified.as_str(), |(_, theirs)| theirs);
            config.extern_path(format!(".{xla}"), format!("::schema::{name}"));
        }
    }
    config.compile_fds(FileDescriptorSet { file: files })?;
    Ok(())
}
