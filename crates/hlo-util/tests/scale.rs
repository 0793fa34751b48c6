//! Scale: a 100 MB module of about a million instructions, written to a
//! temporary file and read back streaming. Ignored by default (it writes
//! 100 MB); run it in release:
//!
//! ```sh
//! HLO_SCALE_FILE=/tmp/big_module.txt cargo test --release -p hlo-util --test scale -- --ignored --nocapture
//! /usr/bin/time -v target/release/xla-shape hlo /tmp/big_module.txt   # time and peak RSS of the CLI
//! ```
//!
//! With `HLO_SCALE_FILE` the file is kept there; without it, it goes to the
//! temporary directory and is removed.
//!
//! The second test computes the module's peak memory from the same text
//! (`memory_from_module_text`: every buffer, live range and heap event):
//!
//! ```sh
//! cargo test --release -p hlo-util --test scale -- --ignored --nocapture peak
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::time::Instant;

/// Fusion computations of `BODY` instructions each, and an entry that calls
/// them all: about 125 bytes per instruction. Every fusion has shapes of its
/// own (its rows count), so the reader's shape cache (4096 shapes) keeps
/// only a fraction of them.
const FUSIONS: u64 = 90_000;
const BODY: u64 = 10;

fn write_module(path: &std::path::Path) -> u64 {
    let mut out = BufWriter::new(File::create(path).unwrap());
    let shape = "f32[1000,128]{1,0:T(8,128)}";
    writeln!(
        out,
        "HloModule big, entry_computation_layout={{({shape})->{shape}}}\n"
    )
    .unwrap();
    let mut count = 0;
    for f in 0..FUSIONS {
        // Rows 1000 + f % 8192: shapes come back only after 8192 fusions.
        let rows = 1000 + f % 8192;
        let own = format!("f32[{rows},128]{{1,0:T(8,128)}}");
        let bf16 = format!("bf16[{rows},128]{{1,0:T(8,128)(2,1)}}");
        writeln!(out, "%fused.{f} (p.{f}: f32[1000,128]) -> f32[1000,128] {{").unwrap();
        writeln!(out, "  %p.{f} = {shape} parameter(0)").unwrap();
        writeln!(
            out,
            "  %pad.{f} = {own} pad(%p.{f}), padding=0_{}x0_0",
            rows - 1000
        )
        .unwrap();
        for i in 2..BODY - 1 {
            let (s, op) = if i % 2 == 0 {
                (&bf16, "convert")
            } else {
                (&own, "add")
            };
            writeln!(
                out,
                "  %{op}.{f}.{i} = {s} {op}(%pad.{f}), metadata={{op_name=\"jit(f)/{op}\" source_file=\"f.py\" source_line={i}}}"
            )
            .unwrap();
        }
        writeln!(out, "  ROOT %root.{f} = {shape} copy(%p.{f})").unwrap();
        writeln!(out, "}}\n").unwrap();
        count += BODY;
    }
    writeln!(out, "ENTRY %main (x: f32[1000,128]) -> f32[1000,128] {{").unwrap();
    writeln!(out, "  %x = {shape} parameter(0)").unwrap();
    for f in 0..FUSIONS {
        let root = if f + 1 == FUSIONS { "ROOT " } else { "" };
        writeln!(
            out,
            "  {root}%call.{f} = {shape} fusion(%x), kind=kLoop, calls=%fused.{f}"
        )
        .unwrap();
    }
    writeln!(out, "}}").unwrap();
    count + FUSIONS + 1
}

#[test]
#[ignore = "writes a 100 MB file; run in release with --ignored"]
fn a_100_mb_module_streams_in_seconds() {
    let keep = std::env::var_os("HLO_SCALE_FILE");
    let path = keep.clone().map_or_else(
        || std::env::temp_dir().join("hlo_scale_module.txt"),
        Into::into,
    );
    let written = write_module(&path);
    let size = std::fs::metadata(&path).unwrap().len();
    let start = Instant::now();
    let mut allocated = 0i64;
    let file = BufReader::with_capacity(1 << 16, File::open(&path).unwrap());
    let module = hlo_util::read_text(file, |i| allocated += i.sizes.allocated_bytes).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} bytes, {} instructions in {} computations: {seconds:.2} s ({:.0} MB/s)",
        size,
        module.instructions,
        module.computations,
        size as f64 / seconds / 1e6
    );
    assert_eq!(module.instructions, written);
    assert!(size > 100_000_000, "{size} bytes");
    assert_eq!(module.parameter_bytes.allocated, 1000 * 128 * 4);
    assert!(allocated > i64::try_from(written).unwrap() * 1000 * 128 * 2);
    if keep.is_none() {
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
#[ignore = "writes a 100 MB file; run in release with --ignored"]
fn the_peak_of_a_100_mb_module_in_seconds() {
    let path = std::env::temp_dir().join("hlo_scale_module_peak.txt");
    let written = write_module(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let start = Instant::now();
    let memory = hlo_util::memory_from_module_text(&text).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} bytes, {written} instructions: peak {} bytes at step {:?}, {} buffers, in {seconds:.2} s",
        text.len(),
        memory.peak.peak_bytes,
        memory.peak.peak_at.as_ref().map(|p| p.step),
        memory.buffers.len()
    );
    // The parameter and the result; every other fusion's output, read by
    // none, reuses the result's allocation, as XLA's first pass does.
    assert_eq!(memory.peak.static_bytes, 2 * 1000 * 128 * 4);
    assert_eq!(memory.peak.heap_peak_bytes, 0);
    assert!(memory.peak_is_estimate, "the module has no schedule");
    assert_eq!(memory.steps, FUSIONS + 1);
}
