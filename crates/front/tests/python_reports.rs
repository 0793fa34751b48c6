//! The Python package's report classes (`python/xla_shape/_reports.py`)
//! against the Rust reports they wrap: every field the Rust report
//! serializes (read from real reports, of XLA's golden modules and dumps)
//! is declared by the Python class, and every nested entry by the class
//! its `_entries` names, so that a field added in Rust cannot be missing
//! in Python.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A Python report class: its declared fields, the classes of the
/// fields whose values are records of their own, and its base class.
#[derive(Debug, Default)]
struct PyClass {
    fields: BTreeSet<String>,
    entries: BTreeMap<String, String>,
    base: Option<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The classes of `_reports.py`, read from its text: the annotated
/// attributes of each class body (`    name: Type`, a trailing `_` of a
/// Python keyword dropped, as the key has none) and its `_entries` map,
/// with those its base classes declare (a class overriding an entry keeps
/// its own).
fn python_classes() -> BTreeMap<String, PyClass> {
    let mut classes = declared_classes();
    let names: Vec<String> = classes.keys().cloned().collect();
    for name in names {
        let mut base = classes[&name].base.clone();
        // A chain of bases, bounded by the number of classes.
        for _ in 0..classes.len() {
            let Some(parent) = base.and_then(|b| classes.get(&b)) else {
                break;
            };
            let (fields, entries) = (parent.fields.clone(), parent.entries.clone());
            base = parent.base.clone();
            let class = classes.get_mut(&name).unwrap();
            class.fields.extend(fields);
            for (key, value) in entries {
                class.entries.entry(key).or_insert(value);
            }
        }
    }
    classes
}

/// The classes of `_reports.py` as each class body declares them.
fn declared_classes() -> BTreeMap<String, PyClass> {
    let text = std::fs::read_to_string(root().join("python/xla_shape/_reports.py")).unwrap();
    let mut classes: BTreeMap<String, PyClass> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut in_entries = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            let name = rest.split(['(', ':']).next().unwrap().to_owned();
            let base = rest
                .split_once('(')
                .and_then(|(_, b)| b.split_once(')'))
                .map(|(b, _)| b.trim().to_owned());
            classes.entry(name.clone()).or_default().base = base;
            current = Some(name);
            continue;
        }
        if !line.starts_with(' ') && !line.is_empty() {
            current = None;
        }
        let Some(class) = current.as_ref().and_then(|c| classes.get_mut(c)) else {
            continue;
        };
        if line.starts_with("    _entries = {") || in_entries {
            for pair in line.split(',') {
                let Some((key, value)) = pair.split_once(':') else {
                    continue;
                };
                let key = key.trim().trim_start_matches("_entries = {").trim();
                let value = value.trim().trim_end_matches('}').trim();
                if let Some(key) = key.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
                    class.entries.insert(key.to_owned(), value.to_owned());
                }
            }
            in_entries = !line.trim_end().ends_with('}');
            continue;
        }
        let Some(body) = line.strip_prefix("    ") else {
            continue;
        };
        let Some((name, kind)) = body.split_once(": ") else {
            continue;
        };
        let is_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        let is_type = kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "[], .".contains(c));
        if is_name && is_type && !name.starts_with('_') {
            let name = name.strip_suffix('_').unwrap_or(name);
            class.fields.insert(name.to_owned());
        }
    }
    classes
}

/// Checks that every key of `value` (a Rust report serialized) is a field
/// of the Python class `class`, recursing into its entries; `path` names
/// where, for the message. Returns how many objects were checked.
fn check(classes: &BTreeMap<String, PyClass>, class: &str, value: &Value, path: &str) -> usize {
    let py = classes
        .get(class)
        .unwrap_or_else(|| panic!("{path}: no class {class} in _reports.py"));
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| check(classes, class, item, &format!("{path}[{i}]")))
            .sum(),
        Value::Object(object) => {
            let mut checked = 1;
            for (key, field) in object {
                assert!(
                    py.fields.contains(key),
                    "{path}: the Rust report has the field {key:?}, which the Python class {class} \
                     does not declare (it declares {:?})",
                    py.fields
                );
                if let Some(entry) = py.entries.get(key) {
                    checked += check(classes, entry, field, &format!("{path}.{key}"));
                }
            }
            checked
        }
        Value::Null => 0,
        other => panic!("{path}: {other} is no record of {class}"),
    }
}

fn json(report: &impl serde::Serialize) -> Value {
    serde_json::to_value(report).unwrap()
}

fn golden(path: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/golden").join(path)).unwrap()
}

#[test]
fn the_python_classes_declare_every_field_of_the_rust_reports() {
    let classes = python_classes();
    assert!(
        classes["PeakReport"].fields.contains("peak_bytes"),
        "{classes:?}"
    );
    assert_eq!(classes["ReshardPlan"].entries["pieces"], "Piece");
    let shape = |text: &str| -> schema::Shape { text.parse().unwrap() };
    let mut checked = 0;
    let mut report = |class: &str, value: Value, what: &str| {
        let n = check(&classes, class, &value, what);
        assert!(n > 0, "{what}: nothing checked");
        checked += n;
    };

    report(
        "Explanation",
        json(&xla_shape_front::explain(&shape("bf16[3,200]{1,0:T(8,128)(2,1)}")).unwrap()),
        "explain",
    );
    report(
        "View",
        json(&xla_shape_front::view("[3,4]", &["[0:3:2, 1:4:2]".to_owned()]).unwrap()),
        "view",
    );
    let shard = xla_shape_front::shard(&shape("f32[5,8]"), "{devices=[4,1]<=[4]}", None).unwrap();
    report("ShardReport", json(&shard), "shard");
    let plan = xla_shape_front::reshard(
        &shape("f32[8,8]"),
        "{devices=[2,1]<=[2]}",
        "{devices=[1,2]<=[2]}",
        None,
    )
    .unwrap();
    report("ReshardPlan", json(&plan), "reshard");

    for module in ["hlo/sharded_tiled.txt", "hlo/donated.txt", "hlo/cond.pb"] {
        let memory = xla_shape_front::hlo_memory(&golden(module)).unwrap();
        report("MemoryReport", json(&memory), module);
    }
    let unknown = "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT x = f32[8]{0} frobnicate(p)\n}\n";
    let memory = xla_shape_front::hlo_memory(unknown.as_bytes()).unwrap();
    assert!(!memory.module.warnings.is_empty());
    report(
        "MemoryReport",
        json(&memory),
        "a module with an unknown opcode",
    );

    let dump = golden("peak_memory/attention/after_optimizations.hlo.pb");
    let from_dump = hlo_util::MemoryDump::Proto(&dump).peak().unwrap();
    report("PeakReport", json(&from_dump), "the attention dump");
    for module in ["peak_memory/attention/compiled.txt", "hlo/donated.txt"] {
        let memory = xla_shape_front::module_peak_memory(&golden(module)).unwrap();
        report("PeakReport", json(&memory), module);
        let diff = hlo_util::PeakDiff::new(&memory.peak, &from_dump);
        report("PeakDiff", json(&diff), "a diff");
    }
    let memory = xla_shape_front::module_peak_memory(unknown.as_bytes()).unwrap();
    report(
        "PeakReport",
        json(&memory),
        "a module with an unknown opcode",
    );

    let lowered = std::fs::read_to_string(root().join("tests/golden/shardy/mlp.mlir")).unwrap();
    let module = sharding_util::sdy::LoweredModule::parse(&lowered).unwrap();
    let lowered = sharding_util::sdy::LoweredReport::new(&module).unwrap();
    report("LoweredShardings", json(&lowered), "shardy/mlp.mlir");

    assert!(checked > 40, "only {checked} objects checked");
}
