//! `xla-shape relayout`: raw buffers from standard input or `--input` to
//! standard output or `--output`, XLA's tiled-layout figure, packed
//! elements, and errors that write nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use serde_json::Value;

mod common;

use common::run_bytes as run;

/// Runs `xla-shape args...` with `stdin`: stdout bytes, stderr, exit code.
/// f32 values 1..=15: the 3×5 array of the figure, row-major, each + 1.
fn figure_rows() -> Vec<u8> {
    (1..=15_u16)
        .flat_map(|v| f32::from(v).to_le_bytes())
        .collect()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A fresh scratch directory for this test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("xla-shape-relayout-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn xla_figure_through_standard_input_and_output() {
    // XLA's figure f32[3,5]{1,0:T(2,2)}: 0 1 5 6 2 3 7 8 4 . 9 . 10 11 . .
    // 12 13 . . 14 . . . (here each element + 1, padding 0).
    let (out, err, code) = run(
        &["relayout", "f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}"],
        &figure_rows(),
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        f32s(&out),
        [
            1., 2., 6., 7., 3., 4., 8., 9., 5., 0., 10., 0., 11., 12., 0., 0., 13., 14., 0., 0.,
            15., 0., 0., 0.
        ]
    );
    // And back, into column-major.
    let (back, _, code) = run(&["relayout", "f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}"], &out);
    assert_eq!(code, 0);
    assert_eq!(
        f32s(&back),
        [
            1., 6., 11., 2., 7., 12., 3., 8., 13., 4., 9., 14., 5., 10., 15.
        ]
    );
}

#[test]
fn files_and_the_json_report() {
    let dir = scratch("files");
    let (input, output) = (dir.join("rows.bin"), dir.join("tiles.bin"));
    // bf16[10,200] in TPU tiles: 8192 bytes, as XLA allocates.
    let rows: Vec<u8> = (0..2000_u16).flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&input, &rows).unwrap();
    let (out, _, code) = run(
        &[
            "--json",
            "relayout",
            "bf16[10,200]",
            "bf16[10,200]{1,0:T(8,128)(2,1)}",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0);
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["bytes_read"], 4000);
    assert_eq!(report["bytes_written"], 8192);
    let tiles = std::fs::read(&output).unwrap();
    assert_eq!(tiles.len(), 8192);
    let at = |k: usize| u16::from_le_bytes([tiles[2 * k], tiles[2 * k + 1]]);
    // Rows 0 and 1 interleave: (0,0) (1,0) (0,1) (1,1) ...
    assert_eq!([at(0), at(1), at(2), at(3)], [0, 200, 1, 201]);
    // The second tile along the columns starts at column 128.
    assert_eq!([at(1024), at(1025)], [128, 328]);
    // Rows 8 and 9 start the second tile row; rows 10-15 are padding.
    assert_eq!(
        [at(2048), at(2049), at(2050), at(2051)],
        [1600, 1800, 1601, 1801]
    );
    assert_eq!(at(2048 + 2 * 127 + 2), 0);
    let (plain, _, code) = run(
        &[
            "relayout",
            "bf16[10,200]{1,0:T(8,128)(2,1)}",
            "bf16[10,200]",
            "-i",
            output.to_str().unwrap(),
            "-o",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0);
    assert_eq!(
        String::from_utf8(plain).unwrap(),
        format!(
            "wrote 4000 bytes of bf16[10,200]{{1,0}} to {}\n",
            input.display()
        )
    );
    assert_eq!(std::fs::read(&input).unwrap(), rows);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn packed_s4_elements() {
    // s4[3,5]{E(4)}: two elements per byte, low nibble first.
    let rows: Vec<u8> = (0..8_u8)
        .map(|b| (2 * b + 1) | ((2 * b + 2) % 16) << 4)
        .collect();
    let (out, _, code) = run(
        &["relayout", "s4[3,5]{1,0:E(4)}", "s4[3,5]{1,0:T(2,2)E(4)}"],
        &rows,
    );
    assert_eq!(code, 0);
    let nibbles: Vec<u8> = out.iter().flat_map(|b| [b & 15, b >> 4]).collect();
    assert_eq!(
        nibbles,
        [
            1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0, 11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0, 0
        ]
    );
}

#[test]
fn errors_write_nothing_and_exit_1() {
    let dir = scratch("errors");
    let output = dir.join("out.bin");
    std::fs::write(&output, b"keep").unwrap();
    let o = output.to_str().unwrap();
    let cases: [(&[&str], &[u8], &str); 5] = [
        (
            &["relayout", "f32[3,5]", "f32[3,5]{1,0:T(2,2)}", "-o", o],
            &[0; 59],
            "standard input has 59 bytes but a buffer of f32[3,5] has 60",
        ),
        (
            &["relayout", "f32[3,5]", "f32[3,5]{1,0:T(2,2)}", "-o", o],
            &[0; 61],
            "standard input has more than 60 bytes but a buffer of f32[3,5] has 60",
        ),
        (
            &["relayout", "f32[3,5]", "f32[3,4]{1,0:T(2,2)}", "-o", o],
            &[0; 60],
            "source f32[3,5]{1,0} and destination f32[3,4]{1,0:T(2,2)} are not the same array",
        ),
        (
            &["relayout", "f32[3,5]", "s32[3,5]{0,1}"],
            &[0; 60],
            "source f32[3,5]{1,0} and destination s32[3,5]{0,1} are not the same array",
        ),
        (
            &["relayout", "f32[4]", "f32[4]{0:T(2)(3)}"],
            &[0; 16],
            "f32[4]{0:T(2)(3)}: tile (3) pads the buffer to 6 elements, but XLA allocates 4",
        ),
    ];
    for (args, stdin, message) in cases {
        let (out, err, code) = run(args, stdin);
        assert_eq!(code, 1, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(message), "{err}");
        assert_eq!(std::fs::read(&output).unwrap(), b"keep");
    }
    let (out, err, code) = run(&["--json", "relayout", "f32[2]", "f32[2]{0:T(2)}"], &[0; 7]);
    assert_eq!((code, out.len()), (1, 0));
    let error: Value = serde_json::from_str(&err).unwrap();
    assert_eq!(error["ok"], false);
    assert_eq!(
        error["error"],
        "standard input has 7 bytes but a buffer of f32[2] has 8"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn huge_shapes_are_refused_before_their_buffers_are_allocated() {
    let dir = scratch("huge");
    let input = dir.join("in.bin");
    std::fs::write(&input, [0_u8; 32]).unwrap();
    let i = input.to_str().unwrap();
    let tb = "u8[1099511627776]";
    let cases: [(&[&str], &[u8], &str); 3] = [
        // A terabyte source: the file's size is checked before it is read.
        (
            &["relayout", tb, tb, "-i", i],
            &[],
            &format!("error: {i} has 32 bytes but a buffer of {tb} has 1099511627776\n"),
        ),
        (
            &["relayout", tb, tb],
            &[0; 32],
            "error: standard input has 32 bytes but a buffer of u8[1099511627776] has 1099511627776\n",
        ),
        // A tile of 2^40 elements pads 32 bytes to 4 TiB.
        (
            &["relayout", "f32[8]", "f32[8]{0:T(1099511627776)}", "-i", i],
            &[],
            "error: a buffer of f32[8]{0:T(1099511627776)} has 4398046511104 bytes, more than the \
             1081344 allowed (1024 times the source's plus 1048576)\n",
        ),
    ];
    for (args, stdin, message) in cases {
        let started = std::time::Instant::now();
        let (out, err, code) = run(args, stdin);
        assert_eq!((out.len(), err.as_str(), code), (0, message, 1), "{args:?}");
        assert!(started.elapsed().as_secs() < 10, "{args:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn help_shows_quoted_examples() {
    let (out, _, code) = run(&["relayout", "--help"], b"");
    assert_eq!(code, 0);
    let help = String::from_utf8(out).unwrap();
    assert!(help.contains(
        "xla-shape relayout 'bf16[4096,4096]{1,0}' 'bf16[4096,4096]{1,0:T(8,128)(2,1)}'"
    ));
    assert!(help.contains("--output <FILE>"));
}

#[test]
fn combined_tile_dimensions_follow_the_index_function() {
    // u8[2,3] in T(*,4): the two dimensions combined into 6, in one tile
    // of 4 and a padded one: a b c d | e f 0 0.
    let (out, err, code) = run(&["relayout", "u8[2,3]", "u8[2,3]{1,0:T(*,4)}"], b"abcdef");
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, b"abcdef\0\0");
    let (back, _, code) = run(&["relayout", "u8[2,3]{1,0:T(*,4)}", "u8[2,3]{0,1}"], &out);
    assert_eq!((code, back.as_slice()), (0, &b"adbecf"[..]));
}

#[test]
fn threads_write_the_bytes_of_one_thread() {
    // 4 MiB of f32: large enough for the pool to split every piece (at
    // most one chunk per 512 KiB), into a tiled and a padded layout.
    let input: Vec<u8> = (0..1024 * 1024 * 4).map(|i| (i % 251) as u8).collect();
    for dst in [
        "f32[1024,1024]{0,1:T(8,128)}",
        "f32[1024,1024]{0,1:PAD(1030,1100)}",
    ] {
        let (one, err, code) = run(&["relayout", "f32[1024,1024]{1,0}", dst], &input);
        assert_eq!((code, err.as_str()), (0, ""), "{dst}");
        for threads in ["2", "3"] {
            let args = ["relayout", "--threads", threads, "f32[1024,1024]{1,0}", dst];
            let (many, err, code) = run(&args, &input);
            assert_eq!((code, err.as_str()), (0, ""), "{dst} on {threads}");
            assert!(many == one, "{dst} on {threads} threads");
        }
        // And back, on a pool.
        let args = ["relayout", "--threads", "2", dst, "f32[1024,1024]{1,0}"];
        let (back, _, code) = run(&args, &one);
        assert_eq!(code, 0);
        assert!(back == input, "{dst} back");
    }
    let (_, err, code) = run(&["relayout", "--threads", "0", "f32[2]", "f32[2]"], &[0; 8]);
    assert_ne!(code, 0);
    assert!(err.contains("--threads"), "{err}");
}

#[test]
fn threads_beyond_four_a_cpu_run_on_four_a_cpu() {
    // A million threads asked for: the copy runs on at most 4 per CPU, so
    // it ends as soon as a few threads do (unbounded, starting them alone
    // took longer than 20 s).
    let input: Vec<u8> = (0..1024 * 1024 * 4).map(|i| (i % 251) as u8).collect();
    let dst = "f32[1024,1024]{0,1:T(8,128)}";
    let (one, _, code) = run(&["relayout", "f32[1024,1024]{1,0}", dst], &input);
    assert_eq!(code, 0);
    for threads in ["100000", "1000000", &usize::MAX.to_string()] {
        let start = std::time::Instant::now();
        let args = ["relayout", "--threads", threads, "f32[1024,1024]{1,0}", dst];
        let (many, err, code) = run(&args, &input);
        assert_eq!((code, err.as_str()), (0, ""), "{threads}");
        assert!(many == one, "{threads} threads");
        let took = start.elapsed();
        assert!(took.as_secs() < 10, "{threads} threads: {took:?}");
    }
}
