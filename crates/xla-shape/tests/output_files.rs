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

/// Runs `xla-shape ARGS` with standard output on `/dev/full`: standard
/// error and the exit status.
fn run_into_full_device(args: &[&str]) -> (String, i32) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_xla-shape"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(full)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().expect("exited, not killed"),
    )
}

#[test]
fn a_failed_write_to_standard_output_is_an_error_and_exit_1() {
    let module = format!(
        "{}/../../tests/golden/hlo/scan.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let lowered = format!(
        "{}/../../tests/golden/shardy/mlp.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    let buffer = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(buffer.path(), [1, 2, 3, 4]).unwrap();
    let buffer = buffer.path().to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["parse", "f32[2]"],
        &["draw", "f32[2,3]"],
        &["order", "f32[2,3]"],
        &["shard", "f32[8]", "{devices=[2]0,1}"],
        &["hlo", &module],
        &["lowered", &lowered],
        &["relayout", "u8[2,2]{1,0}", "u8[2,2]{0,1}", "-i", buffer],
    ];
    let reason = "cannot write standard output: No space left on device (os error 28)";
    for args in commands {
        for json in [false, true] {
            let mut all = if json { vec!["--json"] } else { vec![] };
            all.extend_from_slice(args);
            let (err, code) = run_into_full_device(&all);
            // relayout reports its failure as any failed input, on
            // standard error since its standard output is the buffer.
            let message = if json && args[0] == "relayout" {
                format!("{{\"ok\":false,\"error\":\"{reason}\"}}\n")
            } else {
                format!("error: {reason}\n")
            };
            assert_eq!((code, err), (1, message), "{all:?}");
        }
    }
}

#[test]
fn a_replaced_file_keeps_its_mode_and_a_read_only_one_is_refused() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
    let relayout = |path: &std::path::Path| {
        run(
            &[
                "relayout",
                "u8[2,2]{1,0}",
                "u8[2,2]{0,1}",
                "-o",
                path.to_str().unwrap(),
            ],
            &[1, 2, 3, 4],
        )
    };
    for private in [0o600, 0o640, 0o700] {
        let path = dir.path().join(format!("private-{private:o}.bin"));
        std::fs::write(&path, b"secret").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(private)).unwrap();
        let (_, err, code) = relayout(&path);
        assert_eq!((code, err.as_str()), (0, ""));
        assert_eq!(std::fs::read(&path).unwrap(), [1, 3, 2, 4]);
        assert_eq!(mode(&path), private, "{private:o}");
    }
    // Through `draw -o` as well.
    let svg = dir.path().join("picture.svg");
    std::fs::write(&svg, b"old").unwrap();
    std::fs::set_permissions(&svg, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (_, err, code) = run(&["draw", "f32[2,2]", "-o", svg.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mode(&svg), 0o600);

    // Read-only: refused (also to root, who could write it), left as it was.
    let read_only = dir.path().join("read-only.bin");
    std::fs::write(&read_only, b"keep").unwrap();
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (_, err, code) = relayout(&read_only);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error: cannot write output {}: a read-only file, not replaced\n",
            read_only.display()
        )
    );
    assert_eq!(std::fs::read(&read_only).unwrap(), b"keep");
    assert_eq!(mode(&read_only), 0o444);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 5);
}
