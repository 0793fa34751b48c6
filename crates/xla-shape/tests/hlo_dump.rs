//! `hlo` of XLA's dumps: the HloProto and the text dumps, told apart by
//! content, give XLA's peak; text, JSON and errors as the CLI's others.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn program(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden/peak_memory")
        .join(name)
}

fn hlo(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let output = cargo_bin_cmd!("xla-shape").args(args).output().unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (output.status.code().unwrap(), text)
}

#[test]
fn both_dumps_give_the_same_peak_and_json_lists_every_live_buffer() {
    let dir = program("scan_layers_grad");
    let proto = dir.join("after_optimizations.hlo.pb");
    let text = dir.join("buffer-assignment.txt");
    let json = |file: &PathBuf| {
        let (code, out) = hlo(&[
            "--json".as_ref(),
            "hlo".as_ref(),
            file.as_os_str(),
            "--top".as_ref(),
            "2".as_ref(),
        ]);
        assert_eq!(code, 0, "{out}");
        assert!(out.starts_with("{\"ok\":true,\"peak_bytes\":"), "{out}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let (a, b) = (json(&proto), json(&text));
    assert_eq!(a["peak_bytes"], b["peak_bytes"]);
    assert_eq!(a["peak_at"]["unit"], "heap_event");
    assert_eq!(b["peak_at"]["unit"], "schedule_step");
    assert_eq!(b["live_at_peak"].as_array().unwrap().len(), 19);
    // The live ranges named, in place of the file beside.
    let (code, out) = hlo(&[
        "hlo".as_ref(),
        text.as_os_str(),
        "--live-range".as_ref(),
        dir.join("live-range.txt").as_os_str(),
        "--top".as_ref(),
        "1".as_ref(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("peak: 69672 bytes at step 29 (ynn_fusion)\n"),
        "{out}"
    );
    assert!(out.ends_with("... 18 more buffers: 45096 bytes\n"), "{out}");
}

#[test]
fn what_is_not_a_dump_reads_as_before_and_bad_dumps_say_why() {
    let dir = program("attention");
    let (code, out) = hlo(&[
        "hlo".as_ref(),
        dir.join("compiled.txt").as_os_str(),
        "--top".as_ref(),
        "1".as_ref(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("module jit_attention: "), "{out}");
    let (code, out) = hlo(&[
        "hlo".as_ref(),
        "-".as_ref(),
        "--timeline".as_ref(),
        "t.svg".as_ref(),
    ]);
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "error: XLA's dumps are read from their files, not standard input\n"
        )
    );
    let scratch = tempfile::tempdir().unwrap();
    let lonely = scratch.path().join("module.txt");
    std::fs::copy(dir.join("buffer-assignment.txt"), &lonely).unwrap();
    let (code, out) = hlo(&["hlo".as_ref(), lonely.as_os_str()]);
    assert_eq!(code, 1);
    assert!(
        out.ends_with("a buffer-assignment dump needs its live ranges: --live-range FILE\n"),
        "{out}"
    );
    // A dump whose assignment names a buffer the module lacks.
    let mut bytes = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
    bytes.truncate(bytes.len() - 9);
    let cut = scratch.path().join("cut.hlo.pb");
    std::fs::write(&cut, &bytes).unwrap();
    let (code, out) = hlo(&["--json".as_ref(), "hlo".as_ref(), cut.as_os_str()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("{\"ok\":false"), "{out}");
}
