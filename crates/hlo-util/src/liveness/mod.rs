//! Peak memory from a module's scheduled text alone (`compiled.as_text()`
//! in jax), computed as XLA does without its buffer-assignment dump: XLA's
//! logical values and the buffers they share (alias analysis), each buffer
//! classified and placed as buffer assignment places it (entry parameter,
//! constant, maybe-live-out, thread-local, tuple index table, temporary),
//! live ranges on the flattened schedule (`HloLiveRange`), the heap
//! simulator's events for the temporaries, and the peak as
//! `CompiledMemoryStats.peak_memory_in_bytes` defines it: the static
//! baseline plus the heap's highest point.

mod assign;
mod attributes;
mod best_fit;
mod buffers;
mod combine;
mod dataflow;
mod error;
pub(crate) mod graph;
mod in_place;
mod model;
mod name_ties;
mod post_order;
mod replay;
mod report;
mod report_text;
mod schedule;
mod shapes;
mod share;
mod value_order;

pub use error::LivenessError;
pub use model::{memory_from_module_reader, memory_from_module_text};
pub use report::{ModuleBuffer, ModuleMemory};
pub use report_text::{ESTIMATE_NOTE, ModuleMemoryText};
