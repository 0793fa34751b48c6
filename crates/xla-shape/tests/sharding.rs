//! The sharding commands against the built binary: `sharding`, `shard`,
//! `reshard` and `draw --sharding`, their JSON keys and exit statuses.
//! Expected values are XLA's (golden rows in tests/golden/sharding_*.jsonl).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

mod common;

use common::run;

fn json_line(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim()).unwrap()
}

#[test]
fn sharding_prints_xla_canonical_text_and_bytes() {
    let (out, code) = run(
        &[
            "sharding",
            "{devices=[2,4]<=[2,4]T(0,1)}",
            "{devices=[2,2,2]<=[8] last_tile_dims={replicated}}",
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "{devices=[2,4]<=[8]}\n{devices=[2,2,2]<=[8] last_tile_dim_replicate}\n",
            0
        )
    );
    let (out, code) = run(&["--json", "sharding"], Some("{maximal device=3}\n"));
    assert_eq!(code, 0);
    assert_eq!(
        json_line(&out),
        json!({"ok": true, "sharding": "{maximal device=3}", "hex": "0801220103", "input": "{maximal device=3}"})
    );
    let (out, code) = run(&["sharding", "--hex", "08031a0202044a0108520100", ""], None);
    assert_eq!(
        (out.as_str(), code),
        ("{devices=[2,4]<=[8]}\n{replicated}\n", 0)
    );
    let (out, code) = run(&["--json", "sharding", "{devices=[2,4]<=[8]T(0)}"], None);
    assert_eq!(code, 1);
    let v = json_line(&out);
    assert_eq!(v["ok"], json!(false));
    assert_eq!(
        v["error"],
        json!("Syntax error:\nunexpected token (at byte 19: `T`)")
    );
}

/// `OpSharding` bytes as jaxlib 0.12's `from_proto` reads them and its
/// `to_proto` writes them (rows of tests/golden/sharding_protos.jsonl).
#[test]
fn sharding_hex_reads_and_writes_as_xla() {
    for (hex, text, bytes) in [
        // Any shard_group_type but AS (0) is LIKE.
        (
            "08031a010222020001580160016863",
            "{devices=[2]0,1 shard_like 1}",
            "08031a010222020001580160016801",
        ),
        // A tiled sharding of one device, listed or iota, is replicated.
        ("08031a0101220105", "{replicated}", ""),
        ("08031a020101220100", "{replicated}", ""),
        ("08031a0201014a0101520100", "{replicated}", ""),
        // A tuple in a tuple.
        (
            "08022a0808022a002a0208042a00",
            "{{{replicated}, {manual}}, {replicated}}",
            "08022a0808022a002a0208042a00",
        ),
        // Unreduced writes its reduction (sdy::reduction_op SUM) as metadata.
        (
            "0806",
            "{unreduced}",
            "08063a180a117364793a3a726564756374696f6e5f6f70120353554d",
        ),
    ] {
        let (out, code) = run(&["--json", "sharding", "--hex", hex], None);
        assert_eq!(code, 0, "{hex}");
        assert_eq!(
            json_line(&out),
            json!({"ok": true, "sharding": text, "hex": bytes, "input": hex}),
            "{hex}"
        );
    }
}

#[test]
fn where_xla_crashes_we_answer() {
    for text in [
        "{devices=[2,4]<=[4,2]T(0,0)}",
        "{devices=[9223372036854775807]<=[9223372036854775807]}",
    ] {
        let (out, code) = run(&["sharding", text], None);
        assert_eq!(code, 1, "{text}: {out}");
        assert!(out.starts_with("error: "), "{text}: {out}");
    }
}

#[test]
fn shard_lists_every_device() {
    let (out, code) = run(
        &["--json", "shard", "f32[7,9]", "{devices=[2,4]<=[8]}"],
        None,
    );
    assert_eq!(code, 0);
    let v = json_line(&out);
    assert_eq!(v["shard_shape"], json!("f32[4,3]{1,0}"));
    assert_eq!(
        v["devices"][7],
        json!({"device": 7, "tile": [1, 3], "offsets": [4, 9], "limits": [7, 9], "bytes": 0})
    );
    assert_eq!(v["devices"].as_array().unwrap().len(), 8);
    let (out, code) = run(
        &[
            "--json",
            "shard",
            "f32[8]",
            "{replicated}",
            "--devices",
            "4",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert_eq!(json_line(&out)["replication_groups"], json!([[0, 1, 2, 3]]));
    let (_, code) = run(&["shard", "f32[8]", "{replicated}"], None);
    assert_eq!(code, 1);
    // A sharding of 8 devices is not laid out over 4 (XLA refuses it too).
    let args = ["shard", "f32[8]", "{devices=[8]<=[8]}", "--devices", "4"];
    let (out, code) = run(&args, None);
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "error: {devices=[8]<=[8]} has 8 devices, not the 4 given\n"
        )
    );
    let args = ["shard", "f32[8]", "{devices=[8]<=[8]}", "--devices", "8"];
    assert_eq!(run(&args, None).1, 0);
}

#[test]
fn reshard_covers_each_destination_once() {
    let (out, code) = run(
        &[
            "--json",
            "reshard",
            "f32[4]",
            "{devices=[2]0,1}",
            "{devices=[2]1,0}",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert_eq!(
        json_line(&out),
        json!({"ok": true, "pieces": [
            {"from": 1, "to": 0, "offsets": [2], "limits": [4], "bytes": 8},
            {"from": 0, "to": 1, "offsets": [0], "limits": [2], "bytes": 8}
        ], "bytes_moved": 16, "bytes_kept": 0})
    );
}

#[test]
fn reshard_between_device_orders_totals_jaxs_bytes() {
    // `device_put` between meshes whose devices are in other orders
    // (tests/golden/reshard_device_ids.jsonl): the bytes each device already
    // held are kept, by device id.
    for row in conformance::load("reshard_device_ids.jsonl").unwrap() {
        let ids = |key: &str| {
            row[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let dims: Vec<String> = row["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect();
        let ty = match row["dtype"].as_str().unwrap() {
            "float32" => "f32",
            "int32" => "s32",
            "int16" => "s16",
            other => panic!("{other}"),
        };
        let shape = format!("{ty}[{}]", dims.join(","));
        let (from_ids, to_ids) = (ids("from_ids"), ids("to_ids"));
        let (out, code) = run(
            &[
                "--json",
                "reshard",
                &shape,
                row["from"].as_str().unwrap(),
                row["to"].as_str().unwrap(),
                "--from-device-ids",
                &from_ids,
                "--to-device-ids",
                &to_ids,
            ],
            None,
        );
        assert_eq!(code, 0, "{out}");
        let plan = json_line(&out);
        assert_eq!(
            plan["bytes_kept"], row["bytes_kept"],
            "{shape} {from_ids} {to_ids}"
        );
        assert_eq!(
            plan["bytes_moved"], row["bytes_moved"],
            "{shape} {from_ids} {to_ids}"
        );
    }
}

#[test]
fn sizes_beyond_i64_are_errors_naming_the_value() {
    // 3 * 6148914691236517206 elements wrap to 2 modulo 2^64.
    let (out, code) = run(
        &[
            "shard",
            "f32[3,6148914691236517206]",
            "{replicated}",
            "--devices",
            "1",
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "error: the bytes of device 0's box [0,0] to [3,6148914691236517206] of \
             f32[3,6148914691236517206] are beyond i64\n",
            1
        )
    );
    let (out, code) = run(
        &[
            "reshard",
            "u8[4611686018427387904]",
            "{devices=[8]<=[8]}",
            "{replicated}",
            "--devices",
            "8",
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "error: the bytes moved are beyond i64: 8646911284551352320 + 576460752303423488 for device 2\n",
            1
        )
    );
}

#[test]
fn reshard_refuses_too_many_devices_or_pieces_at_once() {
    let started = std::time::Instant::now();
    let (out, code) = run(
        &[
            "reshard",
            "f32[8]",
            "{replicated}",
            "{replicated}",
            "--devices",
            "2147483647",
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "error: 2147483647 devices are more than the 1048576 a reshard plan covers\n",
            1
        )
    );
    let (out, code) = run(
        &[
            "--json",
            "reshard",
            "f32[2000,2000]",
            "{devices=[2000,1]<=[2000]}",
            "{devices=[1,2000]<=[2000]}",
        ],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(
        json_line(&out)["error"],
        "the plan has 4000000 pieces, more than the 1048576 a reshard plan holds"
    );
    // Refused before anything is built (the plan took seconds and gigabytes).
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

#[test]
fn draw_labels_blocks_with_devices() {
    let (out, code) = run(
        &[
            "draw",
            "f32[4,8]",
            "--sharding",
            "{devices=[2,2,2]<=[8] last_tile_dim_replicate}",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("<?xml"));
    assert!(out.contains(">0,1</text>") && out.contains(">6,7</text>"));
}
