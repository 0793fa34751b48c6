//! HLO modules against real XLA (`tests/golden/hlo/`, written by
//! `build-tools/gen_hlo_memory.py`): the entry parameter and output bytes of
//! every module XLA compiled equal its `CompiledMemoryStats`, and every
//! buffer of the hand-written tiled modules has the size XLA allocates.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::io::BufReader;

use conformance::{Row, load};
use hlo_util::{EntryBytes, ModuleSummary, read_module, read_proto, read_text};
use serde_json::Value;

/// Reads `tests/golden/hlo/<name>.txt`, with each instruction's shape and
/// allocated bytes.
fn read(name: &str) -> (ModuleSummary, Vec<(String, i64)>) {
    let path = conformance::golden_dir()
        .join("hlo")
        .join(format!("{name}.txt"));
    let file = File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut buffers = Vec::new();
    let summary = read_text(BufReader::new(file), |i| {
        buffers.push((i.shape.to_string(), i.sizes.allocated_bytes));
    })
    .unwrap_or_else(|e| panic!("{name}.txt: {e}"));
    (summary, buffers)
}

/// Reads `tests/golden/hlo/<name>.pb`, with each instruction's computation,
/// name, shape and sizes.
fn read_pb(name: &str) -> (ModuleSummary, Vec<String>) {
    let path = conformance::golden_dir()
        .join("hlo")
        .join(format!("{name}.pb"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut seen = Vec::new();
    let summary =
        read_proto(&bytes, |i| seen.push(describe(i))).unwrap_or_else(|e| panic!("{name}.pb: {e}"));
    // The same through the reader that tells the forms apart.
    let again = read_module(bytes.as_slice(), |_| {}).unwrap();
    assert_eq!(again, summary);
    (summary, seen)
}

fn describe(i: &hlo_util::Instruction<'_>) -> String {
    format!(
        "{}/{} {} {} {} {} root={}",
        i.computation, i.name, i.opcode, i.shape, i.sizes.bytes, i.sizes.allocated_bytes, i.is_root
    )
}

fn number(row: &Row, key: &str) -> i64 {
    row.get(key)
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("no {key} in {row:?}"))
}

/// XLA's argument and output bytes of the module of `row`; where
/// `summary`'s logical totals (XLA's CPU backend counts arrays by their
/// logical bytes, tiled or not) are others, a failure naming `what`.
fn xla_totals(
    row: &Row,
    summary: &ModuleSummary,
    what: &str,
    failures: &mut Vec<String>,
) -> (i64, i64) {
    let xla = (
        number(row, "argument_size_in_bytes"),
        number(row, "output_size_in_bytes"),
    );
    let logical = (
        summary.parameter_bytes.logical,
        summary.output_bytes.logical,
    );
    if logical != xla {
        failures.push(format!("{what}: ours {logical:?}, XLA {xla:?}"));
    }
    xla
}

#[test]
fn parameter_and_output_bytes_are_xlas_on_every_compiled_module() {
    let rows = load("hlo/memory.jsonl").unwrap();
    assert!(rows.len() >= 30, "{} modules", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let name = conformance::required(row, "module").unwrap();
        let (summary, _) = read(name);
        let xla = xla_totals(row, &summary, name, &mut failures);
        // Without tiles the allocated bytes are the logical ones.
        let tiled = name == "tiled_cpu";
        let allocated = (
            summary.parameter_bytes.allocated,
            summary.output_bytes.allocated,
        );
        if tiled != (allocated != xla) {
            failures.push(format!("{name}: allocated {allocated:?}, XLA {xla:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn serialized_modules_give_xlas_totals_and_the_texts_instructions() {
    let rows = load("hlo/memory.jsonl").unwrap();
    let mut failures = Vec::new();
    for row in &rows {
        let name = conformance::required(row, "module").unwrap();
        let (summary, mut seen) = read_pb(name);
        xla_totals(row, &summary, &format!("{name}.pb"), &mut failures);
        let path = conformance::golden_dir()
            .join("hlo")
            .join(format!("{name}.txt"));
        let mut from_text = Vec::new();
        let text = read_text(BufReader::new(File::open(&path).unwrap()), |i| {
            from_text.push(describe(i))
        })
        .unwrap();
        seen.sort();
        from_text.sort();
        if seen != from_text {
            failures.push(format!("{name}: the .pb and .txt instructions differ"));
        }
        if (
            text.computations,
            text.instructions,
            &text.entry_computation,
        ) != (
            summary.computations,
            summary.instructions,
            &summary.entry_computation,
        ) {
            failures.push(format!("{name}: the .pb and .txt modules differ"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_tiled_bf16_parameter_allocates_8192_bytes_where_xla_cpu_reports_4000() {
    let (summary, _) = read("tiled_cpu");
    let bytes = EntryBytes {
        logical: 4000,
        allocated: 8192,
    };
    assert_eq!(
        (summary.parameter_bytes, summary.output_bytes),
        (bytes, bytes)
    );
}

#[test]
fn tuple_tables_count_8_bytes_per_element() {
    // (f32[8], f32[8]) as one tupled parameter: 16 + 32 + 32.
    let (summary, _) = read("tupled");
    assert_eq!(summary.parameter_bytes.logical, 80);
    assert_eq!(summary.entry_parameters.len(), 1);
    // Seven f32[3] outputs: a table of 7 pointers and 7 * 12 bytes.
    assert_eq!(read("seven_outputs").0.output_bytes.logical, 56 + 84);
}

#[test]
fn every_buffer_of_the_tiled_modules_has_the_size_xla_allocates() {
    let rows = load("hlo/tiled.jsonl").unwrap();
    assert!(!rows.is_empty());
    for row in &rows {
        let name = conformance::required(row, "module").unwrap();
        let sizes = row.get("sizes").and_then(Value::as_object).unwrap();
        let (_, buffers) = read(name);
        let mut checked = 0;
        for (shape, allocated) in &buffers {
            // XLA placed the arrays without their memory space.
            let key = shape.replace("S(1)", "");
            if let Some(expected) = sizes.get(&key).and_then(Value::as_i64) {
                assert_eq!(*allocated, expected, "{name}: {shape}");
                checked += 1;
            }
        }
        assert!(checked > sizes.len(), "{name}: {checked} buffers checked");
    }
}

/// Reads `tests/golden/hlo/<name>.<ext>` (text or serialized) with the
/// per-device shape of every instruction (`-` where there is none), and
/// the per-device shapes of the entry parameters and `ROOT`, printed as
/// XLA prints an `entry_computation_layout`.
fn per_device(name: &str, ext: &str) -> (ModuleSummary, Vec<(String, String)>, String) {
    let path = conformance::golden_dir()
        .join("hlo")
        .join(format!("{name}.{ext}"));
    let file = File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut seen = Vec::new();
    let mut parameters = Vec::new();
    let mut root = String::new();
    let summary = read_module(BufReader::new(file), |i| {
        let shape = i
            .per_device
            .as_ref()
            .map_or_else(|| "-".to_owned(), |d| d.shape.to_string());
        if i.is_entry && i.opcode == "parameter" {
            parameters.push(shape.clone());
        }
        if i.is_entry && i.is_root {
            root.clone_from(&shape);
        }
        seen.push((i.name.to_owned(), shape));
    })
    .unwrap_or_else(|e| panic!("{name}.{ext}: {e}"));
    let layout = format!("({})->{root}", parameters.join(", "));
    (summary, seen, layout)
}

#[test]
fn per_device_bytes_are_what_xla_reports_for_the_module_partitioned() {
    let rows = load("hlo/sharded.jsonl").unwrap();
    assert!(rows.len() >= 4, "{} modules", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let name = conformance::required(row, "module").unwrap();
        let xla = (
            number(row, "argument_size_in_bytes"),
            number(row, "output_size_in_bytes"),
        );
        let xla_layout = conformance::required(row, "entry_computation_layout").unwrap();
        let mut instructions = Vec::new();
        for ext in ["txt", "pb"] {
            let (summary, seen, layout) = per_device(name, ext);
            let ours = (
                summary.per_device_parameter_bytes.map(|b| b.logical),
                summary.per_device_output_bytes.map(|b| b.logical),
            );
            if ours != (Some(xla.0), Some(xla.1)) {
                failures.push(format!("{name}.{ext}: ours {ours:?}, XLA {xla:?}"));
            }
            if layout != xla_layout {
                failures.push(format!("{name}.{ext}: ours {layout}, XLA {xla_layout}"));
            }
            instructions.push(seen);
        }
        // Both forms give every instruction the same per-device shape.
        instructions[1].sort();
        instructions[0].sort();
        if instructions[0] != instructions[1] {
            failures.push(format!("{name}: the .txt and .pb per-device shapes differ"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn uneven_shards_round_up_and_instructions_without_sharding_have_none() {
    let (_, seen, _) = per_device("sharded_tiled", "txt");
    let shape_of = |name: &str| {
        seen.iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_str())
            .unwrap()
    };
    // f32[7,9] over a 2x4 grid: rows 4+3, columns 3+3+3+0.
    assert_eq!(shape_of("sharding_constraint.1"), "f32[4,3]{1,0}");
    assert_eq!(shape_of("b.1"), "f32[16]{0}");
    assert_eq!(shape_of("slice.1"), "-");
    let (_, seen, _) = per_device("sharded_rows", "txt");
    let odd = seen.iter().find(|(n, _)| n == "sharding_constraint.1");
    assert_eq!(odd.unwrap().1, "f32[2,24]{1,0}");
}

#[test]
fn modules_without_shardings_have_no_per_device_bytes() {
    let (summary, seen, _) = per_device("pair", "txt");
    assert_eq!(summary.per_device_parameter_bytes, None);
    assert_eq!(summary.per_device_output_bytes, None);
    assert!(seen.iter().all(|(_, s)| s == "-"));
}

#[test]
fn a_sharding_sharding_util_does_not_read_leaves_the_module_read() {
    // A named (mesh) sharding is read through its tile assignment; an iota
    // whose transpose is no permutation (XLA aborts on it) is not.
    let text = "HloModule m
ENTRY %e (p: f32[8], q: f32[8], r: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0), sharding={mesh['x'=2,'y'=2], [{'x'}]}
  %q = f32[8]{0} parameter(1), sharding={devices=[2,4]<=[4,2]T(0,0)}
  %r = f32[8]{0} parameter(2), sharding={devices=[4]<=[4]}
  ROOT %s = f32[8]{0} add(%p, %q), sharding={devices=[2,2]<=[4]}
}
";
    let mut seen = Vec::new();
    let summary = read_text(text.as_bytes(), |i| {
        seen.push(i.per_device.as_ref().map(|d| d.shape.to_string()));
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            Some("f32[4]{0}".to_owned()),
            None,
            Some("f32[2]{0}".to_owned()),
            None
        ]
    );
    assert_eq!(summary.parameter_bytes.logical, 96);
    assert_eq!(summary.per_device_parameter_bytes, None);
    // A tile grid of the wrong rank does not say either.
    assert_eq!(summary.per_device_output_bytes, None);
    let ok = text
        .replace("devices=[2,4]<=[4,2]T(0,0)", "replicated")
        .replace("[2,2]<=[4]", "[4]<=[4]");
    let summary = read_text(ok.as_bytes(), |_| {}).unwrap();
    assert_eq!(
        summary.per_device_parameter_bytes,
        Some(EntryBytes {
            logical: 16 + 32 + 8,
            allocated: 16 + 32 + 8
        })
    );
    assert_eq!(summary.per_device_output_bytes.map(|b| b.logical), Some(8));
}
