//! Relayout throughput, each case beside a plain `copy_from_slice` of the
//! same number of bytes and a streaming-store copy of them in the same run
//! (the ratio to the faster of the two is the relayout's cost over a
//! copy), and beside the same relayout by
//! the peers: the `transpose` crate (one 2-D transpose, or one per batch
//! entry for NCHW->NHWC) and ndarray (`assign` from a permuted view). The
//! peers move `u32`/`u64` for f32/f64 (the same bytes, no float
//! canonicalisation); every peer's output is checked equal to ours before
//! timing. The `threads N:` groups compare `relayout_in_pool` on a rayon
//! pool of N threads with a plain copy and a streaming-store copy split
//! over the same pool (rayon's `par_chunks_mut`; the pool is built once,
//! outside the timing).
//!
//! The plain copy is glibc's memcpy: `rep movsb` at these sizes on the
//! 2-core benchmark VM (its non-temporal threshold there is 192 MiB; forced
//! down to 1 MiB the copy of the NCHW case takes 2.0 ms instead of 3.5).
//! Every buffer starts on a 64-byte line (see `common/mod.rs`;
//! `BENCH_SHIFT=16` moves all of them 16 bytes on), so the copy and the
//! relayout see the same alignment.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

use std::hint::black_box;
use std::num::NonZeroUsize;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use layout_util::LayoutBuilder;
use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn};
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use relayout::{relayout, relayout_in_pool, relayout_xla};
use schema::{PaddingValue, PrimitiveType, Shape};
use stride_util::StridedView;

mod common;
use common::{Buffer, buffers_for, group_beside_plain_copy, streaming_copy};

/// An element type the peers move, with its little-endian bytes.
trait Element: Copy + Default + Send + Sync {
    const SIZE: usize;
    fn from_bytes(bytes: &[u8]) -> Self;
    fn to_bytes(self, out: &mut [u8]);
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = size_of::<$t>();
            fn from_bytes(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().unwrap())
            }
            fn to_bytes(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
element!(u8, u32, u64);

fn typed<T: Element>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::from_bytes).collect()
}

fn bytes_of<T: Element>(values: &[T]) -> Vec<u8> {
    let mut bytes = vec![0; values.len() * T::SIZE];
    for (value, out) in values.iter().zip(bytes.chunks_exact_mut(T::SIZE)) {
        value.to_bytes(out);
    }
    bytes
}

fn case(
    c: &mut Criterion,
    name: &str,
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) {
    let (src, mut dst, bytes) = buffers_for(src_view, dst_view, element_size);
    let mut group = group_beside_plain_copy(c, name, bytes);
    group.bench_function("relayout", |b| {
        b.iter(|| relayout(black_box(&src), src_view, &mut dst, dst_view, element_size).unwrap());
    });
    group.finish();
}

/// A packed array of `shape` permuted by `axes` (numpy's `transpose`)
/// into a packed array, beside the plain copy and the peers. The
/// `transpose` crate does it as `batch` transposes of matrices `height`
/// rows by `width` columns (`None`: it cannot).
fn permutation<T: Element>(
    c: &mut Criterion,
    name: &str,
    shape: &[usize],
    axes: &[usize],
    batched: Option<(usize, usize, usize)>,
) {
    let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let order: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let src_view = StridedView::row_major(&sizes)
        .unwrap()
        .permute(&order)
        .unwrap();
    let dst_view = StridedView::row_major(src_view.sizes()).unwrap();
    let dst_shape: Vec<usize> = axes.iter().map(|&a| shape[a]).collect();
    let bytes = src_view.num_elements() as usize * T::SIZE;
    let src = Buffer::pattern(bytes);
    let mut dst = Buffer::zeroed(bytes);
    relayout(&src, &src_view, &mut dst, &dst_view, T::SIZE).unwrap();

    let src_typed: Vec<T> = typed(&src);
    let mut dst_typed = vec![T::default(); src_typed.len()];
    let transpose_peer = |out: &mut [T]| {
        if let Some((batch, width, height)) = batched {
            let matrix = width * height;
            for (input, output) in src_typed
                .chunks_exact(matrix)
                .zip(out.chunks_exact_mut(matrix))
                .take(batch)
            {
                transpose::transpose(input, output, width, height);
            }
        }
    };
    let ndarray_peer = |out: &mut [T]| {
        let input = ArrayViewD::from_shape(IxDyn(shape), &src_typed[..])
            .unwrap()
            .permuted_axes(IxDyn(axes));
        ArrayViewMutD::from_shape(IxDyn(&dst_shape), out)
            .unwrap()
            .assign(&input);
    };
    if batched.is_some() {
        transpose_peer(&mut dst_typed);
        assert!(bytes_of(&dst_typed) == *dst, "{name}: transpose crate");
    }
    dst_typed.fill(T::default());
    ndarray_peer(&mut dst_typed);
    assert!(bytes_of(&dst_typed) == *dst, "{name}: ndarray");

    let mut group = group_beside_plain_copy(c, name, bytes);
    group.bench_function("relayout", |b| {
        b.iter(|| relayout(black_box(&src), &src_view, &mut dst, &dst_view, T::SIZE).unwrap());
    });
    if batched.is_some() {
        group.bench_function("transpose crate", |b| {
            b.iter(|| transpose_peer(black_box(&mut dst_typed)));
        });
    }
    group.bench_function("ndarray assign", |b| {
        b.iter(|| ndarray_peer(black_box(&mut dst_typed)));
    });
    group.finish();
}

fn transposes(c: &mut Criterion) {
    let square = |n| Some((1, n, n));
    permutation::<u32>(
        c,
        "transpose f32[4096,4096]",
        &[4096, 4096],
        &[1, 0],
        square(4096),
    );
    permutation::<u64>(
        c,
        "transpose f64[2048,2048]",
        &[2048, 2048],
        &[1, 0],
        square(2048),
    );
    permutation::<u8>(
        c,
        "transpose u8[8192,8192]",
        &[8192, 8192],
        &[1, 0],
        square(8192),
    );
    permutation::<u32>(
        c,
        "transpose f32[1024,1024] (in cache)",
        &[1024, 1024],
        &[1, 0],
        square(1024),
    );
    // out[i,j,k] = a[j,k,i]: a is a (256·256)×256 matrix, transposed.
    permutation::<u32>(
        c,
        "permute (2,0,1) f32[256,256,256]",
        &[256, 256, 256],
        &[2, 0, 1],
        Some((1, 256, 256 * 256)),
    );
}

fn image_layouts(c: &mut Criterion) {
    let sizes = [32, 64, 56, 56];
    // Per image, the C×(H·W) matrix transposed.
    permutation::<u32>(
        c,
        "NCHW->NHWC f32[32,64,56,56]",
        &sizes,
        &[0, 2, 3, 1],
        Some((32, 56 * 56, 64)),
    );
    let sizes = sizes.map(|s| s as i64);
    let nchw = StridedView::nchw(&sizes).unwrap();
    case(c, "identity f32[32,64,56,56]", &nchw, &nchw, 4);
}

fn shape(padded: Vec<i64>) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: vec![32, 64, 56, 56],
        is_dynamic_dimension: vec![false; 4],
        layout: Some(Box::new(
            LayoutBuilder::new(&[3, 2, 1, 0])
                .padded_dimensions(padded)
                .padding_value(PaddingValue::ZeroPad)
                .build(),
        )),
        ..Default::default()
    }
}

/// Packed f32[32,64,56,56] into the same layout with rows padded to 64,
/// padding filled; the plain copy moves the padded buffer's bytes.
fn padded(c: &mut Criterion) {
    let src_shape = shape(vec![]);
    let dst_shape = shape(vec![32, 64, 56, 64]);
    let src = Buffer::pattern(32 * 64 * 56 * 56 * 4);
    let bytes = 32 * 64 * 56 * 64 * 4;
    let mut dst = Buffer::zeroed(bytes);
    let mut group = group_beside_plain_copy(c, "padded f32[32,64,56,56] rows 56->64", bytes);
    group.bench_function("relayout", |b| {
        b.iter(|| relayout_xla(black_box(&src), &src_shape, &mut dst, &dst_shape).unwrap());
    });
    group.finish();
}

/// A streaming-store copy of `len` bytes on a pool, split as
/// [`plain_copy_on`] splits: one plan (see [`streaming_copy`]) a share.
struct StreamedOn {
    share: usize,
    plans: Vec<relayout::RelayoutPlan>,
}

impl StreamedOn {
    fn new(pool: &ThreadPool, len: usize) -> Self {
        let share = len
            .div_ceil(pool.current_num_threads())
            .next_multiple_of(64);
        let plans = (0..len)
            .step_by(share)
            .map(|start| streaming_copy(share.min(len - start)))
            .collect();
        Self { share, plans }
    }

    /// `src` copied into `dst` (the same length) on `pool`.
    fn run(&self, pool: &ThreadPool, src: &[u8], dst: &mut [u8]) {
        pool.install(|| {
            dst.par_chunks_mut(self.share)
                .zip(src.par_chunks(self.share))
                .zip(self.plans.par_iter())
                .for_each(|((to, from), plan)| plan.run_part(from, to, u64::MAX).unwrap());
        });
    }
}

/// `src` copied into `dst` (the same length) on `pool`, in as many
/// chunks as it has threads, each a `copy_from_slice` of its own 64-byte
/// aligned share.
fn plain_copy_on(pool: &ThreadPool, src: &[u8], dst: &mut [u8]) {
    let share = src
        .len()
        .div_ceil(pool.current_num_threads())
        .next_multiple_of(64);
    pool.install(|| {
        dst.par_chunks_mut(share)
            .zip(src.par_chunks(share))
            .for_each(|(to, from)| to.copy_from_slice(from));
    });
}

/// f32[4096,4096] transposed (64 MiB) on rayon pools of 1, 2 and (if the
/// machine has more) all threads, beside a plain copy on the same pool.
fn threads(c: &mut Criterion) {
    let square = StridedView::row_major(&[4096, 4096]).unwrap();
    let src_view = square.transpose();
    let bytes = 4096 * 4096 * 4;
    let src = Buffer::pattern(bytes);
    let mut expected = Buffer::zeroed(bytes);
    relayout(&src, &src_view, &mut expected, &square, 4).unwrap();
    let mut dst = Buffer::zeroed(bytes);
    let plain_src = Buffer::pattern(bytes);
    let mut plain_dst = Buffer::zeroed(bytes);
    let available = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let mut counts = vec![1, 2];
    if available > 2 {
        counts.push(available);
    }
    for count in counts {
        let pool = ThreadPoolBuilder::new().num_threads(count).build().unwrap();
        let on = if count == 1 {
            "on 1 thread".to_string()
        } else {
            format!("on {count} threads")
        };
        dst.fill(0);
        relayout_in_pool(&pool, &src, &src_view, &mut dst, &square, 4).unwrap();
        assert!(*dst == *expected, "{count} threads");
        plain_copy_on(&pool, &plain_src, &mut plain_dst);
        assert!(*plain_dst == *plain_src, "plain copy on {count} threads");
        let streamed = StreamedOn::new(&pool, bytes);
        let mut streamed_dst = Buffer::zeroed(bytes);
        streamed.run(&pool, &plain_src, &mut streamed_dst);
        assert!(
            *streamed_dst == *plain_src,
            "streamed copy on {count} threads"
        );
        let mut group = c.benchmark_group(format!("threads {count}: f32[4096,4096] axes swapped"));
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(format!("plain copy {on}"), |b| {
            b.iter(|| plain_copy_on(&pool, black_box(&plain_src), &mut plain_dst));
        });
        group.bench_function(format!("plain copy streamed {on}"), |b| {
            b.iter(|| streamed.run(&pool, black_box(&plain_src), &mut streamed_dst));
        });
        group.bench_function(format!("relayout {on}"), |b| {
            b.iter(|| {
                relayout_in_pool(&pool, black_box(&src), &src_view, &mut dst, &square, 4).unwrap();
            });
        });
        group.finish();
    }
}

/// bf16[4096,4096] row-major into TPU's bf16 tiles `(8,128)(2,1)` and
/// back (no tile padding: the buffers have the same bytes).
fn tiled(c: &mut Criterion) {
    let row_major: Shape = "bf16[4096,4096]{1,0}".parse().unwrap();
    let tiled: Shape = "bf16[4096,4096]{1,0:T(8,128)(2,1)}".parse().unwrap();
    let bytes = 4096 * 4096 * 2;
    for (name, from, to) in [
        (
            "tiled bf16[4096,4096] {1,0} -> T(8,128)(2,1)",
            &row_major,
            &tiled,
        ),
        (
            "tiled bf16[4096,4096] T(8,128)(2,1) -> {1,0}",
            &tiled,
            &row_major,
        ),
    ] {
        let src = Buffer::pattern(bytes);
        let mut dst = Buffer::zeroed(bytes);
        let mut group = group_beside_plain_copy(c, name, bytes);
        group.bench_function("relayout", |b| {
            b.iter(|| relayout_xla(black_box(&src), from, &mut dst, to).unwrap());
        });
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = transposes, image_layouts, padded, threads, tiled
}
criterion_main!(benches);
