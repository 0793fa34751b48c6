//! `-o` of `relayout`, `literal` and `draw`: a regular file replaced
//! whole, a symbolic link's target, a FIFO or a device written where it
//! is, and a write error reported with exit status 1.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::FileTypeExt;

mod common;

use common::run_bytes as run;

/// A LiteralProto of f32[2] {1, 2} in hex (as `literal --from` makes it).
fn literal_hex() -> String {
    let bytes: Vec<u8> = [1.0_f32, 2.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let (out, _, code) = run(&["literal", "--from", "f32[2]"], &bytes);
    assert_eq!(code, 0);
    String::from_utf8(out).unwrap().trim().to_owned()
}

#[test]
fn a_full_device_is_an_error_and_exit_1() {
    let full = "/dev/full: No space left on device (os error 28)\n";
    let cases: [(&[&str], &[u8], String); 3] = [
        (
            &["relayout", "u8[4]", "u8[4]", "-o", "/dev/full"],
            &[1, 2, 3, 4],
            format!("error: cannot write output {full}"),
        ),
        (
            &["draw", "f32[4,4]", "-o", "/dev/full"],
            &[],
            format!("error: cannot write {full}"),
        ),
        (
            &["literal", "--hex", &literal_hex(), "-o", "/dev/full"],
            &[],
            format!("error: cannot write output {full}"),
        ),
    ];
    for (args, stdin, message) in cases {
        let (out, err, code) = run(args, stdin);
        assert_eq!(code, 1, "{args:?}: {err}");
        // draw and literal report on standard output, relayout on standard error.
        let said = format!("{}{err}", String::from_utf8(out).unwrap());
        assert_eq!(said, message, "{args:?}");
        assert!(
            std::fs::metadata("/dev/full")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}

#[test]
fn a_symbolic_link_keeps_pointing_at_the_file_written() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("buffer.bin");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (_, err, code) = run(
        &[
            "relayout",
            "u8[2,2]{1,0}",
            "u8[2,2]{0,1}",
            "-o",
            link.to_str().unwrap(),
        ],
        &[1, 2, 3, 4],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), [1, 3, 2, 4]);
}

#[test]
fn a_fifo_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let (_, err, code) = run(
        &[
            "literal",
            "--hex",
            &literal_hex(),
            "-o",
            fifo.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let read = reader.join().unwrap();
    let want: Vec<u8> = [1.0_f32, 2.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(read, want);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}
