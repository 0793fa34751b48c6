//! `index`: multi-dimensional index <-> position in the buffer under a
//! shape's layout (tiles and padding included).

use index_util::TiledLayout;
use serde_json::json;

use super::{Outcome, list, shape_or_dims};
use crate::cli::IndexArgs;

/// The buffer position of `--multi`, or the multi-dimensional index of the
/// element at position `--linear`; `order` lists the same positions.
pub fn run(args: &IndexArgs) -> Outcome {
    let layout = TiledLayout::new(&shape_or_dims(&args.shape)?.0).map_err(|e| e.to_string())?;
    let (linear, multi) = match (&args.linear, &args.multi) {
        (Some(linear), _) => {
            let multi = layout
                .logical(*linear)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("linear index {linear} falls in the padding"))?;
            (*linear, multi)
        }
        (None, Some(multi)) => {
            let linear = layout.position(&multi.0).map_err(|e| e.to_string())?;
            (linear, multi.0.clone())
        }
        (None, None) => return Err("give --linear N or --multi i,j,...".to_owned()),
    };
    let plain = if args.linear.is_some() {
        list(&multi)
    } else {
        linear.to_string()
    };
    Ok((plain, json!({"linear": linear, "multi": multi})))
}
