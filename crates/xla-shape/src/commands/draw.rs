//! `draw`: a shape's layout, or a strided view, as an SVG picture.

use std::io::Write;
use std::path::Path;

use index_util::TiledLayout;
use schema::Shape;
use serde_json::json;

use super::{Outcome, shape, view};
use crate::cli::DrawArgs;
use crate::draw;

/// The SVG on standard output, or written to `--output` (whole or not at
/// all).
pub fn run(args: &DrawArgs) -> Outcome {
    let svg = if let Some(text) = &args.sharding {
        draw_sharding(&shape(&args.shape)?, text, args.devices)?
    } else if args.view {
        let view = view::resolve(&args.shape, &args.ops)?;
        // `view` already accepted the base; a bare `[d0,...]` is packed
        // row-major, as XLA's default layout of `f32[d0,...]`.
        let base = args.shape.trim();
        let base = if base.starts_with('[') {
            shape(&format!("f32{base}"))?
        } else {
            shape(base)?
        };
        let title = format!("{} {}", args.shape.trim(), args.ops.join(" "));
        draw::render(&draw::view::picture(
            title.trim_end(),
            &base,
            &buffer(&base)?,
            &view,
        )?)
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

/// The SVG picture of `shape` split over devices by the sharding `text`
/// (over `devices` devices when it names no count).
pub fn draw_sharding(shape: &Shape, text: &str, devices: Option<i64>) -> Result<String, String> {
    let s = super::shard::sharding(text)?;
    let n = s
        .device_count(devices)
        .map_err(|e| super::shard::message(&e))?;
    Ok(draw::render(&draw::sharding::picture(shape, &s, n)?))
}

/// The buffer of `shape`, tiles included: the picture asks it only for
/// what it shows.
fn buffer(shape: &Shape) -> Result<TiledLayout, String> {
    TiledLayout::new(shape).map_err(|e| e.to_string())
}

/// Writes `text` to a temporary file beside `path`, then renames it: a
/// failure leaves no partial file.
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("--output {} is not a file name", path.display()))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(temporary_name);
    let written = std::fs::File::create(&temporary)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot write {}: {e}", path.display())
    })
}
