//! `hlo` of XLA's dumps edited to contradict themselves, to hold sizes
//! beyond `i64` or live ranges far past the schedule: a clear error naming
//! the field or line and the value, exit 1, never a signal or a picture
//! sized by the hostile value.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;

/// The text dumps of the golden program `mlp`, with `edit` applied to
/// `(buffer-assignment, live-range)`, written to `dir`.
fn edited(dir: &Path, edit: impl Fn(&mut String, &mut String)) -> PathBuf {
    let golden =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/mlp");
    let mut assignment = std::fs::read_to_string(golden.join("buffer-assignment.txt")).unwrap();
    let mut live_range = std::fs::read_to_string(golden.join("live-range.txt")).unwrap();
    edit(&mut assignment, &mut live_range);
    let path = dir.join("buffer-assignment.txt");
    std::fs::write(&path, assignment).unwrap();
    std::fs::write(dir.join("live-range.txt"), live_range).unwrap();
    path
}

/// `hlo FILE --timeline DIR/t.svg`: the exit code and the output.
fn hlo_timeline(dir: &Path, file: &Path) -> (i32, String) {
    let output = cargo_bin_cmd!("xla-shape")
        .arg("hlo")
        .arg(file)
        .arg("--timeline")
        .arg(dir.join("t.svg"))
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (output.status.code().expect("no signal"), text)
}

#[track_caller]
fn refused(edit: impl Fn(&mut String, &mut String), expected: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let file = edited(scratch.path(), edit);
    let (code, out) = hlo_timeline(scratch.path(), &file);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(expected), "{out}");
    assert!(!scratch.path().join("t.svg").exists());
}

fn replace(text: &mut String, from: &str, to: &str) {
    assert!(text.contains(from), "{from}");
    *text = text.replace(from, to);
}

#[test]
fn the_unedited_dumps_draw() {
    let scratch = tempfile::tempdir().unwrap();
    let file = edited(scratch.path(), |_, _| {});
    let (code, out) = hlo_timeline(scratch.path(), &file);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("peak: 64128 bytes at step 5"), "{out}");
}

#[test]
fn live_ranges_past_the_schedule() {
    for end in ["9223372036854775807", "100000000"] {
        refused(
            |_, live| {
                replace(
                    live,
                    "ynn_fusion.1{}:5-6",
                    &format!("ynn_fusion.1{{}}:5-{end}"),
                )
            },
            &format!(
                "live-range, line 15: the live range of `ynn_fusion.1{{}}` ends at {end}, past the schedule's end 9"
            ),
        );
    }
}

#[test]
fn sizes_negative_or_beyond_i64() {
    refused(
        |a, _| replace(a, "allocation 6: size 8192", "allocation 6: size -8192"),
        "buffer-assignment, line 15: allocation 6: size -8192 is negative",
    );
    refused(
        |a, _| {
            replace(
                a,
                "allocation 6: size 8192",
                "allocation 6: size 18446744073709551616",
            );
        },
        "buffer-assignment, line 15: allocation 6: size 18446744073709551616 is beyond i64",
    );
    // A temporary of 2^63 - 1 bytes beside the parameters: the peak
    // would pass i64::MAX.
    refused(
        |a, _| {
            replace(
                a,
                "allocation 6: size 8192",
                "allocation 6: size 9223372036854775807",
            );
            replace(
                a,
                "<17 ynn_fusion.1 @0> (size=8192,",
                "<17 ynn_fusion.1 @0> (size=9223372036854775807,",
            );
        },
        "the bytes are beyond i64",
    );
}

#[test]
fn dumps_that_contradict_themselves() {
    refused(
        |a, _| {
            replace(
                a,
                "<17 ynn_fusion.1 @0> (size=8192,offset=0)",
                "<17 ynn_fusion.1 @0> (size=8192,offset=1099511627776)",
            );
        },
        "buffer-assignment, line 16: value 17 (ynn_fusion.1): offset 1099511627776 and size 8192 pass the end of allocation 6 (8192 bytes)",
    );
    refused(
        |a, _| replace(a, "<19 add_tanh_fusion @0>", "<17 add_tanh_fusion @0>"),
        "buffer-assignment, line 17: value id 17 is defined twice (first on line 16)",
    );
    refused(
        |a, _| replace(a, "allocation 6:", "allocation 5:"),
        "buffer-assignment, line 15: allocation 5 where allocation 6 comes (each once, in order)",
    );
    refused(
        |_, live| replace(live, "    6:add_tanh_fusion\n", "    6:ynn_fusion.1\n"),
        "live-range, line 9: instruction `ynn_fusion.1` is in the sequence twice (steps 5 and 6)",
    );
    refused(
        |_, live| {
            replace(
                live,
                "    ynn_fusion{}:7-8\n",
                "    ynn_fusion{}:7-8\n    ynn_fusion.1{}:0-9\n",
            )
        },
        "live-range, line 20: `ynn_fusion.1{}` has a second live range",
    );
}
