//! The library's types as a Rust user holds them: shapes and shardings as
//! map keys, every report through serde_json and back (equal, and the same
//! JSON again), the enums a user prints, and each crate's error through `?`
//! into a `Box<dyn Error>`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::error::Error;
use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

use schema::Shape;
use sharding_util::HloSharding;

/// Serializes `value`, reads it back, and checks that it is equal and
/// serializes to the same bytes; returns the JSON.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, value, "{json}");
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
    json
}

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

fn golden(path: &str) -> Vec<u8> {
    std::fs::read(conformance::golden_dir().join(path)).unwrap()
}

#[test]
fn a_pair_of_shapes_keys_a_plan_cache() {
    let mut plans: HashMap<(Shape, Shape), &str> = HashMap::new();
    plans.insert(
        (shape("f32[8,128]{1,0}"), shape("f32[8,128]{0,1}")),
        "transpose",
    );
    plans.insert(
        (shape("f32[8,128]{1,0}"), shape("f32[8,128]{1,0:T(8,128)}")),
        "tile",
    );
    let key = (shape("f32[8,128]{1,0}"), shape("f32[8,128]{0,1}"));
    assert_eq!(plans.get(&key), Some(&"transpose"));
    assert_eq!(plans.len(), 2);
    // Layouts and tiles are values too.
    let layout = *shape("f32[8,128]{1,0:T(8,128)}").layout.unwrap();
    let tiles: HashMap<schema::Tile, usize> = layout.tiles.iter().cloned().zip(0..).collect();
    assert_eq!(tiles.len(), 1);
    let layouts: HashMap<schema::Layout, ()> = [(layout.clone(), ())].into();
    assert!(layouts.contains_key(&layout));
}

#[test]
fn a_sharding_keys_a_map() {
    let mut bytes: HashMap<HloSharding, i64> = HashMap::new();
    bytes.insert("{devices=[2,2]<=[4]}".parse().unwrap(), 16);
    bytes.insert("{replicated}".parse().unwrap(), 64);
    let same: HloSharding = "{devices=[2,2]<=[4]}".parse().unwrap();
    assert_eq!(bytes[&same], 16);
}

#[test]
fn views_and_device_boxes_are_values() {
    let view = stride_util::StridedView::row_major(&[3, 4]).unwrap();
    let views: HashMap<stride_util::StridedView, ()> = [(view.transpose(), ())].into();
    assert!(views.contains_key(&view.transpose()));
    assert!(!views.contains_key(&view));
}

#[test]
fn sharding_reports_round_trip() {
    let tiled: HloSharding = "{devices=[2,2]<=[4] last_tile_dim_replicate}"
        .parse()
        .unwrap();
    let report = sharding_util::ShardReport::new(&tiled, &shape("bf16[6]"), None).unwrap();
    let json = round_trip(&report);
    assert!(
        json.starts_with(r#"{"shard_shape":"bf16[3]{0}","devices":[{"device":0,"tile":[0]"#),
        "{json}"
    );
    for device in &report.devices {
        round_trip(device.held.as_ref().unwrap());
    }
    let split: HloSharding = "{devices=[4]<=[4]}".parse().unwrap();
    let plan = sharding_util::reshard_plan(&shape("f32[8]"), &split, &tiled, None).unwrap();
    assert!(!plan.pieces.is_empty());
    round_trip(&plan);
    round_trip(&sharding_util::CanonicalSharding::new(&tiled));
}

#[test]
fn memory_reports_round_trip() {
    let peak =
        hlo_util::peak_from_hlo_proto(&golden("peak_memory/attention/after_optimizations.hlo.pb"))
            .unwrap();
    assert!(peak.peak_bytes > 0 && !peak.live_at_peak.is_empty());
    round_trip(&peak);
    let timeline = hlo_util::timeline_from_hlo_proto(&golden(
        "peak_memory/attention/after_optimizations.hlo.pb",
    ))
    .unwrap();
    round_trip(&timeline);
    let text = String::from_utf8(golden("peak_memory/attention/compiled.txt")).unwrap();
    let memory = hlo_util::memory_from_module_text(&text).unwrap();
    assert!(!memory.buffers.is_empty());
    round_trip(&memory);
    for by in hlo_util::GroupBy::ALL {
        for row in hlo_util::group_at_peak(&peak, by) {
            round_trip(&row);
        }
    }
}

#[test]
fn lowered_and_diff_reports_round_trip() {
    let text = String::from_utf8(golden("shardy/mlp.mlir")).unwrap();
    let module = sharding_util::sdy::LoweredModule::parse(&text).unwrap();
    let report = sharding_util::sdy::LoweredReport::new(&module).unwrap();
    assert!(!report.entries.is_empty());
    round_trip(&report);
    let a =
        hlo_util::peak_from_hlo_proto(&golden("peak_memory/attention/after_optimizations.hlo.pb"))
            .unwrap();
    let b =
        hlo_util::peak_from_hlo_proto(&golden("peak_memory/adam_mlp/after_optimizations.hlo.pb"))
            .unwrap();
    round_trip(&hlo_util::PeakDiff::new(&a, &b));
    let literal = schema::LiteralProto {
        shape: Some(shape("s32[3]{0}")),
        s32s: vec![1, 2, 3],
        ..Default::default()
    };
    round_trip(&literal_util::LiteralText::new(&literal).unwrap());
}

#[test]
fn shape_and_view_reports_round_trip() {
    round_trip(&shape_util::Relation::of(
        &shape("f32[2,3]{1,0}"),
        &shape("f32[3,2]{1,0}"),
    ));
    let view = stride_util::StridedView::row_major(&[3, 4])
        .unwrap()
        .transpose();
    round_trip(&stride_util::ViewReport::of(&view));
    let layout = index_util::TiledLayout::new(&shape("f32[3,5]{1,0:T(2,4)}")).unwrap();
    round_trip(&index_util::MemoryOrder::of(&layout).unwrap());
}

#[test]
fn opcodes_are_typed_and_written_as_their_names() {
    let text = String::from_utf8(golden("peak_memory/attention/compiled.txt")).unwrap();
    let report = hlo_util::MemoryReport::read(text.as_bytes(), hlo_util::Limit::All).unwrap();
    assert!(!report.instructions.is_empty());
    for row in &report.instructions {
        let opcode = &row.opcode;
        assert!(opcode.is_known(), "{opcode}");
        assert_eq!(round_trip(opcode), format!("\"{opcode}\""));
        assert_eq!(row.to_shape().unwrap().to_string(), row.shape);
    }
    let kinds: HashMap<hlo_util::Opcode, usize> = report
        .instructions
        .iter()
        .map(|row| (row.opcode.clone(), 0))
        .collect();
    assert!(kinds.contains_key(&hlo_util::Opcode::Parameter));
}

#[test]
fn the_enums_a_user_prints_say_their_names() {
    assert_eq!(
        hlo_util::BufferKind::ThreadLocal.to_string(),
        "thread_local"
    );
    assert_eq!(hlo_util::StepUnit::HeapEvent.to_string(), "heap_event");
    assert_eq!(relayout::Strategy::TilePieces.to_string(), "tile_pieces");
    assert_eq!(
        relayout::Strategy::TileTranspose.to_string(),
        "tile_transpose"
    );
    assert_eq!(relayout::SimdLevel::Avx512.to_string(), "avx512");
    assert_eq!(
        sharding_util::SubgroupType::Replicated.to_string(),
        "replicated"
    );
    assert_eq!(stride_util::NumpyOrder::K.to_string(), "K");
    // The JSON and the text agree.
    let kind = serde_json::to_string(&hlo_util::BufferKind::ThreadLocal).unwrap();
    assert_eq!(kind, format!("\"{}\"", hlo_util::BufferKind::ThreadLocal));
}

/// Every message of `error`'s chain, outermost first.
fn chain(error: &dyn Error) -> Vec<String> {
    let mut messages = vec![error.to_string()];
    let mut source = error.source();
    while let Some(inner) = source {
        messages.push(inner.to_string());
        source = inner.source();
    }
    messages
}

/// The chain as anyhow's `{:#}` prints it, checked to say nothing twice: no
/// message of the chain holds the message of its source.
fn said_once(error: &dyn Error) -> String {
    let messages = chain(error);
    for pair in messages.windows(2) {
        assert!(!pair[0].contains(&pair[1]), "said twice: {messages:?}");
    }
    messages.join(": ")
}

/// Runs `f`, whose `?`s turn each crate's error into a `Box<dyn Error>`,
/// and gives that error.
fn boxed(f: impl FnOnce() -> Result<(), Box<dyn Error>>) -> Box<dyn Error> {
    f().expect_err("the input is bad")
}

#[test]
fn each_crates_error_goes_through_question_mark_and_says_itself_once() {
    let errors = [
        boxed(|| {
            let _: Shape = "f32[2".parse()?;
            Ok(())
        }),
        boxed(|| {
            let s = shape("f32[2,3]");
            layout_util::validate_layout_for_shape(&layout_util::make_layout(&[0]), &s)?;
            Ok(())
        }),
        boxed(|| {
            index_util::TiledLayout::new(&shape("(f32[2])"))?;
            Ok(())
        }),
        boxed(|| {
            let negative = Shape {
                element_type: schema::PrimitiveType::F32 as i32,
                dimensions: vec![2, -3],
                ..Shape::default()
            };
            shape_util::validate_shape(&negative)?;
            Ok(())
        }),
        boxed(|| {
            stride_util::resolve_view("[3,4]", &[".reshape(5)"])?;
            Ok(())
        }),
        boxed(|| {
            let mut dst = [0_u8; 4];
            relayout::relayout_xla(&[0; 8], &shape("f32[2]{0}"), &mut dst, &shape("f32[2]{0}"))?;
            Ok(())
        }),
        boxed(|| {
            let _: HloSharding = "{devices=[2]0}".parse()?;
            Ok(())
        }),
        boxed(|| {
            HloSharding::from_shardy(r#"#sdy.sharding<@mesh, [{"c"}]>"#, r#"<["a"=2]>"#)?;
            Ok(())
        }),
        boxed(|| {
            sharding_util::sdy::tensor_shape("tensor<4xindex>")?;
            Ok(())
        }),
        boxed(|| {
            literal_util::to_text(&schema::LiteralProto::default())?;
            Ok(())
        }),
        boxed(|| {
            hlo_util::peak_from_hlo_proto(&[0x0a, 0x05, 0x12])?;
            Ok(())
        }),
        boxed(|| {
            hlo_util::memory_from_module_text(
                "HloModule m\nENTRY e {\n  ROOT p = f32[2 parameter(0)\n}\n",
            )?;
            Ok(())
        }),
        boxed(|| {
            hlo_util::read_module(
                &b"HloModule m\nENTRY e {\n  ROOT p = f32[2 parameter(0)\n}\n"[..],
                |_| {},
            )?;
            Ok(())
        }),
    ];
    for error in &errors {
        let text = said_once(error.as_ref());
        assert!(!text.is_empty());
    }
    // The text error of a module: its place once, then what is wrong.
    for module in &errors[11..] {
        assert_eq!(
            said_once(module.as_ref()),
            "line 3, column 15: `[` is never closed"
        );
    }
}

#[test]
fn an_unknown_element_type_is_named_by_its_number() {
    let mut unknown = shape("f32[2,3]{1,0}");
    unknown.element_type = 9999;
    let messages = [
        shape_util::validate_shape(&unknown)
            .unwrap_err()
            .to_string(),
        index_util::TiledLayout::new(&unknown)
            .unwrap_err()
            .to_string(),
        shape_util::byte_size_of(&unknown, None)
            .unwrap_err()
            .to_string(),
    ];
    for message in messages {
        assert!(message.contains("9999"), "{message}");
    }
}
