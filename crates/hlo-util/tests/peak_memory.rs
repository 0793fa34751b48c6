//! Peak memory from XLA's buffer assignment against what XLA computes: the
//! golden programs of `tests/golden/peak_memory/` (jaxlib 0.12 on CPU, the
//! expected peak replayed by `build-tools/gen_peak_memory.py`) from their
//! `HloProto` and from their text dumps, and three H100 modules' text dumps
//! against XLA's `peak_memory_in_bytes` (`tests/golden/peak_memory_h100/`).

#![allow(clippy::unwrap_used)]

use conformance::golden_dir;
use std::path::Path;

use hlo_util::{
    AssignmentError, BufferKind, PeakReport, peak_from_hlo_proto, peak_from_text_dumps,
};
use serde_json::Value;

/// The rows of the golden file `name` (under `tests/golden/`).
fn rows(name: &str) -> Vec<Value> {
    conformance::load(name)
        .unwrap()
        .into_iter()
        .map(Value::Object)
        .collect()
}

/// The device's argument, output, alias and temporary totals of `report`
/// are those of XLA's `memory_analysis` (`stats`).
#[track_caller]
fn assert_totals_are_xlas(name: &str, report: &PeakReport, stats: &Value) {
    let device = &report.device;
    for (ours, key) in [
        (device.argument_bytes, "argument_size_in_bytes"),
        (device.output_bytes, "output_size_in_bytes"),
        (device.alias_bytes, "alias_size_in_bytes"),
        (device.temp_bytes, "temp_size_in_bytes"),
    ] {
        assert_eq!(ours, stats[key], "{name}: {key}");
    }
}

fn text_dumps(dir: &Path) -> PeakReport {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    peak_from_text_dumps(&read("buffer-assignment.txt"), &read("live-range.txt")).unwrap()
}

/// What every report must hold, whatever its input.
fn consistent(name: &str, report: &PeakReport) {
    assert_eq!(
        report.peak_bytes,
        report.static_bytes + report.heap_peak_bytes,
        "{name}"
    );
    let live: u64 = report.live_at_peak.iter().map(|b| b.bytes).sum();
    assert_eq!(
        live, report.peak_bytes,
        "{name}: the live buffers sum to the peak"
    );
    assert!(
        report
            .live_at_peak
            .windows(2)
            .all(|w| w[0].bytes >= w[1].bytes),
        "{name}: largest first"
    );
}

#[test]
fn golden_programs_from_their_hlo_proto() {
    let rows = rows("peak_memory.jsonl");
    assert!(rows.len() >= 30);
    for row in &rows {
        let name = row["name"].as_str().unwrap();
        let dir = golden_dir().join("peak_memory").join(name);
        let bytes = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
        let report = peak_from_hlo_proto(&bytes).unwrap();
        let expected = &row["expected"];
        assert_eq!(report.peak_bytes, expected["peak_bytes"], "{name}");
        assert_eq!(report.static_bytes, expected["static_bytes"], "{name}");
        let stats = &row["memory_analysis"];
        assert_eq!(report.static_bytes, stats["peak_memory_in_bytes"], "{name}");
        assert_totals_are_xlas(name, &report, stats);
        assert_eq!(
            report.peak_at.is_some(),
            report.heap_peak_bytes > 0,
            "{name}"
        );
        consistent(name, &report);
    }
}

#[test]
fn golden_programs_from_their_text_dumps() {
    for row in rows("peak_memory.jsonl") {
        let name = row["name"].as_str().unwrap();
        let dir = golden_dir().join("peak_memory").join(name);
        let report = text_dumps(&dir);
        assert_eq!(report.peak_bytes, row["expected"]["peak_bytes"], "{name}");
        consistent(name, &report);
        let proto =
            peak_from_hlo_proto(&std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap())
                .unwrap();
        assert_eq!(
            (report.device, report.host),
            (proto.device, proto.host),
            "{name}"
        );
    }
}

#[test]
fn h100_modules_from_their_text_dumps() {
    let dir = golden_dir().join("peak_memory_h100");
    let rows = rows("peak_memory_h100/memory_analysis.jsonl");
    assert_eq!(rows.len(), 3);
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let report = text_dumps(&dir.join(name));
        let stats = &row["memory_analysis"];
        assert_eq!(report.peak_bytes, stats["peak_memory_in_bytes"], "{name}");
        assert_totals_are_xlas(name, &report, stats);
        consistent(name, &report);
    }
}

#[test]
fn the_attention_peak_names_its_buffers() {
    let dir = golden_dir().join("peak_memory_h100/big_attention_cudnn");
    let report = text_dumps(&dir);
    let point = report.peak_at.unwrap();
    assert_eq!(point.instruction, "dot_product_attention_fwd.4");
    let top = &report.live_at_peak[0];
    assert_eq!(top.bytes, 33_554_432);
    let output = report
        .live_at_peak
        .iter()
        .find(|b| b.kind == BufferKind::Output)
        .unwrap();
    assert_eq!(
        (output.name.as_str(), output.shape_index.as_slice()),
        ("dot_product_attention_fwd.4", &[0][..])
    );
    assert_eq!(output.shape, "bf16[4,16,2048,128]{3,1,2,0}");
    let workspace = report.live_at_peak.last().unwrap();
    assert_eq!(
        (workspace.bytes, workspace.kind),
        (256, BufferKind::Temporary)
    );
}

#[test]
fn bad_input_is_a_typed_error() {
    let dir = golden_dir().join("peak_memory/mlp_grad");
    let bytes = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(
                peak_from_hlo_proto(&bytes[..cut]),
                Err(AssignmentError::Decode(_))
            ),
            "cut at {cut}"
        );
    }
    let module = hlo_util::read_proto(&[], |_| {}).unwrap_err();
    assert!(!module.to_string().is_empty());
    let bad_text = peak_from_text_dumps("allocation x\n", "").unwrap_err();
    assert!(matches!(
        bad_text,
        AssignmentError::Text {
            file: "buffer-assignment",
            line: 1,
            ..
        }
    ));
}

#[test]
fn a_long_schedule_is_swept_once() {
    let n = 50_000_u64;
    let mut assignment =
        String::from("BufferAssignment:\nallocation 0: size 64, page 0, preallocated-temp:\n");
    let mut live_range = String::from("HloLiveRange (max 50000):\n  InstructionSequence:\n");
    let mut ranges = String::from("  BufferLiveRange:\n");
    for i in 0..n {
        // Two offsets; the values at one offset share it.
        let (offset, bytes) = (i % 2 * 32, 4 + i % 7);
        assignment.push_str(&format!(
            " value: <{i} v{i} @0> (size={bytes},offset={offset}): f32[1]{{0}}\n"
        ));
        live_range.push_str(&format!("    {i}:v{i}\n"));
        ranges.push_str(&format!("    v{i}{{}}:{i}-{}\n", i + 1));
    }
    live_range.push_str(&ranges);
    let report = peak_from_text_dumps(&assignment, &live_range).unwrap();
    // At each step two neighbours are live, one at each offset: the largest
    // pair is 10 + 9 bytes.
    assert_eq!(report.peak_bytes, 19);
    consistent("long", &report);
}

#[test]
fn text_dumps_of_two_modules_do_not_mix() {
    let read = |name: &str, file: &str| {
        std::fs::read_to_string(golden_dir().join("peak_memory").join(name).join(file)).unwrap()
    };
    let error = peak_from_text_dumps(
        &read("mlp", "buffer-assignment.txt"),
        &read("fft", "live-range.txt"),
    )
    .unwrap_err();
    assert!(matches!(error, AssignmentError::NoLiveRange(_)), "{error}");
    let error = peak_from_text_dumps(&read("mlp", "buffer-assignment.txt"), "").unwrap_err();
    assert_eq!(
        error.to_string(),
        "live-range, line 1: no InstructionSequence or BufferLiveRange section"
    );
}

#[test]
fn each_memory_space_has_a_heap_of_its_own() {
    let assignment = "BufferAssignment:
allocation 0: size 64, page 0, preallocated-temp:
 value: <0 d @0> (size=64,offset=0): f32[16]{0}
allocation 1: size 32, page 0, color 5, preallocated-temp:
 value: <1 h @5> (size=32,offset=0): f32[8]{0:S(5)}
";
    let live_range = "HloLiveRange (max 2):
  InstructionSequence:
    0:d
    1:h
  BufferLiveRange:
    d{}:0-2
    h{}:1-2
";
    let report = peak_from_text_dumps(assignment, live_range).unwrap();
    // XLA replays the device trace, then the host one: never both at once.
    assert_eq!(report.peak_bytes, 64);
    assert_eq!(report.live_at_peak.len(), 1);
    assert_eq!(report.device.temp_bytes, 64);
    assert_eq!(report.host.temp_bytes, 32);
}

/// The programs whose text dumps do not show which value's allocation
/// XLA's heap trace makes for a buffer live at the peak: a while body's
/// result defined a step after the body parameter's last use (the loop's
/// counter, `copy.N` in XLA's trace), storage freed and taken again at one
/// step by a user that does not share it, and the random programs, whose
/// first moment of the peak in the schedule's steps holds other buffers of
/// the same bytes than the first heap event that reaches it.
const NAMED_OTHERWISE: [&str; 10] = [
    "attention_grad",
    "cond_in_scan",
    "dropout",
    "inv_det",
    "origins_scan_layers",
    "random_normal",
    "random_two_keys",
    "scan_layers_grad",
    "scan_layers_remat_grad",
    "scan_remat_grad_carry",
];

#[test]
fn text_dumps_name_the_buffers_at_the_peak_as_xlas_heap_trace() {
    let key = |b: &Value| {
        (
            b["name"].clone(),
            b["shape_index"].clone(),
            b["bytes"].clone(),
        )
    };
    let mut otherwise = Vec::new();
    let mut agree = 0;
    for row in rows("peak_memory.jsonl") {
        let name = row["name"].as_str().unwrap();
        let report = text_dumps(&golden_dir().join("peak_memory").join(name));
        let json = serde_json::to_value(&report).unwrap();
        let mut ours: Vec<_> = json["live_at_peak"]
            .as_array()
            .unwrap()
            .iter()
            .map(key)
            .collect();
        let mut xla: Vec<_> = row["expected"]["live_at_peak"]
            .as_array()
            .unwrap()
            .iter()
            .map(key)
            .collect();
        ours.sort_by_key(|k| format!("{k:?}"));
        xla.sort_by_key(|k| format!("{k:?}"));
        if ours == xla {
            agree += 1;
        } else {
            otherwise.push(name.to_owned());
        }
    }
    otherwise.sort();
    assert_eq!(otherwise, NAMED_OTHERWISE);
    assert_eq!(agree, 91);
}

#[test]
fn shared_storage_is_named_by_the_first_value_of_its_run() {
    // One slot: a loop's state (`init`, then the body's parameter and the
    // while's output, each meeting the one before) and later a value of
    // its own (`late`).
    let assignment = "BufferAssignment:
allocation 0: size 64, page 0, parameter 0, shape |f32[16]| at ShapeIndex {}:
 value: <0 p @0> (size=64,offset=0): f32[16]{0}
allocation 1: size 64, page 0, preallocated-temp:
 value: <1 init @0> (size=64,offset=0): f32[16]{0}
 value: <2 body_param{0} (phi) @0> (size=64,offset=0): f32[16]{0}
 value: <3 loop{0} (phi) @0> (size=64,offset=0): f32[16]{0}
 value: <4 late @0> (size=64,offset=0): f32[16]{0}
allocation 2: size 64, page 0, preallocated-temp:
 value: <5 t @0> (size=64,offset=0): f32[16]{0}
";
    let ranges = |t: &str| {
        format!(
            "HloLiveRange (max 9):
  InstructionSequence:
{}  BufferLiveRange:
    p{{}}:0-9
    init{{}}:1-2
    body_param{{0}}:2-4
    loop{{0}}:4-6
    late{{}}:7-8
    t{{}}:{t}
",
            (0..9)
                .map(|k| format!("    {k}:i{k}\n"))
                .collect::<String>()
        )
    };
    let names = |t: &str| {
        let report = peak_from_text_dumps(assignment, &ranges(t)).unwrap();
        let mut names: Vec<String> = report.live_at_peak.iter().map(|b| b.name.clone()).collect();
        names.sort();
        names
    };
    assert_eq!(names("5-5"), ["init", "p", "t"]);
    assert_eq!(names("8-8"), ["late", "p", "t"]);
}
