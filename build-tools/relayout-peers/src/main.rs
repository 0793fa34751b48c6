//! The relayout engine beside a plain copy of the same bytes and its peers
//! (the `transpose` crate, ndarray, hptt; numpy and PyTorch merged from
//! their script), at every buffer alignment and thread count. See
//! README.md.

mod args;
mod buffers;
mod cases;
mod functions;
mod hptt_peer;
mod measured;
mod report;
mod timing;

use std::process::ExitCode;

use rayon::ThreadPool;

use args::Options;
use buffers::{Placement, Slack, destinations, line_offset};
use cases::Case;
use report::Record;
use timing::{Measured, Timing};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relayout-peers: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let Some(options) = args::parse(std::env::args().skip(1))? else {
        print!("{}", args::USAGE);
        return Ok(());
    };
    // One pool per thread count above 1, built once.
    let pools = options
        .threads
        .iter()
        .map(|&t| match t {
            1 => Ok(None),
            t => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map(Some)
                .map_err(|e| format!("pool of {t} threads: {e}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let timing = Timing {
        rounds: options.rounds,
        min_time: options.min_time,
    };
    let mut records = Vec::new();
    for case in &options.cases {
        run_case(case, &options, &pools, timing, &mut records)?;
    }
    if let Some(path) = &options.numpy {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        report::merge(&mut records, report::read_merged(&text)?);
    }
    if let Some(path) = &options.json {
        let mut text = report::json_lines(&records).join("\n");
        text.push('\n');
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
    }
    println!("{}", header(&options));
    print!("{}", report::markdown(&records, options.all_rows));
    Ok(())
}

/// What was run, on what.
fn header(options: &Options) -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "relayout peers: {} rounds (median), each measurement ≥ {} ms; {cores} CPUs available \
         ({}); engine SIMD level {:?}; hptt {}\n",
        options.rounds,
        options.min_time.as_millis(),
        cpu_note(),
        relayout::detected_simd_level(),
        hptt_peer::build_note(),
    )
}

/// The CPU's model name and its caches, as Linux reports them (the
/// figures depend on both: a large last-level cache holds the "large"
/// cases); what Linux does not report is left out.
fn cpu_note() -> String {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let model = read("/proc/cpuinfo").and_then(|info| {
        info.lines()
            .find_map(|line| line.strip_prefix("model name")?.split_once(':'))
            .map(|(_, name)| name.trim().to_owned())
    });
    let caches: Vec<String> = (0..8)
        .filter_map(|index| {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
            let kind = read(&format!("{dir}/type"))?;
            let level = read(&format!("{dir}/level"))?;
            let size = read(&format!("{dir}/size"))?;
            (kind.trim() != "Instruction").then(|| format!("L{} {}", level.trim(), size.trim()))
        })
        .collect();
    let model = model.unwrap_or_else(|| "CPU not reported".to_owned());
    if caches.is_empty() {
        model
    } else {
        format!("{model}; {}", caches.join(", "))
    }
}

/// Every placement and thread count of one case.
fn run_case(
    case: &'static Case,
    options: &Options,
    pools: &[Option<ThreadPool>],
    timing: Timing,
    records: &mut Vec<Record>,
) -> Result<(), String> {
    eprintln!("{}: preparing {} MiB", case.name, case.bytes() >> 20);
    let source = case.source();
    let expected = case.expected(&source);
    let views = case.views()?;
    let mut src_slack = Slack::new(case.bytes());
    // Destination buffers, one per function unless `--shared-dst`: grown
    // as the thread counts need them, reused across placements.
    let mut dst_slacks: Vec<Slack> = Vec::new();
    for &placement in &options.placements {
        let src: &[u8];
        let src_vec;
        let mut dst_vecs: Vec<Vec<u8>> = Vec::new();
        match placement {
            Placement::Line { src: s, .. } => {
                src_slack.at_mut(s).copy_from_slice(&source);
                src = src_slack.at(s);
            }
            Placement::Vec => {
                src_vec = source.clone();
                src = &src_vec;
            }
        }
        let src_offset = line_offset(src);
        for (&threads, pool) in options.threads.iter().zip(pools) {
            let mut functions = functions::functions(case, &views, threads, pool.as_ref());
            let buffers = if options.shared_dst {
                1
            } else {
                functions.len()
            };
            let mut dsts = destinations(
                placement,
                buffers,
                case.bytes(),
                &mut dst_slacks,
                &mut dst_vecs,
            );
            let last = buffers - 1;
            for (i, f) in functions.iter_mut().enumerate() {
                verify(f, case, src, dsts[i.min(last)], &expected)?;
            }
            let dst_offsets: Vec<usize> = dsts.iter().map(|d| line_offset(d)).collect();
            let measured = timing::measure(&mut functions, src, &mut dsts, timing)?;
            let config = Config {
                case,
                placement,
                src_offset,
                threads,
                rounds: timing.rounds,
            };
            eprintln!("{}", record(config, measured, &dst_offsets, records));
        }
    }
    Ok(())
}

/// One configuration measured: the case, where its buffers start, the
/// source's bytes past a 64-byte line, the threads, and the rounds.
#[derive(Clone, Copy)]
struct Config {
    case: &'static Case,
    placement: Placement,
    src_offset: usize,
    threads: usize,
    rounds: usize,
}

/// Appends a record per function `measured` in `config` (the functions'
/// destinations `dst_offsets` past a line, the last shared by those after
/// it); the progress line saying their times and ratios to the copy.
fn record(
    config: Config,
    measured: Vec<Measured>,
    dst_offsets: &[usize],
    records: &mut Vec<Record>,
) -> String {
    let Config {
        case,
        placement,
        src_offset,
        threads,
        rounds,
    } = config;
    let (dst_offset, last) = (dst_offsets[0], dst_offsets.len() - 1);
    let copy = measured
        .iter()
        .find(|m| m.name == "copy")
        .map(|m| m.median_s);
    let mut progress = format!(
        "  {} {src_offset}:{dst_offset} threads {threads}:",
        placement.kind()
    );
    for (i, m) in measured.into_iter().enumerate() {
        progress.push_str(&format!(
            " {} {:.3} ms{}",
            m.name,
            m.median_s * 1e3,
            copy.map_or(String::new(), |c| format!(" ({:.2}×)", m.median_s / c))
        ));
        records.push(Record {
            case,
            placement,
            src_offset,
            dst_offset: dst_offsets[i.min(last)],
            threads,
            function: m.name.to_string(),
            median_s: m.median_s,
            reps: m.reps,
            rounds,
        });
    }
    progress
}

/// Runs `f` once over a destination of 0xff bytes (no element of any case)
/// and checks that it wrote the expected bytes (the source for the copy).
fn verify(
    f: &mut measured::Function<'_>,
    case: &Case,
    src: &[u8],
    dst: &mut [u8],
    expected: &[u8],
) -> Result<(), String> {
    dst.fill(0xff);
    (f.run)(src, dst).map_err(|e| format!("{} {}: {e}", case.name, f.name))?;
    let want = if f.name == "copy" { src } else { expected };
    match dst.iter().zip(want).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{} {}: output differs from the expected one at byte {i}",
            case.name, f.name
        )),
    }
}
