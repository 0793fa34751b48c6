//! The command-line contract, run against the built binary: outputs, the
//! standard-input form, `--json`, and the exit statuses (0 all ok, 1 any
//! input failed, 2 bad usage). Expected values come from the seeds, XLA's
//! messages in the spec, and hand-worked layouts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

mod common;

use common::{json_lines, run};

/// Runs `xla-shape args...` (with `stdin` if given): stdout and exit code.
/// The JSON objects of `--json` output, one per line.
#[test]
fn parse_fills_in_the_default_layout_and_prints_canonically() {
    let (out, code) = run(
        &[
            "parse",
            "f32[2,3]",
            "(s32[], pred[4])",
            "bf16[8,128]{1,0:T(8,128)}",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "f32[2,3]{1,0}\n(s32[], pred[4]{0})\nbf16[8,128]{1,0:T(8,128)}\n"
    );
    let (out, _) = run(&["parse", "--no-layout", "f32[2,3]{0,1}"], None);
    assert_eq!(out, "f32[2,3]\n");
}

#[test]
fn list_commands_read_standard_input_and_go_on_after_a_failure() {
    let (out, code) = run(&["parse"], Some("f32[2]\nnot a shape\ns32[]\n"));
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], "f32[2]{0}");
    assert!(lines[1].starts_with("error: Syntax error:"), "{}", lines[1]);
    assert_eq!(lines[2], "s32[]");
}

#[test]
fn json_lines_carry_ok_input_and_fields() {
    let (out, code) = run(&["--json", "parse", "f32[2,3]", "f32[-1]"], None);
    assert_eq!(code, 1);
    let rows = json_lines(&out);
    assert_eq!(rows[0]["ok"], true);
    assert_eq!(rows[0]["input"], "f32[2,3]");
    assert_eq!(rows[0]["shape"], "f32[2,3]{1,0}");
    // element_type F32 = 11, dims [2,3], layout {1,0} with
    // tail_padding_alignment_in_elements 1, two static dimensions: the bytes
    // XLA writes (see tests/golden/shapes.jsonl).
    assert_eq!(rows[0]["hex"], "100b1a0202032a070a02010080010132020000");
    assert_eq!(rows[1]["ok"], false);
    assert_eq!(rows[1]["input"], "f32[-1]");
    assert!(rows[1]["error"].as_str().is_some_and(|e| !e.is_empty()));
}

#[test]
fn encode_and_decode_are_inverse() {
    let (hex, code) = run(&["encode", "f32[2,3]{0,1}"], None);
    assert_eq!(code, 0);
    let (out, code) = run(&["decode", hex.trim()], None);
    assert_eq!(code, 0);
    assert_eq!(out, "f32[2,3]{0,1}\n");
    let (text, _) = run(&["encode", "--text", "f32[2]"], None);
    // Protobuf text format, on one line.
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("element_type:F32"), "{text}");
    assert!(text.contains("dimensions:[2]"), "{text}");

    let (out, _) = run(&["--json", "decode", hex.trim()], None);
    let row = &json_lines(&out)[0];
    assert_eq!(row["hex"], hex.trim());
    assert!(
        row["text"]
            .as_str()
            .is_some_and(|t| t.contains("minor_to_major:[0,1]")),
        "{row}"
    );
}

#[test]
fn decode_reads_one_binary_message() {
    let bytes = [0x10, 0x0b, 0x1a, 0x02, 0x02, 0x03];
    let mut cmd = cargo_bin_cmd!("xla-shape");
    let output = cmd
        .args(["decode", "--binary"])
        .write_stdin(bytes.to_vec())
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "f32[2,3]\n");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_blank_line_of_hex_is_the_empty_message() {
    // decode: the empty Shape, as an empty argument gives it.
    let (from_stdin, code) = run(&["--json", "decode"], Some("\n1a0102\n"));
    assert_eq!(code, 0);
    let (from_args, _) = run(&["--json", "decode", "", "1a0102"], None);
    assert_eq!(from_stdin, from_args);
    assert_eq!(json_lines(&from_stdin)[0]["hex"], "");
    // sharding --hex: the empty OpSharding is {replicated}.
    let (out, code) = run(&["sharding", "--hex"], Some("\n0801220103\n"));
    assert_eq!(
        (out.as_str(), code),
        ("{replicated}\n{maximal device=3}\n", 0)
    );
    // validate --hex: the empty Shape is read, then refused as XLA refuses it.
    let (out, code) = run(&["validate", "--hex"], Some("\n"));
    assert_eq!(code, 1);
    assert!(out.contains("Invalid element type"), "{out}");
    // Text inputs still refuse a blank line.
    let (out, code) = run(&["sharding"], Some("\n"));
    assert_eq!(code, 1);
    assert!(out.contains("the input line is empty"), "{out}");
}

#[test]
fn decode_rejects_bad_hex_and_truncated_messages() {
    let (out, code) = run(&["decode", "0", "zz", "1a05"], None);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("odd number of digits"), "{}", lines[0]);
    assert!(lines[1].contains("\"zz\""), "{}", lines[1]);
    assert!(
        lines[2].starts_with("error: invalid Shape message"),
        "{}",
        lines[2]
    );
}

#[test]
fn validate_prints_ok_or_xlas_message() {
    let (out, code) = run(&["validate", "f32[2,3]{0,1}"], None);
    assert_eq!((out.as_str(), code), ("ok\n", 0));
    // element_type 0 (PRIMITIVE_TYPE_INVALID) with no dimensions.
    let (out, code) = run(&["validate", "--hex", "1000"], None);
    assert_eq!(code, 1);
    assert!(out.contains("Invalid element type"), "{out}");
    let (out, _) = run(&["--json", "validate", "f32[2]"], None);
    assert_eq!(json_lines(&out)[0]["ok"], true);
    // f32[2,3] without a layout: valid when XLA loads it
    // (ValidateShapeWithOptionalLayout), not under ValidateShape.
    assert_eq!(
        run(&["validate", "--hex", "100b1a020203"], None),
        ("ok\n".into(), 0)
    );
    assert_eq!(
        run(
            &["validate", "--require-layout", "--hex", "100b1a020203"],
            None
        ),
        ("error: shape f32[2,3] does not have a layout\n".into(), 1)
    );
    // The padded count (3 * 2^62) overflows, not the 6 elements.
    assert_eq!(
        run(
            &["validate", "f32[2,3]{0,1:PAD(3,4611686018427387904)}"],
            None
        ),
        (
            "error: the padded element count of f32[2,3] \
             (padded_dimensions [3,4611686018427387904]) overflows int64_t\n"
                .into(),
            1
        )
    );
}

#[test]
fn order_is_the_seeds_memory_picture() {
    // Seed 000: f32[2,3] with minor_to_major {0,1} is laid out `a d b e c f`.
    let (out, code) = run(&["order", "f32[2,3]{0,1}", "f32[2,3]{1,0}"], None);
    assert_eq!(code, 0);
    assert_eq!(out, "0 3 1 4 2 5\n0 1 2 3 4 5\n");
    // ... and padded to [3,5]: `a d 0 b e 0 c f 0 0 0 0 0 0 0`.
    let (out, _) = run(&["--json", "order", "f32[2,3]{0,1:PAD(3,5)}"], None);
    let order = &json_lines(&out)[0]["order"];
    let expected: Vec<Value> = [
        Some(0),
        Some(3),
        None,
        Some(1),
        Some(4),
        None,
        Some(2),
        Some(5),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    ]
    .iter()
    .map(|p| p.map_or(Value::Null, Value::from))
    .collect();
    assert_eq!(order, &Value::Array(expected));
}

#[test]
fn index_converts_both_ways_under_the_layout() {
    // Column-major f32[10,20]: element (3,5) is at 3 + 5 * 10.
    assert_eq!(
        run(&["index", "f32[10,20]{0,1}", "--multi", "3,5"], None),
        ("53\n".into(), 0)
    );
    // Row-major: 65 = 3 * 20 + 5.
    assert_eq!(
        run(&["index", "f32[10,20]{1,0}", "--linear", "65"], None),
        ("[3,5]\n".into(), 0)
    );
    // Padded to [3,5], column-major: (1,2) is at 1 + 2 * 3; position 2 is padding.
    assert_eq!(
        run(&["index", "f32[2,3]{0,1:PAD(3,5)}", "--multi", "1,2"], None),
        ("7\n".into(), 0)
    );
    let (out, code) = run(
        &["--json", "index", "f32[2,3]{0,1:PAD(3,5)}", "--linear", "2"],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(json_lines(&out)[0]["ok"], false);
    let (out, code) = run(&["--json", "index", "f32[2,3]", "--multi", "1,2"], None);
    assert_eq!(code, 0);
    let row = &json_lines(&out)[0];
    assert_eq!(
        (row["linear"].clone(), row["multi"].clone()),
        (Value::from(5), serde_json::json!([1, 2]))
    );
    let (out, code) = run(&["index", "f32[2,3]", "--multi", "2,0"], None);
    assert_eq!(code, 1);
    assert!(out.starts_with("error:"), "{out}");
}

#[test]
fn broadcast_follows_the_seed_examples() {
    // Seed 001: |1 2 3 4| + [5 6] with broadcast_dimensions (0) is 4x2.
    assert_eq!(
        run(&["broadcast", "[4]", "[1,2]", "--dims", "0"], None),
        ("[4,2]\n".into(), 0)
    );
    // 1x2 + 4x3x1 with (1,2) is 4x3x2.
    assert_eq!(
        run(&["broadcast", "[1,2]", "[4,3,1]", "--dims", "1,2"], None),
        ("[4,3,2]\n".into(), 0)
    );
    // The outer-product case (2,1) + (1,3).
    assert_eq!(
        run(&["broadcast", "f32[2,1]", "f32[1,3]"], None),
        ("f32[2,3]\n".into(), 0)
    );
    // (7,2,5) and (7,2,6) are incompatible.
    let (out, code) = run(&["broadcast", "f32[7,2,5]", "f32[7,2,6]"], None);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "error: Binary op with incompatible shapes: f32[7,2,5] and f32[7,2,6].\n"
    );
    // Without broadcast_dimensions, XLA refuses to guess.
    let (out, _) = run(&["broadcast", "f32[2,3]", "f32[3]"], None);
    assert_eq!(
        out,
        "error: Shapes must be equal rank, but are f32[3] and f32[2,3]\n"
    );
}

#[test]
fn broadcast_numpy_and_in_dim() {
    assert_eq!(
        run(&["broadcast", "--numpy", "[8,1,6,1]", "[7,1,5]"], None),
        ("[8,7,6,5]\n".into(), 0)
    );
    assert_eq!(
        run(
            &["broadcast", "--numpy", "[2,1]", "[3]", "f32[4,1,1]"],
            None
        ),
        ("[4,2,3]\n".into(), 0)
    );
    let (out, code) = run(
        &[
            "--json",
            "broadcast",
            "--in-dim",
            "f32[3]",
            "f32[2,3]",
            "--dims",
            "1",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out)[0]["shape"], "f32[2,3]");
    let (out, code) = run(
        &[
            "--json",
            "broadcast",
            "--in-dim",
            "f32[3]",
            "f32[2,3]",
            "--dims",
            "0",
        ],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(
        json_lines(&out)[0]["error"],
        "Input dimension should be either 1 or equal to the output dimension it is broadcasting \
         into; the 0th operand dimension is 3, the 0th output dimension is 2."
    );
}

#[test]
fn compare_reports_equality_and_bitcasts() {
    // f32[5,3]{1,0} and f32[3,5]{0,1} hold the same bytes: a transpose by (1,0).
    let (out, code) = run(
        &["--json", "compare", "f32[5,3]{1,0}", "f32[3,5]{0,1}"],
        None,
    );
    assert_eq!(code, 0);
    let row = &json_lines(&out)[0];
    assert_eq!(row["equal"], false);
    assert_eq!(row["same_dimensions"], false);
    assert_eq!(row["transpose_is_bitcast_dims"], serde_json::json!([1, 0]));
    let (out, _) = run(&["compare", "f32[2,3]{1,0}", "f32[2,3]{0,1}"], None);
    assert!(out.contains("equal: false\n"), "{out}");
    assert!(out.contains("compatible: true\n"), "{out}");
    assert!(out.contains("equal_ignoring_layout: true\n"), "{out}");
    assert!(out.contains("same_dimensions: true\n"), "{out}");
    // A reshape of a row-major [2,3] into [6] keeps the bytes in place.
    let (out, _) = run(&["--json", "compare", "f32[2,3]{1,0}", "f32[6]{0}"], None);
    assert_eq!(json_lines(&out)[0]["reshape_is_bitcast"], true);
}

#[test]
fn view_reproduces_the_slicing_example() {
    // Design note: A[0:3:2, 1:4:2] of a packed 3x4 array has strides (8,2)
    // in elements... (4*2, 1*2) and starts at element 1.
    let (out, code) = run(&["--json", "view", "[3,4]", "[0:3:2, 1:4:2]"], None);
    assert_eq!(code, 0);
    let row = &json_lines(&out)[0];
    assert_eq!(row["shape"], serde_json::json!([2, 2]));
    assert_eq!(row["strides"], serde_json::json!([8, 2]));
    assert_eq!(row["offset"], 1);
    assert_eq!(row["c_contiguous"], false);
    // Ops as separate arguments or one chain give the same view.
    let chained = run(&["view", "[2,3,4]", ".T[::-1, 1]"], None);
    let separate = run(&["view", "[2,3,4]", ".T", "[::-1, 1]"], None);
    assert_eq!(chained, separate);
    assert_eq!(
        chained.0,
        "shape: [4,2]\nstrides: [-1,12]\noffset: 7\nc_contiguous: false\nf_contiguous: false\n"
    );
}

#[test]
fn view_bases_from_xla_layouts_and_copy_needing_reshapes() {
    // Column-major f32[2,3]: strides (1,2); its transpose is C-contiguous.
    let (out, _) = run(&["--json", "view", "f32[2,3]{0,1}", ".T"], None);
    let row = &json_lines(&out)[0];
    assert_eq!(row["strides"], serde_json::json!([2, 1]));
    assert_eq!(row["c_contiguous"], true);
    // numpy cannot reshape a transposed array without copying.
    let (out, code) = run(&["view", "[2,3]", ".T.reshape(6)"], None);
    assert_eq!(code, 1);
    assert!(out.contains("copy"), "{out}");
    // Broadcasting gives stride 0.
    let (out, _) = run(&["--json", "view", "[3]", ".broadcast_to(2,3)"], None);
    assert_eq!(json_lines(&out)[0]["strides"], serde_json::json!([0, 1]));
    // as_strided outside the base buffer is refused.
    let (_, code) = run(
        &["view", "[6]", ".as_strided(shape=(4,4),strides=(1,1))"],
        None,
    );
    assert_eq!(code, 1);
}

/// numpy's spellings: `reshape(..., order='F')` and `ravel(order)`, each
/// checked against numpy 2.4 (shape and strides in elements).
#[test]
fn view_reshapes_in_numpys_orders_and_ravels_as_numpy() {
    let view = |base: &str, ops: &str| {
        let (out, code) = run(&["--json", "view", base, ops], None);
        let row = json_lines(&out).remove(0);
        (code, row)
    };
    // np.arange(12).reshape(3,4).T.reshape(2, -1, order='F'): strides (1, 2).
    let (code, row) = view("[3,4]", ".T.reshape(2, -1, order='F')");
    assert_eq!(code, 0);
    assert_eq!(
        (&row["shape"], &row["strides"]),
        (&serde_json::json!([2, 6]), &serde_json::json!([1, 2]))
    );
    assert_eq!(
        view("[3,4]", ".T.reshape(12, order='A')").1["strides"],
        serde_json::json!([1])
    );
    assert_eq!(view("[3,4]", ".reshape((12,), order=\"C\")").0, 0);
    // a[::-1].reshape(-1) is a view; a[::-1].ravel() is a copy.
    assert_eq!(
        view("[6]", "[::-1].reshape(-1)").1["strides"],
        serde_json::json!([-1])
    );
    let (code, row) = view("[6]", "[::-1].ravel()");
    assert_eq!(code, 1);
    assert_eq!(
        row["error"],
        "ravel(order='C') of shape (6,) with strides (-1,) needs a copy \
         (numpy returns a copy, not a view)"
    );
    // np.arange(24).reshape(2,3,4).transpose(2,0,1).ravel('K'): a view in memory order.
    let (code, row) = view("[2,3,4]", ".transpose(2,0,1).ravel('K')");
    assert_eq!(code, 0);
    assert_eq!(
        (&row["shape"], &row["strides"]),
        (&serde_json::json!([24]), &serde_json::json!([1]))
    );
    let (code, row) = view("[3,4]", "[:, ::-1].ravel(order='K')");
    assert_eq!(code, 1);
    assert!(
        row["error"].as_str().unwrap().contains("needs a copy"),
        "{row}"
    );
    assert_eq!(
        view("[3,4]", ".reshape(12, order='K')").1["error"],
        "order 'K' is not permitted for reshaping"
    );
}

/// numpy's 64-dimension limit applies to the base as to every result: the
/// error is the library's, whose text the views golden test compares with
/// numpy's (a reshape to 65 dimensions).
#[test]
fn view_bases_have_at_most_64_dimensions() {
    let dims = |n: usize| format!("[{}]", vec!["1"; n].join(","));
    let (out, code) = run(&["view", &dims(65)], None);
    assert_eq!(code, 1);
    let too_many = stride_util::ViewError::TooManyDimensions { ndim: 65 };
    assert_eq!(out, format!("error: {too_many}\n"));
    let shape = format!("f32{}", dims(65));
    let (out, _) = run(&["view", &shape], None);
    assert!(out.contains("found 65"), "{out}");
    assert_eq!(run(&["view", &dims(64)], None).1, 0);
}

#[test]
fn explain_reports_sizes_layout_padding_and_memory() {
    let (out, code) = run(&["explain", "f32[2,3]{0,1:PAD(3,5)PV(zero)}"], None);
    assert_eq!(code, 0);
    assert!(
        out.contains("memory: a d 0 b e 0 c f 0 0 0 0 0 0 0\n"),
        "{out}"
    );
    assert!(
        out.contains("major to minor: dim 1 (size 3), dim 0 (size 2)"),
        "{out}"
    );
    let (out, _) = run(
        &[
            "--json",
            "explain",
            "f32[2,3]{0,1:PAD(3,5)}",
            "(f32[2], s32[])",
        ],
        None,
    );
    let rows = json_lines(&out);
    let row = &rows[0];
    assert_eq!(row["element_type"], "f32");
    assert_eq!(
        (row["rank"].clone(), row["true_rank"].clone()),
        (Value::from(2), Value::from(2))
    );
    assert_eq!(row["element_count"], 6);
    // 15 padded positions of 4 bytes.
    assert_eq!(row["byte_size"], 60);
    assert_eq!(row["strides"], serde_json::json!([1, 3]));
    assert_eq!(row["byte_strides"], serde_json::json!([4, 12]));
    assert_eq!(row["major_to_minor"], serde_json::json!([1, 0]));
    assert_eq!(row["padded_dimensions"], serde_json::json!([3, 5]));
    // A tuple of two elements is two 8-byte pointers.
    assert_eq!(rows[1]["element_type"], "tuple");
    assert_eq!(rows[1]["byte_size"], 16);
    // true rank drops size-1 dimensions.
    let (out, _) = run(&["--json", "explain", "s4[1,8,1]"], None);
    assert_eq!(json_lines(&out)[0]["true_rank"], 1);
}

#[test]
fn bad_usage_exits_with_2() {
    for args in [
        &["frobnicate"][..],
        &["index", "f32[2]"],
        &["broadcast", "f32[2]"],
        &["compare", "f32[2]"],
        &["--bogus", "parse", "f32[]"],
        &["broadcast", "[2,3]", "[3]", "--dims", "x"],
        &["index", "f32[2]", "--linear", "1e3"],
        &["index", "f32[2]", "--multi", "1,x"],
        &["broadcast", "f32[2]", "f32[2]", "f32[2]"],
        &["broadcast", "--in-dim", "f32[2]"],
    ] {
        assert_eq!(run(args, None).1, 2, "{args:?}");
    }
    let (out, code) = run(&["--help"], None);
    assert_eq!(code, 0);
    assert!(out.contains("Examples:"), "{out}");
}

/// Runs `xla-shape args...`: stderr and exit code.
fn run_stderr(args: &[&str]) -> (String, i32) {
    let output = cargo_bin_cmd!("xla-shape")
        .args(args)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8(output.stderr).expect("utf-8 output");
    (stderr, output.status.code().expect("exited, not killed"))
}

#[test]
fn usage_errors_say_what_is_wrong() {
    let (err, code) = run_stderr(&["index", "f32[2]"]);
    assert_eq!(code, 2);
    assert!(err.contains("<--linear <LINEAR>|--multi <MULTI>>"), "{err}");
    let (err, code) = run_stderr(&["index", "f32[4]", "--linear", "99999999999999999999"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "99999999999999999999 is out of range: integers run from \
             -9223372036854775808 to 9223372036854775807"
        ),
        "{err}"
    );
    let (err, _) = run_stderr(&["broadcast", "f32[2]", "f32[2]", "f32[2]"]);
    assert!(err.contains("broadcast takes two shapes, got 3"), "{err}");
    assert!(err.contains("Usage: xla-shape broadcast"), "{err}");
    // The help names the arguments as the descriptions use them.
    let (help, _) = run(&["broadcast", "--help"], None);
    assert!(
        help.contains("Usage: xla-shape broadcast [OPTIONS] [SHAPE]..."),
        "{help}"
    );
    assert!(help.contains("the first SHAPE (the operand)"), "{help}");
    assert!(!help.contains("OPERAND"), "{help}");
}

#[test]
fn parse_errors_quote_the_offending_character() {
    let (out, code) = run(&["parse", "f32[2;3]", "😀", "f32[２,3]"], None);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "error: Syntax error: expects a list to end with kRsquare (at byte 5: `;`)\n\
         error: Syntax error: expected primitive type, saw kError (at byte 0: `😀` (U+1F600))\n\
         error: Syntax error: expects integer (at byte 4: `２` (U+FF12))\n"
    );
    // A byte order mark at the start of a line, and a blank line.
    let (out, code) = run(&["parse"], Some("\u{feff}f32[2]\n\nf32[]\n"));
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "error: Syntax error: expected primitive type, saw kError (at byte 0: `\\u{feff}` (U+FEFF))\n\
         error: the input line is empty\n\
         f32[]\n"
    );
    let (out, _) = run(&["parse", "f32[99999999999999999999]"], None);
    assert!(
        out.contains(
            "`99999999999999999999`, an integer out of range: \
             integers run from -9223372036854775808 to 18446744073709551615"
        ),
        "{out}"
    );
}

/// With no arguments and a terminal on standard input, a list command says
/// that it reads lines (checked under `script`, which gives it a terminal);
/// from a pipe it says nothing.
#[test]
fn list_commands_tell_a_terminal_user_they_read_lines() {
    const NOTICE: &str = "reading one input per line from standard input";
    let output = cargo_bin_cmd!("xla-shape")
        .arg("parse")
        .write_stdin("f32[2]\n")
        .output()
        .expect("the binary runs");
    assert!(output.stderr.is_empty(), "{output:?}");
    let binary = env!("CARGO_BIN_EXE_xla-shape");
    let Ok(output) = std::process::Command::new("script")
        .args(["-qec", &format!("{binary} parse"), "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
    else {
        eprintln!("no `script` to give the command a terminal; skipped");
        return;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(NOTICE), "{text}");
}

/// Whether `line` has a `[` or `{` outside single or double quotes, which
/// the shell would glob or expand.
fn has_unquoted_brackets(line: &str) -> bool {
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '[' | '{') => return true,
            _ => {}
        }
    }
    false
}

/// Every example command in `--help` and in the README quotes its shapes.
#[test]
fn examples_quote_their_shapes() {
    assert!(has_unquoted_brackets("xla-shape broadcast f32[2] 'f32[2]'"));
    assert!(!has_unquoted_brackets(
        "xla-shape view '[3,4]' \".T.reshape(2, order='F')\""
    ));
    let commands = [
        "",
        "parse",
        "encode",
        "decode",
        "validate",
        "index",
        "order",
        "broadcast",
        "compare",
        "view",
        "explain",
        "literal",
    ];
    let mut examples = Vec::new();
    for command in commands {
        let args: Vec<&str> = [command, "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let (help, code) = run(&args, None);
        assert_eq!(code, 0, "{args:?}");
        examples.extend(
            help.lines()
                .map(str::trim_start)
                .filter(|l| l.starts_with("xla-shape ") || l.starts_with("echo "))
                .map(|l| l.split(" #").next().unwrap_or(l).to_owned()),
        );
    }
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("the README");
    examples.extend(
        readme
            .lines()
            .filter_map(|l| l.strip_prefix("$ "))
            .map(str::to_owned),
    );
    assert!(examples.len() > 20, "{examples:?}");
    for example in examples {
        assert!(!has_unquoted_brackets(&example), "{example}");
    }
}

#[test]
fn index_and_compare_take_bare_dimension_lists() {
    assert_eq!(
        run(&["index", "[10,20]", "--multi", "3,5"], None),
        ("65\n".into(), 0)
    );
    let (out, code) = run(&["compare", "[2,3]", "f32[2,3]{1,0}"], None);
    assert_eq!(code, 0);
    assert!(out.starts_with("equal: true\n"), "{out}");
}

#[test]
fn padding_on_one_side_is_no_bitcast() {
    // 15 buffer positions against 6.
    let (out, code) = run(
        &["compare", "f32[2,3]{0,1:PAD(3,5)}", "f32[2,3]{0,1}"],
        None,
    );
    assert_eq!(code, 0);
    assert!(
        out.ends_with("reshape_is_bitcast: false\ntranspose_is_bitcast_dims: none\n"),
        "{out}"
    );
    let (out, _) = run(
        &["compare", "f32[2,3]{0,1}", "f32[3,2]{1,0:PAD(3,5)}"],
        None,
    );
    assert!(out.ends_with("transpose_is_bitcast_dims: none\n"), "{out}");
}

#[test]
fn broadcast_numpy_takes_any_number_of_shapes() {
    // np.broadcast_shapes((7,)) is (7,); np.broadcast_shapes() is ().
    assert_eq!(
        run(&["broadcast", "--numpy", "[7]"], None),
        ("[7]\n".into(), 0)
    );
    assert_eq!(run(&["broadcast", "--numpy"], None), ("[]\n".into(), 0));
}

#[test]
fn garbage_never_crashes_any_subcommand() {
    let garbage = [
        "",
        "[",
        "]",
        "(((((",
        "f32[9223372036854775807,9223372036854775807]",
        "f32[-9223372036854775808]",
        "f32[2]{5}",
        "f32[2,3]{0,0}",
        "s4[3]{0:E(4)PAD(1)}",
        "\u{1}\u{ffff}é",
        "f32[2]{0:T(0)}",
        "((((((((((((((((((((((((((((((((((((((((",
    ];
    for input in garbage {
        let commands: Vec<Vec<&str>> = vec![
            vec!["parse", input],
            vec!["encode", input],
            vec!["decode", input],
            vec!["validate", input],
            vec!["validate", "--hex", input],
            vec!["order", input],
            vec!["explain", input],
            vec!["index", input, "--linear", "-1"],
            vec!["index", input, "--multi", input],
            vec!["broadcast", input, input, "--dims", input],
            vec!["broadcast", "--numpy", input, input],
            vec!["broadcast", "--in-dim", input, "f32[2]", "--dims", "0"],
            vec!["compare", input, input],
            vec!["view", input, input],
            vec!["view", "[2,3]", input],
        ];
        for args in commands {
            // Garbage in an option's value is bad usage (2).
            let (_, code) = run(&args, None);
            assert!((0..=2).contains(&code), "{args:?} exited with {code}");
        }
    }
    // Deep nesting in a message or string is an error, not a stack overflow.
    let deep = format!("{}f32[]{}", "(".repeat(20_000), ")".repeat(20_000));
    assert_eq!(run(&["parse", &deep], None).1, 1);
    // 2,000 nested tuple_shapes fields (field 4, length-delimited).
    let mut message: Vec<u8> = Vec::new();
    for _ in 0..2_000 {
        let mut outer = vec![0x22];
        let mut len = message.len();
        while len >= 0x80 {
            outer.push(u8::try_from(len & 0x7f).unwrap() | 0x80);
            len >>= 7;
        }
        outer.push(u8::try_from(len).unwrap());
        outer.extend_from_slice(&message);
        message = outer;
    }
    let hex: String = message.iter().map(|b| format!("{b:02x}")).collect();
    let (out, code) = run(&["decode", &hex], None);
    assert_eq!(code, 1);
    assert!(out.contains("recursion limit"), "{out}");
}
