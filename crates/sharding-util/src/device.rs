//! Per-device answers: validation against a shape and a device count, the
//! shard shape, each device's box of the global array, the devices of a
//! tile and the replication groups.

use std::collections::{HashMap, HashSet};

use schema::Shape;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, ShardingError};
use crate::sharding::{HloSharding, Kind, SubgroupType};
use crate::tile_assignment::{Devices, MAX_DEVICES};

/// The block of the global array a device holds: `[offsets, limits)` per
/// dimension (empty where `offsets == limits`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DeviceBox {
    /// The device.
    pub device: i64,
    /// The device's tile: its index over the data dimensions of the grid
    /// (all zeros for a sharding that does not tile).
    pub tile: Vec<i64>,
    /// The first index held, per dimension.
    pub offsets: Vec<i64>,
    /// One past the last index held, per dimension.
    pub limits: Vec<i64>,
}

impl DeviceBox {
    /// How many elements the box holds (`None` beyond `i64`).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// let b = s.device_box(&"f32[7,9]".parse().unwrap(), 5).unwrap().unwrap();
    /// assert_eq!(b.elements(), Some(9));
    /// ```
    pub fn elements(&self) -> Option<i64> {
        box_elements(&self.offsets, &self.limits)
    }
}

/// The elements of the box `[offsets, limits)` (`None` beyond `i64`; an
/// empty extent makes 0 whatever the others are).
pub(crate) fn box_elements(offsets: &[i64], limits: &[i64]) -> Option<i64> {
    let mut extents = offsets.iter().zip(limits).map(|(o, l)| l - o);
    if extents.clone().any(|e| e == 0) {
        return Some(0);
    }
    extents.try_fold(1_i64, i64::checked_mul)
}

/// The bytes of `elements` elements of `element_bits` bits each, rounded
/// up to whole bytes (`None` when the bytes, not the bits, pass `i64`:
/// XLA bounds a shape's bytes).
///
/// ```
/// assert_eq!(sharding_util::data_bytes(7, 4), Some(4));
/// assert_eq!(sharding_util::data_bytes(12, 32), Some(48));
/// assert_eq!(sharding_util::data_bytes(1 << 60, 8), Some(1 << 60));
/// assert_eq!(sharding_util::data_bytes(1 << 61, 32), None);
/// ```
pub fn data_bytes(elements: i64, element_bits: i64) -> Option<i64> {
    let bits = i128::from(elements).checked_mul(i128::from(element_bits))?;
    i64::try_from(bits.div_euclid(8) + i128::from(bits.rem_euclid(8) != 0)).ok()
}

impl HloSharding {
    /// How many devices the sharding names: the tile grid's size for a tiled
    /// sharding, `None` for shardings that name no count (replicated,
    /// maximal, manual, unknown, unreduced, tuples).
    pub fn num_devices(&self) -> Option<i64> {
        self.tile_assignment().map(|t| t.num_elements())
    }

    /// The number of array dimensions the tile grid covers (its rank less
    /// the subgroup dimensions); 0 if the sharding does not tile.
    pub fn tiled_data_rank(&self) -> usize {
        self.tile_assignment()
            .map_or(0, |t| t.dimensions().len() - self.subgroup_dims())
    }

    /// Checks the sharding against an array (or tuple) shape and the number
    /// of devices, as XLA's `HloSharding::Validate`, and further: every
    /// device id is in `0..num_devices`, appears once, and the grid uses
    /// every device.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// assert_eq!(s.validate(&"f32[7,9]".parse().unwrap(), 8), Ok(()));
    /// let error = s.validate(&"f32[8]".parse().unwrap(), 8).unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. \
    ///      sharding={devices=[2,4]<=[8]}, input_shape=f32[8]"
    /// );
    /// let list: HloSharding = "{devices=[2]1,1}".parse().unwrap();
    /// assert_eq!(
    ///     list.validate(&"f32[8]".parse().unwrap(), 2).unwrap_err().to_string(),
    ///     "device 1 is not unique in tile assignment"
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ShardingError`] naming the offending value.
    pub fn validate(&self, shape: &Shape, num_devices: i64) -> Result<(), ShardingError> {
        if !(1..=MAX_DEVICES).contains(&num_devices) {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!("device count {num_devices} is not in 1..={MAX_DEVICES}"),
            ));
        }
        if let Kind::Tuple(elements) = &self.kind {
            if shape.tuple_shapes.len() != elements.len() || !is_tuple(shape) {
                return Err(ShardingError::new(
                    ErrorKind::Mismatch,
                    format!(
                        "Validation tuple shape has {} leaf elements, but this sharding contains {} elements.",
                        shape.tuple_shapes.len(),
                        elements.len()
                    ),
                ));
            }
            for (e, s) in elements.iter().zip(&shape.tuple_shapes) {
                e.validate(s, num_devices)?;
            }
            return Ok(());
        }
        if is_tuple(shape) {
            return Ok(());
        }
        match &self.kind {
            Kind::Maximal(device) if !(0..num_devices).contains(device) => Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "device {device} is out of range for {num_devices} devices in sharding {self}"
                ),
            )),
            Kind::Tiled { tiles, .. } => {
                match tiles.devices() {
                    Devices::List(list) => {
                        let mut seen = HashSet::with_capacity(list.len());
                        for &d in list {
                            if !(0..num_devices).contains(&d) {
                                return Err(ShardingError::new(
                                    ErrorKind::Mismatch,
                                    format!(
                                        "device {d} is out of range for {num_devices} devices in tile assignment"
                                    ),
                                ));
                            }
                            if !seen.insert(d) {
                                return Err(ShardingError::new(
                                    ErrorKind::Invalid,
                                    format!("device {d} is not unique in tile assignment"),
                                ));
                            }
                        }
                    }
                    Devices::Iota(_) => {}
                }
                if shape.dimensions.len() != self.tiled_data_rank() {
                    return Err(ShardingError::new(
                        ErrorKind::Mismatch,
                        format!(
                            "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding={self}, input_shape={}",
                            shape.human_string()
                        ),
                    ));
                }
                if tiles.num_elements() != num_devices {
                    return Err(ShardingError::new(
                        ErrorKind::Mismatch,
                        format!(
                            "tile_assignment should have {num_devices} devices but has {}",
                            tiles.num_elements()
                        ),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The shape every device holds (what XLA's SPMD partitioner gives a
    /// parameter): each tiled dimension divided by its tile count, rounded
    /// up; element type and layout kept.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// let shard = s.shard_shape(&"f32[7,9]{0,1}".parse().unwrap()).unwrap();
    /// assert_eq!(shard.to_string(), "f32[4,3]{0,1}");
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple sharding or shape, or a rank that does not match the tile grid.
    pub fn shard_shape(&self, shape: &Shape) -> Result<Shape, ShardingError> {
        let counts = self.tile_counts(shape)?;
        let mut out = shape.clone();
        for (d, &count) in out.dimensions.iter_mut().zip(&counts) {
            *d = ceil_div(*d, count);
        }
        Ok(out)
    }

    /// The tile count of every array dimension (1 for untiled dimensions).
    pub(crate) fn tile_counts(&self, shape: &Shape) -> Result<Vec<i64>, ShardingError> {
        if is_tuple(shape) || matches!(self.kind, Kind::Tuple(_)) {
            return Err(ShardingError::new(
                ErrorKind::Unsupported,
                "per-device queries take an array shape and a non-tuple sharding",
            ));
        }
        if let Some(d) = shape.dimensions.iter().find(|&&d| d < 0) {
            return Err(ShardingError::new(
                ErrorKind::Unsupported,
                format!(
                    "dimension size {d} of {} is not a static size",
                    shape.human_string()
                ),
            ));
        }
        match self.tile_assignment() {
            None => Ok(vec![1; shape.dimensions.len()]),
            Some(tiles) => {
                let rank = self.tiled_data_rank();
                if rank != shape.dimensions.len() {
                    return Err(ShardingError::new(
                        ErrorKind::Mismatch,
                        format!(
                            "Number of tile assignment dimensions (excluding subgroups) is different than the input rank. sharding={self}, input_shape={}",
                            shape.human_string()
                        ),
                    ));
                }
                Ok(tiles.dimensions()[..rank].to_vec())
            }
        }
    }

    /// The block of the global array `device` holds, `None` if it holds
    /// none (not in the tile assignment, or not the device of a maximal
    /// sharding). For many queries on one shape, [`Placement`] answers
    /// each in O(rank) without allocating.
    ///
    /// The last blocks of a dimension that does not divide evenly are
    /// shorter, or empty, as XLA's partitioner pads them.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]<=[4,2]T(1,0)}".parse().unwrap();
    /// let b = s.device_box(&"f32[7,9]".parse().unwrap(), 5).unwrap().unwrap();
    /// assert_eq!((b.tile, b.offsets, b.limits), (vec![1, 2], vec![4, 6], vec![7, 9]));
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Self::shard_shape`]; `unknown` shardings place no data.
    pub fn device_box(
        &self,
        shape: &Shape,
        device: i64,
    ) -> Result<Option<DeviceBox>, ShardingError> {
        Placement::new(self, shape)?.device_box(device)
    }

    /// The devices holding the data tile `tile` (one index per array
    /// dimension), in grid order: the tile's replicas (and its manual or
    /// unreduced parts), produced one at a time (O(rank) each on an iota),
    /// so that a tile of millions of replicas allocates nothing.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(s.tile_devices(&[1]).unwrap().collect::<Vec<_>>(), [1, 3, 5, 7]);
    /// ```
    ///
    /// # Errors
    ///
    /// A tile outside the grid or of the wrong rank; a sharding that does
    /// not tile.
    pub fn tile_devices(
        &self,
        tile: &[i64],
    ) -> Result<impl Iterator<Item = i64> + '_, ShardingError> {
        let tiles = self.tile_assignment().ok_or_else(|| {
            ShardingError::new(ErrorKind::Unsupported, format!("{self} has no tile grid"))
        })?;
        let rank = self.tiled_data_rank();
        let grid = tiles.dimensions();
        if tile.len() != rank || tile.iter().zip(grid).any(|(&t, &d)| !(0..d).contains(&t)) {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "tile [{}] is not in the tile grid [{}] of {self}",
                    crate::tile_assignment::join(tile),
                    crate::tile_assignment::join(&grid[..rank])
                ),
            ));
        }
        let per_tile: i64 = grid[rank..].iter().product();
        // The subgroup dimensions are the trailing, fastest ones.
        let first: i64 = tile
            .iter()
            .enumerate()
            .map(|(i, &t)| t * grid[i + 1..].iter().product::<i64>())
            .sum();
        Ok((0..per_tile).map(move |k| tiles.device_at_flat(first + k)))
    }

    /// The groups of devices holding the same data: devices that differ
    /// only along replicated grid dimensions (`last_tile_dim_replicate`,
    /// `replicated` subgroups), all devices for `{replicated}`, and one
    /// device per group for manual, unreduced and maximal shardings.
    ///
    /// `num_devices` is used where the sharding names no device count.
    ///
    /// # Errors
    ///
    /// An `unknown` or tuple sharding; a device count outside
    /// `1..=MAX_MATERIALIZED` (the groups list every device).
    pub fn replication_groups(&self, num_devices: i64) -> Result<Vec<Vec<i64>>, ShardingError> {
        let n = self.num_devices().unwrap_or(num_devices);
        if !(1..=crate::MAX_MATERIALIZED).contains(&n) {
            return Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!(
                    "listing the replication groups of {n} devices: the device count must be in 1..={}",
                    crate::MAX_MATERIALIZED
                ),
            ));
        }
        match &self.kind {
            Kind::Replicated => Ok(vec![(0..n).collect()]),
            Kind::Maximal(d) => Ok(vec![vec![*d]]),
            Kind::Manual | Kind::Unreduced => Ok((0..n).map(|d| vec![d]).collect()),
            Kind::Unknown | Kind::Tuple(_) => Err(ShardingError::new(
                ErrorKind::Unsupported,
                format!("{self} has no replication groups"),
            )),
            Kind::Tiled {
                tiles,
                replicate_on_last_tile_dim,
                subgroups,
            } => {
                let dims = tiles.dimensions();
                let rank = dims.len();
                let mut replicated = vec![false; rank];
                if *replicate_on_last_tile_dim {
                    replicated[rank - 1] = true;
                }
                let first = rank - subgroups.len();
                for (k, t) in subgroups.iter().enumerate() {
                    replicated[first + k] = *t == SubgroupType::Replicated;
                }
                let group: i64 = dims
                    .iter()
                    .zip(&replicated)
                    .filter(|(_, r)| **r)
                    .map(|(d, _)| d)
                    .product();
                let mut groups: Vec<Vec<i64>> =
                    Vec::with_capacity(usize::try_from(n / group).unwrap_or(0));
                // Walk the grid with the replicated dimensions innermost.
                let outer: Vec<usize> = (0..rank).filter(|&d| !replicated[d]).collect();
                let inner: Vec<usize> = (0..rank).filter(|&d| replicated[d]).collect();
                let outer_count: i64 = outer.iter().map(|&d| dims[d]).product();
                for o in 0..outer_count {
                    let mut index = vec![0; rank];
                    spread(o, &outer, dims, &mut index);
                    let mut members = Vec::with_capacity(usize::try_from(group).unwrap_or(0));
                    for i in 0..group {
                        spread(i, &inner, dims, &mut index);
                        members.push(tiles.device_at(&index)?);
                    }
                    groups.push(members);
                }
                Ok(groups)
            }
        }
    }
}

/// A sharding applied to one array shape: per-device boxes in O(rank)
/// (on an iota tile assignment; a hash lookup on an explicit list), with no
/// allocation when written into the caller's slices.
///
/// ```
/// use sharding_util::{HloSharding, Placement};
///
/// let s: HloSharding = "{devices=[256,256]<=[256,256]T(1,0)}".parse().unwrap();
/// let shape = "f32[1024,1024]".parse().unwrap();
/// let placement = Placement::new(&s, &shape).unwrap();
/// let (mut tile, mut offsets, mut limits) = ([0; 2], [0; 2], [0; 2]);
/// assert!(placement.box_into(1, &mut tile, &mut offsets, &mut limits).unwrap());
/// assert_eq!((tile, offsets, limits), ([1, 0], [4, 0], [8, 4]));
/// ```
#[derive(Debug, Clone)]
pub struct Placement<'a> {
    sharding: &'a HloSharding,
    dims: Vec<i64>,
    shard: Vec<i64>,
    /// The flat-position stride of each data dimension of the grid.
    inner: Vec<i64>,
    /// Device to flat grid position, for an explicit list (first tile).
    list: Option<HashMap<i64, i64>>,
}

impl<'a> Placement<'a> {
    /// `sharding` applied to `shape` (an array).
    ///
    /// # Errors
    ///
    /// As [`HloSharding::shard_shape`].
    pub fn new(sharding: &'a HloSharding, shape: &Shape) -> Result<Self, ShardingError> {
        let counts = sharding.tile_counts(shape)?;
        let dims = shape.dimensions.clone();
        let shard = dims
            .iter()
            .zip(&counts)
            .map(|(&d, &c)| ceil_div(d, c))
            .collect();
        let mut inner = Vec::new();
        let mut list = None;
        if let Some(tiles) = sharding.tile_assignment() {
            let grid = tiles.dimensions();
            inner = (0..counts.len())
                .map(|i| grid[i + 1..].iter().product())
                .collect();
            if let Devices::List(devices) = tiles.devices() {
                let mut map = HashMap::with_capacity(devices.len());
                for (flat, &d) in (0_i64..).zip(devices) {
                    map.entry(d).or_insert(flat);
                }
                list = Some(map);
            }
        }
        Ok(Self {
            sharding,
            dims,
            shard,
            inner,
            list,
        })
    }

    /// The shard's dimensions (the shard shape's).
    pub fn shard_dims(&self) -> &[i64] {
        &self.shard
    }

    /// Writes `device`'s tile and box into the slices (each of the array's
    /// rank); `false` if the device holds nothing.
    ///
    /// # Errors
    ///
    /// Slices of the wrong length; `unknown` shardings place no data.
    pub fn box_into(
        &self,
        device: i64,
        tile: &mut [i64],
        offsets: &mut [i64],
        limits: &mut [i64],
    ) -> Result<bool, ShardingError> {
        let rank = self.dims.len();
        if tile.len() != rank || offsets.len() != rank || limits.len() != rank {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!("box slices must have the rank {rank}"),
            ));
        }
        match &self.sharding.kind {
            Kind::Unknown => {
                return Err(ShardingError::new(
                    ErrorKind::Unsupported,
                    "an unknown sharding places no data on devices",
                ));
            }
            Kind::Maximal(d) if *d != device => return Ok(false),
            Kind::Tiled { tiles, .. } => {
                let flat = match (tiles.devices(), &self.list) {
                    (Devices::Iota(iota), _) => {
                        if !(0..tiles.num_elements()).contains(&device) {
                            return Ok(false);
                        }
                        iota.flat_of(device)
                    }
                    (Devices::List(_), Some(map)) => match map.get(&device) {
                        Some(&f) => f,
                        None => return Ok(false),
                    },
                    (Devices::List(_), None) => return Ok(false),
                };
                let grid = tiles.dimensions();
                for i in 0..rank {
                    let t = (flat / self.inner[i]) % grid[i];
                    let size = self.dims[i];
                    let start = t.saturating_mul(self.shard[i]).min(size);
                    tile[i] = t;
                    offsets[i] = start;
                    limits[i] = start.saturating_add(self.shard[i]).min(size);
                }
                return Ok(true);
            }
            _ => {}
        }
        tile.fill(0);
        offsets.fill(0);
        limits.copy_from_slice(&self.dims);
        Ok(true)
    }

    /// `device`'s tile and box, `None` if it holds nothing.
    ///
    /// # Errors
    ///
    /// As [`Self::box_into`].
    pub fn device_box(&self, device: i64) -> Result<Option<DeviceBox>, ShardingError> {
        let rank = self.dims.len();
        let mut b = DeviceBox {
            device,
            tile: vec![0; rank],
            offsets: vec![0; rank],
            limits: vec![0; rank],
        };
        let held = self.box_into(device, &mut b.tile, &mut b.offsets, &mut b.limits)?;
        Ok(held.then_some(b))
    }
}

/// Writes the row-major digits of `value` over dimensions `which` of `dims`.
fn spread(mut value: i64, which: &[usize], dims: &[i64], index: &mut [i64]) {
    for &d in which.iter().rev() {
        index[d] = value % dims[d];
        value /= dims[d];
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    if b <= 0 {
        a
    } else {
        a / b + i64::from(a % b != 0)
    }
}

fn is_tuple(shape: &Shape) -> bool {
    shape.element_type() == schema::PrimitiveType::Tuple
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn iota_box_on_65536_devices_is_direct() {
        let s: HloSharding = "{devices=[256,256]<=[256,256]T(1,0)}".parse().unwrap();
        let shape: Shape = "f32[1000,1000]".parse().unwrap();
        let b = s.device_box(&shape, 65535).unwrap().unwrap();
        assert_eq!(b.tile, vec![255, 255]);
        let b = s.device_box(&shape, 1).unwrap().unwrap();
        assert_eq!(b.tile, vec![1, 0]);
        assert_eq!((b.offsets, b.limits), (vec![4, 0], vec![8, 4]));
        // Past the end of an uneven dimension the box is empty.
        let b = s.device_box(&shape, 255).unwrap().unwrap();
        assert_eq!((b.offsets[0], b.limits[0]), (1000, 1000));
        assert_eq!(s.device_box(&shape, 65536).unwrap(), None);
    }

    #[test]
    fn replication_groups_follow_the_replicated_dimensions() {
        let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}"
            .parse()
            .unwrap();
        assert_eq!(
            s.replication_groups(8).unwrap(),
            vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]
        );
        let s: HloSharding = "{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"
            .parse()
            .unwrap();
        assert_eq!(
            s.replication_groups(8).unwrap(),
            vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]
        );
        assert_eq!(
            s.tile_devices(&[1]).unwrap().collect::<Vec<_>>(),
            vec![1, 3, 5, 7]
        );
        // 2^30 - 1 replicas of one tile: counted lazily, nothing allocated.
        let wide: HloSharding = "{devices=[2,1073741823]<=[2147483646] last_tile_dim_replicate}"
            .parse()
            .unwrap();
        let mut replicas = wide.tile_devices(&[1]).unwrap();
        assert_eq!(replicas.size_hint(), (1073741823, Some(1073741823)));
        assert_eq!(replicas.nth(5), Some(1073741828));
        assert!(wide.replication_groups(1).is_err());
    }
}
