//! Executing a reshard plan over per-device buffers with the relayout
//! engine (the `execute` feature).

use relayout::relayout_part;
use schema::Shape;
use stride_util::{IndexItem, StridedView};

use crate::device::{DeviceBox, Placement, box_elements};
use crate::error::{ErrorKind, ShardingError};
use crate::reshard::{Piece, ReshardPlan};
use crate::sharding::HloSharding;

/// The view of a piece inside a device's shard buffer.
fn piece_view(shard: &Shape, own: &DeviceBox, piece: &Piece) -> Result<StridedView, ShardingError> {
    let mismatch =
        |e: &dyn std::fmt::Display| ShardingError::new(ErrorKind::Mismatch, e.to_string());
    let view = StridedView::from_xla_shape(shard).map_err(|e| mismatch(&e))?;
    let items: Vec<IndexItem> = piece
        .offsets
        .iter()
        .zip(&piece.limits)
        .zip(&own.offsets)
        .map(|((&o, &l), &base)| IndexItem::slice(Some(o - base), Some(l - base), None))
        .collect();
    view.index(&items).map_err(|e| mismatch(&e))
}

/// `device`'s box under `placement`, which the plan says it has.
fn box_of(placement: &Placement<'_>, device: i64) -> Result<DeviceBox, ShardingError> {
    placement.device_box(device)?.ok_or_else(|| {
        ShardingError::new(
            ErrorKind::Mismatch,
            format!("device {device} holds nothing of the piece it is given"),
        )
    })
}

/// Executes `plan` (from [`crate::reshard_plan`] for `from` and `to`) over
/// per-device buffers.
///
/// `src_shape` and `dst_shape` are the global array in its source and its
/// destination layout (the same element type and dimensions); each
/// device's buffer holds its shard ([`HloSharding::shard_shape`], computed
/// here) in that layout: `sources[d]` device `d`'s shard under `from`,
/// `destinations[d]` its shard under `to`. Every piece is copied by the
/// relayout engine. A destination whose box is smaller than the shard
/// shape (the last blocks of a dimension that does not divide evenly) is
/// zeroed first, so that its padding reads as zero bytes; buffers of
/// devices that hold nothing under `to` are left as they are.
///
/// ```
/// use sharding_util::{HloSharding, execute_plan, reshard_plan};
///
/// // f32[3] from device 0 alone to two devices: [0,2) and [2,3) padded.
/// let shape = "f32[3]".parse().unwrap();
/// let from: HloSharding = "{maximal device=0}".parse().unwrap();
/// let to: HloSharding = "{devices=[2]<=[2]}".parse().unwrap();
/// let plan = reshard_plan(&shape, &from, &to, None).unwrap();
/// let whole: Vec<u8> = [1.0f32, 2.0, 3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
/// let sources = [whole, Vec::new()];
/// let mut destinations = [[9u8; 8]; 2];
/// execute_plan(&plan, (&from, &shape), (&to, &shape), &sources, &mut destinations).unwrap();
/// assert_eq!(destinations[0][4..], 2.0f32.to_le_bytes());
/// assert_eq!(destinations[1][4..], [0; 4]); // padding
/// ```
///
/// # Errors
///
/// Shapes that differ in more than layout; a buffer missing or too short
/// for its shard ([`ErrorKind::Buffer`]); a tiled layout or sub-byte
/// elements ([`ErrorKind::Unsupported`]); a plan that does not fit the
/// shardings. The destinations are then left partly written.
pub fn execute_plan<S: AsRef<[u8]>, D: AsMut<[u8]>>(
    plan: &ReshardPlan,
    (from, src_shape): (&HloSharding, &Shape),
    (to, dst_shape): (&HloSharding, &Shape),
    sources: &[S],
    destinations: &mut [D],
) -> Result<(), ShardingError> {
    if src_shape.element_type != dst_shape.element_type
        || src_shape.dimensions != dst_shape.dimensions
    {
        return Err(ShardingError::new(
            ErrorKind::Mismatch,
            format!(
                "the source shape {} and the destination shape {} differ in more than layout",
                src_shape.human_string(),
                dst_shape.human_string()
            ),
        ));
    }
    let bits = shape_util::element_size_in_bits(src_shape)
        .map_err(|e| ShardingError::new(ErrorKind::Unsupported, e.to_string()))?;
    if bits % 8 != 0 {
        return Err(ShardingError::new(
            ErrorKind::Unsupported,
            format!("executing a reshard of {bits}-bit elements is not supported"),
        ));
    }
    let size = usize::try_from(bits / 8)
        .map_err(|_| ShardingError::new(ErrorKind::TooLarge, "element size"))?;
    let src_shard = from.shard_shape(src_shape)?;
    let dst_shard = to.shard_shape(dst_shape)?;
    let source = Placement::new(from, src_shape)?;
    let destination = Placement::new(to, dst_shape)?;
    zero_padded(&destination, &dst_shard, destinations)?;
    // The pieces are parts of one copy: stores stream if the whole is large.
    let whole_bytes = plan
        .pieces
        .iter()
        .map(|piece| piece.bytes.unsigned_abs())
        .fold(0, u64::saturating_add);
    for piece in &plan.pieces {
        let src_view = piece_view(&src_shard, &box_of(&source, piece.from)?, piece)?;
        let dst_view = piece_view(&dst_shard, &box_of(&destination, piece.to)?, piece)?;
        let src = buffer(sources, piece.from, "source")?.as_ref();
        let dst = buffer_mut(destinations, piece.to)?.as_mut();
        relayout_part(src, &src_view, dst, &dst_view, size, whole_bytes)
            .map_err(|e| ShardingError::new(ErrorKind::Buffer, e.to_string()))?;
    }
    Ok(())
}

/// Zeroes the buffer of every destination device whose box is smaller
/// than the shard shape.
fn zero_padded<D: AsMut<[u8]>>(
    destination: &Placement<'_>,
    shard: &Shape,
    destinations: &mut [D],
) -> Result<(), ShardingError> {
    let whole = vec![0; shard.dimensions.len()];
    let shard_elements = box_elements(&whole, &shard.dimensions);
    for (device, buffer) in (0_i64..).zip(destinations.iter_mut()) {
        if let Some(b) = destination.device_box(device)?
            && b.elements() < shard_elements
        {
            buffer.as_mut().fill(0);
        }
    }
    Ok(())
}

/// Device `device`'s buffer among `buffers`.
fn buffer<'a, B>(buffers: &'a [B], device: i64, what: &str) -> Result<&'a B, ShardingError> {
    usize::try_from(device)
        .ok()
        .and_then(|d| buffers.get(d))
        .ok_or_else(|| no_buffer(what, device))
}

/// Device `device`'s destination buffer among `buffers`.
fn buffer_mut<B>(buffers: &mut [B], device: i64) -> Result<&mut B, ShardingError> {
    usize::try_from(device)
        .ok()
        .and_then(|d| buffers.get_mut(d))
        .ok_or_else(|| no_buffer("destination", device))
}

fn no_buffer(what: &str, device: i64) -> ShardingError {
    ShardingError::new(
        ErrorKind::Buffer,
        format!("no {what} buffer for device {device}"),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The value at a global index (row-major number).
    fn value(dims: &[i64], index: &[i64]) -> u32 {
        let mut v = 0;
        for (d, i) in dims.iter().zip(index) {
            v = v * d + i;
        }
        u32::try_from(v).unwrap()
    }

    /// Each device's shard buffer of `s` filled with the global values
    /// (naive: element by element).
    fn shards(shape: &Shape, s: &HloSharding, shard: &Shape, n: i64) -> Vec<Vec<u8>> {
        let dims = &shape.dimensions;
        let view = StridedView::from_xla_shape(shard).unwrap();
        let len = usize::try_from(shard.dimensions.iter().product::<i64>()).unwrap() * 4;
        (0..n)
            .map(|d| {
                let mut buf = vec![0u8; len];
                if let Some(b) = s.device_box(shape, d).unwrap() {
                    let sizes: Vec<i64> = b
                        .offsets
                        .iter()
                        .zip(&b.limits)
                        .map(|(o, l)| l - o)
                        .collect();
                    let count: i64 = sizes.iter().product();
                    for k in 0..count {
                        let mut local = vec![0; sizes.len()];
                        let mut rest = k;
                        for (slot, &z) in local.iter_mut().zip(&sizes).rev() {
                            *slot = rest % z;
                            rest /= z;
                        }
                        let global: Vec<i64> =
                            local.iter().zip(&b.offsets).map(|(l, o)| l + o).collect();
                        let at = usize::try_from(view.element_offset(&local).unwrap()).unwrap() * 4;
                        buf[at..at + 4].copy_from_slice(&value(dims, &global).to_le_bytes());
                    }
                }
                buf
            })
            .collect()
    }

    #[test]
    fn executing_plans_matches_the_naive_reference() {
        let cases = [
            (
                "f32[7,9]{1,0}",
                "f32[7,9]{0,1}",
                "{devices=[2,4]<=[8]}",
                "{devices=[4,2]<=[2,4]T(1,0)}",
            ),
            (
                "f32[8,6]{1,0}",
                "f32[8,6]{1,0}",
                "{replicated}",
                "{devices=[8,1]7,6,5,4,3,2,1,0}",
            ),
            (
                "f32[5,3,4]{2,1,0}",
                "f32[5,3,4]{0,1,2}",
                "{devices=[2,1,2,2]<=[8] last_tile_dim_replicate}",
                "{maximal device=5}",
            ),
            (
                "f32[9]{0}",
                "f32[9]{0}",
                "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
                "{devices=[8]<=[8]}",
            ),
        ];
        for (src_text, dst_text, from_text, to_text) in cases {
            let src: Shape = src_text.parse().unwrap();
            let dst: Shape = dst_text.parse().unwrap();
            let from: HloSharding = from_text.parse().unwrap();
            let to: HloSharding = to_text.parse().unwrap();
            let plan = crate::reshard_plan(&src, &from, &to, Some(8)).unwrap();
            let src_shard = from.shard_shape(&src).unwrap();
            let dst_shard = to.shard_shape(&dst).unwrap();
            let sources = shards(&src, &from, &src_shard, 8);
            let want = shards(&dst, &to, &dst_shard, 8);
            let mut got: Vec<Vec<u8>> = want.iter().map(|b| vec![0; b.len()]).collect();
            execute_plan(&plan, (&from, &src), (&to, &dst), &sources, &mut got).unwrap();
            assert_eq!(got, want, "{from_text} -> {to_text}");
            // Every destination element is covered exactly once.
            let total: i64 = (0..8)
                .filter_map(|d| to.device_box(&dst, d).unwrap())
                .map(|b| b.elements().unwrap() * 4)
                .sum();
            assert_eq!(plan.bytes_moved + plan.bytes_kept, total);
        }
    }
}
