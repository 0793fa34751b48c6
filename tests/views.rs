//! Golden test of numpy views (`views.jsonl`, from
//! `build-tools/gen_views.py`): chains of reshape, transpose, swapaxes,
//! moveaxis, expand_dims, squeeze, broadcast_to, basic indexing, flip and
//! ravel on numpy arrays, replayed on `stride_util::StridedView`. After
//! every step the shape, strides, offset, contiguity flags and element
//! offsets must be numpy's; a step numpy rejects must be rejected with
//! numpy's message (ours may add detail after it), and a ravel numpy
//! answers with a copy must be refused as needing one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, int, ints, load, required, same};
use serde_json::Value;
use stride_util::{NumpyOrder, Order, StridedView, ViewError, parse_index_expression};

/// The integer array `key` of `row`, or `None` if absent.
fn optional_ints(row: &Row, key: &str) -> Result<Option<Vec<i64>>, String> {
    if row.contains_key(key) {
        ints(row, key).map(Some)
    } else {
        Ok(None)
    }
}

/// The view the chain starts from, or `None` for a start numpy rejects
/// (after checking that it is rejected with numpy's message).
fn start(row: &Row) -> Result<Option<StridedView>, String> {
    let start = row
        .get("start")
        .and_then(Value::as_object)
        .ok_or("no start")?;
    let view = match start.get("as_strided").and_then(Value::as_object) {
        Some(spec) => StridedView::as_strided(
            int(spec, "buffer_len")?,
            &ints(spec, "shape")?,
            &ints(spec, "strides")?,
            int(spec, "offset")?,
        ),
        None => StridedView::row_major(&ints(start, "shape")?),
    };
    match (view, field(start, "error")) {
        (Ok(view), None) => Ok(Some(view)),
        (Err(error), Some(numpy)) if error.to_string().starts_with(numpy) => Ok(None),
        (Err(error), Some(numpy)) => Err(format!("start: error {error}, numpy said {numpy:?}")),
        (Ok(view), Some(numpy)) => Err(format!(
            "start: gave shape {:?}, numpy said {numpy:?}",
            view.sizes()
        )),
        (Err(error), None) => Err(format!("start: {error}, numpy accepted")),
    }
}

/// Applies one step as numpy did.
fn apply(view: &StridedView, step: &Row) -> Result<Result<StridedView, ViewError>, String> {
    Ok(match required(step, "op")? {
        "reshape" => view.reshape(&ints(step, "target")?),
        "reshape_f" => view.reshape_with_order(&ints(step, "target")?, Order::F),
        "reshape_a" => view.reshape_numpy(&ints(step, "target")?, NumpyOrder::A),
        "reshape_k" => view.reshape_numpy(&ints(step, "target")?, NumpyOrder::K),
        "ravel" => view.ravel(match required(step, "order")? {
            "C" => NumpyOrder::C,
            "F" => NumpyOrder::F,
            "A" => NumpyOrder::A,
            "K" => NumpyOrder::K,
            other => return Err(format!("unknown order {other}")),
        }),
        "transpose" => match optional_ints(step, "axes")? {
            Some(axes) => view.permute(&axes),
            None => Ok(view.transpose()),
        },
        "swapaxes" => view.swapaxes(int(step, "axis1")?, int(step, "axis2")?),
        "moveaxis" => view.moveaxis(&ints(step, "source")?, &ints(step, "destination")?),
        "expand_dims" => view.expand_dims(&ints(step, "axes")?),
        "squeeze" => match optional_ints(step, "axes")? {
            Some(axes) => view.squeeze_axes(&axes),
            None => Ok(view.squeeze()),
        },
        "broadcast_to" => view.broadcast_to(&ints(step, "target")?),
        "flip" => match optional_ints(step, "axes")? {
            Some(axes) => view.flip_axes(&axes),
            None => view.flip(),
        },
        "index" => parse_index_expression(required(step, "expression")?)
            .map_err(|e| format!("expression: {e}"))
            .map(|items| view.index(&items))?,
        other => return Err(format!("unknown op {other}")),
    })
}

/// Checks the view against numpy's description of it.
fn check_view(view: &StridedView, step: &Row) -> Result<(), String> {
    same("shape", view.sizes(), ints(step, "shape")?.as_slice())?;
    same("strides", view.strides(), ints(step, "strides")?.as_slice())?;
    same("offset", view.offset(), int(step, "offset")?)?;
    let flag = |key: &str| step.get(key).and_then(Value::as_bool);
    same(
        "C contiguous",
        Some(view.is_c_contiguous()),
        flag("c_contiguous"),
    )?;
    same(
        "F contiguous",
        Some(view.is_f_contiguous()),
        flag("f_contiguous"),
    )?;
    if let Some(elements) = optional_ints(step, "elements")? {
        same("element offsets", view.offsets().collect(), elements)?;
    }
    Ok(())
}

fn check_chain(row: &Row) -> Result<(), String> {
    let Some(mut view) = start(row)? else {
        return Ok(());
    };
    let steps = row
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("no steps")?;
    for (i, step) in steps.iter().enumerate() {
        let step = step.as_object().ok_or("step is not an object")?;
        let outcome = apply(&view, step)?;
        let op = required(step, "op")?;
        if step.get("copy").and_then(Value::as_bool) == Some(true) {
            // Where numpy copies, a view cannot be had: the chain ends.
            return match outcome {
                Err(ViewError::RavelNeedsCopy { .. }) => Ok(()),
                other => Err(format!("step {i} ({op}): {other:?}, numpy copied")),
            };
        }
        match (outcome, field(step, "error")) {
            (Ok(next), None) => {
                check_view(&next, step).map_err(|e| format!("step {i} ({op}): {e}"))?;
                view = next;
            }
            (Err(error), Some(numpy)) => {
                let ours = error.to_string();
                if !ours.starts_with(numpy) {
                    return Err(format!(
                        "step {i} ({op}): error {ours:?}, numpy said {numpy:?}"
                    ));
                }
            }
            (Ok(next), Some(numpy)) => {
                return Err(format!(
                    "step {i} ({op}): gave shape {:?} strides {:?}, numpy said {numpy:?}",
                    next.sizes(),
                    next.strides()
                ));
            }
            (Err(error), None) => {
                return Err(format!("step {i} ({op}): {error}, numpy accepted"));
            }
        }
    }
    Ok(())
}

#[test]
fn numpy_view_chains_match_numpy() {
    let rows = load("views.jsonl").unwrap();
    let mut tally = Tally::new("views");
    for row in &rows {
        tally.record(&Value::Object(row.clone()).to_string(), check_chain(row));
    }
    assert!(tally.finish());
}
