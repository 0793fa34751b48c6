//! Layout equality with XLA's rules and options (`Layout::Equal`,
//! `LayoutUtil::LayoutsInShapesEqual`).

use schema::{Layout, Shape};

use crate::kind::{is_array, is_buffer, is_tuple};

/// XLA's `Layout::Equal`: which parts of two layouts to compare.
///
/// The default compares `minor_to_major`, tiles, tail padding alignment
/// (0 reads as 1, as XLA's `Layout::FromProto` does), index and pointer
/// types, element size, memory space, split configs, physical shape, and
/// the classic padding (`padded_dimensions`, `padding_value`). Like XLA it
/// never compares `dynamic_shape_metadata_prefix_bytes`, nor the proto-only
/// `dim_level_types`/`dim_unique`/`dim_ordered`.
///
/// ```
/// use layout_util::{LayoutBuilder, LayoutEqual, make_layout};
/// use schema::Tile;
///
/// let tiled = LayoutBuilder::new(&[1, 0]).tiles(vec![Tile { dimensions: vec![8, 128] }]).build();
/// let plain = make_layout(&[1, 0]);
/// assert!(!LayoutEqual::new().equal(&tiled, &plain));
/// assert!(LayoutEqual::new().ignore_tiles().equal(&tiled, &plain));
/// assert!(LayoutEqual::new().minor_to_major_only().equal(&tiled, &plain));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[must_use]
#[allow(clippy::struct_excessive_bools)]
pub struct LayoutEqual {
    ignore_tiles: bool,
    ignore_tail_padding_alignment: bool,
    ignore_index_primitive_type: bool,
    ignore_pointer_primitive_type: bool,
    ignore_element_size: bool,
    ignore_memory_space: bool,
    ignore_split_configs: bool,
    ignore_physical_shape: bool,
    ignore_padding: bool,
}

impl LayoutEqual {
    /// Compares everything XLA's `Layout::Equal()` compares, plus padding.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ignores the tiles.
    pub fn ignore_tiles(mut self) -> Self {
        self.ignore_tiles = true;
        self
    }

    /// Ignores `tail_padding_alignment_in_elements`.
    pub fn ignore_tail_padding_alignment(mut self) -> Self {
        self.ignore_tail_padding_alignment = true;
        self
    }

    /// Ignores `index_primitive_type`.
    pub fn ignore_index_primitive_type(mut self) -> Self {
        self.ignore_index_primitive_type = true;
        self
    }

    /// Ignores `pointer_primitive_type`.
    pub fn ignore_pointer_primitive_type(mut self) -> Self {
        self.ignore_pointer_primitive_type = true;
        self
    }

    /// Ignores `element_size_in_bits`.
    pub fn ignore_element_size(mut self) -> Self {
        self.ignore_element_size = true;
        self
    }

    /// Ignores `memory_space`.
    pub fn ignore_memory_space(mut self) -> Self {
        self.ignore_memory_space = true;
        self
    }

    /// Ignores the split configs.
    pub fn ignore_split_configs(mut self) -> Self {
        self.ignore_split_configs = true;
        self
    }

    /// Ignores the physical shape.
    pub fn ignore_physical_shape(mut self) -> Self {
        self.ignore_physical_shape = true;
        self
    }

    /// Ignores the classic padding (`padded_dimensions`, `padding_value`).
    pub fn ignore_padding(mut self) -> Self {
        self.ignore_padding = true;
        self
    }

    /// Compares `minor_to_major` only (XLA's `MinorToMajorOnly()`, which
    /// since 2026 also ignores split configs); padding is ignored too.
    pub fn minor_to_major_only(self) -> Self {
        self.ignore_tiles()
            .ignore_tail_padding_alignment()
            .ignore_index_primitive_type()
            .ignore_pointer_primitive_type()
            .ignore_element_size()
            .ignore_memory_space()
            .ignore_split_configs()
            .ignore_physical_shape()
            .ignore_padding()
    }

    /// Whether `lhs` and `rhs` are equal under these options.
    pub fn equal(&self, lhs: &Layout, rhs: &Layout) -> bool {
        let alignment = |l: &Layout| match l.tail_padding_alignment_in_elements {
            0 => 1,
            a => a,
        };
        lhs.minor_to_major == rhs.minor_to_major
            && (self.ignore_tiles || lhs.tiles == rhs.tiles)
            && (self.ignore_tail_padding_alignment || alignment(lhs) == alignment(rhs))
            && (self.ignore_index_primitive_type
                || lhs.index_primitive_type == rhs.index_primitive_type)
            && (self.ignore_pointer_primitive_type
                || lhs.pointer_primitive_type == rhs.pointer_primitive_type)
            && (self.ignore_element_size || lhs.element_size_in_bits == rhs.element_size_in_bits)
            && (self.ignore_memory_space || lhs.memory_space == rhs.memory_space)
            && (self.ignore_split_configs || lhs.split_configs == rhs.split_configs)
            && (self.ignore_physical_shape || lhs.physical_shape == rhs.physical_shape)
            && (self.ignore_padding
                || (lhs.padded_dimensions == rhs.padded_dimensions
                    && lhs.padding_value == rhs.padding_value))
    }
}

/// XLA's `LayoutUtil::LayoutsInShapesEqual`: compares only the layouts of
/// two shapes, not their dimensions or element types. Tuples must have the
/// same length and equal layouts elementwise (buffers compare their
/// arrays); arrays must have the same rank and either both no layout or
/// layouts equal under `equal`; other leaves always compare equal.
///
/// ```
/// use layout_util::{LayoutEqual, layouts_in_shapes_equal, make_layout};
/// let shape = |ty: schema::PrimitiveType, m2m: &[i64]| schema::Shape {
///     element_type: ty as i32,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(make_layout(m2m))),
///     ..Default::default()
/// };
/// let eq = LayoutEqual::new();
/// use schema::PrimitiveType::{F32, S8};
/// assert!(layouts_in_shapes_equal(&shape(F32, &[0, 1]), &shape(S8, &[0, 1]), &eq));
/// assert!(!layouts_in_shapes_equal(&shape(F32, &[0, 1]), &shape(F32, &[1, 0]), &eq));
/// ```
pub fn layouts_in_shapes_equal(lhs: &Shape, rhs: &Shape, equal: &LayoutEqual) -> bool {
    if is_tuple(lhs) || is_buffer(lhs) {
        return is_tuple(lhs) == is_tuple(rhs)
            && is_buffer(lhs) == is_buffer(rhs)
            && lhs.tuple_shapes.len() == rhs.tuple_shapes.len()
            && lhs
                .tuple_shapes
                .iter()
                .zip(&rhs.tuple_shapes)
                .all(|(l, r)| layouts_in_shapes_equal(l, r, equal));
    }
    if !is_array(lhs) {
        return true;
    }
    if lhs.dimensions.len() != rhs.dimensions.len() {
        return false;
    }
    match (&lhs.layout, &rhs.layout) {
        (None, None) => true,
        (Some(l), Some(r)) => equal.equal(l, r),
        _ => false,
    }
}
