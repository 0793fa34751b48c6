//! Resharding: the pieces that move an array from one sharding to another,
//! and their execution over per-device buffers.

use relayout::relayout_part;
use schema::Shape;
use stride_util::{IndexItem, StridedView};

use crate::device::{DeviceBox, Placement, data_bytes};
use crate::error::ShardingError;
use crate::sharding::{HloSharding, Kind, SubgroupType};

/// One block copied from a source device to a destination device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The device that sends the block (under the source sharding).
    pub from: i64,
    /// The device that receives it (under the destination sharding).
    pub to: i64,
    /// The block's first index per dimension, in the global array.
    pub offsets: Vec<i64>,
    /// One past its last index per dimension.
    pub limits: Vec<i64>,
    /// The bytes of the block.
    pub bytes: i64,
}

/// The pieces of a reshard: every destination device's box is covered by
/// its pieces exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReshardPlan {
    /// The pieces, by destination device, then by source tile (row-major).
    pub pieces: Vec<Piece>,
    /// The bytes of the pieces between different devices.
    pub bytes_moved: i64,
    /// The bytes of the pieces a device already holds.
    pub bytes_kept: i64,
}

/// Only shardings whose devices hold copies or blocks of the data can be
/// resharded.
fn check_movable(s: &HloSharding) -> Result<(), ShardingError> {
    let ok = match &s.kind {
        Kind::Replicated | Kind::Maximal(_) => true,
        Kind::Tiled { subgroups, .. } => subgroups.iter().all(|&t| t == SubgroupType::Replicated),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(ShardingError::new(format!(
            "cannot reshard {s}: only replicated, maximal and tiled shardings (with replicated subgroups) hold plain copies of the data"
        )))
    }
}

/// The plan that moves `shape` from sharding `from` to sharding `to` over
/// `num_devices` devices (shardings that name their count must agree).
///
/// Each destination device's box is split along the source tiles; a piece
/// is taken from the destination device itself when it holds that source
/// tile, else from one of the tile's holders, chosen as
/// `holders[to mod holders.len()]` (deterministic, spread over replicas).
/// Work and memory are proportional to the pieces (O(rank) per piece on
/// iota tile assignments).
///
/// ```
/// use sharding_util::{HloSharding, reshard_plan};
///
/// let shape = "f32[8]".parse().unwrap();
/// let from: HloSharding = "{devices=[2]0,1}".parse().unwrap();
/// let to: HloSharding = "{devices=[2]1,0}".parse().unwrap();
/// let plan = reshard_plan(&shape, &from, &to, 2).unwrap();
/// assert_eq!(plan.pieces.len(), 2);
/// assert_eq!((plan.pieces[0].from, plan.pieces[0].to), (1, 0));
/// assert_eq!((plan.bytes_moved, plan.bytes_kept), (32, 0));
/// ```
///
/// # Errors
///
/// Either sharding invalid for the shape and device count, or one that
/// does not hold plain data (manual, unreduced, unknown, tuples).
pub fn reshard_plan(
    shape: &Shape,
    from: &HloSharding,
    to: &HloSharding,
    num_devices: i64,
) -> Result<ReshardPlan, ShardingError> {
    check_movable(from)?;
    check_movable(to)?;
    from.validate(shape, num_devices)?;
    to.validate(shape, num_devices)?;
    let source = Placement::new(from, shape)?;
    let destination = Placement::new(to, shape)?;
    let shard = source.shard_dims().to_vec();
    let bits =
        shape_util::element_size_in_bits(shape).map_err(|e| ShardingError::new(e.to_string()))?;
    let dims = &shape.dimensions;
    let rank = dims.len();
    // Holders of a source tile: its flat grid position plus 0..per_tile
    // (the subgroup dimensions are the trailing, fastest ones).
    let (per_tile, inner): (i64, Vec<i64>) = match from.tile_assignment() {
        Some(tiles) => {
            let grid = tiles.dimensions();
            (
                grid[rank..].iter().product(),
                (0..rank).map(|i| grid[i + 1..].iter().product()).collect(),
            )
        }
        None => (1, vec![0; rank]),
    };
    let holder = |tile: &[i64], k: i64| -> i64 {
        match &from.kind {
            Kind::Maximal(d) => *d,
            Kind::Tiled { tiles, .. } => {
                let flat: i64 = tile.iter().zip(&inner).map(|(t, s)| t * s).sum();
                tiles.device_at_flat(flat + k)
            }
            _ => k,
        }
    };
    let holders = match from.kind {
        Kind::Replicated => num_devices,
        _ => per_tile,
    };
    let mut plan = ReshardPlan::default();
    let (mut dst_tile, mut dst_off, mut dst_lim) = (vec![0; rank], vec![0; rank], vec![0; rank]);
    let (mut own_tile, mut own_off, mut own_lim) = (vec![0; rank], vec![0; rank], vec![0; rank]);
    let (mut lo, mut hi, mut tile) = (vec![0; rank], vec![0; rank], vec![0; rank]);
    for device in 0..num_devices {
        if !destination.box_into(device, &mut dst_tile, &mut dst_off, &mut dst_lim)? {
            continue;
        }
        if dst_off.iter().zip(&dst_lim).any(|(o, l)| o >= l) {
            continue;
        }
        let holds = source.box_into(device, &mut own_tile, &mut own_off, &mut own_lim)?;
        let mut total: i64 = 1;
        for i in 0..rank {
            let s = shard[i].max(1);
            lo[i] = dst_off[i] / s;
            hi[i] = (dst_lim[i] - 1) / s + 1;
            total *= hi[i] - lo[i];
        }
        for k in 0..total {
            let mut rest = k;
            for i in (0..rank).rev() {
                let span = hi[i] - lo[i];
                tile[i] = lo[i] + rest % span;
                rest /= span;
            }
            let mut offsets = Vec::with_capacity(rank);
            let mut limits = Vec::with_capacity(rank);
            for i in 0..rank {
                let s = shard[i];
                offsets.push((tile[i] * s).max(dst_off[i]));
                limits.push(((tile[i] + 1) * s).min(dst_lim[i]));
            }
            if offsets.iter().zip(&limits).any(|(o, l)| o >= l) {
                continue;
            }
            let from_device = if holds && (from.tile_assignment().is_none() || own_tile == tile) {
                device
            } else {
                holder(&tile, device % holders)
            };
            let elements = offsets.iter().zip(&limits).map(|(o, l)| l - o).product();
            let bytes = data_bytes(elements, bits)
                .ok_or_else(|| ShardingError::new("piece size overflows"))?;
            if from_device == device {
                plan.bytes_kept += bytes;
            } else {
                plan.bytes_moved += bytes;
            }
            plan.pieces.push(Piece {
                from: from_device,
                to: device,
                offsets,
                limits,
                bytes,
            });
        }
    }
    Ok(plan)
}

/// The view of a piece inside a device's shard buffer.
fn piece_view(shard: &Shape, own: &DeviceBox, piece: &Piece) -> Result<StridedView, ShardingError> {
    let view = StridedView::from_xla_shape(shard).map_err(|e| ShardingError::new(e.to_string()))?;
    let items: Vec<IndexItem> = piece
        .offsets
        .iter()
        .zip(&piece.limits)
        .zip(&own.offsets)
        .map(|((&o, &l), &base)| IndexItem::slice(Some(o - base), Some(l - base), None))
        .collect();
    view.index(&items)
        .map_err(|e| ShardingError::new(e.to_string()))
}

/// Executes `plan` (from [`reshard_plan`] for `shape`, `from`, `to`) over
/// per-device buffers: `sources[d]` is device `d`'s shard of `from` in the
/// layout of `src_shard` (= `from.shard_shape` of the array in its source
/// layout), `destinations[d]` device `d`'s shard of `to` in the layout of
/// `dst_shard`. Every piece is copied by the relayout engine.
///
/// # Errors
///
/// A buffer missing or too short for its shard, a tiled or sub-byte
/// layout, or a plan that does not fit the shardings.
pub fn execute_plan(
    plan: &ReshardPlan,
    shape: &Shape,
    (from, src_shard): (&HloSharding, &Shape),
    (to, dst_shard): (&HloSharding, &Shape),
    sources: &[Vec<u8>],
    destinations: &mut [Vec<u8>],
) -> Result<(), ShardingError> {
    let bits =
        shape_util::element_size_in_bits(shape).map_err(|e| ShardingError::new(e.to_string()))?;
    if bits % 8 != 0 {
        return Err(ShardingError::new(format!(
            "executing a reshard of {}-bit elements is not supported",
            bits
        )));
    }
    let size = usize::try_from(bits / 8).map_err(|_| ShardingError::new("element size"))?;
    // The pieces are parts of one copy: stores stream if the whole is large.
    let whole_bytes = plan
        .pieces
        .iter()
        .map(|piece| piece.bytes.unsigned_abs())
        .fold(0, u64::saturating_add);
    for piece in &plan.pieces {
        let missing = |d: i64| {
            ShardingError::new(format!("device {d} holds nothing of the piece it is given"))
        };
        let src_box = from
            .device_box(shape, piece.from)?
            .ok_or_else(|| missing(piece.from))?;
        let dst_box = to
            .device_box(shape, piece.to)?
            .ok_or_else(|| missing(piece.to))?;
        let src_view = piece_view(src_shard, &src_box, piece)?;
        let dst_view = piece_view(dst_shard, &dst_box, piece)?;
        let buffer = |d: i64| usize::try_from(d).ok();
        let src = buffer(piece.from)
            .and_then(|d| sources.get(d))
            .ok_or_else(|| {
                ShardingError::new(format!("no source buffer for device {}", piece.from))
            })?;
        let dst = buffer(piece.to)
            .and_then(|d| destinations.get_mut(d))
            .ok_or_else(|| {
                ShardingError::new(format!("no destination buffer for device {}", piece.to))
            })?;
        relayout_part(src, &src_view, dst, &dst_view, size, whole_bytes)
            .map_err(|e| ShardingError::new(e.to_string()))?;
    }
    Ok(())
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
            let plan = reshard_plan(&src, &from, &to, 8).unwrap();
            let src_shard = from.shard_shape(&src).unwrap();
            let dst_shard = to.shard_shape(&dst).unwrap();
            let sources = shards(&src, &from, &src_shard, 8);
            let want = shards(&dst, &to, &dst_shard, 8);
            let mut got: Vec<Vec<u8>> = want.iter().map(|b| vec![0; b.len()]).collect();
            execute_plan(
                &plan,
                &src,
                (&from, &src_shard),
                (&to, &dst_shard),
                &sources,
                &mut got,
            )
            .unwrap();
            assert_eq!(got, want, "{from_text} -> {to_text}");
            // Every destination element is covered exactly once.
            let total: i64 = (0..8)
                .filter_map(|d| to.device_box(&dst, d).unwrap())
                .map(|b| b.elements() * 4)
                .sum();
            assert_eq!(plan.bytes_moved + plan.bytes_kept, total);
        }
    }

    #[test]
    fn pieces_stay_local_when_the_destination_holds_them() {
        let shape: Shape = "f32[8,8]".parse().unwrap();
        let from: HloSharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"
            .parse()
            .unwrap();
        let to: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
        let plan = reshard_plan(&shape, &from, &to, 8).unwrap();
        assert_eq!(plan.bytes_moved, 0);
        assert!(plan.pieces.iter().all(|p| p.from == p.to));
    }
}
