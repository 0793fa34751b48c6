//! Whether a transpose or reshape only reinterprets memory (a "bitcast"),
//! and how to make or decompose one (XLA's `ShapeUtil::TransposeIsBitcast`,
//! `ReshapeIsBitcast`, `DeduceTransposeDimensionsForBitcast`,
//! `DecomposeBitcast`, `AlignLayouts`, `DimensionsUnmodifiedByReshape`).

use schema::Shape;

use crate::ShapeError;
use crate::common_factors::common_factors;
use crate::kind::{is_array, to_i64};
use crate::permutation::{as_permutation, compose, inverse, permute, to_i64s};
use crate::query::elements_in;

/// An array shape with a valid layout, as dimension numbers.
struct LaidOut<'a> {
    shape: &'a Shape,
    /// `minor_to_major` as indices (a permutation of `0..rank`).
    minor_to_major: Vec<usize>,
}

impl<'a> LaidOut<'a> {
    fn new(shape: &'a Shape) -> Result<Self, ShapeError> {
        if !is_array(shape) {
            return Err(ShapeError::not_an_array(shape));
        }
        let m2m = layout_util::minor_to_major(shape)?;
        if let Some(layout) = shape.layout.as_deref() {
            layout_util::validate_layout_for_shape(layout, shape)?;
        }
        let minor_to_major = as_permutation(m2m, shape.dimensions.len()).unwrap_or_default();
        Ok(Self {
            shape,
            minor_to_major,
        })
    }

    fn rank(&self) -> usize {
        self.shape.dimensions.len()
    }

    /// The physical stride (in elements) of each dimension in this layout:
    /// the product of the dimensions more minor than it.
    fn physical_strides(&self) -> Vec<i64> {
        let dims = &self.shape.dimensions;
        let mut strides = vec![0; dims.len()];
        let mut scale = 1_i64;
        for &d in &self.minor_to_major {
            strides[d] = scale;
            scale = scale.saturating_mul(dims[d]);
        }
        strides
    }
}

/// Whether transposing `input` by `dimension_mapping` into `output` is a
/// bitcast, i.e. both have the same physical order
/// (`ShapeUtil::TransposeIsBitcast`): `dimension_mapping[output.m2m[i]] ==
/// input.m2m[i]` for all `i`. The element types must match. A bitcast
/// needs the same physical buffer, and the classic padded layout's XLA did
/// not handle padding: a transpose with a padded shape on either side is not
/// a bitcast (as for [`reshape_is_bitcast`]).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], a missing or invalid layout (XLA
/// CHECK-fails), and [`ShapeError::InvalidPermutation`] if the mapping is
/// not a permutation of both ranks.
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{make_shape_with_dense_layout, transpose_is_bitcast};
/// let input = make_shape_with_dense_layout(PrimitiveType::F32, &[10, 5], &[1, 0]).unwrap();
/// let output = make_shape_with_dense_layout(PrimitiveType::F32, &[5, 10], &[0, 1]).unwrap();
/// assert!(transpose_is_bitcast(&input, &output, &[1, 0]).unwrap());
/// let row_major = make_shape_with_dense_layout(PrimitiveType::F32, &[5, 10], &[1, 0]).unwrap();
/// assert!(!transpose_is_bitcast(&input, &row_major, &[1, 0]).unwrap());
/// ```
pub fn transpose_is_bitcast(
    input: &Shape,
    output: &Shape,
    dimension_mapping: &[i64],
) -> Result<bool, ShapeError> {
    Ok(input.element_type == output.element_type
        && transpose_is_bitcast_ignoring_element_type(input, output, dimension_mapping)?)
}

/// [`transpose_is_bitcast`] without comparing element types
/// (`TransposeIsBitcast(..., ignore_element_type=true)`).
///
/// # Errors
///
/// As [`transpose_is_bitcast`].
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{make_shape_with_dense_layout, transpose_is_bitcast, transpose_is_bitcast_ignoring_element_type};
/// let input = make_shape_with_dense_layout(PrimitiveType::F32, &[10, 5], &[1, 0]).unwrap();
/// let output = make_shape_with_dense_layout(PrimitiveType::F16, &[5, 10], &[0, 1]).unwrap();
/// assert!(!transpose_is_bitcast(&input, &output, &[1, 0]).unwrap());
/// assert!(transpose_is_bitcast_ignoring_element_type(&input, &output, &[1, 0]).unwrap());
/// ```
pub fn transpose_is_bitcast_ignoring_element_type(
    input: &Shape,
    output: &Shape,
    dimension_mapping: &[i64],
) -> Result<bool, ShapeError> {
    let (input, output) = (LaidOut::new(input)?, LaidOut::new(output)?);
    if input.rank() != output.rank() {
        return Err(ShapeError::RankMismatch {
            lhs: Box::new(input.shape.clone()),
            rhs: Box::new(output.shape.clone()),
        });
    }
    let mapping = as_permutation(dimension_mapping, input.rank()).ok_or_else(|| {
        ShapeError::InvalidPermutation {
            permutation: dimension_mapping.to_vec(),
            rank: input.rank(),
            shape: Box::new(input.shape.clone()),
        }
    })?;
    if layout_util::is_padded(input.shape) || layout_util::is_padded(output.shape) {
        return Ok(false);
    }
    Ok(compose(&mapping, &output.minor_to_major) == input.minor_to_major)
}

/// Whether reshaping `input` into `output` is a bitcast
/// (`ShapeUtil::ReshapeIsBitcast`): same element type and count, and every
/// element keeps its physical position. XLA checks this on the unit
/// indices of each side (an index with a single 1 in a dimension larger
/// than 1): its row-major logical position, mapped to the other side, must
/// have the same physical position in both layouts. Zero-element shapes
/// always bitcast; padded shapes never do.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], a missing or invalid layout, and the errors
/// of [`elements_in`].
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{make_shape_with_dense_layout, reshape_is_bitcast};
/// let f32 = |dims: &[i64], m2m: &[i64]| make_shape_with_dense_layout(PrimitiveType::F32, dims, m2m).unwrap();
/// assert!(reshape_is_bitcast(&f32(&[3, 4], &[1, 0]), &f32(&[6, 2], &[1, 0])).unwrap());
/// assert!(!reshape_is_bitcast(&f32(&[3, 4], &[0, 1]), &f32(&[6, 2], &[0, 1])).unwrap());
/// assert!(reshape_is_bitcast(&f32(&[3, 2, 2], &[1, 0, 2]), &f32(&[6, 2], &[0, 1])).unwrap());
/// assert!(!reshape_is_bitcast(&f32(&[3, 2, 2], &[0, 1, 2]), &f32(&[6, 2], &[0, 1])).unwrap());
/// ```
pub fn reshape_is_bitcast(input: &Shape, output: &Shape) -> Result<bool, ShapeError> {
    Ok(input.element_type == output.element_type
        && reshape_is_bitcast_ignoring_element_type(input, output)?)
}

/// [`reshape_is_bitcast`] without comparing element types
/// (`ReshapeIsBitcast(..., ignore_element_type=true)`).
///
/// # Errors
///
/// As [`reshape_is_bitcast`].
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{make_shape, reshape_is_bitcast_ignoring_element_type};
/// let a = make_shape(PrimitiveType::F32, &[3, 4]).unwrap();
/// let b = make_shape(PrimitiveType::S32, &[12]).unwrap();
/// assert!(reshape_is_bitcast_ignoring_element_type(&a, &b).unwrap());
/// ```
pub fn reshape_is_bitcast_ignoring_element_type(
    input: &Shape,
    output: &Shape,
) -> Result<bool, ShapeError> {
    let (input, output) = (LaidOut::new(input)?, LaidOut::new(output)?);
    if layout_util::is_padded(input.shape) || layout_util::is_padded(output.shape) {
        return Ok(false);
    }
    let count = elements_in(input.shape)?;
    if count != elements_in(output.shape)? {
        return Ok(false);
    }
    if count == 0 {
        return Ok(true);
    }
    Ok(unit_indices_agree(&input, &output) && unit_indices_agree(&output, &input))
}

/// For each unit index of `from` (a single 1 in a dimension larger than
/// 1), the element at the same row-major position of `to` has the same
/// physical position. The physical position of a unit index is its
/// dimension's physical stride; the row-major position is split into `to`'s
/// index digit by digit, so nothing is allocated per index. Both shapes
/// have the same, non-zero, element count, so nothing here overflows.
fn unit_indices_agree(from: &LaidOut<'_>, to: &LaidOut<'_>) -> bool {
    let from_dims = &from.shape.dimensions;
    let to_dims = &to.shape.dimensions;
    let from_physical = from.physical_strides();
    let to_physical = to.physical_strides();
    let mut row_major_stride = 1_i64;
    for d in (0..from.rank()).rev() {
        if from_dims[d] > 1 {
            let mut logical = row_major_stride;
            let mut physical = 0_i64;
            for k in (0..to.rank()).rev() {
                if to_dims[k] > 0 {
                    physical = physical
                        .saturating_add((logical % to_dims[k]).saturating_mul(to_physical[k]));
                    logical /= to_dims[k];
                }
            }
            if physical != from_physical[d] {
                return false;
            }
        }
        row_major_stride = row_major_stride.saturating_mul(from_dims[d]);
    }
    true
}

/// The dimension mapping that makes `input` → `output` a bitcast
/// transpose, if there is one (`ShapeUtil::DeduceTransposeDimensionsForBitcast`):
/// `perm = input.m2m ∘ inverse(output.m2m)`, accepted when permuting the
/// input's dimensions by it gives the output's. As in
/// [`transpose_is_bitcast`], there is none when either shape is padded.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] and a missing or invalid layout.
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{deduce_transpose_dimensions_for_bitcast, make_shape_with_dense_layout};
/// let input = make_shape_with_dense_layout(PrimitiveType::F32, &[5, 3], &[1, 0]).unwrap();
/// let output = make_shape_with_dense_layout(PrimitiveType::F32, &[3, 5], &[0, 1]).unwrap();
/// assert_eq!(deduce_transpose_dimensions_for_bitcast(&input, &output).unwrap(), Some(vec![1, 0]));
/// let row_major = make_shape_with_dense_layout(PrimitiveType::F32, &[3, 5], &[1, 0]).unwrap();
/// assert_eq!(deduce_transpose_dimensions_for_bitcast(&input, &row_major).unwrap(), None);
/// ```
pub fn deduce_transpose_dimensions_for_bitcast(
    input: &Shape,
    output: &Shape,
) -> Result<Option<Vec<i64>>, ShapeError> {
    let (input, output) = (LaidOut::new(input)?, LaidOut::new(output)?);
    if input.rank() != output.rank()
        || layout_util::is_padded(input.shape)
        || layout_util::is_padded(output.shape)
    {
        return Ok(None);
    }
    let permutation = compose(&input.minor_to_major, &inverse(&output.minor_to_major));
    if permute(&input.shape.dimensions, &permutation) == output.shape.dimensions {
        Ok(Some(to_i64s(&permutation)))
    } else {
        Ok(None)
    }
}

/// How a bitcast between two layouts can be done as logical operations
/// (XLA's `ShapeUtil::BitcastDecomposition`); see [`decompose_bitcast`].
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{BitcastDecomposition, decompose_bitcast, make_shape};
/// let a = make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// let b = make_shape(PrimitiveType::F32, &[6]).unwrap();
/// assert_eq!(decompose_bitcast(&a, &b).unwrap(), Some(BitcastDecomposition::Reshape));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BitcastDecomposition {
    /// A reshape is a bitcast.
    Reshape,
    /// A transpose with these dimensions is a bitcast.
    Transpose {
        /// The transpose's dimension mapping.
        dimensions: Vec<i64>,
    },
    /// Transpose to the input's physical order, reshape, transpose to the
    /// output's logical order.
    TransposeReshapeTranspose {
        /// The first transpose's dimensions.
        transpose1_dimensions: Vec<i64>,
        /// The shape after the first transpose (descending layout).
        transpose1_shape: Shape,
        /// The shape after the reshape (descending layout).
        reshape_shape: Shape,
        /// The second transpose's dimensions.
        transpose2_dimensions: Vec<i64>,
    },
}

/// Decomposes a bitcast between `input` and `output` into a reshape, a
/// transpose, or transpose-reshape-transpose (`ShapeUtil::DecomposeBitcast`);
/// `None` unless both have layouts and the same element count
/// (`IsDecomposableBitcast`), and for padded shapes (whose buffers hold more
/// than the elements). Element types are ignored.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], an invalid layout, and the errors of
/// [`elements_in`].
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{BitcastDecomposition, decompose_bitcast, make_shape_with_dense_layout};
/// let f32 = |dims: &[i64], m2m: &[i64]| make_shape_with_dense_layout(PrimitiveType::F32, dims, m2m).unwrap();
/// assert_eq!(decompose_bitcast(&f32(&[3, 4], &[1, 0]), &f32(&[12], &[0])).unwrap(), Some(BitcastDecomposition::Reshape));
/// assert_eq!(
///     decompose_bitcast(&f32(&[5, 3], &[1, 0]), &f32(&[3, 5], &[0, 1])).unwrap(),
///     Some(BitcastDecomposition::Transpose { dimensions: vec![1, 0] }),
/// );
/// let Some(BitcastDecomposition::TransposeReshapeTranspose { transpose1_shape, reshape_shape, .. }) =
///     decompose_bitcast(&f32(&[2, 3, 4], &[0, 1, 2]), &f32(&[6, 4], &[1, 0])).unwrap()
/// else {
///     panic!("expected transpose-reshape-transpose");
/// };
/// assert_eq!(transpose1_shape.to_string(), "f32[4,3,2]{2,1,0}");
/// assert_eq!(reshape_shape.to_string(), "f32[6,4]{1,0}");
/// ```
pub fn decompose_bitcast(
    input: &Shape,
    output: &Shape,
) -> Result<Option<BitcastDecomposition>, ShapeError> {
    if input.layout.is_none()
        || output.layout.is_none()
        || layout_util::is_padded(input)
        || layout_util::is_padded(output)
    {
        return Ok(None);
    }
    if elements_in(input)? != elements_in(output)? {
        return Ok(None);
    }
    if reshape_is_bitcast_ignoring_element_type(input, output)? {
        return Ok(Some(BitcastDecomposition::Reshape));
    }
    if let Some(dimensions) = deduce_transpose_dimensions_for_bitcast(input, output)? {
        return Ok(Some(BitcastDecomposition::Transpose { dimensions }));
    }
    let (laid_in, laid_out) = (LaidOut::new(input)?, LaidOut::new(output)?);
    let major_to_minor: Vec<usize> = laid_in.minor_to_major.iter().rev().copied().collect();
    let out_rank = laid_out.rank();
    let transpose2: Vec<usize> = inverse(&laid_out.minor_to_major)
        .iter()
        .map(|&i| out_rank - 1 - i)
        .collect();
    Ok(Some(BitcastDecomposition::TransposeReshapeTranspose {
        transpose1_dimensions: to_i64s(&major_to_minor),
        transpose1_shape: make_shape_with_descending_layout_and_same_physical_layout(input)?,
        reshape_shape: make_shape_with_descending_layout_and_same_physical_layout(output)?,
        transpose2_dimensions: to_i64s(&transpose2),
    }))
}

/// The array with the same bytes in memory but a descending layout: its
/// dimensions listed in physical major-to-minor order
/// (`ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout`). As in
/// XLA, the layout keeps its tiles, element size, tail padding and memory
/// space (and padded extents, which move with their dimensions); other
/// layout fields are dropped. Dynamic flags move with their dimensions.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], an invalid layout.
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[128, 24, 4, 48, 48], &[2, 4, 3, 1, 0]).unwrap();
/// let same = shape_util::make_shape_with_descending_layout_and_same_physical_layout(&shape).unwrap();
/// assert_eq!(same.to_string(), "f32[128,24,48,48,4]{4,3,2,1,0}");
/// ```
pub fn make_shape_with_descending_layout_and_same_physical_layout(
    shape: &Shape,
) -> Result<Shape, ShapeError> {
    if !is_array(shape) {
        return Err(ShapeError::not_an_array(shape));
    }
    if shape.layout.is_none() {
        return crate::make_shape_with_descending_layout(
            crate::kind::array_type(shape).unwrap_or_default(),
            &shape.dimensions,
        );
    }
    let laid = LaidOut::new(shape)?;
    let major_to_minor: Vec<usize> = laid.minor_to_major.iter().rev().copied().collect();
    let mut result = shape.clone();
    result.dimensions = permute(&shape.dimensions, &major_to_minor);
    let flags: Vec<bool> = (0..shape.dimensions.len())
        .map(|i| crate::kind::is_dynamic_dimension(shape, i))
        .collect();
    result.is_dynamic_dimension = permute(&flags, &major_to_minor);
    if let Some(old) = shape.layout.as_deref() {
        // XLA keeps exactly these fields: the physical layout is unchanged.
        let mut layout = layout_util::LayoutBuilder::new(
            &(0..shape.dimensions.len())
                .rev()
                .map(to_i64)
                .collect::<Vec<_>>(),
        )
        .tiles(old.tiles.clone())
        .element_size_in_bits(old.element_size_in_bits)
        .tail_padding_alignment_in_elements(old.tail_padding_alignment_in_elements)
        .memory_space(old.memory_space)
        .build();
        if !old.padded_dimensions.is_empty() {
            layout.padded_dimensions = permute(&old.padded_dimensions, &major_to_minor);
            layout.padding_value = old.padding_value;
        }
        result.layout = Some(Box::new(layout));
    }
    Ok(result)
}

/// A layout for `output` that makes reshaping `input` into it a bitcast,
/// if one exists (`ShapeUtil::AlignLayouts`). Size-1 dimensions are
/// dropped first and re-added as the most major, in descending order.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], a missing or invalid input layout, and
/// [`ShapeError::ElementCountMismatch`] (XLA CHECK-fails).
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{align_layouts, make_shape, make_shape_with_dense_layout};
/// let input = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3, 4], &[0, 1, 2]).unwrap();
/// let output = make_shape(PrimitiveType::F32, &[2, 12]).unwrap();
/// // Dims 1 and 2 of the input are not in row-major order: no layout works.
/// assert_eq!(align_layouts(&input, &output).unwrap(), None);
/// let output = make_shape(PrimitiveType::F32, &[6, 4]).unwrap();
/// assert_eq!(align_layouts(&input, &output).unwrap(), None);
/// let input = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3, 4], &[0, 2, 1]).unwrap();
/// let aligned = align_layouts(&input, &make_shape(PrimitiveType::F32, &[2, 12]).unwrap()).unwrap().unwrap();
/// assert_eq!(aligned.to_string(), "f32[2,12]{0,1}");
/// ```
pub fn align_layouts(input: &Shape, output: &Shape) -> Result<Option<Shape>, ShapeError> {
    let laid_in = LaidOut::new(input)?;
    if !is_array(output) {
        return Err(ShapeError::not_an_array(output));
    }
    if elements_in(input)? != elements_in(output)? {
        return Err(ShapeError::ElementCountMismatch {
            lhs: Box::new(input.clone()),
            rhs: Box::new(output.clone()),
        });
    }
    let has_degenerate = |s: &Shape| s.dimensions.contains(&1);
    if has_degenerate(input) || has_degenerate(output) {
        return align_without_degenerate(input, output);
    }
    let Some(factors) = common_factors(&input.dimensions, &output.dimensions) else {
        return Ok(None);
    };
    let input_m2m = &laid_in.minor_to_major;
    let Some(input_to_factor) = factor_of_each_dimension(&factors, input_m2m, laid_in.rank())
    else {
        return Ok(None);
    };
    let Some(output_m2m) = output_minor_to_major(
        &factors,
        &input_to_factor,
        input_m2m,
        output.dimensions.len(),
    ) else {
        return Ok(None);
    };
    let element_type = crate::kind::array_type(output).unwrap_or_default();
    let aligned =
        crate::make_shape_with_dense_layout(element_type, &output.dimensions, &output_m2m)?;
    Ok(reshape_is_bitcast_ignoring_element_type(input, &aligned)?.then_some(aligned))
}

/// [`align_layouts`] of shapes with size-1 dimensions: aligned without
/// them, which are then re-added to the output's order as the most major,
/// in descending order.
fn align_without_degenerate(input: &Shape, output: &Shape) -> Result<Option<Shape>, ShapeError> {
    let simple_input = crate::drop_degenerate_dimensions(input)?;
    let simple_output = crate::drop_degenerate_dimensions(output)?;
    let Some(aligned) = align_layouts(&simple_input, &simple_output)? else {
        return Ok(None);
    };
    let kept: Vec<i64> = (0..output.dimensions.len())
        .filter(|&i| output.dimensions[i] != 1)
        .map(to_i64)
        .collect();
    let simple_m2m = aligned
        .layout
        .as_deref()
        .map(|l| l.minor_to_major.clone())
        .unwrap_or_default();
    let mut m2m: Vec<i64> = simple_m2m
        .iter()
        .filter_map(|&d| usize::try_from(d).ok().and_then(|d| kept.get(d)).copied())
        .collect();
    m2m.extend(
        (0..output.dimensions.len())
            .rev()
            .filter(|&i| output.dimensions[i] == 1)
            .map(to_i64),
    );
    // As in XLA, the output gets a fresh layout with only this order.
    let mut result = output.clone();
    result.layout = Some(Box::new(layout_util::make_layout(&m2m)));
    Ok(Some(result))
}

/// The common-factor group of each of the `rank` input dimensions, if the
/// dimensions of every group are adjacent in memory, most major first
/// (`input_m2m` is the input's minor-to-major order); none otherwise.
fn factor_of_each_dimension(
    factors: &[(usize, usize)],
    input_m2m: &[usize],
    rank: usize,
) -> Option<Vec<usize>> {
    let physical_of: Vec<usize> = inverse(input_m2m);
    let mut input_to_factor = vec![0_usize; rank];
    for (group, window) in factors.windows(2).enumerate() {
        let (start, end) = (window[0].0, window[1].0);
        if start == end {
            continue;
        }
        let mut physical = physical_of[start];
        input_to_factor[start] = group;
        for (i, slot) in input_to_factor
            .iter_mut()
            .enumerate()
            .take(end)
            .skip(start + 1)
        {
            match physical.checked_sub(1) {
                Some(p) if input_m2m[p] == i => physical = p,
                _ => return None,
            }
            *slot = group;
        }
    }
    Some(input_to_factor)
}

/// The output's minor-to-major order that follows the input's groups from
/// the most minor (`input_to_factor` from [`factor_of_each_dimension`]);
/// none when a group holds no input dimension or the input runs out.
fn output_minor_to_major(
    factors: &[(usize, usize)],
    input_to_factor: &[usize],
    input_m2m: &[usize],
    output_rank: usize,
) -> Option<Vec<i64>> {
    let mut output_m2m: Vec<i64> = Vec::with_capacity(output_rank);
    let mut input_minor = 0_usize;
    while output_m2m.len() < output_rank {
        let &input_dim = input_m2m.get(input_minor)?;
        let group = input_to_factor[input_dim];
        let (start, end) = (factors[group], factors[group + 1]);
        output_m2m.extend((start.1..end.1).rev().map(to_i64));
        let step = end.0 - start.0;
        if step == 0 {
            return None;
        }
        input_minor += step;
    }
    Some(output_m2m)
}

/// The pairs `(input_dim, output_dim)` of dimensions that a reshape from
/// `input` to `output` leaves unmodified (`ShapeUtil::DimensionsUnmodifiedByReshape`):
/// the common-factor groups made of exactly one dimension on each side.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], the errors of [`elements_in`],
/// and [`ShapeError::ElementCountMismatch`] (XLA CHECK-fails).
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{dimensions_unmodified_by_reshape, make_shape};
/// let f32 = |dims: &[i64]| make_shape(PrimitiveType::F32, dims).unwrap();
/// assert_eq!(
///     dimensions_unmodified_by_reshape(&f32(&[4, 1, 3, 5, 6, 7]), &f32(&[2, 6, 1, 5, 1, 42])).unwrap(),
///     [(3, 3)],
/// );
/// assert_eq!(
///     dimensions_unmodified_by_reshape(&f32(&[1, 1, 1, 1]), &f32(&[1, 1, 1])).unwrap(),
///     [(0, 0), (1, 1), (2, 2)],
/// );
/// ```
pub fn dimensions_unmodified_by_reshape(
    input: &Shape,
    output: &Shape,
) -> Result<Vec<(i64, i64)>, ShapeError> {
    let mismatch = || ShapeError::ElementCountMismatch {
        lhs: Box::new(input.clone()),
        rhs: Box::new(output.clone()),
    };
    if elements_in(input)? != elements_in(output)? {
        return Err(mismatch());
    }
    let factors = common_factors(&input.dimensions, &output.dimensions).ok_or_else(mismatch)?;
    Ok(factors
        .windows(2)
        .filter(|w| w[1].0 - w[0].0 == 1 && w[1].1 - w[0].1 == 1)
        .map(|w| (to_i64(w[0].0), to_i64(w[0].1)))
        .collect())
}
