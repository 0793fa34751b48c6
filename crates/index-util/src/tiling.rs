//! Linear indices under nested tiling (XLA's
//! `LayoutUtil::LinearIndexForNestedTiling`).

use schema::{COMBINE_DIMENSION, Shape};

use crate::{IndexError, PhysicalLayout};

/// The linear index of `index` in the buffer of a tiled array, applying
/// every tile of the layout in turn, as XLA's
/// `LayoutUtil::LinearIndexForNestedTiling`.
///
/// Start from the physical dimensions (most major first). Each tile of rank
/// `r` replaces the last `r` dimensions (after padding with leading 1s if
/// there are fewer) by `ceil(d / t)` outer dimensions followed by the `t`
/// inner ones, and the index entries `i` by `i / t` and `i % t`. The result
/// is linearized row-major; the tiles' padding counts as buffer space.
/// Without tiles this is the untiled physical linear index. Classic padding
/// (`padded_dimensions`) is not combined with tiles: the dimension sizes are
/// tiled. This is XLA's per-index formula, with no buffer-level checks:
/// [`TiledLayout`](crate::TiledLayout) also supports `*`, checks the buffer
/// size once, and refuses tilings whose positions pass XLA's allocation.
///
/// # Errors
///
/// As [`PhysicalLayout::new`] and [`PhysicalLayout::linear_index`] (wrong
/// rank, out of bounds); [`IndexError::CombineDimensionInTile`] for a `*`
/// tile dimension; [`IndexError::Overflow`] if the tiled buffer has more
/// than `i64::MAX` elements.
///
/// ```
/// use index_util::linear_index_for_nested_tiling as tiled;
/// // XLA's tests: 13 untiled, 11 with 2x2 tiles.
/// assert_eq!(tiled(&"f32[8,4]{1,0:T(2,2)}".parse().unwrap(), &[3, 1]).unwrap(), 11);
/// assert_eq!(tiled(&"f32[8,4]{1,0}".parse().unwrap(), &[3, 1]).unwrap(), 13);
/// let bf16: schema::Shape = "bf16[2048]{0:T(1024)(128)(2,1)}".parse().unwrap();
/// assert_eq!(tiled(&bf16, &[128]).unwrap(), 1);
/// assert_eq!(tiled(&bf16, &[1]).unwrap(), 2);
/// ```
pub fn linear_index_for_nested_tiling(shape: &Shape, index: &[i64]) -> Result<i64, IndexError> {
    let layout = PhysicalLayout::new(shape)?;
    layout.linear_index(index)?;
    let overflow = || IndexError::Overflow {
        shape: Box::new(shape.clone()),
    };
    // Physical order, most major first.
    let mut dims: Vec<i64> = Vec::with_capacity(layout.rank());
    let mut idx: Vec<i64> = Vec::with_capacity(layout.rank());
    for &d in layout.minor_to_major().iter().rev() {
        dims.push(layout.dimensions()[d]);
        idx.push(index[d]);
    }
    for tile in shape.layout.iter().flat_map(|l| &l.tiles) {
        let t = &tile.dimensions;
        if t.contains(&COMBINE_DIMENSION) {
            return Err(IndexError::CombineDimensionInTile {
                tile: tile.to_string(),
            });
        }
        if dims.len() < t.len() {
            let missing = t.len() - dims.len();
            dims.splice(0..0, std::iter::repeat_n(1, missing));
            idx.splice(0..0, std::iter::repeat_n(0, missing));
        }
        let split = dims.len() - t.len();
        let (mut outer_dims, mut outer_idx) = (dims[..split].to_vec(), idx[..split].to_vec());
        let (mut inner_dims, mut inner_idx) = (Vec::new(), Vec::new());
        // Validation guarantees tile dimensions are positive here.
        for ((&d, &i), &t) in dims[split..].iter().zip(&idx[split..]).zip(t) {
            outer_dims.push(d / t + i64::from(d % t != 0));
            outer_idx.push(i / t);
            inner_dims.push(t);
            inner_idx.push(i % t);
        }
        outer_dims.append(&mut inner_dims);
        outer_idx.append(&mut inner_idx);
        dims = outer_dims;
        idx = outer_idx;
    }
    let mut linear: i64 = 0;
    for (&d, &i) in dims.iter().zip(&idx) {
        linear = linear
            .checked_mul(d)
            .and_then(|l| l.checked_add(i))
            .ok_or_else(overflow)?;
    }
    Ok(linear)
}
