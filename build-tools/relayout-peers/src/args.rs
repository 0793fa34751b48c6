//! Command-line options.

use std::time::Duration;

use crate::buffers::{Placement, parse_offsets};
use crate::cases::{CASES, Case};

/// What to run.
pub struct Options {
    /// The cases selected.
    pub cases: Vec<&'static Case>,
    /// The buffer placements.
    pub placements: Vec<Placement>,
    /// Thread counts (1 = the single-threaded functions).
    pub threads: Vec<usize>,
    /// Rounds per configuration.
    pub rounds: usize,
    /// Least time of one measurement.
    pub min_time: Duration,
    /// Where to write the JSON lines.
    pub json: Option<String>,
    /// The JSON lines of `numpy_relayout_offsets.py` to merge.
    pub numpy: Option<String>,
    /// Every row in the table.
    pub all_rows: bool,
    /// One destination buffer for every function (as before 2026-11-27),
    /// not one each.
    pub shared_dst: bool,
}

/// The usage text.
pub const USAGE: &str = "\
relayout-peers: the relayout engine beside a plain copy and its peers.

USAGE: relayout-peers [OPTIONS]

  --cases IDS        comma list of case ids or substrings of their names
                     (f32-4096, f64-2048, u8-8192, permute-256, nchw, f32-1024;
                     default all)
  --offsets SPEC     all (default: every SRC:DST in {0,16,32,48}², then vec), or a
                     comma list of SRC:DST byte offsets past a 64-byte line and vec
  --threads LIST     thread counts, default 1,2 (1 = single-threaded functions)
  --rounds N         interleaved rounds, median taken (default 9)
  --min-time-ms MS   least duration of one measurement (default 20)
  --quick            --rounds 3 --min-time-ms 5 --offsets 0:0,16:48,vec unless given
  --json PATH        write one JSON object per function and configuration
  --numpy PATH       merge the JSON lines of numpy_relayout_offsets.py (numpy,
                     and PyTorch on the thread counts of its --torch-threads)
  --all-rows         every configuration in the table (default: 0:0, vec, worst)
  --shared-dst       one destination buffer for every function (default: one
                     each, at the same placement, so that no function runs
                     over lines another left written in cache)
  --help             this text
";

/// Parses the arguments (without the program name); `Ok(None)` for `--help`.
pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let (mut cases, mut offsets, mut threads) = (None, None, "1,2".to_string());
    let (mut rounds, mut min_ms, mut quick) = (None, None, false);
    let (mut json, mut numpy, mut all_rows, mut shared_dst) = (None, None, false, false);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--cases" => cases = Some(value()?),
            "--offsets" => offsets = Some(value()?),
            "--threads" => threads = value()?,
            "--rounds" => rounds = Some(number(&value()?, "--rounds")?),
            "--min-time-ms" => min_ms = Some(number(&value()?, "--min-time-ms")?),
            "--quick" => quick = true,
            "--json" => json = Some(value()?),
            "--numpy" => numpy = Some(value()?),
            "--all-rows" => all_rows = true,
            "--shared-dst" => shared_dst = true,
            "--help" | "-h" => return Ok(None),
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    let cases = match cases {
        None => CASES.iter().collect(),
        Some(list) => {
            let mut selected = Vec::new();
            for want in list.split(',') {
                let found: Vec<&Case> = CASES
                    .iter()
                    .filter(|c| c.id == want || c.name.contains(want))
                    .collect();
                if found.is_empty() {
                    return Err(format!("--cases: no case matches {want:?}"));
                }
                selected.extend(found);
            }
            selected
        }
    };
    let default_offsets = if quick { "0:0,16:48,vec" } else { "all" };
    let threads = threads
        .split(',')
        .map(|t| match number(t, "--threads")? {
            0 => Err("--threads: 0 threads".to_string()),
            n => Ok(n),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(Options {
        cases,
        placements: parse_offsets(offsets.as_deref().unwrap_or(default_offsets))?,
        threads,
        rounds: rounds.unwrap_or(if quick { 3 } else { 9 }).max(1),
        min_time: Duration::from_millis(min_ms.unwrap_or(if quick { 5 } else { 20 }) as u64),
        json,
        numpy,
        all_rows,
        shared_dst,
    }))
}

fn number(text: &str, option: &str) -> Result<usize, String> {
    text.parse()
        .map_err(|_| format!("{option}: {text:?} is not a whole number"))
}
