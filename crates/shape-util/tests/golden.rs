//! Checks the constructors and validation against golden files written by
//! real XLA (jaxlib 0.10.2, see build-tools/README.md): every shape XLA
//! serialized is rebuilt with this crate's constructors and must encode to
//! exactly XLA's bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use prost::Message;
use schema::{PrimitiveType, Shape};
use shape_util::{
    is_array, is_buffer, is_opaque, is_token, is_tuple, make_buffer_shape, make_opaque_shape,
    make_shape, make_shape_with_layout, make_token_shape, make_tuple_shape, set_dynamic_dimension,
    validate_shape,
};

struct Golden {
    source: String,
    string: String,
    bytes: Vec<u8>,
}

fn load(name: &str) -> Vec<Golden> {
    conformance::load(name)
        .unwrap()
        .iter()
        .map(|row| {
            let field = |key: &str| conformance::field(row, key).unwrap_or_default().to_owned();
            Golden {
                source: field("source"),
                string: field("string"),
                bytes: conformance::hex_decode(&field("hex")).unwrap(),
            }
        })
        .collect()
}

/// Rebuilds `shape` with the crate's constructors only.
fn rebuild(shape: &Shape) -> Shape {
    if is_tuple(shape) {
        return make_tuple_shape(shape.tuple_shapes.iter().map(rebuild).collect()).unwrap();
    }
    if is_token(shape) {
        return make_token_shape();
    }
    if is_opaque(shape) {
        return make_opaque_shape();
    }
    if is_buffer(shape) {
        let inner = &shape.tuple_shapes[0];
        let rebuilt = make_buffer_shape(inner.element_type(), &inner.dimensions).unwrap();
        if rebuilt.tuple_shapes[0] == rebuild(inner) {
            return rebuilt;
        }
        // A buffer of an array with a non-default layout.
        return Shape {
            tuple_shapes: vec![rebuild(inner)],
            ..rebuilt
        };
    }
    assert!(is_array(shape), "{shape}");
    let ty = shape.element_type();
    let layout = shape.layout.as_deref().unwrap().clone();
    let mut rebuilt = make_shape_with_layout(ty, &shape.dimensions, layout).unwrap();
    for (i, &dynamic) in shape.is_dynamic_dimension.iter().enumerate() {
        set_dynamic_dimension(&mut rebuilt, i, dynamic).unwrap();
    }
    rebuilt
}

/// `shape` with every `element_size_in_bits` equal to the type's own size
/// set to 0.
fn without_default_element_size(shape: &Shape) -> Shape {
    let mut result = shape.clone();
    result.tuple_shapes = shape
        .tuple_shapes
        .iter()
        .map(without_default_element_size)
        .collect();
    let own_bits = shape.element_type().byte_width().map(|w| w * 8);
    if let Some(layout) = result.layout.as_deref_mut()
        && Some(layout.element_size_in_bits) == own_bits
    {
        layout.element_size_in_bits = 0;
    }
    result
}

/// Returns (shapes rebuilt byte for byte, shapes both XLA's validation and
/// the constructors reject).
fn check_rebuilds(name: &str, skip: &[&str]) -> (usize, usize) {
    let (mut checked, mut rejected) = (0, 0);
    for golden in load(name) {
        if skip.iter().any(|s| golden.source.starts_with(s)) {
            continue;
        }
        let xla = Shape::decode(golden.bytes.as_slice()).unwrap();
        if let Err(e) = validate_shape(&xla) {
            // XLA's parser checks neither sizes nor split configs; its
            // constructors do.
            let layout = xla.layout.as_deref().cloned().unwrap_or_default();
            let built = make_shape_with_layout(xla.element_type(), &xla.dimensions, layout);
            assert!(built.is_err(), "{}: {e}", golden.string);
            eprintln!("rejected {}: {e}", golden.string);
            rejected += 1;
            continue;
        }
        let rebuilt = rebuild(&xla);
        let expected = without_default_element_size(&xla);
        if expected == xla {
            assert_eq!(rebuilt.to_string(), golden.string, "{}", golden.source);
            assert_eq!(
                rebuilt.encode_to_vec(),
                golden.bytes,
                "{} {}",
                golden.source,
                golden.string
            );
        } else {
            // The parser keeps `E(32)` on an f32; MakeShapeWithDenseLayout
            // stores the default element size as 0.
            assert_eq!(
                rebuilt.encode_to_vec(),
                expected.encode_to_vec(),
                "{}",
                golden.string
            );
            eprintln!("normalized {}: {rebuilt}", golden.string);
        }
        checked += 1;
    }
    (checked, rejected)
}

#[test]
fn constructors_write_xlas_bytes_for_every_golden_shape() {
    // parse:unvalidated holds invalid layouts and parse:large sizes beyond
    // i64 bytes; both are checked below.
    let (checked, rejected) = check_rebuilds("shapes.jsonl", &["parse:unvalidated", "parse:large"]);
    // Rejected: a `<=i64::MAX` bound (size overflow), split configs with a
    // zero or out-of-bounds index, and sparse-only index/pointer types; XLA's
    // parser keeps them, its ValidateShape does not.
    assert_eq!((checked, rejected), (490, 11));
}

#[test]
fn constructors_write_xlas_bytes_for_every_hlo_shape() {
    let (checked, rejected) = check_rebuilds("hlo_shapes.jsonl", &[]);
    assert_eq!((checked, rejected), (446, 0));
}

#[test]
fn make_shape_accepts_exactly_the_large_shapes_whose_byte_size_fits() {
    let mut seen = 0;
    for golden in load("shapes.jsonl") {
        if golden.source != "parse:large" {
            continue;
        }
        let xla = Shape::decode(golden.bytes.as_slice()).unwrap();
        let ty = xla.element_type();
        let fits = xla
            .dimensions
            .iter()
            .try_fold(ty.byte_width().unwrap(), |p, &d| p.checked_mul(d))
            .is_some();
        match make_shape(ty, &xla.dimensions) {
            Ok(shape) => {
                assert!(fits, "{}", golden.string);
                assert_eq!(shape.encode_to_vec(), golden.bytes, "{}", golden.string);
                assert!(validate_shape(&shape).is_ok());
            }
            Err(e) => {
                assert!(!fits, "{}: {e}", golden.string);
                let dims = xla
                    .dimensions
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                assert_eq!(
                    e.to_string(),
                    format!("overflow in static extent product: dimensions=[{dims}].")
                );
                assert_eq!(
                    validate_shape(&xla).unwrap_err().to_string(),
                    format!("Shape {} size may overflow int64_t.", xla.human_string())
                );
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 13);
}

#[test]
fn unvalidated_golden_layouts_fail_validation_with_xlas_messages() {
    let expected = [
        (
            "f32[2,3]{1,1}",
            "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]",
        ),
        (
            "f32[2,3]{0,5}",
            "layout minor_to_major field has out-of-bounds value: {0, 5}; shape: f32[2,3]",
        ),
        (
            "f32[2,3]{-1,0}",
            "layout minor_to_major field has out-of-bounds value: {-1, 0}; shape: f32[2,3]",
        ),
        (
            "f32[2]{0:T(0)}",
            "layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[2]",
        ),
        ("f32[2]{0:T()}", "layout has invalid tiles: f32[2]"),
        (
            "f32[2]{0:E(-4)}",
            "layout element_size_in_bits field is negative: -4",
        ),
        (
            "f32[2]{0:SC(0:5)}",
            "split config split index is out of bounds: 5 (dim size 2); shape: f32[2]",
        ),
        (
            "f32[2]{0:SC(3:1)}",
            "split config has out-of-bounds physical dimension: 3; shape: f32[2]",
        ),
        (
            "f32[2]{0:SC(0:1)(0:1)}",
            "split config has duplicate physical dimension: 0; shape: f32[2]",
        ),
        (
            "f32[2]{0:SC(0:0)}",
            "split config split indices must be strictly increasing and positive: {0}; shape: f32[2]",
        ),
        (
            "f32[4]{0:SC(0:3,1)}",
            "split config split indices must be strictly increasing and positive: {3, 1}; shape: f32[4]",
        ),
    ];
    let goldens: Vec<Golden> = load("shapes.jsonl")
        .into_iter()
        .filter(|g| g.source == "parse:unvalidated")
        .collect();
    for (string, message) in expected {
        let golden = goldens.iter().find(|g| g.string == string).unwrap();
        let xla = Shape::decode(golden.bytes.as_slice()).unwrap();
        assert_eq!(
            validate_shape(&xla).unwrap_err().to_string(),
            message,
            "{string}"
        );
    }
    // A negative dynamic_shape_metadata_prefix_bytes is not checked by XLA.
    let metadata = goldens.iter().find(|g| g.string == "f32[2]{0}").unwrap();
    let xla = Shape::decode(metadata.bytes.as_slice()).unwrap();
    assert_eq!(xla.layout.unwrap().dynamic_shape_metadata_prefix_bytes, -5);
}

#[test]
fn golden_array_shapes_of_every_primitive_type_match_make_shape_with_dense_layout() {
    let mut types = Vec::new();
    for golden in load("shapes.jsonl") {
        if golden.source != "array_shape:primitive_type" {
            continue;
        }
        let xla = Shape::decode(golden.bytes.as_slice()).unwrap();
        let ty = xla.element_type();
        let shape = shape_util::make_shape_with_dense_layout(ty, &[3, 0, 1], &[1, 2, 0]).unwrap();
        assert_eq!(shape.encode_to_vec(), golden.bytes, "{}", golden.string);
        types.push(ty);
    }
    assert_eq!(types.len(), 26);
    assert!(types.contains(&PrimitiveType::F4e2m1fn));
}
