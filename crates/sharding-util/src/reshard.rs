//! Resharding: the pieces that move an array from one sharding to another
//! (the report `xla-shape reshard` prints).

use std::fmt;

use schema::Shape;
use serde::{Deserialize, Serialize};

use crate::device::{Placement, box_elements, data_bytes};
use crate::error::{ErrorKind, ShardingError};
use crate::shard_report::MAX_LISTED_DEVICES;
use crate::sharding::{HloSharding, Kind, SubgroupType};
use crate::table::{header, list, write_table};

/// The most pieces a [`ReshardPlan`] holds; a plan of more is refused
/// before it is built (each piece costs about 100 bytes plus its offsets
/// and limits).
pub const MAX_PIECES: i64 = 1 << 20;

/// One block copied from a source device to a destination device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
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
/// hold plain data (manual, unreduced, unknown, tuples); more than
/// [`MAX_LISTED_DEVICES`] devices or a plan of more than [`MAX_PIECES`]
/// pieces ([`ErrorKind::TooLarge`], before the plan is built); byte sizes
/// or totals beyond `i64`, naming the piece or the total.
pub fn reshard_plan(
    shape: &Shape,
    from: &HloSharding,
    to: &HloSharding,
    devices: Option<i64>,
) -> Result<ReshardPlan, ShardingError> {
    reshard_plan_between(shape, (from, None), (to, None), devices)
}

/// [`reshard_plan`] between two device assignments: each sharding's
/// device numbers are positions in its list of device ids (jax's
/// `mesh.devices.flat` ids, what `_to_xla_hlo_sharding` numbers), `None`
/// for the ids `0..n` themselves. Pieces go from and to device ids; a piece
/// is kept where the destination device itself holds the source tile
/// (whatever its position in the source mesh), and the totals count
/// devices, not positions.
///
/// ```
/// use sharding_util::{HloSharding, reshard_plan_between};
///
/// // `Mesh(devs[:2])` to `Mesh(devs[[1, 0]])`, both `P("a")`: jax's
/// // shardings are the same positions, the devices are swapped.
/// let shape = "f32[8]".parse().unwrap();
/// let split: HloSharding = "{devices=[2]<=[2]}".parse().unwrap();
/// let plan =
///     reshard_plan_between(&shape, (&split, Some(&[0, 1])), (&split, Some(&[1, 0])), None)
///         .unwrap();
/// assert_eq!((plan.pieces[0].from, plan.pieces[0].to), (0, 1));
/// assert_eq!((plan.bytes_moved, plan.bytes_kept), (32, 0));
/// ```
///
/// # Errors
///
/// Those of [`reshard_plan`], and a list of ids whose length is not the
/// device count or that names a device twice ([`ErrorKind::Mismatch`]).
pub fn reshard_plan_between(
    shape: &Shape,
    (from, from_ids): (&HloSharding, Option<&[i64]>),
    (to, to_ids): (&HloSharding, Option<&[i64]>),
    devices: Option<i64>,
) -> Result<ReshardPlan, ShardingError> {
    let num_devices = match from.num_devices() {
        Some(n) => n,
        None => to.device_count(devices.or_else(|| {
            to_ids
                .or(from_ids)
                .and_then(|ids| i64::try_from(ids.len()).ok())
        }))?,
    };
    check_movable(from)?;
    check_movable(to)?;
    from.validate(shape, num_devices)?;
    to.validate(shape, num_devices)?;
    let source = Placement::new(from, shape)?;
    let destination = Placement::new(to, shape)?;
    let pieces = count_pieces(&source, &destination, num_devices)?;
    let mut walk = Walk {
        shape,
        bits: shape_util::element_size_in_bits(shape)
            .map_err(|e| ShardingError::new(ErrorKind::Unsupported, e.to_string()))?,
        holders: Holders::new(from, shape.dimensions.len(), num_devices),
        shard: source.shard_dims().to_vec(),
        source,
        destination,
        from_ids: DeviceIds::new(from_ids, num_devices, "source")?,
        to_ids: DeviceIds::new(to_ids, num_devices, "destination")?,
        plan: ReshardPlan {
            pieces: Vec::with_capacity(usize::try_from(pieces).unwrap_or(0)),
            ..ReshardPlan::default()
        },
    };
    let mut scratch = Scratch::new(shape.dimensions.len());
    for position in 0..num_devices {
        walk.pieces_to(position, &mut scratch)?;
    }
    Ok(walk.plan)
}

/// Who holds each source tile: its flat grid position plus `0..per_tile`
/// (the subgroup dimensions are the trailing, fastest ones).
struct Holders<'a> {
    from: &'a HloSharding,
    /// The flat grid stride of each data dimension.
    inner: Vec<i64>,
    /// How many devices a piece's sender is chosen among.
    count: i64,
}

impl<'a> Holders<'a> {
    fn new(from: &'a HloSharding, rank: usize, num_devices: i64) -> Self {
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
        let count = match from.kind {
            Kind::Replicated => num_devices,
            _ => per_tile,
        };
        Self { from, inner, count }
    }

    /// The position of the `k`-th holder of source tile `tile`.
    fn holder(&self, tile: &[i64], k: i64) -> i64 {
        match &self.from.kind {
            Kind::Maximal(d) => *d,
            Kind::Tiled { tiles, .. } => {
                let flat: i64 = tile.iter().zip(&self.inner).map(|(t, s)| t * s).sum();
                tiles.device_at_flat(flat + k)
            }
            _ => k,
        }
    }

    /// The position sending source tile `tile` to destination `position`.
    fn sender(&self, tile: &[i64], position: i64) -> i64 {
        self.holder(tile, position % self.count)
    }
}

/// The plan being built, destination position by destination position.
struct Walk<'a> {
    shape: &'a Shape,
    bits: i64,
    source: Placement<'a>,
    destination: Placement<'a>,
    /// The source shard's dimensions.
    shard: Vec<i64>,
    holders: Holders<'a>,
    from_ids: DeviceIds<'a>,
    to_ids: DeviceIds<'a>,
    plan: ReshardPlan,
}

/// The boxes a [`Walk`] fills for each destination position, reused from
/// position to position.
struct Scratch {
    dst: [Vec<i64>; 3],
    own: [Vec<i64>; 3],
    lo: Vec<i64>,
    hi: Vec<i64>,
    tile: Vec<i64>,
}

impl Scratch {
    fn new(rank: usize) -> Self {
        let v = || vec![0; rank];
        Self {
            dst: [v(), v(), v()],
            own: [v(), v(), v()],
            lo: v(),
            hi: v(),
            tile: v(),
        }
    }
}

impl Walk<'_> {
    /// Adds the pieces of destination `position`'s box: one per source tile
    /// it overlaps, row-major.
    fn pieces_to(&mut self, position: i64, s: &mut Scratch) -> Result<(), ShardingError> {
        let rank = self.shard.len();
        let [dst_tile, dst_off, dst_lim] = &mut s.dst;
        if !self
            .destination
            .box_into(position, dst_tile, dst_off, dst_lim)?
        {
            return Ok(());
        }
        let Some(total) = overlapped(&self.shard, dst_off, dst_lim, &mut s.lo, &mut s.hi) else {
            return Ok(());
        };
        let device = self.to_ids.id(position);
        // The source tile the destination device holds itself, if any.
        let [own_tile, own_off, own_lim] = &mut s.own;
        let holds = match self.from_ids.position(device) {
            Some(p) => self.source.box_into(p, own_tile, own_off, own_lim)?,
            None => false,
        };
        let tile = &mut s.tile;
        for k in 0..total {
            let mut rest = k;
            for i in (0..rank).rev() {
                let span = s.hi[i] - s.lo[i];
                tile[i] = s.lo[i] + rest % span;
                rest /= span;
            }
            let (offsets, limits): (Vec<i64>, Vec<i64>) = (0..rank)
                .map(|i| {
                    let size = self.shard[i];
                    (
                        tile[i].saturating_mul(size).max(dst_off[i]),
                        tile[i]
                            .saturating_add(1)
                            .saturating_mul(size)
                            .min(dst_lim[i]),
                    )
                })
                .unzip();
            let from_device =
                if holds && (self.holders.from.tile_assignment().is_none() || own_tile == tile) {
                    device
                } else {
                    self.from_ids.id(self.holders.sender(tile, position))
                };
            self.push(from_device, device, offsets, limits)?;
        }
        Ok(())
    }

    /// Adds the piece `[offsets, limits)` from `from` to `to`, counting its
    /// bytes as kept or moved.
    fn push(
        &mut self,
        from: i64,
        to: i64,
        offsets: Vec<i64>,
        limits: Vec<i64>,
    ) -> Result<(), ShardingError> {
        let bytes = box_elements(&offsets, &limits)
            .and_then(|elements| data_bytes(elements, self.bits))
            .ok_or_else(|| {
                ShardingError::new(
                    ErrorKind::TooLarge,
                    format!(
                        "the bytes of the piece {} to {} of {} are beyond i64",
                        list(&offsets),
                        list(&limits),
                        self.shape.human_string()
                    ),
                )
            })?;
        let (what, total) = if from == to {
            ("kept", &mut self.plan.bytes_kept)
        } else {
            ("moved", &mut self.plan.bytes_moved)
        };
        *total = total.checked_add(bytes).ok_or_else(|| {
            ShardingError::new(
                ErrorKind::TooLarge,
                format!("the bytes {what} are beyond i64: {total} + {bytes} for device {to}"),
            )
        })?;
        self.plan.pieces.push(Piece {
            from,
            to,
            offsets,
            limits,
            bytes,
        });
        Ok(())
    }
}

/// A device assignment: the device id of each position (`None`: the
/// positions themselves), and the position of each id.
struct DeviceIds<'a> {
    ids: Option<&'a [i64]>,
    count: i64,
    positions: std::collections::HashMap<i64, i64>,
}

impl<'a> DeviceIds<'a> {
    /// The assignment `ids` of `num_devices` positions; `what` names it
    /// in errors.
    fn new(ids: Option<&'a [i64]>, num_devices: i64, what: &str) -> Result<Self, ShardingError> {
        let mut positions = std::collections::HashMap::new();
        if let Some(ids) = ids {
            if i64::try_from(ids.len()).ok() != Some(num_devices) {
                return Err(ShardingError::new(
                    ErrorKind::Mismatch,
                    format!(
                        "the {what} device ids {} are {} devices, the sharding {num_devices}",
                        list(ids),
                        ids.len()
                    ),
                ));
            }
            for (p, &id) in (0_i64..).zip(ids) {
                if positions.insert(id, p).is_some() {
                    return Err(ShardingError::new(
                        ErrorKind::Mismatch,
                        format!("the {what} device ids {} name device {id} twice", list(ids)),
                    ));
                }
            }
        }
        Ok(Self {
            ids,
            count: num_devices,
            positions,
        })
    }

    /// The device id at `position`.
    fn id(&self, position: i64) -> i64 {
        self.ids
            .and_then(|ids| ids.get(usize::try_from(position).ok()?).copied())
            .unwrap_or(position)
    }

    /// The position of device `id`, if the assignment has it.
    fn position(&self, id: i64) -> Option<i64> {
        match self.ids {
            Some(_) => self.positions.get(&id).copied(),
            None => (0..self.count).contains(&id).then_some(id),
        }
    }
}

/// The source tiles a destination box `[off, lim)` overlaps: `[lo, hi)`
/// per dimension (source shard sizes `shard`), and how many they are;
/// `None` for an empty box.
fn overlapped(
    shard: &[i64],
    off: &[i64],
    lim: &[i64],
    lo: &mut [i64],
    hi: &mut [i64],
) -> Option<i64> {
    let mut count: i64 = 1;
    for i in 0..shard.len() {
        if off[i] >= lim[i] {
            return None;
        }
        let s = shard[i].max(1);
        lo[i] = off[i] / s;
        hi[i] = (lim[i] - 1) / s + 1;
        // At most one tile per element: the product is at most the box's
        // elements, or saturates and is refused by the caller's cap.
        count = count.saturating_mul(hi[i] - lo[i]);
    }
    Some(count)
}

/// How many pieces the plan over `num_devices` devices has, refused
/// (before anything is allocated) beyond [`MAX_PIECES`] or
/// [`MAX_LISTED_DEVICES`] devices.
fn count_pieces(
    source: &Placement<'_>,
    destination: &Placement<'_>,
    num_devices: i64,
) -> Result<i64, ShardingError> {
    if num_devices > MAX_LISTED_DEVICES {
        return Err(ShardingError::new(
            ErrorKind::TooLarge,
            format!(
                "{num_devices} devices are more than the {MAX_LISTED_DEVICES} a reshard plan covers"
            ),
        ));
    }
    let shard = source.shard_dims();
    let rank = shard.len();
    let (mut tile, mut off, mut lim) = (vec![0; rank], vec![0; rank], vec![0; rank]);
    let (mut lo, mut hi) = (vec![0; rank], vec![0; rank]);
    let mut pieces: i64 = 0;
    for device in 0..num_devices {
        if destination.box_into(device, &mut tile, &mut off, &mut lim)? {
            let count = overlapped(shard, &off, &lim, &mut lo, &mut hi).unwrap_or(0);
            pieces = pieces.saturating_add(count);
        }
    }
    if pieces > MAX_PIECES {
        let count = if pieces == i64::MAX {
            "more than i64 counts".to_owned()
        } else {
            pieces.to_string()
        };
        return Err(ShardingError::new(
            ErrorKind::TooLarge,
            format!("the plan has {count} pieces, more than the {MAX_PIECES} a reshard plan holds"),
        ));
    }
    Ok(pieces)
}

impl fmt::Display for ReshardPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_table(f, self.pieces.len() + 1, |i, cells| {
            let Some(p) = i.checked_sub(1).map(|i| &self.pieces[i]) else {
                cells.extend(header(&["from", "to", "offsets", "limits", "bytes"]));
                return;
            };
            cells.extend([
                p.from.to_string(),
                p.to.to_string(),
                list(&p.offsets),
                list(&p.limits),
                p.bytes.to_string(),
            ]);
        })?;
        write!(
            f,
            "bytes moved {}, bytes kept {}",
            self.bytes_moved, self.bytes_kept
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

    fn plan(
        shape: &str,
        from: &str,
        to: &str,
        devices: Option<i64>,
    ) -> Result<ReshardPlan, ShardingError> {
        let shape: Shape = shape.parse().unwrap();
        reshard_plan(
            &shape,
            &from.parse().unwrap(),
            &to.parse().unwrap(),
            devices,
        )
    }

    #[test]
    fn element_counts_beyond_i64_are_errors_naming_the_piece() {
        // 3 * 6148914691236517206 is 2^64 + 2: wrapped, it would be 8 bytes.
        let error = plan(
            "f32[3,6148914691236517206]",
            "{replicated}",
            "{replicated}",
            Some(1),
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TooLarge);
        assert_eq!(
            error.message(),
            "the bytes of the piece [0,0] to [3,6148914691236517206] of f32[3,6148914691236517206] are beyond i64"
        );
    }

    #[test]
    fn byte_totals_beyond_i64_are_errors_naming_the_total() {
        // Each of the 8 devices receives 7 blocks of 2^59 bytes from the others.
        let error = plan(
            "u8[4611686018427387904]",
            "{devices=[8]<=[8]}",
            "{replicated}",
            Some(8),
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TooLarge);
        assert_eq!(
            error.message(),
            "the bytes moved are beyond i64: 8646911284551352320 + 576460752303423488 for device 2"
        );
    }

    #[test]
    fn device_counts_beyond_the_listing_cap_are_refused() {
        let error = plan(
            "f32[8]",
            "{replicated}",
            "{replicated}",
            Some(2_147_483_647),
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TooLarge);
        assert_eq!(
            error.message(),
            "2147483647 devices are more than the 1048576 a reshard plan covers"
        );
        // The cap is the shard report's: one more device than it lists.
        let error = plan(
            "f32[8]",
            "{replicated}",
            "{replicated}",
            Some(MAX_LISTED_DEVICES + 1),
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TooLarge);
        assert_eq!(
            plan(
                "f32[8]",
                "{replicated}",
                "{maximal device=0}",
                Some(MAX_LISTED_DEVICES)
            )
            .unwrap()
            .pieces
            .len(),
            1
        );
    }

    #[test]
    fn plans_of_more_pieces_than_the_cap_are_refused_before_they_are_built() {
        // Rows to columns: every device receives one piece from every other.
        let error = plan(
            "f32[2000,2000]",
            "{devices=[2000,1]<=[2000]}",
            "{devices=[1,2000]<=[2000]}",
            None,
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TooLarge);
        assert_eq!(
            error.message(),
            "the plan has 4000000 pieces, more than the 1048576 a reshard plan holds"
        );
        let small = plan(
            "f32[64,64]",
            "{devices=[64,1]<=[64]}",
            "{devices=[1,64]<=[64]}",
            None,
        )
        .unwrap();
        assert_eq!(small.pieces.len(), 64 * 64);
        assert_eq!(small.bytes_moved + small.bytes_kept, 64 * 64 * 4);
        assert_eq!(small.bytes_kept, 64 * 4);
    }

    #[test]
    fn device_ids_of_the_wrong_length_or_twice_are_errors() {
        let shape: Shape = "f32[8]".parse().unwrap();
        let split: HloSharding = "{devices=[2]<=[2]}".parse().unwrap();
        let error = reshard_plan_between(&shape, (&split, Some(&[0, 1, 2])), (&split, None), None)
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Mismatch);
        assert_eq!(
            error.message(),
            "the source device ids [0,1,2] are 3 devices, the sharding 2"
        );
        let error = reshard_plan_between(&shape, (&split, None), (&split, Some(&[4, 4])), None)
            .unwrap_err();
        assert_eq!(
            error.message(),
            "the destination device ids [4,4] name device 4 twice"
        );
        // A replicated source over other devices than the destination's:
        // every byte moves; the count comes from the ids.
        let replicated: HloSharding = "{replicated}".parse().unwrap();
        let plan = reshard_plan_between(
            &shape,
            (&replicated, Some(&[0, 1])),
            (&split, Some(&[2, 3])),
            None,
        )
        .unwrap();
        assert_eq!((plan.bytes_moved, plan.bytes_kept), (32, 0));
        assert_eq!(
            plan.pieces
                .iter()
                .map(|p| (p.from, p.to))
                .collect::<Vec<_>>(),
            [(0, 2), (1, 3)]
        );
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
