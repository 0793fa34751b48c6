//! The slow, correct path for packed sub-byte elements (1, 2 or 4 bits):
//! element `k` occupies bits `k·n .. k·n+n` of the buffer, counting from
//! the least significant bit of each byte.

use stride_util::StridedView;

/// Reads packed element `index`.
pub(crate) fn get(buffer: &[u8], index: i64, bits: u32) -> u8 {
    let (byte, shift) = locate(index, bits);
    (buffer[byte] >> shift) & mask(bits)
}

/// Writes packed element `index`.
pub(crate) fn set(buffer: &mut [u8], index: i64, bits: u32, value: u8) {
    let (byte, shift) = locate(index, bits);
    let m = mask(bits) << shift;
    buffer[byte] = (buffer[byte] & !m) | ((value << shift) & m);
}

fn locate(index: i64, bits: u32) -> (usize, u32) {
    // Validated: the index is inside the buffer, so non-negative.
    let bit = index as u64 * u64::from(bits);
    ((bit / 8) as usize, (bit % 8) as u32)
}

fn mask(bits: u32) -> u8 {
    (1_u16 << bits).wrapping_sub(1) as u8
}

/// Copies every element of `src_view` into `dst_view` (validated).
pub(crate) fn copy(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    bits: u32,
) {
    for (s, d) in src_view.offsets().zip(dst_view.offsets()) {
        set(dst, d, bits, get(src, s, bits));
    }
}
