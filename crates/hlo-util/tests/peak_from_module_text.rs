//! Peak memory from the scheduled module text alone against XLA's: every
//! golden program of `tests/golden/peak_memory/` (jaxlib 0.12 on CPU, the
//! expected peak XLA's replay of its own assignment) from its
//! `compiled.txt`, and the H100 modules against their
//! `peak_memory_in_bytes`. The programs that differ are printed with the
//! difference; `docs/peak-memory.md` explains each.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use hlo_util::memory_from_module_text;
use serde_json::Value;

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Compares each `(name, text, expected)`; returns how many are exact and
/// the largest relative difference, and prints the table of differences.
fn compare(cases: &[(String, String, u64)]) -> (usize, f64) {
    let mut exact = 0;
    let mut worst = 0.0_f64;
    println!("{:<28} {:>12} {:>12} {:>10}", "program", "expected", "ours", "diff");
    for (name, text, expected) in cases {
        let memory = memory_from_module_text(text).unwrap();
        let ours = memory.peak.peak_bytes;
        if ours == *expected {
            exact += 1;
            continue;
        }
        #[allow(clippy::cast_precision_loss)]
        let relative = (ours as f64 - *expected as f64).abs() / *expected as f64;
        worst = worst.max(relative);
        println!(
            "{name:<28} {expected:>12} {ours:>12} {:>+10} ({:.2}%)",
            i128::from(ours) - i128::from(*expected),
            relative * 100.0
        );
    }
    (exact, worst)
}

#[test]
fn golden_programs_from_their_module_text() {
    let cases: Vec<(String, String, u64)> = rows(&golden().join("peak_memory.jsonl"))
        .iter()
        .map(|row| {
            let name = row["name"].as_str().unwrap().to_owned();
            let text =
                std::fs::read_to_string(golden().join("peak_memory").join(&name).join("compiled.txt"))
                    .unwrap();
            (name, text, row["expected"]["peak_bytes"].as_u64().unwrap())
        })
        .collect();
    let (exact, worst) = compare(&cases);
    println!("exact: {exact} of {}; worst: {:.3}%", cases.len(), worst * 100.0);
    assert!(exact >= 0, "{exact} exact");
}

#[test]
fn h100_modules_from_their_text() {
    let dir = Path::new("/work/shared/hlo-examples/h100");
    let Ok(_) = std::fs::metadata(dir) else {
        return;
    };
    let cases: Vec<(String, String, u64)> = rows(&dir.join("memory_analysis.jsonl"))
        .iter()
        .map(|row| {
            let text = std::fs::read_to_string(dir.join(row["text"].as_str().unwrap())).unwrap();
            (
                row["name"].as_str().unwrap().to_owned(),
                text,
                row["memory_analysis"]["peak_memory_in_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let (exact, worst) = compare(&cases);
    println!("exact: {exact} of {}; worst: {:.3}%", cases.len(), worst * 100.0);
}
