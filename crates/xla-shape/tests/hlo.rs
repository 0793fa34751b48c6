//! `xla-shape hlo`: the table, `--top`/`--all`, `--json`, standard input and
//! errors, on the golden modules XLA wrote (`tests/golden/hlo/`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;

mod common;

use common::run;

fn golden(name: &str) -> String {
    format!(
        "{}/../../tests/golden/hlo/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_table_lists_the_largest_buffers_first_with_their_padding() {
    // The parameters are `sharding={replicated}`: a device holds them
    // whole; the ROOT has no sharding, so its per-device size is unknown.
    let (out, code) = run(&["hlo", "--top", "3", &golden("tiled_rows.txt")], None);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "module tiled: 9 instructions in 1 computation
parameters: 95043 bytes (606400 allocated)   outputs: 12016 bytes (24592 allocated)
per device: parameters: 95043 bytes   outputs: unknown
allocated  bytes  padding   ratio  space  computation  name  opcode     shape                                 per device
   512000  16000   496000  32.00x  -      main         p2    parameter  s32[1000,4]{1,0:T(8,128)}             s32[1000,4]{1,0:T(8,128)}
    65536  65536        0   1.00x  S(1)   main         p6    parameter  bf16[256,128]{0,1:T(8,128)(2,1)S(1)}  bf16[256,128]{0,1:T(8,128)(2,1)S(1)}
    16384   8000     8384   2.05x  -      main         p1    parameter  f32[10,200]{1,0:T(8,128)}             f32[10,200]{1,0:T(8,128)}
(6 more instructions; --top N or --all shows more)
"
    );
}

#[test]
fn json_gives_xlas_totals_and_every_instruction_with_all() {
    let text = std::fs::read_to_string(golden("tupled.txt")).unwrap();
    let (out, code) = run(&["--json", "hlo", "--all", "-"], Some(&text));
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["ok"], true);
    // XLA's memory_analysis(): argument 80, output 64 (tests/golden/hlo/memory.jsonl).
    assert_eq!(
        (v["parameter_bytes"].as_i64(), v["output_bytes"].as_i64()),
        (Some(80), Some(64))
    );
    assert_eq!(v["per_device_parameter_bytes"], Value::Null);
    let instructions = v["instructions"].as_array().unwrap();
    assert_eq!(
        instructions.len() as u64,
        v["instruction_count"].as_u64().unwrap()
    );
    let keys: Vec<&str> = instructions[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "computation",
            "name",
            "opcode",
            "shape",
            "bytes",
            "allocated_bytes",
            "padding_bytes",
            "padding_ratio",
            "memory_space",
            "per_device_shape",
            "per_device_bytes",
            "op_name",
            "stack"
        ]
    );
    let sizes: Vec<i64> = instructions
        .iter()
        .map(|i| i["allocated_bytes"].as_i64().unwrap())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn a_serialized_module_reads_as_its_text() {
    let (text, code) = run(&["--json", "hlo", "--all", &golden("scan.txt")], None);
    assert_eq!(code, 0);
    let (proto, code) = run(&["--json", "hlo", "--all", &golden("scan.pb")], None);
    assert_eq!(code, 0);
    let text: Value = serde_json::from_str(text.trim()).unwrap();
    let proto: Value = serde_json::from_str(proto.trim()).unwrap();
    // memory.jsonl: argument 576, output 640.
    assert_eq!(
        (
            proto["parameter_bytes"].as_i64(),
            proto["output_bytes"].as_i64()
        ),
        (Some(576), Some(640))
    );
    assert_eq!(text["parameter_bytes"], proto["parameter_bytes"]);
    assert_eq!(text["instruction_count"], proto["instruction_count"]);
    let mut truncated = std::fs::read(golden("scan.pb")).unwrap();
    truncated.truncate(truncated.len() / 2);
    let path = std::env::temp_dir().join("xla_shape_hlo_truncated.pb");
    std::fs::write(&path, truncated).unwrap();
    let (out, code) = run(&["hlo", path.to_str().unwrap()], None);
    assert_eq!(code, 1);
    // The computation cut in half: its length prefix claims more than is
    // left, found before anything is decoded.
    assert_eq!(
        out,
        "error: HloModuleProto: at byte 2820: field 3 claims 1583 bytes but only 965 remain\n"
    );
}

#[test]
fn bad_modules_exit_1_with_the_line_and_column() {
    let bad = "HloModule m\nENTRY %e {\n  %p = f32[2]{0} parameter(0), metadata={op_name=\"x}\n}\n";
    let (out, code) = run(&["hlo", "-"], Some(bad));
    assert_eq!(code, 1);
    assert_eq!(out, "error: line 3, column 50: unterminated string\n");
    let (out, code) = run(&["--json", "hlo", "/nonexistent.txt"], None);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("{\"ok\":false,\"input\":\"/nonexistent.txt\",\"error\":\"cannot open")
    );
    let (_, code) = run(&["hlo", "--all", "--top", "3", "x.txt"], None);
    assert_eq!(code, 2);
}

#[test]
fn json_totals_are_xlas_and_the_tiled_buffers_are_beside_them() {
    // tiled_cpu: a bf16[10,200]{1,0:T(8,128)(2,1)} parameter and output.
    // XLA's memory_analysis() reports 4000 bytes each (memory.jsonl); the
    // tiled buffers take 8192.
    let text = std::fs::read_to_string(golden("tiled_cpu.txt")).unwrap();
    let (out, code) = run(&["--json", "hlo", "-"], Some(&text));
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let field = |key: &str| v[key].as_i64();
    assert_eq!(
        (field("parameter_bytes"), field("output_bytes")),
        (Some(4000), Some(4000))
    );
    assert_eq!(
        (
            field("parameter_allocated_bytes"),
            field("output_allocated_bytes")
        ),
        (Some(8192), Some(8192))
    );
}

#[test]
fn a_sharded_module_gives_what_one_device_holds() {
    // XLA's memory_analysis() of the module partitioned over 8 devices:
    // argument 112, output 92 (tests/golden/hlo/sharded.jsonl).
    for file in ["sharded_tiled.txt", "sharded_tiled.pb"] {
        let (out, code) = run(&["--json", "hlo", "--all", &golden(file)], None);
        assert_eq!(code, 0, "{file}");
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(
            (
                v["parameter_bytes"].as_i64(),
                v["per_device_parameter_bytes"].as_i64(),
                v["per_device_output_bytes"].as_i64()
            ),
            (Some(448), Some(112), Some(92)),
            "{file}"
        );
        let instruction = |name: &str| {
            v["instructions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["name"] == name)
                .unwrap()
                .clone()
        };
        // f32[7,9] over a 2x4 grid: 4 rows and 3 columns, rounded up.
        let uneven = instruction("sharding_constraint.1");
        assert_eq!(uneven["per_device_shape"], "f32[4,3]{1,0}");
        assert_eq!(uneven["per_device_bytes"], 48);
        assert_eq!(
            instruction("tuple.1")["per_device_shape"],
            "(f32[4,3]{1,0}, f32[], f32[4]{0})"
        );
        assert_eq!(instruction("slice.1")["per_device_shape"], Value::Null);
        // Each computation's instructions added up, largest first.
        let totals: Vec<(String, i64, i64)> = v["computation_totals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["computation"].as_str().unwrap().to_owned(),
                    t["instructions"].as_i64().unwrap(),
                    t["allocated_bytes"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            totals,
            [
                ("main.2".to_owned(), 19, 2792),
                ("region_0.1".to_owned(), 3, 12)
            ]
        );
    }
    let (out, code) = run(&["hlo", "--top", "1", &golden("sharded_tiled.txt")], None);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "module jit_tiled: 22 instructions in 2 computations
parameters: 448 bytes (448 allocated)   outputs: 476 bytes (476 allocated)
per device: parameters: 112 bytes   outputs: 92 bytes
allocated  bytes  padding  ratio  space  computation  name  opcode     shape           per device
      384    384        0  1.00x  -      main.2       a.1   parameter  f32[8,12]{1,0}  f32[4,3]{1,0}
(21 more instructions; --top N or --all shows more)

allocated  bytes  padding  instructions  computation
     2792   2792        0            19  main.2
(1 more computation; --top N or --all shows more)
"
    );
}

#[test]
fn control_characters_in_names_are_printed_escaped() {
    // scan.pb with the parameter `xs.1` renamed ESC, BEL, CR, LF and the
    // module `jit_scan` renamed `j`, LF, `fake:a` (same lengths: the
    // message stays well formed).
    let patch = |bytes: &[u8], from: &[u8], to: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        let mut rest = bytes;
        while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
            out.extend_from_slice(&rest[..at]);
            out.extend_from_slice(to);
            rest = &rest[at + from.len()..];
        }
        out.extend_from_slice(rest);
        out
    };
    let original = std::fs::read(golden("scan.pb")).unwrap();
    let renamed = patch(
        &patch(&original, b"xs.1", b"\x1b\x07\r\n"),
        b"jit_scan",
        b"j\nfake:a",
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &renamed).unwrap();
    let path = file.path().to_str().unwrap();
    let (out, code) = run(&["hlo", "--all", path], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("module j\\nfake:a: 56 instructions"),
        "{out}"
    );
    let row = out
        .lines()
        .find(|line| line.contains("\\u{1b}\\u{7}\\r\\n"))
        .expect("the renamed parameter's row");
    // Its source column: a parameter has no stack.
    assert!(
        row.contains("parameter             f32[12,3,4]{2,1,0}  ") && row.ends_with("  -"),
        "{row}"
    );
    assert!(
        !out.chars().any(|c| c.is_control() && c != '\n'),
        "no raw control character"
    );
    // As many lines as the module's own report: none forged.
    let (plain, _) = run(&["hlo", "--all", &golden("scan.pb")], None);
    assert_eq!(out.lines().count(), plain.lines().count());
    // JSON keeps the names as they are (escaped as JSON escapes them).
    let (json, code) = run(&["--json", "hlo", "--all", path], None);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(json.trim()).unwrap();
    let names: Vec<&str> = report["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|row| row["name"].as_str())
        .collect();
    assert!(names.contains(&"\u{1b}\u{7}\r\n"), "{names:?}");
}
