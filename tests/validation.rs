//! Golden test of shape validation (`validation.jsonl`, from
//! `build-tools/gen_validation.py`): shape strings loaded by real XLA as an
//! HLO parameter, parsed by XLA's HLO parser and then validated when the
//! module proto is loaded. Our parser plus `shape_util::validate_shape`
//! must accept what XLA accepts and reject what it rejects, with XLA's text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, hex_decode, load, required, same};
use prost::Message;
use schema::Shape;

/// Where our side rejected an input.
enum Ours {
    Accepted,
    ParseError(String),
    Invalid(String),
}

/// Our verdict on a row's input: a shape string goes through our parser
/// and `validate_shape`; a hand-made ShapeProto (`hex`) is decoded and
/// checked with `validate_shape_with_optional_layout`, as XLA loads protos.
fn ours(row: &Row) -> Result<Ours, String> {
    if let Some(hex) = field(row, "hex") {
        let shape = Shape::decode(hex_decode(hex)?.as_slice()).map_err(|e| e.to_string())?;
        return Ok(
            match shape_util::validate_shape_with_optional_layout(&shape) {
                Ok(()) => Ours::Accepted,
                Err(e) => Ours::Invalid(e.to_string()),
            },
        );
    }
    Ok(match required(row, "input")?.parse::<Shape>() {
        Err(e) => Ours::ParseError(e.to_string()),
        Ok(shape) => match shape_util::validate_shape(&shape) {
            Ok(()) => Ours::Accepted,
            Err(e) => Ours::Invalid(e.to_string()),
        },
    })
}

fn check_row(row: &Row) -> Result<(), String> {
    let message = field(row, "message");
    match (required(row, "stage")?, ours(row)?) {
        ("accepted", Ours::Accepted) => Ok(()),
        // XLA's own checks run when the module proto is loaded.
        ("load", Ours::Invalid(ours)) => match (field(row, "code"), message) {
            // RET_CHECKs print the C++ condition, then (some) XLA's words:
            // ours must say those words; without them, ours names the value.
            (Some("INTERNAL"), Some(m)) if m.starts_with("RET_CHECK failure") => {
                match m.split_once("Malformed shape proto: ") {
                    Some((_, words)) if !ours.contains(words.trim()) => {
                        Err(format!("invalid: {ours:?}; XLA's RET_CHECK said {words:?}"))
                    }
                    _ => Ok(()),
                }
            }
            (_, Some(m)) => same("message", ours.as_str(), m),
            (_, None) => Err("load error without message".to_owned()),
        },
        // The HLO → MLIR step of the load has no opaque type; XLA's shape
        // validation accepts it (a listed deviation of the golden path).
        ("load", Ours::Accepted)
            if message.is_some_and(|m| m.starts_with("Unsupported type: OPAQUE_TYPE")) =>
        {
            Ok(())
        }
        ("parse", Ours::ParseError(ours)) => match message {
            Some(m) if !ours.contains(m) => Err(format!("parse error {ours:?}, XLA said {m:?}")),
            _ => Ok(()),
        },
        // XLA aborted (CHECK failure): any error here is the fix.
        ("crash", Ours::ParseError(_) | Ours::Invalid(_)) => Ok(()),
        (stage, Ours::Accepted) => Err(format!("accepted; XLA: {stage} {message:?}")),
        (stage, Ours::ParseError(e)) => Err(format!("parse error {e:?}; XLA: {stage} {message:?}")),
        (stage, Ours::Invalid(e)) => Err(format!("invalid: {e:?}; XLA: {stage} {message:?}")),
    }
}

/// Why hand-made protos with dimensions on a non-array differ.
const DROPPED_DIMENSIONS: &str = "XLA's Shape::FromProto reads dimensions only for arrays and drops them; \
     schema::Shape is the proto itself, so validate_shape sees them and gives ValidateShape's state error";

/// Inputs where we knowingly differ from XLA, with the reason (also listed
/// in `build-tools/README.md`).
const DEVIATIONS: &[(&str, &str)] = &[
    (
        "f32[2,3]{1,0:T(*)}",
        "validate_shape follows ValidateShape, which allows a `*` tile dimension; XLA rejects it only in Tile::FromProto",
    ),
    (
        "f32[2,3]{1,0:T(*,128)}",
        "validate_shape follows ValidateShape, which allows a `*` tile dimension; XLA rejects it only in Tile::FromProto",
    ),
    (
        "f32[2,3]{1,0:T(-9223372036854775808)}",
        "T(INT64_MIN) is T(*): allowed by ValidateShape, rejected by XLA's Tile::FromProto",
    ),
    ("tuple with dimensions", DROPPED_DIMENSIONS),
    ("token with dimensions", DROPPED_DIMENSIONS),
    ("opaque with dimensions", DROPPED_DIMENSIONS),
    ("buffer with dimensions", DROPPED_DIMENSIONS),
    (
        "token with a layout",
        "XLA's Shape::FromProto rejects any layout on a non-array (RET_CHECK); ValidateShape, which validate_shape follows, allows an empty one",
    ),
];

#[test]
fn validation_matches_xla() {
    let rows = load("validation.jsonl").unwrap();
    let mut tally = Tally::new("validation");
    for row in &rows {
        let case = field(row, "input")
            .or_else(|| field(row, "proto"))
            .unwrap_or("?")
            .to_owned();
        match DEVIATIONS.iter().find(|(input, _)| *input == case) {
            Some((_, why)) => tally.record_deviation(&case, check_row(row), why),
            None => tally.record(&case, check_row(row)),
        }
    }
    assert!(tally.finish());
}
