//! The functions measured: a plain copy, our relayout, and the peers, each
//! a closure from source bytes to destination bytes.

use ndarray::{ArrayView, ArrayViewMut, Dimension, Ix2, Ix3, Ix4, Zip};
use rayon::ThreadPool;
use rayon::prelude::*;
use relayout::{FromTo, RelayoutPlan};
use stride_util::StridedView;

use crate::cases::{Case, Element};
use crate::measured::{Function, cast, cast_mut};

/// The functions of `case` on `threads` threads (`pool` when above 1):
/// those that do not exist for it (the `transpose` crate on several
/// threads, hptt for u8 or when built without it) are left out.
pub fn functions<'a>(
    case: &'a Case,
    views: &'a (StridedView, StridedView),
    threads: usize,
    pool: Option<&'a ThreadPool>,
) -> Vec<Function<'a>> {
    let es = case.element.size();
    // Planned once, run at every measurement, as a user would.
    let sides = FromTo {
        from: &views.0,
        to: &views.1,
    };
    let plan = RelayoutPlan::new(sides, es).map_err(|e| e.to_string());
    let mut out = match pool {
        None => on_the_calling_thread(case, plan),
        Some(pool) => on_a_pool(case, plan, threads, pool),
    };
    out.push(Function::new(
        "ndarray",
        Box::new(move |src: &[u8], dst: &mut [u8]| match case.element {
            Element::U8 => ndarray_by_rank::<u8>(case, src, dst, pool),
            Element::F32 => ndarray_by_rank::<u32>(case, src, dst, pool),
            Element::F64 => ndarray_by_rank::<u64>(case, src, dst, pool),
        }),
    ));
    if let Some(hptt) = crate::hptt_peer::function(case, threads) {
        out.push(hptt);
    }
    out
}

/// The copy, ours (`plan`) and the `transpose` crate on the calling thread.
fn on_the_calling_thread<'a>(
    case: &'a Case,
    plan: Result<RelayoutPlan, String>,
) -> Vec<Function<'a>> {
    vec![
        Function::new(
            "copy",
            Box::new(|src: &[u8], dst: &mut [u8]| {
                dst.copy_from_slice(src);
                Ok(())
            }),
        ),
        Function::new(
            "ours",
            Box::new(move |src: &[u8], dst: &mut [u8]| {
                plan.as_ref()
                    .map_err(Clone::clone)?
                    .run(src, dst)
                    .map_err(|e| e.to_string())
            }),
        ),
        Function::new(
            "transpose",
            Box::new(move |src: &[u8], dst: &mut [u8]| match case.element {
                Element::U8 => transpose_crate::<u8>(case, src, dst),
                Element::F32 => transpose_crate::<u32>(case, src, dst),
                Element::F64 => transpose_crate::<u64>(case, src, dst),
            }),
        ),
    ]
}

/// The copy in 64-byte aligned chunks, one per thread, and ours (`plan`)
/// on `pool` of `threads`.
fn on_a_pool<'a>(
    case: &'a Case,
    plan: Result<RelayoutPlan, String>,
    threads: usize,
    pool: &'a ThreadPool,
) -> Vec<Function<'a>> {
    let chunk = (case.bytes().div_ceil(threads)).next_multiple_of(64);
    vec![
        Function::new(
            "copy",
            Box::new(move |src: &[u8], dst: &mut [u8]| {
                pool.install(|| {
                    dst.par_chunks_mut(chunk)
                        .zip(src.par_chunks(chunk))
                        .for_each(|(d, s)| d.copy_from_slice(s));
                });
                Ok(())
            }),
        ),
        // What a user calls on a pool of their own: chunks as the pool
        // has threads (one per 512 KiB at most), no thread started per
        // call.
        Function::new(
            "ours",
            Box::new(move |src: &[u8], dst: &mut [u8]| {
                plan.as_ref()
                    .map_err(Clone::clone)?
                    .run_in(pool, src, dst)
                    .map_err(|e| e.to_string())
            }),
        ),
    ]
}

/// `transpose::transpose` of each `height × width` matrix of the batch.
fn transpose_crate<T: bytemuck::Pod>(
    case: &Case,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), String> {
    let (_, height, width) = case.matrices;
    let (src, dst) = (cast::<T>(src)?, cast_mut::<T>(dst)?);
    for (s, d) in src
        .chunks_exact(height * width)
        .zip(dst.chunks_exact_mut(height * width))
    {
        transpose::transpose(s, d, width, height);
    }
    Ok(())
}

/// ndarray with the static dimension type of the case's rank.
fn ndarray_by_rank<T: bytemuck::Pod + Send + Sync>(
    case: &Case,
    src: &[u8],
    dst: &mut [u8],
    pool: Option<&ThreadPool>,
) -> Result<(), String> {
    let (src, dst) = (cast::<T>(src)?, cast_mut::<T>(dst)?);
    let (s, p, d) = (case.shape, case.perm, case.dst_shape());
    match s.len() {
        2 => ndarray_assign(
            Ix2(s[0], s[1]),
            Ix2(p[0], p[1]),
            Ix2(d[0], d[1]),
            src,
            dst,
            pool,
        ),
        3 => ndarray_assign(
            Ix3(s[0], s[1], s[2]),
            Ix3(p[0], p[1], p[2]),
            Ix3(d[0], d[1], d[2]),
            src,
            dst,
            pool,
        ),
        4 => ndarray_assign(
            Ix4(s[0], s[1], s[2], s[3]),
            Ix4(p[0], p[1], p[2], p[3]),
            Ix4(d[0], d[1], d[2], d[3]),
            src,
            dst,
            pool,
        ),
        rank => Err(format!("ndarray: rank {rank} not wired")),
    }
}

/// `dst.assign(&src.permuted_axes(perm))`, or on `pool` a rayon
/// `Zip::par_for_each` of the same views.
fn ndarray_assign<T: Copy + Send + Sync, D: Dimension>(
    shape: D,
    perm: D,
    dst_shape: D,
    src: &[T],
    dst: &mut [T],
    pool: Option<&ThreadPool>,
) -> Result<(), String> {
    let a = ArrayView::from_shape(shape, src)
        .map_err(|e| format!("ndarray: {e}"))?
        .permuted_axes(perm);
    let mut b = ArrayViewMut::from_shape(dst_shape, dst).map_err(|e| format!("ndarray: {e}"))?;
    match pool {
        None => b.assign(&a),
        Some(pool) => pool.install(|| Zip::from(&mut b).and(&a).par_for_each(|d, s| *d = *s)),
    }
    Ok(())
}
