//! `NamedShardingProto` ↔ [`NamedSharding`], as XLA's `NamedSharding::ToProto`
//! and `FromProto` (`OpSharding.named_sharding`, field 14).

use schema::axis_ref_proto::SubAxis;
use schema::mesh_proto::{IotaTransform, MeshAxis};
use schema::named_sharding_proto::DimensionSharding as DimProto;
use schema::{AxisRefProto, MeshProto, NamedShardingProto, OpMetadata};

use crate::error::{ErrorKind, ShardingError};
use crate::named::{
    AxisRef, DimSharding, Mesh, MeshDevices, NamedSharding, sub_axis_shape_error, unsorted,
};
use crate::reduction::Reduction;
use crate::tile_assignment::not_a_permutation;

fn ref_to_proto(r: &AxisRef) -> AxisRefProto {
    AxisRefProto {
        mesh_axis_index: i64::try_from(r.axis).unwrap_or(i64::MAX),
        sub_axis_info: r.sub.map(|(pre_size, size)| SubAxis { pre_size, size }),
    }
}

fn ref_from_proto(p: &AxisRefProto) -> Result<AxisRef, ShardingError> {
    let axis = usize::try_from(p.mesh_axis_index).map_err(|_| {
        ShardingError::new(
            ErrorKind::Invalid,
            format!("mesh axis index {} is negative", p.mesh_axis_index),
        )
    })?;
    Ok(AxisRef {
        axis,
        sub: p.sub_axis_info.map(|s| (s.pre_size, s.size)),
    })
}

fn refs_from_proto(list: &[AxisRefProto]) -> Result<Vec<AxisRef>, ShardingError> {
    list.iter().map(ref_from_proto).collect()
}

/// The sub-axes' pre-sizes and sizes, which XLA checks first, as it reads
/// each axis reference: dimensions, then replicated, unreduced, manual.
fn check_sub_axis_shapes(p: &NamedShardingProto, mesh: &MeshProto) -> Result<(), ShardingError> {
    let refs = p
        .dim_shardings
        .iter()
        .flat_map(|d| &d.axes)
        .chain(&p.replicated_axes)
        .chain(&p.unreduced_axes)
        .chain(&p.manual_axes);
    for r in refs {
        let Some(sub) = r.sub_axis_info else {
            continue;
        };
        let name = usize::try_from(r.mesh_axis_index)
            .ok()
            .and_then(|i| mesh.axes.get(i))
            .map_or_else(|| r.mesh_axis_index.to_string(), |a| a.name.clone());
        let text = format!("'{name}':({}){}", sub.pre_size, sub.size);
        if let Some(error) = sub_axis_shape_error(&text, sub.pre_size, sub.size) {
            return Err(error);
        }
    }
    Ok(())
}

/// The `replicated`, `unreduced` or `manual` list (`what`): XLA checks its
/// order before its references, so a negative axis index out of order is
/// refused for the order.
fn sorted_list_from_proto(
    what: &str,
    list: &[AxisRefProto],
) -> Result<Vec<AxisRef>, ShardingError> {
    let key = |r: &AxisRefProto| {
        let pre = r.sub_axis_info.map_or(1, |s| s.pre_size);
        (r.mesh_axis_index, pre)
    };
    let negative = list.iter().any(|r| r.mesh_axis_index < 0);
    if negative && list.windows(2).any(|w| key(&w[0]) > key(&w[1])) {
        return Err(unsorted(what));
    }
    refs_from_proto(list)
}

impl NamedSharding {
    /// The `NamedShardingProto` XLA writes, with `metadata`.
    pub fn to_proto(&self, metadata: &[OpMetadata]) -> NamedShardingProto {
        let mut mesh = MeshProto {
            axes: self
                .mesh
                .axes
                .iter()
                .map(|(name, size)| MeshAxis {
                    name: name.clone(),
                    size: *size,
                })
                .collect(),
            ..MeshProto::default()
        };
        match &self.mesh.devices {
            MeshDevices::Iota => {}
            MeshDevices::Transposed { reshape, perm } => {
                mesh.iota_transform = Some(IotaTransform {
                    reshape_dims: reshape.clone(),
                    transpose_perm: perm
                        .iter()
                        .map(|&p| i64::try_from(p).unwrap_or(i64::MAX))
                        .collect(),
                });
            }
            MeshDevices::List(ids) => mesh.device_ids = ids.clone(),
        }
        NamedShardingProto {
            mesh: Some(mesh),
            dim_shardings: self
                .dims
                .iter()
                .map(|d| DimProto {
                    axes: d.axes.iter().map(ref_to_proto).collect(),
                    is_closed: d.closed,
                })
                .collect(),
            replicated_axes: self.replicated.iter().map(ref_to_proto).collect(),
            unreduced_axes: self.unreduced.iter().map(ref_to_proto).collect(),
            manual_axes: self.manual.iter().map(ref_to_proto).collect(),
            reduction_op: self.reduction.proto_value(),
            metadata: metadata.to_vec(),
        }
    }

    /// The named sharding a `NamedShardingProto` describes, and its
    /// metadata (kept as written: XLA reads no reduction entry there),
    /// checked as [`Self::validate`] does. A `reduction_op` XLA has no name
    /// for is read as a sum, as XLA 0.12 reads it.
    ///
    /// # Errors
    ///
    /// What [`Self::validate`] rejects, a negative axis index, and an iota
    /// transform that is not one.
    pub fn from_proto(p: &NamedShardingProto) -> Result<(Self, Vec<OpMetadata>), ShardingError> {
        let mesh = p.mesh.clone().unwrap_or_default();
        check_sub_axis_shapes(p, &mesh)?;
        let devices = match (&mesh.iota_transform, mesh.device_ids.is_empty()) {
            (Some(_), false) => {
                return Err(ShardingError::new(
                    ErrorKind::Invalid,
                    "a mesh with both device_ids and iota_transform",
                ));
            }
            (Some(t), true) => {
                let perm = t
                    .transpose_perm
                    .iter()
                    .map(|&d| usize::try_from(d))
                    .collect::<Result<_, _>>()
                    .map_err(|_| not_a_permutation(&t.transpose_perm, t.reshape_dims.len()))?;
                let total = mesh
                    .axes
                    .iter()
                    .try_fold(1i64, |acc, a| acc.checked_mul(a.size))
                    .unwrap_or(i64::MAX)
                    .max(1);
                let tiles = crate::TileAssignment::iota(vec![total], t.reshape_dims.clone(), perm)?;
                match tiles.devices() {
                    crate::Devices::Iota(iota) if iota.reshape_dims().len() > 1 => {
                        MeshDevices::Transposed {
                            reshape: iota.reshape_dims().to_vec(),
                            perm: iota.transpose_perm().to_vec(),
                        }
                    }
                    _ => MeshDevices::Iota,
                }
            }
            (None, false) => MeshDevices::List(mesh.device_ids.clone()),
            (None, true) => MeshDevices::Iota,
        };
        let named = Self {
            mesh: Mesh {
                axes: mesh.axes.iter().map(|a| (a.name.clone(), a.size)).collect(),
                devices,
            },
            dims: p
                .dim_shardings
                .iter()
                .map(|d| {
                    Ok(DimSharding {
                        axes: refs_from_proto(&d.axes)?,
                        closed: d.is_closed,
                    })
                })
                .collect::<Result<_, ShardingError>>()?,
            replicated: sorted_list_from_proto("Replicated", &p.replicated_axes)?,
            unreduced: sorted_list_from_proto("Unreduced", &p.unreduced_axes)?,
            manual: sorted_list_from_proto("Manual", &p.manual_axes)?,
            reduction: Reduction::from_proto_value(p.reduction_op),
        };
        named.validate()?;
        Ok((named, p.metadata.clone()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::HloSharding;

    fn parse(text: &str) -> HloSharding {
        text.parse().unwrap()
    }

    #[test]
    fn proto_round_trip_keeps_the_named_form() {
        for text in [
            "{mesh['x'=2,'y'=4], [{'y', 'x'}, {}]}",
            "{mesh['a'=2,'b'=4], device_ids=(7,6,5,4,3,2,1,0), [{'b':(2)2}, {'a', ?}], unreduced={'b':(1)2}}",
            "{mesh['x'=2,'y'=2,'z'=2], device_ids=([2,2,2]T(2,1,0)), [{'z'}, {}], replicated={'x'}, manual={'y'}}",
            "{mesh['x'=2,'y'=4], replicated}",
            "{mesh['x'=8], manual}",
        ] {
            let s = parse(text);
            let back = HloSharding::from_proto(&s.to_proto()).unwrap();
            assert_eq!(back, s, "{text}");
            assert_eq!(back.to_string(), text);
        }
    }

    #[test]
    fn queries_go_through_the_tile_assignment_form() {
        let s = parse("{mesh['x'=2,'y'=4], [{'x'}, {'y'}]}");
        let shape = "f32[7,9]".parse().unwrap();
        assert_eq!(s.shard_shape(&shape).unwrap().to_string(), "f32[4,3]{1,0}");
        let b = s.device_box(&shape, 6).unwrap().unwrap();
        assert_eq!((b.offsets, b.limits), (vec![4, 6], vec![7, 9]));
        assert_eq!(s.replication_groups(8).unwrap().len(), 8);
    }

    #[test]
    fn what_xla_aborts_on_is_an_error_naming_the_axis() {
        for (text, message) in [
            (
                "{mesh['x'=2,'x'=4], [{'x'}]}",
                "mesh axis name 'x' is not unique",
            ),
            (
                "{mesh['x'=2,'y'=4], [{'x'}, {'x'}]}",
                "axis 'x' is used twice",
            ),
            // An axis of size 1 used twice overlaps too.
            (
                "{mesh['a'=1,'b'=3], [{}, {'a', ?}], unreduced={'a'}}",
                "axis 'a' is used twice",
            ),
            // A list out of order is refused before its references.
            (
                "{mesh['a'=4], [{}], manual={'a', 'a':(1)3}}",
                "Manual axes must be sorted",
            ),
            (
                "{mesh['x'=4], [{'x':(1)3}]}",
                "sub-axis 'x':(1)3 does not split",
            ),
            (
                "{mesh['x'=2], device_ids=(0,0), [{'x'}]}",
                "mesh device id 0",
            ),
            (
                "{mesh['x'=65536,'y'=65536], [{'x'}]}",
                "more than 2147483647 devices",
            ),
        ] {
            let error = text.parse::<HloSharding>().unwrap_err();
            assert!(error.message.contains(message), "{text}: {error}");
        }
    }

    #[test]
    fn every_reduction_op_is_read_and_the_named_ones_written_back() {
        let base = parse("{mesh['x'=2], [{}], unreduced={'x'}}").to_proto();
        for (value, text, back) in [
            (0, "{mesh['x'=2], [{}], unreduced={'x'}}", 0),
            (1, "{mesh['x'=2], [{}], unreduced=max{'x'}}", 1),
            (2, "{mesh['x'=2], [{}], unreduced=min{'x'}}", 2),
            (3, "{mesh['x'=2], [{}], unreduced={'x'}}", 0),
            (-1, "{mesh['x'=2], [{}], unreduced={'x'}}", 0),
        ] {
            let mut p = base.clone();
            p.named_sharding.as_mut().unwrap().reduction_op = value;
            let s = HloSharding::from_proto(&p).unwrap();
            assert_eq!(s.to_string(), text, "{value}");
            assert_eq!(s.to_proto().named_sharding.unwrap().reduction_op, back);
            assert_eq!(text.parse::<HloSharding>().unwrap(), s, "{text}");
        }
    }
}
