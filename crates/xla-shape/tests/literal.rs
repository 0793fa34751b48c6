//! `xla-shape literal`: real XLA LiteralProtos (`literals.jsonl`) printed
//! as XLA prints them, laid out as XLA's CPU device holds them, and built
//! back from buffers byte for byte; errors and usage errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{field, hex_decode, load, required};
use serde_json::Value;

mod common;

use common::run_bytes as run;

/// Runs `xla-shape args...` with `stdin`: stdout bytes, stderr, exit code.
fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap().trim_end().to_owned()
}

/// Golden rows with an XLA device buffer (a few of each kind of type).
fn device_rows() -> Vec<conformance::Row> {
    load("literals.jsonl")
        .unwrap()
        .into_iter()
        .filter(|row| field(row, "device_hex").is_some())
        .step_by(7)
        .collect()
}

#[test]
fn prints_lays_out_and_builds_back_as_xla() {
    let rows = device_rows();
    assert!(rows.len() > 15);
    for row in rows {
        let hex = required(&row, "hex").unwrap();
        let (out, err, code) = run(&["literal", "--hex", "--print", hex], b"");
        assert_eq!((code, err.as_str()), (0, ""), "{hex}");
        assert_eq!(text(out), required(&row, "text").unwrap());

        // The buffer in the device's layout is the device's bytes.
        let device = required(&row, "device_shape").unwrap();
        let layout = &device[device.find('{').unwrap()..];
        let (out, err, code) = run(&["literal", "--hex", "--layout", layout], hex.as_bytes());
        assert_eq!((code, err.as_str()), (0, ""), "{device}");
        assert_eq!(
            out,
            hex_decode(required(&row, "device_hex").unwrap()).unwrap(),
            "{device}"
        );

        // Built back from the device buffer: a LiteralProto of the device's
        // layout, whose own buffer is that buffer again.
        let (built, err, code) = run(&["literal", "--from", device], &out);
        assert_eq!((code, err.as_str()), (0, ""), "{device}");
        let built = text(built);
        let (again, _, code) = run(&["literal", "--hex", &built, "--layout", layout], b"");
        assert_eq!((code, again), (0, out), "{device}");
    }
}

#[test]
fn from_own_buffer_is_xla_bytes() {
    let rows = load("literals.jsonl").unwrap();
    let row = rows
        .iter()
        .find(|r| field(r, "input").is_some_and(|i| i.starts_with("f32[2,3]{0,1}")))
        .unwrap();
    let hex = required(row, "hex").unwrap();
    let (buffer, _, code) = run(&["literal", "--hex", hex], b"");
    assert_eq!(code, 0);
    let (out, _, code) = run(&["--json", "literal", "--from", "f32[2,3]{0,1}"], &buffer);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["hex"], hex);
    assert_eq!(json["shape"], "f32[2,3]{0,1}");
}

#[test]
fn files_in_and_out() {
    let dir = std::env::temp_dir().join(format!("xla-shape-literal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (data, message, tiles) = (
        dir.join("data.bin"),
        dir.join("lit.pb"),
        dir.join("tiles.bin"),
    );
    std::fs::write(&data, [1_u8, 2, 3, 4, 5, 6]).unwrap();
    let (_, err, code) = run(
        &[
            "literal",
            "--from",
            "s8[2,3]",
            "-i",
            data.to_str().unwrap(),
            "-o",
            message.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let (out, _, code) = run(
        &[
            "--json",
            "literal",
            message.to_str().unwrap(),
            "--layout",
            "{1,0:T(2,2)}",
            "-o",
            tiles.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0);
    let json: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["shape"], "s8[2,3]{1,0:T(2,2)}");
    assert_eq!(json["bytes_written"], 8);
    assert_eq!(std::fs::read(&tiles).unwrap(), [1, 2, 4, 5, 3, 0, 6, 0]);
    // A binary message on standard input, printed.
    let bytes = std::fs::read(&message).unwrap();
    let (out, _, code) = run(&["literal", "--print"], &bytes);
    assert_eq!(
        (code, text(out).as_str()),
        (0, "{ { 1, 2, 3 }, { 4, 5, 6 } }")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_sizes_and_exit_1() {
    // f32[2,3] with 5 values: XLA's message with the f32s field cut short.
    let (full, _, code) = run(&["literal", "--from", "f32[2,3]"], &[0; 24]);
    assert_eq!(code, 0);
    let full = text(full);
    let short = full.replace(
        &format!("4218{}", "00".repeat(24)),
        &format!("4214{}", "00".repeat(20)),
    );
    let short = short.as_str();
    let (out, _, code) = run(&["--json", "literal", "--hex", "--print", short], b"");
    assert_eq!(code, 1);
    let json: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["ok"], false);
    assert_eq!(
        json["error"],
        "f32[2,3]{1,0} needs 6 values in f32s, the LiteralProto has 5"
    );
    // The buffer is written to standard output: errors go to standard error.
    let (out, err, code) = run(&["literal", "--hex", short], b"");
    assert_eq!((code, out.len()), (1, 0));
    assert!(
        err.contains("needs 6 values in f32s, the LiteralProto has 5"),
        "{err}"
    );
    let (out, _, code) = run(&["literal", "--from", "f32[2,3]"], &[0; 20]);
    assert_eq!(code, 1);
    assert_eq!(
        text(out),
        "error: standard input has 20 bytes but a buffer of f32[2,3] has 24"
    );
    let (out, _, code) = run(&["literal", "--hex", "--print", "zz"], b"");
    assert_eq!(code, 1);
    assert!(text(out).contains("invalid hex digits"));
    let (out, _, code) = run(&["literal", "--hex", "--print", "0a"], b"");
    assert_eq!(code, 1);
    assert!(text(out).contains("not a LiteralProto"));
}

#[test]
fn a_huge_shape_from_a_short_input_is_refused_at_once() {
    // Reserving the terabyte before reading the 32 bytes aborted.
    let started = std::time::Instant::now();
    let (out, _, code) = run(&["literal", "--from", "u8[1099511627776]"], &[0; 32]);
    assert_eq!(
        (text(out).as_str(), code),
        (
            "error: standard input has 32 bytes but a buffer of u8[1099511627776] has 1099511627776",
            1
        )
    );
    assert!(started.elapsed().as_secs() < 10);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["literal", "--print", "--from", "f32[2]"][..],
        &["literal", "--input", "x.bin"],
        &["literal", "--hex", "--from", "f32[2]"],
        &["literal", "--element", "x"],
    ] {
        let (_, _, code) = run(args, b"");
        assert_eq!(code, 2, "{args:?}");
    }
}

#[test]
fn tuple_elements_by_index() {
    let rows = load("literals.jsonl").unwrap();
    let row = rows
        .iter()
        .find(|r| field(r, "input").is_some_and(|i| i.starts_with("(f32[], (s8[2], pred[]), ())")))
        .unwrap();
    let hex = required(row, "hex").unwrap();
    let (out, _, code) = run(&["literal", "--hex", "--print", hex], b"");
    assert_eq!(
        (code, text(out).as_str()),
        (0, "( 1.5, ( {3, -4}, true ), (  ) )")
    );
    let (out, _, code) = run(
        &["literal", "--hex", "--print", hex, "--element", "1,0"],
        b"",
    );
    assert_eq!((code, text(out).as_str()), (0, "{3, -4}"));
    let (out, _, code) = run(&["literal", "--hex", hex, "--element", "1,0"], b"");
    assert_eq!((code, out), (0, vec![3, 0xfc]));
    // A tuple has no single buffer; an index past the tuple is an error.
    let (_, err, code) = run(&["literal", "--hex", hex], b"");
    assert_eq!(code, 1);
    assert!(err.contains("is not an array"), "{err}");
    let (out, _, code) = run(&["literal", "--hex", "--print", hex, "--element", "3"], b"");
    assert_eq!(code, 1);
    let out = text(out);
    assert!(out.contains("index 3 is out of range"), "{out}");
}
