//! `hlo`: every buffer of an HLO module, largest first, with its padding.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
#[cfg(feature = "cli")]
use std::fs::File;
use std::io::BufRead;
#[cfg(feature = "cli")]
use std::io::BufReader;

use hlo_util::{Instruction, ModuleSummary};
use serde::Serialize;

#[cfg(feature = "cli")]
use crate::cli::HloArgs;

/// One instruction kept for the report.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    /// Largest allocation first, then file order.
    key: (i64, Reverse<u64>),
    computation: String,
    name: String,
    opcode: String,
    shape: String,
    bytes: i64,
    memory_space: i64,
    /// What one device holds under the instruction's sharding.
    per_device_shape: Option<String>,
    per_device_bytes: Option<i64>,
}

/// The buffers of one computation, added up.
#[derive(Debug)]
struct ComputationTotal {
    name: String,
    instructions: u64,
    bytes: i64,
    allocated: i64,
}

/// Reads the module in `args.file` (`-`: standard input) and reports its
/// largest buffers, as a table or (`json`) as one JSON object.
#[cfg(feature = "cli")]
pub fn run(args: &HloArgs, json: bool) -> Result<String, String> {
    let limit = if args.all { usize::MAX } else { args.top };
    if args.file == "-" {
        report(std::io::stdin().lock(), limit, json)
    } else {
        let file = File::open(&args.file).map_err(|e| format!("cannot open {}: {e}", args.file))?;
        report(BufReader::with_capacity(1 << 16, file), limit, json)
    }
}

pub(crate) fn report(input: impl BufRead, limit: usize, json: bool) -> Result<String, String> {
    // The `limit` largest buffers, smallest on top of the heap.
    let mut kept: BinaryHeap<Reverse<Row>> = BinaryHeap::new();
    let mut order = 0u64;
    // Per computation, in the order of the text.
    let mut totals: Vec<ComputationTotal> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let module = hlo_util::read_module(input, |i| {
        let key = (i.sizes.allocated_bytes, Reverse(order));
        order += 1;
        let at = *index.entry(i.computation.to_owned()).or_insert_with(|| {
            totals.push(ComputationTotal {
                name: i.computation.to_owned(),
                instructions: 0,
                bytes: 0,
                allocated: 0,
            });
            totals.len() - 1
        });
        if let Some(total) = totals.get_mut(at) {
            total.instructions += 1;
            total.bytes = total.bytes.saturating_add(i.sizes.bytes);
            total.allocated = total.allocated.saturating_add(i.sizes.allocated_bytes);
        }
        if limit == 0 {
            return;
        }
        if kept.len() >= limit {
            match kept.peek() {
                Some(Reverse(smallest)) if smallest.key < key => {
                    kept.pop();
                }
                _ => return,
            }
        }
        kept.push(Reverse(row(i, key)));
    })
    .map_err(|e| e.to_string())?;
    // Ascending `Reverse`s: the largest row first.
    let rows: Vec<Row> = kept
        .into_sorted_vec()
        .into_iter()
        .map(|Reverse(r)| r)
        .collect();
    // Largest allocation first, then text order (a stable sort).
    totals.sort_by_key(|t| Reverse(t.allocated));
    let shown = totals.len().min(limit);
    if json {
        serde_json::to_string(&report_json(&module, &rows, &totals[..shown]))
            .map_err(|e| e.to_string())
    } else {
        Ok(plain(&module, &rows, &totals))
    }
}

fn row(i: &Instruction<'_>, key: (i64, Reverse<u64>)) -> Row {
    Row {
        key,
        computation: i.computation.to_owned(),
        name: i.name.to_owned(),
        opcode: i.opcode.to_owned(),
        shape: i.shape.to_string(),
        bytes: i.sizes.bytes,
        memory_space: i.sizes.memory_space,
        per_device_shape: i.per_device.as_ref().map(|d| d.shape.to_string()),
        per_device_bytes: i.per_device.as_ref().map(|d| d.sizes.bytes),
    }
}

fn allocated(row: &Row) -> i64 {
    row.key.0
}

/// Allocated over logical bytes, as people read it (`2.05x`).
#[allow(clippy::cast_precision_loss)] // A ratio for people to read.
fn ratio(row: &Row) -> Option<f64> {
    (row.bytes != 0).then(|| allocated(row) as f64 / row.bytes as f64)
}

/// The JSON object of a report, fields in this order.
#[derive(Serialize)]
struct Report<'a> {
    ok: bool,
    module: &'a str,
    parameter_bytes: i64,
    output_bytes: i64,
    parameter_allocated_bytes: i64,
    output_allocated_bytes: i64,
    per_device_parameter_bytes: Option<i64>,
    per_device_output_bytes: Option<i64>,
    computations: u64,
    instruction_count: u64,
    instructions: Vec<InstructionJson<'a>>,
    computation_totals: Vec<ComputationJson<'a>>,
}

/// One computation of [`Report`]: its instructions' buffers added up.
#[derive(Serialize)]
struct ComputationJson<'a> {
    computation: &'a str,
    instructions: u64,
    bytes: i64,
    allocated_bytes: i64,
    padding_bytes: i64,
}

/// One instruction of [`Report`].
#[derive(Serialize)]
struct InstructionJson<'a> {
    computation: &'a str,
    name: &'a str,
    opcode: &'a str,
    shape: &'a str,
    bytes: i64,
    allocated_bytes: i64,
    padding_bytes: i64,
    padding_ratio: Option<f64>,
    memory_space: i64,
    per_device_shape: Option<&'a str>,
    per_device_bytes: Option<i64>,
}

fn report_json<'a>(
    module: &'a ModuleSummary,
    rows: &'a [Row],
    totals: &'a [ComputationTotal],
) -> Report<'a> {
    Report {
        ok: true,
        module: &module.name,
        // XLA's CompiledMemoryStats (memory_analysis()) as real XLA reports
        // them: logical bytes, even for tiled arrays; the tiled buffers' own
        // sizes beside them.
        parameter_bytes: module.parameter_bytes.logical,
        output_bytes: module.output_bytes.logical,
        parameter_allocated_bytes: module.parameter_bytes.allocated,
        output_allocated_bytes: module.output_bytes.allocated,
        // What one device holds of a module with shardings, not yet
        // partitioned: XLA's memory_analysis() of the partitioned module.
        per_device_parameter_bytes: module.per_device_parameter_bytes.map(|b| b.logical),
        per_device_output_bytes: module.per_device_output_bytes.map(|b| b.logical),
        computations: module.computations,
        instruction_count: module.instructions,
        instructions: rows
            .iter()
            .map(|r| InstructionJson {
                computation: &r.computation,
                name: &r.name,
                opcode: &r.opcode,
                shape: &r.shape,
                bytes: r.bytes,
                allocated_bytes: allocated(r),
                padding_bytes: allocated(r).saturating_sub(r.bytes),
                padding_ratio: ratio(r),
                memory_space: r.memory_space,
                per_device_shape: r.per_device_shape.as_deref(),
                per_device_bytes: r.per_device_bytes,
            })
            .collect(),
        computation_totals: totals
            .iter()
            .map(|t| ComputationJson {
                computation: &t.name,
                instructions: t.instructions,
                bytes: t.bytes,
                allocated_bytes: t.allocated,
                padding_bytes: t.allocated.saturating_sub(t.bytes),
            })
            .collect(),
    }
}

fn plain(module: &ModuleSummary, rows: &[Row], totals: &[ComputationTotal]) -> String {
    let mut lines = vec![
        format!(
            "module {}: {} instructions in {} computation{}",
            module.name,
            module.instructions,
            module.computations,
            if module.computations == 1 { "" } else { "s" }
        ),
        format!(
            "parameters: {} bytes ({} allocated)   outputs: {} bytes ({} allocated)",
            module.parameter_bytes.logical,
            module.parameter_bytes.allocated,
            module.output_bytes.logical,
            module.output_bytes.allocated
        ),
    ];
    let sharded = module.per_device_parameter_bytes.is_some()
        || module.per_device_output_bytes.is_some()
        || rows.iter().any(|r| r.per_device_shape.is_some());
    if sharded {
        let bytes = |b: Option<hlo_util::EntryBytes>| {
            b.map_or_else(|| "unknown".to_owned(), |b| format!("{} bytes", b.logical))
        };
        lines.push(format!(
            "per device: parameters: {}   outputs: {}",
            bytes(module.per_device_parameter_bytes),
            bytes(module.per_device_output_bytes)
        ));
    }
    let mut header = vec![
        "allocated",
        "bytes",
        "padding",
        "ratio",
        "space",
        "computation",
        "name",
        "opcode",
        "shape",
    ];
    if sharded {
        header.push("per device");
    }
    let header: Vec<String> = header.into_iter().map(str::to_owned).collect();
    let table: Vec<Vec<String>> = rows.iter().map(|r| cells(r, sharded)).collect();
    lines.extend(aligned(&header, &table));
    let shown = u64::try_from(rows.len()).unwrap_or(u64::MAX);
    if shown < module.instructions {
        lines.push(format!(
            "({} more instructions; --top N or --all shows more)",
            module.instructions - shown
        ));
    }
    if totals.len() > 1 {
        lines.push(String::new());
        lines.extend(computation_table(totals, rows.len()));
    }
    lines.join("\n")
}

/// The computations, largest first, as many as instructions are shown
/// (at least one).
fn computation_table(totals: &[ComputationTotal], shown: usize) -> Vec<String> {
    let header: Vec<String> = [
        "allocated",
        "bytes",
        "padding",
        "instructions",
        "computation",
    ]
    .map(str::to_owned)
    .to_vec();
    let table: Vec<Vec<String>> = totals
        .iter()
        .take(shown.max(1))
        .map(|t| {
            vec![
                t.allocated.to_string(),
                t.bytes.to_string(),
                t.allocated.saturating_sub(t.bytes).to_string(),
                t.instructions.to_string(),
                t.name.clone(),
            ]
        })
        .collect();
    let mut lines = aligned(&header, &table);
    if table.len() < totals.len() {
        let more = totals.len() - table.len();
        lines.push(format!(
            "({more} more computation{}; --top N or --all shows more)",
            if more == 1 { "" } else { "s" }
        ));
    }
    lines
}

/// The table's cells of one row (with the per-device shape if `sharded`).
fn cells(r: &Row, sharded: bool) -> Vec<String> {
    let mut cells = vec![
        allocated(r).to_string(),
        r.bytes.to_string(),
        allocated(r).saturating_sub(r.bytes).to_string(),
        ratio(r).map_or_else(|| "-".to_owned(), |x| format!("{x:.2}x")),
        if r.memory_space == 0 {
            "-".to_owned()
        } else {
            format!("S({})", r.memory_space)
        },
        r.computation.clone(),
        r.name.clone(),
        r.opcode.clone(),
        r.shape.clone(),
    ];
    if sharded {
        cells.push(r.per_device_shape.clone().unwrap_or_else(|| "-".to_owned()));
    }
    cells
}

/// The header and rows of a table, each column as wide as its widest cell.
fn aligned(header: &[String], table: &[Vec<String>]) -> Vec<String> {
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for cells in table {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.len());
        }
    }
    let mut lines = vec![line(header, &widths)];
    lines.extend(table.iter().map(|cells| line(cells, &widths)));
    lines
}

/// One line of the table: numbers right-aligned, the last column unpadded.
fn line(cells: &[String], widths: &[usize]) -> String {
    let mut line = String::new();
    for (column, (cell, &width)) in cells.iter().zip(widths).enumerate() {
        if column + 1 == cells.len() {
            line.push_str(cell);
        } else if column < 4 {
            line.push_str(&format!("{cell:>width$}  "));
        } else {
            line.push_str(&format!("{cell:<width$}  "));
        }
    }
    line.trim_end().to_owned()
}
