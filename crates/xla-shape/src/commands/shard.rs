//! `shard`: what each device holds of a global array under a sharding
//! (sharding-util's [`ShardReport`]).

use schema::Shape;
use sharding_util::sdy::{MeshRef, SdyMesh, SdySharding, SdyShardingPerValue, ShardyError};
use sharding_util::{HloSharding, Kind, ShardReport};

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
/// export does; a `#sdy.sharding_per_value<[...]>` (one sharding per
/// result) is the tuple sharding of its elements.
pub(crate) fn sharding_in(text: &str, mesh: Option<&str>) -> Result<HloSharding, Error> {
    let text = text.trim();
    if !(text.starts_with("#sdy") || text.starts_with('<')) {
        return Ok(sharding(text)?);
    }
    let converted = (|| -> Result<HloSharding, ShardyError> {
        let mesh: Option<SdyMesh> = mesh.map(str::parse).transpose()?;
        if text.starts_with("#sdy.sharding_per_value") {
            // One sharding per result: XLA's tuple sharding of them.
            let list: SdyShardingPerValue = text.parse()?;
            let elements = list
                .0
                .iter()
                .map(|s| s.to_hlo(mesh.as_ref()))
                .collect::<Result<_, _>>()?;
            return Ok(HloSharding::new(Kind::Tuple(elements)));
        }
        let s: SdySharding = text.parse()?;
        Ok(s.to_hlo(mesh.as_ref())?)
    })();
    converted.map_err(|e| match e {
        ShardyError::Parse(e) => Error::from(e),
        ShardyError::Sharding(e) => Error::from(e),
        other => Error::Shardy(other),
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

/// The device count of the Shardy shardings among `texts` over `mesh`:
/// their mesh's (a mesh with axes names its devices, as
/// `mhlo.num_partitions` of jax's lowered module does), else `devices`,
/// else 1 for the empty mesh (`<[]>`, which jax lowers a one-device mesh
/// to; over more devices it replicates, so it contradicts no count).
///
/// # Errors
/// A `devices` that the mesh contradicts, or two meshes of different
/// counts.
pub(crate) fn mesh_device_count(
    texts: &[&str],
    mesh: Option<&str>,
    devices: Option<i64>,
) -> Result<Option<i64>, Error> {
    let given: Option<SdyMesh> = mesh.and_then(|m| m.parse().ok());
    let mut count: Option<(i64, &str)> = devices.map(|d| (d, "--devices"));
    let mut empty = false;
    for text in texts {
        let Ok(s) = text.trim().parse::<SdySharding>() else {
            continue;
        };
        let Ok(resolved) = s.resolve_mesh(given.as_ref()) else {
            continue;
        };
        if resolved.axes.is_empty() {
            empty |= resolved.device_ids.is_none();
            continue;
        }
        let n = resolved.device_count()?;
        match count {
            Some((m, from)) if m != n => {
                return Err(Error::MeshDevices {
                    message: format!(
                        "the mesh of {} holds {n} devices, but {from} says {m}",
                        text.trim()
                    ),
                });
            }
            Some(_) => {}
            None => count = Some((n, "the first sharding's mesh")),
        }
    }
    Ok(count.map(|(n, _)| n).or(empty.then_some(1)))
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
    let mesh = args.mesh.as_deref();
    let s = sharding_in(&args.sharding, mesh).map_err(|e| message(&e))?;
    let devices =
        mesh_device_count(&[&args.sharding], mesh, args.devices).map_err(|e| e.to_string())?;
    let report: Result<_, Error> = ShardReport::new(&s, &shape, devices).map_err(Error::from);
    reported(&report.map_err(|e| message(&e))?)
}

/// What each device holds of `shape` under the sharding `text` (with
/// `devices` devices when the sharding names no count).
pub(crate) fn shard(shape: &Shape, text: &str, devices: Option<i64>) -> Result<ShardReport, Error> {
    Ok(ShardReport::new(&sharding(text)?, shape, devices)?)
}
