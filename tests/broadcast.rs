//! Golden test of broadcasting (`broadcast.jsonl`, from
//! `build-tools/gen_broadcast.py`): result shapes and error texts of real
//! XLA's binary-op shape inference, of `broadcast_in_dim` through StableHLO
//! and XLA's builder, and of `numpy.broadcast_shapes`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, ints, load, required, same};
use schema::Shape;
use serde_json::Value;
use shape_util::{
    BroadcastError, infer_binary_op_shape, infer_broadcast_in_dim_shape, numpy_broadcast_shapes,
};

fn shape(row: &Row, key: &str) -> Result<Shape, String> {
    let text = required(row, key)?;
    text.parse().map_err(|e| format!("parse {text:?}: {e}"))
}

/// The row's `result` (a shape string) or `error` against ours.
fn check_outcome<E: std::fmt::Display>(row: &Row, ours: Result<String, E>) -> Result<(), String> {
    match (ours, field(row, "result"), field(row, "error")) {
        (Ok(got), Some(want), _) => same("result", got.as_str(), want),
        (Err(e), _, Some(want)) => same("error", e.to_string().as_str(), want),
        (Ok(got), None, Some(want)) => Err(format!("accepted as {got}, XLA said {want:?}")),
        (Err(e), Some(want), _) => Err(format!("rejected ({e}), XLA gave {want}")),
        _ => Err("row has neither result nor error".to_owned()),
    }
}

/// XLA's `InferBinaryOpShape` (reached through the HLO parser, which has no
/// broadcast_dimensions): same result shape with layout, same error text.
fn check_binary(row: &Row) -> Result<(), String> {
    let (lhs, rhs) = (shape(row, "lhs")?, shape(row, "rhs")?);
    let ours = infer_binary_op_shape(required(row, "op")?, &lhs, &rhs, &[]).map(|s| s.to_string());
    check_outcome(row, ours)
}

/// The numbers in a StableHLO verifier message.
fn numbers(message: &str) -> Vec<i64> {
    message
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter_map(|word| word.parse().ok())
        .collect()
}

/// Whether our `BroadcastInDim` error is the one StableHLO's verifier
/// reported. The checks run in a different order: StableHLO checks the
/// number of broadcast dimensions before the ranks (XLA the ranks first),
/// and duplicates before ranges (XLA checks each dimension's range, sizes
/// and order in turn); where both fail, either error is the same verdict.
fn same_broadcast_in_dim_error(ours: &BroadcastError, stablehlo: &str, dimensions: &[i64]) -> bool {
    if stablehlo == "broadcast_dimensions should not have duplicates" {
        return dimensions.windows(2).any(|pair| pair[0] == pair[1]);
    }
    let n = numbers(stablehlo);
    match ours {
        BroadcastError::OperandBroadcastDimensionsSize { operand_rank, size } => {
            stablehlo.starts_with("broadcast_dimensions size (")
                && n == [to_i64(*size), to_i64(*operand_rank)]
        }
        BroadcastError::BroadcastToLowerRank { .. } => {
            stablehlo.starts_with("broadcast_dimensions size (")
                || stablehlo.starts_with("broadcast_dimensions contains invalid value")
        }
        BroadcastError::BroadcastDimensionOutOfBound { dimension } => {
            stablehlo.starts_with("broadcast_dimensions contains invalid value")
                && n.first() == Some(dimension)
        }
        BroadcastError::InputDimensionMismatch {
            operand_dimension,
            operand_size,
            output_dimension,
            output_size,
        } => {
            stablehlo.starts_with("size of operand dimension")
                && n == [
                    to_i64(*operand_dimension),
                    *operand_size,
                    1,
                    *output_dimension,
                    *output_size,
                ]
        }
        _ => false,
    }
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap()
}

/// `broadcast_in_dim` through StableHLO: accepted with XLA's result shape,
/// or rejected with the same error (StableHLO's verifier speaks first, in
/// its own words; the numbers must agree).
fn check_broadcast_in_dim(row: &Row) -> Result<(), String> {
    let (operand, output) = (shape(row, "operand")?, shape(row, "output")?);
    let dimensions = ints(row, "broadcast_dimensions")?;
    match infer_broadcast_in_dim_shape(&operand, &output, &dimensions) {
        Ok(result) => check_outcome::<String>(row, Ok(result.to_string())),
        Err(error) => match field(row, "error") {
            Some(want) if same_broadcast_in_dim_error(&error, want, &dimensions) => Ok(()),
            Some(want) => Err(format!("error {error:?}, StableHLO said {want:?}")),
            None => Err(format!("rejected ({error}), XLA accepted")),
        },
    }
}

/// `numpy.broadcast_shapes`: same shape or same error text.
fn check_numpy(row: &Row) -> Result<(), String> {
    let shapes: Vec<Vec<i64>> = row
        .get("shapes")
        .and_then(Value::as_array)
        .ok_or("no shapes")?
        .iter()
        .map(|s| {
            s.as_array()
                .and_then(|v| v.iter().map(Value::as_i64).collect::<Option<Vec<_>>>())
                .ok_or("shape is not a list of integers")
        })
        .collect::<Result<_, _>>()?;
    let refs: Vec<&[i64]> = shapes.iter().map(Vec::as_slice).collect();
    match (numpy_broadcast_shapes(&refs), field(row, "error")) {
        (Ok(got), None) => same("result", got, ints(row, "result")?),
        (Err(e), Some(want)) => same("error", e.to_string().as_str(), want),
        (Ok(got), Some(want)) => Err(format!("accepted as {got:?}, numpy said {want:?}")),
        (Err(e), None) => Err(format!("rejected ({e}), numpy accepted")),
    }
}

fn check_kind(kind: &str, name: &str, check: fn(&Row) -> Result<(), String>) -> bool {
    let rows = load("broadcast.jsonl").unwrap();
    let mut tally = Tally::new(name);
    for row in rows.iter().filter(|row| field(row, "kind") == Some(kind)) {
        let mut case = row.clone();
        case.remove("kind");
        tally.record(&Value::Object(case).to_string(), check(row));
    }
    tally.finish()
}

#[test]
fn xla_binary_op_broadcasting_matches_xla() {
    assert!(check_kind(
        "xla_binary",
        "broadcast (XLA binary ops)",
        check_binary
    ));
}

#[test]
fn broadcast_in_dim_matches_xla() {
    assert!(check_kind(
        "xla_broadcast_in_dim",
        "broadcast (broadcast_in_dim)",
        check_broadcast_in_dim
    ));
}

#[test]
fn numpy_broadcast_shapes_match_numpy() {
    assert!(check_kind("numpy", "broadcast (numpy)", check_numpy));
}
