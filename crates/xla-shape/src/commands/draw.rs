//! `draw`: a shape's layout, or a strided view, as an SVG picture.

#[cfg(feature = "cli")]
use std::path::Path;

use index_util::TiledLayout;
use schema::Shape;
#[cfg(feature = "cli")]
use serde_json::json;

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
        draw_sharding(&shape(&args.shape)?, text, args.devices)?
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
/// (over `devices` devices when it names no count).
pub fn draw_sharding(shape: &Shape, text: &str, devices: Option<i64>) -> Result<String, String> {
    let s = super::shard::sharding(text).map_err(|e| e.to_string())?;
    let n = s
        .device_count(devices)
        .map_err(|e| Error::from(e).with_device_count_hint("--devices N"))?;
    Ok(draw::render(&draw::sharding::picture(shape, &s, n)?))
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
