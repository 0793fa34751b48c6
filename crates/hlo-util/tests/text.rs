//! The text reader on what XLA prints and on what it must refuse.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hlo_util::{HloError, ModuleSummary, read_text};

fn read(text: &str) -> Result<(ModuleSummary, Vec<String>), HloError> {
    let mut seen = Vec::new();
    let summary = read_text(text.as_bytes(), |i| {
        seen.push(format!(
            "{}/{} {} {}",
            i.computation, i.name, i.opcode, i.shape
        ));
    })?;
    Ok((summary, seen))
}

fn error(text: &str) -> String {
    read(text).unwrap_err().to_string()
}

const MODULE: &str = r#"HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, entry_computation_layout={(f32[8]{0}, s32[])->(f32[8]{0}, s32[])}, frontend_attributes={a="{,}"}

FileNames
1 "/tmp/x{.py"
FunctionNames
1 "<module>"
FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=0 end_column=34}
StackFrames
1 {file_location_id=1 parent_frame_id=1}

%body (p: (s32[], f32[8])) -> (s32[], f32[8]) {
  %p = (s32[], f32[8]{0}) parameter(0)
  ROOT %t = (s32[], f32[8]{0}) tuple(%p), sharding={{replicated}, {devices=[2]<=[2]}}
}

%cond (p.1: (s32[], f32[8])) -> pred[] {
  %p.1 = (s32[], f32[8]{0}) parameter(0)
  ROOT %c = pred[] constant(true), metadata={op_name="a, b) c=\"d\"" source_file="x.py"}
}

ENTRY %main.5 (a: f32[8], b: s32[]) -> (f32[8], s32[]) {
  %b = s32[] parameter(1)
  %a = f32[8]{0} parameter(0), backend_config={"flag":"}{)(","n":[1,{"m":2}]}
  %t0 = (s32[], f32[8]{0}) tuple(%b, %a)
  %w = (s32[], f32[8]{0}) while((s32[], f32[8]{0}) %t0), condition=%cond, body=%body
  %c.1 = f32[8]{0} constant({1, 2, 3, 4, 5, 6, 7, 8})
  ROOT %r = (f32[8]{0}, s32[]) tuple(f32[8]{0} %a, s32[] %b), /*comment, )*/ custom_attr="x"
}
"#;

#[test]
fn computations_instructions_and_attributes_are_read_apart() {
    let (summary, seen) = read(MODULE).unwrap();
    assert_eq!(summary.name, "jit_f");
    assert_eq!(summary.computations, 3);
    assert_eq!(summary.instructions, 10);
    assert_eq!(summary.entry_computation, "main.5");
    assert_eq!(summary.entry_parameters.len(), 2);
    assert_eq!(summary.entry_parameters[0].to_string(), "f32[8]{0}");
    assert_eq!(summary.entry_result.to_string(), "(f32[8]{0}, s32[])");
    let layout = summary.entry_computation_layout.as_ref().unwrap();
    assert_eq!(layout.parameters.len(), 2);
    // 32 + 4; a table of two pointers, 32 + 4.
    assert_eq!(summary.parameter_bytes.allocated, 36);
    assert_eq!(summary.output_bytes.allocated, 52);
    assert_eq!(seen[0], "body/p parameter (s32[], f32[8]{0})");
    assert_eq!(seen[3], "cond/c constant pred[]");
    assert_eq!(seen[9], "main.5/r tuple (f32[8]{0}, s32[])");
}

#[test]
fn without_entry_marks_the_last_computation_is_the_entry() {
    let text = "HloModule m\n\na {\n  ROOT x = f32[2] parameter(0)\n}\n\nb {\n  p = s8[3] parameter(0)\n  ROOT y = s8[3] negate(p)\n}\n";
    let (summary, _) = read(text).unwrap();
    assert_eq!(summary.entry_computation, "b");
    assert_eq!(
        (
            summary.parameter_bytes.logical,
            summary.output_bytes.logical
        ),
        (3, 3)
    );
}

#[test]
fn errors_name_the_line_and_column() {
    let cases = [
        (
            "",
            "line 1, column 1: no `HloModule` line: the input is empty",
        ),
        (
            "\u{0}garbage",
            "line 1, column 1: expected `HloModule` first",
        ),
        (
            "HloModule",
            "line 1, column 10: expected the module's name after `HloModule`",
        ),
        (
            "HloModule m x",
            "line 1, column 13: expected `,` between the module's attributes",
        ),
        ("HloModule m, a={", "line 1, column 16: `{` is never closed"),
        (
            "HloModule m",
            "line 1, column 1: the module has no computation",
        ),
        (
            "HloModule m\nx",
            "line 2, column 1: expected a computation (`name (parameters) -> result {`)",
        ),
        (
            "HloModule m\ne {\n",
            "line 2, column 1: computation `e` is never closed",
        ),
        (
            "HloModule m\ne {\n}",
            "line 3, column 1: computation `e` has no ROOT",
        ),
        (
            "HloModule m\ne {\n x = f32[2]{5} negate()\n}",
            "line 3, column 6: layout minor_to_major field has out-of-bounds value: {5}; shape: f32[2]",
        ),
        (
            "HloModule m\ne {\n x = f32[2 negate()\n}",
            "line 3, column 9: `[` is never closed",
        ),
        (
            "HloModule m\ne {\n x = f32[2] negate(\n}",
            "line 3, column 19: `(` is never closed",
        ),
        (
            "HloModule m\ne {\n x = f32[2] negate() y\n}",
            "line 3, column 22: expected `,` before the instruction's attributes",
        ),
        (
            "HloModule m\ne {\n x = f32[2] parameter(-1)\n}",
            "line 3, column 23: expected the parameter's number",
        ),
        (
            "HloModule m\ne {\n ROOT x = f32[] parameter(0)\n ROOT y = f32[] parameter(1)\n}",
            "line 4, column 2: a second ROOT in the computation",
        ),
        (
            "HloModule m\nENTRY e {\n ROOT x = f32[] parameter(1)\n}",
            "line 4, column 1: computation `e` has no parameter(0) or two of it",
        ),
        (
            "HloModule m, entry_computation_layout={f32[]->f32[]}",
            "line 1, column 40: expected `(` before the parameters",
        ),
        (
            "HloModule m\ne {\n x\u{e9} = f32[] x(\u{ff})\n}",
            "line 4, column 1: computation `e` has no ROOT",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(text, expected)| error(text) != *expected)
        .map(|(text, _)| format!("{text:?} -> {}", error(text)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let invalid = read_text(&b"HloModule m\n\xff"[..], |_| {}).unwrap_err();
    assert_eq!(
        invalid.to_string(),
        "line 2, column 1: the text is not UTF-8"
    );
}

#[test]
fn garbage_never_panics() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let alphabet =
        b"HloModule ENTRY ROOT %x = f32[2]{1,0:T(8,128)} (){}[],\"\\/* */\n parameter(0) tuple";
    for _ in 0..2000 {
        let mut text = MODULE.as_bytes().to_vec();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % text.len() as u64) as usize;
            text[at] = alphabet[(seed >> 32) as usize % alphabet.len()];
        }
        let _ = read_text(&text[..], |_| {});
    }
}

/// Modules XLA's parser refuses (jaxlib 0.12's `hlo_module_from_text`),
/// with the line, column and message it reports.
#[test]
fn names_are_checked_where_xla_checks_them() {
    let entry = |body: &str| {
        format!(
            "HloModule m\nENTRY %e (p: f32[]) -> f32[] {{\n  %p = f32[] parameter(0)\n{body}}}\n"
        )
    };
    let f = "%f (x: f32[]) -> f32[] {\n  ROOT %x = f32[] parameter(0)\n}\n";
    let cases = [
        (
            entry("  ROOT %r = f32[] add(%p, %q)\n"),
            "line 4, column 27: instruction does not exist: q",
        ),
        (
            entry("  ROOT %r = f32[] add(%r, %r)\n"),
            "line 4, column 23: instruction does not exist: r",
        ),
        (
            entry("  %a = f32[] negate(%b)\n  ROOT %b = f32[] negate(%p)\n"),
            "line 4, column 21: instruction does not exist: b",
        ),
        (
            entry("  %a = f32[] negate(%p)\n  ROOT %a = f32[] negate(%p)\n"),
            "line 5, column 8: instruction already exists: a (previously defined at line 4, column 3)",
        ),
        (
            entry("  ROOT %r = f32[] call(%p), to_apply=%f\n"),
            "line 4, column 38: computation does not exist: f",
        ),
        (
            format!("HloModule m\n{f}{f}"),
            "line 5, column 1: computation already exists: f (previously defined at line 2, column 1)",
        ),
        (
            "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] add(f32[] p, q)\n}\n"
                .to_owned(),
            "line 4, column 31: instruction does not exist: q",
        ),
    ];
    for (text, expected) in &cases {
        assert_eq!(&error(text), expected, "{text}");
    }
    // One name in two computations is XLA's parser's business no more.
    let two = format!(
        "HloModule m\n{f}ENTRY %e (x: f32[]) -> f32[] {{\n  %x = f32[] parameter(0)\n  ROOT %r = f32[] call(%x), to_apply=%f\n}}\n"
    );
    assert_eq!(read(&two).unwrap().0.instructions, 3);
}

/// XLA's verifier refuses a header whose layout contradicts the entry
/// computation; the reader does too, rather than trust either.
#[test]
fn a_header_layout_must_agree_with_the_entry_computation() {
    let module = |layout: &str| {
        format!(
            "HloModule m, entry_computation_layout={{{layout}}}\nENTRY %e (p: f32[2]) -> f32[2] {{\n  ROOT %p = f32[2]{{0}} parameter(0)\n}}\n"
        )
    };
    assert_eq!(
        read(&module("(f32[2]{0})->f32[2]{0}"))
            .unwrap()
            .0
            .parameter_bytes
            .logical,
        8
    );
    assert_eq!(
        error(&module("(f32[4]{0})->f32[2]{0}")),
        "line 1, column 39: Shape of the entry computation parameter 0 is f32[2]{0} should be \
         compatible to the one specified in module's entry computation layout f32[4]{0}"
    );
    assert_eq!(
        error(&module("(f32[2]{0}, f32[2]{0})->f32[2]{0}")),
        "line 1, column 39: Number of parameters in entry computation layout (2) must be same \
         as number of parameters of entry computation (1)"
    );
    assert_eq!(
        error(&module("(f32[2]{0})->s32[2]{0}")),
        "line 1, column 39: Shape of the root instruction of entry computation (f32[2]{0}) \
         should be compatible to one specified in module's entry computation layout (s32[2]{0})"
    );
}

#[test]
fn an_unknown_opcode_is_a_warning_and_its_buffer_is_sized() {
    let text = "HloModule m\nENTRY %e (p: f32[]) -> f32[4] {\n  %p = f32[] parameter(0)\n  ROOT %r = f32[4]{0} frobnicate(%p)\n}\n";
    let (summary, seen) = read(text).unwrap();
    assert_eq!(
        summary.warnings,
        ["line 4, column 23: unknown opcode `frobnicate`, read as an instruction of its shape"]
    );
    assert_eq!(seen[1], "e/r frobnicate f32[4]{0}");
    assert_eq!(summary.output_bytes.logical, 16);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let text = "\u{feff}HloModule m\nENTRY %e (p: s8[3]) -> s8[3] {\n  ROOT %p = s8[3]{0} parameter(0)\n}\n";
    assert_eq!(read(text).unwrap().0.parameter_bytes.logical, 3);
    let module = hlo_util::read_module(text.as_bytes(), |_| {}).unwrap();
    assert_eq!(module.name, "m");
}

/// A line past the cap is refused before more of it is read: a stream of
/// a terabyte of one line takes the cap, not the stream.
#[test]
fn a_line_longer_than_the_cap_is_an_error() {
    use std::io::Read;
    let mut endless = std::io::BufReader::new(std::io::repeat(b'a').take(1 << 40));
    let error = read_text(&mut endless, |_| {}).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "line 1, column {}: the line is longer than {} bytes",
            hlo_util::MAX_LINE_BYTES + 1,
            hlo_util::MAX_LINE_BYTES
        )
    );
    let left = endless.get_ref().limit();
    assert!(
        left >= (1 << 40) - 2 * hlo_util::MAX_LINE_BYTES as u64,
        "{left}"
    );
}
