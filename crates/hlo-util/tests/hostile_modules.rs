//! Module text that is hostile to the peak computed from it: sizes whose
//! sum passes `i64`, names defined twice, a computation called from two
//! sites; and the large cases timed (ignored by default: run them in
//! release with `--ignored`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write;
use std::time::Instant;

use hlo_util::{ModuleMemory, memory_from_module_text};

mod memory;

use memory::peak_memory;

const HEAD: &str = "HloModule m, is_scheduled=true\n\n";

#[test]
fn live_bytes_beyond_i64_are_an_error() {
    // 20 temporaries of f32[2^57] (2^59 bytes each) live at once.
    let big = "f32[144115188075855872]{0}";
    let mut text = format!("{HEAD}ENTRY %e (p: f32[]) -> f32[] {{\n  %p = f32[] parameter(0)\n");
    for t in 0..20 {
        writeln!(text, "  %t{t} = {big} broadcast(%p), dimensions={{}}").unwrap();
    }
    writeln!(text, "  %a0 = {big} add(%t0, %t1)").unwrap();
    for t in 2..20 {
        writeln!(text, "  %a{} = {big} add(%a{}, %t{t})", t - 1, t - 2).unwrap();
    }
    writeln!(
        text,
        "  ROOT %r = f32[] reduce(%a18, %p), dimensions={{0}}, to_apply=%e"
    )
    .unwrap();
    text = text.replace(", to_apply=%e", "");
    text.push_str("}\n");
    let error = memory_from_module_text(&text).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the heap's live bytes: the bytes are beyond i64"
    );
}

#[test]
fn a_name_defined_twice_in_a_computation_is_placed() {
    let text = format!(
        "{HEAD}ENTRY %e (p: f32[]) -> f32[] {{\n  %b = f32[] parameter(0)\n  ROOT %b = f32[] negate(%b)\n}}\n"
    );
    let error = memory_from_module_text(&text).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 5, column 8: instruction already exists: b (previously defined at line 4, column 3)"
    );
}

#[test]
fn a_name_in_two_computations_resolves_in_its_own() {
    // `b` is a parameter of `f` and a negate of the entry: XLA's parser
    // reads it and renames the second `b.1`.
    let module = |second: &str| {
        format!(
            "{HEAD}%f (b: f32[256]) -> f32[256] {{\n  %b = f32[256]{{0}} parameter(0)\n  \
ROOT %n = f32[256]{{0}} negate(%b)\n}}\n\n\
ENTRY %main (p: f32[256]) -> f32[256] {{\n  %p = f32[256]{{0}} parameter(0)\n  \
%{second} = f32[256]{{0}} negate(%p)\n  ROOT %c = f32[256]{{0}} call(%{second}), to_apply=%f\n}}\n"
        )
    };
    let twice = memory_from_module_text(&module("b")).unwrap();
    let renamed = memory_from_module_text(&module("b.1")).unwrap();
    assert_eq!(twice.peak.peak_bytes, renamed.peak.peak_bytes);
    assert_eq!(twice.peak.device, renamed.peak.device);
    assert_eq!(twice.peak.device.argument_bytes, 1024);
    assert_eq!(
        twice.peak.live_at_peak.len(),
        renamed.peak.live_at_peak.len()
    );
}

#[test]
fn a_computation_called_from_two_sites_keeps_its_arguments() {
    let text = format!(
        "{HEAD}%c0 (a: f32[256]) -> f32[256] {{\n  %a = f32[256]{{0}} parameter(0)\n  \
ROOT %n = f32[256]{{0}} negate(%a)\n}}\n\n\
%c1 (b: f32[256]) -> f32[256] {{\n  %b = f32[256]{{0}} parameter(0)\n  \
%x = f32[256]{{0}} call(%b), to_apply=%c0\n  ROOT %y = f32[256]{{0}} call(%x), to_apply=%c0\n}}\n\n\
ENTRY %main (p: f32[256]) -> f32[256] {{\n  %p = f32[256]{{0}} parameter(0)\n  \
ROOT %r = f32[256]{{0}} call(%p), to_apply=%c1\n}}\n"
    );
    let memory = memory_from_module_text(&text).unwrap();
    assert_eq!(memory.peak.device.argument_bytes, 1024);
    assert_eq!(memory.peak.device.output_bytes, 1024);
    assert_eq!(memory.peak.peak_bytes, 1024);
}

/// `n` negates of one parameter, all live at once, then an add chain over
/// them: about 80 bytes an instruction.
fn wide_module(n: usize) -> String {
    let mut text =
        format!("{HEAD}ENTRY %e (p: f32[16]) -> f32[16] {{\n  %p = f32[16]{{0}} parameter(0)\n");
    for k in 0..n {
        writeln!(text, "  %n{k} = f32[16]{{0}} negate(%p)").unwrap();
    }
    writeln!(text, "  %a0 = f32[16]{{0}} add(%n0, %n1)").unwrap();
    for k in 2..n {
        let root = if k + 1 == n { "ROOT " } else { "" };
        writeln!(
            text,
            "  {root}%a{} = f32[16]{{0}} add(%a{}, %n{k})",
            k - 1,
            k - 2
        )
        .unwrap();
    }
    text.push_str("}\n");
    text
}

/// A chain of `n` negates, each reading the one before.
fn chain_module(n: usize) -> String {
    let mut text =
        format!("{HEAD}ENTRY %e (p: f32[16]) -> f32[16] {{\n  %n0 = f32[16]{{0}} parameter(0)\n");
    for k in 1..n {
        let root = if k + 1 == n { "ROOT " } else { "" };
        writeln!(text, "  {root}%n{k} = f32[16]{{0}} negate(%n{})", k - 1).unwrap();
    }
    text.push_str("}\n");
    text
}

#[test]
fn many_buffers_live_at_once() {
    // Every negate is live until its add: 64 bytes each, the last add's
    // operand and output beside them.
    let n = 2_000;
    let memory = memory_from_module_text(&wide_module(n)).unwrap();
    assert_eq!(memory.peak.static_bytes, 128);
    assert_eq!(memory.steps, u64::try_from(2 * n).unwrap());
}

/// The memory of `text` and the seconds it took, printed with its size.
fn timed(text: &str) -> (ModuleMemory, f64) {
    let start = Instant::now();
    let memory = memory_from_module_text(text).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} bytes: peak {} bytes, {} buffers, in {seconds:.2} s",
        text.len(),
        memory.peak.peak_bytes,
        memory.buffers.len()
    );
    (memory, seconds)
}

#[test]
#[ignore = "10^5 buffers live at once: run in release with --ignored"]
fn a_hundred_thousand_buffers_live_at_once_in_under_2_s() {
    let (_, seconds) = timed(&wide_module(100_000));
    assert!(seconds < 2.0, "{seconds:.2} s");
}

#[test]
#[ignore = "a 10^6-instruction chain: run in release with --ignored"]
fn a_million_instruction_chain() {
    let (memory, _) = timed(&chain_module(1_000_000));
    assert_eq!(memory.steps, 1_000_000);
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_million_instruction_chain_takes_a_small_multiple_of_its_text() {
    let text = chain_module(1_000_000);
    let before = peak_memory();
    let (memory, _) = timed(&text);
    let added = peak_memory().saturating_sub(before) as f64 + text.len() as f64;
    let multiple = added / text.len() as f64;
    println!("{multiple:.1}x");
    assert_eq!(memory.steps, 1_000_000);
    assert!(multiple <= 20.0, "{multiple:.1}x");
}

/// Writes the wide and the chained modules to `HOSTILE_MODULES_DIR` (for
/// the CLI's time and memory): `wide.hlo` (10^5 buffers live at once) and
/// `chain.hlo` (10^6 instructions).
#[test]
#[ignore = "writes 50 MB of modules"]
fn write_the_large_modules() {
    let dir = std::env::var_os("HOSTILE_MODULES_DIR").map_or_else(std::env::temp_dir, Into::into);
    let write = |name: &str, text: String| {
        std::fs::write(std::path::Path::new(&dir).join(name), text).unwrap();
    };
    write("wide.hlo", wide_module(100_000));
    write("chain.hlo", chain_module(1_000_000));
}

#[test]
fn a_parameter_number_out_of_range_is_an_error_not_an_allocation() {
    // The numbers are kept as read until the text reader checks them
    // against the signature: this one once took 7 GB of parameter slots.
    let text = format!(
        "{HEAD}ENTRY %e (p: f32[], q: f32[]) -> f32[] {{\n  %p = f32[] parameter(0)\n  %q = f32[] parameter(900672826)\n  ROOT %r = f32[] add(%p, %q)\n}}\n"
    );
    let error = memory_from_module_text(&text).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 7, column 1: computation `e` has no parameter(1) or two of it"
    );
    let memory = memory_from_module_text(&text.replace("(900672826)", "(1)")).unwrap();
    assert_eq!(memory.peak.static_bytes, 12);
}

#[test]
fn a_parameter_number_taken_twice_is_an_error() {
    let text = format!(
        "{HEAD}%f (a: f32[], b: f32[]) -> f32[] {{\n  %b = f32[] parameter(1)\n  %a = f32[] parameter(1)\n  ROOT %c = f32[] add(%a, %b)\n}}\n\nENTRY %e (p: f32[]) -> f32[] {{\n  %p = f32[] parameter(0)\n  ROOT %c = f32[] call(%p, %p), to_apply=%f\n}}\n"
    );
    let error = memory_from_module_text(&text).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 7, column 1: computation `f` has no parameter(0) or two of it"
    );
    // Numbered out of the order of the text, they read.
    let text = text.replacen("parameter(1)", "parameter(0)", 2).replacen(
        "parameter(0)",
        "parameter(1)",
        1,
    );
    assert!(memory_from_module_text(&text).is_ok());
}
