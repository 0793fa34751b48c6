//! Results: one JSON object per line, numpy's and PyTorch's lines merged
//! in, and the Markdown tables with the targets.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::buffers::Placement;
use crate::cases::{CASES, Case, MANY_CORE_BOUND};

/// A peer must take at least this many times our time.
pub const PEER_BOUND: f64 = 1.2;

/// The peers, as named in the records, and their column titles.
const PEERS: &[(&str, &str)] = &[
    ("transpose", "transpose ÷ ours"),
    ("ndarray", "ndarray ÷ ours"),
    ("hptt", "hptt ÷ ours"),
    ("numpy", "numpy ÷ ours"),
    ("torch", "PyTorch ÷ ours"),
];

/// The peers measured by `numpy_relayout_offsets.py`, in another process,
/// whose lines are merged.
const MERGED: &[&str] = &["numpy", "torch"];

/// One function's median in one configuration.
#[derive(Clone, Debug)]
pub struct Record {
    /// The case.
    pub case: &'static Case,
    /// How the buffers were placed.
    pub placement: Placement,
    /// Source bytes past a 64-byte line (the real one for `vec`).
    pub src_offset: usize,
    /// Destination bytes past a 64-byte line.
    pub dst_offset: usize,
    /// Threads.
    pub threads: usize,
    /// The function.
    pub function: String,
    /// Median seconds per call.
    pub median_s: f64,
    /// Calls per measurement (0 when merged from numpy's file).
    pub reps: usize,
    /// Rounds.
    pub rounds: usize,
}

/// The configuration a record belongs to.
type Key = (usize, &'static str, usize, usize, usize);

fn case_index(case: &Case) -> usize {
    CASES
        .iter()
        .position(|c| c.id == case.id)
        .unwrap_or(usize::MAX)
}

impl Record {
    /// Its configuration; `vec` placements compare whatever their offsets.
    fn key(&self) -> Key {
        let (s, d) = match self.placement {
            Placement::Vec => (usize::MAX, usize::MAX),
            Placement::Line { .. } => (self.src_offset, self.dst_offset),
        };
        (
            case_index(self.case),
            self.placement.kind(),
            s,
            d,
            self.threads,
        )
    }
}

/// The medians of each configuration, by function.
struct Table {
    rows: BTreeMap<Key, BTreeMap<String, (f64, usize, usize)>>,
}

impl Table {
    fn new(records: &[Record]) -> Self {
        let mut rows: BTreeMap<Key, BTreeMap<String, (f64, usize, usize)>> = BTreeMap::new();
        for r in records {
            let row = rows.entry(r.key()).or_default();
            // Merged vec offsets are their own: ours win the row's label.
            if !MERGED.contains(&r.function.as_str()) || !row.contains_key(&r.function) {
                row.insert(r.function.clone(), (r.median_s, r.src_offset, r.dst_offset));
            }
        }
        Table { rows }
    }

    fn get(&self, key: &Key, function: &str) -> Option<f64> {
        self.rows.get(key)?.get(function).map(|v| v.0)
    }

    /// Ours ÷ the copy in configuration `key`, where both were measured.
    fn ours_over_copy(&self, key: &Key) -> Option<f64> {
        match (self.get(key, "ours"), self.get(key, "copy")) {
            (Some(o), Some(c)) => Some(o / c),
            _ => None,
        }
    }

    /// `peer` ÷ ours in configuration `key`, where both were measured.
    fn peer_over_ours(&self, key: &Key, peer: &str) -> Option<f64> {
        match (self.get(key, peer), self.get(key, "ours")) {
            (Some(p), Some(o)) => Some(p / o),
            _ => None,
        }
    }

    /// The configurations grouped by (case, threads).
    fn groups(&self) -> BTreeMap<(usize, usize), Vec<Key>> {
        let mut groups: BTreeMap<(usize, usize), Vec<Key>> = BTreeMap::new();
        for key in self.rows.keys() {
            groups.entry((key.0, key.4)).or_default().push(*key);
        }
        groups
    }
}

/// The JSON line of a record, with its ratios to the copy and to ours of
/// the same configuration (null where that was not measured).
pub fn json_lines(records: &[Record]) -> Vec<String> {
    let table = Table::new(records);
    records
        .iter()
        .map(|r| {
            let key = r.key();
            let ratio = |base: &str| table.get(&key, base).map(|b| r.median_s / b);
            json!({
                "case": r.case.name,
                "case_id": r.case.id,
                "placement": r.placement.kind(),
                "src_offset": r.src_offset,
                "dst_offset": r.dst_offset,
                "threads": r.threads,
                "function": r.function,
                "median_s": r.median_s,
                "ratio_copy": ratio("copy"),
                "ratio_ours": ratio("ours"),
                "reps": r.reps,
                "rounds": r.rounds,
            })
            .to_string()
        })
        .collect()
}

/// Appends the `merged` records of the configurations measured here (the
/// others would make rows without our time).
pub fn merge(records: &mut Vec<Record>, merged: Vec<Record>) {
    let measured: BTreeSet<Key> = records.iter().map(Record::key).collect();
    records.extend(merged.into_iter().filter(|r| measured.contains(&r.key())));
}

/// The peers' records from the JSON lines of `numpy_relayout_offsets.py`
/// (functions `numpy` and `torch`; their own copy lines are skipped).
pub fn read_merged(text: &str) -> Result<Vec<Record>, String> {
    let mut out = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("numpy line {}: {e}", n + 1))?;
        let Some(function) = MERGED.iter().find(|f| v["function"] == **f) else {
            continue;
        };
        let field = |name: &str| -> Result<usize, String> {
            v[name]
                .as_u64()
                .map(|x| x as usize)
                .ok_or_else(|| format!("numpy line {}: no {name}", n + 1))
        };
        let Some(case) = CASES.iter().find(|c| v["case"] == c.name) else {
            continue;
        };
        let (src_offset, dst_offset) = (field("src_offset")?, field("dst_offset")?);
        let placement = match v["placement"].as_str() {
            Some("vec") => Placement::Vec,
            _ => Placement::Line {
                src: src_offset,
                dst: dst_offset,
            },
        };
        out.push(Record {
            case,
            placement,
            src_offset,
            dst_offset,
            threads: field("threads")?,
            function: (*function).into(),
            median_s: v["median_s"]
                .as_f64()
                .ok_or_else(|| format!("numpy line {}: no median_s", n + 1))?,
            reps: 0,
            rounds: field("rounds").unwrap_or(0),
        });
    }
    Ok(out)
}

/// A ratio against its bound: `1.23 pass` or `**1.23 miss**`; `–` if not
/// measured.
fn checked(value: Option<f64>, pass: impl Fn(f64) -> bool) -> String {
    match value {
        None => "–".into(),
        Some(v) if pass(v) => format!("{v:.2} pass"),
        Some(v) => format!("**{v:.2} miss**"),
    }
}

fn label(table: &Table, key: &Key) -> String {
    let offsets = table
        .rows
        .get(key)
        .and_then(|row| row.get("copy").or_else(|| row.values().next()))
        .map(|v| (v.1, v.2))
        .unwrap_or((key.2, key.3));
    match key.1 {
        "vec" => format!("vec ({}:{})", offsets.0, offsets.1),
        _ => format!("{}:{}", offsets.0, offsets.1),
    }
}

/// The Markdown report: the rows (aligned `0:0`, `vec` and the worst
/// offset pair by ours ÷ copy of each case and thread count, or every row
/// with `all_rows`), then per case and thread count the worst ratio over
/// every placement, and the count of misses.
pub fn markdown(records: &[Record], all_rows: bool) -> String {
    let table = Table::new(records);
    let groups = table.groups();
    let mut out = String::new();
    header(&mut out, "src:dst offset", "copy ms");
    for ((case, threads), keys) in &groups {
        rows(&mut out, &table, &CASES[*case], *threads, keys, all_rows);
    }
    // The worst of every placement, per case and thread count.
    out.push_str("\nWorst over every placement measured (the offset pair where it occurs):\n\n");
    header(&mut out, "placements", "best copy ms");
    let mut counts = Checks::default();
    for ((case, threads), keys) in &groups {
        let line = worst_line(&table, &CASES[*case], *threads, keys, &mut counts);
        out.push_str(&line);
        out.push('\n');
    }
    let Checks { checks, misses } = counts;
    out.push_str(&format!(
        "\n{misses} of {checks} checks missed (ours ÷ copy ≤ the case's bound: 1.5 f32 4096² / f64 2048² / permute, 2.0 u8 8192² / f32 1024², 1.3 NCHW→NHWC, and on 4 or more threads {MANY_CORE_BOUND} for every case of 16 MiB or more; every peer ÷ ours ≥ {PEER_BOUND}).\n"
    ));
    out
}

/// A table's header: the case, `first`, the threads, `third`, ours ÷ copy
/// and a column per peer.
fn header(out: &mut String, first: &str, third: &str) {
    out.push_str(&format!(
        "| case | {first} | threads | {third} | ours ÷ copy |"
    ));
    for (_, title) in PEERS {
        out.push_str(&format!(" {title} |"));
    }
    out.push_str("\n|---|---|---:|---:|---:|");
    out.push_str(&"---:|".repeat(PEERS.len()));
    out.push('\n');
}

/// The rows of one case on a number of threads (its configurations
/// `keys`): aligned, `vec` and the worst offset pair by ours ÷ copy, or
/// every one with `all_rows`.
fn rows(
    out: &mut String,
    table: &Table,
    case: &Case,
    threads: usize,
    keys: &[Key],
    all_rows: bool,
) {
    let worst = keys
        .iter()
        .filter(|k| k.1 == "line")
        .max_by(|a, b| {
            let (a, b) = (table.ours_over_copy(a), table.ours_over_copy(b));
            a.unwrap_or(0.0).total_cmp(&b.unwrap_or(0.0))
        })
        .copied();
    for key in keys {
        let aligned = key.1 == "line" && key.2 == 0 && key.3 == 0;
        if !(all_rows || aligned || key.1 == "vec" || Some(*key) == worst) {
            continue;
        }
        let copy_ms = table
            .get(key, "copy")
            .map_or("–".into(), |c| format!("{:.3}", c * 1e3));
        out.push_str(&format!(
            "| {} | {}{} | {threads} | {copy_ms} | {} |",
            case.name,
            label(table, key),
            if Some(*key) == worst && !all_rows {
                " (worst)"
            } else {
                ""
            },
            checked(table.ours_over_copy(key), |v| v <= case.bound_on(threads)),
        ));
        for (peer, _) in PEERS {
            out.push_str(&format!(
                " {} |",
                checked(table.peer_over_ours(key, peer), |v| v >= PEER_BOUND)
            ));
        }
        out.push('\n');
    }
}

/// How many ratios were checked against their bounds, and how many missed.
#[derive(Default)]
struct Checks {
    checks: usize,
    misses: usize,
}

/// The line of one case on a number of threads (its configurations
/// `keys`): the worst ours ÷ copy and the worst of each peer over every
/// placement, each counted in `counts`.
fn worst_line(
    table: &Table,
    case: &Case,
    threads: usize,
    keys: &[Key],
    counts: &mut Checks,
) -> String {
    let worst_by = |value: &dyn Fn(&Key) -> Option<f64>, high: bool| {
        keys.iter()
            .filter_map(|k| value(k).map(|v| (v, k)))
            .max_by(|a, b| {
                if high {
                    a.0.total_cmp(&b.0)
                } else {
                    b.0.total_cmp(&a.0)
                }
            })
    };
    let best_copy = keys
        .iter()
        .filter_map(|k| table.get(k, "copy"))
        .min_by(f64::total_cmp)
        .map_or("–".into(), |c| format!("{:.3}", c * 1e3));
    let mut line = format!(
        "| {} | {} | {threads} | {best_copy} |",
        case.name,
        keys.len()
    );
    let mut cell = |found: Option<(f64, &Key)>, pass: &dyn Fn(f64) -> bool| match found {
        None => "–".to_string(),
        Some((v, k)) => {
            counts.checks += 1;
            if !pass(v) {
                counts.misses += 1;
            }
            format!("{} at {}", checked(Some(v), pass), label(table, k))
        }
    };
    line.push_str(&format!(
        " {} |",
        cell(worst_by(&|k: &Key| table.ours_over_copy(k), true), &|v| {
            v <= case.bound_on(threads)
        })
    ));
    for (peer, _) in PEERS {
        let found = worst_by(&|k: &Key| table.peer_over_ours(k, peer), false);
        line.push_str(&format!(" {} |", cell(found, &|v| v >= PEER_BOUND)));
    }
    line
}
