//! The peak memory of a compiled jax program (`compiled.as_text()`), as
//! XLA's `peak_memory_in_bytes`, and the buffers live there with the jax
//! operation and the Python line each comes from.

use std::fs::File;
use std::io::BufReader;

use anyhow::Context;
use hlo_util::BufferKind;

fn main() -> anyhow::Result<()> {
    let path = rust_user::workspace_file("tests/golden/peak_memory/mlp/compiled.txt");
    let memory = hlo_util::memory_from_module_reader(BufReader::new(File::open(&path)?))?;
    let peak = &memory.peak;
    match &peak.peak_at {
        Some(at) => println!(
            "peak: {} bytes at step {} ({})",
            peak.peak_bytes, at.step, at.instruction
        ),
        None => println!("peak: {} bytes, all static", peak.peak_bytes),
    }
    println!(
        "{:>6}  {:<10} {:<16} {:<10} {:<21} source",
        "bytes", "kind", "buffer", "dimensions", "op_name"
    );
    for buffer in &peak.live_at_peak {
        // The shape as a value, not as its text.
        let dimensions = format!("{:?}", buffer.to_shape()?.dimensions);
        println!(
            "{:>6}  {:<10} {:<16} {dimensions:<10} {:<21} {}",
            buffer.bytes,
            buffer.kind,
            buffer.name,
            buffer.op_name.as_deref().unwrap_or("-"),
            buffer.source().as_deref().unwrap_or("-")
        );
    }

    // What XLA reports for this program.
    assert_eq!(peak.peak_bytes, 64128);
    assert_eq!(peak.static_bytes + peak.heap_peak_bytes, peak.peak_bytes);
    let at = peak
        .peak_at
        .as_ref()
        .context("no peak above the static bytes")?;
    assert_eq!((at.step, at.instruction.as_str()), (5, "ynn_fusion.1"));
    assert!(!memory.peak_is_estimate);
    assert_eq!(peak.live_at_peak.len(), 7);
    let live: u64 = peak.live_at_peak.iter().map(|b| b.bytes).sum();
    assert_eq!(live, peak.peak_bytes);
    // The largest is the first layer's weight, a parameter named by its pytree path.
    let first = &peak.live_at_peak[0];
    assert_eq!((first.bytes, first.kind), (32768, BufferKind::Parameter));
    assert_eq!(first.op_name.as_deref(), Some("args[0]['w1']"));
    assert_eq!(first.to_shape()?.dimensions, [64, 128]);
    // The temporary at the peak: the first layer's product, from line 92.
    let temporary = peak
        .live_at_peak
        .iter()
        .find(|b| b.kind == BufferKind::Temporary)
        .context("no temporary is live at the peak")?;
    assert_eq!(temporary.name, "ynn_fusion.1");
    assert_eq!(temporary.op_name.as_deref(), Some("jit(mlp)/dot_general"));
    assert_eq!(temporary.source().as_deref(), Some("gen_peak_memory.py:92"));
    Ok(())
}

rust_user::test_main!();
