//! hptt (C++, OpenMP), with its thread count: f32 and f64 only (it has no
//! byte type). Built only with the cargo feature `hptt` (the default).

use crate::cases::Case;
use crate::measured::Function;

/// The pause after each measurement of hptt on several threads: more than
/// libgomp's default spin (300,000 rounds of `pause` before a waiting
/// thread sleeps, some milliseconds).
#[cfg(feature = "hptt")]
const SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

/// hptt's `B = 1·A` permuted (`beta = 0`), row-major, on `threads` OpenMP
/// threads; `None` for u8 or without the feature.
#[cfg(feature = "hptt")]
pub fn function(case: &Case, threads: usize) -> Option<Function<'_>> {
    use crate::cases::Element;
    use crate::measured::{Run, cast, cast_mut};
    use hptt::MemoryOrder::RowMajor;
    let (perm, shape) = (case.perm, case.shape);
    let run: Run<'_> = match case.element {
        Element::U8 => return None,
        Element::F32 => Box::new(move |src: &[u8], dst: &mut [u8]| {
            hptt::transpose_f32(
                perm,
                1.0,
                cast(src)?,
                shape,
                0.0,
                cast_mut(dst)?,
                threads,
                RowMajor,
            )
            .map_err(|e| format!("hptt: {e}"))
        }),
        Element::F64 => Box::new(move |src: &[u8], dst: &mut [u8]| {
            hptt::transpose_f64(
                perm,
                1.0,
                cast(src)?,
                shape,
                0.0,
                cast_mut(dst)?,
                threads,
                RowMajor,
            )
            .map_err(|e| format!("hptt: {e}"))
        }),
    };
    // On several threads its OpenMP team spins after each call: the next
    // function is measured once the team sleeps.
    let settle = if threads > 1 {
        SETTLE
    } else {
        std::time::Duration::ZERO
    };
    Some(Function {
        settle,
        ..Function::new("hptt", run)
    })
}

/// Built without the `hptt` feature: never measured.
#[cfg(not(feature = "hptt"))]
pub fn function(_case: &Case, _threads: usize) -> Option<Function<'_>> {
    None
}

/// How hptt was built: the `-march` of its C++ (`HPTT_MARCH` at build time,
/// set by package.sh; hptt's own `-march=native` otherwise).
pub fn build_note() -> String {
    if cfg!(feature = "hptt") {
        format!(
            "built with -march={}",
            option_env!("HPTT_MARCH").unwrap_or("native (hptt's default)")
        )
    } else {
        "not built (feature hptt off)".into()
    }
}
