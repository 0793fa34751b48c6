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

#[test]
fn parameter_and_output_bytes_are_xlas_on_every_compiled_module() {
    let rows = load("hlo/memory.jsonl").unwrap();
    assert!(rows.len() >= 30, "{} modules", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let name = conformance::required(row, "module").unwrap();
        let (summary, _) = read(name);
        let xla = (
            number(row, "argument_size_in_bytes"),
            number(row, "output_size_in_bytes"),
        );
        // XLA's CPU backend counts arrays by their logical bytes, tiled or not.
        let logical = (
            summary.parameter_bytes.logical,
            summary.output_bytes.logical,
        );
        if logical != xla {
            failures.push(format!("{name}: ours {logical:?}, XLA {xla:?}"));
        }
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
        let xla = (
            number(row, "argument_size_in_bytes"),
            number(row, "output_size_in_bytes"),
        );
        let logical = (
            summary.parameter_bytes.logical,
            summary.output_bytes.logical,
        );
        if logical != xla {
            failures.push(format!("{name}.pb: ours {logical:?}, XLA {xla:?}"));
        }
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
