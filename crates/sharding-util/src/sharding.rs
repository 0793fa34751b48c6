//! The sharding model (XLA's `HloSharding`) and its normal forms.

use std::fmt;

use schema::OpMetadata;

use crate::error::{ErrorKind, ShardingError};
use crate::named::NamedSharding;
use crate::tile_assignment::TileAssignment;

/// What a trailing (subgroup) dimension of the tile grid means
/// (`last_tile_dims={manual, replicated}`); the values are
/// `OpSharding.Type`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SubgroupType {
    /// `maximal`.
    Maximal,
    /// `manual`: the devices along it are partitioned by the user.
    Manual,
    /// `unreduced`: the devices along it hold partial results.
    Unreduced,
    /// `replicated`: the devices along it hold copies.
    Replicated,
}

impl fmt::Display for SubgroupType {
    /// The name XLA prints ([`SubgroupType::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl SubgroupType {
    /// The name XLA prints (`manual`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Maximal => "maximal",
            Self::Manual => "manual",
            Self::Unreduced => "unreduced",
            Self::Replicated => "replicated",
        }
    }

    /// The `OpSharding.Type` value.
    pub fn proto_value(self) -> i32 {
        match self {
            Self::Replicated => 0,
            Self::Maximal => 1,
            Self::Manual => 4,
            Self::Unreduced => 6,
        }
    }

    /// The subgroup type of an `OpSharding.Type` value, if it can be one.
    pub fn from_proto_value(value: i32) -> Option<Self> {
        match value {
            0 => Some(Self::Replicated),
            1 => Some(Self::Maximal),
            4 => Some(Self::Manual),
            6 => Some(Self::Unreduced),
            _ => None,
        }
    }
}

/// How a shard group binds its members (`shard_as N` / `shard_like N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShardGroup {
    /// `shard_as N`: exactly the same sharding.
    As(i64),
    /// `shard_like N`: sharded alike where possible.
    Like(i64),
}

/// What kind of sharding, with its tile assignment when tiled.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `{replicated}`: every device holds the whole array.
    Replicated,
    /// `{maximal device=N}`: one device holds the whole array.
    Maximal(i64),
    /// `{manual}`.
    Manual,
    /// `{unknown}`.
    Unknown,
    /// `{unreduced}`.
    Unreduced,
    /// `{devices=[...]...}`: tiles over a device grid.
    Tiled {
        /// The grid, data dimensions first, then one per subgroup.
        tiles: TileAssignment,
        /// `last_tile_dim_replicate`: the last grid dimension holds copies.
        replicate_on_last_tile_dim: bool,
        /// `last_tile_dims={...}`: the meaning of the trailing dimensions.
        subgroups: Vec<SubgroupType>,
    },
    /// `{{...}, {...}}`: one sharding per tuple element.
    Tuple(Vec<HloSharding>),
}

/// XLA's `HloSharding`: how an array (or tuple) is laid out over devices.
///
/// Build one by parsing XLA's text ([`std::str::FromStr`]) or decoding an
/// `OpSharding`; print it with [`std::fmt::Display`] as XLA's
/// `HloSharding::ToString` does. Shardings are values: `Eq` and `Hash`
/// (metadata compared bit for bit), so one keys a `HashMap`.
///
/// ```
/// use sharding_util::HloSharding;
///
/// let s: HloSharding = "{devices=[2,4]<=[2,4]T(0,1)}".parse().unwrap();
/// assert_eq!(s.to_string(), "{devices=[2,4]<=[8]}");
/// ```
#[derive(Debug, Clone)]
pub struct HloSharding {
    pub(crate) kind: Kind,
    pub(crate) metadata: Vec<OpMetadata>,
    pub(crate) shard_group: Option<ShardGroup>,
    /// The named (mesh-axes) form this sharding was given in, if any: `kind`
    /// is then its tile-assignment form.
    pub(crate) named: Option<Box<NamedSharding>>,
}

impl HloSharding {
    /// A sharding of `kind` with no metadata and no shard group (tiled kinds
    /// are taken as given: use [`Self::subgroup`] for XLA's normal form).
    pub fn new(kind: Kind) -> Self {
        Self {
            kind,
            metadata: Vec::new(),
            shard_group: None,
            named: None,
        }
    }

    /// The named (mesh-axes) form, if the sharding was given as one.
    pub fn named(&self) -> Option<&NamedSharding> {
        self.named.as_deref()
    }

    /// The kind, with the tile assignment (for a named sharding, of its
    /// tile-assignment form, [`Self::v3_to_v2`]).
    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    /// The metadata (`metadata={...}`; XLA's text omits it, its proto keeps it).
    pub fn metadata(&self) -> &[OpMetadata] {
        &self.metadata
    }

    /// The shard group, if any.
    pub fn shard_group(&self) -> Option<ShardGroup> {
        self.shard_group
    }

    /// The same sharding with `metadata`.
    pub fn with_metadata(mut self, metadata: Vec<OpMetadata>) -> Self {
        self.metadata = metadata;
        self
    }

    /// The same sharding in shard group `group`.
    pub fn with_shard_group(mut self, group: Option<ShardGroup>) -> Self {
        self.shard_group = group;
        self
    }

    /// A tiled sharding in XLA's normal form (XLA's `HloSharding::Subgroup`):
    /// subgroup dimensions of size 1 dropped, equal types merged, types
    /// ordered (replicated last), the devices of each replication group
    /// sorted, and a sharding that tiles no data dimension reduced to
    /// `{manual}`, `{replicated}` or `{unreduced}`.
    ///
    /// ```
    /// use sharding_util::{HloSharding, SubgroupType, TileAssignment};
    ///
    /// let tiles = TileAssignment::iota(vec![2, 2, 2], vec![8], vec![0]).unwrap();
    /// let types = [SubgroupType::Replicated, SubgroupType::Manual];
    /// let s = HloSharding::subgroup(tiles, &types).unwrap();
    /// assert_eq!(
    ///     s.to_string(),
    ///     "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={manual, replicated}}"
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// More subgroup types than grid dimensions, or a normal form that needs
    /// an explicit list of more than [`crate::MAX_MATERIALIZED`] devices.
    pub fn subgroup(tiles: TileAssignment, types: &[SubgroupType]) -> Result<Self, ShardingError> {
        let rank = tiles.dimensions().len();
        if types.len() > rank {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                format!(
                    "{} subgroup types for a tile assignment of rank {rank}",
                    types.len()
                ),
            ));
        }
        if types.is_empty() {
            return Ok(Self::tiled(tiles, false, Vec::new()));
        }
        let data = rank - types.len();
        let data_tiles: i64 = tiles.dimensions()[..data].iter().product();
        if data_tiles == 1 && types.iter().all(|&t| t == types[0]) {
            match types[0] {
                SubgroupType::Manual => return Ok(Self::new(Kind::Manual)),
                SubgroupType::Replicated => return Ok(Self::new(Kind::Replicated)),
                SubgroupType::Unreduced => return Ok(Self::new(Kind::Unreduced)),
                SubgroupType::Maximal => {}
            }
        }
        let dims = tiles.dimensions().to_vec();
        let mut by_type: Vec<(SubgroupType, Vec<usize>)> = Vec::new();
        let mut needs_merging = false;
        for (k, &t) in types.iter().enumerate() {
            let d = data + k;
            if dims[d] == 1 {
                needs_merging = true;
                continue;
            }
            match by_type.iter_mut().find(|(u, _)| *u == t) {
                Some((_, ds)) => {
                    needs_merging = true;
                    ds.push(d);
                }
                None => by_type.push((t, vec![d])),
            }
        }
        if by_type.windows(2).any(|w| w[0].0 > w[1].0) {
            needs_merging = true;
        }
        if !needs_merging {
            return Self::normal_subgroups(tiles, types.to_vec());
        }
        by_type.sort_by_key(|(t, _)| *t);
        // Drop the size-1 subgroup dimensions (a free reshape), then bring
        // the dimensions of each type together and merge them.
        let kept: Vec<usize> = (0..rank).filter(|&d| d < data || dims[d] != 1).collect();
        let position = |d: usize| kept.iter().position(|&k| k == d).unwrap_or(d);
        let tiles = tiles.reshaped(kept.iter().map(|&d| dims[d]).collect());
        let mut perm: Vec<usize> = (0..data).collect();
        let mut merged: Vec<i64> = dims[..data].to_vec();
        let mut merged_types = Vec::new();
        for (t, ds) in &by_type {
            perm.extend(ds.iter().map(|&d| position(d)));
            merged.push(ds.iter().map(|&d| dims[d]).product());
            merged_types.push(*t);
        }
        let tiles = tiles.transposed(&perm)?.reshaped(merged);
        Self::normal_subgroups(tiles, merged_types)
    }

    /// XLA's `create_sharding` step of `Subgroup`.
    fn normal_subgroups(
        tiles: TileAssignment,
        types: Vec<SubgroupType>,
    ) -> Result<Self, ShardingError> {
        match types.as_slice() {
            [SubgroupType::Replicated] => Self::partial_tile(tiles),
            [SubgroupType::Manual]
                if tiles.num_elements() == tiles.dimensions().last().copied().unwrap_or(1) =>
            {
                Ok(Self::new(Kind::Manual))
            }
            [.., SubgroupType::Replicated] => {
                let tiles = tiles.sorted_last_groups()?;
                Ok(Self::tiled(tiles, false, types))
            }
            _ => Ok(Self::tiled(tiles, false, types)),
        }
    }

    /// A tiled sharding whose last grid dimension replicates
    /// (`last_tile_dim_replicate`), in XLA's normal form
    /// (`HloSharding::PartialTile`).
    ///
    /// # Errors
    ///
    /// A normal form that needs an explicit list of more than
    /// [`crate::MAX_MATERIALIZED`] devices.
    pub fn partial_tile(tiles: TileAssignment) -> Result<Self, ShardingError> {
        let dims = tiles.dimensions();
        let last = dims.last().copied().unwrap_or(1);
        if dims.len() == 1 || last == tiles.num_elements() {
            return Ok(Self::new(Kind::Replicated));
        }
        if last == 1 {
            let dims = dims[..dims.len() - 1].to_vec();
            return Ok(Self::tiled(tiles.reshaped(dims), false, Vec::new()));
        }
        Ok(Self::tiled(tiles.sorted_last_groups()?, true, Vec::new()))
    }

    fn tiled(
        tiles: TileAssignment,
        replicate_on_last_tile_dim: bool,
        subgroups: Vec<SubgroupType>,
    ) -> Self {
        Self::new(Kind::Tiled {
            tiles,
            replicate_on_last_tile_dim,
            subgroups,
        })
    }

    /// The tile assignment of a tiled sharding.
    pub fn tile_assignment(&self) -> Option<&TileAssignment> {
        match &self.kind {
            Kind::Tiled { tiles, .. } => Some(tiles),
            _ => None,
        }
    }

    /// How many trailing grid dimensions are subgroups (not array
    /// dimensions).
    pub fn subgroup_dims(&self) -> usize {
        match &self.kind {
            Kind::Tiled {
                replicate_on_last_tile_dim,
                subgroups,
                ..
            } => subgroups.len() + usize::from(*replicate_on_last_tile_dim),
            _ => 0,
        }
    }

    /// Whether the sharding (or an element of the tuple) has an unreduced
    /// part.
    pub(crate) fn has_unreduced(&self) -> bool {
        match &self.kind {
            Kind::Unreduced => true,
            Kind::Tiled { subgroups, .. } => subgroups.contains(&SubgroupType::Unreduced),
            _ => false,
        }
    }
}
