//! The origins of the memory report's rows: each instruction's `op_name`
//! and Python stack, from the module text's stack-frame tables and from a
//! serialized module's `stack_frame_index` alike (the golden modules of
//! `tests/golden/hlo/`, both forms written by jaxlib 0.12), shown in the
//! text report's `source` column; tables that do not read are warnings.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;

use conformance::golden_dir;
use hlo_util::{Frame, MemoryReport};
use serde_json::{Value, json};

/// Each row's op_name and stack, by computation and name.
fn origins(report: &MemoryReport) -> HashMap<(String, String), Value> {
    let json = serde_json::to_value(report).unwrap();
    json["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let key = (
                r["computation"].as_str().unwrap().to_owned(),
                r["name"].as_str().unwrap().to_owned(),
            );
            (key, json!([r["op_name"], r["stack"]]))
        })
        .collect()
}

#[test]
fn a_modules_text_and_its_serialized_form_give_each_row_one_origin() {
    let mut compared = 0;
    let mut with_stacks = 0;
    for entry in std::fs::read_dir(golden_dir().join("hlo")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // The sharded modules' text was written without metadata; a tiled
        // module has no serialized form.
        let serialized = path.with_extension("pb");
        if !text.contains("metadata=") || !serialized.exists() {
            continue;
        }
        let from_text = MemoryReport::read(text.as_bytes(), usize::MAX).unwrap();
        let bytes = std::fs::read(serialized).unwrap();
        let from_proto = MemoryReport::read(bytes.as_slice(), usize::MAX).unwrap();
        assert_eq!(
            origins(&from_text),
            origins(&from_proto),
            "{}",
            path.display()
        );
        assert!(from_text.module.warnings.is_empty(), "{}", path.display());
        with_stacks += from_text
            .instructions
            .iter()
            .filter(|r| !r.stack.is_empty())
            .count();
        compared += 1;
    }
    assert!(compared >= 30, "{compared} modules");
    assert!(with_stacks > 900, "{with_stacks} rows with a stack");
}

#[test]
fn the_dot_module_names_its_line_and_its_parameters_pytree_paths() {
    let dir = golden_dir().join("hlo");
    let bytes = std::fs::read(dir.join("dot.pb")).unwrap();
    let report = MemoryReport::read(bytes.as_slice(), usize::MAX).unwrap();
    let row = |name: &str| report.instructions.iter().find(|r| r.name == name).unwrap();
    let fusion = row("ynn_fusion");
    assert_eq!(fusion.op_name.as_deref(), Some("jit(<lambda>)/dot_general"));
    let frames = fusion.stack.to_vec();
    assert_eq!(frames.len(), 4);
    assert_eq!(
        frames[0],
        Frame {
            file: "gen_hlo_memory.py".to_owned(),
            line: 83,
            function: "programs.<locals>.<lambda>".to_owned(),
            end_line: Some(83),
            column: Some(29),
            end_column: Some(34),
        }
    );
    assert_eq!(frames[3].function, "<module>");
    assert_eq!(fusion.source().as_deref(), Some("gen_hlo_memory.py:83"));
    assert_eq!(row("a.1").op_name.as_deref(), Some("a"));
    assert!(row("a.1").stack.is_empty());
    assert_eq!(
        (row("param_0").op_name.as_ref(), row("param_0").source()),
        (None, None)
    );
    let text = report.to_string();
    assert!(
        text.contains(
            "\n     4096   4096        0  1.00x  -      main.1             ynn_fusion     fusion     f32[64,16]{1,0}  gen_hlo_memory.py:83\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  a.1            parameter  f32[64,32]{1,0}  -\n"),
        "{text}"
    );
}

const TABLES: &str = "HloModule m

FileNames
1 \"a.py\"

FunctionNames
1 \"f\"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

ENTRY %e (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0), metadata={op_name=\"x\"}
  ROOT %n = f32[4]{0} negate(%p), metadata={op_name=\"jit(f)/neg\" stack_frame_id=1}
}
";

#[test]
fn rows_have_their_stacks_and_bad_tables_are_warnings() {
    let report = MemoryReport::read(TABLES.as_bytes(), 20).unwrap();
    let n = &report.instructions[1];
    assert_eq!(n.name, "n");
    assert_eq!(n.stack.to_vec(), [Frame::at("a.py", 7, "f")]);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["instructions"][1]["stack"],
        json!([{"file": "a.py", "line": 7, "function": "f"}])
    );
    assert_eq!(json["instructions"][0]["op_name"], "x");
    assert_eq!(json["instructions"][0]["stack"], json!([]));
    assert!(report.module.warnings.is_empty());

    let missing = TABLES.replace("stack_frame_id=1}", "stack_frame_id=9}");
    let report = MemoryReport::read(missing.as_bytes(), 20).unwrap();
    assert!(report.instructions[1].stack.is_empty());
    assert_eq!(
        report.instructions[1].op_name.as_deref(),
        Some("jit(f)/neg")
    );
    assert_eq!(
        report.module.warnings,
        ["instruction n names stack frame 9, which the module lacks; its stack is left out"]
    );
    assert!(!report.to_string().contains("source"));

    let circle = TABLES.replace("parent_frame_id=1}", "parent_frame_id=2}");
    let report = MemoryReport::read(circle.as_bytes(), 20).unwrap();
    assert!(report.instructions.iter().all(|r| r.stack.is_empty()));
    assert_eq!(
        report.module.warnings,
        [
            "stack frame 1 is its own caller (the parent frames go round in a circle); the stacks are left out"
        ]
    );
    // Tables that do not read leave every frame out: the one named too.
    let row = TABLES.replace("1 \"f\"", "2 \"f\"");
    let report = MemoryReport::read_text(row.as_bytes(), 20).unwrap();
    assert_eq!(
        report.module.warnings,
        [
            "line 7: FunctionNames row: id 2 where 1 was expected; the stacks are left out",
            "instruction n names stack frame 1, which the module lacks; its stack is left out"
        ]
    );
    assert!(report.to_string().contains(
        "\nwarning: line 7: FunctionNames row: id 2 where 1 was expected; the stacks are left out\n"
    ));
}
