//! `relayout`: a buffer of one XLA layout copied into a new buffer of
//! another layout of the same array, read in place and written with the GIL
//! released, on the calling thread or a pool of `threads` threads.

use numpy::{PyReadonlyArray1, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use relayout::{FromTo, RelayoutPlan, rayon, same_array};

use crate::errors::{error, invalid_shape};
use crate::shape::shape_arg;

/// The plan between the two shapes, checked to be the same array, with
/// the byte size of the destination buffer; `len` must be the source
/// buffer's byte size.
fn plan(
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    len: usize,
) -> PyResult<(RelayoutPlan, schema::Shape, usize)> {
    let (src, dst) = (shape_arg(src)?, shape_arg(dst)?);
    if !same_array(&src, &dst) {
        return Err(error(format!(
            "source {} and destination {} are not the same array: element types and dimensions must match",
            src.human_string_with_layout(),
            dst.human_string_with_layout()
        )));
    }
    // What XLA allocates (`ArraySize`), as the length of a byte slice.
    let size = |shape: &schema::Shape| -> PyResult<usize> {
        let bytes = index_util::TiledLayout::array_size(shape).map_err(invalid_shape)?;
        usize::try_from(bytes).map_err(|_| {
            error(format!(
                "a buffer of {shape} has {bytes} bytes, more than this machine addresses"
            ))
        })
    };
    let expected = size(&src)?;
    if len != expected {
        return Err(error(format!(
            "data has {len} bytes but a buffer of {src} has {expected}"
        )));
    }
    let dst_len = size(&dst)?;
    let plan = RelayoutPlan::xla(FromTo {
        from: &src,
        to: &dst,
    })
    .map_err(invalid_shape)?;
    Ok((plan, dst, dst_len))
}

/// Runs `plan` from `input` into `output` on the calling thread (`threads`
/// 1) or on a pool of `threads` threads.
fn execute(
    plan: &RelayoutPlan,
    threads: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), String> {
    match threads {
        0 => Err("threads=0: the copy needs at least 1 thread".to_owned()),
        1 => plan.run(input, output).map_err(|e| e.to_string()),
        n => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| format!("cannot start {n} threads: {e}"))?;
            plan.run_in(&pool, input, output).map_err(|e| e.to_string())
        }
    }
}

/// Relayouts the bytes of `data` (a contiguous 1-D `uint8` array, which may
/// view any buffer) into `out`, a contiguous 1-D `uint8` array (which may
/// view any writable buffer) of the destination's byte size, on `threads`
/// threads with the GIL released.
#[pyfunction]
pub fn relayout_into<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    src: &Bound<'py, PyAny>,
    dst: &Bound<'py, PyAny>,
    mut out: PyReadwriteArray1<'py, u8>,
    threads: usize,
) -> PyResult<()> {
    let (plan, dst_shape, dst_len) = plan(src, dst, data.len())?;
    if out.len() != dst_len {
        return Err(error(format!(
            "out has {} bytes but a buffer of {dst_shape} has {dst_len}",
            out.len()
        )));
    }
    let input = data.as_slice().map_err(error)?;
    let output = out.as_slice_mut().map_err(error)?;
    py.detach(|| execute(&plan, threads, input, output))
        .map_err(error)
}
