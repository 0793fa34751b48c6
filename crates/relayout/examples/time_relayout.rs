//! Times `relayout_xla` as the Python package's `relayout` calls it: into a
//! new zeroed destination buffer each run (as `relayout(data, src, dst)`
//! gets one from numpy), and into one buffer allocated once (as
//! `relayout(data, src, dst, out=buffer)`). `python/bench/time_relayout.py`
//! times the same from Python.
//!
//! ```sh
//! cargo run --release -p xla-relayout --example time_relayout -- \
//!     'f32[4096,4096]{1,0}' 'f32[4096,4096]{0,1}' 20
//! ```

use std::error::Error;
use std::time::{Duration, Instant};

use index_util::TiledLayout;
use schema::Shape;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, dst, rest @ ..] = args.as_slice() else {
        return Err("usage: time_relayout SRC DST [RUNS]".into());
    };
    let runs: usize = rest.first().map_or(Ok(20), |r| r.parse())?;
    let (src_shape, dst_shape): (Shape, Shape) = (src.parse()?, dst.parse()?);
    let (src_len, dst_len) = (
        usize::try_from(TiledLayout::array_size(&src_shape)?)?,
        usize::try_from(TiledLayout::array_size(&dst_shape)?)?,
    );
    // Every byte different from its neighbours, so nothing is all zeros.
    let source: Vec<u8> = (0..src_len).map(|i| (i % 251) as u8).collect();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let mut out = vec![0_u8; dst_len];
        relayout::relayout_xla(&source, &src_shape, &mut out, &dst_shape)?;
        times.push(start.elapsed());
        std::hint::black_box(&out);
    }
    report("new buffer", src, dst, src_len, &mut times);
    let mut out = vec![0_u8; dst_len];
    times.clear();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        relayout::relayout_xla(&source, &src_shape, &mut out, &dst_shape)?;
        times.push(start.elapsed());
        std::hint::black_box(&out);
    }
    report("into out", src, dst, src_len, &mut times);
    Ok(())
}

/// One line: the fastest and the median run, and the rate of the fastest.
fn report(how: &str, src: &str, dst: &str, bytes: usize, times: &mut [Duration]) {
    times.sort();
    let best = times.first().copied().unwrap_or_default();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let rate = bytes as f64 / best.as_secs_f64().max(f64::MIN_POSITIVE) / 1e9;
    println!(
        "rust   {how:10} {src} -> {dst}: {} MiB, best {:.2} ms, median {:.2} ms ({rate:.2} GB/s), {} runs",
        bytes >> 20,
        best.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        times.len()
    );
}
