//! Which register transposes the relayout kernels use, chosen once at run
//! time for the CPU at hand: AVX-512 (F, BW and VBMI) or AVX2 where
//! `is_x86_feature_detected!` finds them, else SSE2 (the x86_64 baseline),
//! else (other architectures) none: tiles are then transposed element by
//! element. Tests may lower the level
//! (never raise it past what the CPU has) to keep every path under test.

use std::fmt;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// A set of register transposes the relayout kernels can use, from the
/// narrowest to the widest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SimdLevel {
    /// No register transposes: tiles go element by element (every target).
    Scalar,
    /// 16-byte SSE2 register blocks, and the streaming kernel (x86_64).
    Sse2,
    /// 32-byte AVX2 register blocks for the tiled kernel with 1 and 8-byte
    /// elements (x86_64 CPUs with AVX2, detected at run time); SSE2
    /// otherwise.
    Avx2,
    /// 64-byte AVX-512 transposes straight from the source for 1, 2, 4 and
    /// 8-byte elements, written with streaming stores when large (x86_64
    /// CPUs with AVX-512 F, BW and VBMI: Ice Lake, Zen 4 and later); the
    /// AVX2 and SSE2 ones for the edges and short rows.
    Avx512,
}

impl fmt::Display for SimdLevel {
    /// The level in lowercase: `scalar`, `sse2`, `avx2`, `avx512`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Scalar => "scalar",
            Self::Sse2 => "sse2",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
        })
    }
}

impl SimdLevel {
    const ALL: [Self; 4] = [Self::Scalar, Self::Sse2, Self::Avx2, Self::Avx512];

    /// Every level up to this one, narrowest first.
    pub fn and_below(self) -> impl Iterator<Item = Self> {
        Self::ALL.into_iter().filter(move |&level| level <= self)
    }
}

/// The widest level this CPU supports, detected once.
///
/// ```
/// use relayout::{SimdLevel, detected_simd_level};
///
/// let level = detected_simd_level();
/// assert!(level >= SimdLevel::Scalar);
/// if cfg!(target_arch = "x86_64") {
///     assert!(level >= SimdLevel::Sse2);
/// }
/// ```
pub fn detected_simd_level() -> SimdLevel {
    static DETECTED: OnceLock<SimdLevel> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn detect() -> SimdLevel {
    use std::arch::is_x86_feature_detected as has;
    if has!("avx512f") && has!("avx512bw") && has!("avx512vbmi") {
        SimdLevel::Avx512
    } else if has!("avx2") {
        SimdLevel::Avx2
    } else {
        SimdLevel::Sse2
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn detect() -> SimdLevel {
    SimdLevel::Scalar
}

/// The level forced by [`force_simd_level`], or `NOT_FORCED`.
static FORCED: AtomicU8 = AtomicU8::new(NOT_FORCED);
const NOT_FORCED: u8 = u8::MAX;

/// The level the relayout kernels use now: the detected one unless a test
/// lowered it with [`force_simd_level`]. Never above
/// [`detected_simd_level`].
pub fn simd_level() -> SimdLevel {
    let detected = detected_simd_level();
    match SimdLevel::ALL.get(usize::from(FORCED.load(Ordering::Relaxed))) {
        Some(&forced) => forced.min(detected),
        None => detected,
    }
}

/// For tests: makes every later relayout (in every thread) use `level`, or
/// the detected level again for `None`. Returns the level now in use,
/// which is `level` unless this CPU lacks it (the level is never raised
/// past [`detected_simd_level`]).
#[doc(hidden)]
pub fn force_simd_level(level: Option<SimdLevel>) -> SimdLevel {
    let code = level.map_or(NOT_FORCED, |level| level as u8);
    FORCED.store(code, Ordering::Relaxed);
    simd_level()
}
