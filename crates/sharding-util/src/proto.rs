//! `OpSharding` ↔ [`HloSharding`], as XLA's `HloSharding::ToProto` and
//! `HloSharding::FromProto`.

use schema::OpSharding;
use schema::op_sharding::{ShardGroupType, Type};

use crate::error::{ErrorKind, ShardingError};
use crate::named::NamedSharding;
use crate::sharding::{HloSharding, Kind, ShardGroup, SubgroupType};
use crate::tile_assignment::{Devices, TileAssignment};

impl HloSharding {
    /// The `OpSharding` XLA's `to_proto` gives: its bytes (prost's
    /// `encode_to_vec`) are XLA's, byte for byte.
    ///
    /// ```
    /// use schema::Message;
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// let hex: String = s.to_proto().encode_to_vec().iter().map(|b| format!("{b:02x}")).collect();
    /// assert_eq!(hex, "08031a0202044a0108520100");
    /// ```
    pub fn to_proto(&self) -> OpSharding {
        let mut p = OpSharding::default();
        if let Kind::Tuple(elements) = &self.kind {
            p.set_type(Type::Tuple);
            p.tuple_shardings = elements.iter().map(Self::to_proto).collect();
            return p;
        }
        if let Some(named) = &self.named {
            p.named_sharding = Some(named.to_proto(&self.metadata));
            return p;
        }
        p.metadata = self.metadata.clone();
        match &self.kind {
            Kind::Replicated => p.set_type(Type::Replicated),
            Kind::Manual => p.set_type(Type::Manual),
            Kind::Unknown => p.set_type(Type::Unknown),
            Kind::Unreduced => p.set_type(Type::Unreduced),
            Kind::Maximal(device) => {
                p.set_type(Type::Maximal);
                p.tile_assignment_devices = vec![*device];
            }
            Kind::Tiled {
                tiles,
                replicate_on_last_tile_dim,
                subgroups,
            } => {
                p.set_type(Type::Other);
                p.tile_assignment_dimensions = tiles.dimensions().to_vec();
                match tiles.devices() {
                    Devices::Iota(iota) => {
                        p.iota_reshape_dims = iota.reshape_dims().to_vec();
                        p.iota_transpose_perm = iota
                            .transpose_perm()
                            .iter()
                            .map(|&d| i32::try_from(d).unwrap_or(i32::MAX))
                            .collect();
                    }
                    Devices::List(list) => p.tile_assignment_devices = list.clone(),
                }
                p.replicate_on_last_tile_dim = *replicate_on_last_tile_dim;
                p.last_tile_dims = subgroups.iter().map(|t| t.proto_value()).collect();
            }
            Kind::Tuple(_) => {}
        }
        match self.shard_group {
            Some(ShardGroup::As(id)) if id != -1 => {
                p.is_shard_group = true;
                p.shard_group_id = id;
                p.set_shard_group_type(ShardGroupType::As);
            }
            Some(ShardGroup::Like(id)) if id != -1 => {
                p.is_shard_group = true;
                p.shard_group_id = id;
                p.set_shard_group_type(ShardGroupType::Like);
            }
            _ => {}
        }
        p
    }

    /// The sharding an `OpSharding` describes, in XLA's normal form (as
    /// XLA's `from_proto`), with XLA's checks.
    ///
    /// ```
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]7,6,5,4,3,2,1,0 last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(HloSharding::from_proto(&s.to_proto()).unwrap(), s);
    /// ```
    ///
    /// # Errors
    ///
    /// A message for what XLA refuses (a maximal sharding with other than
    /// one device, a tuple with metadata, dimensions that are not positive,
    /// sizes that do not match, unknown subgroup types), and what
    /// [`NamedSharding::from_proto`] rejects in `named_sharding`.
    pub fn from_proto(p: &OpSharding) -> Result<Self, ShardingError> {
        Self::from_proto_at(p, 0)
    }

    fn from_proto_at(p: &OpSharding, depth: usize) -> Result<Self, ShardingError> {
        if depth > 1 {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                "a tuple sharding inside a tuple sharding",
            ));
        }
        if let Some(named) = &p.named_sharding {
            let (named, metadata) = NamedSharding::from_proto(named)?;
            return Self::from_named(named, metadata);
        }
        let metadata = p.metadata.clone();
        let kind = Type::try_from(p.r#type).map_err(|_| {
            ShardingError::new(
                ErrorKind::Invalid,
                format!("unknown OpSharding type {}", p.r#type),
            )
        })?;
        let mut sharding = match kind {
            Type::Tuple => {
                if !metadata.is_empty() {
                    return Err(ShardingError::new(
                        ErrorKind::Invalid,
                        "Expected empty metadata for tuple sharding",
                    ));
                }
                let elements = p
                    .tuple_shardings
                    .iter()
                    .map(|e| Self::from_proto_at(e, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(Self::new(Kind::Tuple(elements)));
            }
            Type::Replicated => Self::new(Kind::Replicated),
            Type::Manual => Self::new(Kind::Manual),
            Type::Unknown => Self::new(Kind::Unknown),
            Type::Unreduced => Self::new(Kind::Unreduced),
            _ if p.tile_assignment_devices.len() == 1 => {
                Self::new(Kind::Maximal(p.tile_assignment_devices[0]))
            }
            _ if !p.iota_reshape_dims.is_empty() && p.iota_reshape_dims.iter().all(|&d| d == 1) => {
                Self::new(Kind::Maximal(0))
            }
            Type::Maximal => {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!(
                        "Maximal sharding is expected to have single device assignment, but {} has provided.",
                        p.tile_assignment_devices.len()
                    ),
                ));
            }
            Type::Other => Self::tiled_from_proto(p)?,
        };
        sharding.metadata = metadata;
        if p.is_shard_group {
            sharding.shard_group = Some(match p.shard_group_type() {
                ShardGroupType::As => ShardGroup::As(p.shard_group_id),
                ShardGroupType::Like => ShardGroup::Like(p.shard_group_id),
            });
        }
        Ok(sharding)
    }

    fn tiled_from_proto(p: &OpSharding) -> Result<Self, ShardingError> {
        let dims = p.tile_assignment_dimensions.clone();
        if dims.is_empty() {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                "a tiled OpSharding without tile_assignment_dimensions",
            ));
        }
        let tiles = if p.iota_reshape_dims.is_empty() {
            if p.tile_assignment_devices.len() <= 1 {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    "a tiled OpSharding needs more than one device",
                ));
            }
            TileAssignment::list(dims, p.tile_assignment_devices.clone())?
        } else {
            if !p.tile_assignment_devices.is_empty() {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    "an OpSharding with both iota_reshape_dims and tile_assignment_devices",
                ));
            }
            let perm = p
                .iota_transpose_perm
                .iter()
                .map(|&d| usize::try_from(d).unwrap_or(usize::MAX))
                .collect();
            TileAssignment::iota(dims, p.iota_reshape_dims.clone(), perm)?
        };
        if p.replicate_on_last_tile_dim {
            return Self::partial_tile(tiles);
        }
        let types = p
            .last_tile_dims
            .iter()
            .map(|&t| {
                SubgroupType::from_proto_value(t).ok_or_else(|| {
                    ShardingError::new(
                        ErrorKind::Invalid,
                        format!("OpSharding type {t} cannot be a subgroup type"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::subgroup(tiles, &types)
    }
}
