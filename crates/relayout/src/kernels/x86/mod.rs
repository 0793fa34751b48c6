//! The x86_64 register kernels, compiled where the target has SSE2 (every
//! x86_64 target) and chosen at run time by [`crate::simd_level`]: SSE2
//! block transposes (`sse2.rs`) and the streaming transpose and copy
//! (`stream.rs`), AVX2 block transposes (`avx2.rs`), AVX-512 transposes
//! (`avx512.rs`), the AVX-512 interleaving of XLA's packing tiles
//! (`avx512_interleave.rs`, many runs a call `avx512_interleave_runs.rs`),
//! the AVX-512 nibble exchange of packed 4-bit elements
//! (`avx512_nibbles.rs`) and their untiled transpose
//! (`avx512_nibble_rows.rs`), the AVX-512 quad transpose into and out of
//! tiles `T(4,c)` (`avx512_quads.rs`), the 64 × 64 byte transpose both
//! take (`avx512_bytes64.rs`), the blocks of the tile transposes
//! (`tile_blocks.rs`, with AVX-512 `avx512/tile_blocks.rs`) and the AVX-512
//! blocks of packed squares (`avx512/packed_squares.rs`), large ones walked
//! in regions (`regions.rs`). They share the kernel
//! types of [`super::block`].

pub(crate) mod avx2;
pub(crate) mod avx512;
mod avx512_bytes64;
pub(crate) mod avx512_interleave;
pub(crate) mod avx512_interleave_runs;
pub(crate) mod avx512_nibble_rows;
pub(crate) mod avx512_nibbles;
pub(crate) mod avx512_quads;
mod regions;
pub(crate) mod sse2;
pub(crate) mod stream;
pub(crate) mod tile_blocks;

/// Row `row` of a kernel's row table, read as one scalar load: without it
/// the compiler vectorizes the address arithmetic of a block's 16 rows
/// (adds and shifts in a vector register, then one extract per address),
/// putting 20-odd extracts a block on the shuffle ports the transpose
/// itself is bound by. Measured on the 2-core AMD EPYC (Zen 4), best of
/// 200 calls against a plain copy in the same process: f32[256,256]
/// row-major into `{0,1:T(8,128)}` 1.38–1.41 against 1.92–2.26,
/// `{1,0:T(8,128)}` into `{0,1:T(8,128)}` 1.19–1.26 against 2.05–2.11.
#[inline(always)]
pub(crate) fn row_at(row: &usize) -> usize {
    // SAFETY: a reference is valid for reads, and a volatile read of it is
    // an ordinary read the compiler keeps as it is.
    #[allow(unsafe_code)]
    unsafe {
        core::ptr::read_volatile(row)
    }
}
