//! XLA HLO modules, read from the text XLA prints (`compiled.as_text()` in
//! jax, the `*.txt` files of `--xla_dump_to`) or from a serialized
//! `HloModuleProto`, with every buffer sized as XLA allocates it.
//!
//! The main task, the report `xla-shape hlo` prints: read a module (from a
//! file, `BufReader::new(File::open(path)?)`, or any `BufRead`) into a
//! [`MemoryReport`] of its `top` largest buffers, and print it as text
//! (`Display`) or serialize it (`Serialize`, the command's `--json` object):
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let text = "HloModule rows
//! ENTRY %main (p: s32[1000,4], w: f32[10,200]) -> f32[10,200] {
//!   %p = s32[1000,4]{1,0:T(8,128)} parameter(0)
//!   %w = f32[10,200]{1,0:T(8,128)} parameter(1)
//!   ROOT %n = f32[10,200]{1,0:T(8,128)} negate(%w)
//! }
//! ";
//! let report = hlo_util::MemoryReport::read(text.as_bytes(), 2)?;
//! assert_eq!(
//!     report.to_string(),
//!     "\
//! module rows: 3 instructions in 1 computation
//! parameters: 24000 bytes (528384 allocated)   outputs: 8000 bytes (16384 allocated)
//! allocated  bytes  padding   ratio  space  computation  name  opcode     shape
//!    512000  16000   496000  32.00x  -      main         p     parameter  s32[1000,4]{1,0:T(8,128)}
//!     16384   8000     8384   2.05x  -      main         w     parameter  f32[10,200]{1,0:T(8,128)}
//! (1 more instructions; --top N or --all shows more)"
//! );
//! let json = serde_json::to_value(&report)?;
//! assert_eq!(json["instructions"][0]["padding_bytes"], 496000);
//! assert_eq!(json["computation_totals"][0]["allocated_bytes"], 544768);
//! # Ok(())
//! # }
//! ```
//!
//! Underneath, [`read_module`] reads either form XLA writes, told apart by
//! the content: the text, or a serialized `HloModuleProto` ([`read_proto`],
//! with the types of XLA's `hlo.proto` compiled from jaxlib 0.12.0.1's
//! descriptor, whose `xla_data.proto` types are the `schema` crate's).
//! [`read_text`] streams a module line by line and hands each instruction,
//! with its computation, shape and [`BufferSizes`], to a visitor; it returns
//! a [`ModuleSummary`] whose `parameter_bytes` and `output_bytes` are what
//! XLA's `CompiledMemoryStats` reports (jax's `compiled.memory_analysis()`:
//! `argument_size_in_bytes`, `output_size_in_bytes`). Shapes are parsed by
//! the `schema` crate and sized by `shape-util` (`ByteSizeOf`, `ArraySize`).
//! A module that cannot be read gives a [`ReadError`]: an [`HloError`] at a
//! line and column of the text, a [`ProtoError`] at a field of the message,
//! each with its kind ([`HloErrorKind`], [`ProtoErrorKind`]) and the error it
//! comes from as its source.
//!
//! ```
//! let text = "HloModule tiled
//! ENTRY %e (p: bf16[10,200]) -> bf16[10,200] {
//!   ROOT %p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)
//! }
//! ";
//! let mut padding = 0;
//! let module = hlo_util::read_text(text.as_bytes(), |i| padding += i.sizes.padding_bytes()).unwrap();
//! assert_eq!(padding, 8192 - 4000);
//! assert_eq!(module.parameter_bytes.allocated, 8192);
//! assert_eq!(module.parameter_bytes.logical, 4000);
//! ```
//!
//! In a module not yet partitioned, each instruction's `sharding={...}`
//! (read by `sharding-util`) gives what one device holds ([`PerDevice`]),
//! and the entry totals are those XLA reports per device once it has
//! partitioned the module:
//!
//! ```
//! let text = "HloModule m
//! ENTRY %e (p: f32[7,9]) -> f32[7,9] {
//!   ROOT %p = f32[7,9]{1,0} parameter(0), sharding={devices=[2,4]<=[8]}
//! }
//! ";
//! let module = hlo_util::read_text(text.as_bytes(), |i| {
//!     let device = i.per_device.as_ref().unwrap();
//!     assert_eq!(device.shape, "f32[4,3]{1,0}");
//! })
//! .unwrap();
//! assert_eq!(module.per_device_parameter_bytes.unwrap().logical, 48);
//! ```

#![forbid(unsafe_code)]

mod assignment;
mod binary;
mod entry_layout;
mod error;
mod input;
mod limit;
mod liveness;
mod names;
mod opcodes;
mod origins;
mod per_device;
mod printable;
#[rustfmt::skip]
mod proto;
mod proto_shape;
mod report;
mod scan;
mod shape_facts;
mod shape_text;
mod sizes;
mod text;
mod wire;

pub use assignment::{
    AllocationTotals, AssignmentError, BufferKind, LiveBuffer, MAX_TIMELINE_BLOCKS, MemoryDump,
    MemoryTimeline, PeakPoint, PeakReport, PeakText, StepUnit, TimelineBuffer, peak_from_hlo_proto,
    peak_from_text_dumps, timeline_from_hlo_proto, timeline_from_module_memory,
    timeline_from_text_dumps,
};
pub use binary::{read_module, read_proto};
pub use entry_layout::EntryLayout;
pub use error::{HloError, HloErrorKind, ProtoError, ProtoErrorKind, ReadError};
pub use input::{HEAD_BYTES, InputKind, NotModuleText};
pub use limit::Limit;
pub use liveness::{
    ESTIMATE_NOTE, LivenessError, ModuleBuffer, ModuleMemory, ModuleMemoryText,
    memory_from_module_reader, memory_from_module_text,
};
pub use opcodes::{OPCODES, Opcode, is_opcode};
pub use origins::{
    DiffRow, Frame, Frames, GroupBy, GroupRow, ModuleOrigins, PeakDiff, Stack, group_at_peak,
    groups_text, pass_of,
};
pub use per_device::PerDevice;
pub use printable::printable;
pub use report::{BufferRow, ComputationTotal, DeviceBuffer, MemoryReport};
pub use shape_facts::entry_bytes;
pub use sizes::{BufferSizes, EntryBytes, POINTER_SIZE};
pub use text::{Instruction, MAX_LINE_BYTES, MAX_WARNINGS, ModuleSummary, read_text};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
