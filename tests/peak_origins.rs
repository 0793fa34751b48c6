//! The origins of the buffers live at the peak against XLA's dump: for every
//! golden program of `tests/golden/peak_memory/` (written by
//! `build-tools/gen_peak_memory.py`), the buffers live at the first moment
//! of the peak in the replay of the dumped `BufferAssignmentProto`, each
//! named by the logical buffer that holds the storage, with its defining
//! instruction's `op_name` and stack from the dumped module's
//! `stack_frame_index`; and the bytes there by source line. Both the dump
//! (`peak_from_hlo_proto`) and the module's text alone
//! (`memory_from_module_text`) must give them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hlo_util::{
    Frame, GroupBy, LiveBuffer, PeakReport, group_at_peak, memory_from_module_text,
    peak_from_hlo_proto,
};
use serde_json::Value;

/// A buffer as the golden file and our reports both give it.
#[derive(Debug, PartialEq, Eq)]
struct Named {
    name: String,
    shape_index: Vec<i64>,
    bytes: u64,
    op_name: Option<String>,
    stack: Vec<Frame>,
}

/// A frame of the golden file: `[file, function, line, end_line, column,
/// end_column]`, 0 where the module records none.
fn frame(v: &Value) -> Frame {
    let n = |k: usize| v[k].as_u64().unwrap();
    let some = |k: usize| Some(n(k)).filter(|&x| x > 0);
    Frame {
        file: v[0].as_str().unwrap().to_owned(),
        function: v[1].as_str().unwrap().to_owned(),
        line: n(2),
        end_line: some(3),
        column: some(4),
        end_column: some(5),
    }
}

fn expected(row: &Value) -> Vec<Named> {
    row["expected"]["live_at_peak"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| Named {
            name: b["name"].as_str().unwrap().to_owned(),
            shape_index: b["shape_index"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_i64().unwrap())
                .collect(),
            bytes: b["bytes"].as_u64().unwrap(),
            op_name: b["op_name"].as_str().map(str::to_owned),
            stack: b["stack"].as_array().unwrap().iter().map(frame).collect(),
        })
        .collect()
}

fn ours(buffers: &[LiveBuffer]) -> Vec<Named> {
    buffers
        .iter()
        .map(|b| Named {
            name: b.name.clone(),
            shape_index: b.shape_index.clone(),
            bytes: b.bytes,
            op_name: b.op_name.as_deref().map(str::to_owned),
            stack: b.stack.to_vec(),
        })
        .collect()
}

fn by_source(report: &PeakReport) -> Vec<(Option<String>, u64)> {
    group_at_peak(report, GroupBy::Source)
        .into_iter()
        .map(|r| (r.key, r.bytes))
        .collect()
}

fn expected_by_source(row: &Value) -> Vec<(Option<String>, u64)> {
    row["expected"]["by_source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_str().map(str::to_owned), r[1].as_u64().unwrap()))
        .collect()
}

/// Why `report` is not what XLA's dump says, if it is not.
fn differences(row: &Value, report: &PeakReport) -> Option<String> {
    let (want, got) = (expected(row), ours(&report.live_at_peak));
    if want != got {
        let missing: Vec<String> = want
            .iter()
            .filter(|w| !got.contains(w))
            .map(|w| format!("{}{:?}", w.name, w.shape_index))
            .collect();
        let extra: Vec<String> = got
            .iter()
            .filter(|g| !want.contains(g))
            .map(|g| format!("{}{:?}", g.name, g.shape_index))
            .collect();
        return Some(format!("XLA's {missing:?}, ours {extra:?}"));
    }
    let want = expected_by_source(row);
    let got = by_source(report);
    (want != got).then(|| format!("by source: XLA's {want:?}, ours {got:?}"))
}

fn golden_rows() -> Vec<Value> {
    conformance::load("peak_memory.jsonl")
        .unwrap()
        .into_iter()
        .map(Value::Object)
        .collect()
}

#[test]
fn the_dump_gives_xlas_buffers_with_their_op_names_and_stacks() {
    let dir = conformance::golden_dir().join("peak_memory");
    let mut failures = Vec::new();
    let mut with_stacks = 0;
    for row in golden_rows() {
        let name = row["name"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(name).join("after_optimizations.hlo.pb")).unwrap();
        let report = peak_from_hlo_proto(&bytes).unwrap();
        if report.live_at_peak.iter().any(|b| !b.stack.is_empty()) {
            with_stacks += 1;
        }
        if let Some(why) = differences(&row, &report) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(with_stacks > 80, "{with_stacks} programs with stacks");
}

/// The programs where one output of the static baseline is named by
/// another value of its allocation than XLA's: XLA numbers the values of a
/// conditional's branches in an order the text does not show (on `switch`,
/// the last branch first), and the first of equal values in that order
/// names the allocation.
const NAMED_OTHERWISE: [&str; 1] = ["switch"];

/// The buffers whose name the module text leaves open, by program, in the
/// order the report warns of them: each is shared by values of equal size
/// of a conditional's branches, and XLA names it by the first of them in
/// the order it numbers computations in, which the text does not record.
/// The text names each by the first branch's value; XLA does too on
/// `cond` and `cond_in_scan`, not on `switch`.
const NAMED_OPENLY: [(&str, &[&str]); 3] = [
    ("cond", &["broadcast_multiply_fusion", "tuple.4"]),
    ("cond_in_scan", &["tuple.4"]),
    ("switch", &["wrapped_sine", "tuple.6"]),
];

/// The warning that says buffer `name` may be named otherwise by XLA.
fn warns_of(warning: &str, name: &str) -> bool {
    warning.starts_with(&format!("buffer `{name}` (of `"))
}

/// Checks that `warnings` are the ones `NAMED_OPENLY` expects of program
/// `name`.
fn check_warnings(name: &str, warnings: &[String]) {
    let open = NAMED_OPENLY
        .iter()
        .find(|(program, _)| *program == name)
        .map_or(&[][..], |(_, buffers)| *buffers);
    assert_eq!(warnings.len(), open.len(), "{name}: {warnings:?}");
    for (warning, buffer) in warnings.iter().zip(open) {
        assert!(warns_of(warning, buffer), "{name}: {warning}");
    }
    if name == "switch" {
        assert_eq!(
            warnings[0],
            "buffer `wrapped_sine` (of `region_0.1`) may be named `wrapped_cosine` (of \
             `region_1.2`) or `ynn_fusion` (of `region_2.3`) by XLA: they share it and are equal \
             in size, and XLA names a buffer by the first of such values in the order it numbers \
             computations in, which the module text does not record (the dump \
             `*after_optimizations.hlo.pb` does)"
        );
    }
}

#[test]
fn the_module_text_gives_xlas_buffers_with_their_op_names_and_stacks() {
    let dir = conformance::golden_dir().join("peak_memory");
    let mut failures = Vec::new();
    let rows = golden_rows();
    for row in &rows {
        let name = row["name"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(name).join("compiled.txt")).unwrap();
        let memory = memory_from_module_text(&text).unwrap();
        check_warnings(name, &memory.warnings);
        if NAMED_OTHERWISE.contains(&name) {
            // The same bytes by source line and the same sizes, one output
            // named by another value of its allocation.
            assert_eq!(by_source(&memory.peak), expected_by_source(row), "{name}");
            let sizes = |b: &[Named]| b.iter().map(|n| n.bytes).collect::<Vec<_>>();
            assert_eq!(
                sizes(&ours(&memory.peak.live_at_peak)),
                sizes(&expected(row)),
                "{name}"
            );
            assert!(
                differences(row, &memory.peak).is_some(),
                "{name} is now named as XLA names it"
            );
            // Each buffer named otherwise is one the report warns of.
            let xlas = expected(row);
            for buffer in ours(&memory.peak.live_at_peak) {
                if xlas.contains(&buffer) {
                    continue;
                }
                let index: Vec<String> = buffer.shape_index.iter().map(i64::to_string).collect();
                let named = if index.is_empty() {
                    buffer.name.clone()
                } else {
                    format!("{}{{{}}}", buffer.name, index.join(","))
                };
                assert!(
                    memory.warnings.iter().any(|w| warns_of(w, &named)),
                    "{name}: no warning names {named}: {:?}",
                    memory.warnings
                );
            }
            continue;
        }
        if let Some(why) = differences(row, &memory.peak) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn the_h100_modules_stacks_are_read() {
    let dir = conformance::golden_dir()
        .join("peak_memory_h100")
        .join("modules");
    let text = std::fs::read_to_string(dir.join("big_scan_layers_remat.hlo.txt")).unwrap();
    let memory = memory_from_module_text(&text).unwrap();
    assert!(memory.warnings.is_empty(), "{:?}", memory.warnings);
    let dot = memory
        .buffers
        .iter()
        .map(|b| &b.buffer)
        .find(|b| {
            b.op_name.as_deref()
                == Some("jit(big_scan_layers_remat)/while/body/eval_jaxpr/checkpoint/dot_general")
        })
        .expect("the checkpointed layer's dot");
    let stack = dot.stack.to_vec();
    // The layer's inner lambda, called by the program's lambdas through the
    // generator's `named` three times, then `gen_hlo`, then the module.
    assert_eq!(stack.len(), 9);
    assert_eq!(
        stack.first().unwrap().function,
        "programs.<locals>.<lambda>.<locals>.<lambda>"
    );
    assert_eq!(stack.first().unwrap().line, 371);
    assert_eq!(
        (stack[1].column, stack[1].end_column),
        (Some(47), Some(116))
    );
    assert_eq!(
        stack[2].to_string(),
        "gen_hlo.<locals>.named (generator/repo/holdout/gen_gpu.py:395)"
    );
    assert_eq!(stack.last().unwrap().function, "<module>");
    assert_eq!(stack.last().unwrap().line, 467);
    for name in ["big_mlp_grad_f32", "big_attention_cudnn"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.hlo.txt"))).unwrap();
        let memory = memory_from_module_text(&text).unwrap();
        assert!(memory.warnings.is_empty(), "{name}: {:?}", memory.warnings);
        let sourced = memory
            .peak
            .live_at_peak
            .iter()
            .filter(|b| !b.stack.is_empty())
            .count();
        assert!(
            sourced > 0,
            "{name}: no buffer live at the peak has a stack"
        );
        assert!(
            memory.peak.live_at_peak.iter().all(|b| b
                .stack
                .iter()
                .all(|f| f.file == "generator/repo/holdout/gen_gpu.py")),
            "{name}"
        );
    }
}
