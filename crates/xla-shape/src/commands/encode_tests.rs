//! `encode --text` memory at scale.

#![allow(clippy::unwrap_used)]

use super::run;

/// This process's peak resident set in bytes (`VmHWM`), Linux only.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A 200,000-element tuple (539 MB before the direct text writer; the
/// parsed shapes themselves take about 350 bytes per element).
/// Alone, so the peak is this test's:
/// `cargo test -p xla-shape -- --ignored encode_text_memory --nocapture`.
#[test]
#[ignore = "measures the process's peak memory: run alone"]
fn encode_text_memory_is_a_small_multiple_of_the_output() {
    let input = format!("({})", vec!["f32[]"; 200_000].join(", "));
    // Reset the peak to the current resident set (Linux >= 4.0).
    if std::fs::write("/proc/self/clear_refs", "5").is_err() {
        eprintln!("no /proc/self/clear_refs: not measured");
        return;
    }
    let before = peak_rss().unwrap();
    let start = std::time::Instant::now();
    let (text, _) = run(&input, true).unwrap();
    let elapsed = start.elapsed();
    let peak = peak_rss().unwrap() - before;
    let output = text.len() as u64;
    eprintln!(
        "encode --text of 200,000 elements: {elapsed:?}, output {output} bytes, peak +{peak} bytes ({} per element)",
        peak / 200_000
    );
    assert!(text.starts_with("element_type:TUPLE,tuple_shapes:[{element_type:F32,"));
    assert!(
        peak < 10 * output,
        "peak {peak} for {output} bytes of output"
    );
}
