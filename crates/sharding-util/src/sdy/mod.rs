//! Shardy's text (`#sdy.mesh`, `#sdy.sharding`, `#sdy.sharding_per_value`,
//! `sdy.mesh @name = ...` lines): read, printed, verified as Shardy's
//! verifier does, and converted to XLA's [`crate::HloSharding`] as XLA's
//! Shardy export does.
//!
//! ```
//! use sharding_util::sdy::{SdyMesh, SdySharding};
//!
//! let mesh: SdyMesh = r#"sdy.mesh @mesh = <["a"=2, "b"=4]>"#.parse().unwrap();
//! let s: SdySharding = r#"#sdy.sharding<@mesh, [{"b", "a"}, {}]>"#.parse().unwrap();
//! assert_eq!(s.to_hlo(Some(&mesh)).unwrap().to_string(), "{devices=[8,1]<=[2,4]T(1,0)}");
//! ```

mod convert;
mod error;
mod from_hlo;
mod lowered;
mod lowered_header;
mod lowered_report;
mod mesh;
mod mesh_index;
mod parse;
mod print;
mod read;
mod sharding;
mod verify;

pub use error::{ShardyError, TensorTypeError};
pub use lowered::{LoweredModule, LoweredValue, ValueKind, tensor_shape};
pub use lowered_report::{
    LoweredEntry, LoweredReport, LoweredTotals, MAX_LISTED_BYTES, ShardingSource,
};
pub use mesh::SdyMesh;
pub use read::{CountSource, DeviceCountError, device_count, is_shardy, mesh_axes, read_sharding};
pub use sharding::{MeshRef, SdyAxisRef, SdyDim, SdySharding, SdyShardingPerValue};
