//! Bad and extreme literals: damaged LiteralProtos from the golden file,
//! data of the wrong size, huge layouts, rank 200,000 on a small stack.
//! Errors name the sizes; nothing panics, recurses per dimension or runs
//! away.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{field, hex_decode, load};
use literal_util::{from_buffer, to_buffer, to_text};
use prost::Message;
use schema::{LiteralProto, PrimitiveType, Shape};

#[test]
fn bad_literals_name_the_sizes() {
    let shape: Shape = "f32[2,3]".parse().unwrap();
    let mut literal = from_buffer(&shape, &[0; 24]).unwrap();
    literal.f32s.pop();
    let err = to_text(&literal).unwrap_err().to_string();
    assert_eq!(
        err,
        "f32[2,3]{1,0} needs 6 values in f32s, the LiteralProto has 5"
    );
    let err = from_buffer(&shape, &[0; 25]).unwrap_err().to_string();
    assert_eq!(
        err,
        "f32[2,3]{1,0} takes a buffer of 24 bytes, the buffer has 25"
    );
    let packed: Shape = "s4[3]{0:E(4)}".parse().unwrap();
    let err = from_buffer(&packed, &[0; 1]).unwrap_err().to_string();
    assert_eq!(
        err,
        "s4[3]{0:E(4)} takes a buffer of 2 bytes, the buffer has 1"
    );
    let huge: Shape = "f32[2]{0:T(1048576)}".parse().unwrap();
    let literal = from_buffer(&"f32[2]".parse().unwrap(), &[0; 8]).unwrap();
    let err = to_buffer(&literal, huge.layout.as_deref())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("takes a buffer of 4194304 bytes for 8 bytes of data"),
        "{err}"
    );
}

/// Every golden LiteralProto cut short, with a byte changed, or with a
/// dimension changed, read, printed and laid out: errors, never a panic.
#[test]
fn damaged_literals_never_panic() {
    let rows = load("literals.jsonl").unwrap();
    let mut tried = 0;
    for row in &rows {
        let Some(hex) = field(row, "hex").or(field(row, "input_hex")) else {
            continue;
        };
        let bytes = hex_decode(hex).unwrap();
        let mut variants: Vec<Vec<u8>> = (0..bytes.len())
            .step_by(3)
            .map(|n| bytes[..n].to_vec())
            .collect();
        for i in (0..bytes.len()).step_by(5) {
            let mut changed = bytes.clone();
            changed[i] ^= 0x5a;
            variants.push(changed);
        }
        for variant in variants {
            let Ok(mut literal) = LiteralProto::decode(variant.as_slice()) else {
                continue;
            };
            tried += 1;
            let _ = to_text(&literal);
            let _ = to_buffer(&literal, None);
            for layout in ["{0}", "{1,0:T(2,2)}", "{0,1:PAD(3,3)}", "{0:E(4)}"] {
                if let Ok(shape) = format!("s8[2]{layout}").parse::<Shape>() {
                    let _ = to_buffer(&literal, shape.layout.as_deref());
                }
            }
            if let Some(dims) = literal.shape.as_mut().map(|s| &mut s.dimensions)
                && let Some(first) = dims.first_mut()
            {
                *first = first.wrapping_mul(3).wrapping_add(1);
                let _ = to_text(&literal);
                let _ = to_buffer(&literal, None);
            }
        }
    }
    assert!(tried > 1000, "{tried}");
}

/// Rank 200,000 (all dimensions 1) on a 2 MiB thread: no recursion per
/// dimension in reading, printing or laying out a literal.
#[test]
fn rank_200000_on_a_small_stack() {
    conformance::on_small_stack(|| {
        let rank = 200_000;
        let shape = Shape {
            element_type: PrimitiveType::S8 as i32,
            dimensions: vec![1; rank],
            is_dynamic_dimension: vec![false; rank],
            layout: Some(Box::new(layout_util::make_descending_layout(rank))),
            ..Default::default()
        };
        let literal = from_buffer(&shape, &[7]).unwrap();
        let text = to_text(&literal).unwrap();
        assert!(
            text.starts_with("{ { /*i0=0*/ { /*i1=0*/ "),
            "{}",
            &text[..40]
        );
        assert!(text.contains("{7}"));
        assert_eq!(
            to_buffer(&literal, None).map_err(|e| e.to_string()),
            Ok(vec![7])
        );
        let reversed = layout_util::make_ascending_layout(rank);
        // Another layout of the same single element: the same byte, or an error.
        if let Ok(buffer) = to_buffer(&literal, Some(&reversed)) {
            assert_eq!(buffer, [7]);
        }
        let bytes = literal.encode_to_vec();
        assert_eq!(LiteralProto::decode(bytes.as_slice()).unwrap(), literal);
    });
}

/// 100,000 outer dimensions of size 1 around 100,000 elements: printing is
/// linear in the output, not elements × rank.
#[test]
fn many_outer_unit_dimensions_print_in_linear_time() {
    let rank = 100_001;
    let mut dimensions = vec![1; rank];
    dimensions[rank - 1] = 100_000;
    let shape = Shape {
        element_type: PrimitiveType::S8 as i32,
        dimensions,
        is_dynamic_dimension: vec![false; rank],
        layout: Some(Box::new(layout_util::make_descending_layout(rank))),
        ..Default::default()
    };
    let literal = from_buffer(&shape, &[0; 100_000]).unwrap();
    let start = std::time::Instant::now();
    let text = to_text(&literal).unwrap();
    assert!(
        text.contains("*/ { 0, 0, 0"),
        "{}",
        &text[text.len() - 40..]
    );
    assert_eq!(text.matches("0, ").count(), 99_999);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}
