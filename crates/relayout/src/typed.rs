//! Typed buffers for [`RelayoutPlan`](crate::RelayoutPlan)'s runs: a slice of any
//! plain-old-data type ([`bytemuck::Pod`]) is its bytes, if its values are
//! single bytes or exactly one element each.

use bytemuck::Pod;

use super::RelayoutError;

/// Checks that values of `T` can hold elements of `bits` on `side`: one
/// byte (a byte buffer, for any element), or exactly one element.
fn check<T: Pod>(side: &'static str, bits: u32) -> Result<(), RelayoutError> {
    let size = size_of::<T>();
    let bytes = u64::try_from(size).unwrap_or(u64::MAX);
    if size == 1 || bytes.checked_mul(8) == Some(u64::from(bits)) {
        Ok(())
    } else {
        Err(RelayoutError::BufferType {
            side,
            value_bytes: size,
            element_bits: bits,
        })
    }
}

/// The bytes of `values`, the `side` buffer of elements of `bits`.
pub(crate) fn bytes<'a, T: Pod>(
    side: &'static str,
    values: &'a [T],
    bits: u32,
) -> Result<&'a [u8], RelayoutError> {
    check::<T>(side, bits)?;
    Ok(bytemuck::cast_slice(values))
}

/// The bytes of `values`, the `side` buffer of elements of `bits`, to
/// write.
pub(crate) fn bytes_mut<'a, T: Pod>(
    side: &'static str,
    values: &'a mut [T],
    bits: u32,
) -> Result<&'a mut [u8], RelayoutError> {
    check::<T>(side, bits)?;
    Ok(bytemuck::cast_slice_mut(values))
}
