//! Reports over a whole module, each built while the module is read (one
//! pass, streaming for text) and printed as text (`Display`) or serialized
//! (`Serialize`): the memory report ([`MemoryReport`]) of every buffer's
//! bytes, largest first. Each report has its files (`memory`: the type,
//! `memory_json`: its serialized form, written and read back,
//! `memory_read`: building it, `memory_origins`: its rows' origins,
//! `memory_text`: its text); `table` lays out the text tables of any of them.

mod memory;
mod memory_json;
mod memory_origins;
mod memory_read;
mod memory_text;
pub(crate) mod table;

pub use memory::{BufferRow, ComputationTotal, DeviceBuffer, MemoryReport};
