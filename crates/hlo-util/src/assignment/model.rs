//! The buffer assignment as both of XLA's dumps give it: allocations with
//! their flags, and the logical buffers (values) assigned to them.

use super::report::BufferKind;
use crate::origins::metadata::Origin;

/// XLA's host memory space (`S(5)`), whose bytes `CompiledMemoryStats`
/// reports apart (`host_*_size_in_bytes`).
pub(crate) const HOST_COLOR: i64 = 5;

/// One `BufferAllocation`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Allocation {
    /// Bytes allocated.
    pub size: u64,
    /// The memory space.
    pub color: i64,
    /// Holds an entry parameter.
    pub parameter: bool,
    /// An entry parameter that an output aliases (donation).
    pub aliased_parameter: bool,
    /// Holds a constant.
    pub constant: bool,
    /// May be live out of the program (an output).
    pub live_out: bool,
    /// Values of a fused or called computation, on the stack.
    pub thread_local: bool,
    /// Indices of its values in the assignment's value list, in dump order.
    pub values: Vec<usize>,
}

impl Allocation {
    /// Counted whole in the static baseline of XLA's peak: an entry
    /// parameter, a constant or a maybe-live-out allocation that is not
    /// thread-local.
    pub fn is_static(&self) -> bool {
        !self.thread_local && (self.parameter || self.constant || self.live_out)
    }

    /// XLA's `IsPreallocatedTempBuffer`: none of the other kinds.
    pub fn is_temp(&self) -> bool {
        !self.thread_local && !self.parameter && !self.constant && !self.live_out
    }

    /// What its buffers are, the first that holds of parameter, constant,
    /// output, temporary.
    pub fn kind(&self) -> BufferKind {
        if self.parameter {
            BufferKind::Parameter
        } else if self.constant {
            BufferKind::Constant
        } else if self.live_out {
            BufferKind::Output
        } else if self.thread_local {
            BufferKind::ThreadLocal
        } else {
            BufferKind::Temporary
        }
    }
}

/// One logical buffer (an `HloValue`): the output of an instruction at a
/// shape index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Value {
    /// The defining instruction.
    pub instruction: String,
    /// Where in the instruction's (tuple) shape.
    pub shape_index: Vec<i64>,
    /// Its shape, as XLA prints it.
    pub shape: String,
    /// Bytes as the backend sizes it (padded).
    pub bytes: u64,
    /// Its offset in its allocation.
    pub offset: u64,
    /// The allocation it is assigned to, if any.
    pub allocation: Option<usize>,
    /// Its defining instruction's op_name and stack.
    pub origin: Origin,
}

/// Allocations and values.
#[derive(Debug, Clone, Default)]
pub(crate) struct Assignment {
    /// In dump order.
    pub allocations: Vec<Allocation>,
    /// In dump order.
    pub values: Vec<Value>,
}

impl Assignment {
    /// The kind of value `v`: its allocation's, or a temporary when it has
    /// none.
    pub fn kind_of(&self, v: usize) -> BufferKind {
        self.values
            .get(v)
            .and_then(|value| value.allocation)
            .and_then(|a| self.allocations.get(a))
            .map_or(BufferKind::Temporary, Allocation::kind)
    }
}
