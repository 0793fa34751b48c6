//! `view`: a strided view after numpy-style operations.

use serde_json::json;
use stride_util::{MAX_DIMS, StridedView, ViewError};

use super::{Outcome, list, parse_list, shape};
use crate::view_ops::{Op, parse_chain};

/// The base array and the length of its buffer in elements; as numpy, at
/// most 64 dimensions.
fn base_view(text: &str) -> Result<(StridedView, i64), String> {
    let (view, len) = any_base_view(text)?;
    if view.ndim() > MAX_DIMS {
        return Err(ViewError::TooManyDimensions { ndim: view.ndim() }.to_string());
    }
    Ok((view, len))
}

fn any_base_view(text: &str) -> Result<(StridedView, i64), String> {
    if text.trim_start().starts_with('[') {
        let sizes = parse_list(text).map_err(|e| format!("in base {text:?}: {e}"))?;
        let view = StridedView::row_major(&sizes).map_err(|e| e.to_string())?;
        let len = view.min_buffer_len().map_err(|e| e.to_string())?;
        Ok((view, len))
    } else {
        let shape = shape(text)?;
        let view = StridedView::from_xla_shape(&shape).map_err(|e| e.to_string())?;
        let len = index_util::PhysicalLayout::new(&shape)
            .map_err(|e| e.to_string())?
            .padded_element_count();
        Ok((view, len))
    }
}

/// Applies one operation.
fn apply(view: &StridedView, op: &Op, buffer_len: i64) -> Result<StridedView, String> {
    let result = match op {
        Op::Transpose(None) => Ok(view.transpose()),
        Op::Transpose(Some(axes)) => view.permute(axes),
        Op::Reshape(sizes, order) => view.reshape_numpy(sizes, *order),
        Op::Ravel(order) => view.ravel(*order),
        Op::BroadcastTo(sizes) => view.broadcast_to(sizes),
        Op::ExpandDims(axes) => view.expand_dims(axes),
        Op::Squeeze(None) => Ok(view.squeeze()),
        Op::Squeeze(Some(axes)) => view.squeeze_axes(axes),
        Op::SwapAxes(a, b) => view.swapaxes(*a, *b),
        Op::MoveAxis(source, destination) => view.moveaxis(&[*source], &[*destination]),
        Op::Flip(None) => view.flip(),
        Op::Flip(Some(axis)) => view.flip_axes(&[*axis]),
        Op::AsStrided { shape, strides } => {
            StridedView::as_strided(buffer_len, shape, strides, view.offset())
        }
        Op::Index(items) => view.index(items),
    };
    result.map_err(|e| e.to_string())
}

/// The view after `ops` (separate arguments or one chain) applied to `base`.
pub fn resolve(base: &str, ops: &[String]) -> Result<StridedView, String> {
    let (mut view, buffer_len) = base_view(base)?;
    for op in parse_chain(&ops.concat())? {
        view = apply(&view, &op, buffer_len)?;
    }
    Ok(view)
}

/// The view after `ops` applied to `base`, printed.
pub fn run(base: &str, ops: &[String]) -> Outcome {
    let view = resolve(base, ops)?;
    let (c, f) = (view.is_c_contiguous(), view.is_f_contiguous());
    let plain = format!(
        "shape: {}\nstrides: {}\noffset: {}\nc_contiguous: {c}\nf_contiguous: {f}",
        list(view.sizes()),
        list(view.strides()),
        view.offset(),
    );
    Ok((
        plain,
        json!({
            "shape": view.sizes(),
            "strides": view.strides(),
            "offset": view.offset(),
            "c_contiguous": c,
            "f_contiguous": f,
            "error": null,
        }),
    ))
}
