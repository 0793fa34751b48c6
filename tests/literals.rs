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
//! LiteralProto XLA refused, ours is refused with the same counts (or the
//! same field, where XLA names no count) in its message.

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

/// What our message must say for XLA's refusal `xla`: the same counts
/// where XLA gives them, the field XLA's check names where it gives none.
fn expected_parts(xla: &str) -> Result<Vec<String>, String> {
    let message = match xla.split_once(": ") {
        Some((status, m)) if status.chars().all(|c| c.is_ascii_uppercase() || c == '_') => m,
        _ => xla,
    };
    let numbers = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect()
    };
    if let Some(rest) = message.strip_prefix("Expected ")
        && rest.contains(" elements in LiteralProto repeated field, has ")
    {
        let n = numbers(rest);
        return Ok(vec![
            format!("needs {} values in ", n[0]),
            format!(", the LiteralProto has {}", n[1]),
        ]);
    }
    if message.starts_with("Expected ") || message == "LiteralProto has no shape" {
        return Ok(vec![message.to_owned()]);
    }
    // XLA aborts: `Unhandled primitive type F6E2M3FN`.
    if let Some(ty) = message
        .strip_prefix("literal.cc:")
        .and_then(|m| m.split("Unhandled primitive type ").nth(1))
    {
        return Ok(vec![format!(": {ty} (XLA's Literal::ToProto aborts on it")]);
    }
    if message.contains("ShapeUtil::Equal(shape, subshape())") {
        return Ok(vec![
            "element_size_in_bits in a LiteralProto's shape".to_owned(),
        ]);
    }
    // RET_CHECK failure (...) proto.u8s().size() == ... | proto.c64s_size() ==
    // ... | data<half>().size() * sizeof(half) == s.size(): a byte or value
    // count that does not match, in the field XLA reads.
    let check = message.split_once(") ").map_or("", |(_, check)| check);
    let field = if let Some(rest) = check.strip_prefix("proto.") {
        rest.split(['(', '_']).next().unwrap_or_default().to_owned()
    } else if let Some(rest) = check.strip_prefix("data<") {
        let ty = rest.split('>').next().unwrap_or_default();
        let name = match ty {
            "bfloat16" => "bf16",
            "half" => "f16",
            "uint16_t" => "u16",
            "int16_t" => "s16",
            other => other
                .trim_start_matches("tsl::float8_")
                .trim_start_matches("tsl::"),
        };
        let name = if ty.starts_with("tsl::float8_") {
            format!("f8{name}")
        } else {
            name.to_owned()
        };
        format!("{name}s")
    } else {
        return Err(format!("XLA's message {xla:?} has no expectation here"));
    };
    Ok(vec![format!(" in {field}, the LiteralProto has ")])
}

/// Refused as XLA refused it (`xla`: XLA's status text, or the message it
/// aborted with).
fn check_refused(input: &LiteralProto, xla: &str) -> Result<(), String> {
    let ours = match to_text(input) {
        Ok(text) => return Err(format!("accepted, printed {text}")),
        Err(e) => e.to_string(),
    };
    for part in expected_parts(xla)? {
        if !ours.contains(&part) {
            return Err(format!(
                "our message {ours:?} lacks {part:?} (XLA: {xla:?})"
            ));
        }
    }
    Ok(())
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
    let (mut device, mut refused) = (0, 0);
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
        refused += usize::from(kind != "hlo" && field(row, "text").is_none());
        let outcome = if kind == "hlo" {
            decode(hex).and_then(|lit| check_accepted(row, &lit))
        } else {
            decode(required(row, "input_hex").unwrap()).and_then(|lit| {
                if field(row, "text").is_some() {
                    check_accepted(row, &lit)
                } else {
                    let xla = field(row, "error").or(field(row, "crash"));
                    check_refused(&lit, xla.ok_or("neither text, error nor crash")?)
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
    // 23 LiteralProtos XLA refused with a status, 2 it aborted on (F6 types).
    assert_eq!(refused, 25);
    assert!(tally.finish());
}
