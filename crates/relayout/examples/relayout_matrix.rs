//! The relayout matrix: every ordered pair of a set of XLA layouts of the
//! same array (row-major, column-major, a rank-3 permutation, padded, TPU
//! tiles, tiles with a transposed `minor_to_major`, 8-bit and `E(4)`
//! packed ones), at a large and an in-cache size, each timed against the
//! faster of two copies of the destination's bytes, a plain
//! `copy_from_slice` and a streaming-store copy (the engine's own copy of
//! one run, writing whole lines past the caches at any size), in
//! interleaved repetitions: the ratio of each repetition's relayout time
//! to its faster copy, and the median of the ratios (robust to a machine
//! shared with other work).
//!
//! ```sh
//! cargo run --release -p xla-relayout --example relayout_matrix -- \
//!     [--reps 11] [--threads 1] [--size large|small|both] [--json] [FILTER...]
//! ```
//!
//! On one thread the times are the thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), which a machine shared with other work
//! does not inflate by preempting the thread; on a pool (`--threads N`),
//! wall-clock time. A FILTER keeps the cases whose name contains it. One Markdown row per
//! case on stdout (or one JSON object with `--json`), with its bound:
//! 1.5× the faster copy for 4-byte elements, 2.0× for narrower ones (1.2×
//! the faster pooled copy on a pool of more than one thread).

#![allow(clippy::panic, clippy::cast_possible_wrap, clippy::cast_sign_loss)]

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

/// A clock: the calling thread's CPU time, or wall-clock time.
#[derive(Clone, Copy)]
enum Clock {
    Cpu,
    Wall(Instant),
}

impl Clock {
    /// Seconds since an arbitrary start.
    fn now(self) -> f64 {
        match self {
            Self::Wall(start) => start.elapsed().as_secs_f64(),
            Self::Cpu => {
                let mut spec = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                // SAFETY: `spec` is a valid, writable timespec.
                #[allow(unsafe_code)]
                let status =
                    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut spec) };
                assert_eq!(status, 0, "clock_gettime");
                spec.tv_sec as f64 + spec.tv_nsec as f64 * 1e-9
            }
        }
    }
}

use index_util::TiledLayout;
use relayout::rayon::{ThreadPool, ThreadPoolBuilder};
use relayout::{FromTo, RelayoutError, RelayoutPlan};
use schema::{PaddingValue, Shape};

/// `len` bytes starting on a 64-byte line, as XLA's allocator gives.
struct Buffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buffer {
    fn new(len: usize, pattern: bool) -> Self {
        let mut storage = vec![0_u8; len + 64];
        let start = storage.as_ptr().align_offset(64);
        if pattern {
            for (i, byte) in storage[start..][..len].iter_mut().enumerate() {
                *byte = (i % 251) as u8;
            }
        }
        Self {
            storage,
            start,
            len,
        }
    }
    fn bytes(&self) -> &[u8] {
        &self.storage[self.start..][..self.len]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..][..self.len]
    }
}

/// `text` parsed, its most minor dimension padded by `pad` elements if given.
fn shape(text: &str, pad: Option<i64>) -> Shape {
    let mut shape: Shape = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    if let (Some(pad), Some(layout)) = (pad, shape.layout.as_deref_mut()) {
        let mut padded = shape.dimensions.clone();
        let minor = layout.minor_to_major[0] as usize;
        padded[minor] += pad;
        layout.padded_dimensions = padded;
        layout.padding_value = PaddingValue::ZeroPad as i32;
    }
    shape
}

/// The layouts of one array: (name, layout text, padded).
fn layouts(ty: &str, rank: usize) -> Vec<(&'static str, String, Option<i64>)> {
    let t = |tiles: &str, m2m: &str| format!("{{{m2m}:{tiles}}}");
    if rank == 3 {
        return vec![
            ("row-major", "{2,1,0}".into(), None),
            ("permuted (2,0,1)", "{1,0,2}".into(), None),
            ("T(8,128)", t("T(8,128)", "2,1,0"), None),
            ("T(8,128) permuted", t("T(8,128)", "1,0,2"), None),
        ];
    }
    let mut out = vec![
        ("row-major", "{1,0}".to_string(), None),
        ("column-major", "{0,1}".to_string(), None),
    ];
    let tiles = match ty {
        "f32" => "T(8,128)",
        "bf16" => "T(8,128)(2,1)",
        "u8" => "T(32,128)(4,1)",
        _ => "T(8,128)(2,1)E(4)",
    };
    if ty == "s4" {
        out = vec![
            ("row-major", "{1,0:E(4)}".into(), None),
            ("column-major", "{0,1:E(4)}".into(), None),
        ];
    }
    if ty == "f32" {
        out.push(("padded", "{1,0}".into(), Some(64)));
    }
    out.push((tiles_name(tiles), t(tiles, "1,0"), None));
    out.push((transposed_name(tiles), t(tiles, "0,1"), None));
    out
}

fn tiles_name(tiles: &str) -> &'static str {
    match tiles {
        "T(8,128)" => "T(8,128)",
        "T(8,128)(2,1)" => "T(8,128)(2,1)",
        "T(32,128)(4,1)" => "T(32,128)(4,1)",
        _ => "T(8,128)(2,1)E(4)",
    }
}

fn transposed_name(tiles: &str) -> &'static str {
    match tiles {
        "T(8,128)" => "{0,1:T(8,128)}",
        "T(8,128)(2,1)" => "{0,1:T(8,128)(2,1)}",
        "T(32,128)(4,1)" => "{0,1:T(32,128)(4,1)}",
        _ => "{0,1:T(8,128)(2,1)E(4)}",
    }
}

/// One case: its name, the two shapes, and its bound.
struct Case {
    name: String,
    from: Shape,
    to: Shape,
    bound: f64,
}

fn cases(large: bool, small: bool) -> Vec<Case> {
    let mut out = Vec::new();
    let arrays: &[(&str, usize, &str, &str)] = &[
        ("f32", 2, "[4096,4096]", "[256,256]"),
        ("bf16", 2, "[4096,4096]", "[256,512]"),
        ("u8", 2, "[4096,4096]", "[512,512]"),
        ("s4", 2, "[4096,4096]", "[512,1024]"),
        ("f32", 3, "[256,256,256]", "[16,64,128]"),
    ];
    for &(ty, rank, big, little) in arrays {
        let sizes = [(big, large), (little, small)];
        for (dims, wanted) in sizes {
            if !wanted {
                continue;
            }
            let set = layouts(ty, rank);
            for (a, layout_a, pad_a) in &set {
                for (b, layout_b, pad_b) in &set {
                    if a == b {
                        continue;
                    }
                    let bound = if ty == "f32" { 1.5 } else { 2.0 };
                    out.push(Case {
                        name: format!("{ty}{dims} {a} -> {b}"),
                        from: shape(&format!("{ty}{dims}{layout_a}"), *pad_a),
                        to: shape(&format!("{ty}{dims}{layout_b}"), *pad_b),
                        bound,
                    });
                }
            }
        }
    }
    out
}

/// A plain copy of `src` into `dst`, split over `pool` if given.
fn plain_copy(pool: Option<&ThreadPool>, src: &[u8], dst: &mut [u8]) {
    let Some(pool) = pool else {
        dst.copy_from_slice(src);
        return;
    };
    let threads = pool.current_num_threads();
    let share = src.len().div_ceil(threads).next_multiple_of(64).max(64);
    pool.scope(|scope| {
        for (to, from) in dst.chunks_mut(share).zip(src.chunks(share)) {
            scope.spawn(move |_| to.copy_from_slice(from));
        }
    });
}

/// A streaming-store copy of as many bytes as `plan_for(len)` copies: the
/// engine's copy of one contiguous run told that the whole is large
/// ([`RelayoutPlan::run_part`]), so that it writes whole lines with
/// streaming stores at any size; split over a pool as [`plain_copy`]
/// splits, one plan for each part's length.
struct StreamingCopy {
    share: usize,
    plans: Vec<RelayoutPlan>,
}

impl StreamingCopy {
    /// The plans of a streaming copy of `len` bytes, on `threads` threads.
    fn new(len: usize, threads: usize) -> Result<Self, Box<dyn Error>> {
        let share = if threads > 1 {
            len.div_ceil(threads).next_multiple_of(64).max(64)
        } else {
            len.max(1)
        };
        let plans = (0..len)
            .step_by(share)
            .map(|start| {
                let bytes: Shape = format!("u8[{}]{{0}}", share.min(len - start)).parse()?;
                Ok(RelayoutPlan::xla(FromTo {
                    from: &bytes,
                    to: &bytes,
                })?)
            })
            .collect::<Result<_, Box<dyn Error>>>()?;
        Ok(Self { share, plans })
    }

    /// Copies `src` into `dst` (split over `pool` if given).
    fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), RelayoutError> {
        let Some(pool) = pool else {
            let parts = dst.chunks_mut(self.share).zip(src.chunks(self.share));
            return parts
                .zip(&self.plans)
                .try_for_each(|((to, from), plan)| plan.run_part(from, to, u64::MAX));
        };
        let mut failed: Vec<Option<RelayoutError>> = self.plans.iter().map(|_| None).collect();
        pool.scope(|scope| {
            let parts = dst.chunks_mut(self.share).zip(src.chunks(self.share));
            for (((to, from), plan), failure) in parts.zip(&self.plans).zip(&mut failed) {
                scope.spawn(move |_| *failure = plan.run_part(from, to, u64::MAX).err());
            }
        });
        failed.into_iter().flatten().next().map_or(Ok(()), Err)
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The command line: repetitions, threads, sizes, JSON or Markdown, and
/// the filters of case names.
struct Options {
    reps: usize,
    threads: usize,
    size: String,
    json: bool,
    filters: Vec<String>,
}

impl Options {
    /// The options of the command line.
    fn from_args() -> Result<Self, Box<dyn Error>> {
        let mut options = Self {
            reps: 11,
            threads: 1,
            size: "both".to_string(),
            json: false,
            filters: Vec::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--reps" => options.reps = args.next().ok_or("--reps N")?.parse()?,
                "--threads" => options.threads = args.next().ok_or("--threads N")?.parse()?,
                "--size" => options.size = args.next().ok_or("--size large|small|both")?,
                "--json" => options.json = true,
                _ => options.filters.push(arg),
            }
        }
        Ok(options)
    }
}

/// The medians of one case's repetitions: the ratio of relayout to the
/// faster copy, and each one's seconds (the plain copy, the streaming
/// copy, the relayout); with the destination's bytes.
struct Timing {
    dst_len: usize,
    ratio: f64,
    copy: f64,
    streaming: f64,
    time: f64,
}

/// Times `plan` on `case` against the faster of a plain copy and a
/// streaming-store copy of the destination's bytes (on `pool` if given),
/// in `reps` repetitions that alternate whether the relayout runs before
/// the copies or after them.
fn time_case(
    plan: &RelayoutPlan,
    case: &Case,
    pool: Option<&ThreadPool>,
    clock: Clock,
    reps: usize,
) -> Result<Timing, Box<dyn Error>> {
    let src_len = usize::try_from(TiledLayout::array_size(&case.from)?)?;
    let dst_len = usize::try_from(TiledLayout::array_size(&case.to)?)?;
    let src = Buffer::new(src_len, true);
    let mut dst = Buffer::new(dst_len, false);
    let copy_src = Buffer::new(dst_len, true);
    let mut copy_dst = Buffer::new(dst_len, false);
    // The streaming copy's own destination: its stores bypass the caches,
    // leaving the plain copy's destination (and the relayout's) where
    // they were.
    let mut stream_dst = Buffer::new(dst_len, false);
    let threads = pool.map_or(1, ThreadPool::current_num_threads);
    let streaming = StreamingCopy::new(dst_len, threads)?;
    // In cache: enough runs per timing to last about a millisecond.
    let inner = (4_000_000 / dst_len.max(1)).clamp(1, 1000);
    let run = |dst: &mut Buffer| match pool {
        Some(pool) => plan.run_in(pool, src.bytes(), dst.bytes_mut()),
        None => plan.run(src.bytes(), dst.bytes_mut()),
    };
    run(&mut dst)?;
    streaming.run(pool, copy_src.bytes(), stream_dst.bytes_mut())?;
    assert!(
        stream_dst.bytes() == copy_src.bytes(),
        "the streaming copy copies"
    );
    plain_copy(pool, copy_src.bytes(), copy_dst.bytes_mut());
    let (mut ratios, mut copies, mut streamed, mut relayouts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for rep in 0..reps.max(1) {
        // The plain copy's time and the streaming copy's.
        let mut time_copies = || -> Result<(f64, f64), RelayoutError> {
            let start = clock.now();
            for _ in 0..inner {
                plain_copy(pool, black_box(copy_src.bytes()), copy_dst.bytes_mut());
            }
            let middle = clock.now();
            for _ in 0..inner {
                streaming.run(pool, black_box(copy_src.bytes()), stream_dst.bytes_mut())?;
            }
            let end = clock.now();
            Ok((
                (middle - start) / inner as f64,
                (end - middle) / inner as f64,
            ))
        };
        let time_relayout = |dst: &mut Buffer| -> Result<f64, Box<dyn Error>> {
            let start = clock.now();
            for _ in 0..inner {
                run(dst)?;
                black_box(dst.bytes());
            }
            Ok((clock.now() - start) / inner as f64)
        };
        let ((c, s), r) = if rep % 2 == 0 {
            let copies = time_copies()?;
            (copies, time_relayout(&mut dst)?)
        } else {
            let r = time_relayout(&mut dst)?;
            (time_copies()?, r)
        };
        ratios.push(r / c.min(s));
        copies.push(c);
        streamed.push(s);
        relayouts.push(r);
    }
    Ok(Timing {
        dst_len,
        ratio: median(&mut ratios),
        copy: median(&mut copies),
        streaming: median(&mut streamed),
        time: median(&mut relayouts),
    })
}

fn main() -> Result<(), Box<dyn Error>> {
    let Options {
        reps,
        threads,
        size,
        json,
        filters,
    } = Options::from_args()?;
    let pool = (threads > 1)
        .then(|| ThreadPoolBuilder::new().num_threads(threads).build())
        .transpose()?;
    let all = cases(size != "small", size != "large");
    let clock = if threads > 1 {
        Clock::Wall(Instant::now())
    } else {
        Clock::Cpu
    };
    if !json {
        println!(
            "| case | bytes | strategy | copy | streaming copy | relayout | × faster copy (median of {reps}) | bound | met |"
        );
        println!("|---|---:|---|---:|---:|---:|---:|---:|---|");
    }
    let mut missed = 0;
    for case in all {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let plan = RelayoutPlan::xla(FromTo {
            from: &case.from,
            to: &case.to,
        })?;
        let Timing {
            dst_len,
            ratio,
            copy,
            streaming,
            time,
        } = time_case(&plan, &case, pool.as_ref(), clock, reps)?;
        let bound = if threads > 1 { 1.2 } else { case.bound };
        let met = ratio <= bound;
        missed += usize::from(!met);
        let strategy = format!("{:?}", plan.strategy());
        if json {
            println!(
                "{{\"case\":\"{}\",\"bytes\":{dst_len},\"threads\":{threads},\"strategy\":\"{strategy}\",\"copy_s\":{copy:e},\"streaming_copy_s\":{streaming:e},\"relayout_s\":{time:e},\"ratio\":{ratio:.3},\"bound\":{bound},\"met\":{met}}}",
                case.name
            );
        } else {
            println!(
                "| {} | {dst_len} | {strategy} | {:.3} ms | {:.3} ms | {:.3} ms | {ratio:.2} | {bound} | {} |",
                case.name,
                copy * 1e3,
                streaming * 1e3,
                time * 1e3,
                if met { "pass" } else { "**miss**" }
            );
        }
    }
    if !json {
        println!("\nmissed: {missed}");
    }
    Ok(())
}
