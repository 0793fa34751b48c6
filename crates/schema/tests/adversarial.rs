//! Hostile bytes and text: broken and oversized varints, length prefixes
//! past the end, a million dimensions, enum numbers no enum has, and
//! messages nested 10,000 deep in bytes, in XLA's shape strings, in text
//! format and in JSON. Each is decoded or rejected with a precise error,
//! never a panic or a stack overflow: the deep cases run on a 2 MiB stack,
//! the default for test threads and for most thread pools.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::on_small_stack;
use conformance::{length_delimited as delimited, nested_tuple_bytes, varint};
use prost::Message;
use schema::{
    FormatError, Layout, MAX_DEPTH, MAX_TEXT_FORMAT_DEPTH, PaddingValue, ParseError, PrimitiveType,
    ProgramShape, ProtoFormat, Shape, SplitConfig, Tile,
};

/// Keys: field number << 3 | wire type (0 varint, 2 length-delimited).
const ELEMENT_TYPE: u8 = 2 << 3;
const DIMENSIONS_VARINT: u8 = 3 << 3;
const DIMENSIONS_PACKED: u8 = 3 << 3 | 2;
const TUPLE_SHAPES: u8 = 4 << 3 | 2;
const LAYOUT: u8 = 5 << 3 | 2;
const MINOR_TO_MAJOR_PACKED: u8 = 1 << 3 | 2;
const PADDING_VALUE: u8 = 3 << 3;
const DIM_LEVEL_TYPES_PACKED: u8 = 9 << 3 | 2;
const PHYSICAL_SHAPE: u8 = 10 << 3 | 2;
const INDEX_PRIMITIVE_TYPE: u8 = 11 << 3;
const PROGRAM_RESULT: u8 = 2 << 3 | 2;

fn decode_error(bytes: &[u8]) -> String {
    Shape::decode(bytes).unwrap_err().to_string()
}

/// `f32` followed by `field` holding `value` as a varint.
fn f32_with_varint(key: u8, value: &[u8]) -> Vec<u8> {
    let mut bytes = vec![ELEMENT_TYPE, PrimitiveType::F32 as u8, key];
    bytes.extend_from_slice(value);
    bytes
}

#[test]
fn varints_longer_than_ten_bytes_or_above_u64_are_invalid() {
    // A varint has at most 10 bytes; the 10th may only hold bit 63.
    let eleven_bytes = [[0x80; 10].as_slice(), &[0x00]].concat();
    let above_u64 = [[0xff; 9].as_slice(), &[0x02]].concat();
    for bad in [eleven_bytes, above_u64] {
        assert_eq!(
            decode_error(&f32_with_varint(DIMENSIONS_VARINT, &bad)),
            "failed to decode Protobuf message: Shape.dimensions: invalid varint"
        );
        let mut bytes = vec![ELEMENT_TYPE];
        bytes.extend_from_slice(&bad);
        assert_eq!(
            decode_error(&bytes),
            "failed to decode Protobuf message: Shape.element_type: invalid varint"
        );
    }
    // u64::MAX itself is the 10-byte varint ending in 0x01: the int64 -1.
    let max = [[0xff; 9].as_slice(), &[0x01]].concat();
    assert_eq!(varint(u64::MAX), max);
    let shape = Shape::decode(f32_with_varint(DIMENSIONS_VARINT, &max).as_slice()).unwrap();
    assert_eq!(shape.dimensions, [-1]);
}

#[test]
fn truncated_varints_are_invalid() {
    for bytes in [
        vec![ELEMENT_TYPE, 0x80],
        vec![ELEMENT_TYPE, 0xff, 0xff, 0xff],
        f32_with_varint(DIMENSIONS_VARINT, &[0x80; 9]),
    ] {
        assert!(
            decode_error(&bytes).ends_with(": invalid varint"),
            "{bytes:x?}"
        );
    }
    // A key cut in the middle.
    assert_eq!(
        decode_error(&[0x80]),
        "failed to decode Protobuf message: invalid varint"
    );
}

#[test]
fn integers_are_cast_as_protobuf_casts_them() {
    // int64 dimensions: the extremes and -1 are 10-byte two's complement.
    let dims: [i64; 3] = [i64::MIN, i64::MAX, -1];
    let mut packed = Vec::new();
    for d in dims {
        packed.extend(varint(d.cast_unsigned()));
    }
    let mut bytes = vec![ELEMENT_TYPE, PrimitiveType::F32 as u8];
    bytes.extend(delimited(DIMENSIONS_PACKED, &packed));
    let shape = Shape::decode(bytes.as_slice()).unwrap();
    assert_eq!(shape.dimensions, dims);
    assert_eq!(
        shape.to_string(),
        "f32[-9223372036854775808,9223372036854775807,-1]"
    );
    // An int32 enum field keeps the low 32 bits of a wider varint (the
    // protobuf language guide: "the same effect as if you had cast the
    // number to that type in C++"): 2^32 + 11 is F32.
    let mut bytes = vec![ELEMENT_TYPE];
    bytes.extend(varint((1 << 32) + 11));
    let shape = Shape::decode(bytes.as_slice()).unwrap();
    assert_eq!(shape.element_type(), PrimitiveType::F32);
}

#[test]
fn length_prefixes_past_the_end_underflow() {
    let claims = |key: u8, length: u64, contents: &[u8]| {
        let mut bytes = vec![ELEMENT_TYPE, PrimitiveType::Tuple as u8, key];
        bytes.extend(varint(length));
        bytes.extend_from_slice(contents);
        bytes
    };
    for length in [1 << 40, u64::MAX, 3] {
        assert_eq!(
            decode_error(&claims(TUPLE_SHAPES, length, &[0x10, 0x0b])),
            "failed to decode Protobuf message: Shape.tuple_shapes: buffer underflow",
            "length {length}"
        );
        assert_eq!(
            decode_error(&claims(DIMENSIONS_PACKED, length, &[0x01, 0x02])),
            "failed to decode Protobuf message: Shape.dimensions: buffer underflow",
            "length {length}"
        );
    }
    // A message whose length ends between a key and its value: the inner
    // decoder stops at its own end, not at the end of the buffer.
    // (prost reads the field on, then finds it ended past the length.)
    assert_eq!(
        decode_error(&claims(TUPLE_SHAPES, 1, &[ELEMENT_TYPE, 0x0b])),
        "failed to decode Protobuf message: Shape.tuple_shapes: delimited length exceeded"
    );
    // A packed list whose last varint runs past its length.
    assert_eq!(
        decode_error(&claims(DIMENSIONS_PACKED, 1, &[0x80, 0x01])),
        "failed to decode Protobuf message: Shape.dimensions: delimited length exceeded"
    );
}

#[test]
fn a_million_dimensions_decode_print_and_parse_back() {
    let count = 1_000_000;
    let mut bytes = vec![ELEMENT_TYPE, PrimitiveType::F32 as u8];
    bytes.extend(delimited(DIMENSIONS_PACKED, &vec![0x01; count]));
    let shape = Shape::decode(bytes.as_slice()).unwrap();
    assert_eq!(shape.dimensions.len(), count);
    assert!(shape.dimensions.iter().all(|&d| d == 1));
    let text = shape.to_string();
    assert_eq!(text.len(), "f32[]".len() + 2 * count - 1);
    let parsed: Shape = text.parse().unwrap();
    assert_eq!(parsed.dimensions, shape.dimensions);
    // The parser gives the default descending layout.
    let layout = parsed.layout.as_deref().unwrap();
    assert_eq!(layout.minor_to_major.len(), count);
    assert_eq!(layout.minor_to_major.first(), Some(&999_999));
    assert_eq!(layout.minor_to_major.last(), Some(&0));
}

#[test]
fn enum_numbers_outside_their_enums_are_kept_and_printed_as_invalid() {
    // XLA turns an unknown element type into PRIMITIVE_TYPE_INVALID, which
    // has no dimensions to print.
    for number in [9999_u64, u64::MAX, 0] {
        let mut bytes = vec![ELEMENT_TYPE];
        bytes.extend(varint(number));
        bytes.extend([DIMENSIONS_VARINT, 0x02]);
        let shape = Shape::decode(bytes.as_slice()).unwrap();
        assert_eq!(
            i64::from(shape.element_type),
            number.cast_signed() as i32 as i64
        );
        assert_eq!(shape.element_type(), PrimitiveType::Invalid);
        assert_eq!(shape.to_string(), "primitive_type_invalid[]");
    }
    // A layout with padding_value 77, dim_level_types {9999} (proto-only
    // since 2025-05, never printed) and index_primitive_type 9999
    // (printed `#(invalid)`, as XLA prints a non-integral index type).
    let mut layout = delimited(MINOR_TO_MAJOR_PACKED, &[0x00]);
    layout.extend([PADDING_VALUE, 77]);
    layout.extend(delimited(DIM_LEVEL_TYPES_PACKED, &varint(9999)));
    layout.push(INDEX_PRIMITIVE_TYPE);
    layout.extend(varint(9999));
    let mut bytes = vec![ELEMENT_TYPE, PrimitiveType::F32 as u8, DIMENSIONS_VARINT, 2];
    bytes.extend(delimited(LAYOUT, &layout));
    let shape = Shape::decode(bytes.as_slice()).unwrap();
    let decoded = shape.layout.as_deref().unwrap();
    assert_eq!(decoded.padding_value, 77);
    assert!(PaddingValue::try_from(decoded.padding_value).is_err());
    assert_eq!(decoded.dim_level_types, [9999]);
    assert_eq!(decoded.index_primitive_type, 9999);
    assert_eq!(shape.to_string(), "f32[2]{0:#(invalid)PV(77)}");
    // `#(invalid)` names no type and does not parse back; PV(77) does.
    let reparsed: Shape = "f32[2]{0:PV(77)}".parse().unwrap();
    assert_eq!(reparsed.layout.as_deref().unwrap().padding_value, 77);
}

/// prost's message for a nest past its (and C++ protobuf's) limit of 100
/// messages inside the outermost: the 101 fields it entered, innermost
/// (the message too deep) first.
fn recursion_limit(path: &str) -> String {
    format!("failed to decode Protobuf message: {path}recursion limit reached")
}

#[test]
fn bytes_nested_ten_thousand_deep_hit_protobufs_recursion_limit() {
    on_small_stack(|| {
        let deepest = Shape::decode(nested_tuple_bytes(100).as_slice()).unwrap();
        assert_eq!(deepest.encode_to_vec(), nested_tuple_bytes(100));
        for depth in [101, 10_000] {
            assert_eq!(
                decode_error(&nested_tuple_bytes(depth)),
                recursion_limit(&"Shape.tuple_shapes: ".repeat(101)),
                "depth {depth}"
            );
        }
        // Layouts inside physical shapes inside layouts...
        let mut layout = Vec::new();
        for _ in 0..10_000 {
            let shape = [
                vec![ELEMENT_TYPE, PrimitiveType::F32 as u8],
                delimited(LAYOUT, &layout),
            ]
            .concat();
            layout = delimited(PHYSICAL_SHAPE, &shape);
        }
        assert_eq!(
            Layout::decode(layout.as_slice()).unwrap_err().to_string(),
            recursion_limit(
                &("Layout.physical_shape: Shape.layout: ".repeat(50) + "Layout.physical_shape: ")
            )
        );
        // ... and a program whose result is a deep tuple.
        let program = delimited(PROGRAM_RESULT, &nested_tuple_bytes(10_000));
        assert_eq!(
            ProgramShape::decode(program.as_slice())
                .unwrap_err()
                .to_string(),
            recursion_limit(&("Shape.tuple_shapes: ".repeat(100) + "ProgramShape.result: "))
        );
    });
}

/// `depth` tuples nested around an `f32[]`.
fn nested(depth: usize) -> String {
    format!("{}f32[]{}", "(".repeat(depth), ")".repeat(depth))
}

fn parse_error(text: &str) -> ParseError {
    text.parse::<Shape>().unwrap_err()
}

#[test]
fn strings_nested_ten_thousand_deep_are_rejected_at_the_limit() {
    on_small_stack(|| {
        // Shape number MAX_DEPTH + 1 starts at byte MAX_DEPTH (one byte per
        // level) or 2 * MAX_DEPTH (`b(`).
        let depth_error = |offset: usize, found: &str| ParseError::Syntax {
            message: "maximum recursion depth exceeded".to_owned(),
            offset,
            found: format!("`{found}`"),
        };
        assert_eq!(parse_error(&nested(10_000)), depth_error(MAX_DEPTH, "("));
        assert_eq!(
            parse_error(&"(".repeat(10_000)),
            depth_error(MAX_DEPTH, "(")
        );
        assert_eq!(
            parse_error(&nested(MAX_DEPTH)),
            depth_error(MAX_DEPTH, "f32")
        );
        let buffers = format!("{}f32[]{}", "b(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(parse_error(&buffers), depth_error(2 * MAX_DEPTH, "b"));
        // Every shape the parser accepts can be printed, cloned, compared,
        // encoded and decoded back on a small stack.
        let text = nested(MAX_DEPTH - 1);
        let deepest: Shape = text.parse().unwrap();
        assert_eq!(deepest.to_string(), text);
        assert_eq!(deepest.clone(), deepest);
        assert_eq!(
            Shape::decode(deepest.encode_to_vec().as_slice()).unwrap(),
            deepest
        );
        let layout_text = format!(
            "{{0:P({}f32[1]{{0}}{})}}",
            "(".repeat(MAX_DEPTH - 1),
            ")".repeat(MAX_DEPTH - 1)
        );
        let layout: Layout = layout_text.parse().unwrap();
        assert_eq!(layout.to_string(), layout_text);
    });
}

/// `depth` messages nested in `tuple_shapes` fields, in text format.
fn nested_text(depth: usize) -> String {
    format!(
        "element_type: F32{}",
        " tuple_shapes { element_type: TUPLE".repeat(depth) + &" }".repeat(depth)
    )
}

#[test]
fn text_format_nested_past_the_limit_is_rejected_before_parsing() {
    on_small_stack(|| {
        let deepest = Shape::from_text_format(&nested_text(MAX_TEXT_FORMAT_DEPTH)).unwrap();
        assert_eq!(deepest.tuple_shapes.len(), 1);
        // The `{` of level 65 is the 65th of the repeated pieces.
        let piece = " tuple_shapes { element_type: TUPLE".len();
        let offset =
            "element_type: F32".len() + MAX_TEXT_FORMAT_DEPTH * piece + " tuple_shapes ".len();
        for depth in [MAX_TEXT_FORMAT_DEPTH + 1, 10_000] {
            let error = Shape::from_text_format(&nested_text(depth)).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "invalid text format for xla.Shape: messages nested deeper than 64 levels (at byte {offset})"
                ),
                "depth {depth}"
            );
            assert!(matches!(error, FormatError::TooDeep { limit: 64, .. }));
        }
        let angled = format!("{}{}", "tuple_shapes <".repeat(10_000), ">".repeat(10_000));
        let offset = "tuple_shapes <".len() * MAX_TEXT_FORMAT_DEPTH + "tuple_shapes ".len();
        assert_eq!(
            Shape::from_text_format(&angled).unwrap_err().to_string(),
            format!(
                "invalid text format for xla.Shape: messages nested deeper than 64 levels (at byte {offset})"
            )
        );
        // Braces in strings and comments are not nesting.
        let braces = "{<".repeat(1000);
        let program = ProgramShape::from_text_format(&format!(
            "parameter_names: \"{braces}\" parameter_names: '\\'{braces}' # {braces}\n"
        ))
        .unwrap();
        assert_eq!(
            program.parameter_names,
            [braces.clone(), format!("'{braces}")]
        );
    });
}

#[test]
fn json_nested_past_serde_jsons_limit_is_rejected() {
    on_small_stack(|| {
        // serde_json refuses the 128th nested object or array: each shape
        // of the nest takes two (its object and its tupleShapes array).
        let nested_json = |depth: usize| "{\"tupleShapes\":[".repeat(depth) + &"]}".repeat(depth);
        let deepest = Shape::from_json(&nested_json(63)).unwrap();
        assert_eq!(deepest.tuple_shapes.len(), 1);
        // Array 64 opens at column 16 * 64.
        for depth in [64, 10_000] {
            assert_eq!(
                Shape::from_json(&nested_json(depth))
                    .unwrap_err()
                    .to_string(),
                "invalid JSON for xla.Shape: recursion limit exceeded at line 1 column 1024",
                "depth {depth}"
            );
        }
    });
}

#[test]
fn json_of_layouts_in_physical_shapes_stops_at_protobufs_limit() {
    on_small_stack(|| {
        // Objects only: serde_json allows 127 levels, here 126 messages,
        // which the conversion to the typed message refuses past 100.
        let nested = |pairs: usize| {
            "{\"physicalShape\":{\"layout\":".repeat(pairs) + "{}" + &"}}".repeat(pairs)
        };
        assert!(Layout::from_json(&nested(50)).is_ok());
        assert_eq!(
            Layout::from_json(&nested(63)).unwrap_err().to_string(),
            "cannot convert xla.Layout: ".to_owned()
                + &recursion_limit(
                    &("Layout.physical_shape: Shape.layout: ".repeat(50)
                        + "Layout.physical_shape: ")
                )
        );
        // Object 128 opens at column 27 * 63 + 17 + 1.
        assert_eq!(
            Layout::from_json(&nested(10_000)).unwrap_err().to_string(),
            "invalid JSON for xla.Layout: recursion limit exceeded at line 1 column 1719"
        );
    });
}

#[test]
fn integers_outside_int64_are_rejected_by_text_format_and_json() {
    assert_eq!(
        Shape::from_text_format("dimensions: 9223372036854775808")
            .unwrap_err()
            .to_string(),
        "invalid text format for xla.Shape: expected value to be a signed 64-bit integer, but the value 9223372036854775808 is out of range"
    );
    // The string ends at column 38.
    assert_eq!(
        Shape::from_json(r#"{"dimensions": ["-9223372036854775809"]}"#)
            .unwrap_err()
            .to_string(),
        "invalid JSON for xla.Shape: number too small to fit in target type at line 1 column 38"
    );
    let extremes = Shape::from_text_format(
        "dimensions: -9223372036854775808 dimensions: 9223372036854775807 element_type: 9999",
    )
    .unwrap();
    assert_eq!(extremes.dimensions, [i64::MIN, i64::MAX]);
    assert_eq!(extremes.element_type, 9999);
}

#[test]
fn dimensions_at_the_i64_extremes_in_strings() {
    let max: Shape = "f32[9223372036854775807]".parse().unwrap();
    assert_eq!(max.dimensions, [i64::MAX]);
    // XLA's lexer reads 2^63 as a u64 and casts it: i64::MIN, the
    // unbounded size, valid only when dynamic (`<=`). The error quotes the
    // literal as written (XLA's own text is a bare "Syntax error:").
    for (text, size, found) in [
        ("f32[9223372036854775808]", i64::MIN, "9223372036854775808"),
        (
            "f32[-9223372036854775808]",
            i64::MIN,
            "-9223372036854775808",
        ),
        ("f32[2,-1]", -1, "-1"),
    ] {
        assert_eq!(
            parse_error(text),
            ParseError::Syntax {
                message: format!("Invalid dimension size {size}, is_dynamic=false"),
                offset: text.find(found).unwrap(),
                found: format!("`{found}`"),
            },
            "{text}"
        );
    }
    for (text, size) in [("f32[<=-1]", -1), ("f32[<=18446744073709551615]", -1)] {
        let ParseError::Syntax { message, .. } = parse_error(text) else {
            panic!("{text}");
        };
        assert_eq!(
            message,
            format!("Invalid dimension size {size}, is_dynamic=true")
        );
    }
    let unbounded: Shape = "f32[<=9223372036854775808]".parse().unwrap();
    assert_eq!(unbounded.to_string(), "f32[?]{0}");
}

#[test]
fn layouts_with_every_field_at_the_extremes_print_as_xla() {
    // Spec §4.2: attributes in XLA's order, `*` for i64::MIN in a tile and
    // `Invalid value -N` for other negative tile sizes, `#(invalid)` for a
    // non-integer index type, M(..) only when positive; then PAD and PV.
    let layout = Layout {
        minor_to_major: vec![i64::MIN, i64::MAX],
        tiles: vec![Tile {
            dimensions: vec![-3, i64::MIN, i64::MIN + 1, 0],
        }],
        tail_padding_alignment_in_elements: i64::MIN,
        index_primitive_type: i32::MIN,
        pointer_primitive_type: PrimitiveType::U32 as i32,
        element_size_in_bits: i64::MIN,
        memory_space: i64::MIN,
        split_configs: vec![SplitConfig {
            dimension: i64::MIN,
            split_indices: vec![i64::MAX],
        }],
        dynamic_shape_metadata_prefix_bytes: i64::MIN,
        padded_dimensions: vec![i64::MIN],
        padding_value: i32::MIN,
        ..Layout::default()
    };
    assert_eq!(
        layout.to_string(),
        "{-9223372036854775808,9223372036854775807:T(Invalid value -3,*,Invalid value -9223372036854775807,0)L(-9223372036854775808)#(invalid)*(u32)E(-9223372036854775808)S(-9223372036854775808)SC(-9223372036854775808:9223372036854775807)PAD(-9223372036854775808)PV(-2147483648)}"
    );
}
