//! XLA's `HloSharding`: how an array is split over devices, with XLA's text
//! and `OpSharding` forms, per-device shard shapes and boxes, and
//! resharding plans.
//!
//! ```
//! use sharding_util::HloSharding;
//!
//! let s: HloSharding = "{devices=[2,4]<=[4,2]T(1,0)}".parse().unwrap();
//! assert_eq!(s.to_string(), "{devices=[2,4]<=[4,2]T(1,0)}");
//! ```
//!
//! Named (mesh-axes) shardings keep their text and proto form and answer
//! queries through XLA's tile-assignment form ([`HloSharding::v3_to_v2`]):
//!
//! ```
//! use sharding_util::HloSharding;
//!
//! let s: HloSharding = "{mesh['x'=2,'y'=4], [{'y','x'}, {}]}".parse().unwrap();
//! assert_eq!(s.to_string(), "{mesh['x'=2,'y'=4], [{'y', 'x'}, {}]}");
//! assert_eq!(s.num_devices(), Some(8));
//! assert_eq!(s.v3_to_v2().to_string(), "{devices=[8,1]<=[2,4]T(1,0)}");
//! ```

//! What each device holds ([`ShardReport`], [`HloSharding::device_box`],
//! [`Placement`]) and the pieces of a reshard ([`reshard_plan`]) are plain
//! types: `Display` gives `xla-shape`'s text, `Serialize` its JSON. Errors
//! carry an [`ErrorKind`].
//!
//! # Features
//!
//! - `execute` (off by default): `execute_plan`, which runs a
//!   [`ReshardPlan`] over per-device buffers with the relayout engine
//!   (`xla-relayout`, which brings rayon and the SIMD kernels). Without
//!   it the crate depends on no thread pool and no kernels.

#![forbid(unsafe_code)]

/// The README's examples, run as doctests.
#[cfg(all(doctest, feature = "execute"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod canonical;
mod cursor;
mod device;
mod device_count;
mod error;
#[cfg(feature = "execute")]
mod execute;
mod lex;
mod named;
mod named_proto;
mod named_text;
mod parse;
mod print;
mod proto;
mod queries;
mod reduction;
mod reshard;
pub mod sdy;
mod shard_report;
mod sharding;
mod table;
mod tile_assignment;
mod tiles;
mod tuple_sharding;
mod v3_to_v2;
mod value;

pub use canonical::CanonicalSharding;
pub use device::{DeviceBox, Placement, data_bytes};
pub use error::{ErrorKind, ParseError, ShardingError};
#[cfg(feature = "execute")]
pub use execute::execute_plan;
pub use named::{AxisRef, DimSharding, Mesh, MeshDevices, NamedSharding};
pub use reduction::Reduction;
pub use reshard::{MAX_PIECES, Piece, ReshardPlan, reshard_plan, reshard_plan_between};
pub use shard_report::{DeviceShard, MAX_LISTED_DEVICES, ShardReport};
pub use sharding::{HloSharding, Kind, ShardGroup, SubgroupType};
pub use tile_assignment::{Devices, Iota, MAX_DEVICES, MAX_MATERIALIZED, TileAssignment};
