//! XLA's `LayoutUtil` queries of tiles, split configs, strides and linear
//! positions: `ClearTiles`, `HasCustomElementSizeInBits`, `IsDenseArray`,
//! `AreDimensionsConsecutive`, `ByteStridesIsMajorToMinor`, `MaxSplitSize`,
//! `MaxElementsInPerSplit`, `GetSplitConfig`, `LinearIndex`.

use schema::{PrimitiveType, Shape, SplitConfig};

use crate::LayoutError;
use crate::kind::{is_array, is_tuple};

fn expect_array(shape: &Shape) -> Result<(), LayoutError> {
    if is_array(shape) {
        Ok(())
    } else {
        Err(LayoutError::NotAnArray {
            shape: Box::new(shape.clone()),
        })
    }
}

/// XLA's `ClearTiles`: removes the tiles of every layout in `shape` and its
/// subshapes.
///
/// ```
/// let mut shape: schema::Shape = "(bf16[8,128]{1,0:T(8,128)(2,1)}, f32[2]{0:T(2)})".parse().unwrap();
/// layout_util::clear_tiles(&mut shape);
/// assert_eq!(shape.to_string(), "(bf16[8,128]{1,0}, f32[2]{0})");
/// ```
pub fn clear_tiles(shape: &mut Shape) {
    if let Some(layout) = shape.layout.as_deref_mut() {
        layout.tiles.clear();
    }
    for element in &mut shape.tuple_shapes {
        clear_tiles(element);
    }
}

/// XLA's `HasCustomElementSizeInBits`: whether some array of `shape` has a
/// layout with `element_size_in_bits` set.
///
/// ```
/// assert!(layout_util::has_custom_element_size_in_bits(&"(f32[], s4[2]{0:E(4)})".parse().unwrap()));
/// assert!(!layout_util::has_custom_element_size_in_bits(&"f32[1,2]".parse().unwrap()));
/// ```
pub fn has_custom_element_size_in_bits(shape: &Shape) -> bool {
    if is_tuple(shape) {
        return shape
            .tuple_shapes
            .iter()
            .any(has_custom_element_size_in_bits);
    }
    is_array(shape)
        && shape
            .layout
            .as_deref()
            .is_some_and(|l| l.element_size_in_bits != 0)
}

/// XLA's `IsDenseArray`: an array (every layout is dense since XLA removed
/// sparse layouts; a layout with `dim_level_types` is refused by
/// [`crate::validate_layout_for_shape`]).
///
/// ```
/// assert!(layout_util::is_dense_array(&"f32[2]".parse().unwrap()));
/// assert!(!layout_util::is_dense_array(&"(f32[2])".parse().unwrap()));
/// ```
pub fn is_dense_array(shape: &Shape) -> bool {
    is_array(shape)
}

/// XLA's `AreDimensionsConsecutive`: whether the dimensions `dims` sit
/// next to each other in `layout`'s `minor_to_major`, in any order. A
/// dimension not in the layout counts at XLA's position for it, past the
/// end.
///
/// ```
/// let layout = layout_util::make_layout(&[0, 2, 1, 3]);
/// assert!(layout_util::are_dimensions_consecutive(&layout, &[1, 2]));
/// assert!(!layout_util::are_dimensions_consecutive(&layout, &[0, 1]));
/// ```
pub fn are_dimensions_consecutive(layout: &schema::Layout, dims: &[i64]) -> bool {
    let m2m = &layout.minor_to_major;
    let mut positions: Vec<usize> = dims
        .iter()
        .map(|d| m2m.iter().position(|x| x == d).unwrap_or(m2m.len()))
        .collect();
    positions.sort_unstable();
    positions
        .windows(2)
        .all(|w| w[1].checked_sub(w[0]) == Some(1))
}

/// XLA's `ByteStridesIsMajorToMinor`: whether `byte_strides` are the
/// row-major strides of `dims` for `element_type` (the last the element
/// size, each other the next one's times its dimension).
///
/// ```
/// use schema::PrimitiveType::F32;
/// assert!(layout_util::byte_strides_is_major_to_minor(&[3960, 440, 44, 4], &[8, 9, 10, 11], F32).unwrap());
/// assert!(!layout_util::byte_strides_is_major_to_minor(&[1880, 440, 44, 4], &[8, 9, 10, 11], F32).unwrap());
/// ```
///
/// # Errors
///
/// [`LayoutError::StridesLength`] for lengths that differ (XLA
/// CHECK-fails), [`LayoutError::NotAnArray`] for a non-array element type.
pub fn byte_strides_is_major_to_minor(
    byte_strides: &[i64],
    dims: &[i64],
    element_type: PrimitiveType,
) -> Result<bool, LayoutError> {
    if byte_strides.len() != dims.len() {
        return Err(LayoutError::StridesLength {
            strides: byte_strides.len(),
            dimensions: dims.len(),
        });
    }
    let mut stride = element_type
        .byte_width()
        .ok_or(LayoutError::NotAnArrayType { element_type })?;
    for (&s, &d) in byte_strides.iter().zip(dims).rev() {
        if s != stride {
            return Ok(false);
        }
        // A stride that no longer fits `i64` matches no given stride.
        stride = stride.saturating_mul(d);
    }
    Ok(true)
}

/// The split config of logical dimension `dim` (split configs name
/// physical dimensions, counted from the most major).
fn split_config_of(shape: &Shape, dim: usize) -> Option<&SplitConfig> {
    let layout = shape.layout.as_deref()?;
    let m2m = &layout.minor_to_major;
    layout.split_configs.iter().find(|c| {
        usize::try_from(c.dimension)
            .ok()
            .and_then(|p| m2m.len().checked_sub(1 + p))
            .and_then(|i| m2m.get(i))
            .is_some_and(|&major| usize::try_from(major) == Ok(dim))
    })
}

/// XLA's `MaxSplitSize`: the size of the largest piece of dimension `dim`
/// under its split config (the dimension's size if it has none).
///
/// ```
/// let shape: schema::Shape = "f32[10,20]{1,0:SC(1:3,7)}".parse().unwrap();
/// assert_eq!(layout_util::max_split_size(&shape, 1).unwrap(), 13);
/// assert_eq!(layout_util::max_split_size(&shape, 0).unwrap(), 10);
/// ```
///
/// # Errors
///
/// [`LayoutError::NotAnArray`], or [`LayoutError::DimensionOutOfRange`].
pub fn max_split_size(shape: &Shape, dim: i64) -> Result<i64, LayoutError> {
    expect_array(shape)?;
    let rank = shape.dimensions.len();
    let d = usize::try_from(dim).ok().filter(|&d| d < rank).ok_or(
        LayoutError::DimensionOutOfRange {
            dimension: dim,
            rank,
        },
    )?;
    let size = shape.dimensions[d];
    let Some(config) = split_config_of(shape, d) else {
        return Ok(size);
    };
    let mut max = 0_i64;
    let mut last = 0_i64;
    for &index in &config.split_indices {
        max = max.max(index.saturating_sub(last));
        last = index;
    }
    Ok(max.max(size.saturating_sub(last)))
}

/// XLA's `MaxElementsInPerSplit`: the product over the dimensions of
/// [`max_split_size`], the most elements one split holds.
///
/// ```
/// let shape: schema::Shape = "f32[10,20]{1,0:SC(1:3,7)}".parse().unwrap();
/// assert_eq!(layout_util::max_elements_in_per_split(&shape).unwrap(), 130);
/// ```
///
/// # Errors
///
/// [`LayoutError::NotAnArray`], or [`LayoutError::Overflow`].
pub fn max_elements_in_per_split(shape: &Shape) -> Result<i64, LayoutError> {
    expect_array(shape)?;
    let mut product: i64 = 1;
    for dim in 0..shape.dimensions.len() {
        let size = max_split_size(shape, i64::try_from(dim).unwrap_or(i64::MAX))?;
        product = product
            .checked_mul(size)
            .ok_or_else(|| LayoutError::Overflow {
                shape: Box::new(shape.clone()),
            })?;
    }
    Ok(product)
}

/// XLA's `GetSplitConfig`: the layout's split config, if it has one.
///
/// ```
/// let shape: schema::Shape = "f32[10,20]{1,0:SC(1:3,7)}".parse().unwrap();
/// assert_eq!(layout_util::get_split_config(&shape).unwrap().unwrap().to_string(), "(1:3,7)");
/// ```
///
/// # Errors
///
/// [`LayoutError::SplitConfigCount`] for a layout with more than one
/// split config (XLA CHECK-fails).
pub fn get_split_config(shape: &Shape) -> Result<Option<&SplitConfig>, LayoutError> {
    let configs = shape
        .layout
        .as_deref()
        .map_or(&[][..], |l| l.split_configs.as_slice());
    if configs.len() > 1 {
        return Err(LayoutError::SplitConfigCount {
            count: configs.len(),
            shape: Box::new(shape.clone()),
        });
    }
    Ok(configs.first())
}

/// XLA's `LinearIndex`: the position (in elements) of the element at
/// `indices` in the array's buffer, by the layout's first tile only (XLA's
/// `ArrayDataSize` counts with it). Rank 0 is 0 and rank 1 the index itself.
///
/// ```
/// let shape: schema::Shape = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
/// assert_eq!(layout_util::linear_index(&shape, &[2, 4]).unwrap(), 20);
/// let untiled: schema::Shape = "f32[3,5]{0,1}".parse().unwrap();
/// assert_eq!(layout_util::linear_index(&untiled, &[2, 4]).unwrap(), 14);
/// ```
///
/// # Errors
///
/// [`LayoutError::NotAnArray`], [`LayoutError::MissingLayout`],
/// [`LayoutError::IndexOutOfRange`] for an index of the wrong rank or a
/// negative entry, a tile dimension that is not positive, or
/// [`LayoutError::Overflow`].
pub fn linear_index(shape: &Shape, indices: &[i64]) -> Result<i64, LayoutError> {
    expect_array(shape)?;
    let layout = shape
        .layout
        .as_deref()
        .ok_or_else(|| LayoutError::MissingLayout {
            shape: Box::new(shape.clone()),
        })?;
    let rank = shape.dimensions.len();
    let bad_index = || LayoutError::IndexOutOfRange {
        index: indices.to_vec(),
        shape: Box::new(shape.clone()),
    };
    if indices.len() != rank
        || layout.minor_to_major.len() != rank
        || indices.iter().any(|&i| i < 0)
    {
        return Err(bad_index());
    }
    match indices {
        [] => return Ok(0),
        [i] => return Ok(*i),
        _ => {}
    }
    let tile: &[i64] = layout
        .tiles
        .first()
        .map_or(&[], |t| t.dimensions.as_slice());
    let overflow = || LayoutError::Overflow {
        shape: Box::new(shape.clone()),
    };
    if tile.iter().any(|&t| t <= 0) {
        return Err(LayoutError::InvalidTileDimension {
            dimension: tile.iter().copied().find(|&t| t <= 0).unwrap_or(0),
            shape: Box::new(shape.clone()),
        });
    }
    // A multiplier is `None` once it overflows: an error only if an index
    // entry other than 0 uses it (the last one is never used).
    let times = |m: Option<i64>, k: i64| {
        if k == 0 {
            Some(0)
        } else {
            m.and_then(|m| m.checked_mul(k))
        }
    };
    let mut linear: i64 = 0;
    let mut tile_multiplier: Option<i64> = tile.iter().try_fold(1_i64, |a, &t| a.checked_mul(t));
    let mut within: Option<i64> = Some(1);
    for (minor, &logical) in layout.minor_to_major.iter().enumerate() {
        let d = usize::try_from(logical)
            .ok()
            .filter(|&d| d < rank)
            .ok_or_else(bad_index)?;
        let (size, index) = (shape.dimensions[d], indices[d]);
        let term = if minor < tile.len() {
            let t = tile[tile.len() - 1 - minor];
            let term = times(tile_multiplier, index / t)
                .zip(times(within, index % t))
                .and_then(|(a, b)| a.checked_add(b));
            let tiles = size / t + i64::from(size % t != 0);
            tile_multiplier = tile_multiplier.and_then(|m| m.checked_mul(tiles));
            within = within.and_then(|w| w.checked_mul(t));
            term
        } else {
            let term = times(tile_multiplier, index);
            tile_multiplier = tile_multiplier.and_then(|m| m.checked_mul(size));
            term
        };
        linear = term
            .and_then(|t| linear.checked_add(t))
            .ok_or_else(overflow)?;
    }
    Ok(linear)
}
