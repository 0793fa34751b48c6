//! `index`: multi-dimensional <-> linear index under a shape's layout and
//! padding.

use index_util::PhysicalLayout;
use serde_json::json;

use super::{Outcome, list, parse_list, shape};
use crate::cli::IndexArgs;

/// The linear index of `--multi`, or the multi-dimensional index of
/// `--linear`.
pub fn run(args: &IndexArgs) -> Outcome {
    let layout = PhysicalLayout::new(&shape(&args.shape)?).map_err(|e| e.to_string())?;
    let (linear, multi) = match (&args.linear, &args.multi) {
        (Some(linear), _) => {
            let linear: i64 = linear
                .trim()
                .parse()
                .map_err(|_| format!("--linear {linear:?} is not an integer"))?;
            let multi = layout
                .multidimensional_index(linear)
                .map_err(|e| e.to_string())?;
            (linear, multi)
        }
        (None, Some(multi)) => {
            let multi = parse_list(multi).map_err(|e| format!("--multi: {e}"))?;
            let linear = layout.linear_index(&multi).map_err(|e| e.to_string())?;
            (linear, multi)
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
