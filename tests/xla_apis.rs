//! Golden tests of the ports of XLA's utility APIs (`build-tools/gen_xla_apis.py`):
//! - `primitive_float.jsonl`: `schema::primitive_util`'s float properties against
//!   `ml_dtypes.finfo` and the special values that survive a cast (numpy);
//! - `pack_int_n.jsonl`: `pack_int_n`/`unpack_int_n` against the bytes jaxlib 0.12
//!   keeps on the CPU device for arrays of the sub-byte types;
//! - `shape_queries.jsonl`: `Shape`'s methods against `xc.Shape`'s;
//! - `sharding_queries.jsonl`: `HloSharding`'s queries against `xc.HloSharding`'s.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, hex_decode, load, required};
use schema::PrimitiveType;
use schema::primitive_util as pu;
use serde_json::Value;

fn int(row: &Row, key: &str) -> i64 {
    row.get(key)
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("no integer `{key}` in {row:?}"))
}

fn flag(row: &Row, key: &str) -> bool {
    row.get(key)
        .and_then(Value::as_bool)
        .unwrap_or_else(|| panic!("no bool `{key}` in {row:?}"))
}

#[test]
fn float_properties_agree_with_ml_dtypes() {
    let rows = load("primitive_float.jsonl").unwrap();
    let floats = PrimitiveType::all()
        .iter()
        .filter(|t| t.is_floating_point())
        .count();
    assert_eq!(rows.len(), floats, "one row per floating-point type");
    for row in &rows {
        let ty: PrimitiveType = required(row, "type").unwrap().parse().unwrap();
        let name = ty.lowercase_name();
        // finfo's `nmant` leaves out the implicit bit; `minexp` is the
        // exponent of the smallest normal number, `maxexp` XLA's.
        assert_eq!(
            i64::from(pu::significand_width(ty).unwrap()),
            int(row, "nmant") + 1,
            "{name}"
        );
        assert_eq!(
            i64::from(pu::underflow_exponent(ty).unwrap()),
            int(row, "minexp") + 1,
            "{name}"
        );
        assert_eq!(
            i64::from(pu::overflow_exponent(ty).unwrap()),
            int(row, "maxexp"),
            "{name}"
        );
        assert_eq!(pu::has_infinity(ty), flag(row, "has_inf"), "{name}");
        assert_eq!(pu::has_nan(ty), flag(row, "has_nan"), "{name}");
        assert_eq!(
            pu::has_negative_zero(ty),
            flag(row, "has_neg_zero"),
            "{name}"
        );
        // XLA's ExponentWidth is its bit width less the significand and a
        // sign bit: finfo's `nexp` where the format has a sign bit and fills
        // its bits (XLA keeps f6 in a byte, and e8m0 has no sign).
        let exponent = i64::from(pu::exponent_width(ty).unwrap());
        let bits = i64::from(pu::bit_width(ty).unwrap());
        assert_eq!(exponent, bits - int(row, "nmant") - 1, "{name}");
        if bits == int(row, "bits") && ty != PrimitiveType::F8e8m0fnu {
            assert_eq!(exponent, int(row, "nexp"), "{name}");
        }
        // And the bias is 1 - minexp for the formats with subnormals.
        if ty != PrimitiveType::F8e8m0fnu {
            assert_eq!(
                i64::from(pu::exponent_bias(ty).unwrap()),
                1 - int(row, "minexp"),
                "{name}"
            );
        }
    }
}

#[test]
fn packing_agrees_with_jaxlib_device_buffers() {
    let rows = load("pack_int_n.jsonl").unwrap();
    assert!(rows.len() >= 40, "{} rows", rows.len());
    for row in &rows {
        let ty: PrimitiveType = required(row, "type").unwrap().parse().unwrap();
        let values: Vec<u8> = row["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| u8::try_from(v.as_u64().unwrap()).unwrap())
            .collect();
        let packed = hex_decode(required(row, "packed").unwrap()).unwrap();
        let mut out = vec![0_u8; packed.len()];
        pu::pack_int_n(ty, &values, &mut out).unwrap();
        assert_eq!(out, packed, "{ty:?} {values:?}");
        let mut back = vec![0_u8; values.len()];
        pu::unpack_int_n(ty, &packed, &mut back).unwrap();
        assert_eq!(back, values, "{ty:?} {values:?}");
    }
}

/// The `value` of query `key` in `row`, if XLA answered it.
fn answer<'a>(row: &'a Row, key: &str) -> Option<&'a Value> {
    let cell = row.get(key)?;
    assert!(
        cell.get("crash").is_none() && cell.get("error").is_none(),
        "XLA failed {key}: {row:?}"
    );
    cell.get("value")
}

fn ints(value: &Value) -> Vec<i64> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect()
}

#[test]
fn sharding_queries_agree_with_xla() {
    use sharding_util::HloSharding;
    let rows = load("sharding_queries.jsonl").unwrap();
    assert!(rows.len() >= 30, "{} rows", rows.len());
    let mut tiled_rows = 0;
    for row in &rows {
        let input = required(row, "input").unwrap();
        let s: HloSharding = input.parse().unwrap();
        let predicates: [(&str, bool); 6] = [
            ("is_replicated", s.is_replicated()),
            ("is_maximal", s.is_tile_maximal()),
            ("is_manual", s.is_manual()),
            ("is_tiled", s.is_tiled()),
            ("is_unknown", s.is_unknown()),
            ("is_unreduced", s.is_unreduced()),
        ];
        for (key, ours) in predicates {
            assert_eq!(
                Some(ours),
                answer(row, key).and_then(Value::as_bool),
                "{key} of {input}"
            );
        }
        let elements: Vec<String> = s.tuple_elements().iter().map(ToString::to_string).collect();
        let xla: Vec<&str> = answer(row, "tuple_elements")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(elements, xla, "tuple_elements of {input}");
        // A flat tuple's element i is its sub-sharding at {i}.
        if s.is_tuple() {
            let leaves: Vec<String> = (0..elements.len())
                .map(|i| format!("f32[{}]", i + 1))
                .collect();
            let shape = format!("({})", leaves.join(", ")).parse().unwrap();
            for (i, e) in xla.iter().enumerate() {
                let sub = s
                    .get_sub_sharding(&shape, &[i64::try_from(i).unwrap()])
                    .unwrap();
                assert_eq!(sub.to_string(), *e, "get_sub_sharding {{{i}}} of {input}");
            }
        }
        let Some(dims) = answer(row, "tile_assignment_dimensions") else {
            continue;
        };
        tiled_rows += 1;
        let tiles = s.tile_assignment().unwrap();
        assert_eq!(tiles.dimensions(), ints(dims), "dimensions of {input}");
        let devices = ints(answer(row, "tile_assignment_devices").unwrap());
        assert_eq!(
            tiles.iter().collect::<Vec<_>>(),
            devices,
            "devices of {input}"
        );
        assert_eq!(tiles.first(), devices[0]);
        for &d in &devices {
            assert!(s.uses_device(d), "{input} uses {d}");
        }
        assert_eq!(
            Some(s.replicate_on_last_tile_dim()),
            answer(row, "replicate_on_last_tile_dim").and_then(Value::as_bool),
            "{input}"
        );
        assert_eq!(
            s.num_devices(),
            answer(row, "num_devices").and_then(Value::as_i64),
            "{input}"
        );
        assert_eq!(
            i64::try_from(tiles.dimensions().len()).ok(),
            answer(row, "num_dimensions").and_then(Value::as_i64),
            "{input}"
        );
        let types: Vec<&str> = s.subgroup_types().iter().map(|t| t.name()).collect();
        let xla_types: Vec<&str> = answer(row, "subgroup_types")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(types, xla_types, "subgroup_types of {input}");
    }
    assert!(tiled_rows >= 14, "{tiled_rows} tiled rows");
}

#[test]
fn shape_queries_agree_with_xla() {
    let rows = load("shape_queries.jsonl").unwrap();
    assert!(rows.len() >= 14, "{} rows", rows.len());
    for row in &rows {
        let text = required(row, "text").unwrap();
        let shape: schema::Shape = text.parse().unwrap();
        assert_eq!(shape.to_string(), text);
        assert_eq!(shape.is_static(), flag(row, "is_static"), "{text}");
        assert_eq!(shape.is_dynamic(), flag(row, "is_dynamic"), "{text}");
        assert_eq!(shape.is_array(), flag(row, "is_array"), "{text}");
        assert_eq!(shape.is_tuple(), flag(row, "is_tuple"), "{text}");
        assert_eq!(shape.is_token(), flag(row, "is_token"), "{text}");
        assert_eq!(
            i64::try_from(shape_util::leaf_count(&shape)).unwrap(),
            int(row, "leaf_count"),
            "{text}"
        );
        if let Some(dynamic) = row.get("dynamic").and_then(Value::as_array) {
            assert_eq!(
                i64::try_from(shape.dimensions.len()).unwrap(),
                int(row, "rank"),
                "{text}"
            );
            for (d, xla) in dynamic.iter().enumerate() {
                let xla = xla.as_bool().unwrap();
                assert_eq!(shape.is_dynamic_dimension(d), xla, "{text} dimension {d}");
                assert_eq!(shape.is_static_dimension(d), !xla, "{text} dimension {d}");
                assert_eq!(
                    shape.is_bounded_dynamic_dimension(d)
                        || shape.is_unbounded_dynamic_dimension(d),
                    xla,
                    "{text} dimension {d}"
                );
            }
        }
    }
}
