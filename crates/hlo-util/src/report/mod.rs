//! Reports over a whole module, each built while the module is read (one
//! pass, streaming for text) and printed as text (`Display`) or serialized
//! (`Serialize`): the memory report ([`MemoryReport`]) of every buffer's
//! bytes, largest first.

mod memory;
mod memory_text;
mod table;
mod top;

pub use memory::{BufferRow, ComputationTotal, DeviceBuffer, MemoryReport};
