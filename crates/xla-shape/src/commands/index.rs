//! `index`: multi-dimensional <-> linear index under a shape's layout and
//! padding.

use index_util::PhysicalLayout;
use serde_json::json;

use super::{Outcome, list, shape_or_dims};
use crate::cli::IndexArgs;

/// The linear index of `--multi`, or the multi-dimensional index of
/// `--linear`.
pub fn run(args: &IndexArgs) -> Outcome {
    let layout = PhysicalLayout::new(&shape_or_dims(&args.shape)?.0).map_err(|e| e.to_string())?;
    let (linear, multi) = match (&args.linear, &args.multi) {
        (Some(linear), _) => {
            let multi = layout
                .multidimensional_index(*linear)
                .map_err(|e| e.to_string())?;
            (*linear, multi)
        }
        (None, Some(multi)) => {
            let linear = layout.linear_index(&multi.0).map_err(|e| e.to_string())?;
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
