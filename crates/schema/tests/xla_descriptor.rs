//! The compiled schema against XLA's own `xla_data.proto`: the
//! `FileDescriptorProto` compiled into jaxlib, extracted from its shared
//! library by `build-tools/extract_descriptor.py` into
//! `tests/golden/descriptors/xla_data.binpb`. Every message, enum, field,
//! oneof, reserved number and enum value must be the same, apart from the
//! documented differences in [`CLASSIC_NAMES`], [`OURS_ONLY`] and the classic
//! padded layout's fields 2 and 3 of `Layout`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use prost::Message;
use prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto,
    FileDescriptorSet,
};

/// Our classic names and XLA's names of the same messages.
const CLASSIC_NAMES: [(&str, &str); 5] = [
    ("Shape", "ShapeProto"),
    ("Layout", "LayoutProto"),
    ("Tile", "TileProto"),
    ("SplitConfig", "SplitConfigProto"),
    ("ProgramShape", "ProgramShapeProto"),
];

/// Types of ours that XLA's file does not have.
const OURS_ONLY: [&str; 2] = ["xla.ShapeIndex", "xla.PaddingValue"];

/// The classic padded layout's fields of `Layout`, which XLA reserves (by
/// number and by name).
const CLASSIC_LAYOUT_FIELDS: [(i32, &str); 2] = [(2, "padded_dimensions"), (3, "padding_value")];

/// XLA's descriptor, as extracted from jaxlib.
fn xla() -> FileDescriptorProto {
    let path = conformance::golden_dir().join("descriptors/xla_data.binpb");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    FileDescriptorProto::decode(bytes.as_slice()).unwrap()
}

/// Our compiled descriptor (the one file of [`schema::FILE_DESCRIPTOR_SET`]).
fn ours() -> FileDescriptorProto {
    let set = FileDescriptorSet::decode(schema::FILE_DESCRIPTOR_SET).unwrap();
    assert_eq!(set.file.len(), 1, "the schema is one file");
    set.file.into_iter().next().unwrap()
}

/// XLA's name of our type `name` (a full name without the leading dot).
fn xla_name(name: &str) -> String {
    for (classic, current) in CLASSIC_NAMES {
        let classic = format!("xla.{classic}");
        if let Some(rest) = name.strip_prefix(&classic)
            && (rest.is_empty() || rest.starts_with('.'))
        {
            return format!("xla.{current}{rest}");
        }
    }
    name.to_string()
}

/// Every message and enum of a file by full name (no leading dot), nested
/// ones included.
#[derive(Default)]
struct Types<'a> {
    messages: BTreeMap<String, &'a DescriptorProto>,
    enums: BTreeMap<String, &'a EnumDescriptorProto>,
}

impl<'a> Types<'a> {
    fn of(file: &'a FileDescriptorProto, rename: fn(&str) -> String) -> Self {
        let mut types = Types::default();
        let prefix = file.package().to_string();
        for e in &file.enum_type {
            types
                .enums
                .insert(rename(&format!("{prefix}.{}", e.name())), e);
        }
        for m in &file.message_type {
            types.message(&prefix, m, rename);
        }
        types
    }

    fn message(&mut self, scope: &str, m: &'a DescriptorProto, rename: fn(&str) -> String) {
        let name = format!("{scope}.{}", m.name());
        for e in &m.enum_type {
            self.enums
                .insert(rename(&format!("{name}.{}", e.name())), e);
        }
        for nested in &m.nested_type {
            self.message(&name, nested, rename);
        }
        self.messages.insert(rename(&name), m);
    }
}

/// Every difference between our file and XLA's, apart from the documented
/// ones, as one line each.
fn differences(ours: &FileDescriptorProto, xla: &FileDescriptorProto) -> Vec<String> {
    let mut out = Vec::new();
    if ours.package() != xla.package() || ours.syntax() != xla.syntax() {
        out.push(format!(
            "package/syntax: ours {} {}, XLA's {} {}",
            ours.package(),
            ours.syntax(),
            xla.package(),
            xla.syntax()
        ));
    }
    let ours = Types::of(ours, xla_name);
    let xla = Types::of(xla, str::to_string);
    let xla_has = |n: &String| xla.messages.contains_key(n) || xla.enums.contains_key(n);
    let ours_has = |n: &String| ours.messages.contains_key(n) || ours.enums.contains_key(n);
    for name in ours.messages.keys().chain(ours.enums.keys()) {
        if !xla_has(name) && !OURS_ONLY.contains(&name.as_str()) {
            out.push(format!("{name}: only in ours"));
        }
    }
    for name in xla.messages.keys().chain(xla.enums.keys()) {
        if !ours_has(name) {
            out.push(format!("{name}: only in XLA's"));
        }
    }
    for (name, x) in &xla.messages {
        if let Some(o) = ours.messages.get(name) {
            message_differences(name, o, x, &mut out);
        }
    }
    for (name, x) in &xla.enums {
        if let Some(o) = ours.enums.get(name) {
            enum_differences(name, o, x, &mut out);
        }
    }
    out
}

/// What a field is, as compared: everything but `json_name` (XLA's embedded
/// descriptor leaves it out) and with our type names renamed to XLA's.
fn field_summary(m: &DescriptorProto, f: &FieldDescriptorProto) -> String {
    let oneof = f
        .oneof_index
        .and_then(|i| m.oneof_decl.get(usize::try_from(i).ok()?))
        .map(|o| o.name().to_string());
    let type_name = f
        .type_name
        .as_deref()
        .map(|t| format!(".{}", xla_name(t.trim_start_matches('.'))));
    format!(
        "{} = {} {:?} {:?} type_name={type_name:?} oneof={oneof:?} proto3_optional={:?} \
         default={:?} extendee={:?} options={:?}",
        f.name(),
        f.number(),
        f.label(),
        f.r#type(),
        f.proto3_optional,
        f.default_value,
        f.extendee,
        f.options
    )
}

fn message_differences(
    name: &str,
    ours: &DescriptorProto,
    xla: &DescriptorProto,
    out: &mut Vec<String>,
) {
    let is_layout = name == "xla.LayoutProto";
    let mut ours_fields: BTreeMap<i32, String> = ours
        .field
        .iter()
        .map(|f| (f.number(), field_summary(ours, f)))
        .collect();
    if is_layout {
        for (number, field) in CLASSIC_LAYOUT_FIELDS {
            let present = ours
                .field
                .iter()
                .any(|f| f.number() == number && f.name() == field);
            if !present {
                out.push(format!(
                    "{name}: the classic field {field} = {number} is missing"
                ));
            }
            ours_fields.remove(&number);
        }
    }
    let xla_fields: BTreeMap<i32, String> = xla
        .field
        .iter()
        .map(|f| (f.number(), field_summary(xla, f)))
        .collect();
    for number in ours_fields.keys().chain(xla_fields.keys()) {
        match (ours_fields.get(number), xla_fields.get(number)) {
            (Some(o), Some(x)) if o == x => {}
            (o, x) => out.push(format!("{name} field {number}: ours {o:?}, XLA's {x:?}")),
        }
    }
    let oneofs = |m: &DescriptorProto| -> Vec<String> {
        m.oneof_decl
            .iter()
            .map(|o| format!("{} {:?}", o.name(), o.options))
            .collect()
    };
    if oneofs(ours) != oneofs(xla) {
        out.push(format!(
            "{name} oneofs: ours {:?}, XLA's {:?}",
            oneofs(ours),
            oneofs(xla)
        ));
    }
    let mut xla_reserved: Vec<(i32, i32)> = xla
        .reserved_range
        .iter()
        .map(|r| (r.start(), r.end()))
        .collect();
    let mut xla_reserved_names = xla.reserved_name.clone();
    if is_layout {
        for (number, field) in CLASSIC_LAYOUT_FIELDS {
            xla_reserved.retain(|&r| r != (number, number + 1));
            xla_reserved_names.retain(|n| n != field);
        }
    }
    let mut ours_reserved: Vec<(i32, i32)> = ours
        .reserved_range
        .iter()
        .map(|r| (r.start(), r.end()))
        .collect();
    ours_reserved.sort_unstable();
    xla_reserved.sort_unstable();
    if ours_reserved != xla_reserved {
        out.push(format!(
            "{name} reserved numbers: ours {ours_reserved:?}, XLA's {xla_reserved:?}"
        ));
    }
    let mut ours_reserved_names = ours.reserved_name.clone();
    ours_reserved_names.sort_unstable();
    xla_reserved_names.sort_unstable();
    if ours_reserved_names != xla_reserved_names {
        out.push(format!(
            "{name} reserved names: ours {ours_reserved_names:?}, XLA's {xla_reserved_names:?}"
        ));
    }
    if ours.options != xla.options {
        out.push(format!(
            "{name} options: ours {:?}, XLA's {:?}",
            ours.options, xla.options
        ));
    }
    if !ours.extension.is_empty() || !xla.extension.is_empty() || !xla.extension_range.is_empty() {
        out.push(format!("{name}: extensions are not compared"));
    }
}

fn enum_differences(
    name: &str,
    ours: &EnumDescriptorProto,
    xla: &EnumDescriptorProto,
    out: &mut Vec<String>,
) {
    let values = |e: &EnumDescriptorProto| -> BTreeMap<i32, String> {
        e.value
            .iter()
            .map(|v| (v.number(), format!("{} {:?}", v.name(), v.options)))
            .collect()
    };
    let (o, x) = (values(ours), values(xla));
    for number in o.keys().chain(x.keys()) {
        if o.get(number) != x.get(number) {
            out.push(format!(
                "{name} value {number}: ours {:?}, XLA's {:?}",
                o.get(number),
                x.get(number)
            ));
        }
    }
    let reserved = |e: &EnumDescriptorProto| -> Vec<(i32, i32)> {
        e.reserved_range
            .iter()
            .map(|r| (r.start(), r.end()))
            .collect()
    };
    if reserved(ours) != reserved(xla) || ours.reserved_name != xla.reserved_name {
        out.push(format!("{name}: reserved values differ"));
    }
    if ours.options != xla.options {
        out.push(format!(
            "{name} options: ours {:?}, XLA's {:?}",
            ours.options, xla.options
        ));
    }
}

#[test]
fn the_schema_is_xlas_xla_data_proto_field_by_field() {
    let (ours, xla) = (ours(), xla());
    let diffs = differences(&ours, &xla);
    assert!(
        diffs.is_empty(),
        "{} difference(s) from XLA's xla_data.proto:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    let types = Types::of(&xla, str::to_string);
    let fields: usize = types.messages.values().map(|m| m.field.len()).sum();
    let values: usize = types.enums.values().map(|e| e.value.len()).sum();
    println!(
        "{} messages and {} enums of XLA's xla_data.proto ({fields} fields, {values} enum values) match",
        types.messages.len(),
        types.enums.len()
    );
    // The numbers of jaxlib 0.12.0.1's file, so a regenerated descriptor
    // that lost types is noticed.
    assert_eq!((types.messages.len(), types.enums.len()), (71, 20));
}

/// A change made to a copy of our descriptor.
type Mutation = fn(&mut FileDescriptorProto);

#[test]
fn the_comparison_sees_every_kind_of_difference() {
    let xla = xla();
    let mutations: [(&str, Mutation); 7] = [
        ("a field number", |f| {
            let window = f
                .message_type
                .iter_mut()
                .find(|m| m.name() == "Window")
                .unwrap();
            window.field[0].number = Some(2);
        }),
        ("a field name", |f| {
            let m = f
                .message_type
                .iter_mut()
                .find(|m| m.name() == "OpSharding")
                .unwrap();
            m.field[0].name = Some("kind".into());
        }),
        ("a field type", |f| {
            let m = f
                .message_type
                .iter_mut()
                .find(|m| m.name() == "LiteralProto")
                .unwrap();
            let s32s = m.field.iter_mut().find(|f| f.name() == "s32s").unwrap();
            s32s.r#type = Some(prost_types::field_descriptor_proto::Type::Sint32.into());
        }),
        ("a label", |f| {
            let m = f
                .message_type
                .iter_mut()
                .find(|m| m.name() == "Shape")
                .unwrap();
            let dims = m
                .field
                .iter_mut()
                .find(|f| f.name() == "dimensions")
                .unwrap();
            dims.label = Some(prost_types::field_descriptor_proto::Label::Optional.into());
        }),
        ("an enum value", |f| {
            let e = f
                .enum_type
                .iter_mut()
                .find(|e| e.name() == "PrimitiveType")
                .unwrap();
            e.value.pop();
        }),
        ("a nested type", |f| {
            let m = f
                .message_type
                .iter_mut()
                .find(|m| m.name() == "OpMetadata")
                .unwrap();
            m.nested_type.clear();
        }),
        ("a oneof", |f| {
            let m = f
                .message_type
                .iter_mut()
                .find(|m| m.name() == "Payload")
                .unwrap();
            m.field[1].oneof_index = None;
        }),
    ];
    for (what, mutate) in mutations {
        let mut changed = ours();
        mutate(&mut changed);
        assert!(
            !differences(&changed, &xla).is_empty(),
            "changing {what} went unnoticed"
        );
    }
}
