//! Layout validation and default layouts against shapes that real XLA
//! produced (tests/golden/shapes.jsonl, hlo_shapes.jsonl; see
//! build-tools/README.md): every layout XLA accepts validates here, and the
//! ones XLA's `ValidateShape` would reject fail here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::{
    LayoutEqual, clear_layout, has_layout, layouts_in_shapes_equal, set_to_default_layout,
    validate_layout_in_shape,
};
use prost::Message;
use schema::Shape;

/// (source, string, shape) of every row of a golden file.
fn rows(file: &str) -> Vec<(String, String, Shape)> {
    conformance::load(file)
        .unwrap()
        .into_iter()
        .map(|row| {
            let bytes = conformance::hex_decode(row["hex"].as_str().unwrap()).unwrap();
            (
                row["source"].as_str().unwrap().to_owned(),
                row["string"].as_str().unwrap().to_owned(),
                Shape::decode(bytes.as_slice()).unwrap(),
            )
        })
        .collect()
}

/// Whether the layout sets a sparse-only field (`#(..)`/`*(..)`), which
/// XLA's parser keeps but `ValidateShape` rejects.
fn has_sparse_only_field(shape: &Shape) -> bool {
    shape
        .layout
        .as_ref()
        .is_some_and(|l| l.index_primitive_type != 0 || l.pointer_primitive_type != 0)
        || shape.tuple_shapes.iter().any(has_sparse_only_field)
}

fn has_split_configs(shape: &Shape) -> bool {
    shape
        .layout
        .as_ref()
        .is_some_and(|l| !l.split_configs.is_empty())
}

#[test]
fn every_layout_xla_produced_validates() {
    let mut checked = 0;
    for file in ["shapes.jsonl", "hlo_shapes.jsonl"] {
        for (source, string, shape) in rows(file) {
            if source == "parse:unvalidated" || has_sparse_only_field(&shape) {
                continue;
            }
            // XLA's parser does not validate split configs; three hand-written
            // rows have split indices that the 2026 validation rejects (see
            // `split_configs_of_parsed_rows`).
            if has_split_configs(&shape) && source.starts_with("parse:") {
                continue;
            }
            assert_eq!(validate_layout_in_shape(&shape, false), Ok(()), "{string}");
            assert!(has_layout(&shape), "{string}");
            checked += 1;
        }
    }
    assert!(checked > 900, "only {checked} rows");
}

#[test]
fn layouts_xla_would_reject_fail() {
    let mut messages = Vec::new();
    for (source, string, shape) in rows("shapes.jsonl") {
        if source == "parse:unvalidated" || has_sparse_only_field(&shape) {
            let result = validate_layout_in_shape(&shape, false);
            messages.push(format!(
                "{string} => {}",
                result.err().map_or("ok".to_owned(), |e| e.to_string())
            ));
        }
    }
    let expected = [
        "f32[2,3]{1,1} => layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]",
        "f32[2,3]{0,5} => layout minor_to_major field has out-of-bounds value: {0, 5}; shape: f32[2,3]",
        "f32[2,3]{-1,0} => layout minor_to_major field has out-of-bounds value: {-1, 0}; shape: f32[2,3]",
        "f32[2]{0:T(0)} => layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[2]",
        "f32[2]{0:T()} => layout has invalid tiles: f32[2]",
        "f32[2]{0:E(-4)} => layout element_size_in_bits field is negative: -4",
        "f32[2]{0:SC(0:5)} => split config split index is out of bounds: 5 (dim size 2); shape: f32[2]",
        "f32[2]{0:SC(3:1)} => split config has out-of-bounds physical dimension: 3; shape: f32[2]",
        "f32[2]{0:SC(0:1)(0:1)} => split config has duplicate physical dimension: 0; shape: f32[2]",
        "f32[2]{0:SC(0:0)} => split config split indices must be strictly increasing and positive: {0}; shape: f32[2]",
        "f32[4]{0:SC(0:3,1)} => split config split indices must be strictly increasing and positive: {3, 1}; shape: f32[4]",
        // M(-5) is stored but not printed, and is not validated.
        "f32[2]{0} => ok",
    ];
    for line in expected {
        assert!(
            messages.iter().any(|m| m == line),
            "missing {line}\nin {messages:#?}"
        );
    }
    assert!(
        messages
            .iter()
            .filter(|m| m.contains("#(") || m.contains("*("))
            .all(|m| m.contains("but is not a sparse array: f32[")),
        "{messages:#?}"
    );
}

#[test]
fn default_layouts_match_xla_parsed_defaults() {
    // Rows XLA parsed from a string without a layout carry XLA's default
    // layout; clearing and setting the default must give the same bytes.
    let mut checked = 0;
    for (source, string, shape) in rows("shapes.jsonl") {
        let untouched = !string.contains('{') && !string.contains("b(");
        if !source.starts_with("parse:") || !untouched {
            continue;
        }
        let mut rebuilt = shape.clone();
        clear_layout(&mut rebuilt);
        set_to_default_layout(&mut rebuilt);
        assert_eq!(rebuilt.encode_to_vec(), shape.encode_to_vec(), "{string}");
        assert!(layouts_in_shapes_equal(
            &rebuilt,
            &shape,
            &LayoutEqual::new()
        ));
        checked += 1;
    }
    assert!(checked > 20, "only {checked} rows");
}

#[test]
fn split_configs_of_parsed_rows() {
    let mut outcomes = Vec::new();
    for (source, string, shape) in rows("shapes.jsonl") {
        if source == "parse:layout" && has_split_configs(&shape) {
            let result = validate_layout_in_shape(&shape, false);
            outcomes.push(format!(
                "{string} => {}",
                result.err().map_or("ok".to_owned(), |e| e.to_string())
            ));
        }
    }
    assert_eq!(
        outcomes,
        [
            "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)} => ok",
            "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)} => ok",
            "f32[10,20]{0,1:SC(0:3)(1:0,4)} => split config split indices must be strictly increasing and positive: {0, 4}; shape: f32[10,20]",
            "f32[10,20]{0,1:T(123)SC(0:3)(1:0,4)} => split config split indices must be strictly increasing and positive: {0, 4}; shape: f32[10,20]",
            "f32[10]{0:SC(0:1,2,3,4,5,6,7,8,9)} => ok",
            "f32[1,2]{1,0:T(1,2)(3)L(4)#(u8)*(u8)E(32)S(2)SC(1:1)M(16)} => layout has a index_primitive_type, but is not a sparse array: f32[1,2]",
            // Physical dimension 1 of {0,1} is logical dimension 0, of size 8.
            "u4[8,128]{0,1:T(8,128)(2,1)L(1024)E(4)S(1)SC(1:64)M(4)} => split config split index is out of bounds: 64 (dim size 8); shape: u4[8,128]",
        ]
    );
}
