//! Building layouts (XLA's `LayoutUtil::MakeLayout` and friends) and setting
//! or clearing the layouts of a shape.

use schema::{Layout, PaddingValue, PrimitiveType, Shape, SplitConfig, Tile};

use crate::LayoutError;
use crate::kind::{is_array, is_buffer, is_tuple};

/// A layout with the given `minor_to_major` and nothing else (XLA's
/// `LayoutUtil::MakeLayout(minor_to_major)`), with
/// `tail_padding_alignment_in_elements = 1` as XLA serializes it.
///
/// ```
/// let layout = layout_util::make_layout(&[0, 1]);
/// assert_eq!(layout.minor_to_major, [0, 1]);
/// assert_eq!(layout.tail_padding_alignment_in_elements, 1);
/// assert_eq!(layout.to_string(), "{0,1}");
/// ```
pub fn make_layout(minor_to_major: &[i64]) -> Layout {
    LayoutBuilder::new(minor_to_major).build()
}

/// XLA's `LayoutUtil::MakeDescendingLayout(rank)`: `{rank-1, ..., 1, 0}`, the
/// default ("dim 0 is major", row-major) layout.
///
/// ```
/// assert_eq!(layout_util::make_descending_layout(3).to_string(), "{2,1,0}");
/// assert_eq!(layout_util::make_descending_layout(0).to_string(), "{}");
/// ```
pub fn make_descending_layout(rank: usize) -> Layout {
    LayoutBuilder::from_minor_to_major((0..rank).rev().map(to_i64).collect()).build()
}

/// XLA's `LayoutUtil::MakeAscendingLayout(rank)`: `{0, 1, ..., rank-1}`
/// ("dim 0 is minor", column-major).
///
/// ```
/// assert_eq!(layout_util::make_ascending_layout(3).to_string(), "{0,1,2}");
/// ```
pub fn make_ascending_layout(rank: usize) -> Layout {
    LayoutBuilder::from_minor_to_major((0..rank).map(to_i64).collect()).build()
}

/// XLA's `LayoutUtil::MakeLayoutFromMajorToMinor`: the layout whose
/// `minor_to_major` is `major_to_minor` reversed.
///
/// ```
/// let layout = layout_util::make_layout_from_major_to_minor(&[0, 2, 1]);
/// assert_eq!(layout.minor_to_major, [1, 2, 0]);
/// ```
pub fn make_layout_from_major_to_minor(major_to_minor: &[i64]) -> Layout {
    LayoutBuilder::from_minor_to_major(major_to_minor.iter().rev().copied().collect()).build()
}

/// The default layout for a shape (XLA's `LayoutUtil::GetDefaultLayoutForShape`):
/// the descending layout of an array's rank (for a buffer, of its array),
/// and an empty [`Layout`] for token and opaque shapes.
///
/// # Errors
///
/// [`LayoutError::TupleLayout`] for a tuple (XLA CHECK-fails).
///
/// ```
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     ..Default::default()
/// };
/// assert_eq!(layout_util::default_layout_for_shape(&shape).unwrap().to_string(), "{1,0}");
/// ```
pub fn default_layout_for_shape(shape: &Shape) -> Result<Layout, LayoutError> {
    if is_tuple(shape) {
        return Err(LayoutError::TupleLayout);
    }
    if is_buffer(shape) {
        return shape
            .tuple_shapes
            .first()
            .map_or(Ok(Layout::default()), default_layout_for_shape);
    }
    if is_array(shape) {
        Ok(make_descending_layout(shape.dimensions.len()))
    } else {
        Ok(Layout::default())
    }
}

/// Sets the default (descending) layout on every array in `shape`, through
/// tuples and buffers (XLA's `LayoutUtil::SetToDefaultLayout`). Other
/// fields of an existing layout (tiles, memory space, ...) are kept, as in
/// XLA, which only rewrites `minor_to_major`. Token and opaque shapes are
/// left alone.
///
/// ```
/// let mut shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3, 4],
///     ..Default::default()
/// };
/// layout_util::set_to_default_layout(&mut shape);
/// assert_eq!(shape.to_string(), "f32[2,3,4]{2,1,0}");
/// ```
pub fn set_to_default_layout(shape: &mut Shape) {
    if is_tuple(shape) || is_buffer(shape) {
        shape
            .tuple_shapes
            .iter_mut()
            .for_each(set_to_default_layout);
    } else if is_array(shape) {
        let rank = shape.dimensions.len();
        let layout = shape
            .layout
            .get_or_insert_with(|| Box::new(make_descending_layout(rank)));
        layout.minor_to_major = (0..rank).rev().map(to_i64).collect();
    }
}

/// Removes the layout of every array in `shape`, through tuples and buffers
/// (XLA's `LayoutUtil::ClearLayout`).
///
/// ```
/// let mut shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2],
///     layout: Some(Box::new(layout_util::make_layout(&[0]))),
///     ..Default::default()
/// };
/// layout_util::clear_layout(&mut shape);
/// assert_eq!(shape.layout, None);
/// ```
pub fn clear_layout(shape: &mut Shape) {
    shape.layout = None;
    shape.tuple_shapes.iter_mut().for_each(clear_layout);
}

/// A fuller layout constructor (XLA's `LayoutUtil::MakeLayout` with all its
/// arguments, plus the classic padding fields).
///
/// Every field not set keeps XLA's default: no tiles, tail padding
/// alignment 1, no index/pointer type, element size 0 (the type's size),
/// memory space 0, no split configs, no physical shape, no metadata prefix,
/// no padding. The builder does not validate; use
/// [`validate_layout_for_shape`](crate::validate_layout_for_shape).
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::Tile;
///
/// let layout = LayoutBuilder::new(&[3, 2, 1, 0])
///     .tiles(vec![Tile { dimensions: vec![42, 123] }, Tile { dimensions: vec![4, 5] }])
///     .tail_padding_alignment_in_elements(100)
///     .element_size_in_bits(42)
///     .build();
/// assert_eq!(layout.to_string(), "{3,2,1,0:T(42,123)(4,5)L(100)E(42)}");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct LayoutBuilder {
    layout: Layout,
}

impl LayoutBuilder {
    /// Starts a layout with the given `minor_to_major`.
    pub fn new(minor_to_major: &[i64]) -> Self {
        Self::from_minor_to_major(minor_to_major.to_vec())
    }

    fn from_minor_to_major(minor_to_major: Vec<i64>) -> Self {
        Self {
            layout: Layout {
                minor_to_major,
                tail_padding_alignment_in_elements: 1,
                ..Layout::default()
            },
        }
    }

    /// Sets the tiles (outermost first), as `T(..)(..)` prints them.
    pub fn tiles(mut self, tiles: Vec<Tile>) -> Self {
        self.layout.tiles = tiles;
        self
    }

    /// Sets `tail_padding_alignment_in_elements` (`L(n)`).
    pub fn tail_padding_alignment_in_elements(mut self, alignment: i64) -> Self {
        self.layout.tail_padding_alignment_in_elements = alignment;
        self
    }

    /// Sets the (sparse-only) index primitive type (`#(u32)`).
    pub fn index_primitive_type(mut self, ty: PrimitiveType) -> Self {
        self.layout.index_primitive_type = ty as i32;
        self
    }

    /// Sets the (sparse-only) pointer primitive type (`*(u16)`).
    pub fn pointer_primitive_type(mut self, ty: PrimitiveType) -> Self {
        self.layout.pointer_primitive_type = ty as i32;
        self
    }

    /// Sets `element_size_in_bits` (`E(n)`; 0 means the type's own size).
    pub fn element_size_in_bits(mut self, bits: i64) -> Self {
        self.layout.element_size_in_bits = bits;
        self
    }

    /// Sets the memory space (`S(n)`).
    pub fn memory_space(mut self, memory_space: i64) -> Self {
        self.layout.memory_space = memory_space;
        self
    }

    /// Sets the split configs (`SC(..)`).
    pub fn split_configs(mut self, split_configs: Vec<SplitConfig>) -> Self {
        self.layout.split_configs = split_configs;
        self
    }

    /// Sets the (sparse-only) physical shape (`P(..)`).
    pub fn physical_shape(mut self, shape: Shape) -> Self {
        self.layout.physical_shape = Some(Box::new(shape));
        self
    }

    /// Sets `dynamic_shape_metadata_prefix_bytes` (`M(n)`).
    pub fn dynamic_shape_metadata_prefix_bytes(mut self, bytes: i64) -> Self {
        self.layout.dynamic_shape_metadata_prefix_bytes = bytes;
        self
    }

    /// Sets the classic padded extents, one per logical dimension.
    pub fn padded_dimensions(mut self, padded_dimensions: Vec<i64>) -> Self {
        self.layout.padded_dimensions = padded_dimensions;
        self
    }

    /// Sets the classic padding value.
    pub fn padding_value(mut self, value: PaddingValue) -> Self {
        self.layout.padding_value = value as i32;
        self
    }

    /// The layout.
    #[must_use]
    pub fn build(self) -> Layout {
        self.layout
    }
}

/// A dimension number as XLA stores it. Ranks are far below `i64::MAX`, so
/// the saturation never happens in practice.
fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
