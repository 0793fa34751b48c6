//! `decode --message NAME` and `encode --message NAME`, run against the
//! built binary: every message XLA embedded in real HloModuleProtos
//! (`tests/golden/embedded_messages.jsonl`) decodes and comes back as the
//! same bytes, text format goes both ways, names in XLA's and our spelling,
//! and bad input is an error naming sizes and offsets.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use assert_cmd::cargo::cargo_bin_cmd;

mod common;

use common::{json_lines, run};

/// Runs `xla-shape args...` (with `stdin` if given): stdout and exit code.
#[test]
fn every_embedded_message_decodes_and_reencodes_to_xlas_bytes() {
    let rows = conformance::load("embedded_messages.jsonl").unwrap();
    let mut by_message: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in &rows {
        let name = conformance::required(row, "message").unwrap();
        if !name.ends_with(".MapEntry") {
            let hex = conformance::required(row, "hex").unwrap();
            by_message.entry(name.into()).or_default().push(hex.into());
        }
    }
    let mut checked = 0;
    for (name, hexes) in &by_message {
        let stdin = hexes.join("\n") + "\n";
        let (out, code) = run(&["--json", "decode", "--message", name], Some(&stdin));
        assert_eq!(code, 0, "{name}: {out}");
        let lines = json_lines(&out);
        assert_eq!(lines.len(), hexes.len(), "{name}");
        for (line, hex) in lines.iter().zip(hexes) {
            assert_eq!(line["ok"], true, "{name} {hex}: {line}");
            assert_eq!(line["hex"], hex.as_str(), "{name}: {line}");
            assert!(line["text"].is_string());
            checked += 1;
        }
        // The text format encodes back to the same bytes.
        let texts: Vec<String> = lines
            .iter()
            .map(|l| l["text"].as_str().unwrap().to_string())
            .collect();
        let (out, code) = run(
            &["--json", "encode", "--message", name],
            Some(&(texts.join("\n") + "\n")),
        );
        assert_eq!(code, 0, "{name}: {out}");
        for (line, hex) in json_lines(&out).iter().zip(hexes) {
            assert_eq!(line["hex"], hex.as_str(), "{name}: {line}");
        }
    }
    assert!(checked > 900, "{checked}");
}

#[test]
fn decode_prints_text_format_and_json_has_ok_text_hex() {
    let (out, code) = run(
        &["decode", "--message", "xla.OpSharding", "0801220103"],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        ("type:MAXIMAL,tile_assignment_devices:[3]\n", 0)
    );
    let (out, _) = run(
        &[
            "--json",
            "decode",
            "--message",
            "xla.OpSharding",
            "0801220103",
        ],
        None,
    );
    assert_eq!(
        out,
        "{\"ok\":true,\"text\":\"type:MAXIMAL,tile_assignment_devices:[3]\",\
         \"hex\":\"0801220103\",\"input\":\"0801220103\"}\n"
    );
    // A message holding XLA's map: entries keep their empty values.
    let (out, _) = run(
        &[
            "decode",
            "--message",
            "xla.FrontendAttributes",
            "0a090a05656d7074791200",
        ],
        None,
    );
    assert_eq!(out, "map:[{key:\"empty\",value:\"\"}]\n");
}

#[test]
fn blank_lines_and_empty_arguments_are_the_empty_message() {
    let (out, code) = run(
        &["--json", "decode", "--message", "xla.Window"],
        Some("0a020803\n\n"),
    );
    assert_eq!(code, 0);
    let lines = json_lines(&out);
    assert_eq!(lines[0]["text"], "dimensions:[{size:3}]");
    assert_eq!(lines[1]["text"], "");
    assert_eq!(lines[1]["hex"], "");
    let (out, code) = run(&["encode", "--message", "xla.Window", ""], None);
    assert_eq!((out.as_str(), code), ("\n", 0));
}

#[test]
fn xlas_names_and_ours_name_the_same_message() {
    let (hex, _) = run(&["encode", "f32[2,3]{0,1}"], None);
    let hex = hex.trim();
    let (ours, _) = run(&["decode", "--message", "xla.Shape", hex], None);
    let (xlas, code) = run(&["decode", "--message", "xla.ShapeProto", hex], None);
    assert_eq!(code, 0);
    assert_eq!(ours, xlas);
    assert_eq!(
        xlas,
        "element_type:F32,dimensions:[2,3],layout{minor_to_major:[0,1],\
         tail_padding_alignment_in_elements:1},is_dynamic_dimension:[false,false]\n"
    );
    for (xla, classic) in [
        ("xla.LayoutProto", "xla.Layout"),
        ("xla.TileProto", "xla.Tile"),
        ("xla.SplitConfigProto", "xla.SplitConfig"),
        ("xla.ProgramShapeProto", "xla.ProgramShape"),
    ] {
        let (a, code) = run(&["encode", "--message", xla, ""], None);
        let (b, _) = run(&["encode", "--message", classic, ""], None);
        assert_eq!((a.as_str(), code), (b.as_str(), 0), "{xla}");
    }
    let (out, code) = run(&["decode", "--list-messages"], None);
    assert_eq!(code, 0);
    let names: Vec<&str> = out.lines().collect();
    for name in [
        "xla.OpSharding",
        "xla.LiteralProto",
        "xla.ShapeProto",
        "xla.Shape",
    ] {
        assert!(names.contains(&name), "{name}");
    }
}

#[test]
fn encode_text_format_gives_hex_or_canonical_text() {
    let (out, code) = run(
        &[
            "encode",
            "--message",
            "xla.OpSharding",
            "type: MAXIMAL tile_assignment_devices: 3",
        ],
        None,
    );
    assert_eq!((out.as_str(), code), ("0801220103\n", 0));
    let (out, _) = run(
        &[
            "encode",
            "--text",
            "--message",
            "xla.PaddingConfig",
            "dimensions { edge_padding_low: 1 interior_padding: 2 }",
        ],
        None,
    );
    assert_eq!(
        out,
        "dimensions:[{edge_padding_low:1,interior_padding:2}]\n"
    );
}

#[test]
fn bad_names_and_bad_bytes_are_errors_naming_offsets_and_sizes() {
    let (out, code) = run(&["decode", "--message", "xla.Nothing", "08"], None);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "error: xla.Nothing is not a message of xla_data.proto; names are full names such as \
         xla.OpSharding or xla.ShapeProto (`xla-shape decode --list-messages` lists them)\n"
    );
    let (out, code) = run(&["--json", "encode", "--message", "opsharding", ""], None);
    assert_eq!(code, 1);
    assert_eq!(
        json_lines(&out)[0]["error"],
        "opsharding is not a message of xla_data.proto; did you mean xla.OpSharding?"
    );
    let (out, code) = run(
        &[
            "decode",
            "--message",
            "xla.Window",
            "0a05",       // oversized: the length claims more than there is
            "0a020803ff", // truncated: a varint cut off
            "0803",       // wrong wire type for a message field
            "0",          // not hex
            "0a020803",   // fine
            "00",         // field number 0
        ],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "error: invalid xla.Window message (2 bytes): at byte 0, field dimensions (1) claims 5 bytes but only 0 remain\n\
         error: invalid xla.Window message (5 bytes): at byte 4, the varint runs past the end of the message\n\
         error: invalid xla.Window message (2 bytes): at byte 0, field dimensions (1) has wire type 0, expected 2\n\
         error: hex has an odd number of digits (1)\n\
         dimensions:[{size:3}]\n\
         error: invalid xla.Window message (1 bytes): at byte 0, field number 0 is out of range (1 to 536870911)\n"
    );
    // Nested: the offset is the one in the outer message.
    let (out, _) = run(
        &["decode", "--message", "xla.OpSharding", "3a041a02ff00"],
        None,
    );
    assert_eq!(
        out,
        "error: invalid xla.OpSharding message (6 bytes): at byte 2, field source_file (3) is not valid UTF-8\n"
    );
    let (out, code) = run(
        &["encode", "--message", "xla.Window", "dimensions { size: 3"],
        None,
    );
    assert_eq!(code, 1);
    assert!(
        out.starts_with("error: invalid text format for xla.Window: "),
        "{out}"
    );
    // Deep nesting is refused, not a stack overflow.
    let deep = "tuple_literals { ".repeat(200) + &"}".repeat(200);
    let (out, code) = run(&["encode", "--message", "xla.LiteralProto", &deep], None);
    assert_eq!(code, 1);
    assert!(out.contains("nested deeper than 64 levels"), "{out}");
    // 150 levels of tuple_literals: beyond protobuf's limit of 100.
    let mut bytes = Vec::new();
    for _ in 0..150 {
        let mut outer = vec![0x52];
        prost::encoding::encode_varint(bytes.len() as u64, &mut outer);
        outer.extend_from_slice(&bytes);
        bytes = outer;
    }
    let hex = conformance::hex_encode(&bytes);
    let (out, code) = run(&["decode", "--message", "xla.LiteralProto", &hex], None);
    assert_eq!(code, 1);
    assert!(
        out.contains("messages are nested deeper than 100 levels"),
        "{out}"
    );
}

#[test]
fn binary_input_and_map_entries() {
    let mut cmd = cargo_bin_cmd!("xla-shape");
    cmd.args(["decode", "--binary", "--message", "xla.SourceTarget"]);
    cmd.write_stdin(vec![0x08, 0x01, 0x10, 0x02]);
    let output = cmd.output().unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "source:1,target:2\n"
    );
    let (out, code) = run(
        &[
            "decode",
            "--message",
            "xla.FrontendAttributes.MapEntry",
            "0a0161",
        ],
        None,
    );
    assert_eq!(code, 1);
    assert!(out.contains("is a map entry"), "{out}");
}
