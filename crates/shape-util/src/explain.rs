//! [`Explanation`]: the facts of a shape a person asks about first (sizes,
//! layout, tiles, strides, padding, the buffer in memory order), built by
//! [`explain`]. Its JSON form (`Serialize`, read back by `Deserialize`)
//! holds the facts; its text form (`Display`, in `explain_text.rs`) says
//! them in words.

use index_util::{PhysicalLayout, TiledLayout, TooManyPositions};
use schema::{COMBINE_DIMENSION, PaddingValue, PrimitiveType, Shape};
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize, Serializer};
use thiserror::Error;

use crate::labels::{element_label, padding_label};
use crate::{
    ShapeError, byte_size_of, byte_strides, elements_in, is_array, is_tuple, rank, true_rank,
};

/// An element type's lowercase name. Spelled as an alias so that serde's
/// derive does not borrow the field from the input (it would for a
/// `&'static str` written out); [`element_type_name`] reads it.
type LowercaseName = &'static str;

/// The memory picture is drawn for buffers of at most this many positions.
pub const MAX_PICTURE_POSITIONS: i64 = 64;

/// Why a shape cannot be explained.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ExplainError {
    /// The element type is no `PrimitiveType`.
    #[error("unknown enum value {value}")]
    UnknownElementType {
        /// The element type's number.
        value: i32,
    },
    /// XLA rejects the shape (its message).
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The buffer is too long to list.
    #[error(transparent)]
    Order(#[from] TooManyPositions),
}

impl From<index_util::IndexError> for ExplainError {
    fn from(error: index_util::IndexError) -> Self {
        Self::Shape(error.into())
    }
}

impl From<layout_util::LayoutError> for ExplainError {
    fn from(error: layout_util::LayoutError) -> Self {
        Self::Shape(error.into())
    }
}

/// One entry of a tile: a size, or `*` (XLA's combined dimension), which
/// JSON writes as the string `"*"` (and reads back from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileSize {
    /// Elements along the dimension.
    Size(i64),
    /// The dimension is combined with the next more minor one.
    Combined,
}

impl TileSize {
    fn of(d: i64) -> Self {
        if d == COMBINE_DIMENSION {
            Self::Combined
        } else {
            Self::Size(d)
        }
    }
}

impl Serialize for TileSize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Size(d) => serializer.serialize_i64(*d),
            Self::Combined => serializer.serialize_str("*"),
        }
    }
}

/// A tile entry as JSON has it: a number or the string `"*"`.
#[derive(Deserialize)]
#[serde(untagged)]
enum TileEntry {
    Size(i64),
    Word(String),
}

impl<'de> Deserialize<'de> for TileSize {
    /// A number, or `"*"` for a combined dimension.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match TileEntry::deserialize(deserializer)? {
            TileEntry::Size(d) => Ok(Self::Size(d)),
            TileEntry::Word(word) if word == "*" => Ok(Self::Combined),
            TileEntry::Word(word) => Err(D::Error::custom(format!(
                "tile entry {word:?} is neither a size nor \"*\""
            ))),
        }
    }
}

/// An element type's lowercase name read back as the name
/// [`PrimitiveType::lowercase_name`] gives.
fn element_type_name<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<LowercaseName, D::Error> {
    let name = String::deserialize(deserializer)?;
    PrimitiveType::from_lowercase_name(&name)
        .map(PrimitiveType::lowercase_name)
        .ok_or_else(|| D::Error::custom(format!("unknown element type {name:?}")))
}

/// What a shape is and how its buffer is laid out: `xla-shape explain`'s
/// report. The serialized fields are the facts (`null` where a tuple,
/// token, opaque or buffer shape has none); the rest serve the text.
///
/// `Deserialize` reads the facts back. The text's own fields, `shape` and
/// `details`, are not serialized: a report read back has an empty `shape`
/// and [`Details::default`] (explain the shape again for its text).
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let report = shape_util::explain(&shape).unwrap();
/// assert_eq!(report.buffer_size, Some(24));
/// assert_eq!(report.strides.as_deref(), Some(&[1, 2][..]));
/// assert!(report.to_string().contains("memory: a d b e c f"));
///
/// let json = serde_json::to_string(&report).unwrap();
/// let back: shape_util::Explanation = serde_json::from_str(&json).unwrap();
/// assert_eq!((back.buffer_size, back.strides), (report.buffer_size, report.strides));
/// assert_eq!(back.shape, "");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Explanation {
    /// The shape, as XLA prints it with its layout (not serialized: empty
    /// in a report read back).
    #[serde(skip)]
    pub shape: String,
    /// The element type's lowercase name (`f32`, `tuple`, `token`).
    #[serde(deserialize_with = "element_type_name")]
    pub element_type: LowercaseName,
    /// The number of dimensions.
    pub rank: Option<usize>,
    /// The number of dimensions of size other than 1.
    pub true_rank: Option<usize>,
    /// The number of elements.
    pub element_count: Option<i64>,
    /// XLA's `ByteSizeOf` (tiles ignored; 8-byte pointers for a tuple).
    pub byte_size: i64,
    /// The bytes a buffer occupies: tiles, padding and E(n) packing included.
    pub buffer_size: Option<i64>,
    /// The tiles, outermost first (empty when untiled).
    pub tiles: Option<Vec<Vec<TileSize>>>,
    /// The strides in elements (none for a tiled buffer).
    pub strides: Option<Vec<i64>>,
    /// The strides in bytes (none for a tiled buffer).
    pub byte_strides: Option<Vec<i64>>,
    /// The dimension numbers, most major first.
    pub major_to_minor: Option<Vec<i64>>,
    /// The padded extents of a classic (`PAD(..)`) padded layout.
    pub padded_dimensions: Option<Vec<i64>>,
    /// What only the text says (not serialized: [`Details::default`] in a
    /// report read back).
    #[serde(skip)]
    pub details: Details,
}

/// The facts only the text form says.
#[derive(Debug, Clone, PartialEq)]
pub enum Details {
    /// An array.
    Array(ArrayDetails),
    /// A tuple (with its element count), token, opaque or buffer shape.
    Other {
        /// A tuple's element count.
        tuple_elements: Option<usize>,
    },
}

impl Default for Details {
    /// What a report read back from JSON has: no text-only facts
    /// (`Other` with no tuple element count).
    fn default() -> Self {
        Self::Other {
            tuple_elements: None,
        }
    }
}

/// An array's facts that only the text form says.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayDetails {
    /// The bits of one element.
    pub bits: u32,
    /// The logical dimensions.
    pub dimensions: Vec<i64>,
    /// A tiled layout's buffer.
    pub tiling: Option<Tiling>,
    /// The padding of the buffer.
    pub padding: Padding,
    /// The buffer's labels in memory order, for buffers of at most
    /// [`MAX_PICTURE_POSITIONS`] positions.
    pub memory: Option<Vec<String>>,
}

/// A tiled buffer's extents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tiling {
    /// The positions of the buffer.
    pub buffer_len: i64,
    /// The bits each position takes.
    pub element_size_in_bits: i64,
    /// The buffer's dimensions after the first tiling.
    pub first_tile_dimensions: Option<Vec<i64>>,
    /// The buffer's dimensions after every tiling.
    pub buffer_dimensions: Vec<i64>,
}

/// Where a buffer holds more positions than elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Padding {
    /// Every position is an element.
    None,
    /// Classic padding: the padded extents hold `positions` positions of
    /// `value` padding.
    Classic {
        /// The padding value.
        value: PaddingValue,
        /// The positions of the padded buffer.
        positions: i64,
    },
    /// Tile and tail padding: `positions` positions of any value.
    Tiles {
        /// The padding positions.
        positions: i64,
    },
}

/// The report on `shape` that `xla-shape explain` prints.
///
/// ```
/// let shape: schema::Shape = "(f32[2], s8[])".parse().unwrap();
/// let report = shape_util::explain(&shape).unwrap();
/// assert_eq!((report.element_type, report.byte_size), ("tuple", 16));
/// ```
///
/// # Errors
/// XLA's message for a shape it rejects.
pub fn explain(shape: &Shape) -> Result<Explanation, ExplainError> {
    let element_type = PrimitiveType::try_from(shape.element_type).map_err(|_| {
        ExplainError::UnknownElementType {
            value: shape.element_type,
        }
    })?;
    if is_array(shape) {
        explain_array(shape, element_type)
    } else {
        explain_other(shape, element_type)
    }
}

fn explain_array(shape: &Shape, element_type: PrimitiveType) -> Result<Explanation, ExplainError> {
    let rank = rank(shape)?;
    let true_rank = true_rank(shape)?;
    let element_count = elements_in(shape)?;
    let byte_size = byte_size_of(shape, None)?;
    let physical = PhysicalLayout::new(shape)?;
    let tiled = TiledLayout::new(shape)?;
    let major_to_minor: Vec<i64> = layout_util::minor_to_major(shape)?
        .iter()
        .rev()
        .copied()
        .collect();
    let padded = layout_util::is_padded(shape);
    // A tiled buffer has no strides.
    let (strides, byte_strides) = if tiled.is_tiled() {
        (None, None)
    } else {
        (
            Some(physical.strides().to_vec()),
            Some(byte_strides(shape)?),
        )
    };
    let padding = if padded {
        Padding::Classic {
            value: padding_value(shape)?,
            positions: physical.padded_element_count(),
        }
    } else if tiled.is_tiled() {
        let elements: i64 = tiled.dimensions().iter().product();
        Padding::Tiles {
            positions: tiled.buffer_len() - elements,
        }
    } else {
        Padding::None
    };
    let memory = if tiled.buffer_len() <= MAX_PICTURE_POSITIONS {
        Some(memory_picture(shape, &tiled)?)
    } else {
        None
    };
    let tiling = tiled.is_tiled().then(|| Tiling {
        buffer_len: tiled.buffer_len(),
        element_size_in_bits: tiled.element_size_in_bits(),
        first_tile_dimensions: tiled.first_tile_dimensions(),
        buffer_dimensions: tiled.buffer_dimensions().to_vec(),
    });
    Ok(Explanation {
        shape: shape.to_string(),
        element_type: element_type.lowercase_name(),
        rank: Some(rank),
        true_rank: Some(true_rank),
        element_count: Some(element_count),
        byte_size,
        buffer_size: Some(tiled.buffer_size_in_bytes()),
        tiles: Some(
            tiled
                .tiles()
                .map(|tile| tile.iter().map(|&d| TileSize::of(d)).collect())
                .collect(),
        ),
        strides,
        byte_strides,
        major_to_minor: Some(major_to_minor),
        padded_dimensions: padded.then(|| physical.padded_dimensions().to_vec()),
        details: Details::Array(ArrayDetails {
            bits: element_type.bit_width().unwrap_or(0),
            dimensions: shape.dimensions.clone(),
            tiling,
            padding,
            memory,
        }),
    })
}

fn padding_value(shape: &Shape) -> Result<PaddingValue, ExplainError> {
    Ok(shape
        .layout
        .as_deref()
        .map_or(Ok(PaddingValue::InvalidPad), layout_util::padding_value)?)
}

/// The buffer in memory order: elements named `a`, `b`, ... in row-major
/// order with padding shown by its value (`0`, `1`, `lo`, `hi`, `?`), tile
/// padding (of any value) as `.` like XLA's tiled-layout figure; past 26
/// elements, row-major numbers with `pad` for padding.
fn memory_picture(shape: &Shape, tiled: &TiledLayout) -> Result<Vec<String>, ExplainError> {
    let count = tiled.dimensions().iter().product::<i64>();
    let pad = match padding_value(shape)? {
        _ if count > 26 => "pad",
        _ if tiled.is_tiled() => ".",
        value => padding_label(value),
    };
    Ok(index_util::memory_order(tiled)?
        .into_iter()
        .map(|cell| cell.map_or_else(|| pad.to_owned(), |i| element_label(i, count)))
        .collect())
}

/// Tuples, tokens, opaque and buffer shapes: what they are and their size.
fn explain_other(shape: &Shape, element_type: PrimitiveType) -> Result<Explanation, ExplainError> {
    Ok(Explanation {
        shape: shape.to_string(),
        element_type: element_type.lowercase_name(),
        rank: None,
        true_rank: None,
        element_count: None,
        byte_size: byte_size_of(shape, Some(8))?,
        buffer_size: None,
        tiles: None,
        strides: None,
        byte_strides: None,
        major_to_minor: None,
        padded_dimensions: None,
        details: Details::Other {
            tuple_elements: is_tuple(shape).then_some(shape.tuple_shapes.len()),
        },
    })
}
