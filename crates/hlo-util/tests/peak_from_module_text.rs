//! Peak memory from the scheduled module text alone against XLA's: every
//! golden program of `tests/golden/peak_memory/` (jaxlib 0.12 on CPU, the
//! expected peak XLA's replay of its own assignment) from its
//! `compiled.txt`, and the H100 modules of
//! `tests/golden/peak_memory_h100/modules/` against their
//! `peak_memory_in_bytes`. The programs that differ are printed with the
//! difference (`cargo test -p hlo-util --test peak_from_module_text --
//! --nocapture`); `docs/peak-memory.md` explains each.

#![allow(clippy::unwrap_used)]

use conformance::golden_dir;

use hlo_util::{BufferKind, LivenessError, memory_from_module_text};
use serde_json::Value;

/// The rows of the golden file `name` (under `tests/golden/`).
fn rows(name: &str) -> Vec<Value> {
    conformance::load(name)
        .unwrap()
        .into_iter()
        .map(Value::Object)
        .collect()
}

/// How the module texts of a golden file compare with XLA.
struct Compared {
    /// Peaks equal to XLA's.
    exact: usize,
    /// Rows.
    count: usize,
    /// The largest relative difference of a peak.
    worst: f64,
    /// Device `temp_bytes` equal to XLA's `temp_size_in_bytes`.
    temp_exact: usize,
}

/// Computes the peak of each row of the golden file `file` from its
/// module text and compares it with the expected one (`case(row)` gives the
/// name, the text and that peak), each program's argument, output and
/// alias totals, device and host, and its host temporaries with XLA's
/// `memory_analysis`; prints the table of differences (peaks, then device
/// temporaries) and returns how many are exact.
fn compare(file: &str, case: impl Fn(&Value) -> (String, String, u64)) -> Compared {
    let rows = rows(file);
    let mut exact = 0;
    let mut temp_exact = 0;
    let mut worst = 0.0_f64;
    println!(
        "{:<28} {:>12} {:>12} {:>10}",
        "program", "expected", "ours", "diff"
    );
    for row in &rows {
        let (name, text, expected) = case(row);
        let memory = memory_from_module_text(&text).unwrap();
        let device = &memory.peak.device;
        let stats = &row["memory_analysis"];
        let host = &memory.peak.host;
        for (ours, key) in [
            (device.argument_bytes, "argument_size_in_bytes"),
            (device.output_bytes, "output_size_in_bytes"),
            (device.alias_bytes, "alias_size_in_bytes"),
            (host.argument_bytes, "host_argument_size_in_bytes"),
            (host.output_bytes, "host_output_size_in_bytes"),
            (host.alias_bytes, "host_alias_size_in_bytes"),
            (host.temp_bytes, "host_temp_size_in_bytes"),
        ] {
            assert_eq!(ours, stats[key], "{name}: {key}");
        }
        if device.temp_bytes == stats["temp_size_in_bytes"] {
            temp_exact += 1;
        } else {
            println!(
                "{name:<28} temp_size_in_bytes {} ours {}",
                stats["temp_size_in_bytes"], device.temp_bytes
            );
        }
        let ours = memory.peak.peak_bytes;
        if ours == expected {
            exact += 1;
            continue;
        }
        #[allow(clippy::cast_precision_loss)]
        let relative = (ours as f64 - expected as f64).abs() / expected as f64;
        worst = worst.max(relative);
        println!(
            "{name:<28} {expected:>12} {ours:>12} {:>+10} ({:.2}%)",
            i128::from(ours) - i128::from(expected),
            relative * 100.0
        );
    }
    println!(
        "exact: {exact} of {}; worst: {:.3}%; temporaries exact: {temp_exact}",
        rows.len(),
        worst * 100.0
    );
    Compared {
        exact,
        count: rows.len(),
        worst,
        temp_exact,
    }
}

#[test]
fn golden_programs_from_their_module_text() {
    let compared = compare("peak_memory.jsonl", |row| {
        let name = row["name"].as_str().unwrap().to_owned();
        let text = std::fs::read_to_string(
            golden_dir()
                .join("peak_memory")
                .join(&name)
                .join("compiled.txt"),
        )
        .unwrap();
        (name, text, row["expected"]["peak_bytes"].as_u64().unwrap())
    });
    assert_eq!(compared.count, 101);
    // Every program exact today, the second set of the generator (programs
    // the analysis was not developed against) included: a floor that cannot
    // regress.
    assert!(compared.exact >= 101, "{} exact", compared.exact);
    assert!(compared.worst < 0.01, "{}", compared.worst);
    // The temporaries packed at 64-byte offsets as XLA's CPU buffer
    // assignment packs them: every program's `temp_size_in_bytes`.
    assert_eq!(compared.temp_exact, 101);
}

#[test]
fn scalar_temporaries_each_at_an_aligned_offset() {
    // Adam's bias corrections: two s32[]-derived f32[] scalars live at
    // once, 4 bytes each at offsets 0 and 64 of XLA's CPU heap.
    let row = rows("peak_memory.jsonl")
        .into_iter()
        .find(|r| r["name"] == "bias_correction")
        .unwrap();
    let text =
        std::fs::read_to_string(golden_dir().join("peak_memory/bias_correction/compiled.txt"))
            .unwrap();
    let memory = memory_from_module_text(&text).unwrap();
    assert_eq!(
        memory.peak.device.temp_bytes,
        row["memory_analysis"]["temp_size_in_bytes"]
    );
    assert_eq!(
        memory.peak.heap_peak_bytes,
        row["expected"]["heap_peak_bytes"]
    );
}

#[test]
fn h100_modules_from_their_text() {
    let dir = golden_dir().join("peak_memory_h100/modules");
    let compared = compare("peak_memory_h100/modules/memory_analysis.jsonl", |row| {
        let text = std::fs::read_to_string(dir.join(row["text"].as_str().unwrap())).unwrap();
        (
            row["name"].as_str().unwrap().to_owned(),
            text,
            row["memory_analysis"]["peak_memory_in_bytes"]
                .as_u64()
                .unwrap(),
        )
    });
    assert_eq!((compared.exact, compared.count), (8, 8));
    // Packed at 256-byte offsets, XLA's GPU alignment: every module's.
    assert_eq!(compared.temp_exact, 8);
}

#[test]
fn xlas_dumps_name_tuple_elements_as_operands() {
    // `--xla_dump_to`'s `*after_optimizations.txt` of three H100 programs
    // (two with loops) writes `%tuple#k` for the elided get-tuple-element:
    // the peak is XLA's, and the same as from `compiled.as_text()`.
    let dir = golden_dir().join("peak_memory_h100");
    for row in rows("peak_memory_h100/memory_analysis.jsonl") {
        let name = row["name"].as_str().unwrap();
        let dump = std::fs::read_to_string(dir.join(name).join("after_optimizations.txt")).unwrap();
        assert!(dump.contains("#0"), "{name}");
        let memory = memory_from_module_text(&dump).unwrap();
        let stats = &row["memory_analysis"];
        assert_eq!(
            memory.peak.peak_bytes, stats["peak_memory_in_bytes"],
            "{name}"
        );
        assert_eq!(
            memory.peak.device.argument_bytes,
            stats["argument_size_in_bytes"]
        );
        assert_eq!(
            memory.peak.device.output_bytes,
            stats["output_size_in_bytes"]
        );
        let text = std::fs::read_to_string(dir.join("modules").join(row["text"].as_str().unwrap()))
            .unwrap();
        let from_text = memory_from_module_text(&text).unwrap();
        assert_eq!(memory.peak.device, from_text.peak.device, "{name}");
        assert_eq!(
            memory.peak.device.temp_bytes, stats["temp_size_in_bytes"],
            "{name}"
        );
    }
    // An element that is not there is an error naming it.
    let module = "HloModule m, is_scheduled=true\n\nENTRY %e (p: (f32[2], s32[])) -> f32[2] {\n  \
                  %p = (f32[2]{0}, s32[]) parameter(0)\n  ROOT %n = f32[2]{0} negate(%p#0)\n}\n";
    // The same as the get-tuple-element written out.
    let written = module.replace(
        "  ROOT %n = f32[2]{0} negate(%p#0)",
        "  %g = f32[2]{0} get-tuple-element(%p), index=0\n  ROOT %n = f32[2]{0} negate(%g)",
    );
    assert_ne!(written, module);
    assert_eq!(
        memory_from_module_text(module).unwrap().peak,
        memory_from_module_text(&written).unwrap().peak
    );
    let error = memory_from_module_text(&module.replace("%p#0", "%p#2")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "instruction `p#2`: `p` has no tuple element 2"
    );
    let error = memory_from_module_text(&module.replace("%p#0", "%q#0")).unwrap_err();
    assert!(
        matches!(error, LivenessError::UnknownOperand { .. }),
        "{error}"
    );
}

#[test]
fn the_report_is_consistent_with_itself() {
    let text =
        std::fs::read_to_string(golden_dir().join("peak_memory/mlp_grad/compiled.txt")).unwrap();
    let memory = memory_from_module_text(&text).unwrap();
    let peak = &memory.peak;
    assert_eq!(peak.peak_bytes, peak.static_bytes + peak.heap_peak_bytes);
    let live: u64 = peak.live_at_peak.iter().map(|b| b.bytes).sum();
    assert_eq!(live, peak.peak_bytes);
    assert!(
        peak.live_at_peak
            .windows(2)
            .all(|w| w[0].bytes >= w[1].bytes)
    );
    // XLA's totals where the text tells them.
    assert_eq!(peak.device.argument_bytes, 55936);
    assert_eq!(peak.device.output_bytes, 49824);
    let point = peak.peak_at.as_ref().unwrap();
    assert_eq!(point.instruction, "ynn_fusion");
    // Buffers, largest first, each with its steps; thread-local ones last.
    let first = &memory.buffers[0];
    assert_eq!((first.buffer.bytes, first.first_step), (32768, Some(0)));
    assert!(
        memory
            .buffers
            .iter()
            .any(|b| b.buffer.kind == BufferKind::Temporary
                && b.first_step.is_some()
                && b.first_step <= b.last_step)
    );
    let last = memory.buffers.last().unwrap();
    assert_eq!(
        (last.buffer.kind, last.first_step),
        (BufferKind::ThreadLocal, None)
    );
    assert_eq!(memory.steps, 18);
    let json = serde_json::to_value(&memory).unwrap();
    assert_eq!(json["peak_bytes"], 116_004);
    assert_eq!(json["peak_is_estimate"], false);
    assert_eq!(json["buffers"][0]["kind"], "parameter");
}

#[test]
fn a_module_without_a_schedule_is_an_estimate() {
    let text = std::fs::read_to_string(golden_dir().join("peak_memory/mlp/compiled.txt")).unwrap();
    let unscheduled = text.replacen("is_scheduled=true, ", "", 1);
    assert_ne!(text, unscheduled);
    let memory = memory_from_module_text(&unscheduled).unwrap();
    assert!(memory.peak_is_estimate);
    assert!(!memory_from_module_text(&text).unwrap().peak_is_estimate);
}

#[test]
fn bad_input_is_a_typed_error() {
    let read = |text: &str| memory_from_module_text(text).unwrap_err();
    assert!(matches!(read(""), LivenessError::Read(_)));
    let module = |body: &str| {
        format!("HloModule m, is_scheduled=true\n\nENTRY %e () -> f32[] {{\n{body}}}\n")
    };
    // The module reader's checks, worded and placed as XLA's parser's.
    let error = read(&module("  ROOT %a = f32[] negate(%nowhere)\n"));
    assert!(matches!(error, LivenessError::Read(_)), "{error}");
    assert_eq!(
        error.to_string(),
        "line 4, column 26: instruction does not exist: nowhere"
    );
    let error = read(&module("  ROOT %a = f32[] call(), to_apply=%nothing\n"));
    assert_eq!(
        error.to_string(),
        "line 4, column 36: computation does not exist: nothing"
    );
    let error = read(&module(
        "  %a = f32[] constant(1)\n  ROOT %a = f32[] negate(%a)\n",
    ));
    assert_eq!(
        error.to_string(),
        "line 5, column 8: instruction already exists: a (previously defined at line 4, column 3)"
    );
    let other = "HloModule m\n\n%f (x: f32[]) -> f32[] {\n  ROOT %x = f32[] parameter(0)\n}\n\n\
                 ENTRY %e (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  ROOT %c = f32[] call(%x), to_apply=%f\n}\n";
    // One name in two computations: XLA's parser reads it (renaming the
    // second); each operand names the instruction of its own computation.
    let renamed = other.replace(
        "(x: f32[]) -> f32[] {\n  ROOT %x",
        "(y: f32[]) -> f32[] {\n  ROOT %y",
    );
    assert_ne!(renamed, other);
    let (a, b) = (
        memory_from_module_text(other).unwrap(),
        memory_from_module_text(&renamed).unwrap(),
    );
    assert_eq!(
        (a.peak.peak_bytes, a.peak.device, a.steps),
        (b.peak.peak_bytes, b.peak.device, b.steps)
    );
    assert_eq!(a.peak.device.argument_bytes, 4);
    let error = read(&module(
        "  %c = f32[] constant(1)\n  ROOT %g = f32[] get-tuple-element(%c), index=3\n",
    ));
    assert!(matches!(error, LivenessError::Malformed { .. }), "{error}");
    let error = read(
        "HloModule m, input_output_alias={ {0}: (7, {}, may-alias) }\n\nENTRY %e (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n",
    );
    assert!(matches!(error, LivenessError::Malformed { .. }), "{error}");
    let error = read(
        "HloModule m\n\n%f () -> f32[] {\n  ROOT %r = f32[] call(), to_apply=%f\n}\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] call(), to_apply=%f\n}\n",
    );
    // A computation calling itself: XLA's parser defines it after its body.
    assert_eq!(
        error.to_string(),
        "line 4, column 36: computation does not exist: f"
    );
}

#[test]
fn the_reader_hands_out_operands_attributes_and_the_schedule() {
    let text = "HloModule m, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }

ENTRY %e (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(/*index=0*/%p), metadata={op_name=\"n\"}
}
";
    let mut seen = Vec::new();
    let module = hlo_util::read_text(text.as_bytes(), |i| {
        seen.push((i.operands.to_owned(), i.attributes.to_owned()));
    })
    .unwrap();
    assert!(module.is_scheduled);
    assert_eq!(module.input_output_alias, "{ {}: (0, {}, may-alias) }");
    assert_eq!(seen[0], ("0".to_owned(), String::new()));
    assert_eq!(
        seen[1],
        (
            "/*index=0*/%p".to_owned(),
            "metadata={op_name=\"n\"}".to_owned()
        )
    );
    // The donated parameter is the output: one buffer, counted once.
    let memory = memory_from_module_text(text).unwrap();
    assert_eq!(memory.peak.peak_bytes, 16);
    assert_eq!(memory.peak.device.alias_bytes, 16);
}

/// A scheduled module whose two middle instructions have the opcodes
/// given (XLA's would be `concatenate` and `slice`).
fn with_opcodes(concatenate: &str, slice: &str) -> String {
    format!(
        "HloModule m, is_scheduled=true

ENTRY %main (p: f32[256]) -> f32[256] {{
  %p = f32[256]{{0}} parameter(0)
  %f = f32[1024]{{0}} {concatenate}(%p, %p, %p, %p), dimensions={{0}}
  %r = f32[256]{{0}} {slice}(%f), slice={{[0:256]}}
  ROOT %s = f32[256]{{0}} add(%r, %p)
}}
"
    )
}

#[test]
fn an_unknown_opcode_is_a_warning_and_its_buffers_count() {
    let unknown = memory_from_module_text(&with_opcodes("frobnicate", "frobnicate")).unwrap();
    assert_eq!(
        unknown.warnings,
        ["line 5, column 21: unknown opcode `frobnicate`, read as an instruction of its shape"]
    );
    // The parameter and the output (1 KiB each) are static; `r` takes the
    // output's allocation (the add may write over it as it reads it); `f`,
    // 4 KiB, is the heap's one temporary, live from its step to `r`'s.
    assert_eq!(unknown.peak.static_bytes, 2048);
    assert_eq!(unknown.peak.heap_peak_bytes, 4096);
    assert_eq!(unknown.peak.peak_bytes, 6144);
    let temporary = unknown
        .peak
        .live_at_peak
        .iter()
        .find(|b| b.name == "f")
        .unwrap();
    assert_eq!(
        (temporary.bytes, temporary.kind),
        (4096, BufferKind::Temporary)
    );
    // The same peak as with the opcodes XLA knows, which warn of nothing.
    let known = memory_from_module_text(&with_opcodes("concatenate", "slice")).unwrap();
    assert!(known.warnings.is_empty());
    assert_eq!(serde_json::to_value(&known).unwrap().get("warnings"), None);
    assert_eq!(known.peak, unknown.peak);
    assert_eq!(known.buffers, unknown.buffers);
    let json = serde_json::to_value(&unknown).unwrap();
    assert_eq!(
        json["warnings"],
        serde_json::json!([
            "line 5, column 21: unknown opcode `frobnicate`, read as an instruction of its shape"
        ])
    );
}
