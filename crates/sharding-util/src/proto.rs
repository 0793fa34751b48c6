//! `OpSharding` ↔ [`HloSharding`], as XLA's `HloSharding::ToProto` and
//! `HloSharding::FromProto`.

use schema::OpSharding;
use schema::op_sharding::{ShardGroupType, Type};

use crate::error::{ErrorKind, ShardingError};
use crate::named::NamedSharding;
use crate::reduction::{is_reduction, push_reduction, reduction_of};
use crate::sharding::{HloSharding, Kind, ShardGroup, SubgroupType};
use crate::tile_assignment::{Devices, TileAssignment, not_a_permutation};

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

    /// The sharding an `OpSharding` describes, in XLA's normal form, as
    /// XLA 0.12's `from_proto` reads it: a tiled sharding of one device is
    /// `{replicated}`, every `shard_group_type` but `AS` is `shard_like`,
    /// tuples nest, and the `sdy::reduction_op` metadata entries give the
    /// reduction (written back by [`Self::to_proto`] where XLA writes it).
    ///
    /// ```
    /// use schema::OpSharding;
    /// use sharding_util::HloSharding;
    ///
    /// let s: HloSharding = "{devices=[2,4]7,6,5,4,3,2,1,0 last_tile_dim_replicate}".parse().unwrap();
    /// assert_eq!(HloSharding::from_proto(&s.to_proto()).unwrap(), s);
    ///
    /// // Type OTHER, tile dimensions [1], device 5.
    /// let one = OpSharding { r#type: 3, tile_assignment_dimensions: vec![1], tile_assignment_devices: vec![5], ..OpSharding::default() };
    /// assert_eq!(HloSharding::from_proto(&one).unwrap().to_string(), "{replicated}");
    /// ```
    ///
    /// # Errors
    ///
    /// A message for what XLA refuses, naming XLA's reason (a maximal
    /// sharding with other than one device, an unknown type, a tuple with
    /// metadata, dimensions that are not positive, sizes that do not
    /// match), what [`NamedSharding::from_proto`] rejects in
    /// `named_sharding`, and, as [`ErrorKind::Unsupported`], a subgroup type
    /// that is no subgroup type on a dimension larger than 1 (XLA reads it
    /// and prints it `error_type.`). In a tuple, as in XLA, an error of an
    /// element in tile-assignment form comes before one of a named element.
    pub fn from_proto(p: &OpSharding) -> Result<Self, ShardingError> {
        if let Some(named) = &p.named_sharding {
            let (named, metadata) = NamedSharding::from_proto(named)?;
            return Self::from_named(named, metadata);
        }
        // XLA takes the reduction entries out of the metadata and writes one
        // back (`to_proto`) where it is needed.
        let reduction = reduction_of(&p.metadata);
        let mut metadata: Vec<_> = p
            .metadata
            .iter()
            .filter(|entry| !is_reduction(entry))
            .cloned()
            .collect();
        let kind = Type::try_from(p.r#type).ok();
        if kind == Some(Type::Tuple) {
            if !metadata.is_empty() {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    "Tuple sharding is expected to have no metadata.",
                ));
            }
            return Self::tuple_from_proto(p);
        }
        let mut sharding = Self::untupled_from_proto(p, kind)?;
        push_reduction(&mut metadata, reduction, sharding.has_unreduced());
        sharding.metadata = metadata;
        if p.is_shard_group {
            // XLA reads every `shard_group_type` but AS (0) as LIKE.
            sharding.shard_group = Some(if p.shard_group_type == ShardGroupType::As as i32 {
                ShardGroup::As(p.shard_group_id)
            } else {
                ShardGroup::Like(p.shard_group_id)
            });
        }
        Ok(sharding)
    }

    /// A tuple sharding of the elements of `p`, read in XLA's order.
    fn tuple_from_proto(p: &OpSharding) -> Result<Self, ShardingError> {
        // XLA reads every element in tile-assignment form before it
        // checks the named ones: an error of the former comes first,
        // then one of a named element, then one where we refuse what
        // XLA reads (`Unsupported`).
        let mut elements = Vec::with_capacity(p.tuple_shardings.len());
        let (mut named_error, mut unsupported) = (None, None);
        for element in &p.tuple_shardings {
            match Self::from_proto(element) {
                Ok(s) => elements.push(s),
                Err(e) if element.named_sharding.is_some() => {
                    named_error.get_or_insert(e);
                }
                Err(e) if e.kind() == ErrorKind::Unsupported => {
                    unsupported.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(e) = named_error.or(unsupported) {
            return Err(e);
        }
        Ok(Self::new(Kind::Tuple(elements)))
    }

    /// The sharding of `p` of type `kind`, no tuple, before its metadata
    /// and shard group.
    fn untupled_from_proto(p: &OpSharding, kind: Option<Type>) -> Result<Self, ShardingError> {
        Ok(match kind {
            Some(Type::Replicated) => Self::new(Kind::Replicated),
            Some(Type::Manual) => Self::new(Kind::Manual),
            Some(Type::Unknown) => Self::new(Kind::Unknown),
            Some(Type::Unreduced) => Self::new(Kind::Unreduced),
            Some(Type::Maximal) => match p.tile_assignment_devices.as_slice() {
                [device] => Self::new(Kind::Maximal(*device)),
                devices => {
                    return Err(ShardingError::new(
                        ErrorKind::Invalid,
                        format!(
                            "Maximal sharding is expected to have single device assignment, but {} has provided.",
                            devices.len()
                        ),
                    ));
                }
            },
            Some(Type::Other) => Self::tiled_from_proto(p)?,
            Some(Type::Tuple) | None => {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!("unknown OpSharding type {}", p.r#type),
                ));
            }
        })
    }

    /// A tiled (`OTHER`) sharding, with XLA's checks in XLA's order: one
    /// device (one explicit device, or an iota of one) is `{replicated}`.
    fn tiled_from_proto(p: &OpSharding) -> Result<Self, ShardingError> {
        let iota = !p.iota_reshape_dims.is_empty();
        if iota {
            if !p.tile_assignment_devices.is_empty() {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    "an OpSharding with both iota_reshape_dims and tile_assignment_devices",
                ));
            }
            if p.iota_reshape_dims.len() != p.iota_transpose_perm.len() {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    format!(
                        "iota_transpose_perm should have the same rank as iota_reshape_dims : expected {}, saw {}.",
                        p.iota_reshape_dims.len(),
                        p.iota_transpose_perm.len()
                    ),
                ));
            }
        } else if p.tile_assignment_devices.is_empty() {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                "a tiled OpSharding without tile_assignment_devices or iota_reshape_dims",
            ));
        }
        let one_device = if iota {
            p.iota_reshape_dims
                .iter()
                .try_fold(1i64, |acc, &d| acc.checked_mul(d))
                == Some(1)
        } else {
            p.tile_assignment_devices.len() == 1
        };
        if one_device {
            return Ok(Self::new(Kind::Replicated));
        }
        let dims = p.tile_assignment_dimensions.clone();
        if dims.is_empty() {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                "a tiled OpSharding without tile_assignment_dimensions",
            ));
        }
        let tiles = if iota {
            let perm = p
                .iota_transpose_perm
                .iter()
                .map(|&d| usize::try_from(d))
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    not_a_permutation(&p.iota_transpose_perm, p.iota_reshape_dims.len())
                })?;
            TileAssignment::iota(dims, p.iota_reshape_dims.clone(), perm)?
        } else {
            TileAssignment::list(dims, p.tile_assignment_devices.clone())?
        };
        if !p.last_tile_dims.is_empty() && p.replicate_on_last_tile_dim {
            return Err(ShardingError::new(
                ErrorKind::Invalid,
                "an OpSharding with both last_tile_dims and replicate_on_last_tile_dim",
            ));
        }
        if p.replicate_on_last_tile_dim {
            return Self::partial_tile(tiles);
        }
        let (tiles, types) = subgroup_types(tiles, &p.last_tile_dims)?;
        Self::subgroup(tiles, &types)
    }
}

/// The subgroup types of `last_tile_dims`, with the tile assignment: a
/// subgroup dimension of size 1 is dropped whatever its type (as XLA's
/// `Subgroup` does), so only a type that is no subgroup type on a larger
/// dimension is refused (XLA prints that one as `error_type.`).
fn subgroup_types(
    tiles: TileAssignment,
    values: &[i32],
) -> Result<(TileAssignment, Vec<SubgroupType>), ShardingError> {
    let dims = tiles.dimensions().to_vec();
    let Some(data) = dims.len().checked_sub(values.len()) else {
        return Err(ShardingError::new(
            ErrorKind::Invalid,
            format!(
                "{} subgroup types for a tile assignment of rank {}",
                values.len(),
                dims.len()
            ),
        ));
    };
    let mut kept = dims[..data].to_vec();
    let mut types = Vec::with_capacity(values.len());
    for (&value, &size) in values.iter().zip(&dims[data..]) {
        match SubgroupType::from_proto_value(value) {
            Some(t) => {
                kept.push(size);
                types.push(t);
            }
            None if size == 1 => {}
            None => {
                // XLA reads it (printing `error_type.`): unsupported here.
                return Err(ShardingError::new(
                    ErrorKind::Unsupported,
                    format!("OpSharding type {value} cannot be a subgroup type"),
                ));
            }
        }
    }
    let tiles = if kept.len() == dims.len() {
        tiles
    } else {
        tiles.reshaped(kept)
    };
    Ok((tiles, types))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use schema::Message;

    use crate::HloSharding;

    /// XLA 0.12's `to_string` and `to_proto` bytes of the sharding of `hex`
    /// (`tests/golden/sharding_protos.jsonl`).
    fn read(hex: &str) -> (String, String) {
        let bytes = hex::decode(hex).unwrap();
        let s = HloSharding::from_proto(&schema::OpSharding::decode(bytes.as_slice()).unwrap())
            .unwrap();
        (s.to_string(), hex::encode(s.to_proto().encode_to_vec()))
    }

    #[test]
    fn every_shard_group_type_but_as_is_like() {
        for (hex, text, back) in [
            (
                "08031a010222020001580160016863",
                "{devices=[2]0,1 shard_like 1}",
                "08031a010222020001580160016801",
            ),
            ("580160016802", "{replicated shard_like 1}", "580160016801"),
            (
                "5801600168ffffffffffffffffff01",
                "{replicated shard_like 1}",
                "580160016801",
            ),
            ("58016001", "{replicated shard_as 1}", "58016001"),
        ] {
            assert_eq!(read(hex), (text.to_string(), back.to_string()), "{hex}");
        }
    }

    #[test]
    fn a_tiled_sharding_of_one_device_is_replicated() {
        for hex in [
            "08031a0101220105",
            "08031a020101220100",
            "08031a0201014a0101520100",
            "08031a01024a0101520100",
            "08031a0102220105",
        ] {
            assert_eq!(
                read(hex),
                ("{replicated}".to_string(), String::new()),
                "{hex}"
            );
        }
        // The metadata and the shard group stay.
        assert_eq!(
            read("08031a01012201053a0312016158016003"),
            (
                "{replicated shard_as 3}".to_string(),
                "3a0312016158016003".to_string()
            )
        );
    }

    #[test]
    fn tuples_nest() {
        assert_eq!(
            read("08022a0808022a002a0208042a0c08031a0202044a0108520100"),
            (
                "{{{replicated}, {manual}}, {devices=[2,4]<=[8]}}".to_string(),
                "08022a0808022a002a0208042a0c08031a0202044a0108520100".to_string()
            )
        );
        let (text, _) = read("08022a002a002a002a002a002a00");
        assert_eq!(
            text,
            "{{replicated}, {replicated}, {replicated}, {replicated}, {replicated}, /*index=5*/{replicated}}"
        );
        assert_eq!(text.parse::<HloSharding>().unwrap().to_string(), text);
    }

    #[test]
    fn unreduced_writes_its_reduction_metadata() {
        let sum = "08063a180a117364793a3a726564756374696f6e5f6f70120353554d";
        assert_eq!(read("0806"), ("{unreduced}".to_string(), sum.to_string()));
        assert_eq!(read(sum).1, sum);
        // PROD is read as SUM; MAX stays, after the other metadata.
        assert_eq!(
            read("08063a190a117364793a3a726564756374696f6e5f6f70120450524f44").1,
            sum
        );
        assert_eq!(
            read("08063a180a117364793a3a726564756374696f6e5f6f7012034d41583a03120161").1,
            "08063a031201613a180a117364793a3a726564756374696f6e5f6f7012034d4158"
        );
    }

    #[test]
    fn what_xla_refuses_is_refused_with_its_reason() {
        for (hex, message) in [
            ("080122020001", "but 2 has provided"),
            ("0863", "unknown OpSharding type 99"),
            (
                "08031a01014a0102520100",
                "does not match the tile assignment dimensions product",
            ),
            (
                "08022a003a03120161",
                "Tuple sharding is expected to have no metadata.",
            ),
            (
                "08031a0202044201024a0108520100",
                "OpSharding type 2 cannot be a subgroup type",
            ),
        ] {
            let bytes = hex::decode(hex).unwrap();
            let p = schema::OpSharding::decode(bytes.as_slice()).unwrap();
            let error = HloSharding::from_proto(&p).unwrap_err();
            assert!(error.message().contains(message), "{hex}: {error}");
        }
    }
}
