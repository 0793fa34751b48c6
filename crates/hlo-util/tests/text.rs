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
            "HloModule m\ne {\n x = f32[2] bogus()\n}",
            "line 3, column 13: unknown opcode `bogus`",
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
            "line 3, column 14: unknown opcode `x`",
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
