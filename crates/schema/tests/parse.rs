//! The shape/layout string parser: XLA's accepted and rejected examples,
//! its error texts, nesting limits, and round trips with the printer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::on_small_stack;
use proptest::prelude::*;
use prost::Message;
use schema::{
    COMBINE_DIMENSION, Layout, MAX_DEPTH, PaddingValue, ParseError, PrimitiveType, Shape,
    SplitConfig, Tile, UNBOUNDED_SIZE,
};

fn parse(s: &str) -> Shape {
    s.parse()
        .unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
}

fn error(s: &str) -> ParseError {
    match s.parse::<Shape>() {
        Ok(shape) => panic!("{s:?} should be rejected, parsed as {shape}"),
        Err(e) => e,
    }
}

/// The message of a syntax error (the part XLA prints after `error: `).
fn message(s: &str) -> String {
    match error(s) {
        ParseError::Syntax { message, .. } => message,
        other => panic!("{s:?}: expected a syntax error, got {other}"),
    }
}

#[test]
fn xla_parser_test_examples_are_accepted() {
    // From XLA's hlo_parser_test.cc (spec §4.3), with XLA's canonical print.
    let cases = [
        ("f32[123,456]", "f32[123,456]{1,0}"),
        ("f32[?,784]", "f32[?,784]{1,0}"),
        (
            "(f32[1572864],s8[5120,1024])",
            "(f32[1572864]{0}, s8[5120,1024]{1,0})",
        ),
        (
            "(f32[1],(f32[2], token[]), opaque[], f32[3])",
            "(f32[1]{0}, (f32[2]{0}, token[]), opaque[], f32[3]{0})",
        ),
        (
            "f32[123,456,789]{0,1,2:T(2, * , 128)}",
            "f32[123,456,789]{0,1,2:T(2,*,128)}",
        ),
        (
            "bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}",
            "bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}",
        ),
        (
            "s4[123,456]{1,0:T(2,128)E(4)}",
            "s4[123,456]{1,0:T(2,128)E(4)}",
        ),
        (
            "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}",
            "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}",
        ),
        (
            "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
            "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
        ),
        (
            "f32[123,456]{1,0:T(16,128)M(1024)}",
            "f32[123,456]{1,0:T(16,128)M(1024)}",
        ),
        ("f32[123,<=456]", "f32[123,<=456]{1,0}"),
        (
            "(f32[42], u32[<=123,<=456])",
            "(f32[42]{0}, u32[<=123,<=456]{1,0})",
        ),
        ("b(s32[])", "b(s32[])"),
        ("b(f32[8,16]{1,0})", "b(f32[8,16]{1,0})"),
        (
            "f32[ 1, 2,3, 4, 5]{0, 1, 2,3, 4 }",
            "f32[1,2,3,4,5]{0,1,2,3,4}",
        ),
    ];
    for (input, printed) in cases {
        assert_eq!(parse(input).to_string(), printed, "{input}");
    }
}

#[test]
fn xla_parser_test_examples_are_rejected() {
    for input in [
        "f32[123,456]foobar{0,1}",
        "f32[123,456]{foo}",
        "f32[123,456]dense{foo}",
    ] {
        assert!(
            matches!(error(input), ParseError::ExtraContent { what: "shape", .. }),
            "{input}"
        );
    }
    assert_eq!(message("b()"), "expected primitive type, saw kRparen");
    assert_eq!(
        message("b(s32[], f32[])"),
        "expects ')' at the end of buffer shape."
    );
    assert_eq!(message("g32[]"), "expected primitive type, saw kIdent");
}

#[test]
fn missing_layouts_get_the_default_and_encode_as_xla_does() {
    let shape = parse("f32[2,3]");
    let layout = shape.layout.as_deref().unwrap();
    assert_eq!(layout.minor_to_major, [1, 0]);
    assert_eq!(layout.tail_padding_alignment_in_elements, 1);
    assert_eq!(shape.is_dynamic_dimension, [false, false]);
    // The bytes XLA serializes for f32[2,3] (tests/golden/parse_ok.jsonl).
    assert_eq!(
        shape.encode_to_vec(),
        [
            0x10, 0x0b, 0x1a, 0x02, 0x02, 0x03, 0x2a, 0x07, 0x0a, 0x02, 0x01, 0x00, 0x80, 0x01,
            0x01, 0x32, 0x02, 0x00, 0x00
        ]
    );
    // A scalar's layout is empty but present: `f32[]` is `100b2a03800101`.
    assert_eq!(
        parse("f32[]").encode_to_vec(),
        [0x10, 0x0b, 0x2a, 0x03, 0x80, 0x01, 0x01]
    );
    // Tokens, opaques, tuples and buffers have no layout.
    assert_eq!(parse("token[]").layout, None);
    assert_eq!(parse("(f32[])").layout, None);
    assert_eq!(parse("b(f32[])").layout, None);
}

#[test]
fn dynamic_dimensions() {
    let shape = parse("f32[<=2,?,3]");
    assert_eq!(shape.dimensions, [2, UNBOUNDED_SIZE, 3]);
    assert_eq!(shape.is_dynamic_dimension, [true, true, false]);
    // XLA reads 9223372036854775808 as i64::MIN, which is `?` when dynamic
    // and an invalid size when static.
    assert_eq!(parse("f32[<=9223372036854775808]").to_string(), "f32[?]{0}");
    assert_eq!(
        message("f32[9223372036854775808]"),
        "Invalid dimension size -9223372036854775808, is_dynamic=false"
    );
    assert_eq!(
        message("f32[-1]"),
        "Invalid dimension size -1, is_dynamic=false"
    );
    assert_eq!(
        message("f32[<=-1]"),
        "Invalid dimension size -1, is_dynamic=true"
    );
    assert_eq!(message("f32[<=?]"), "expects integer");
}

#[test]
fn layout_attributes_in_xlas_order() {
    let layout: Layout = "{3,2,1,0:T(42,123)(4,5)L(100)#(u32)*(u16)E(42)S(3)SC(0:3)(1:0,4)M(7)}"
        .parse()
        .unwrap();
    assert_eq!(
        layout,
        Layout {
            minor_to_major: vec![3, 2, 1, 0],
            tiles: vec![
                Tile {
                    dimensions: vec![42, 123]
                },
                Tile {
                    dimensions: vec![4, 5]
                }
            ],
            tail_padding_alignment_in_elements: 100,
            index_primitive_type: PrimitiveType::U32 as i32,
            pointer_primitive_type: PrimitiveType::U16 as i32,
            element_size_in_bits: 42,
            memory_space: 3,
            split_configs: vec![
                SplitConfig {
                    dimension: 0,
                    split_indices: vec![3]
                },
                SplitConfig {
                    dimension: 1,
                    split_indices: vec![0, 4]
                },
            ],
            dynamic_shape_metadata_prefix_bytes: 7,
            ..Layout::default()
        }
    );
    // Layout::ToString test strings from XLA's layout_test.cc (spec §4.2).
    for text in [
        "{}",
        "{1,2,0}",
        "{3,2,1,0:T(42,123)(4,5)}",
        "{3,2,1,0:T(*,*,42,123)}",
        "{3,2,1,0:L(100)}",
        "{3,2,1,0:#(u32)}",
        "{3,2,1,0:*(u16)}",
        "{3,2,1,0:E(42)}",
        "{3,2,1,0:S(3)}",
        "{0,1:SC(0:3)(1:0,4)}",
        "{0,1:P(s32[10,20]{1,0})}",
        "{0,1:M(123)}",
        "{3,2,1,0:T(42,123)(4,5)L(100)E(42)}",
        "{0,1:T(123)SC(0:3)(1:0,4)}",
    ] {
        assert_eq!(text.parse::<Layout>().unwrap().to_string(), text);
    }
    assert_eq!(
        "{3,2,1,0:T(*,*,42,123)}".parse::<Layout>().unwrap().tiles[0].dimensions,
        [COMBINE_DIMENSION, COMBINE_DIMENSION, 42, 123]
    );
}

#[test]
fn attributes_out_of_order_are_rejected() {
    assert_eq!(
        message("f32[2]{0:E(32)T(2)}"),
        "expects layout to end with kRbrace"
    );
    assert_eq!(
        message("f32[2]{0:PV(zero)PAD(3)}"),
        "expects layout to end with kRbrace"
    );
}

#[test]
fn xlas_lenient_attribute_parsing() {
    // From tests/golden/parse_ok.jsonl: what real XLA accepts and prints.
    for (input, printed) in [
        ("f32[2]{0:T}", "f32[2]{0:T()}"),
        ("f32[2]{0:T(2}", "f32[2]{0:T(2)}"),
        ("f32[2]{0:T(**)}", "f32[2]{0:T(*)}"),
        ("f32[2]{0:#()}", "f32[2]{0}"),
        ("f32[2]{0:#(u32}", "f32[2]{0:#(u32)}"),
        ("f32[2]{0:#(pred)}", "f32[2]{0:#(invalid)}"),
        ("f32[2]{0:D(D,C+~)}", "f32[2]{0}"),
        ("f32[2]{0:S(128)}", "f32[2]{0:S(-128)}"),
        (
            "f32[2]{0:E(9223372036854775808)}",
            "f32[2]{0:E(-9223372036854775808)}",
        ),
        ("f32[2]{0:T(-9223372036854775808)}", "f32[2]{0:T(*)}"),
        ("f32[]{:}", "f32[]"),
    ] {
        assert_eq!(parse(input).to_string(), printed, "{input}");
    }
    // `P(` is read even when its shape is malformed; the array then fails
    // because it has a physical shape, as in XLA, whose first message is
    // the one it recorded for the malformed shape.
    assert_eq!(
        message("f32[2]{0:P()}"),
        "expected primitive type, saw kRparen"
    );
    // A layout on its own keeps that (empty) physical shape.
    let layout: Layout = "{0:P()}".parse().unwrap();
    assert_eq!(layout.physical_shape.as_deref(), Some(&Shape::default()));
}

#[test]
fn error_texts_match_xla() {
    // tests/golden/parse_errors.jsonl has XLA's texts for these inputs.
    assert_eq!(
        message("f32[2,3]{0}"),
        "Dimensions size is 2, but minor to major size is 1."
    );
    assert_eq!(
        message("f32[2]{0:P(s32[2])}"),
        "Layout has physical shape, but is not for a sparse array: {0:P(s32[2]{0})}"
    );
    assert_eq!(message("f32[2]{0,}"), "expects integer");
    assert_eq!(message("(f32[] f32[])"), "expects ')' at the end of tuple.");
    assert_eq!(message("f32"), "expects a list starting with kLsquare");
    assert_eq!(message("f32[2"), "expects a list to end with kRsquare");
    assert_eq!(message(""), "expected primitive type, saw kEof");
    assert_eq!(message("%f32[2]"), "expected primitive type, saw kName");
    assert_eq!(
        message("opaque_type[]"),
        "expected primitive type, saw kIdent"
    );
    assert_eq!(message("F32[2]"), "expected primitive type, saw kIdent");
    assert_eq!(message("tuple[]"), "expected primitive type, saw kIdent");
    // Inputs XLA aborts on are errors here.
    for input in [
        "token[2]",
        "token[]{0}",
        "opaque[]{:T(2)}",
        "f32[2]{0:L(0)}",
        "f32[2]{0:T(-3)}",
    ] {
        error(input);
    }
    assert_eq!(message("b(token[])"), "Buffer shape must have array shape.");
}

#[test]
fn errors_say_where() {
    let e = error("f32[2,x]");
    assert_eq!(e.offset(), 6);
    assert_eq!(
        e.to_string(),
        "Syntax error:\nexpects integer (at byte 6: `x`)"
    );
    let e = error("f32[2]{0}}");
    assert_eq!(
        e.to_string(),
        "Syntax error:\nExtra content after shape (at byte 9: `}`)"
    );
    let e = error("(f32[]");
    assert_eq!(
        e.to_string(),
        "Syntax error:\nexpects ')' at the end of tuple. (at byte 6: end of input)"
    );
    let e = "{1,0}x".parse::<Layout>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Syntax error:\nExtra content after layout (at byte 5: `x`)"
    );
}

/// The character XLA's lexer stops at is quoted, with its code point when
/// it is not printable ASCII; an integer literal out of range says so.
#[test]
fn errors_quote_the_character_the_lexer_rejects() {
    let cases = [
        (
            "f32[2;3]",
            "expects a list to end with kRsquare (at byte 5: `;`)",
        ),
        (
            "😀",
            "expected primitive type, saw kError (at byte 0: `😀` (U+1F600))",
        ),
        ("f32[２,3]", "expects integer (at byte 4: `２` (U+FF12))"),
        (
            "\u{feff}f32[2]",
            "expected primitive type, saw kError (at byte 0: `\\u{feff}` (U+FEFF))",
        ),
        (
            "f32[2]\0",
            "Extra content after shape (at byte 6: `\\0` (U+0000))",
        ),
        ("f32[2]@", "Extra content after shape (at byte 6: `@`)"),
        (
            "f32[99999999999999999999]",
            "expects integer (at byte 4: `99999999999999999999`, an integer out of range: \
             integers run from -9223372036854775808 to 18446744073709551615)",
        ),
        (
            "f32[2] /* open",
            "Extra content after shape (at byte 7: `/*`)",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(
            error(input).to_string(),
            format!("Syntax error:\n{expected}"),
            "{input:?}"
        );
    }
}

#[test]
fn comments_and_whitespace() {
    assert_eq!(
        parse("(\n  f32[2], // line\n  /*index=1*/s32[]\n)").to_string(),
        "(f32[2]{0}, s32[])"
    );
    assert_eq!(parse("f32[/*c*/2]").to_string(), "f32[2]{0}");
    assert!(matches!(
        error("f32[2] /* open"),
        ParseError::ExtraContent { .. }
    ));
}

#[test]
fn padded_layout_extension() {
    let shape = parse("f32[3,5]{0,1:T(8,128)PAD(4,8)PV(zero)}");
    let layout = shape.layout.as_deref().unwrap();
    assert_eq!(layout.padded_dimensions, [4, 8]);
    assert_eq!(layout.padding_value, PaddingValue::ZeroPad as i32);
    assert_eq!(shape.to_string(), "f32[3,5]{0,1:T(8,128)PAD(4,8)PV(zero)}");
    for (name, value) in [
        ("one", PaddingValue::OnePad),
        ("lowest", PaddingValue::LowestPad),
        ("highest", PaddingValue::HighestPad),
        ("unknown", PaddingValue::UnknownPad),
        ("4", PaddingValue::HighestPad),
    ] {
        let layout: Layout = format!("{{0:PV({name})}}").parse().unwrap();
        assert_eq!(layout.padding_value, value as i32, "{name}");
    }
    assert_eq!(
        "{0:PV(9)}".parse::<Layout>().unwrap().to_string(),
        "{0:PV(9)}"
    );
    assert!("{0:PV(big)}".parse::<Layout>().is_err());
    assert!("{0:PAD(3,)}".parse::<Layout>().is_err());
    assert!("{0:PAD(3}".parse::<Layout>().is_err());
}

#[test]
fn tuple_elements_are_validated_as_in_xla() {
    // Probed with jaxlib 0.10.2's `xla_client.Shape` (XLA's ParseShape):
    // these parse alone, but XLA rejects them as tuple elements.
    for element in [
        "f32[2]{5}",
        "f32[2,3]{1,1}",
        "f32[2,3]{-1,0}",
        "f32[2]{0:T()}",
        "f32[2]{0:T(2,0)}",
        "f32[2]{0:#(u32)}",
        "f32[2]{0:*(u16)}",
        "f32[2]{0:E(-4)}",
        "f32[2]{0:SC(0:2)}",
        "f32[2]{0:SC(0:0)}",
        "f32[2]{0:SC(1:1)}",
        "f32[4]{0:SC(0:2,1)}",
        "f32[4]{0:SC(0:1)(0:2)}",
        "f32[2305843009213693952]",
        "s8[<=9223372036854775807,2]",
        "s8[9223372036854775807,2,0]",
        "c128[576460752303423488]",
        "b(f32[2]{5})",
    ] {
        element.parse::<Shape>().unwrap();
        error(&format!("({element})"));
        error(&format!("(f32[], ({element}))"));
    }
    // And accepts these.
    for element in [
        "f32[2]{0:M(-1)}",
        "f32[2]{0:S(-1)}",
        "f32[2]{0:T(*,*)}",
        "f32[2]{0:E(3)}",
        "f32[4]{0:SC(0:1,2)}",
        "f32[4]{0:SC(0:)}",
        "s8[0,9223372036854775807,9223372036854775807]",
        "s8[?,?,9223372036854775807]",
        "f32[2305843009213693951]",
        "pred[9223372036854775807]",
        "f32[]{:T(2)}",
    ] {
        parse(&format!("({element})"));
    }
    assert_eq!(
        message("(f32[2,3]{1,1})"),
        "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]"
    );
    // A buffer alone is not validated.
    assert_eq!(parse("b(f32[2]{5})").to_string(), "b(f32[2]{5})");
}

/// `depth` nested tuples around `f32[]`.
fn nested(depth: usize) -> String {
    format!("{}f32[]{}", "(".repeat(depth), ")".repeat(depth))
}

#[test]
fn nesting_up_to_the_limit_parses_prints_and_decodes_on_a_small_stack() {
    on_small_stack(|| {
        // The innermost f32[] is shape number MAX_DEPTH.
        let text = nested(MAX_DEPTH - 1);
        let shape = parse(&text);
        let mut depth = 1;
        let mut inner = &shape;
        while let Some(next) = inner.tuple_shapes.first() {
            inner = next;
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH);
        assert_eq!(shape.to_string(), text);
        // The bytes of the deepest nest are within protobuf's recursion limit.
        let bytes = shape.encode_to_vec();
        assert_eq!(Shape::decode(bytes.as_slice()).unwrap(), shape.clone());
        drop(shape);
    });
}

#[test]
fn nesting_beyond_the_limit_is_an_error() {
    on_small_stack(|| {
        let e = error(&nested(MAX_DEPTH));
        assert_eq!(e.offset(), MAX_DEPTH);
        assert!(e.to_string().contains("maximum recursion depth exceeded"));
        let e = error(&"(".repeat(10_000));
        assert!(e.to_string().contains("maximum recursion depth exceeded"));
        let buffers = format!("{}f32[]{}", "b(".repeat(10_000), ")".repeat(10_000));
        assert!(buffers.parse::<Shape>().is_err());
        let physical = format!("{}{}", "{0:P(f32[1]".repeat(10_000), "})".repeat(10_000));
        assert!(physical.parse::<Layout>().is_err());
    });
}

// Strategies for valid shapes that print and parse back unchanged.

fn array_type() -> impl Strategy<Value = PrimitiveType> {
    prop::sample::select(
        PrimitiveType::all()
            .iter()
            .copied()
            .filter(|t| t.is_array_type())
            .collect::<Vec<_>>(),
    )
}

fn integral_type_or_none() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(PrimitiveType::Invalid as i32),
        prop::sample::select(
            PrimitiveType::all()
                .iter()
                .filter(|t| t.is_integral())
                .map(|&t| t as i32)
                .collect::<Vec<_>>()
        ),
    ]
}

fn dimension(huge: bool) -> impl Strategy<Value = (i64, bool)> {
    let largest = if huge { i64::MAX } else { 1000 };
    prop_oneof![
        4 => (0i64..1000).prop_map(|d| (d, false)),
        1 => (0i64..1000).prop_map(|d| (d, true)),
        1 => Just((UNBOUNDED_SIZE, true)),
        1 => Just((largest, false)),
    ]
}

fn tile(min_rank: usize) -> impl Strategy<Value = Tile> {
    prop::collection::vec(
        prop_oneof![4 => 1i64..512, 1 => Just(COMBINE_DIMENSION)],
        min_rank..4,
    )
    .prop_map(|dimensions| Tile { dimensions })
}

/// A layout for an array of `rank` dimensions. `free` layouts use every
/// attribute the parser keeps; the others also pass XLA's validation, as
/// tuple elements must (no index types, non-empty tiles, no split configs).
fn layout_for(rank: usize, free: bool) -> impl Strategy<Value = Layout> {
    let permutation = Just((0..i64::try_from(rank).unwrap()).collect::<Vec<_>>()).prop_shuffle();
    let index_type = move || {
        if free {
            integral_type_or_none().boxed()
        } else {
            Just(PrimitiveType::Invalid as i32).boxed()
        }
    };
    let attributes = (
        prop::collection::vec(tile(usize::from(!free)), 0..3),
        prop_oneof![3 => Just(1i64), 1 => 2i64..300],
        index_type(),
        index_type(),
        prop_oneof![Just(0i64), 1i64..64],
        prop_oneof![Just(0i64), -128i64..128],
        prop::collection::vec(
            (0i64..8, prop::collection::vec(0i64..100, 0..3)).prop_map(
                |(dimension, split_indices)| SplitConfig {
                    dimension,
                    split_indices,
                },
            ),
            0..if free { 3 } else { 1 },
        ),
        prop_oneof![Just(0i64), 1i64..5000],
    );
    let padding = (
        prop::collection::vec(0i64..2000, 0..=rank),
        prop_oneof![3 => Just(0i32), 2 => 1i32..=5, 1 => 6i32..100],
    );
    (permutation, attributes, padding).prop_map(
        |(
            minor_to_major,
            (tiles, tail, index, pointer, esb, memory, splits, prefix),
            (padded, pv),
        )| Layout {
            minor_to_major,
            tiles,
            tail_padding_alignment_in_elements: tail,
            index_primitive_type: index,
            pointer_primitive_type: pointer,
            element_size_in_bits: esb,
            memory_space: memory,
            split_configs: splits,
            dynamic_shape_metadata_prefix_bytes: prefix,
            padded_dimensions: padded,
            padding_value: pv,
            ..Layout::default()
        },
    )
}

fn array_shape(free: bool) -> impl Strategy<Value = Shape> {
    (array_type(), prop::collection::vec(dimension(free), 0..5)).prop_flat_map(move |(t, dims)| {
        layout_for(dims.len(), free).prop_map(move |layout| Shape {
            element_type: t as i32,
            dimensions: dims.iter().map(|d| d.0).collect(),
            is_dynamic_dimension: dims.iter().map(|d| d.1).collect(),
            layout: Some(Box::new(layout)),
            ..Shape::default()
        })
    })
}

/// A shape that may stand alone (`free`) or be a tuple element.
fn leaf_shape(free: bool) -> impl Strategy<Value = Shape> {
    let of_type = |t: PrimitiveType| Shape {
        element_type: t as i32,
        ..Shape::default()
    };
    prop_oneof![
        6 => array_shape(free),
        1 => Just(of_type(PrimitiveType::Token)),
        1 => Just(of_type(PrimitiveType::OpaqueType)),
        1 => array_shape(free).prop_map(|inner| Shape {
            element_type: PrimitiveType::Buffer as i32,
            tuple_shapes: vec![inner],
            ..Shape::default()
        }),
    ]
}

fn any_shape() -> impl Strategy<Value = Shape> {
    let tuple = leaf_shape(false).prop_recursive(3, 24, 12, |inner| {
        prop::collection::vec(inner, 0..12).prop_map(|tuple_shapes| Shape {
            element_type: PrimitiveType::Tuple as i32,
            tuple_shapes,
            ..Shape::default()
        })
    });
    prop_oneof![leaf_shape(true), tuple]
}

proptest! {
    #[test]
    fn printed_shapes_parse_back(shape in any_shape()) {
        let text = shape.to_string();
        let parsed: Shape = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&parsed, &shape, "{}", text);
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn printed_layouts_parse_back(layout in (0usize..5).prop_flat_map(|rank| layout_for(rank, true)), physical in prop::option::of(array_shape(true))) {
        let layout = Layout { physical_shape: physical.map(Box::new), ..layout };
        let text = layout.to_string();
        let parsed: Layout = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&parsed, &layout, "{}", text);
    }

    #[test]
    fn token_soup_never_panics(pieces in prop::collection::vec(prop::sample::select(SOUP.to_vec()), 0..24)) {
        let text = pieces.concat();
        if let Ok(shape) = text.parse::<Shape>() {
            let printed = shape.to_string();
            if prints_exactly(&shape) {
                prop_assert_eq!(printed.parse::<Shape>().ok(), Some(shape), "{} printed as {}", text, printed);
            }
        }
        if let Ok(layout) = text.parse::<Layout>() {
            let _ = layout.to_string();
        }
    }
}

/// Pieces of shape strings, valid and not, for the fuzz property.
const SOUP: &[&str] = &[
    "f32",
    "s4",
    "pred",
    "u32",
    "token",
    "opaque",
    "b",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "T",
    "L",
    "E",
    "S",
    "SC",
    "P",
    "M",
    "D",
    "C",
    "#",
    "*",
    "?",
    "<=",
    "0",
    "1",
    "2",
    "7",
    "-1",
    "9223372036854775808",
    "PAD",
    "PV",
    "zero",
    " ",
    "/**/",
    "\n",
    "x",
];

/// Whether XLA's printer shows every field the parser can set: not so for a
/// non-integral index type (`#(invalid)`) or a negative `M(n)`.
fn prints_exactly(shape: &Shape) -> bool {
    let layout_ok = shape.layout.as_deref().is_none_or(|l| {
        l.dynamic_shape_metadata_prefix_bytes >= 0
            && [l.index_primitive_type, l.pointer_primitive_type]
                .iter()
                .all(|&t| {
                    t == 0 || PrimitiveType::try_from(t).is_ok_and(PrimitiveType::is_integral)
                })
    });
    layout_ok && shape.tuple_shapes.iter().all(prints_exactly)
}
