//! The bytes of one instruction's buffer, and of a module's entry
//! parameters and outputs as XLA's `CompiledMemoryStats` counts them.

use schema::{PrimitiveType, Shape};
use shape_util::ShapeError;

/// The size of a pointer in a tuple's index table on XLA's CPU and GPU
/// backends (`CompiledMemoryStats` counts 8 bytes per tuple element).
pub const POINTER_SIZE: i64 = 8;

/// What one instruction's own buffer takes.
///
/// ```
/// let shape = "bf16[10,200]{1,0:T(8,128)(2,1)}".parse().unwrap();
/// let sizes = hlo_util::BufferSizes::of(&shape).unwrap();
/// assert_eq!((sizes.bytes, sizes.allocated_bytes), (4000, 8192));
/// assert_eq!(sizes.padding_bytes(), 4192);
/// assert_eq!(sizes.padding_ratio(), Some(2.048));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferSizes {
    /// The logical bytes (XLA's `ShapeUtil::ByteSizeOf` with 8-byte
    /// pointers): an array's elements, packed as `E(n)` says; a tuple's
    /// index table (its elements are other buffers); 0 for a token.
    pub bytes: i64,
    /// The bytes allocated (XLA's `ShapeUtil::ArraySize` for an array:
    /// tiles, tail padding `L(n)` and `E(n)` included); `bytes` for the
    /// rest.
    pub allocated_bytes: i64,
    /// The array's memory space (`S(n)` of its layout), 0 for the rest.
    pub memory_space: i64,
}

impl BufferSizes {
    /// The sizes of a buffer of `shape`.
    ///
    /// # Errors
    ///
    /// The [`ShapeError`] of `shape_util::byte_size_of` or
    /// `shape_util::array_size`: a layout XLA refuses, sizes that overflow.
    pub fn of(shape: &Shape) -> Result<Self, ShapeError> {
        let bytes = shape_util::byte_size_of(shape, Some(POINTER_SIZE))?;
        if !shape_util::is_array(shape) {
            return Ok(Self {
                bytes,
                allocated_bytes: bytes,
                memory_space: 0,
            });
        }
        Ok(Self {
            bytes,
            allocated_bytes: shape_util::array_size(shape)?,
            memory_space: shape.layout.as_ref().map_or(0, |l| l.memory_space),
        })
    }

    /// The bytes allocated beyond the logical bytes.
    pub fn padding_bytes(&self) -> i64 {
        self.allocated_bytes.saturating_sub(self.bytes)
    }

    /// Allocated bytes over logical bytes (2.048 for a buffer twice and a
    /// bit as large as its data); `None` when the logical size is 0.
    #[allow(clippy::cast_precision_loss)] // A ratio for people to read.
    pub fn padding_ratio(&self) -> Option<f64> {
        (self.bytes != 0).then(|| self.allocated_bytes as f64 / self.bytes as f64)
    }
}

/// The bytes XLA's `CompiledMemoryStats` counts for one entry parameter or
/// the entry result of `shape`: every array in it as allocated
/// ([`BufferSizes::allocated_bytes`]) and every tuple, nested ones too, as
/// its index table of [`POINTER_SIZE`] bytes per element; tokens count 0.
/// This is how `argument_size_in_bytes` and `output_size_in_bytes` of jax's
/// `compiled.memory_analysis()` count on XLA's CPU backend (the golden set
/// `tests/golden/hlo/` checks it).
///
/// # Errors
///
/// The errors of [`BufferSizes::of`] and [`ShapeError::ByteSizeOverflow`].
///
/// ```
/// let shape = "((f32[8]{0}, s32[2]{0}), f32[4]{0})".parse().unwrap();
/// // Two tables (2 pointers each) and 32 + 8 + 16 bytes of arrays.
/// assert_eq!(hlo_util::entry_bytes(&shape).unwrap(), 16 + 16 + 56);
/// ```
pub fn entry_bytes(shape: &Shape) -> Result<i64, ShapeError> {
    let mut total: i64 = 0;
    let mut pending = vec![shape];
    while let Some(shape) = pending.pop() {
        let own = if shape.element_type == PrimitiveType::Tuple as i32 {
            pending.extend(shape.tuple_shapes.iter());
            BufferSizes::of(shape)?.bytes
        } else {
            BufferSizes::of(shape)?.allocated_bytes
        };
        total = total
            .checked_add(own)
            .ok_or_else(|| ShapeError::ByteSizeOverflow {
                shape: shape.human_string(),
            })?;
    }
    Ok(total)
}
