//! The bytes of one instruction's buffer, and of a module's entry
//! parameters and outputs as XLA's `CompiledMemoryStats` counts them.

use schema::Shape;

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

    /// The sizes of nothing: the empty tuple's, a token's.
    pub const EMPTY: Self = Self {
        bytes: 0,
        allocated_bytes: 0,
        memory_space: 0,
    };

    /// The sizes of a tuple of `count` elements: its table of pointers.
    ///
    /// # Errors
    ///
    /// [`ShapeError::ByteTotalOverflow`] if the table's bytes pass `i64`.
    pub(crate) fn of_tuple(count: usize) -> Result<Self, ShapeError> {
        let bytes = i64::try_from(count)
            .ok()
            .and_then(|count| count.checked_mul(POINTER_SIZE))
            .ok_or_else(|| ShapeError::ByteTotalOverflow {
                what: format!("a tuple of {count} elements"),
            })?;
        Ok(Self {
            bytes,
            allocated_bytes: bytes,
            memory_space: 0,
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

/// The bytes of entry parameters or of an entry result, summed over every
/// buffer in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntryBytes {
    /// Arrays by their logical bytes (`ByteSizeOf`): what XLA's CPU backend
    /// reports in `CompiledMemoryStats` whatever the layout.
    pub logical: i64,
    /// Arrays by their allocated bytes (`ArraySize`, tiles and padding
    /// included): the same as `logical` for layouts without tiles.
    pub allocated: i64,
}

impl EntryBytes {
    /// The sum, `None` on overflow.
    pub(crate) fn plus(self, logical: i64, allocated: i64) -> Option<Self> {
        Some(Self {
            logical: self.logical.checked_add(logical)?,
            allocated: self.allocated.checked_add(allocated)?,
        })
    }
}
