//! DLPack's description of a tensor's elements (the `dlpack` feature):
//! `shape`, `strides` in elements (absent for a compact row-major tensor)
//! and `byte_offset` from the data pointer, as a [`StridedView`] over the
//! buffer at the data pointer, and back.

use super::{StridedView, ViewError, numpy_tuple};

/// A DLPack tensor's layout fields: `shape`, `strides` (in elements) and
/// `byte_offset` (in bytes from its data pointer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DlpackLayout {
    /// `DLTensor::shape`.
    pub shape: Vec<i64>,
    /// `DLTensor::strides`, in elements.
    pub strides: Vec<i64>,
    /// `DLTensor::byte_offset`.
    pub byte_offset: u64,
}

/// The bytes of `bits`-bit elements, if whole.
fn element_bytes(bits: u32) -> Option<u64> {
    (bits > 0 && bits.is_multiple_of(8)).then(|| u64::from(bits / 8))
}

impl StridedView {
    /// The view of a DLPack tensor of `element_bits`-bit elements over the
    /// buffer at its data pointer: `shape`, `strides` (`None`: compact
    /// row-major, as DLPack's `NULL`) and the offset `byte_offset` in
    /// elements.
    ///
    /// # Errors
    ///
    /// [`ViewError::Conversion`] if the element is not whole bytes or
    /// `byte_offset` is not a multiple of its size; and those of
    /// [`StridedView::new`].
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// // A float32 [2, 3] tensor 64 bytes into its buffer, transposed strides.
    /// let view = StridedView::from_dlpack(&[2, 3], Some(&[1, 2]), 64, 32)?;
    /// assert_eq!((view.strides(), view.offset()), (&[1, 2][..], 16));
    /// let back = view.to_dlpack(32)?;
    /// assert_eq!((back.strides, back.byte_offset), (vec![1, 2], 64));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn from_dlpack(
        shape: &[i64],
        strides: Option<&[i64]>,
        byte_offset: u64,
        element_bits: u32,
    ) -> Result<Self, ViewError> {
        let fail = |reason: String| ViewError::Conversion {
            to: "from DLPack",
            shape: numpy_tuple(shape),
            strides: strides.map_or_else(|| "NULL".to_owned(), numpy_tuple),
            reason,
        };
        let size = element_bytes(element_bits).ok_or_else(|| {
            fail(format!(
                "elements of {element_bits} bits are not whole bytes"
            ))
        })?;
        if !byte_offset.is_multiple_of(size) {
            return Err(fail(format!(
                "byte_offset {byte_offset} is not a multiple of the element's {size} bytes"
            )));
        }
        let offset = i64::try_from(byte_offset / size)
            .map_err(|_| fail(format!("byte_offset {byte_offset} is too large")))?;
        let compact;
        let strides = match strides {
            Some(strides) => strides,
            None => {
                compact = StridedView::row_major(shape)?;
                compact.strides()
            }
        };
        StridedView::new(shape, strides, offset)
    }

    /// The DLPack layout of the view over a buffer at the tensor's data
    /// pointer, elements of `element_bits` bits: its sizes, strides and
    /// offset in bytes.
    ///
    /// # Errors
    ///
    /// [`ViewError::Conversion`] if the element is not whole bytes, the
    /// offset is negative or its bytes overflow.
    pub fn to_dlpack(&self, element_bits: u32) -> Result<DlpackLayout, ViewError> {
        let fail = |reason: String| ViewError::Conversion {
            to: "to DLPack",
            shape: numpy_tuple(self.sizes()),
            strides: numpy_tuple(self.strides()),
            reason,
        };
        let size = element_bytes(element_bits).ok_or_else(|| {
            fail(format!(
                "elements of {element_bits} bits are not whole bytes"
            ))
        })?;
        let byte_offset = u64::try_from(self.offset())
            .ok()
            .and_then(|offset| offset.checked_mul(size))
            .ok_or_else(|| fail(format!("offset {} has no byte_offset", self.offset())))?;
        Ok(DlpackLayout {
            shape: self.sizes().to_vec(),
            strides: self.strides().to_vec(),
            byte_offset,
        })
    }
}
