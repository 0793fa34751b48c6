//! Each buffer's origin from a module's text: the stack-frame tables and
//! the metadata (`op_name`, `stack_frame_id`, the older `source_file` and
//! `source_line`), bad tables as warnings, the groupings at the peak and
//! the diff of two peaks.

#![allow(clippy::unwrap_used)]

use hlo_util::{Frame, GroupBy, PeakDiff, group_at_peak, memory_from_module_text};

/// A module whose entry parameter is `args[0]`, whose exponential comes
/// from `model.py:7` in `layer`, called from `model.py:20` in `step`, and
/// whose negate names its line in the older form.
const MODULE: &str = r#"HloModule m, is_scheduled=true, entry_computation_layout={(f32[256]{0})->f32[256]{0}}

FileNames
1 "model.py"

FunctionNames
1 "step"
2 "layer"

FileLocations
1 {file_name_id=1 function_name_id=1 line=20 end_line=20 column=4 end_column=15}
2 {file_name_id=1 function_name_id=2 line=7 end_line=7 column=11 end_column=30}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}

ENTRY %main (p: f32[256]) -> f32[256] {
  %p = f32[256]{0} parameter(0), metadata={op_name="args[0]"}
  %e = f32[256]{0} exponential(%p), metadata={op_name="jit(step)/jvp(layer)/exp" stack_frame_id=2}
  %n = f32[256]{0} negate(%e), metadata={op_type="neg" op_name="jit(step)/transpose(jvp(layer))/neg" source_file="old.py" source_line=12}
  ROOT %s = f32[256]{0} add(%n, %e)
}
"#;

#[test]
fn every_buffer_has_its_op_name_and_stack() {
    let memory = memory_from_module_text(MODULE).unwrap();
    assert!(memory.warnings.is_empty(), "{:?}", memory.warnings);
    let peak = &memory.peak;
    let names: Vec<&str> = peak.live_at_peak.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["e", "n", "p"]);
    let (e, n, p) = (
        &peak.live_at_peak[0],
        &peak.live_at_peak[1],
        &peak.live_at_peak[2],
    );
    assert_eq!(p.op_name.as_deref(), Some("args[0]"));
    assert!(p.stack.is_empty());
    assert_eq!(
        e.stack.to_vec(),
        [
            Frame {
                file: "model.py".to_owned(),
                line: 7,
                function: "layer".to_owned(),
                end_line: Some(7),
                column: Some(11),
                end_column: Some(30),
            },
            Frame {
                file: "model.py".to_owned(),
                line: 20,
                function: "step".to_owned(),
                end_line: Some(20),
                column: Some(4),
                end_column: Some(15),
            },
        ]
    );
    assert_eq!(n.stack.to_vec(), [Frame::at("old.py", 12, "")]);
    assert_eq!(n.source().as_deref(), Some("old.py:12"));
    let json = serde_json::to_value(&memory).unwrap();
    assert_eq!(json["live_at_peak"][0]["stack"][1]["function"], "step");
    assert_eq!(
        json["live_at_peak"][1]["stack"][0],
        serde_json::json!({"file": "old.py", "line": 12, "function": ""})
    );
    // The add's own buffer records nothing: null and [].
    let s = json["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "s")
        .unwrap();
    assert_eq!(
        (&s["op_name"], &s["stack"]),
        (&serde_json::Value::Null, &serde_json::json!([]))
    );
    // The text report lists each buffer's source line.
    assert!(
        peak.to_string()
            .contains("1024  temporary  n{}     f32[256]{0}  old.py:12"),
        "{peak}"
    );
}

#[test]
fn the_peak_is_grouped_by_origin() {
    let memory = memory_from_module_text(MODULE).unwrap();
    let rows = |by| -> Vec<(Option<String>, u64, u64)> {
        group_at_peak(&memory.peak, by)
            .into_iter()
            .map(|r| (r.key, r.bytes, r.buffers))
            .collect()
    };
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        rows(GroupBy::Source),
        [
            (some("model.py:7"), 1024, 1),
            (some("old.py:12"), 1024, 1),
            (None, 1024, 1)
        ]
    );
    assert_eq!(
        rows(GroupBy::Function)[0],
        (some("layer (model.py)"), 1024, 1)
    );
    assert_eq!(
        rows(GroupBy::Stack),
        [
            (some("old.py:12"), 1024, 1),
            (some("step (model.py:20) > layer (model.py:7)"), 1024, 1),
            (None, 1024, 1)
        ]
    );
    assert_eq!(rows(GroupBy::Op)[0], (some("args[0]"), 1024, 1));
    assert_eq!(
        rows(GroupBy::Pass),
        [
            (some("backward"), 1024, 1),
            (some("forward"), 1024, 1),
            (some("parameter"), 1024, 1)
        ]
    );
    assert_eq!(
        rows(GroupBy::Kind),
        [
            (some("output"), 1024, 1),
            (some("parameter"), 1024, 1),
            (some("temporary"), 1024, 1)
        ]
    );
    let percent = group_at_peak(&memory.peak, GroupBy::Kind)[0].percent;
    assert!((percent - 100.0 / 3.0).abs() < 1e-9, "{percent}");
    assert_eq!(
        hlo_util::groups_text(
            GroupBy::Source,
            &group_at_peak(&memory.peak, GroupBy::Source)
        ),
        "by source: 3 groups\n\
         bytes  percent  buffers  source\n \
         1024    33.3%        1  model.py:7\n \
         1024    33.3%        1  old.py:12\n \
         1024    33.3%        1  (none)"
    );
    assert_eq!(
        "flame".parse::<GroupBy>().unwrap_err(),
        "no grouping `flame` (one of source, function, stack, op, pass, kind)"
    );
}

#[test]
fn two_peaks_side_by_side() {
    let a = memory_from_module_text(MODULE).unwrap().peak;
    // B: the same on arrays twice as large, with a multiply after the
    // negate; its peak is at the negate, each buffer there twice A's.
    let text = MODULE
        .replace("f32[256]", "f32[512]")
        .replace(r#"ROOT %s = f32[512]{0} add(%n, %e)"#, r#"%m = f32[512]{0} multiply(%n, %e), metadata={op_name="jit(step)/jvp(layer)/mul" stack_frame_id=2}
  ROOT %s = f32[512]{0} add(%m, %n)"#);
    let b = memory_from_module_text(&text).unwrap().peak;
    let diff = PeakDiff::new(&a, &b);
    assert_eq!(diff.a_peak_bytes, 3072);
    assert_eq!((b.peak_bytes, diff.peak_bytes_delta), (6144, 3072));
    let rows: Vec<(Option<&str>, u64, u64, i64)> = diff
        .by_source
        .iter()
        .map(|r| (r.key.as_deref(), r.a_bytes, r.b_bytes, r.delta_bytes))
        .collect();
    assert_eq!(
        rows,
        [
            (Some("model.py:7"), 1024, 2048, 1024),
            (Some("old.py:12"), 1024, 2048, 1024),
            (None, 1024, 2048, 1024)
        ]
    );
    let text = diff.to_string();
    assert!(
        text.starts_with(
            "peak: a 3072 bytes   b 6144 bytes   delta +3072 bytes\n\
             by source line:\n\
             a_bytes  b_bytes  delta  source\n   \
             1024     2048  +1024  model.py:7\n"
        ),
        "{text}"
    );
    assert!(text.contains("\nby op_name:\n"), "{text}");
    let json = serde_json::to_value(&diff).unwrap();
    assert_eq!(json["by_op"].as_array().unwrap().len(), diff.by_op.len());
}

#[test]
fn bad_tables_are_warnings_and_the_peak_stands() {
    let circle = MODULE.replace(
        "1 {file_location_id=1 parent_frame_id=1}",
        "1 {file_location_id=1 parent_frame_id=3}",
    );
    let memory = memory_from_module_text(&circle).unwrap();
    assert_eq!(
        memory.warnings,
        [
            "stack frame 1 is its own caller (the parent frames go round in a circle); the stacks are left out"
        ]
    );
    assert_eq!(memory.peak.peak_bytes, 3072);
    assert!(memory.peak.live_at_peak.iter().all(|b| b.stack.is_empty()));
    // The older form's frame stays out with the tables.
    assert!(memory.peak.live_at_peak.iter().all(|b| b.op_name.is_some()));

    let missing = MODULE.replace("stack_frame_id=2", "stack_frame_id=9");
    let memory = memory_from_module_text(&missing).unwrap();
    assert_eq!(
        memory.warnings,
        ["instruction e names stack frame 9, which the module lacks; its stack is left out"]
    );
    let row = MODULE.replace("2 \"layer\"", "2 layer");
    let memory = memory_from_module_text(&row).unwrap();
    // The tables left out, the frame the exponential names is missing too.
    assert_eq!(
        memory.warnings,
        [
            "line 8: FunctionNames row: expected a quoted name, not `layer`; the stacks are left out",
            "instruction e names stack frame 2, which the module lacks; its stack is left out"
        ]
    );
    let location = MODULE.replace("file_location_id=2 ", "file_location_id=5 ");
    let memory = memory_from_module_text(&location).unwrap();
    assert_eq!(
        memory.warnings,
        [
            "stack frame 2 names file location 5, which the module lacks (2 locations); the stacks are left out"
        ]
    );
}
