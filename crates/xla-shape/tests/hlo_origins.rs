//! `hlo FILE --by GROUP` and `--diff B`: the bytes at the peak grouped by
//! where they come from, equal to those of XLA's dump, and two peaks side
//! by side.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::cargo::cargo_bin_cmd;
use conformance::golden_dir;
use serde_json::{Value, json};

fn hlo(args: &[&str]) -> (i32, String) {
    let output = cargo_bin_cmd!("xla-shape").args(args).output().unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (output.status.code().unwrap(), text)
}

fn golden(name: &str, file: &str) -> String {
    golden_dir()
        .join("peak_memory")
        .join(name)
        .join(file)
        .display()
        .to_string()
}

fn expected(name: &str) -> Value {
    let rows = std::fs::read_to_string(golden_dir().join("peak_memory.jsonl")).unwrap();
    rows.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["name"] == name)
        .unwrap()
}

#[test]
fn the_bytes_by_source_line_are_those_of_xlas_dump() {
    let name = "origins_two_files";
    let row = expected(name);
    for file in ["compiled.txt", "after_optimizations.hlo.pb"] {
        let path = golden(name, file);
        let (code, out) = hlo(&["--json", "hlo", &path, "--by", "source", "--by", "pass"]);
        assert_eq!(code, 0, "{out}");
        let report: Value = serde_json::from_str(&out).unwrap();
        let ours: Vec<Value> = report["groups"]["source"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!([r["key"], r["bytes"]]))
            .collect();
        assert_eq!(Value::from(ours), row["expected"]["by_source"], "{file}");
        let pass: Vec<&str> = report["groups"]["pass"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["key"].as_str())
            .collect();
        assert_eq!(pass, ["backward", "parameter", "forward"], "{file}");
        let live = &report["live_at_peak"][2];
        assert_eq!(live["stack"][0]["file"], "peak_origins_layers.py", "{file}");
    }
    let (code, out) = hlo(&[
        "hlo",
        &golden(name, "compiled.txt"),
        "--top",
        "1",
        "--by",
        "function",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n\nby function: 4 groups\nbytes  percent  buffers  function\n28088    44.6%        9  (none)\n23424    37.2%        5  dense (peak_origins_layers.py)\n"),
        "{out}"
    );
}

#[test]
fn a_program_against_itself_and_another() {
    let a = golden("scan_layers_grad", "after_optimizations.hlo.pb");
    let (code, out) = hlo(&[
        "--json",
        "hlo",
        &a,
        "--diff",
        &golden("scan_layers_grad", "compiled.txt"),
    ]);
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let diff = &report["diff"];
    assert_eq!(diff["peak_bytes_delta"], 0);
    assert!(
        diff["by_source"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["delta_bytes"] == 0)
    );
    let remat = golden("scan_layers_remat_grad", "after_optimizations.hlo.pb");
    let (code, out) = hlo(&["--json", "hlo", &a, "--diff", &remat]);
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let diff = &report["diff"];
    let (peak_a, peak_b) = (
        expected("scan_layers_grad")["expected"]["peak_bytes"]
            .as_i64()
            .unwrap(),
        expected("scan_layers_remat_grad")["expected"]["peak_bytes"]
            .as_i64()
            .unwrap(),
    );
    assert_eq!(diff["peak_bytes_delta"], peak_b - peak_a);
    let changes: Vec<i64> = diff["by_source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["delta_bytes"].as_i64().unwrap().abs())
        .collect();
    assert!(changes.windows(2).all(|w| w[0] >= w[1]), "{changes:?}");
    let total: i64 = diff["by_source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["delta_bytes"].as_i64().unwrap())
        .sum();
    assert_eq!(total, peak_b - peak_a, "the changes add up to the peak's");
}

#[test]
fn bad_groupings_and_missing_programs_are_refused() {
    let path = golden("mlp", "compiled.txt");
    let (code, out) = hlo(&["hlo", &path, "--by", "flame"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("no grouping `flame` (one of source, function, stack, op, pass, kind)"),
        "{out}"
    );
    let (code, out) = hlo(&["hlo", &path, "--diff", "no such program"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("cannot open no such program"), "{out}");
}

#[test]
fn a_text_dump_takes_its_origins_from_the_module_text_beside_it() {
    let name = "scan_layers_grad";
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("module_0001.jit_f.cpu_after_optimizations");
    let assignment = format!("{}-buffer-assignment.txt", stem.display());
    for (from, to) in [
        ("buffer-assignment.txt", assignment.clone()),
        (
            "live-range.txt",
            format!("{}-live-range.txt", stem.display()),
        ),
    ] {
        std::fs::copy(golden(name, from), to).unwrap();
    }
    let (code, out) = hlo(&["--json", "hlo", &assignment]);
    assert_eq!(code, 0, "{out}");
    let without: Value = serde_json::from_str(&out).unwrap();
    let live = without["live_at_peak"].as_array().unwrap();
    assert!(
        live.iter()
            .all(|b| b["op_name"].is_null() && b["stack"] == json!([]))
    );

    std::fs::copy(
        golden(name, "compiled.txt"),
        format!("{}.txt", stem.display()),
    )
    .unwrap();
    let (code, out) = hlo(&["--json", "hlo", &assignment, "--by", "source"]);
    assert_eq!(code, 0, "{out}");
    let with: Value = serde_json::from_str(&out).unwrap();
    // Each buffer's origin is that of its instruction in the module's text.
    let (code, module) = hlo(&["--json", "hlo", &golden(name, "compiled.txt"), "--peak"]);
    assert_eq!(code, 0, "{module}");
    let module: Value = serde_json::from_str(&module).unwrap();
    let mut sourced = 0;
    for b in with["live_at_peak"].as_array().unwrap() {
        let same = module["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == b["name"]);
        if let Some(m) = same {
            assert_eq!(
                (&b["op_name"], &b["stack"]),
                (&m["op_name"], &m["stack"]),
                "{}",
                b["name"]
            );
        }
        if b["stack"] != json!([]) {
            sourced += 1;
        }
    }
    // XLA's trace names the loop's state by its copies, which have none.
    assert!(sourced >= 4, "{sourced} buffers with a stack");
    // The groups add up to the peak.
    let total: u64 = with["groups"]["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(total, with["peak_bytes"].as_u64().unwrap());
}
