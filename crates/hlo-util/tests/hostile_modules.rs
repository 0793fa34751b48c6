//! Module text that is hostile to the peak computed from it: sizes whose
//! sum passes `i64`, names defined twice, a computation called from two
//! sites; and the large cases timed (ignored by default: run them in
//! release with `--ignored`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write;

use hlo_util::memory_from_module_text;

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
