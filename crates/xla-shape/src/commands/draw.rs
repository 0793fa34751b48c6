//! `draw`: a shape's layout, or a strided view, as an SVG picture.

#[cfg(feature = "cli")]
use std::path::Path;

use index_util::TiledLayout;
use schema::Shape;
#[cfg(feature = "cli")]
use serde_json::json;
use sharding_util::HloSharding;

#[cfg(feature = "cli")]
use super::{Outcome, files, shape};
#[cfg(feature = "cli")]
use crate::cli::DrawArgs;
use crate::operand::shape_or_dims;
use crate::{Error, draw};

/// The SVG on standard output, or written to `--output` (whole or not at
/// all).
#[cfg(feature = "cli")]
pub fn run(args: &DrawArgs) -> Outcome {
    let svg = if let Some(text) = &args.sharding {
        let shape = shape(&args.shape)?;
        let s = super::shard::sharding_in(text, args.mesh.as_deref())
            .map_err(|e| super::shard::message(&e))?;
        let axes = super::shard::shardy_mesh_axes(text, args.mesh.as_deref());
        let devices = super::shard::mesh_device_count(&[text], args.mesh.as_deref(), args.devices)
            .map_err(|e| e.to_string())?;
        let ids = args.device_ids.as_ref().map(|ids| ids.0.as_slice());
        draw_hlo_sharding_on(&shape, &s, devices, (axes.as_deref(), ids))
            .map_err(|e| super::shard::message(&e))?
    } else if args.view {
        draw_view(&args.shape, &args.ops)?
    } else {
        draw_shape(&shape(&args.shape)?)?
    };
    match &args.output {
        None => Ok((svg.clone(), json!({ "svg": svg }))),
        Some(path) => {
            write_whole(path, &svg)?;
            Ok((
                format!("wrote {}", path.display()),
                json!({ "output": path.display().to_string(), "bytes": svg.len() }),
            ))
        }
    }
}

/// The SVG picture of `shape`'s layout.
pub fn draw_shape(shape: &Shape) -> Result<String, String> {
    Ok(draw::render(&draw::shape::picture(shape, &buffer(shape)?)?))
}

/// The SVG picture of the view after `ops` applied to `base` (as for
/// `view`): the view's grid above the base buffer.
pub fn draw_view(base: &str, ops: &[String]) -> Result<String, String> {
    let view = stride_util::resolve_view(base, ops).map_err(|e| e.to_string())?;
    // A bare `[d0,...]` is packed row-major, as XLA's default layout of
    // `f32[d0,...]`.
    let (base_shape, _) = shape_or_dims(base).map_err(|e| e.to_string())?;
    let title = format!("{} {}", base.trim(), ops.join(" "));
    Ok(draw::render(&draw::view::picture(
        title.trim_end(),
        &base_shape,
        &buffer(&base_shape)?,
        &view,
    )?))
}

/// The SVG picture of `shape` split over devices by the sharding `text`
/// (over `devices` devices when it names no count), over a mesh of
/// `mesh_axes` when given.
///
/// # Errors
/// [`Error::Sharding`] for a sharding that names no device count where
/// `devices` is `None` (the caller says how to give one); else
/// [`Error::Picture`] with the parser's or the picture's message.
pub fn draw_sharding(
    shape: &Shape,
    text: &str,
    devices: Option<i64>,
    mesh_axes: Option<&[(String, i64)]>,
) -> Result<String, Error> {
    let s = super::shard::sharding(text).map_err(|e| Error::picture(e.to_string()))?;
    draw_hlo_sharding(shape, &s, devices, mesh_axes)
}

/// The SVG picture of `shape` split over devices by `s`, as
/// [`draw_sharding`] draws it.
pub(crate) fn draw_hlo_sharding(
    shape: &Shape,
    s: &HloSharding,
    devices: Option<i64>,
    mesh_axes: Option<&[(String, i64)]>,
) -> Result<String, Error> {
    draw_hlo_sharding_on(shape, s, devices, (mesh_axes, None))
}

/// [`draw_hlo_sharding`] with the device id of each device number when
/// `device_ids` is given.
pub(crate) fn draw_hlo_sharding_on(
    shape: &Shape,
    s: &HloSharding,
    devices: Option<i64>,
    (mesh_axes, device_ids): draw::sharding::MeshDevices<'_>,
) -> Result<String, Error> {
    // The sharding's own count before the ids', so that ids of another
    // count are refused as such.
    let n = s.device_count(devices.or_else(|| {
        s.num_devices()
            .or_else(|| device_ids.and_then(|ids| i64::try_from(ids.len()).ok()))
    }))?;
    let picture =
        draw::sharding::picture(shape, s, n, (mesh_axes, device_ids)).map_err(Error::picture)?;
    Ok(draw::render(&picture))
}

/// The buffer of `shape`, tiles included: the picture asks it only for
/// what it shows.
fn buffer(shape: &Shape) -> Result<TiledLayout, String> {
    TiledLayout::new(shape).map_err(|e| e.to_string())
}

/// Writes the SVG `text` and a newline to `path`, whole or not at all.
#[cfg(feature = "cli")]
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    if path.file_name().is_none() {
        return Err(format!("--output {} is not a file name", path.display()));
    }
    files::write_output(path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
