//! Compiles `proto/xla_data.proto` in-process (protox, no system `protoc`)
//! into prost types, and keeps the descriptor set for text format, JSON and
//! downstream crates (`schema::FILE_DESCRIPTOR_SET`).
//!
//! `proto/xla_data.proto` in this crate is a symlink to the workspace's
//! `proto/xla_data.proto`, the one source of truth; in the packaged crate it
//! is the file itself.

use std::collections::{BTreeMap, BTreeSet};

use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};
use protox::prost::Message as _;

/// The messages written by hand (src/maps.rs), with whether they derive
/// `Eq` and `Hash` there.
const HAND_WRITTEN: [(&str, bool); 3] = [
    (".xla.FrontendAttributes", true),
    (".xla.GemmPerfTableEntry", true),
    (".xla.GemmPerfTable", false),
];

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
    let mut config = prost_build::Config::new();
    config.enable_type_names();
    // The messages with a map field are written by hand (src/maps.rs):
    // prost's derived code leaves default keys and values out of map
    // entries, XLA writes them.
    for (name, _) in HAND_WRITTEN {
        config.extern_path(name, format!("crate::{}", &name[5..]));
    }
    // Messages with no float anywhere inside are values: `Eq` and `Hash`
    // (a `Shape` or a `(Shape, Shape)` keys a map).
    for path in eq_hash_paths(&fds) {
        config.type_attribute(path, EQ_HASH);
    }
    std::fs::write(out.join("serde_impls.rs"), serde_impls(&fds))?;
    config.compile_fds(fds)?;
    drop_repeated_derives(&out.join("xla.rs"))
}

/// The invocations of `src/serde_impls.rs`'s macros: every message of the
/// schema by its Rust path, and every enum by its Rust path and full name.
fn serde_impls(fds: &FileDescriptorSet) -> String {
    let mut messages = Vec::new();
    let mut enums = Vec::new();
    for file in &fds.file {
        let package = file.package();
        for message in &file.message_type {
            rust_paths(package, "", message, &mut messages, &mut enums);
        }
        for item in &file.enum_type {
            enums.push((
                item.name().to_string(),
                format!("{package}.{}", item.name()),
            ));
        }
    }
    let messages: String = messages
        .iter()
        .map(|path| format!("    crate::{path},\n"))
        .collect();
    let enums: String = enums
        .iter()
        .map(|(path, name)| format!("    crate::{path} = \"{name}\",\n"))
        .collect();
    format!("serde_messages! {{\n{messages}}}\nserde_enums! {{\n{enums}}}\n")
}

/// Adds `message` and the messages and enums nested in it, as prost names
/// them (`op_metadata::ProfileInfo`), to `messages` and `enums`; `module` is
/// the Rust module path of its scope (`""` or ending in `::`).
fn rust_paths(
    scope: &str,
    module: &str,
    message: &DescriptorProto,
    messages: &mut Vec<String>,
    enums: &mut Vec<(String, String)>,
) {
    if message.options.as_ref().is_some_and(|o| o.map_entry()) {
        return;
    }
    let name = format!("{scope}.{}", message.name());
    messages.push(format!("{module}{}", message.name()));
    let inner = format!("{module}{}::", snake_case(message.name()));
    for nested in &message.nested_type {
        rust_paths(&name, &inner, nested, messages, enums);
    }
    for item in &message.enum_type {
        enums.push((
            format!("{inner}{}", item.name()),
            format!("{name}.{}", item.name()),
        ));
    }
}

/// `OpMetadata` as prost names the module of its nested types: `op_metadata`.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

/// The attribute the build script adds to the messages that are values.
const EQ_HASH: &str = "#[derive(Eq, Hash)]";

/// prost-build gives a type attribute to the message's nested messages too:
/// where prost derives `Eq` and `Hash` itself for one of them, the added
/// derive would conflict and is dropped.
fn drop_repeated_derives(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let code = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = code.lines().collect();
    let mut kept = String::with_capacity(code.len());
    for (index, line) in lines.iter().enumerate() {
        let repeated = line.trim() == EQ_HASH
            && lines
                .get(index + 1)
                .is_some_and(|next| next.contains("Eq, Hash,"));
        if !repeated {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    std::fs::write(path, kept)?;
    Ok(())
}

/// One message of the schema, as far as deriving `Eq` and `Hash` goes.
struct Node {
    /// The messages its fields hold, each with whether the field is repeated.
    holds: Vec<(String, bool)>,
    /// Whether a field is a `float` or a `double`.
    float: bool,
    /// Each oneof's path, with the indexes of its fields in `fields`.
    oneofs: Vec<(String, Vec<usize>)>,
    /// Each field: `None` for a scalar other than a float, the message type
    /// and whether it is repeated for a message, `Some(("", _))` for a float.
    fields: Vec<Option<(String, bool)>>,
}

/// The prost paths (messages and their oneofs) that get `#[derive(Eq, Hash)]`:
/// every generated message none of whose fields, at any depth, is a `float`
/// or a `double` (nor a hand-written message without `Eq`), and for which
/// prost does not derive them itself (it leaves out recursive messages and
/// those with a repeated message field).
fn eq_hash_paths(fds: &FileDescriptorSet) -> Vec<String> {
    let mut nodes = BTreeMap::new();
    for file in &fds.file {
        let package = format!(".{}", file.package());
        for message in &file.message_type {
            collect(&package, message, &mut nodes);
        }
    }
    let mut not_eq: BTreeSet<String> = nodes
        .iter()
        .filter(|(_, node)| node.float)
        .map(|(name, _)| name.clone())
        .collect();
    not_eq.extend(
        HAND_WRITTEN
            .iter()
            .filter(|(_, eq)| !eq)
            .map(|(name, _)| (*name).to_string()),
    );
    // Grows to a fixed point: at most one pass per message.
    loop {
        let before = not_eq.len();
        for (name, node) in &nodes {
            if node.holds.iter().any(|(held, _)| not_eq.contains(held)) {
                not_eq.insert(name.clone());
            }
        }
        if not_eq.len() == before {
            break;
        }
    }
    let mut paths = Vec::new();
    for (name, node) in &nodes {
        if not_eq.contains(name) || HAND_WRITTEN.iter().any(|(hand, _)| hand == name) {
            continue;
        }
        if !prost_derives_message(&nodes, name, 0) {
            paths.push(name.clone());
        }
        for (oneof, fields) in &node.oneofs {
            let derived = fields
                .iter()
                .all(|&field| prost_derives_field(&nodes, name, &node.fields[field], 0));
            if !derived {
                paths.push(oneof.clone());
            }
        }
    }
    paths
}

/// Whether prost derives `Eq` and `Hash` for the message itself (prost-build's
/// rule: every field a non-float scalar, or a message held once, not
/// reaching back to this one, and derived itself).
fn prost_derives_message(nodes: &BTreeMap<String, Node>, name: &str, depth: usize) -> bool {
    nodes.get(name).is_some_and(|node| {
        node.fields
            .iter()
            .all(|field| prost_derives_field(nodes, name, field, depth))
    })
}

/// Whether prost derives `Eq` and `Hash` through one field of `message`.
fn prost_derives_field(
    nodes: &BTreeMap<String, Node>,
    message: &str,
    field: &Option<(String, bool)>,
    depth: usize,
) -> bool {
    match field {
        None => true,
        Some((held, _)) if held.is_empty() => false,
        Some((_, true)) => false,
        Some((held, false)) => {
            depth < nodes.len()
                && !reaches(nodes, held, message)
                && prost_derives_message(nodes, held, depth + 1)
        }
    }
}

/// Whether `to` is reachable from `from` through fields holding one message
/// (not repeated): prost's test for a recursive message.
fn reaches(nodes: &BTreeMap<String, Node>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(name) = stack.pop() {
        if name == to {
            return true;
        }
        if !seen.insert(name) {
            continue;
        }
        if let Some(node) = nodes.get(name) {
            stack.extend(
                node.holds
                    .iter()
                    .filter(|(_, repeated)| !repeated)
                    .map(|(held, _)| held.as_str()),
            );
        }
    }
    false
}

/// Adds `message` (full name under `scope`) and its nested messages to `nodes`.
fn collect(scope: &str, message: &DescriptorProto, nodes: &mut BTreeMap<String, Node>) {
    let name = format!("{scope}.{}", message.name());
    let mut node = Node {
        holds: Vec::new(),
        float: false,
        oneofs: message
            .oneof_decl
            .iter()
            .map(|oneof| (format!("{name}.{}", oneof.name()), Vec::new()))
            .collect(),
        fields: Vec::new(),
    };
    for (index, field) in message.field.iter().enumerate() {
        let repeated = field.label() == Label::Repeated;
        let kind = match field.r#type() {
            Type::Float | Type::Double => {
                node.float = true;
                Some((String::new(), repeated))
            }
            Type::Message | Type::Group => {
                node.holds.push((field.type_name().to_string(), repeated));
                Some((field.type_name().to_string(), repeated))
            }
            _ => None,
        };
        node.fields.push(kind);
        let oneof = field.oneof_index.and_then(|i| usize::try_from(i).ok());
        if let Some((_, fields)) = oneof.and_then(|i| node.oneofs.get_mut(i)) {
            fields.push(index);
        }
    }
    for nested in &message.nested_type {
        collect(&name, nested, nodes);
    }
    nodes.insert(name, node);
}
