//! What a user's program takes for granted of the crates' types: shapes and
//! shardings as keys of hash maps and sets, every report read back from the
//! JSON it serializes to, and the schema's messages as fields of its own
//! serde types.

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::fs::File;
use std::io::BufReader;

use anyhow::Context;
use hlo_util::{GroupBy, ModuleMemory, PeakDiff};
use relayout::{FromTo, RelayoutPlan, StridedView};
use schema::Shape;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sharding_util::sdy::{LoweredModule, LoweredReport, read_sharding};
use sharding_util::{CanonicalSharding, HloSharding, ShardReport};

/// A plan cache: one plan per pair of layouts, looked up by shapes parsed
/// again from other text.
#[test]
fn shape_pairs_key_a_map() -> anyhow::Result<()> {
    let mut plans: HashMap<(Shape, Shape), RelayoutPlan> = HashMap::new();
    for (from, to) in [
        ("f32[16,256]{1,0}", "f32[16,256]{1,0:T(8,128)}"),
        ("f32[16,256]{0,1}", "f32[16,256]{1,0:T(8,128)}"),
        ("f32[16,256]{1,0:T(8,128)}", "f32[16,256]{1,0}"),
    ] {
        let key: (Shape, Shape) = (from.parse()?, to.parse()?);
        let plan = RelayoutPlan::xla(FromTo {
            from: &key.0,
            to: &key.1,
        })?;
        assert!(plans.insert(key, plan).is_none());
    }
    // `f32[16,256]` is `{1,0}`, XLA's default layout: the same key.
    let key: (Shape, Shape) = ("f32[16,256]".parse()?, "f32[16,256]{1,0:T(8,128)}".parse()?);
    let plan = plans.get(&key).context("the default layout is not {1,0}")?;
    let values: Vec<f32> = (0..16 * 256).map(|v| v as f32).collect();
    let mut tiled = vec![0.0_f32; values.len()];
    plan.run(&values, &mut tiled)?;
    assert_eq!(tiled[8 * 128].to_bits(), 128.0_f32.to_bits());
    assert_eq!(plans.len(), 3);
    Ok(())
}

/// Shardings as set members: XLA's iota text in two spellings and Shardy's
/// text name one sharding; a replicated sharding is another.
#[test]
fn shardings_are_set_members() -> anyhow::Result<()> {
    let mesh = Some(r#"<["a"=2, "b"=4]>"#);
    let texts = [
        "{devices=[2,4]<=[8]}",
        "{devices=[2,4]<=[2,4]T(0,1)}",
        r#"#sdy.sharding<@mesh, [{"a"}, {"b"}]>"#,
        "{replicated}",
    ];
    let set: HashSet<HloSharding> = texts
        .iter()
        .map(|text| read_sharding(text, mesh))
        .collect::<Result<_, _>>()?;
    let printed: HashSet<String> = set.iter().map(ToString::to_string).collect();
    assert_eq!(
        printed,
        HashSet::from(["{devices=[2,4]<=[8]}".to_owned(), "{replicated}".to_owned()])
    );
    assert_eq!(set.len(), 2);
    // The explicit list of the iota's devices is the same sharding, as XLA
    // compares them.
    let listed: HloSharding = "{devices=[2,4]0,1,2,3,4,5,6,7}".parse()?;
    assert!(set.contains(&listed));
    Ok(())
}

/// `value` serialized to JSON and read back is `value`.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    value: &T,
) -> anyhow::Result<()> {
    let json = serde_json::to_string(value)?;
    let back: T = serde_json::from_str(&json).with_context(|| format!("reading back {json}"))?;
    assert_eq!(&back, value, "{json}");
    Ok(())
}

/// `value` serialized to JSON, read back and serialized again gives the
/// same JSON: for reports whose JSON leaves out what only their text shows
/// (`Explanation`, `MemoryReport`).
fn json_round_trip<T: Serialize + DeserializeOwned>(value: &T) -> anyhow::Result<()> {
    let json = serde_json::to_string(value)?;
    let back: T = serde_json::from_str(&json).with_context(|| format!("reading back {json}"))?;
    assert_eq!(serde_json::to_string(&back)?, json);
    Ok(())
}

/// The memory of a golden module of `tests/golden/peak_memory`.
fn module_memory(name: &str) -> anyhow::Result<ModuleMemory> {
    let path = rust_user::workspace_file(format!("tests/golden/peak_memory/{name}/compiled.txt"));
    Ok(hlo_util::memory_from_module_reader(BufReader::new(
        File::open(path)?,
    ))?)
}

#[test]
fn memory_reports_read_back_from_json() -> anyhow::Result<()> {
    let mlp = module_memory("mlp")?;
    let grad = module_memory("mlp_grad")?;
    round_trip(&mlp)?;
    round_trip(&mlp.peak)?;
    round_trip(&hlo_util::timeline_from_module_memory(&mlp))?;
    round_trip(&PeakDiff::new(&mlp.peak, &grad.peak))?;
    for row in hlo_util::group_at_peak(&grad.peak, GroupBy::Source) {
        round_trip(&row)?;
    }
    let path = rust_user::workspace_file("tests/golden/peak_memory/mlp/compiled.txt");
    let report =
        hlo_util::MemoryReport::read(BufReader::new(File::open(path)?), hlo_util::Limit::All)?;
    json_round_trip(&report)?;
    Ok(())
}

#[test]
fn sharding_reports_read_back_from_json() -> anyhow::Result<()> {
    let shape: Shape = "f32[7,9]".parse()?;
    let from: HloSharding = "{devices=[2,4]<=[8]}".parse()?;
    let to: HloSharding = "{devices=[4,2]<=[2,4]T(1,0)}".parse()?;
    round_trip(&ShardReport::new(&from, &shape, None)?)?;
    round_trip(&sharding_util::reshard_plan(&shape, &from, &to, None)?)?;
    round_trip(
        &from
            .device_box(&shape, 5)?
            .context("device 5 holds nothing")?,
    )?;
    round_trip(&CanonicalSharding::new(&to))?;
    let mlir = std::fs::read_to_string(rust_user::workspace_file("tests/golden/shardy/mlp.mlir"))?;
    round_trip(&LoweredReport::new(&LoweredModule::parse(&mlir)?)?)?;
    Ok(())
}

#[test]
fn shape_and_view_reports_read_back_from_json() -> anyhow::Result<()> {
    let tiled: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    json_round_trip(&shape_util::explain(&tiled)?)?;
    round_trip(&index_util::MemoryOrder::of(
        &index_util::TiledLayout::new(&tiled)?,
    )?)?;
    round_trip(&shape_util::Relation::of(&tiled, &"f32[5,3]{0,1}".parse()?))?;
    let view = StridedView::row_major(&[4, 6])?.transpose().flip()?;
    round_trip(&stride_util::ViewReport::of(&view))?;
    let bytes: Vec<u8> = [1_i32, -2, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let literal = literal_util::from_buffer(&"s32[3]{0}".parse()?, &bytes)?;
    round_trip(&literal_util::LiteralText::new(&literal)?)?;
    Ok(())
}

/// A request of the user's own service: XLA's messages as serde fields, in
/// protobuf's JSON mapping.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct LayoutRequest {
    name: String,
    shape: Shape,
    sharding: schema::OpSharding,
    targets: Vec<Shape>,
}

#[test]
fn schema_messages_are_fields_of_serde_types() -> anyhow::Result<()> {
    let sharding = "{devices=[2,4]<=[4,2]T(1,0)}"
        .parse::<HloSharding>()?
        .to_proto();
    let request = LayoutRequest {
        name: "tile".to_owned(),
        shape: "f32[16,256]{1,0}".parse()?,
        sharding,
        targets: vec![
            "f32[16,256]{1,0:T(8,128)}".parse()?,
            "(f32[16,256]{0,1}, s32[])".parse()?,
        ],
    };
    round_trip(&request)?;
    let back: LayoutRequest = serde_json::from_str(&serde_json::to_string(&request)?)?;
    assert_eq!(
        HloSharding::from_proto(&back.sharding)?.to_string(),
        "{devices=[2,4]<=[4,2]T(1,0)}"
    );
    let json = serde_json::to_string(&request)?;
    assert!(json.contains(r#""shape":{"elementType":"F32","dimensions":["16","256"]"#));
    assert!(json.contains(r#""iotaReshapeDims":["4","2"]"#), "{json}");
    // JSON written by another protobuf library, with its field names.
    let other: LayoutRequest = serde_json::from_str(
        r#"{"name": "x", "shape": {"element_type": "BF16", "dimensions": [8]},
            "sharding": {"type": "REPLICATED"}, "targets": []}"#,
    )?;
    assert_eq!(other.shape.to_string(), "bf16[8]");
    Ok(())
}
