//! `shard`: what each device holds of a global array under a sharding
//! (sharding-util's [`ShardReport`]).

use schema::Shape;
use sharding_util::sdy::{MeshRef, SdyMesh, SdySharding, ShardyError};
use sharding_util::{HloSharding, ShardReport};

use crate::Error;

#[cfg(feature = "cli")]
use super::{Outcome, reported, shape};
#[cfg(feature = "cli")]
use crate::cli::ShardArgs;

/// A parsed sharding.
pub(crate) fn sharding(text: &str) -> Result<HloSharding, sharding_util::ParseError> {
    text.trim().parse()
}

/// A sharding in XLA's text or, starting with `#sdy` or `<`, in Shardy's
/// (with `mesh`, the Shardy mesh it names), converted as XLA's Shardy
/// export does.
pub(crate) fn sharding_in(text: &str, mesh: Option<&str>) -> Result<HloSharding, Error> {
    let text = text.trim();
    if !(text.starts_with("#sdy") || text.starts_with('<')) {
        return Ok(sharding(text)?);
    }
    let converted = (|| -> Result<HloSharding, ShardyError> {
        let s: SdySharding = text.parse()?;
        let mesh: Option<SdyMesh> = mesh.map(str::parse).transpose()?;
        Ok(s.to_hlo(mesh.as_ref())?)
    })();
    converted.map_err(|e| match e {
        ShardyError::Parse(e) => Error::from(e),
        ShardyError::Sharding(e) => Error::from(e),
    })
}

/// The axes (names and sizes, major first) of the mesh a Shardy sharding
/// `text` is over: its inline mesh, or `mesh`. `None` for XLA's text, a
/// mesh without axes, or text that does not read (reading the sharding
/// itself says why).
pub(crate) fn shardy_mesh_axes(text: &str, mesh: Option<&str>) -> Option<Vec<(String, i64)>> {
    let s: SdySharding = text.trim().parse().ok()?;
    let axes = match s.mesh {
        MeshRef::Inline(inline) => inline.axes,
        MeshRef::Symbol(_) => mesh?.parse::<SdyMesh>().ok()?.axes,
    };
    (!axes.is_empty()).then_some(axes)
}

/// The command line's message for `error`: how to give a device count
/// where the sharding lacks one.
#[cfg(feature = "cli")]
pub(crate) fn message(error: &Error) -> String {
    error.with_device_count_hint("--devices N")
}

/// The per-device table (plain) and its JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ShardArgs) -> Outcome {
    let shape = shape(&args.shape)?;
    let report = sharding_in(&args.sharding, args.mesh.as_deref())
        .and_then(|s| Ok(ShardReport::new(&s, &shape, args.devices)?));
    reported(&report.map_err(|e| message(&e))?)
}

/// What each device holds of `shape` under the sharding `text` (with
/// `devices` devices when the sharding names no count).
pub(crate) fn shard(shape: &Shape, text: &str, devices: Option<i64>) -> Result<ShardReport, Error> {
    Ok(ShardReport::new(&sharding(text)?, shape, devices)?)
}
