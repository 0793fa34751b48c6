//! A sharding given as text, XLA's or Shardy's, over an optional Shardy
//! mesh: how every front end (the CLI's `--sharding`, `--from`, `--to`
//! and `--mesh`, the Python package, the explorer page) reads a sharding
//! argument, decided here once.

use super::{MeshRef, SdyMesh, SdySharding, SdyShardingPerValue, ShardyError};
use crate::{HloSharding, Kind, ShardingError};

/// Whether `text` is Shardy's sharding text (`#sdy.sharding<...>`,
/// `#sdy.sharding_per_value<...>`, or the bare `<...>`) rather than XLA's.
///
/// ```
/// use sharding_util::sdy::is_shardy;
/// assert!(is_shardy(r#" #sdy.sharding<@mesh, [{"a"}]>"#));
/// assert!(is_shardy(r#"<@mesh, [{"a"}]>"#));
/// assert!(!is_shardy("{devices=[2]<=[2]}"));
/// ```
#[must_use]
pub fn is_shardy(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("#sdy") || text.starts_with('<')
}

/// The sharding `text` holds: XLA's text, or Shardy's ([`is_shardy`])
/// converted as XLA's Shardy export converts it, its `@name` resolved by
/// `mesh` (`<["a"=2, "b"=4]>`, `#sdy.mesh<...>` or a whole
/// `sdy.mesh @mesh = <...>` line); a `#sdy.sharding_per_value<[...]>` (one
/// sharding per result) is the tuple sharding of its elements.
///
/// ```
/// use sharding_util::sdy::read_sharding;
/// let mesh = Some(r#"sdy.mesh @mesh = <["a"=2, "b"=4]>"#);
/// let s = read_sharding(r#"#sdy.sharding<@mesh, [{"b"}, {"a"}]>"#, mesh).unwrap();
/// assert_eq!(s.to_string(), "{devices=[4,2]<=[2,4]T(1,0)}");
/// assert_eq!(read_sharding(" {replicated} ", None).unwrap().to_string(), "{replicated}");
/// let error = read_sharding(r#"#sdy.sharding<@mesh, [{"a"}, {"a"}]>"#, mesh).unwrap_err();
/// assert_eq!(error.to_string(), r#"duplicate axis ref: "a""#);
/// ```
///
/// # Errors
/// [`ShardyError::Parse`]: the text (sharding or mesh) does not parse;
/// [`ShardyError::Sharding`]: Shardy's verifier's message for a sharding
/// that does not fit its mesh.
pub fn read_sharding(text: &str, mesh: Option<&str>) -> Result<HloSharding, ShardyError> {
    let text = text.trim();
    if !is_shardy(text) {
        return Ok(text.parse()?);
    }
    let mesh: Option<SdyMesh> = mesh.map(str::parse).transpose()?;
    if text.starts_with("#sdy.sharding_per_value") {
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
}

/// The axes (names and sizes, major first) of the mesh a Shardy sharding
/// `text` is over: its inline mesh, or `mesh`. `None` for XLA's text, a
/// mesh without axes, or text that does not read ([`read_sharding`] says
/// why).
///
/// ```
/// use sharding_util::sdy::mesh_axes;
/// let axes = mesh_axes(r#"#sdy.sharding<@mesh, [{"a"}]>"#, Some(r#"<["a"=2, "b"=4]>"#));
/// assert_eq!(axes, Some(vec![("a".to_owned(), 2), ("b".to_owned(), 4)]));
/// assert_eq!(mesh_axes("{devices=[2]<=[2]}", None), None);
/// ```
#[must_use]
pub fn mesh_axes(text: &str, mesh: Option<&str>) -> Option<Vec<(String, i64)>> {
    let s: SdySharding = text.trim().parse().ok()?;
    let axes = match s.mesh {
        MeshRef::Inline(inline) => inline.axes,
        MeshRef::Symbol(_) => mesh?.parse::<SdyMesh>().ok()?.axes,
    };
    (!axes.is_empty()).then_some(axes)
}

/// The device count of the shardings `texts` over `mesh`: a Shardy
/// sharding over a mesh with axes takes the mesh's count (as
/// `mhlo.num_partitions` of jax's lowered module does), else `devices`,
/// else 1 for the empty mesh (`<[]>`, which jax lowers a one-device mesh
/// to; over more devices it replicates, so it contradicts no count).
/// `None` when nothing names a count.
///
/// ```
/// use sharding_util::sdy::device_count;
/// let mesh = Some(r#"sdy.mesh @mesh = <["m"=4]>"#);
/// let replicated = "#sdy.sharding<@mesh, [{}]>";
/// assert_eq!(device_count(&[replicated], mesh, None).unwrap(), Some(4));
/// assert_eq!(device_count(&["{replicated}"], None, Some(2)).unwrap(), Some(2));
/// let error = device_count(&[replicated], mesh, Some(8)).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "the mesh of #sdy.sharding<@mesh, [{}]> holds 4 devices, but --devices says 8"
/// );
/// ```
///
/// # Errors
/// [`DeviceCountError::Contradicts`]: a `devices` that a mesh contradicts,
/// or two meshes of different counts; [`DeviceCountError::Sharding`]: a
/// mesh of more devices than [`crate::MAX_DEVICES`].
pub fn device_count(
    texts: &[&str],
    mesh: Option<&str>,
    devices: Option<i64>,
) -> Result<Option<i64>, DeviceCountError> {
    let given: Option<SdyMesh> = mesh.and_then(|m| m.parse().ok());
    let mut count: Option<(i64, CountSource)> = devices.map(|d| (d, CountSource::Devices));
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
            Some((given, by)) if given != n => {
                return Err(DeviceCountError::Contradicts {
                    sharding: text.trim().to_owned(),
                    mesh_devices: n,
                    given,
                    by,
                });
            }
            Some(_) => {}
            None => count = Some((n, CountSource::FirstMesh)),
        }
    }
    Ok(count.map(|(n, _)| n).or(empty.then_some(1)))
}

/// What gave the device count a mesh contradicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CountSource {
    /// The `devices` given (the CLI's `--devices`).
    Devices,
    /// The mesh of the first sharding that has one.
    FirstMesh,
}

impl std::fmt::Display for CountSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(match self {
            Self::Devices => "--devices",
            Self::FirstMesh => "the first sharding's mesh",
        })
    }
}

/// Why [`device_count`] has no count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceCountError {
    /// A mesh holds another count than the one already given.
    #[error("the mesh of {sharding} holds {mesh_devices} devices, but {by} says {given}")]
    Contradicts {
        /// The sharding whose mesh contradicts, as given (trimmed).
        sharding: String,
        /// The devices its mesh holds.
        mesh_devices: i64,
        /// The count given before.
        given: i64,
        /// What gave it.
        by: CountSource,
    },
    /// A mesh whose device count is out of range.
    #[error(transparent)]
    Sharding(#[from] ShardingError),
}
