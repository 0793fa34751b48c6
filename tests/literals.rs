//! Golden test of literals (`literals.jsonl`, from
//! `build-tools/gen_literals.py`): XLA's HLO constants and hand-made
//! LiteralProtos as real XLA parsed, loaded, printed and serialized them.
//!
//! For every literal XLA accepted: `literal_util::to_text` prints XLA's text
//! byte for byte; the literal taken to its buffer and back is XLA's
//! LiteralProto byte for byte; the array laid out in every layout kind
//! (its own, reversed, classic padded, tiled, `E(n)` packed) and read back
//! prints XLA's text again; where XLA placed the values on its CPU device,
//! the buffer in the device's layout is the device's bytes. For every
//! LiteralProto XLA refused, ours is refused too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, hex_decode, hex_encode, load, required, same};
use layout_util::LayoutBuilder;
use literal_util::{from_buffer, to_buffer, to_text};
use prost::Message;
use schema::{Layout, LiteralProto, PaddingValue, PrimitiveType, Shape, Tile};

fn decode(hex: &str) -> Result<LiteralProto, String> {
    LiteralProto::decode(hex_decode(hex)?.as_slice()).map_err(|e| e.to_string())
}

/// `literal` rebuilt from its buffers: each array to its buffer in its own
/// layout and back.
fn rebuild(literal: &LiteralProto) -> Result<LiteralProto, String> {
    let shape = literal.shape.as_ref().ok_or("no shape")?;
    if shape.element_type == PrimitiveType::Tuple as i32 {
        let elements = literal
            .tuple_literals
            .iter()
            .map(rebuild)
            .collect::<Result<_, _>>()?;
        return Ok(LiteralProto {
            shape: Some(shape.clone()),
            tuple_literals: elements,
            ..Default::default()
        });
    }
    let buffer = to_buffer(literal, None).map_err(|e| e.to_string())?;
    from_buffer(shape, &buffer).map_err(|e| e.to_string())
}

/// A layout of each kind for the array `shape`.
fn layouts(shape: &Shape) -> Vec<Layout> {
    let own = shape.layout.as_deref().cloned().unwrap_or_default();
    let m2m = own.minor_to_major.clone();
    let rank = shape.dimensions.len();
    let ty = PrimitiveType::try_from(shape.element_type).unwrap();
    let mut out = vec![own.clone()];
    let reversed: Vec<i64> = m2m.iter().rev().copied().collect();
    out.push(layout_util::make_layout(&reversed));
    let padded: Vec<i64> = shape.dimensions.iter().map(|d| d + 1).collect();
    // f8e8m0fnu has no zero.
    let value = if ty == PrimitiveType::F8e8m0fnu {
        PaddingValue::OnePad
    } else {
        PaddingValue::ZeroPad
    };
    out.push(
        LayoutBuilder::new(&reversed)
            .padded_dimensions(padded)
            .padding_value(value)
            .build(),
    );
    if rank > 0 {
        let tile = |dims: Vec<i64>| Tile { dimensions: dims };
        let tiles = if rank == 1 {
            vec![tile(vec![4])]
        } else {
            vec![tile(vec![2, 2])]
        };
        out.push(LayoutBuilder::new(&m2m).tiles(tiles).build());
        if ty == PrimitiveType::Bf16 && rank >= 2 {
            out.push(
                LayoutBuilder::new(&m2m)
                    .tiles(vec![tile(vec![8, 128]), tile(vec![2, 1])])
                    .build(),
            );
        }
    }
    if ty.is_sub_byte() {
        let bits = i64::from(ty.bit_width().unwrap());
        let packed: Vec<Layout> = out
            .iter()
            .filter(|l| l.padded_dimensions.is_empty())
            .map(|l| {
                let mut l = l.clone();
                l.element_size_in_bits = bits;
                l
            })
            .collect();
        out.extend(packed);
    }
    out
}

fn with_layout(shape: &Shape, layout: &Layout) -> Shape {
    let mut shape = shape.clone();
    shape.layout = Some(Box::new(layout.clone()));
    shape
}

/// Each layout kind: to the buffer, back, and XLA's text again.
fn every_layout(literal: &LiteralProto, text: &str) -> Result<usize, String> {
    let shape = literal.shape.as_ref().ok_or("no shape")?;
    if shape.element_type == PrimitiveType::Tuple as i32 {
        return Ok(0);
    }
    // Packing keeps the low bits of a sub-byte element's byte (its value).
    let ty = PrimitiveType::try_from(shape.element_type).map_err(|e| e.to_string())?;
    let low_bits = |mut buffer: Vec<u8>| {
        if ty.is_sub_byte() {
            let mask = (1_u16 << ty.bit_width().unwrap_or(8)).wrapping_sub(1) as u8;
            buffer.iter_mut().for_each(|b| *b &= mask);
        }
        buffer
    };
    let own = low_bits(to_buffer(literal, None).map_err(|e| e.to_string())?);
    let mut count = 0;
    for layout in layouts(shape) {
        let target = with_layout(shape, &layout);
        let name = target.human_string_with_layout();
        let buffer = to_buffer(literal, Some(&layout)).map_err(|e| format!("{name}: {e}"))?;
        let back = from_buffer(&target, &buffer).map_err(|e| format!("{name}: {e}"))?;
        same(
            &format!("text via {name}"),
            to_text(&back).map_err(|e| e.to_string())?.as_str(),
            text,
        )?;
        let again = low_bits(to_buffer(&back, shape.layout.as_deref()).map_err(|e| e.to_string())?);
        if again != own {
            return Err(format!(
                "{name}: the buffer in the literal's own layout changed"
            ));
        }
        count += 1;
    }
    Ok(count)
}

fn check_accepted(row: &Row, input: &LiteralProto) -> Result<(), String> {
    let text = required(row, "text")?;
    same(
        "text",
        to_text(input).map_err(|e| e.to_string())?.as_str(),
        text,
    )?;
    let rebuilt = rebuild(input)?;
    same(
        "LiteralProto",
        hex_encode(&rebuilt.encode_to_vec()).as_str(),
        required(row, "hex")?,
    )?;
    every_layout(input, text)?;
    if let (Some(shape), Some(hex)) = (field(row, "device_shape"), field(row, "device_hex")) {
        let device: Shape = shape.parse().map_err(|e| format!("{shape}: {e}"))?;
        let buffer = to_buffer(input, device.layout.as_deref()).map_err(|e| e.to_string())?;
        same(
            &format!("device buffer {shape}"),
            hex_encode(&buffer).as_str(),
            hex,
        )?;
    }
    Ok(())
}

fn check_refused(input: &LiteralProto) -> Result<(), String> {
    match to_text(input) {
        Ok(text) => Err(format!("accepted, printed {text}")),
        Err(_) => Ok(()),
    }
}

/// The crash rows: building a literal of the row's shape is refused.
fn refuses_to_build(row: &Row) -> Result<(), String> {
    field(row, "crash").ok_or("neither hex nor crash")?;
    let input = required(row, "input")?;
    let text = input.split(" constant(").next().unwrap_or_default();
    let shape: Shape = text.parse().map_err(|e| format!("{text}: {e}"))?;
    let bytes = index_util::TiledLayout::new(&shape)
        .map_err(|e| e.to_string())?
        .buffer_size_in_bytes();
    match from_buffer(&shape, &vec![0; usize::try_from(bytes).unwrap()]) {
        Ok(_) => Err(format!("{text}: built")),
        Err(_) => Ok(()),
    }
}

#[test]
fn literals_match_xla() {
    let rows = load("literals.jsonl").unwrap();
    let mut tally = Tally::new("literals");
    let mut device = 0;
    for row in &rows {
        let kind = required(row, "kind").unwrap();
        let case = field(row, "input")
            .or(field(row, "description"))
            .unwrap_or("?")
            .chars()
            .take(80)
            .collect::<String>();
        if kind == "hlo" {
            if field(row, "hex").is_none() {
                // F6 types: XLA's ToProto aborts, so there is no
                // LiteralProto; from_buffer refuses to make one.
                tally.record(&case, refuses_to_build(row));
                continue;
            }
            device += usize::from(field(row, "device_hex").is_some());
        }
        let hex = field(row, "hex").unwrap_or_default();
        let outcome = if kind == "hlo" {
            decode(hex).and_then(|lit| check_accepted(row, &lit))
        } else {
            decode(required(row, "input_hex").unwrap()).and_then(|lit| {
                if field(row, "text").is_some() {
                    check_accepted(row, &lit)
                } else {
                    check_refused(&lit)
                }
            })
        };
        if kind == "hlo" && case.contains("T(2,2)(4,1)") {
            tally.record_deviation(
                &case,
                outcome,
                "the literal's own tiling pads past XLA's allocation in its second tile, \
                 which index_util::TiledLayout refuses (see tiled_sizes.jsonl)",
            );
        } else if case.starts_with("s1 ") || case.starts_with("u1 ") {
            tally.record_deviation(
                &case,
                outcome,
                "XLA writes s1/u1 literals (one byte each) but cannot load them back: \
                 `Is called on unsupported shape`; we read them",
            );
        } else {
            tally.record(&case, outcome);
        }
    }
    println!("literals: {device} device buffers compared");
    assert!(tally.finish());
}

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
            let _ = every_layout(&literal, "");
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
        let _ = literal.encode_to_vec();
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
