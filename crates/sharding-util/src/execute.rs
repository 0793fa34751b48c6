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

    /// A sharding written out by the test, so that each device's block
    /// follows from XLA's rule (tile `t` of a dimension of `n` split `g`
    /// ways holds `[t*ceil(n/g), min((t+1)*ceil(n/g), n))`, the partitioner's
    /// padded shards) without the crate's own placement.
    enum Spec {
        Replicated,
        Maximal(i64),
        /// The tile grid over the array's dimensions, the copies of each
        /// tile (a trailing replicated grid dimension when more than 1),
        /// and the devices in grid order.
        Tiled(&'static [i64], i64, &'static [i64]),
    }

    impl Spec {
        fn text(&self) -> String {
            let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
            match self {
                Spec::Replicated => "{replicated}".to_owned(),
                Spec::Maximal(d) => format!("{{maximal device={d}}}"),
                Spec::Tiled(grid, 1, devices) => {
                    format!("{{devices=[{}]{}}}", join(grid), join(devices))
                }
                Spec::Tiled(grid, copies, devices) => format!(
                    "{{devices=[{},{copies}]{} last_tile_dim_replicate}}",
                    join(grid),
                    join(devices)
                ),
            }
        }

        /// Device `d`'s block of `dims`: `(offsets, limits)`, or `None`.
        fn block(&self, dims: &[i64], d: i64) -> Option<(Vec<i64>, Vec<i64>)> {
            let (grid, copies, devices) = match self {
                Spec::Replicated => return Some((vec![0; dims.len()], dims.to_vec())),
                Spec::Maximal(m) => return (*m == d).then(|| (vec![0; dims.len()], dims.to_vec())),
                Spec::Tiled(grid, copies, devices) => (grid, copies, devices),
            };
            let position = i64::try_from(devices.iter().position(|&x| x == d)?).unwrap();
            let mut rest = position / copies;
            let mut tile = vec![0; dims.len()];
            for (slot, &g) in tile.iter_mut().zip(grid.iter()).rev() {
                *slot = rest % g;
                rest /= g;
            }
            let size = |i: usize| (dims[i] + grid[i] - 1) / grid[i];
            let offsets = (0..dims.len())
                .map(|i| (tile[i] * size(i)).min(dims[i]))
                .collect();
            let limits = (0..dims.len())
                .map(|i| ((tile[i] + 1) * size(i)).min(dims[i]))
                .collect();
            Some((offsets, limits))
        }
    }

    /// The value at a global index (row-major number).
    fn value(dims: &[i64], index: &[i64]) -> u32 {
        let mut v = 0;
        for (d, i) in dims.iter().zip(index) {
            v = v * d + i;
        }
        u32::try_from(v).unwrap()
    }

    /// Each device's shard buffer of `spec` (shard shape `shard`, in its
    /// layout) filled with the global values, padding zero (naive: element
    /// by element).
    fn shards(shape: &Shape, spec: &Spec, shard: &Shape, n: i64) -> Vec<Vec<u8>> {
        let dims = &shape.dimensions;
        let view = StridedView::from_xla_shape(shard).unwrap();
        let len = usize::try_from(shard.dimensions.iter().product::<i64>()).unwrap() * 4;
        (0..n)
            .map(|d| {
                let mut buf = vec![0u8; len];
                if let Some((offsets, limits)) = spec.block(dims, d) {
                    let sizes: Vec<i64> = offsets.iter().zip(&limits).map(|(o, l)| l - o).collect();
                    let count: i64 = sizes.iter().product();
                    for k in 0..count {
                        let mut local = vec![0; sizes.len()];
                        let mut rest = k;
                        for (slot, &z) in local.iter_mut().zip(&sizes).rev() {
                            *slot = rest % z;
                            rest /= z;
                        }
                        let global: Vec<i64> =
                            local.iter().zip(&offsets).map(|(l, o)| l + o).collect();
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
            // {devices=[2,4]<=[8]} to {devices=[4,2]<=[2,4]T(1,0)}.
            (
                "f32[7,9]{1,0}",
                "f32[7,9]{0,1}",
                Spec::Tiled(&[2, 4], 1, &[0, 1, 2, 3, 4, 5, 6, 7]),
                Spec::Tiled(&[4, 2], 1, &[0, 4, 1, 5, 2, 6, 3, 7]),
            ),
            (
                "f32[8,6]{1,0}",
                "f32[8,6]{1,0}",
                Spec::Replicated,
                Spec::Tiled(&[8, 1], 1, &[7, 6, 5, 4, 3, 2, 1, 0]),
            ),
            (
                "f32[5,3,4]{2,1,0}",
                "f32[5,3,4]{0,1,2}",
                Spec::Tiled(&[2, 1, 2], 2, &[0, 1, 2, 3, 4, 5, 6, 7]),
                Spec::Maximal(5),
            ),
            // {devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate} to {devices=[8]<=[8]}.
            (
                "f32[9]{0}",
                "f32[9]{0}",
                Spec::Tiled(&[4], 2, &[0, 4, 1, 5, 2, 6, 3, 7]),
                Spec::Tiled(&[8], 1, &[0, 1, 2, 3, 4, 5, 6, 7]),
            ),
        ];
        for (src_text, dst_text, from_spec, to_spec) in cases {
            let src: Shape = src_text.parse().unwrap();
            let dst: Shape = dst_text.parse().unwrap();
            let (from_text, to_text) = (from_spec.text(), to_spec.text());
            let from: HloSharding = from_text.parse().unwrap();
            let to: HloSharding = to_text.parse().unwrap();
            let plan = crate::reshard_plan(&src, &from, &to, Some(8)).unwrap();
            let src_shard = from.shard_shape(&src).unwrap();
            let dst_shard = to.shard_shape(&dst).unwrap();
            let sources = shards(&src, &from_spec, &src_shard, 8);
            let want = shards(&dst, &to_spec, &dst_shard, 8);
            let mut got: Vec<Vec<u8>> = want.iter().map(|b| vec![0xa5; b.len()]).collect();
            // Devices that hold nothing keep their bytes.
            for (d, buffer) in (0..8).zip(got.iter_mut()) {
                if to_spec.block(&dst.dimensions, d).is_none() {
                    buffer.fill(0);
                }
            }
            execute_plan(&plan, (&from, &src), (&to, &dst), &sources, &mut got).unwrap();
            assert_eq!(got, want, "{from_text} -> {to_text}");
            // Every destination element is covered exactly once.
            let total: i64 = (0..8)
                .filter_map(|d| to_spec.block(&dst.dimensions, d))
                .map(|(o, l)| o.iter().zip(&l).map(|(o, l)| l - o).product::<i64>() * 4)
                .sum();
            assert_eq!(plan.bytes_moved + plan.bytes_kept, total);
        }
    }
}
