//! XLA's `HloSharding` tile queries: the tile of a device and the device of
//! a tile, each device's tile offset, limit and shape, tile counts, and the
//! subgroup dimensions.

use schema::Shape;

use crate::error::{ErrorKind, ShardingError};
use crate::sharding::{HloSharding, Kind, SubgroupType};
use crate::tile_assignment::{Devices, TileAssignment, join};

impl HloSharding {
    /// The tile assignment of a sharding that must be tiled for `what`.
    fn tiles_for(&self, what: &str) -> Result<&TileAssignment, ShardingError> {
        match &self.kind {
            Kind::Tiled { tiles, .. } => Ok(tiles),
            _ => Err(ShardingError::new(
                ErrorKind::Unsupported,
                format!("{what} needs a tiled sharding, not {self}"),
            )),
        }
    }

    /// Refuses tuple, manual, unknown and unreduced shardings, where XLA's
    /// CHECKs fail.
    fn no_tile_data(&self, what: &str) -> Result<(), ShardingError> {
        match self.kind {
            Kind::Tuple(_) | Kind::Manual | Kind::Unknown | Kind::Unreduced => {
                Err(ShardingError::new(
                    ErrorKind::Unsupported,
                    format!("{what} has no answer for {self}"),
                ))
            }
            _ => Ok(()),
        }
    }

    /// XLA's `TileIndexForDevice`: the tile (data dimensions only) that
    /// `device` holds.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(s.tile_index_for_device(3).unwrap(), [1, 0]);
    /// ```
    ///
    /// # Errors
    ///
    /// A sharding that is not tiled (XLA CHECK-fails), or a device no tile
    /// has.
    pub fn tile_index_for_device(&self, device: i64) -> Result<Vec<i64>, ShardingError> {
        let what = "TileIndexForDevice";
        let tiles = self.tiles_for(what)?;
        // XLA walks the whole grid and keeps the last tile with the device.
        let index = match tiles.devices() {
            Devices::List(list) => list
                .iter()
                .rposition(|&d| d == device)
                .map(|p| tiles.unflat(i64::try_from(p).unwrap_or(i64::MAX))),
            Devices::Iota(_) => tiles.tile_of(device)?,
        };
        let mut index = index.ok_or_else(|| {
            ShardingError::new(
                ErrorKind::Mismatch,
                format!("device {device} has no tile in {self}"),
            )
        })?;
        index.truncate(self.tiled_data_rank());
        Ok(index)
    }

    /// XLA's `DeviceForTileIndex`: the device of the tile at `index`; an
    /// index of the data rank names the first device of its replication
    /// group. A maximal sharding answers its device.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(s.device_for_tile_index(&[1, 0]).unwrap(), 2);
    /// assert_eq!(s.device_for_tile_index(&[1, 0, 1]).unwrap(), 3);
    /// ```
    ///
    /// # Errors
    ///
    /// A replicated, manual, unknown, unreduced or tuple sharding (XLA
    /// CHECK-fails); an index outside the grid.
    pub fn device_for_tile_index(&self, index: &[i64]) -> Result<i64, ShardingError> {
        let what = "DeviceForTileIndex";
        if let Kind::Maximal(d) = self.kind {
            return Ok(d);
        }
        let tiles = self.tiles_for(what)?;
        let rank = tiles.dimensions().len();
        if index.len() == self.tiled_data_rank() && index.len() < rank {
            let mut full = index.to_vec();
            full.resize(rank, 0);
            return tiles.device_at(&full);
        }
        tiles.device_at(index)
    }

    /// The `[offset, limit)` of each data dimension of `device`'s tile of
    /// `shape` (each tile `ceil(size / tiles)` long, the last ones clipped).
    fn tile_bounds(
        &self,
        shape: &Shape,
        device: i64,
        what: &str,
    ) -> Result<Vec<(i64, i64)>, ShardingError> {
        self.no_tile_data(what)?;
        let dims = &shape.dimensions;
        if self.is_tile_maximal() {
            return Ok(dims.iter().map(|&d| (0, d)).collect());
        }
        let rank = self.tiled_data_rank();
        if dims.len() != rank {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "{what}: shape {} has rank {}, the sharding {self} tiles {rank} dimensions",
                    shape_text(shape),
                    dims.len()
                ),
            ));
        }
        let tiles = self.tiles_for(what)?;
        let index = self.tile_index_for_device(device)?;
        Ok(index
            .iter()
            .zip(dims)
            .zip(tiles.dimensions())
            .map(|((&i, &size), &n)| {
                let step = ceil_of_ratio(size, n);
                (
                    i.saturating_mul(step).min(size),
                    (i + 1).saturating_mul(step).min(size),
                )
            })
            .collect())
    }

    /// XLA's `TileOffsetForDevice`: where `device`'s tile of `shape`
    /// starts (zeros for a tile-maximal sharding).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,2]<=[4]}".parse().unwrap();
    /// let shape = "f32[5,8]".parse().unwrap();
    /// assert_eq!(s.tile_offset_for_device(&shape, 3).unwrap(), [3, 4]);
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple, manual, unknown or unreduced sharding; a shape of another
    /// rank than the tiled one; a device no tile has.
    pub fn tile_offset_for_device(
        &self,
        shape: &Shape,
        device: i64,
    ) -> Result<Vec<i64>, ShardingError> {
        let bounds = self.tile_bounds(shape, device, "TileOffsetForDevice")?;
        Ok(bounds.into_iter().map(|(start, _)| start).collect())
    }

    /// XLA's `TileLimitForDevice`: where `device`'s tile of `shape` ends
    /// (the shape's dimensions for a tile-maximal sharding).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,2]<=[4]}".parse().unwrap();
    /// let shape = "f32[5,8]".parse().unwrap();
    /// assert_eq!(s.tile_limit_for_device(&shape, 3).unwrap(), [5, 8]);
    /// assert_eq!(s.tile_limit_for_device(&shape, 0).unwrap(), [3, 4]);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Self::tile_offset_for_device`].
    pub fn tile_limit_for_device(
        &self,
        shape: &Shape,
        device: i64,
    ) -> Result<Vec<i64>, ShardingError> {
        let bounds = self.tile_bounds(shape, device, "TileLimitForDevice")?;
        Ok(bounds.into_iter().map(|(_, end)| end).collect())
    }

    /// XLA's `TileShape(shape)`: `shape` with each tiled dimension divided
    /// by its tile count, rounded up (`shape` itself for tile-maximal,
    /// manual, unknown and unreduced shardings).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}".parse().unwrap();
    /// let shape = "f32[5,8]{1,0}".parse().unwrap();
    /// assert_eq!(s.tile_shape(&shape).unwrap().to_string(), "f32[3,8]{1,0}");
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple sharding; a shape of lower rank than the tiled one.
    pub fn tile_shape(&self, shape: &Shape) -> Result<Shape, ShardingError> {
        let Kind::Tiled { tiles, .. } = &self.kind else {
            if self.is_tuple() {
                return Err(ShardingError::new(
                    ErrorKind::Unsupported,
                    format!("TileShape has no answer for the tuple sharding {self}"),
                ));
            }
            return Ok(shape.clone());
        };
        let rank = self.tiled_data_rank();
        if shape.dimensions.len() < rank {
            return Err(ShardingError::new(
                ErrorKind::Mismatch,
                format!(
                    "TileShape: shape {} has rank {}, the sharding {self} tiles {rank} dimensions",
                    shape_text(shape),
                    shape.dimensions.len()
                ),
            ));
        }
        let mut out = shape.clone();
        for (d, &n) in out.dimensions.iter_mut().zip(tiles.dimensions()).take(rank) {
            *d = ceil_of_ratio(*d, n);
        }
        Ok(out)
    }

    /// XLA's `TileShape(shape, device)`: the shape of `device`'s own tile
    /// (the last tiles of a dimension may be shorter).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,2]<=[4]}".parse().unwrap();
    /// let shape = "f32[5,8]{1,0}".parse().unwrap();
    /// assert_eq!(s.tile_shape_for_device(&shape, 2).unwrap().to_string(), "f32[2,4]{1,0}");
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Self::tile_offset_for_device`].
    pub fn tile_shape_for_device(
        &self,
        shape: &Shape,
        device: i64,
    ) -> Result<Shape, ShardingError> {
        if !matches!(self.kind, Kind::Tiled { .. }) && !self.is_tuple() {
            return Ok(shape.clone());
        }
        let bounds = self.tile_bounds(shape, device, "TileShape")?;
        let mut out = shape.clone();
        for (d, (start, end)) in out.dimensions.iter_mut().zip(bounds) {
            *d = end - start;
        }
        Ok(out)
    }

    /// XLA's `TotalNumTiles`: every tile of the grid, subgroups included
    /// (1 for a tile-maximal sharding).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(s.total_num_tiles().unwrap(), 8);
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple, manual, unknown or unreduced sharding (XLA CHECK-fails).
    pub fn total_num_tiles(&self) -> Result<i64, ShardingError> {
        self.no_tile_data("TotalNumTiles")?;
        Ok(self
            .tile_assignment()
            .map_or(1, TileAssignment::num_elements))
    }

    /// XLA's `NumTiles`: the tiles of the data dimensions (so not the
    /// device count when the sharding replicates partially).
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(s.num_tiles().unwrap(), 2);
    /// assert_eq!("{replicated}".parse::<HloSharding>().unwrap().num_tiles().unwrap(), 1);
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple, manual, unknown or unreduced sharding (XLA CHECK-fails).
    pub fn num_tiles(&self) -> Result<i64, ShardingError> {
        self.no_tile_data("NumTiles")?;
        let rank = self.tiled_data_rank();
        Ok(self
            .tile_assignment()
            .map_or(1, |t| t.dimensions()[..rank].iter().product()))
    }

    /// XLA's `NumTiles(dims)`: the tiles along the grid dimensions `dims`.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,3,4]<=[24]}".parse().unwrap();
    /// assert_eq!(s.num_tiles_of(&[0, 2]).unwrap(), 8);
    /// ```
    ///
    /// # Errors
    ///
    /// A tuple, manual, unknown or unreduced sharding, a dimension outside
    /// the grid, or the `last_tile_dim_replicate` dimension (XLA
    /// CHECK-fails).
    pub fn num_tiles_of(&self, dims: &[i64]) -> Result<i64, ShardingError> {
        self.no_tile_data("NumTiles")?;
        let Some(tiles) = self.tile_assignment() else {
            return Ok(1);
        };
        let grid = tiles.dimensions();
        let rank = i64::try_from(grid.len()).unwrap_or(i64::MAX);
        let mut count: i64 = 1;
        for &d in dims {
            if !(0..rank).contains(&d) || (self.replicate_on_last_tile_dim() && d == rank - 1) {
                return Err(ShardingError::new(
                    ErrorKind::Mismatch,
                    format!(
                        "NumTiles: dimension {d} is not a tiled dimension of {self} (dimensions [{}])",
                        join(dims)
                    ),
                ));
            }
            // The grid has at most MAX_DEVICES tiles, so no overflow.
            count = count.saturating_mul(grid[usize::try_from(d).unwrap_or(0)]);
        }
        Ok(count)
    }

    /// XLA's `SubgroupReplicationDim` (Rust form: `None` for XLA's -1): the
    /// grid dimension that replicates.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}".parse().unwrap();
    /// assert_eq!(s.subgroup_replication_dim(), Some(2));
    /// assert_eq!(s.subgroup_manual_dim(), Some(1));
    /// ```
    pub fn subgroup_replication_dim(&self) -> Option<usize> {
        if let Some(k) = self
            .subgroup_types()
            .iter()
            .position(|&t| t == SubgroupType::Replicated)
        {
            return Some(k + self.tiled_data_rank());
        }
        if self.replicate_on_last_tile_dim() {
            return self.tile_assignment().map(|t| t.dimensions().len() - 1);
        }
        None
    }

    /// XLA's `SubgroupManualDim` (Rust form: `None` for XLA's -1): the grid
    /// dimension of the manual subgroup.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    /// let s: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// assert_eq!(s.subgroup_manual_dim(), None);
    /// ```
    pub fn subgroup_manual_dim(&self) -> Option<usize> {
        self.subgroup_types()
            .iter()
            .position(|&t| t == SubgroupType::Manual)
            .map(|k| k + self.tiled_data_rank())
    }
}

/// `ceil(a / b)` for a size `a >= 0` and a tile count `b >= 1`.
fn ceil_of_ratio(a: i64, b: i64) -> i64 {
    if b <= 0 {
        return a;
    }
    a / b + i64::from(a % b != 0)
}

/// A shape as XLA's messages print it (no layout).
fn shape_text(shape: &Shape) -> String {
    shape.human_string()
}
