//! The text form of [`MemoryReport`]: the table `xla-shape hlo` prints.

use std::fmt;

use super::memory::{BufferRow, ComputationTotal, MemoryReport};
use super::table::aligned;
use crate::EntryBytes;
use crate::printable::printable;

/// The columns of the instructions' table (then `per device` for a module
/// with shardings, and `source`, the source line, when a row listed has
/// one); the first four are numbers.
const COLUMNS: [&str; 9] = [
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

/// The columns of the computations' table; the first four are numbers.
const TOTAL_COLUMNS: [&str; 5] = [
    "allocated",
    "bytes",
    "padding",
    "instructions",
    "computation",
];

impl fmt::Display for MemoryReport {
    /// The module's counts and entry bytes, the largest instructions'
    /// table and, for a module of more than one computation, the largest
    /// computations' (as many as instructions are shown, at least one).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.module;
        write!(
            f,
            "module {}: {} instructions in {} computation{}",
            printable(&m.name),
            m.instructions,
            m.computations,
            if m.computations == 1 { "" } else { "s" }
        )?;
        write!(
            f,
            "\nparameters: {} bytes ({} allocated)   outputs: {} bytes ({} allocated)",
            m.parameter_bytes.logical,
            m.parameter_bytes.allocated,
            m.output_bytes.logical,
            m.output_bytes.allocated
        )?;
        let sharded = m.per_device_parameter_bytes.is_some()
            || m.per_device_output_bytes.is_some()
            || self.instructions.iter().any(|r| r.per_device.is_some());
        if sharded {
            let bytes = |b: Option<EntryBytes>| {
                b.map_or_else(|| "unknown".to_owned(), |b| format!("{} bytes", b.logical))
            };
            write!(
                f,
                "\nper device: parameters: {}   outputs: {}",
                bytes(m.per_device_parameter_bytes),
                bytes(m.per_device_output_bytes)
            )?;
        }
        let sources = self.instructions.iter().any(|r| !r.stack.is_empty());
        let mut header = COLUMNS.to_vec();
        if sharded {
            header.push("per device");
        }
        if sources {
            header.push("source");
        }
        let rows: Vec<Vec<String>> = self
            .instructions
            .iter()
            .map(|r| cells(r, sharded, sources))
            .collect();
        write_lines(f, &aligned(&header, &rows, 4))?;
        let shown = u64::try_from(self.instructions.len()).unwrap_or(u64::MAX);
        if shown < m.instructions {
            write!(
                f,
                "\n({} more instructions; --top N or --all shows more)",
                m.instructions - shown
            )?;
        }
        if self.computation_totals.len() > 1 {
            f.write_str("\n")?;
            write_lines(
                f,
                &computation_table(&self.computation_totals, self.instructions.len()),
            )?;
        }
        for warning in &m.warnings {
            write!(f, "\nwarning: {}", printable(warning))?;
        }
        Ok(())
    }
}

/// Each of `lines` on a line of its own, after what is written.
fn write_lines(f: &mut fmt::Formatter<'_>, lines: &[String]) -> fmt::Result {
    lines.iter().try_for_each(|line| write!(f, "\n{line}"))
}

/// The computations, largest first, as many as instructions are `shown`
/// (at least one), and how many more there are.
fn computation_table(totals: &[ComputationTotal], shown: usize) -> Vec<String> {
    let rows: Vec<Vec<String>> = totals
        .iter()
        .take(shown.max(1))
        .map(|t| {
            vec![
                t.allocated_bytes.to_string(),
                t.bytes.to_string(),
                t.padding_bytes().to_string(),
                t.instructions.to_string(),
                t.computation.clone(),
            ]
        })
        .collect();
    let mut lines = aligned(&TOTAL_COLUMNS, &rows, 4);
    if rows.len() < totals.len() {
        let more = totals.len() - rows.len();
        lines.push(format!(
            "({more} more computation{}; --top N or --all shows more)",
            if more == 1 { "" } else { "s" }
        ));
    }
    lines
}

/// The table's cells of one row (with the per-device shape if `sharded`,
/// the source line if `sources`).
fn cells(r: &BufferRow, sharded: bool, sources: bool) -> Vec<String> {
    let mut cells = vec![
        r.sizes.allocated_bytes.to_string(),
        r.sizes.bytes.to_string(),
        r.sizes.padding_bytes().to_string(),
        r.sizes
            .padding_ratio()
            .map_or_else(|| "-".to_owned(), |x| format!("{x:.2}x")),
        if r.sizes.memory_space == 0 {
            "-".to_owned()
        } else {
            format!("S({})", r.sizes.memory_space)
        },
        r.computation.clone(),
        r.name.clone(),
        r.opcode.to_string(),
        r.shape.clone(),
    ];
    if sharded {
        cells.push(
            r.per_device
                .as_ref()
                .map_or_else(|| "-".to_owned(), |d| d.shape.clone()),
        );
    }
    if sources {
        cells.push(r.source().unwrap_or_else(|| "-".to_owned()));
    }
    cells
}
