//! Shape equality with XLA's rules and options (`Shape::Equal`,
//! `ShapeUtil::Equal`, `Compatible`, `SameDimensions`, ...).

use layout_util::LayoutEqual;
use schema::{PrimitiveType, Shape};

use crate::kind::{element_type, is_array, is_buffer, is_dynamic_dimension, is_tuple};

/// XLA's `Shape::Equal`: which parts of two shapes to compare.
///
/// The default compares everything: the tuple tree, element types,
/// dimensions, dynamic flags and layouts (with
/// [`layout_util::LayoutEqual`], so `dynamic_shape_metadata_prefix_bytes`
/// is never compared, as in XLA). Each builder method drops one part:
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{ShapeEqual, make_shape_with_dense_layout};
///
/// let row = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[1, 0]).unwrap();
/// let col = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
/// let bf16 = make_shape_with_dense_layout(PrimitiveType::Bf16, &[2, 3], &[1, 0]).unwrap();
/// assert!(!ShapeEqual::new().equal(&row, &col));
/// assert!(ShapeEqual::new().ignore_layout().equal(&row, &col));
/// assert!(!ShapeEqual::new().equal(&row, &bf16));
/// assert!(ShapeEqual::new().ignore_fp_precision().equal(&row, &bf16));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[must_use]
#[allow(clippy::struct_excessive_bools)]
pub struct ShapeEqual {
    ignore_layout: bool,
    layout: LayoutEqual,
    ignore_element_type: bool,
    ignore_fp_precision: bool,
    ignore_dynamic_dimension: bool,
    ignore_dimensions: bool,
    ignore_buffer: bool,
}

impl ShapeEqual {
    /// Compares everything (XLA's `Shape::Equal()`).
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let a = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().equal(&a, &a.clone()));
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Ignores layouts entirely (`IgnoreLayout`).
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let row = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[1, 0]).unwrap();
    /// let mut bare = row.clone();
    /// bare.layout = None;
    /// assert!(shape_util::ShapeEqual::new().ignore_layout().equal(&row, &bare));
    /// ```
    pub fn ignore_layout(mut self) -> Self {
        self.ignore_layout = true;
        self
    }

    /// Ignores the tiles of layouts (`IgnoreTilesInLayout`).
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::{PrimitiveType, Tile};
    /// let tiled = LayoutBuilder::new(&[1, 0]).tiles(vec![Tile { dimensions: vec![8, 128] }]).build();
    /// let a = shape_util::make_shape_with_layout(PrimitiveType::F32, &[8, 128], tiled).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[8, 128]).unwrap();
    /// assert!(!shape_util::equal(&a, &b));
    /// assert!(shape_util::ShapeEqual::new().ignore_tiles_in_layout().equal(&a, &b));
    /// ```
    pub fn ignore_tiles_in_layout(mut self) -> Self {
        self.layout = self.layout.ignore_tiles();
        self
    }

    /// Ignores `element_size_in_bits` in layouts (`IgnoreElementSizeInLayout`).
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::PrimitiveType;
    /// let packed = LayoutBuilder::new(&[0]).element_size_in_bits(4).build();
    /// let a = shape_util::make_shape_with_layout(PrimitiveType::S4, &[8], packed).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::S4, &[8]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().ignore_element_size_in_layout().equal(&a, &b));
    /// ```
    pub fn ignore_element_size_in_layout(mut self) -> Self {
        self.layout = self.layout.ignore_element_size();
        self
    }

    /// Ignores memory spaces in layouts (`IgnoreMemorySpaceInLayout`).
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::PrimitiveType;
    /// let host = LayoutBuilder::new(&[0]).memory_space(5).build();
    /// let a = shape_util::make_shape_with_layout(PrimitiveType::F32, &[8], host).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[8]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().ignore_memory_space_in_layout().equal(&a, &b));
    /// ```
    pub fn ignore_memory_space_in_layout(mut self) -> Self {
        self.layout = self.layout.ignore_memory_space();
        self
    }

    /// Compares only `minor_to_major` of layouts (`MinorToMajorOnlyInLayout`).
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::PrimitiveType;
    /// let odd = LayoutBuilder::new(&[0]).memory_space(1).tail_padding_alignment_in_elements(4).build();
    /// let a = shape_util::make_shape_with_layout(PrimitiveType::F32, &[8], odd).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[8]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().minor_to_major_only_in_layout().equal(&a, &b));
    /// ```
    pub fn minor_to_major_only_in_layout(mut self) -> Self {
        self.layout = self.layout.minor_to_major_only();
        self
    }

    /// Ignores `tail_padding_alignment_in_elements` in layouts
    /// (`IgnoreTailPaddingAlignmentInElements`).
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::PrimitiveType;
    /// let aligned = LayoutBuilder::new(&[0]).tail_padding_alignment_in_elements(128).build();
    /// let a = shape_util::make_shape_with_layout(PrimitiveType::F32, &[8], aligned).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[8]).unwrap();
    /// let eq = shape_util::ShapeEqual::new().ignore_tail_padding_alignment_in_elements();
    /// assert!(eq.equal(&a, &b));
    /// ```
    pub fn ignore_tail_padding_alignment_in_elements(mut self) -> Self {
        self.layout = self.layout.ignore_tail_padding_alignment();
        self
    }

    /// Ignores split configs in layouts (`IgnoreSplitConfigInLayout`).
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::{PrimitiveType, SplitConfig};
    /// let split = LayoutBuilder::new(&[0])
    ///     .split_configs(vec![SplitConfig { dimension: 0, split_indices: vec![4] }])
    ///     .build();
    /// let a = shape_util::make_shape_with_layout(PrimitiveType::F32, &[8], split).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[8]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().ignore_split_config_in_layout().equal(&a, &b));
    /// ```
    pub fn ignore_split_config_in_layout(mut self) -> Self {
        self.layout = self.layout.ignore_split_configs();
        self
    }

    /// Ignores element types (`IgnoreElementType`).
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let a = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::U8, &[2]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().ignore_element_type().equal(&a, &b));
    /// ```
    pub fn ignore_element_type(mut self) -> Self {
        self.ignore_element_type = true;
        self
    }

    /// Treats any two floating-point types as equal (`IgnoreFpPrecision`).
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let a = shape_util::make_shape(PrimitiveType::F8e5m2, &[2]).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F64, &[2]).unwrap();
    /// let c = shape_util::make_shape(PrimitiveType::S64, &[2]).unwrap();
    /// let eq = shape_util::ShapeEqual::new().ignore_fp_precision();
    /// assert!(eq.equal(&a, &b));
    /// assert!(!eq.equal(&b, &c));
    /// ```
    pub fn ignore_fp_precision(mut self) -> Self {
        self.ignore_fp_precision = true;
        self
    }

    /// Ignores dynamic flags, and tolerates a size mismatch where either
    /// side is unbounded `?` (`IgnoreDynamicDimension`).
    ///
    /// ```
    /// use schema::{PrimitiveType, UNBOUNDED_SIZE};
    /// let a = shape_util::make_shape(PrimitiveType::F32, &[UNBOUNDED_SIZE]).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[3]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().ignore_dynamic_dimension().equal(&a, &b));
    /// ```
    pub fn ignore_dynamic_dimension(mut self) -> Self {
        self.ignore_dynamic_dimension = true;
        self
    }

    /// Ignores ranks and dimension sizes (`IgnoreDimensions`).
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let a = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
    /// let b = shape_util::make_shape(PrimitiveType::F32, &[4, 5]).unwrap();
    /// assert!(shape_util::ShapeEqual::new().ignore_dimensions().equal(&a, &b));
    /// ```
    pub fn ignore_dimensions(mut self) -> Self {
        self.ignore_dimensions = true;
        self
    }

    /// Compares a buffer's array with the other side, buffer or not
    /// (`IgnoreBuffer`).
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let buffer = shape_util::make_buffer_shape(PrimitiveType::F32, &[2]).unwrap();
    /// let array = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
    /// assert!(!shape_util::equal(&buffer, &array));
    /// assert!(shape_util::ShapeEqual::new().ignore_buffer().equal(&buffer, &array));
    /// ```
    pub fn ignore_buffer(mut self) -> Self {
        self.ignore_buffer = true;
        self
    }

    /// Whether `lhs` and `rhs` are equal under these options.
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// let a = shape_util::make_nil();
    /// let b = shape_util::make_tuple_shape(vec![shape_util::make_token_shape()]).unwrap();
    /// assert!(!shape_util::ShapeEqual::new().ignore_layout().equal(&a, &b));
    /// ```
    pub fn equal(&self, lhs: &Shape, rhs: &Shape) -> bool {
        if is_tuple(lhs) {
            return is_tuple(rhs)
                && lhs.tuple_shapes.len() == rhs.tuple_shapes.len()
                && lhs
                    .tuple_shapes
                    .iter()
                    .zip(&rhs.tuple_shapes)
                    .all(|(l, r)| self.equal(l, r));
        }
        if is_buffer(lhs) && is_buffer(rhs) {
            return lhs.tuple_shapes.len() == rhs.tuple_shapes.len()
                && lhs
                    .tuple_shapes
                    .iter()
                    .zip(&rhs.tuple_shapes)
                    .all(|(l, r)| self.equal(l, r));
        }
        if is_buffer(lhs) || is_buffer(rhs) {
            return self.ignore_buffer
                && match (buffer_array(lhs), buffer_array(rhs)) {
                    (Some(l), Some(r)) => self.equal(l, r),
                    _ => false,
                };
        }
        if !is_array(lhs) {
            return lhs.element_type == rhs.element_type;
        }
        if !is_array(rhs) {
            return false;
        }
        self.equal_element_types(lhs, rhs)
            && self.equal_dimensions(lhs, rhs)
            && self.equal_layouts(lhs, rhs)
            && (self.ignore_dynamic_dimension || same_dynamic_flags(lhs, rhs))
    }

    fn equal_element_types(&self, lhs: &Shape, rhs: &Shape) -> bool {
        if self.ignore_element_type {
            return true;
        }
        if self.ignore_fp_precision {
            let floating =
                |s: &Shape| element_type(s).is_some_and(PrimitiveType::is_floating_point);
            if floating(lhs) && floating(rhs) {
                return true;
            }
        }
        lhs.element_type == rhs.element_type
    }

    fn equal_dimensions(&self, lhs: &Shape, rhs: &Shape) -> bool {
        if self.ignore_dimensions {
            return true;
        }
        lhs.dimensions.len() == rhs.dimensions.len()
            && (0..lhs.dimensions.len()).all(|i| {
                (self.ignore_dynamic_dimension
                    && (crate::kind::is_unbounded_dimension(lhs, i)
                        || crate::kind::is_unbounded_dimension(rhs, i)))
                    || lhs.dimensions[i] == rhs.dimensions[i]
            })
    }

    fn equal_layouts(&self, lhs: &Shape, rhs: &Shape) -> bool {
        if self.ignore_layout {
            return true;
        }
        match (lhs.layout.as_deref(), rhs.layout.as_deref()) {
            (None, None) => true,
            (Some(l), Some(r)) => self.layout.equal(l, r),
            _ => false,
        }
    }
}

/// A buffer's array, or the shape itself if it is not a buffer.
fn buffer_array(shape: &Shape) -> Option<&Shape> {
    if is_buffer(shape) {
        shape.tuple_shapes.first()
    } else {
        Some(shape)
    }
}

fn same_dynamic_flags(lhs: &Shape, rhs: &Shape) -> bool {
    let rank = lhs.dimensions.len().max(rhs.dimensions.len());
    (0..rank).all(|i| is_dynamic_dimension(lhs, i) == is_dynamic_dimension(rhs, i))
}

/// Whether two shapes are equal in every respect, layouts included
/// (`ShapeUtil::Equal`).
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::{equal, make_scalar_shape, make_shape_with_dense_layout};
/// // A scalar built with make_shape has the empty layout `{}`, like one
/// // built with an explicit empty minor_to_major.
/// let a = make_scalar_shape(PrimitiveType::F32).unwrap();
/// let b = make_shape_with_dense_layout(PrimitiveType::F32, &[], &[]).unwrap();
/// assert!(equal(&a, &b));
/// ```
pub fn equal(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new().equal(lhs, rhs)
}

/// Whether two shapes are equal ignoring layouts and dynamic bounds
/// (`ShapeUtil::Compatible` = `Equal().IgnoreDynamicDimension().IgnoreLayout()`):
/// `f32[<=4,3]` and `f32[4,<=3]` are compatible, and `f32[?]` is compatible
/// with any `f32[N]`.
///
/// ```
/// use schema::{PrimitiveType, UNBOUNDED_SIZE};
/// use shape_util::{compatible, make_shape, make_validated_shape};
/// let a = make_validated_shape(PrimitiveType::F32, &[4, 3], &[true, false]).unwrap();
/// let b = make_validated_shape(PrimitiveType::F32, &[4, 3], &[false, true]).unwrap();
/// assert!(compatible(&a, &b));
/// let unbounded = make_shape(PrimitiveType::F32, &[UNBOUNDED_SIZE]).unwrap();
/// assert!(compatible(&unbounded, &make_shape(PrimitiveType::F32, &[7]).unwrap()));
/// assert!(!compatible(&a, &make_shape(PrimitiveType::F32, &[4, 4]).unwrap()));
/// ```
pub fn compatible(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new()
        .ignore_dynamic_dimension()
        .ignore_layout()
        .equal(lhs, rhs)
}

/// [`compatible`], also ignoring element types
/// (`ShapeUtil::CompatibleIgnoringElementType`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::S8, &[2]).unwrap();
/// assert!(shape_util::compatible_ignoring_element_type(&a, &b));
/// ```
pub fn compatible_ignoring_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new()
        .ignore_dynamic_dimension()
        .ignore_layout()
        .ignore_element_type()
        .equal(lhs, rhs)
}

/// [`compatible`], treating any two floating-point types as equal
/// (`ShapeUtil::CompatibleIgnoringFpPrecision`): `bf16` vs `f64` is fine.
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::Bf16, &[2]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::F64, &[2]).unwrap();
/// assert!(shape_util::compatible_ignoring_fp_precision(&a, &b));
/// ```
pub fn compatible_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new()
        .ignore_dynamic_dimension()
        .ignore_layout()
        .ignore_fp_precision()
        .equal(lhs, rhs)
}

/// [`equal`] except for element types; layouts are still compared
/// (`ShapeUtil::EqualIgnoringElementType`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::U8, &[2, 3]).unwrap();
/// assert!(shape_util::equal_ignoring_element_type(&a, &b));
/// ```
pub fn equal_ignoring_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new().ignore_element_type().equal(lhs, rhs)
}

/// [`equal`] treating floating-point types as equal; layouts are still
/// compared (`ShapeUtil::EqualIgnoringFpPrecision`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::F16, &[2]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
/// assert!(shape_util::equal_ignoring_fp_precision(&a, &b));
/// ```
pub fn equal_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new().ignore_fp_precision().equal(lhs, rhs)
}

/// [`equal`] except for layouts (`Shape::Equal().IgnoreLayout()`); dynamic
/// flags still count.
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// assert!(shape_util::equal_ignoring_layout(&a, &b));
/// ```
pub fn equal_ignoring_layout(lhs: &Shape, rhs: &Shape) -> bool {
    ShapeEqual::new().ignore_layout().equal(lhs, rhs)
}

/// Whether two arrays have the same dimensions, ignoring element types,
/// layouts, dynamic flags, and any dimension where either side is
/// unbounded `?` (`ShapeUtil::SameDimensions`). False if either is not an
/// array.
///
/// ```
/// use schema::{PrimitiveType, UNBOUNDED_SIZE};
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::S8, &[2, UNBOUNDED_SIZE]).unwrap();
/// assert!(shape_util::same_dimensions(&a, &b));
/// assert!(!shape_util::same_dimensions(&a, &shape_util::make_shape(PrimitiveType::F32, &[3, 2]).unwrap()));
/// ```
pub fn same_dimensions(lhs: &Shape, rhs: &Shape) -> bool {
    is_array(lhs)
        && is_array(rhs)
        && ShapeEqual::new()
            .ignore_element_type()
            .ignore_layout()
            .ignore_dynamic_dimension()
            .equal(lhs, rhs)
}

/// Whether two arrays have the same rank (`ShapeUtil::SameRank`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::S8, &[7, 7]).unwrap();
/// assert!(shape_util::same_rank(&a, &b));
/// ```
pub fn same_rank(lhs: &Shape, rhs: &Shape) -> bool {
    is_array(lhs) && is_array(rhs) && lhs.dimensions.len() == rhs.dimensions.len()
}

/// Whether two shapes have the same tuple tree, ignoring what the leaves
/// are (`ShapeUtil::EqualStructure`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_tuple_shape(vec![shape_util::make_token_shape()]).unwrap();
/// let b = shape_util::make_tuple_shape(vec![shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap()]).unwrap();
/// assert!(shape_util::equal_structure(&a, &b));
/// assert!(!shape_util::equal_structure(&a, &shape_util::make_nil()));
/// ```
pub fn equal_structure(lhs: &Shape, rhs: &Shape) -> bool {
    if is_tuple(lhs) || is_tuple(rhs) {
        return is_tuple(lhs)
            && is_tuple(rhs)
            && lhs.tuple_shapes.len() == rhs.tuple_shapes.len()
            && lhs
                .tuple_shapes
                .iter()
                .zip(&rhs.tuple_shapes)
                .all(|(l, r)| equal_structure(l, r));
    }
    true
}

/// Whether two shapes have the same element type (`ShapeUtil::SameElementType`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
/// let b = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// assert!(shape_util::same_element_type(&a, &b));
/// ```
pub fn same_element_type(lhs: &Shape, rhs: &Shape) -> bool {
    lhs.element_type == rhs.element_type
}

/// Whether two shapes have the same element type, any two floating-point
/// types counting as the same (`ShapeUtil::SameElementTypeIgnoringFpPrecision`).
///
/// ```
/// use schema::PrimitiveType;
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::Bf16, &[2]).unwrap();
/// assert!(shape_util::same_element_type_ignoring_fp_precision(&a, &b));
/// ```
pub fn same_element_type_ignoring_fp_precision(lhs: &Shape, rhs: &Shape) -> bool {
    let floating = |s: &Shape| element_type(s).is_some_and(PrimitiveType::is_floating_point);
    (floating(lhs) && floating(rhs)) || same_element_type(lhs, rhs)
}
