//! What each device holds of an array under a sharding: the shard shape,
//! each device's tile, box and bytes, and the replication groups (the
//! report `xla-shape shard` prints).

use std::fmt;

use schema::Shape;
use serde::de::{Deserializer, Error as _};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::device::{DeviceBox, Placement, data_bytes};
use crate::error::{ErrorKind, ShardingError};
use crate::sharding::HloSharding;
use crate::table::{header, list, write_table};

/// The most devices a [`ShardReport`] lists (one row each).
pub const MAX_LISTED_DEVICES: i64 = 1 << 20;

/// What one device holds: its box of the global array (`None` when it
/// holds nothing) and the bytes of that box.
///
/// Serializes as `{"device", "tile", "offsets", "limits", "bytes"}`, with
/// `null` tile, offsets and limits for a device that holds nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceShard {
    /// The device.
    pub device: i64,
    /// Its tile and box, `None` if it holds nothing.
    pub held: Option<DeviceBox>,
    /// The bytes of its box (0 when it holds nothing).
    pub bytes: i64,
}

/// [`DeviceShard`]'s serialized fields, read back.
#[derive(Deserialize)]
struct DeviceShardFields {
    device: i64,
    tile: Option<Vec<i64>>,
    offsets: Option<Vec<i64>>,
    limits: Option<Vec<i64>>,
    bytes: i64,
}

impl<'de> Deserialize<'de> for DeviceShard {
    /// Reads the fields [`Serialize`] writes: a device holding nothing has
    /// `null` tile, offsets and limits; one holding a box has all three.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = DeviceShardFields::deserialize(deserializer)?;
        let held = match (f.tile, f.offsets, f.limits) {
            (None, None, None) => None,
            (Some(tile), Some(offsets), Some(limits)) => Some(DeviceBox {
                device: f.device,
                tile,
                offsets,
                limits,
            }),
            _ => {
                return Err(D::Error::custom(format!(
                    "device {}: tile, offsets and limits are all null or none is",
                    f.device
                )));
            }
        };
        Ok(Self {
            device: f.device,
            held,
            bytes: f.bytes,
        })
    }
}

impl Serialize for DeviceShard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let held = self.held.as_ref();
        let mut fields = serializer.serialize_struct("DeviceShard", 5)?;
        fields.serialize_field("device", &self.device)?;
        fields.serialize_field("tile", &held.map(|b| &b.tile))?;
        fields.serialize_field("offsets", &held.map(|b| &b.offsets))?;
        fields.serialize_field("limits", &held.map(|b| &b.limits))?;
        fields.serialize_field("bytes", &self.bytes)?;
        fields.end()
    }
}

/// What every device holds of an array under a sharding.
///
/// `Display` prints the shard shape, a table of the devices and the
/// replication groups; `Serialize` gives `shard_shape` (XLA's text),
/// `devices` ([`DeviceShard`]s) and `replication_groups`.
///
/// ```
/// use sharding_util::{HloSharding, ShardReport};
///
/// let s: HloSharding = "{devices=[2,2]<=[4] last_tile_dim_replicate}".parse().unwrap();
/// let report = ShardReport::new(&s, &"bf16[6]".parse().unwrap(), None).unwrap();
/// assert_eq!(report.shard_shape.to_string(), "bf16[3]{0}");
/// assert_eq!(report.replication_groups, [[0, 1], [2, 3]]);
/// assert_eq!(
///     report.to_string(),
///     "shard shape bf16[3]{0}\n\
///      device  tile  offsets  limits  bytes\n\
///      0       [0]   [0]      [3]     6\n\
///      1       [0]   [0]      [3]     6\n\
///      2       [1]   [3]      [6]     6\n\
///      3       [1]   [3]      [6]     6\n\
///      replication groups [0,1] [2,3]"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ShardReport {
    /// XLA's shard shape: each dimension divided by its tile count,
    /// rounded up.
    #[serde(serialize_with = "shape_text", deserialize_with = "text_shape")]
    pub shard_shape: Shape,
    /// Every device, in order.
    pub devices: Vec<DeviceShard>,
    /// The groups of devices holding the same data.
    pub replication_groups: Vec<Vec<i64>>,
}

impl ShardReport {
    /// What each device holds of `shape` under `sharding`, over the
    /// sharding's device count or, when it names none, `devices`
    /// ([`HloSharding::device_count`]).
    ///
    /// # Errors
    ///
    /// No device count; a sharding that does not fit the shape or the
    /// device count ([`HloSharding::validate`]); more than
    /// [`MAX_LISTED_DEVICES`] devices; byte sizes beyond `i64`.
    pub fn new(
        sharding: &HloSharding,
        shape: &Shape,
        devices: Option<i64>,
    ) -> Result<Self, ShardingError> {
        let n = sharding.device_count(devices)?;
        sharding.validate(shape, n)?;
        if n > MAX_LISTED_DEVICES {
            return Err(ShardingError::new(
                ErrorKind::TooLarge,
                format!("{n} devices are more than the {MAX_LISTED_DEVICES} a table lists"),
            ));
        }
        let shard_shape = sharding.shard_shape(shape)?;
        let bits = shape_util::element_size_in_bits(shape)
            .map_err(|e| ShardingError::new(ErrorKind::Unsupported, e.to_string()))?;
        let placement = Placement::new(sharding, shape)?;
        let devices = (0..n)
            .map(|device| {
                let held = placement.device_box(device)?;
                let bytes = match &held {
                    Some(b) => b
                        .elements()
                        .and_then(|e| data_bytes(e, bits))
                        .ok_or_else(|| {
                            ShardingError::new(
                                ErrorKind::TooLarge,
                                format!(
                                    "the bytes of device {device}'s box {} to {} of {} are beyond i64",
                                    list(&b.offsets),
                                    list(&b.limits),
                                    shape.human_string()
                                ),
                            )
                        })?,
                    None => 0,
                };
                Ok(DeviceShard {
                    device,
                    held,
                    bytes,
                })
            })
            .collect::<Result<_, ShardingError>>()?;
        Ok(Self {
            shard_shape,
            devices,
            replication_groups: sharding.replication_groups(n)?,
        })
    }
}

impl fmt::Display for ShardReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "shard shape {}", self.shard_shape)?;
        write_table(f, self.devices.len() + 1, |i, cells| {
            let Some(d) = i.checked_sub(1).map(|i| &self.devices[i]) else {
                cells.extend(header(&["device", "tile", "offsets", "limits", "bytes"]));
                return;
            };
            cells.push(d.device.to_string());
            match &d.held {
                Some(b) => cells.extend([list(&b.tile), list(&b.offsets), list(&b.limits)]),
                None => cells.extend(["-".into(), "-".into(), "-".into()]),
            }
            cells.push(d.bytes.to_string());
        })?;
        f.write_str("replication groups")?;
        for group in &self.replication_groups {
            write!(f, " {}", list(group))?;
        }
        Ok(())
    }
}

/// A shape read back from XLA's text.
fn text_shape<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
    String::deserialize(deserializer)?
        .parse()
        .map_err(D::Error::custom)
}

/// A shape as XLA's text.
fn shape_text<S: Serializer>(shape: &Shape, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(shape)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn sizes_beyond_i64_are_errors() {
        let shape: Shape = "f32[4294967296,4294967296]".parse().unwrap();
        let replicated: HloSharding = "{replicated}".parse().unwrap();
        let error = ShardReport::new(&replicated, &shape, Some(1)).unwrap_err();
        assert_eq!(
            (error.kind(), error.message()),
            (
                ErrorKind::TooLarge,
                "the bytes of device 0's box [0,0] to [4294967296,4294967296] of \
                 f32[4294967296,4294967296] are beyond i64"
            )
        );
        let error = crate::reshard_plan(&shape, &replicated, &replicated, Some(1)).unwrap_err();
        assert_eq!(
            (error.kind(), error.message()),
            (
                ErrorKind::TooLarge,
                "the bytes of the piece [0,0] to [4294967296,4294967296] of \
                 f32[4294967296,4294967296] are beyond i64"
            )
        );
    }

    #[test]
    fn bytes_are_bounded_not_bits() {
        // 2^60 bytes fit in i64 (XLA's `ValidateShapeSize` bounds bytes);
        // their 2^63 bits do not.
        let shape: Shape = "s8[1152921504606846976]".parse().unwrap();
        let replicated: HloSharding = "{replicated}".parse().unwrap();
        let report = ShardReport::new(&replicated, &shape, Some(2)).unwrap();
        assert_eq!(report.devices[1].bytes, 1 << 60);
        let plan = crate::reshard_plan(&shape, &replicated, &replicated, Some(2)).unwrap();
        assert_eq!(plan.bytes_kept, 1 << 61);
    }

    #[test]
    fn an_empty_dimension_makes_zero_bytes_whatever_the_others() {
        // 9223372035496739072 * 7 overflows, but the array has no element.
        let shape: Shape = "u8[9223372035496739072,7,0]".parse().unwrap();
        let replicated: HloSharding = "{replicated}".parse().unwrap();
        let report = ShardReport::new(&replicated, &shape, Some(2)).unwrap();
        assert_eq!(report.devices[1].bytes, 0);
        let plan = crate::reshard_plan(&shape, &replicated, &replicated, Some(2)).unwrap();
        assert_eq!((plan.pieces.len(), plan.bytes_kept), (0, 0));
    }

    #[test]
    fn a_device_holding_nothing_has_no_box_and_prints_dashes() {
        let s: HloSharding = "{maximal device=1}".parse().unwrap();
        let report = ShardReport::new(&s, &"s8[2]".parse().unwrap(), Some(2)).unwrap();
        assert_eq!(report.devices[0].held, None);
        assert!(
            report
                .to_string()
                .contains("\n0       -     -        -       0\n")
        );
    }
}
