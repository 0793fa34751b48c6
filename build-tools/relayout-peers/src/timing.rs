//! Interleaved rounds: every function of a configuration is measured once
//! per round (the order rotating from round to round), each measurement the
//! mean of enough calls to last at least `min_time` (after one call not
//! timed); the result is the median over rounds. After each measurement of
//! a function the harness sleeps for its `settle` time (so that threads it
//! leaves spinning go to sleep).

use std::time::{Duration, Instant};

use crate::measured::Function;

/// How to measure.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Rounds (the median is taken over them).
    pub rounds: usize,
    /// Least time of one measurement.
    pub min_time: Duration,
}

/// One function's result: the median and the calls per measurement.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The function's name.
    pub name: &'static str,
    /// Median over rounds of the mean seconds per call.
    pub median_s: f64,
    /// Calls per measurement.
    pub reps: usize,
}

/// Measures `functions` over `src`, function `i` into `dsts[i]` (or the
/// last of `dsts` where there are fewer); each must have been run (and
/// verified) before, so pages are in place. Returns in the order given.
pub fn measure(
    functions: &mut [Function<'_>],
    src: &[u8],
    dsts: &mut [&mut [u8]],
    timing: Timing,
) -> Result<Vec<Measured>, String> {
    let last = dsts.len().checked_sub(1).ok_or("no destination buffer")?;
    let mut reps = Vec::with_capacity(functions.len());
    for (i, f) in functions.iter_mut().enumerate() {
        // Warm-up and calibration: one timed call.
        let once = time(f, src, dsts[i.min(last)], 1)?;
        std::thread::sleep(f.settle);
        let n = (timing.min_time.as_secs_f64() / once.max(1e-9)).ceil();
        reps.push((n as usize).clamp(1, 1_000_000));
    }
    let mut samples = vec![Vec::with_capacity(timing.rounds); functions.len()];
    for round in 0..timing.rounds {
        for k in 0..functions.len() {
            let i = (k + round) % functions.len();
            samples[i].push(time(&mut functions[i], src, dsts[i.min(last)], reps[i])?);
            std::thread::sleep(functions[i].settle);
        }
    }
    Ok(functions
        .iter()
        .zip(samples)
        .zip(reps)
        .map(|((f, s), reps)| Measured {
            name: f.name,
            median_s: median(s),
            reps,
        })
        .collect())
}

/// Mean seconds per call of `reps` calls, after one call not timed: each
/// measurement starts from the state of the caches the function itself
/// leaves, not from the lines the function measured before it left
/// written (on the 16-CPU Xeon with 16 threads, at 5 ms a measurement,
/// two runs of the same relayout differed by up to 1.43 times, the slower
/// one measured after the copy, the faster after the relayout).
fn time(f: &mut Function<'_>, src: &[u8], dst: &mut [u8], reps: usize) -> Result<f64, String> {
    (f.run)(std::hint::black_box(src), std::hint::black_box(&mut *dst))?;
    let start = Instant::now();
    for _ in 0..reps {
        (f.run)(std::hint::black_box(src), std::hint::black_box(&mut *dst))?;
    }
    Ok(start.elapsed().as_secs_f64() / reps as f64)
}

/// The median (mean of the middle two for an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}
