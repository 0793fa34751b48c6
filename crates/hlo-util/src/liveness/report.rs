//! The memory report of a module read from its text alone.

use serde::{Deserialize, Serialize};

use crate::{LiveBuffer, PeakReport};

/// One buffer of the module, with the steps of the flattened schedule it
/// is live from and to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleBuffer {
    /// Its largest value: instruction, shape index, shape, bytes, kind.
    #[serde(flatten)]
    pub buffer: LiveBuffer,
    /// The step its first value is defined at; none for a thread-local
    /// value, which lives inside one instruction.
    pub first_step: Option<u64>,
    /// The last step it is live at (the end of the program for
    /// parameters and outputs); none for a thread-local value.
    pub last_step: Option<u64>,
    /// The buffer (its position in [`ModuleMemory::buffers`]) whose
    /// storage this temporary takes over as that one dies at this one's
    /// first step (the heap simulator's `SHARE_WITH`); none for a buffer
    /// with storage of its own.
    pub storage_of: Option<usize>,
}

/// The memory of a module computed from its scheduled text alone: XLA's
/// peak ([`PeakReport`], its `step`s those of the flattened schedule), and
/// every buffer of the module.
///
/// The totals `device` and `host` are XLA's allocation totals as far as
/// the text tells them: `temp_bytes` is each memory space's heap packed
/// as XLA packs it, at offsets aligned to the backend's alignment (64
/// bytes on CPU, 256 on GPU), combined with the tuples' index tables into
/// one allocation as XLA combines them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModuleMemory {
    /// The peak, where it is reached, the buffers live there.
    #[serde(flatten)]
    pub peak: PeakReport,
    /// Whether the module was not scheduled (no `is_scheduled=true`): the
    /// instructions were taken in the order of the text, and the peak is
    /// an estimate.
    pub peak_is_estimate: bool,
    /// How many steps the flattened schedule has.
    pub steps: u64,
    /// Every buffer: the module's, largest first, then the thread-local
    /// values.
    pub buffers: Vec<ModuleBuffer>,
    /// What the text reader read without understanding it (an opcode XLA
    /// does not know, its buffer sized as any other's), as
    /// [`crate::ModuleSummary::warnings`] words it; then a heap too crowded
    /// to place as XLA does, and the buffers XLA may name by another of
    /// their values than the one named here (values of equal size in
    /// computations the text does not tell XLA's order of, such as a
    /// conditional's branches). Left out of the JSON when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
