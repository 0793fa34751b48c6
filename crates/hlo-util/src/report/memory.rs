//! The memory report: a module's entry bytes, its largest buffers and its
//! computations' totals, and their JSON form.

use std::sync::Arc;

use crate::sizes::BufferSizes;
use crate::{Limit, ModuleSummary, Opcode, Stack};

/// Every buffer of a module, as `xla-shape hlo` prints it: the module's
/// entry parameter and output bytes, its largest instructions' buffers
/// (largest allocation first, then in the order of the module) and each
/// computation's buffers added up (largest first).
///
/// Its text form (`Display`) is the command's table; its serialized form
/// (`Serialize`, in `memory_json.rs`) the object of `xla-shape --json hlo`
/// less `ok`: `module`,
/// `parameter_bytes`, `output_bytes` (logical, as XLA's
/// `CompiledMemoryStats`), `parameter_allocated_bytes`,
/// `output_allocated_bytes`, `per_device_parameter_bytes`,
/// `per_device_output_bytes`, `computations`, `instruction_count`,
/// `instructions` (each a [`BufferRow`]) and `computation_totals` (each a
/// [`ComputationTotal`], as many as [`MemoryReport::top`]). It is built by
/// [`MemoryReport::read`] and [`MemoryReport::read_text`].
///
/// `Deserialize` reads that object back (`ok` and the fields computed from
/// others, such as `padding_bytes`, are ignored). What it does not carry
/// comes back empty: of the [`ModuleSummary`] only the fields above (a
/// per-device total's allocated bytes read as its logical ones), and
/// [`MemoryReport::top`] as [`Limit::All`] over the totals listed.
///
/// ```
/// let text = "HloModule tiled
/// ENTRY %e (p: bf16[10,200]) -> bf16[10,200] {
///   ROOT %p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)
/// }
/// ";
/// let report = hlo_util::MemoryReport::read(text.as_bytes(), 20).unwrap();
/// assert_eq!(report.module.parameter_bytes.allocated, 8192);
/// assert_eq!(report.instructions[0].sizes.padding_bytes(), 4192);
/// assert_eq!(
///     report.to_string().lines().next(),
///     Some("module tiled: 1 instructions in 1 computation")
/// );
/// let json = serde_json::to_string(&report).unwrap();
/// let back: hlo_util::MemoryReport = serde_json::from_str(&json).unwrap();
/// assert_eq!(back.instructions, report.instructions);
/// assert_eq!(serde_json::to_string(&back).unwrap(), json);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MemoryReport {
    /// What the reader learnt about the module: its name, counts and entry
    /// bytes.
    pub module: ModuleSummary,
    /// The largest buffers, at most [`MemoryReport::top`] of them: largest
    /// allocation first, then in the order of the module.
    pub instructions: Vec<BufferRow>,
    /// Every computation's buffers added up, largest allocation first, then
    /// in the order of the module.
    pub computation_totals: Vec<ComputationTotal>,
    /// How many of the largest instructions and computations the report
    /// shows.
    pub top: Limit,
}

/// One instruction's buffer in a [`MemoryReport`]. Serialized, its origin
/// comes last, as a peak report's buffers have it: `op_name` (a string or
/// null) and `stack` (its frames, innermost first; `[]` when none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferRow {
    /// The computation it belongs to.
    pub computation: String,
    /// The instruction's name.
    pub name: String,
    /// Its opcode (serialized as XLA spells it: `get-tuple-element`).
    pub opcode: Opcode,
    /// Its shape as XLA prints it, layout included.
    pub shape: String,
    /// The bytes of its buffer.
    pub sizes: BufferSizes,
    /// What one device holds of it under its sharding, if that says.
    pub per_device: Option<DeviceBuffer>,
    /// Its `op_name` (an entry parameter's is its pytree path), none when
    /// the module records none.
    pub op_name: Option<Arc<str>>,
    /// Its Python stack, innermost first, as the module's stack-frame
    /// tables (or its older `source_file`/`source_line` metadata) say.
    pub stack: Stack,
}

impl BufferRow {
    /// `file:line` of the innermost frame of its stack, the source line
    /// of the instruction; none without a stack.
    ///
    /// ```
    /// let text = "HloModule m
    /// ENTRY %e (p: f32[4]) -> f32[4] {
    ///   ROOT %p = f32[4]{0} parameter(0), metadata={op_name=\"x\" source_file=\"m.py\" source_line=3}
    /// }
    /// ";
    /// let report = hlo_util::MemoryReport::read(text.as_bytes(), 1).unwrap();
    /// assert_eq!(report.instructions[0].op_name.as_deref(), Some("x"));
    /// assert_eq!(report.instructions[0].source().as_deref(), Some("m.py:3"));
    /// ```
    pub fn source(&self) -> Option<String> {
        self.stack.innermost().map(crate::Frame::source)
    }
}

/// What one device holds of a buffer (see [`crate::PerDevice`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceBuffer {
    /// The shape on one device, as XLA prints it.
    pub shape: String,
    /// The logical bytes of that shape.
    pub bytes: i64,
}

/// One computation's buffers added up, in a [`MemoryReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputationTotal {
    /// The computation's name.
    pub computation: String,
    /// How many instructions it has.
    pub instructions: u64,
    /// Their logical bytes (saturating at `i64::MAX`).
    pub bytes: i64,
    /// Their allocated bytes (saturating at `i64::MAX`).
    pub allocated_bytes: i64,
}

impl ComputationTotal {
    /// The bytes allocated beyond the logical bytes.
    pub fn padding_bytes(&self) -> i64 {
        self.allocated_bytes.saturating_sub(self.bytes)
    }
}

impl MemoryReport {
    /// The computation totals the serialized form lists: the first
    /// [`MemoryReport::top`].
    pub(super) fn shown_totals(&self) -> &[ComputationTotal] {
        let shown = self.top.of(self.computation_totals.len());
        self.computation_totals.get(..shown).unwrap_or_default()
    }
}
