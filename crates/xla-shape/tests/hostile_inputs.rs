//! Hostile input on the command line: sizes at the edge of `i64`, lowered
//! modules that contradict themselves, are cut short or repeat a
//! definition, and Shardy meshes of many axes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::run;

/// `s8[2^60]` takes 2^60 bytes, which XLA's `ValidateShapeSize`
/// (`xla/shape_util.cc`: the extent product times the byte width must fit
/// `int64_t`) accepts; its 2^63 bits do not fit, and no command may bound
/// the bits instead of the bytes.
#[test]
fn every_command_bounds_bytes_as_validate_does() {
    let shape = "s8[1152921504606846976]";
    assert_eq!(run(&["validate", shape], None), ("ok\n".to_owned(), 0));
    let (out, code) = run(&["explain", shape], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\nbuffer size: 1152921504606846976 bytes\n"),
        "{out}"
    );
    let (out, code) = run(&["shard", shape, "{replicated}", "--devices", "2"], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n1       [0]   [0]      [1152921504606846976]  1152921504606846976\n"),
        "{out}"
    );
    // One byte past: refused by all of them, naming the bytes.
    let shape = "f32[2305843009213693952]";
    let (out, code) = run(&["validate", shape], None);
    assert_eq!(
        (out.as_str(), code),
        (
            "error: Shape f32[2305843009213693952] size may overflow int64_t.\n",
            1
        )
    );
    let (out, code) = run(&["--json", "explain", shape], None);
    assert_eq!(code, 1);
    assert!(out.contains("overflows int64_t"), "{out}");
    let (out, code) = run(
        &["--json", "shard", shape, "{replicated}", "--devices", "2"],
        None,
    );
    assert_eq!(code, 1);
    assert!(out.contains("are beyond i64"), "{out}");
}
