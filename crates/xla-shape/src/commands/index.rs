//! `index`: multi-dimensional index <-> position in the buffer under a
//! shape's layout (tiles and padding included), as index-util's
//! [`index_util::ElementIndex`].

use index_util::{ElementIndex, TiledLayout};

use super::{Outcome, reported, shape_or_dims};
use crate::cli::IndexArgs;

/// The buffer position of `--multi`, or the multi-dimensional index of the
/// element at position `--linear`; `order` lists the same positions.
pub fn run(args: &IndexArgs) -> Outcome {
    let layout = TiledLayout::new(&shape_or_dims(&args.shape)?.0).map_err(|e| e.to_string())?;
    let found = match (&args.linear, &args.multi) {
        (Some(linear), _) => ElementIndex::of_position(&layout, *linear),
        (None, Some(multi)) => ElementIndex::of_index(&layout, &multi.0),
        (None, None) => return Err("give --linear N or --multi i,j,...".to_owned()),
    };
    reported(&found.map_err(|e| e.to_string())?)
}
