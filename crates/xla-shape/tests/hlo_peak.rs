//! `hlo FILE --peak` of a module's text: the peak of every golden program
//! as XLA computes it, its JSON, its timeline, and the inputs it refuses.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::golden_dir;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn hlo(args: &[&std::ffi::OsStr], stdin: &str) -> (i32, String) {
    let output = cargo_bin_cmd!("xla-shape")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (output.status.code().unwrap(), text)
}

#[test]
fn every_golden_program_peaks_as_xla_computes_it() {
    let expected = std::fs::read_to_string(golden_dir().join("peak_memory.jsonl")).unwrap();
    let mut checked = 0;
    for line in expected.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let name = row["name"].as_str().unwrap();
        let file = golden_dir()
            .join("peak_memory")
            .join(name)
            .join("compiled.txt");
        let report = peak_json(&file, name);
        assert_eq!(
            report["peak_bytes"], row["expected"]["peak_bytes"],
            "{name}"
        );
        assert_eq!(report["peak_is_estimate"], false, "{name}");
        checked += 1;
    }
    assert!(checked >= 30);
}

#[test]
fn xlas_dumps_of_loops_peak_as_xla_computes_them() {
    // `--xla_dump_to`'s `*after_optimizations.txt` names elided tuple
    // elements `%tuple#k`; a scan's dump among them.
    let dir = golden_dir().join("peak_memory_h100");
    let rows = std::fs::read_to_string(dir.join("memory_analysis.jsonl")).unwrap();
    for line in rows.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let name = row["name"].as_str().unwrap();
        let file = dir.join(name).join("after_optimizations.txt");
        let report = peak_json(&file, name);
        let stats = &row["memory_analysis"];
        assert_eq!(
            report["peak_bytes"], stats["peak_memory_in_bytes"],
            "{name}"
        );
        assert_eq!(
            report["device"]["argument_bytes"], stats["argument_size_in_bytes"],
            "{name}"
        );
    }
}

#[test]
fn the_text_and_the_timeline_of_a_module() {
    let dir = golden_dir().join("peak_memory/mlp");
    let scratch = tempfile::tempdir().unwrap();
    let svg = scratch.path().join("t.svg");
    let (code, out) = hlo(
        &[
            "hlo".as_ref(),
            dir.join("compiled.txt").as_os_str(),
            "--timeline".as_ref(),
            svg.as_os_str(),
            "--top".as_ref(),
            "2".as_ref(),
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("peak: 64128 bytes at step 5 (ynn_fusion.1)\n"),
        "{out}"
    );
    assert!(
        out.contains("\n... 5 more buffers: 14976 bytes\nwrote "),
        "{out}"
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.contains("<svg") && picture.ends_with("</svg>\n"));
    assert!(picture.contains("memory timeline of compiled.txt"));
    assert!(picture.contains("flattened schedule"));
}

#[test]
fn a_module_without_a_schedule_says_its_peak_is_an_estimate() {
    let text = std::fs::read_to_string(golden_dir().join("peak_memory/mlp/compiled.txt")).unwrap();
    let unscheduled = text.replacen("is_scheduled=true, ", "", 1);
    let (code, out) = hlo(
        &["hlo".as_ref(), "-".as_ref(), "--peak".as_ref()],
        &unscheduled,
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("estimate: the module is not scheduled"),
        "{out}"
    );
    assert!(
        out.contains("compile it and pass compiled.as_text()"),
        "{out}"
    );
    let (code, out) = hlo(
        &[
            "--json".as_ref(),
            "hlo".as_ref(),
            "-".as_ref(),
            "--peak".as_ref(),
        ],
        &unscheduled,
    );
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["peak_is_estimate"], true);
}

#[test]
fn stablehlo_protos_and_bad_text_are_refused() {
    let (code, out) = hlo(
        &["hlo".as_ref(), "-".as_ref(), "--peak".as_ref()],
        "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n}\n",
    );
    assert_eq!(code, 1);
    assert!(
        out.ends_with("compile it and pass compiled.as_text()\n"),
        "{out}"
    );
    let proto = golden_dir().join("hlo/cond.pb");
    let (code, out) = hlo(&["hlo".as_ref(), proto.as_os_str(), "--peak".as_ref()], "");
    assert_eq!(code, 1);
    assert!(out.contains("not a serialized HloModuleProto"), "{out}");
    let bad = "HloModule m, is_scheduled=true\n\nENTRY %e () -> f32[] {\n  ROOT %a = f32[] add(%x, %x)\n}\n";
    let (code, out) = hlo(
        &[
            "--json".as_ref(),
            "hlo".as_ref(),
            "-".as_ref(),
            "--peak".as_ref(),
        ],
        bad,
    );
    assert_eq!(code, 1);
    assert!(out.starts_with("{\"ok\":false"), "{out}");
    assert!(
        out.contains("line 4, column 23: instruction does not exist: x"),
        "{out}"
    );
}

/// A scheduled module with an opcode XLA does not know, twice: read as
/// instructions of their shapes, sized and counted.
const UNKNOWN_OPCODE: &str = "HloModule m, is_scheduled=true

ENTRY %main (p: f32[256]) -> f32[256] {
  %p = f32[256]{0} parameter(0)
  %f = f32[1024]{0} frobnicate(%p, %p, %p, %p), dimensions={0}
  %r = f32[256]{0} frobnicate(%f), slice={[0:256]}
  ROOT %s = f32[256]{0} add(%r, %p)
}
";

#[test]
fn an_unknown_opcode_is_a_warning_as_hlo_gives_it() {
    let warning =
        "line 5, column 21: unknown opcode `frobnicate`, read as an instruction of its shape";
    let (code, out) = hlo(
        &["hlo".as_ref(), "-".as_ref(), "--peak".as_ref()],
        UNKNOWN_OPCODE,
    );
    assert_eq!(code, 0, "{out}");
    // The parameter and the output are static (`r` writes into the
    // output's allocation); `f`, 4 KiB, is the heap's one temporary.
    assert_eq!(
        out,
        format!(
            "peak: 6144 bytes at step 1 (f)
static: 2048 bytes (parameters, constants, outputs)   heap at the peak: 4096 bytes
device: arguments 1024 bytes   outputs 1024 bytes   aliased 0 bytes   temporaries 4096 bytes
live at the peak: 3 buffers
bytes  kind       buffer  shape
 4096  temporary  f{{}}     f32[1024]{{0}}
 1024  parameter  p{{}}     f32[256]{{0}}
 1024  output     r{{}}     f32[256]{{0}}
warning: {warning}
"
        )
    );
    // The last line `hlo` prints of the same module.
    let (code, summary) = hlo(&["hlo".as_ref(), "-".as_ref()], UNKNOWN_OPCODE);
    assert_eq!(code, 0, "{summary}");
    assert!(
        summary.ends_with(&format!("\nwarning: {warning}\n")),
        "{summary}"
    );
    let json = |text: &str, peak: bool| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["--json".as_ref(), "hlo".as_ref(), "-".as_ref()];
        if peak {
            args.push("--peak".as_ref());
        }
        let (code, out) = hlo(&args, text);
        assert_eq!(code, 0, "{out}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let peak = json(UNKNOWN_OPCODE, true);
    assert_eq!(peak["warnings"], serde_json::json!([warning]));
    assert_eq!(peak["warnings"], json(UNKNOWN_OPCODE, false)["warnings"]);
    assert_eq!(peak["peak_bytes"], 6144);
    let f = &peak["buffers"][0];
    assert_eq!(
        (&f["name"], &f["bytes"]),
        (&Value::from("f"), &Value::from(4096))
    );
    // A module XLA reads whole has no `warnings` at all, and the same peak.
    let known = UNKNOWN_OPCODE
        .replacen("frobnicate", "concatenate", 1)
        .replacen("frobnicate", "slice", 1);
    let report = json(&known, true);
    assert_eq!(report.get("warnings"), None);
    assert_eq!(report["peak_bytes"], 6144);
}

/// `xla-shape --json hlo FILE --peak`'s report of `file` (program `name`).
fn peak_json(file: &std::path::Path, name: &str) -> Value {
    let (code, out) = hlo(
        &[
            "--json".as_ref(),
            "hlo".as_ref(),
            file.as_os_str(),
            "--peak".as_ref(),
        ],
        "",
    );
    assert_eq!(code, 0, "{name}: {out}");
    assert!(out.starts_with("{\"ok\":true,\"peak_bytes\":"), "{out}");
    serde_json::from_str(&out).unwrap()
}
