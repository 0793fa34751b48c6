//! `draw`: a shape's layout, a strided view, or a sharding, as an SVG
//! picture.

use std::path::Path;

use serde_json::json;

use super::{Outcome, files, shape};
use crate::cli::DrawArgs;

/// The SVG on standard output, or written to `--output` (whole or not at
/// all).
pub fn run(args: &DrawArgs) -> Outcome {
    let svg = if let Some(text) = &args.sharding {
        let shape = shape(&args.shape)?;
        let mesh = args.mesh.as_deref();
        let s = sharding_util::sdy::read_sharding(text, mesh).map_err(super::shard::message)?;
        let axes = sharding_util::sdy::mesh_axes(text, mesh);
        let devices = sharding_util::sdy::device_count(&[text], mesh, args.devices)
            .map_err(|e| e.to_string())?;
        let drawn = match &args.device_ids {
            Some(ids) => xla_shape_front::draw_hlo_sharding_on_devices(
                &shape,
                &s,
                devices,
                axes.as_deref(),
                &ids.0,
            ),
            None => xla_shape_front::draw_hlo_sharding(&shape, &s, devices, axes.as_deref()),
        };
        drawn.map_err(super::shard::message)?
    } else if args.view {
        xla_shape_front::draw_view(&args.shape, &args.ops).map_err(|e| e.to_string())?
    } else {
        xla_shape_front::draw(&shape(&args.shape)?).map_err(|e| e.to_string())?
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

/// Writes the SVG `text` and a newline to `path`, whole or not at all.
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    if path.file_name().is_none() {
        return Err(format!("--output {} is not a file name", path.display()));
    }
    files::write_output(path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
