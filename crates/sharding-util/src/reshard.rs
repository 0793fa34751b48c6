//! Resharding: the pieces that move an array from one sharding to another
//! (the report `xla-shape reshard` prints).

use std::fmt;

use schema::Shape;
use serde::Serialize;

use crate::device::{Placement, box_elements, data_bytes};
use crate::error::{ErrorKind, ShardingError};
use crate::sharding::{HloSharding, Kind, SubgroupType};
use crate::table::{header, list, table};

/// One block copied from a source device to a destination device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
///
/// `Display` prints a table of the pieces and the bytes moved and kept;
/// `Serialize` gives `pieces` (`from`, `to`, `offsets`, `limits`, `bytes`),
/// `bytes_moved` and `bytes_kept`.
///
/// ```
/// use sharding_util::{HloSharding, reshard_plan};
///
/// let shape = "f32[8]".parse().unwrap();
/// let from: HloSharding = "{replicated}".parse().unwrap();
/// let to: HloSharding = "{devices=[2]<=[2]}".parse().unwrap();
/// let plan = reshard_plan(&shape, &from, &to, None).unwrap();
/// assert_eq!(
///     plan.to_string(),
///     "from  to  offsets  limits  bytes\n\
///      0     0   [0]      [4]     16\n\
///      1     1   [4]      [8]     16\n\
///      bytes moved 0, bytes kept 32"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
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
        Err(ShardingError::new(
            ErrorKind::Unsupported,
            format!(
                "cannot reshard {s}: only replicated, maximal and tiled shardings (with replicated subgroups) hold plain copies of the data"
            ),
        ))
    }
}

/// The plan that moves `shape` from sharding `from` to sharding `to`, over
/// the device count `from` names, else the one `to` names, else `devices`
/// (a count both name must agree, as validation checks).
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
/// let plan = reshard_plan(&shape, &from, &to, None).unwrap();
/// assert_eq!(plan.pieces.len(), 2);
/// assert_eq!((plan.pieces[0].from, plan.pieces[0].to), (1, 0));
/// assert_eq!((plan.bytes_moved, plan.bytes_kept), (32, 0));
/// ```
///
/// # Errors
///
/// No device count ([`ErrorKind::NoDeviceCount`], naming `to`); either
/// sharding invalid for the shape and device count, or one that does not
/// hold plain data (manual, unreduced, unknown, tuples); byte totals beyond
/// `i64`.
pub fn reshard_plan(
    shape: &Shape,
    from: &HloSharding,
    to: &HloSharding,
    devices: Option<i64>,
) -> Result<ReshardPlan, ShardingError> {
    let num_devices = match from.num_devices() {
        Some(n) => n,
        None => to.device_count(devices)?,
    };
    check_movable(from)?;
    check_movable(to)?;
    from.validate(shape, num_devices)?;
    to.validate(shape, num_devices)?;
    let source = Placement::new(from, shape)?;
    let destination = Placement::new(to, shape)?;
    let shard = source.shard_dims().to_vec();
    let bits = shape_util::element_size_in_bits(shape)
        .map_err(|e| ShardingError::new(ErrorKind::Unsupported, e.to_string()))?;
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
            let bytes = box_elements(&offsets, &limits)
                .and_then(|elements| data_bytes(elements, bits))
                .ok_or_else(|| ShardingError::new(ErrorKind::TooLarge, "piece size overflows"))?;
            let total = if from_device == device {
                &mut plan.bytes_kept
            } else {
                &mut plan.bytes_moved
            };
            *total = total.checked_add(bytes).ok_or_else(|| {
                ShardingError::new(ErrorKind::TooLarge, "the bytes of the pieces overflow")
            })?;
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

impl fmt::Display for ReshardPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rows = vec![header(&["from", "to", "offsets", "limits", "bytes"])];
        rows.extend(self.pieces.iter().map(|p| {
            vec![
                p.from.to_string(),
                p.to.to_string(),
                list(&p.offsets),
                list(&p.limits),
                p.bytes.to_string(),
            ]
        }));
        write!(
            f,
            "{}bytes moved {}, bytes kept {}",
            table(&rows),
            self.bytes_moved,
            self.bytes_kept
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn pieces_stay_local_when_the_destination_holds_them() {
        let shape: Shape = "f32[8,8]".parse().unwrap();
        let from: HloSharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"
            .parse()
            .unwrap();
        let to: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
        let plan = reshard_plan(&shape, &from, &to, None).unwrap();
        assert_eq!(plan.bytes_moved, 0);
        assert!(plan.pieces.iter().all(|p| p.from == p.to));
    }

    #[test]
    fn the_device_count_is_named_or_given() {
        let shape: Shape = "f32[8]".parse().unwrap();
        let replicated: HloSharding = "{replicated}".parse().unwrap();
        let error = reshard_plan(&shape, &replicated, &replicated, None).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::NoDeviceCount);
        let plan = reshard_plan(&shape, &replicated, &replicated, Some(3)).unwrap();
        assert_eq!((plan.pieces.len(), plan.bytes_kept), (3, 96));
    }
}
