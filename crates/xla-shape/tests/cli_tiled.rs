//! `explain`, `order` and `index` under tiled layouts, against XLA's
//! tiled-layout document (figure 1: `f32[3,5]{1,0:T(2,2)}`) and the sizes
//! XLA's CPU client allocates (tests/golden/tiled_sizes.jsonl).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{Value, json};

fn run(args: &[&str]) -> (String, i32) {
    let output = cargo_bin_cmd!("xla-shape").args(args).output().unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

fn json_row(args: &[&str]) -> Value {
    let (out, _) = run(args);
    serde_json::from_str(out.lines().next().unwrap()).unwrap()
}

const FIGURE: &str = "f32[3,5]{1,0:T(2,2)}";

#[test]
fn order_is_xla_figure_1() {
    assert_eq!(
        run(&["order", FIGURE]),
        (
            "0 1 5 6 2 3 7 8 4 pad 9 pad 10 11 pad pad 12 13 pad pad 14 pad pad pad\n".to_owned(),
            0
        )
    );
    let row = json_row(&["--json", "order", "f32[5]{0:T(2,2)}"]);
    assert_eq!(
        row["order"],
        json!([0, 1, null, null, 2, 3, null, null, 4, null, null, null])
    );
}

#[test]
fn index_follows_the_tiles_both_ways() {
    // The document's worked example: (2,3) is at 17.
    assert_eq!(
        run(&["index", FIGURE, "--multi", "2,3"]),
        ("17\n".into(), 0)
    );
    assert_eq!(
        run(&["index", FIGURE, "--linear", "17"]),
        ("[2,3]\n".into(), 0)
    );
    let (_, code) = run(&["index", FIGURE, "--linear", "9"]);
    assert_eq!(code, 1, "position 9 is tile padding");
    let (_, code) = run(&["index", FIGURE, "--linear", "24"]);
    assert_eq!(code, 1, "past the buffer");
    // order[index(m)] == rowmajor(m) for every element.
    let order = json_row(&["--json", "order", FIGURE])["order"].clone();
    for i in 0..3 {
        for j in 0..5 {
            let row = json_row(&["--json", "index", FIGURE, "--multi", &format!("{i},{j}")]);
            let position = row["linear"].as_u64().unwrap() as usize;
            assert_eq!(order[position], json!(i * 5 + j));
        }
    }
}

#[test]
fn explain_reports_tiles_buffer_size_and_no_strides() {
    let (out, code) = run(&["explain", "bf16[10,200]{1,0:T(8,128)(2,1)}"]);
    assert_eq!(code, 0);
    for line in [
        "byte size: 4000\n",
        "tiles: 8x128 tiles over the 2 most minor dimensions, then 2x1 tiles over the 2 most minor dimensions of the result; laid out as [2,2,8,128], then [2,2,4,128,2,1]\n",
        "buffer size: 8192 bytes (4096 positions for 2000 elements, 16 bits each)\n",
        "strides: none (a tiled buffer has no strides)\n",
        "padding: 2096 positions of tile and tail padding (any value)",
    ] {
        assert!(out.contains(line), "{line} not in {out}");
    }
    let (out, _) = run(&["explain", FIGURE]);
    assert!(
        out.contains("memory: a b f g c d h i e . j . k l . . m n . . o . . .\n"),
        "{out}"
    );
    // XLA's CPU client allocates 2048 bytes for s4[10,200]{1,0:T(8,128)(4,1)E(4)}.
    let row = json_row(&["--json", "explain", "s4[10,200]{1,0:T(8,128)(4,1)E(4)}"]);
    assert_eq!(row["buffer_size"], 2048);
    assert_eq!(row["byte_size"], 1000);
    assert_eq!(row["tiles"], json!([[8, 128], [4, 1]]));
    assert_eq!(row["strides"], Value::Null);
    assert_eq!(row["byte_strides"], Value::Null);
    let row = json_row(&[
        "--json",
        "explain",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
    ]);
    assert_eq!(row["tiles"], json!([["*", "*", 2, "*", 3]]));
    assert_eq!(row["buffer_size"], 112 * 111 * 4);
    // Untiled: the buffer is the classic padded one, strides as before.
    let row = json_row(&["--json", "explain", "f32[2,3]{0,1:PAD(3,5)}"]);
    assert_eq!(row["buffer_size"], 60);
    assert_eq!(row["strides"], json!([1, 3]));
    assert_eq!(row["tiles"], json!([]));
}

#[test]
fn unsupported_tilings_are_errors_not_guesses() {
    // A later tile that pads beyond the first: XLA allocates 96 bytes but
    // its index formula would address 36 elements.
    let (out, code) = run(&["--json", "order", "f32[3,5]{1,0:T(2,2)(3)}"]);
    assert_eq!(code, 1);
    assert!(out.contains("XLA allocates 24"), "{out}");
    let (_, code) = run(&["explain", "f32[4,4]{1,0:T(2,*)}"]);
    assert_eq!(code, 1);
}
