//! Tiled layouts that are untiled ones with padding: one tile `T(t0, ..,
//! tk)` whose minor extents each fit in one tile (`e_j <= t_j` for `j >=
//! 1`, the tile as wide as the rows) lays out its tiles' rows one after
//! another, so that each element sits where the untiled layout of the
//! same order puts it with the tiled dimensions padded: the first to a
//! multiple of `t0`, the others to `t_j` (`{1,0,2:T(8,128)}` of
//! `f32[16,64,128]` is `{1,0,2}` with dimension 1 padded to 128). Read as
//! such, a relayout out of those tiles is a strided one, with the
//! engine's transposes, instead of a composition through tiles.

use schema::Shape;

use super::bits::element_bits;

/// The untiled shape whose element positions are those of `shape`, if
/// `shape` is such a tiled layout of whole-byte elements (see the module
/// documentation); its padding value is unset (for reading only).
pub(crate) fn as_padded(shape: &Shape) -> Option<Shape> {
    let layout = shape.layout.as_deref()?;
    let [tile] = layout.tiles.as_slice() else {
        return None;
    };
    let bits = element_bits(shape).ok()?;
    if bits < 8
        || !bits.is_multiple_of(8)
        || !layout.padded_dimensions.is_empty()
        || layout.dynamic_shape_metadata_prefix_bytes != 0
        || tile.dimensions.iter().any(|&t| t <= 0)
    {
        return None;
    }
    let rank = shape.dimensions.len();
    let k = tile.dimensions.len();
    if k == 0 || k > rank || layout.minor_to_major.len() != rank {
        return None;
    }
    // The tiled dimensions, major to minor: the `k` most minor.
    let tiled: Vec<usize> = layout.minor_to_major[..k]
        .iter()
        .rev()
        .map(|&d| usize::try_from(d).ok().filter(|&d| d < rank))
        .collect::<Option<_>>()?;
    let mut padded = shape.dimensions.clone();
    for (j, (&d, &t)) in tiled.iter().zip(&tile.dimensions).enumerate() {
        let extent = *shape.dimensions.get(d)?;
        if extent < 0 {
            return None;
        }
        padded[d] = if j == 0 {
            extent.checked_add(t - 1)? / t * t
        } else if extent <= t {
            t
        } else {
            return None;
        };
    }
    let mut untiled = shape.clone();
    if let Some(l) = untiled.layout.as_deref_mut() {
        l.tiles.clear();
        l.padded_dimensions = padded;
        l.padding_value = 0;
        l.tail_padding_alignment_in_elements = 0;
    }
    Some(untiled)
}
