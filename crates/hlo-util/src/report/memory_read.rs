//! Building a [`MemoryReport`] while a module is read: the largest buffers
//! in a heap of at most `top` rows, and one running total per computation.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::io::{BufRead, Read};

use super::memory::{BufferRow, ComputationTotal, DeviceBuffer, MemoryReport};
use super::memory_origins::RowOrigins;
use crate::binary::is_text;
use crate::origins::head::{head_tables, read_head};
use crate::origins::metadata::InstOrigin;
use crate::{
    HloError, Instruction, Limit, ModuleSummary, ReadError, Stack, read_module, read_text,
};

/// Largest allocation first, then the order of the module.
type Key = (i64, Reverse<u64>);

/// A row kept in the heap, ordered by its key alone.
#[derive(Debug)]
struct Kept {
    key: Key,
    row: BufferRow,
    origin: InstOrigin,
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Kept {}

impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

impl MemoryReport {
    /// Reads a module from `input`, text or a serialized `HloModuleProto`
    /// told apart by their content ([`read_module`]), and reports its `top`
    /// largest buffers and computations (a count, or [`Limit::All`]). Text is
    /// streamed: memory is the `top` rows kept, one total per computation
    /// and the reader's own.
    ///
    /// # Errors
    ///
    /// [`ReadError`]: where the module cannot be read, and why.
    pub fn read(mut input: impl BufRead, top: impl Into<Limit>) -> Result<Self, ReadError> {
        let top = top.into();
        if is_text(&mut input)? {
            return Ok(Self::read_text(input, top)?);
        }
        let mut collector = Collector::new(top, RowOrigins::default());
        let module = read_module(input, |i| collector.visit(i))?;
        Ok(collector.finish(module))
    }

    /// [`MemoryReport::read`] of module text, never read as a serialized
    /// module ([`read_text`]).
    ///
    /// ```
    /// let error = hlo_util::MemoryReport::read_text("\u{1}HloModule m".as_bytes(), 20).unwrap_err();
    /// assert_eq!(error.to_string(), "line 1, column 1: expected `HloModule` first");
    /// ```
    ///
    /// # Errors
    ///
    /// [`HloError`]: the line and column where the text cannot be read, and
    /// why.
    pub fn read_text(mut input: impl BufRead, top: impl Into<Limit>) -> Result<Self, HloError> {
        let head = read_head(&mut input)?;
        let mut warnings = Vec::new();
        let tables = head_tables(&head, &mut warnings);
        let mut collector = Collector::new(top.into(), RowOrigins::new(tables, warnings));
        let module = read_text(head.as_slice().chain(input), |i| collector.visit(i))?;
        Ok(collector.finish(module))
    }
}

/// What is kept of the instructions read so far.
#[derive(Debug)]
struct Collector {
    /// How many rows the report lists.
    limit: Limit,
    /// `limit` as a count.
    top: usize,
    /// The `top` largest rows, the smallest on top of the heap.
    kept: BinaryHeap<Reverse<Kept>>,
    /// How many instructions were seen.
    order: u64,
    /// One total per computation, in the order of the module.
    totals: Vec<ComputationTotal>,
    /// Where each computation's total is in `totals`.
    index: HashMap<String, usize>,
    /// The origins of the rows kept.
    origins: RowOrigins,
}

impl Collector {
    /// A collector keeping the `limit` largest rows, with their `origins`.
    fn new(limit: Limit, origins: RowOrigins) -> Self {
        Self {
            limit,
            top: limit.of(usize::MAX),
            kept: BinaryHeap::new(),
            order: 0,
            totals: Vec::new(),
            index: HashMap::new(),
            origins,
        }
    }

    /// Counts `i` in its computation's total and keeps its row if it is
    /// among the `top` largest so far.
    fn visit(&mut self, i: &Instruction<'_>) {
        let key = (i.sizes.allocated_bytes, Reverse(self.order));
        self.order = self.order.saturating_add(1);
        self.add_to_total(i);
        if self.top == 0 {
            return;
        }
        if self.kept.len() >= self.top {
            match self.kept.peek() {
                Some(Reverse(smallest)) if smallest.key < key => {
                    self.kept.pop();
                }
                _ => return,
            }
        }
        let origin = self.origins.read(i);
        self.kept.push(Reverse(Kept {
            key,
            row: row(i),
            origin,
        }));
    }

    fn add_to_total(&mut self, i: &Instruction<'_>) {
        let at = match self.index.get(i.computation) {
            Some(&at) => at,
            None => {
                self.totals.push(ComputationTotal {
                    computation: i.computation.to_owned(),
                    instructions: 0,
                    bytes: 0,
                    allocated_bytes: 0,
                });
                let at = self.totals.len() - 1;
                self.index.insert(i.computation.to_owned(), at);
                at
            }
        };
        if let Some(total) = self.totals.get_mut(at) {
            total.instructions = total.instructions.saturating_add(1);
            total.bytes = total.bytes.saturating_add(i.sizes.bytes);
            total.allocated_bytes = total
                .allocated_bytes
                .saturating_add(i.sizes.allocated_bytes);
        }
    }

    /// The report of `module`, whose instructions were all visited.
    fn finish(self, mut module: ModuleSummary) -> MemoryReport {
        // Ascending `Reverse`s: the largest row first.
        let rows = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(k)| (k.row, k.origin))
            .collect();
        let instructions = self.origins.finish(rows, &mut module.warnings);
        let mut computation_totals = self.totals;
        // Largest allocation first, then the order of the module (a stable sort).
        computation_totals.sort_by_key(|t| Reverse(t.allocated_bytes));
        MemoryReport {
            module,
            instructions,
            computation_totals,
            top: self.limit,
        }
    }
}

/// The row of `i`.
fn row(i: &Instruction<'_>) -> BufferRow {
    let Ok(opcode) = i.opcode.parse();
    BufferRow {
        computation: i.computation.to_owned(),
        name: i.name.to_owned(),
        opcode,
        shape: i.shape.to_string(),
        sizes: i.sizes,
        per_device: i.per_device.as_ref().map(|d| DeviceBuffer {
            shape: d.shape.to_string(),
            bytes: d.sizes.bytes,
        }),
        op_name: None,
        stack: Stack::default(),
    }
}
