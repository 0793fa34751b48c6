//! Hostile input on the command line: sizes at the edge of `i64`, lowered
//! modules that contradict themselves, are cut short or repeat a
//! definition, and Shardy meshes of many axes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::run;

/// `s8[2^60]` takes 2^60 bytes, which XLA's `ValidateShapeSize`
/// (`xla/shape_util.cc`: the extent product times the byte width must fit
/// `int64_t`) accepts; its 2^63 bits do not fit, and no command may bound
/// the bits instead of the bytes.
#[test]
fn every_command_bounds_bytes_as_validate_does() {
    let shape = "s8[1152921504606846976]";
    assert_eq!(run(&["validate", shape], None), ("ok\n".to_owned(), 0));
    let (out, code) = run(&["explain", shape], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\nbuffer size: 1152921504606846976 bytes\n"),
        "{out}"
    );
    let (out, code) = run(&["shard", shape, "{replicated}", "--devices", "2"], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n1       [0]   [0]      [1152921504606846976]  1152921504606846976\n"),
        "{out}"
    );
    // One byte past: refused by all of them, naming the bytes.
    let shape = "f32[2305843009213693952]";
    let (out, code) = run(&["validate", shape], None);
    assert_eq!(
        (out.as_str(), code),
        (
            "error: Shape f32[2305843009213693952] size may overflow int64_t.\n",
            1
        )
    );
    let (out, code) = run(&["--json", "explain", shape], None);
    assert_eq!(code, 1);
    assert!(out.contains("overflows int64_t"), "{out}");
    let (out, code) = run(
        &["--json", "shard", shape, "{replicated}", "--devices", "2"],
        None,
    );
    assert_eq!(code, 1);
    assert!(out.contains("are beyond i64"), "{out}");
}

/// A lowered module over `mesh` (a `sdy.mesh` line, or none) with the
/// module attribute `partitions` (e.g. `mhlo.num_partitions = 8 : i32`).
fn module(partitions: &str, mesh: &str, argument: &str) -> String {
    format!(
        "module @jit_f attributes {{{partitions}}} {{\n  {mesh}\n  func.func public @main(%arg0: {argument}) -> (tensor<8xf32> {{jax.result_info = \"result\"}}) {{\n    return %arg0 : tensor<8xf32>\n  }}\n}}\n"
    )
}

const SHARDED: &str = r#"tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}"#;
const MESH8: &str = r#"sdy.mesh @mesh = <["a"=8]>"#;

/// `lowered`'s message for `text`, which it must refuse.
fn refused(text: &str) -> String {
    let (out, code) = run(&["lowered", "-"], Some(text));
    assert_eq!(code, 1, "accepted: {out}");
    out.strip_prefix("error: ")
        .unwrap_or(&out)
        .trim_end()
        .to_owned()
}

#[test]
fn num_partitions_is_an_integer_attribute_or_refused() {
    for (value, devices) in [("8 : i32", 8), ("8", 8), ("0x8 : i64", 8)] {
        let text = module(&format!("mhlo.num_partitions = {value}"), MESH8, SHARDED);
        let (out, code) = run(&["lowered", "-"], Some(&text));
        assert_eq!(code, 0, "{value}: {out}");
        assert!(
            out.starts_with(&format!("{devices} devices\n")),
            "{value}: {out}"
        );
    }
    for (value, message) in [
        (
            "-4 : i32",
            "mhlo.num_partitions = -4 : i32: a partition count is at least 1",
        ),
        (
            "12345678901234567890 : i64",
            "mhlo.num_partitions = 12345678901234567890 : i64 is out of range",
        ),
        (
            "8589934592 : i32",
            "mhlo.num_partitions = 8589934592 : i32 is out of range",
        ),
    ] {
        let text = module(&format!("mhlo.num_partitions = {value}"), MESH8, SHARDED);
        assert!(
            refused(&text).starts_with(&format!("Syntax error: {message} (at byte ")),
            "{value}"
        );
    }
    for value in ["\"4\"", "x", "4.5 : f32", "4x", "4.5"] {
        let text = module(&format!("mhlo.num_partitions = {value}"), MESH8, SHARDED);
        let message = refused(&text);
        assert!(
            message.starts_with(&format!(
                "Syntax error: mhlo.num_partitions must be an integer attribute (`8 : i32`), not `{value}` (at byte 48"
            )),
            "{value}: {message}"
        );
    }
    let text = module(
        "mhlo.num_partitions = 8 : i32, mhlo.num_partitions = 8 : i32",
        MESH8,
        SHARDED,
    );
    assert!(refused(&text).starts_with(
        "Syntax error: duplicate key 'mhlo.num_partitions' in the module's attributes"
    ));
}

#[test]
fn a_mesh_that_contradicts_num_partitions_is_refused() {
    let text = module("mhlo.num_partitions = 4 : i32", MESH8, SHARDED);
    assert_eq!(
        refused(&text),
        "mesh @mesh holds 8 devices, but mhlo.num_partitions is 4"
    );
    let text = module(
        "mhlo.num_partitions = 4 : i32",
        r#"sdy.mesh @maximal_mesh_7 = <[], device_ids=[7]>"#,
        "tensor<8xf32>",
    );
    assert_eq!(
        refused(&text),
        "mesh @maximal_mesh_7 names device 7, but mhlo.num_partitions is 4"
    );
    // Without num_partitions, the meshes agree among themselves.
    let text = module(
        "mhlo.num_replicas = 1 : i32",
        "sdy.mesh @a = <[\"x\"=2]>\n  sdy.mesh @b = <[\"y\"=4]>",
        "tensor<8xf32>",
    );
    assert_eq!(
        refused(&text),
        "mesh @b holds 4 devices, but mesh @a holds 2"
    );
    // An empty mesh and a maximal mesh on one of the devices contradict nothing.
    let text = module(
        "mhlo.num_partitions = 8 : i32",
        "sdy.mesh @empty_mesh = <[]>\n  sdy.mesh @maximal_mesh_3 = <[], device_ids=[3]>\n  sdy.mesh @mesh = <[\"a\"=8]>",
        SHARDED,
    );
    let (out, code) = run(&["lowered", "-"], Some(&text));
    assert_eq!(code, 0, "{out}");
}

#[test]
fn definitions_given_twice_are_refused() {
    let text = module(
        "mhlo.num_partitions = 8 : i32",
        "sdy.mesh @mesh = <[\"a\"=8]>\n  sdy.mesh @mesh = <[\"a\"=2, \"b\"=4]>",
        SHARDED,
    );
    assert_eq!(
        refused(&text),
        "Syntax error: mesh @mesh is defined twice (the first at byte 59) (at byte 88: `sdy.mesh @mesh = <[\"a\"=2, \"b\"=4]>`)"
    );
    let one = module("mhlo.num_partitions = 8 : i32", MESH8, SHARDED);
    let main = one.find("  func.func").unwrap();
    let end = one.rfind('}').unwrap();
    let twice = format!("{}{}{}", &one[..end], &one[main..end], &one[end..]);
    let second = main + (end - main);
    assert_eq!(
        refused(&twice),
        format!(
            "Syntax error: `func.func public @main` is defined twice (the first at byte {}) (at byte {}: `func.func public @main`)",
            main + 2,
            second + 2
        )
    );
}

#[test]
fn per_value_shardings_negative_sizes_and_cut_modules_are_answered() {
    let (out, code) = run(
        &[
            "sharding",
            "--mesh",
            r#"<["a"=2, "b"=4]>"#,
            r#"#sdy.sharding_per_value<[<@mesh, [{"a"}, {}]>, <@mesh, []>]>"#,
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "{{devices=[2,1,4]<=[8] last_tile_dim_replicate}, {replicated}}\n",
            0
        )
    );
    let text = module("mhlo.num_partitions = 8 : i32", MESH8, "tensor<-2x2xf32>");
    assert!(
        refused(&text).starts_with(
            "Syntax error: `tensor<-2x2xf32>` has dimension `-2`: a dimension is a size of 0 or more"
        ),
        "{}",
        refused(&text)
    );
    let whole = module("mhlo.num_partitions = 8 : i32", MESH8, SHARDED);
    let signature_end = whole.find(") {\n    return").unwrap() + 1;
    for (cut, what) in [
        (&whole[..signature_end], "expected '{' (the body of @main)"),
        (
            &whole[..signature_end + 2],
            "the body of @main is cut short",
        ),
        (
            &whole[..whole.len() - 2],
            "the module is cut short: its '{' at byte 57 is never closed",
        ),
    ] {
        let message = refused(cut);
        assert!(message.contains(what), "{message}");
    }
}

/// A lowered module of `n` arguments `tensor<8xf32>`, each sharded over an
/// 8-device mesh when `sharded`.
fn many_arguments(n: usize, sharded: bool) -> String {
    let mut text = String::from(if sharded {
        "module @jit_f attributes {mhlo.num_partitions = 8 : i32} {\n  sdy.mesh @mesh = <[\"a\"=8]>\n  func.func public @main("
    } else {
        "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main("
    });
    for k in 0..n {
        if k > 0 {
            text.push_str(", ");
        }
        text.push_str(&format!("%arg{k}: tensor<8xf32>"));
        if sharded {
            text.push_str(r#" {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}"#);
        }
    }
    text.push_str(") -> (tensor<8xf32> {jax.result_info = \"result\"}) {\n    return %arg0 : tensor<8xf32>\n  }\n}\n");
    text
}

/// Runs `xla-shape ARGS` (output dropped) and samples its peak resident
/// memory (`VmHWM`) until it exits: the peak in bytes and the exit status.
fn peak_memory_of(args: &[&str]) -> (u64, i32) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla-shape"))
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Some(exit) = child.try_wait().unwrap() {
            return (peak, exit.code().unwrap());
        }
        let text = std::fs::read_to_string(&status).unwrap_or_default();
        if let Some(kib) = text
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
        {
            peak = peak.max(kib * 1024);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// `lowered` on `text` (written to a file) takes at most 20 times its size,
/// in plain text and in JSON.
fn assert_lowered_memory(name: &str, text: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    for json in [false, true] {
        let args: &[&str] = if json {
            &["--json", "lowered", file]
        } else {
            &["lowered", file]
        };
        let start = std::time::Instant::now();
        let (peak, code) = peak_memory_of(args);
        let multiple = peak as f64 / text.len() as f64;
        println!(
            "{name} ({} bytes), json {json}: {:.0} MB, {multiple:.1}x, {:?}",
            text.len(),
            peak as f64 / 1e6,
            start.elapsed()
        );
        assert_eq!(code, 0);
        assert!(multiple <= 20.0, "{multiple}");
    }
    std::fs::remove_file(&path).unwrap();
}

/// A module of many arguments is read an argument at a time and its report
/// written as it is built: every entry listed, the totals summed.
#[test]
fn a_module_of_many_arguments_is_reported_whole() {
    let text = many_arguments(10_000, true);
    let (out, code) = run(&["--json", "lowered", "-"], Some(&text));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["entries"].as_array().unwrap().len(), 10_001);
    assert_eq!(v["entries"][9_999]["name"], "%arg9999");
    assert_eq!(v["entries"][9_999]["bytes"][7], 4);
    assert_eq!(v["argument_bytes"][3], 40_000);
    // The result has no sharding: left to XLA's propagation, not counted.
    assert_eq!(v["entries"][10_000]["source"], "unspecified");
    assert_eq!(v["result_bytes"][3], 0);
}

#[test]
#[ignore = "measures peak memory: a 25 MB module (about a minute in a debug build)"]
fn a_million_unsharded_arguments_take_a_small_multiple_of_the_module() {
    // 2.7 GB (110x) before.
    assert_lowered_memory("unsharded.mlir", &many_arguments(1_000_000, false));
}

#[test]
#[ignore = "measures peak memory: an 83 MB module (minutes in a debug build)"]
fn a_million_sharded_arguments_take_a_small_multiple_of_the_module() {
    // Aborted under 4 GB before.
    assert_lowered_memory("sharded.mlir", &many_arguments(1_000_000, true));
}

/// `shard` of `f32[n]` over `n` devices, in text and in JSON: the peak
/// memory of each, asserted at most `bound` bytes, and the JSON's devices.
fn assert_shard_memory(n: u64, bound: u64) {
    let shape = format!("f32[{n}]");
    let sharding = format!("{{devices=[{n}]<=[{n}]}}");
    for json in [false, true] {
        let mut args = vec!["shard", shape.as_str(), sharding.as_str()];
        if json {
            args.insert(0, "--json");
        }
        let (peak, code) = peak_memory_of(&args);
        println!(
            "shard over {n} devices, json {json}: {:.0} MB",
            peak as f64 / 1e6
        );
        assert_eq!(code, 0);
        assert!(peak <= bound, "{peak} bytes");
    }
}

/// The report is built once and only the form asked for is written, a row
/// at a time: 28 MB at 2^16 devices (125 MB before, a JSON value of every
/// device built beside the text in either mode).
#[test]
fn a_shard_report_of_many_devices_takes_a_small_multiple_of_its_rows() {
    assert_shard_memory(1 << 16, 64 << 20);
    let (out, code) = run(
        &[
            "--json",
            "shard",
            "f32[65536]",
            "{devices=[65536]<=[65536]}",
        ],
        None,
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["devices"].as_array().unwrap().len(), 65_536);
    assert_eq!(v["devices"][65_535]["offsets"][0], 65_535);
}

#[test]
#[ignore = "measures peak memory: 2^20 devices (about 20 s in a debug build)"]
fn a_shard_report_of_a_million_devices_takes_a_few_hundred_megabytes() {
    // 2 GB before, in text and in JSON; 318 MB and 355 MB after.
    assert_shard_memory(1 << 20, 400 << 20);
}
