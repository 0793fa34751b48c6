//! Benchmark buffers that start on a 64-byte cache line, as XLA's CPU
//! client and the usual ML allocators give (a large `Vec` starts 16 bytes
//! past a page boundary instead), and the two copies every relayout group
//! is measured beside: a plain `copy_from_slice`, and a streaming-store
//! copy (the faster of the two is the group's baseline). `BENCH_SHIFT=k`
//! starts every buffer `k` bytes past the line (the copies' too), to
//! measure misaligned buffers.

use std::hint::black_box;
use std::ops::{Deref, DerefMut};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};

/// `len` bytes starting on a 64-byte line (plus `BENCH_SHIFT`).
pub struct Buffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buffer {
    /// Zeros.
    pub fn zeroed(len: usize) -> Self {
        let shift: usize = std::env::var("BENCH_SHIFT").map_or(0, |v| v.parse().unwrap_or(0));
        let storage = vec![0u8; len + 64 + shift];
        let start = storage.as_ptr().align_offset(64) + shift;
        Self {
            storage,
            start,
            len,
        }
    }

    /// Bytes 0, 1, 2, ... (wrapping at 251), so the buffers are really
    /// written.
    pub fn pattern(len: usize) -> Self {
        let mut buffer = Self::zeroed(len);
        for (i, byte) in buffer.iter_mut().enumerate() {
            *byte = (i % 251) as u8;
        }
        buffer
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.storage[self.start..][..self.len]
    }
}

impl DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..][..self.len]
    }
}

/// A benchmark group of `bytes` bytes, its baselines already measured: a
/// plain `copy_from_slice` of as many bytes (`plain copy`), and a
/// streaming-store copy (`plain copy streamed`: see [`streaming_copy`])
/// into a destination of its own.
pub fn group_beside_plain_copy<'a>(
    c: &'a mut Criterion,
    name: &str,
    bytes: usize,
) -> BenchmarkGroup<'a, WallTime> {
    let plain_src = Buffer::pattern(bytes);
    let mut plain_dst = Buffer::zeroed(bytes);
    let mut streamed_dst = Buffer::zeroed(bytes);
    let streaming = streaming_copy(bytes);
    streaming
        .run_part(&plain_src[..], &mut streamed_dst[..], u64::MAX)
        .unwrap();
    assert!(*streamed_dst == *plain_src, "the streaming copy copies");
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("plain copy", |b| {
        b.iter(|| plain_dst.copy_from_slice(black_box(&plain_src)));
    });
    group.bench_function("plain copy streamed", |b| {
        b.iter(|| {
            streaming
                .run_part(black_box(&plain_src[..]), &mut streamed_dst[..], u64::MAX)
                .unwrap();
        });
    });
    group
}

/// A streaming-store copy of `len` bytes: the engine's copy of one run,
/// told that the whole is large (`RelayoutPlan::run_part` with a whole of
/// `u64::MAX` bytes), so that it writes whole lines past the caches at any
/// size.
pub fn streaming_copy(len: usize) -> relayout::RelayoutPlan {
    let bytes: schema::Shape = format!("u8[{len}]{{0}}").parse().unwrap();
    relayout::RelayoutPlan::xla(relayout::FromTo {
        from: &bytes,
        to: &bytes,
    })
    .unwrap()
}

/// The source (patterned) and destination (zeroed) buffers of a relayout
/// of `element_size`-byte elements between two views, and the bytes it
/// moves.
pub fn buffers_for(
    src_view: &stride_util::StridedView,
    dst_view: &stride_util::StridedView,
    element_size: usize,
) -> (Buffer, Buffer, usize) {
    let len = |view: &stride_util::StridedView| {
        usize::try_from(view.min_buffer_len().unwrap_or(0)).unwrap_or(0) * element_size
    };
    let bytes = usize::try_from(src_view.num_elements()).unwrap_or(0) * element_size;
    (
        Buffer::pattern(len(src_view)),
        Buffer::zeroed(len(dst_view)),
        bytes,
    )
}
