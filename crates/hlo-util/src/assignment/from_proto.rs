//! XLA's `peak_memory_in_bytes` from an `HloProto` (the module and its
//! `BufferAssignmentProto`, as `--xla_dump_hlo_as_proto` writes it in
//! `*after_optimizations.hlo.pb`): the static baseline, then every heap
//! trace's events replayed, trace after trace.

use std::collections::{HashMap, HashSet};

use prost::Message;
use schema::Shape;

use super::AssignmentError;
use super::baseline::static_baseline;
use super::bytes::inside;
use super::dump_proto::{BufferAssignmentProto, HloProto};
use super::heap::{Event, Heap, HeapFault, index};
use super::heap_events::HeapTraces;
use super::model::{Allocation, Assignment, Value};
use super::report::{PeakPoint, PeakReport, StepUnit};
use super::summary::{allocation_totals, live_buffers};
use super::trace_order::check_trace_order;
use crate::origins::metadata::{InstOrigin, Origin, read_proto_metadata};
use crate::origins::tables::Tables;
use crate::proto::buffer_allocation_proto::Assigned;
use crate::proto::{BufferAllocationProto, HloModuleProto, LogicalBufferProto};

/// A decoded dump: the assignment, its heap events (their traces kept as
/// bytes for the instruction of each), and the static baseline's bytes and
/// values.
pub(super) struct Dump {
    /// Each logical buffer's id, by value index.
    ids: Vec<i64>,
    /// Its allocations and values.
    pub assignment: Assignment,
    /// Every trace's events, trace after trace.
    pub events: Vec<Event>,
    /// The traces they are read from.
    traces: HeapTraces,
    /// The static baseline's bytes.
    pub static_bytes: u64,
    /// The values the baseline counts.
    pub counted: Vec<usize>,
}

impl Dump {
    /// Decodes a serialized `HloProto` with its buffer assignment.
    ///
    /// # Errors
    ///
    /// As [`peak_from_hlo_proto`].
    pub fn decode(bytes: &[u8]) -> Result<Self, AssignmentError> {
        let proto = HloProto::decode(bytes).map_err(AssignmentError::Decode)?;
        let module = proto.hlo_module.ok_or(AssignmentError::NoModule)?;
        let assignment_proto = proto
            .buffer_assignment
            .ok_or(AssignmentError::NoAssignment)?;
        let instructions = instructions(&module)?;
        let (assignment, ids) = assignment(&assignment_proto, &instructions)?;
        let known: HashSet<&str> = instructions.values().map(|&(name, _, _)| name).collect();
        let (traces, events) = HeapTraces::read(
            assignment_proto.heap_simulator_traces,
            assignment_proto.buffer_allocations.len(),
            &ids,
            &known,
        )?;
        drop(known);
        let ids: Vec<i64> = assignment_proto
            .logical_buffers
            .iter()
            .map(|b| b.id)
            .collect();
        check_trace_order(
            &events,
            &traces.lengths(events.len()),
            assignment.values.len(),
            |b| ids.get(b).copied().unwrap_or(-1),
        )?;
        let (static_bytes, counted) = static_baseline(&assignment)?;
        Ok(Self {
            ids,
            assignment,
            events,
            traces,
            static_bytes,
            counted,
        })
    }

    /// The instruction of event `e` (counted over all traces).
    pub fn instruction(&self, e: usize) -> String {
        self.traces.instruction(e)
    }

    /// A heap with the static baseline allocated, before the first event.
    pub fn heap(&self) -> Heap {
        let sizes = self.assignment.values.iter().map(|v| v.bytes).collect();
        Heap::new(sizes, self.static_bytes, &self.counted)
    }

    /// Applies event number `e` (counted over all traces): the buffer whose
    /// storage it allocates or frees, if any.
    ///
    /// # Errors
    ///
    /// The event's fault, naming it.
    pub fn apply(&self, heap: &mut Heap, e: usize) -> Result<Option<usize>, AssignmentError> {
        let Some(&event) = self.events.get(e) else {
            return Ok(None);
        };
        apply(heap, event, e, &self.ids)
    }
}

/// Reads a serialized `HloProto` with its buffer assignment and computes
/// the peak as XLA does, with the buffers live there.
///
/// ```
/// let error = hlo_util::peak_from_hlo_proto(&[]).unwrap_err();
/// assert_eq!(error, hlo_util::AssignmentError::NoModule);
/// ```
///
/// # Errors
///
/// [`AssignmentError`]: bytes that do not decode, a proto without its module
/// or buffer assignment, ids the module or the assignment lacks, negative
/// sizes, sums that overflow, a FREE of what is not allocated.
pub fn peak_from_hlo_proto(bytes: &[u8]) -> Result<PeakReport, AssignmentError> {
    peak_of_dump(&Dump::decode(bytes)?)
}

/// [`peak_from_hlo_proto`] of a dump already decoded.
pub(crate) fn peak_of_dump(dump: &Dump) -> Result<PeakReport, AssignmentError> {
    let static_bytes = dump.static_bytes;

    // First pass: the peak and the first event that reaches it.
    let mut heap = dump.heap();
    let mut peak = (static_bytes, None);
    for e in 0..dump.events.len() {
        dump.apply(&mut heap, e)?;
        if heap.memory() > peak.0 {
            peak = (heap.memory(), Some(e));
        }
    }
    // Second pass: the buffers live there.
    let mut heap = dump.heap();
    if let Some(at) = peak.1 {
        for e in 0..=at {
            dump.apply(&mut heap, e)?;
        }
    }
    let live: Vec<usize> = heap.live().collect();
    let (device, host) = allocation_totals(&dump.assignment)?;
    Ok(PeakReport {
        peak_bytes: peak.0,
        static_bytes,
        heap_peak_bytes: peak.0.saturating_sub(static_bytes),
        peak_at: peak.1.map(|e| PeakPoint {
            step: u64::try_from(e).unwrap_or(u64::MAX),
            unit: StepUnit::HeapEvent,
            instruction: dump.instruction(e),
        }),
        live_at_peak: live_buffers(&dump.assignment, &live),
        device,
        host,
    })
}

/// Applies event number `e` (counted over all traces) of `proto`.
fn apply(
    heap: &mut Heap,
    event: Event,
    e: usize,
    ids: &[i64],
) -> Result<Option<usize>, AssignmentError> {
    let result = match event {
        Event::Alloc(b) => heap.alloc(index(b)),
        Event::Free(b) => heap.free(index(b)),
        Event::ShareWith(b, canonical) => heap.share(index(b), index(canonical)),
    };
    result.map_err(|fault| {
        let field = format!("heap event {e}");
        let (Event::Alloc(b) | Event::Free(b) | Event::ShareWith(b, _)) = event;
        let id = ids.get(index(b)).copied().unwrap_or(-1);
        match fault {
            HeapFault::Overflow => AssignmentError::Overflow(field),
            HeapFault::FreeUnallocated => AssignmentError::FreeUnallocated { field, id },
            HeapFault::Cycle => AssignmentError::ShareCycle { field, id },
        }
    })
}

/// An instruction of the module: its name, shape and origin.
type Inst<'m> = (&'m str, Option<&'m Shape>, Origin);

/// Every instruction of the module by id: its name, shape and origin
/// (its metadata's op_name and frame, with the stack over the module's
/// `stack_frame_index`).
///
/// # Errors
///
/// [`AssignmentError::StackFrames`] for tables that name what they lack
/// or whose frames' callers go round in a circle.
fn instructions(module: &HloModuleProto) -> Result<HashMap<i64, Inst<'_>>, AssignmentError> {
    let mut tables = module
        .stack_frame_index
        .as_ref()
        .map(Tables::from_proto)
        .unwrap_or_default();
    let all: Vec<_> = module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .collect();
    let origins: Vec<InstOrigin> = all
        .iter()
        .map(|i| {
            i.metadata
                .as_ref()
                .map(|m| read_proto_metadata(m, &mut tables))
                .unwrap_or_default()
        })
        .collect();
    let table = tables.build().map_err(AssignmentError::StackFrames)?;
    Ok(all
        .iter()
        .zip(origins)
        .map(|(i, o)| {
            (
                i.id,
                (i.name.as_str(), i.shape.as_ref(), o.resolve(table.as_ref())),
            )
        })
        .collect())
}

/// The values (one per logical buffer, in proto order) and allocations;
/// with the map from logical buffer id to value index.
fn assignment(
    proto: &BufferAssignmentProto,
    instructions: &HashMap<i64, Inst<'_>>,
) -> Result<(Assignment, HashMap<i64, usize>), AssignmentError> {
    let (mut values, ids) = values(&proto.logical_buffers, instructions)?;
    let mut allocations = Vec::with_capacity(proto.buffer_allocations.len());
    for (a, allocation) in proto.buffer_allocations.iter().enumerate() {
        allocations.push(allocation_of(a, allocation, &ids, &mut values)?);
    }
    Ok((
        Assignment {
            allocations,
            values,
        },
        ids,
    ))
}

/// The value of each logical buffer, in proto order, not yet in an
/// allocation; with the map from logical buffer id to value index.
fn values(
    logical_buffers: &[LogicalBufferProto],
    instructions: &HashMap<i64, Inst<'_>>,
) -> Result<(Vec<Value>, HashMap<i64, usize>), AssignmentError> {
    let mut ids = HashMap::with_capacity(logical_buffers.len());
    let mut values = Vec::with_capacity(logical_buffers.len());
    for (b, buffer) in logical_buffers.iter().enumerate() {
        let field = |name: &str| format!("logical_buffers[{b}].{name}");
        if ids.insert(buffer.id, b).is_some() {
            return Err(AssignmentError::DuplicateBuffer(buffer.id));
        }
        let location = buffer.defined_at.clone().unwrap_or_default();
        let (name, shape, origin) =
            instructions.get(&location.instruction_id).ok_or_else(|| {
                AssignmentError::UnknownInstruction {
                    field: field("defined_at.instruction_id"),
                    instruction: location.instruction_id.to_string(),
                }
            })?;
        let shape = shape
            .and_then(|s| subshape(s, &location.shape_index))
            .map(ToString::to_string)
            .ok_or_else(|| AssignmentError::UnknownInstruction {
                field: field("defined_at.shape_index"),
                instruction: format!("{name} at shape index {:?}", location.shape_index),
            })?;
        values.push(Value {
            instruction: (*name).to_owned(),
            shape_index: location.shape_index,
            shape,
            bytes: size(buffer.size, &field("size"))?,
            offset: 0,
            allocation: None,
            origin: origin.clone(),
        });
    }
    Ok((values, ids))
}

/// A contradiction in the field `field`.
fn contradiction<T>(field: String, message: String) -> Result<T, AssignmentError> {
    Err(AssignmentError::Contradiction { field, message })
}

/// Allocation number `a`, its values (by logical buffer id, `ids`) given
/// their place in it.
fn allocation_of(
    a: usize,
    allocation: &BufferAllocationProto,
    ids: &HashMap<i64, usize>,
    values: &mut [Value],
) -> Result<Allocation, AssignmentError> {
    if usize::try_from(allocation.index).ok() != Some(a) {
        return contradiction(
            format!("buffer_allocations[{a}].index"),
            format!(
                "{} where {a} comes (each allocation once, in order)",
                allocation.index
            ),
        );
    }
    let allocation_size = size(allocation.size, &format!("buffer_allocations[{a}].size"))?;
    let mut assigned = Vec::with_capacity(allocation.assigned.len());
    for (k, entry) in allocation.assigned.iter().enumerate() {
        let field = format!("buffer_allocations[{a}].assigned[{k}]");
        assigned.push(place_value(
            (a, allocation_size),
            entry,
            field,
            ids,
            values,
        )?);
    }
    Ok(Allocation {
        size: allocation_size,
        color: allocation.color,
        parameter: allocation.is_entry_computation_parameter,
        aliased_parameter: allocation.is_entry_computation_parameter
            && allocation.is_parameter_aliased_with_output,
        constant: allocation.is_constant,
        live_out: allocation.maybe_live_out,
        thread_local: allocation.is_thread_local,
        values: assigned,
    })
}

/// Places the value that `entry` (the field `field`) assigns to allocation
/// `a` of `allocation_size` bytes, checked to fit and to be in no other
/// allocation; its index.
fn place_value(
    (a, allocation_size): (usize, u64),
    entry: &Assigned,
    field: String,
    ids: &HashMap<i64, usize>,
    values: &mut [Value],
) -> Result<usize, AssignmentError> {
    let &v = ids
        .get(&entry.logical_buffer_id)
        .ok_or_else(|| AssignmentError::UnknownBuffer {
            field: format!("{field}.logical_buffer_id"),
            id: entry.logical_buffer_id,
        })?;
    let offset = size(entry.offset, &format!("{field}.offset"))?;
    let bytes = size(entry.size, &format!("{field}.size"))?;
    if !inside(offset, bytes, allocation_size) {
        return contradiction(
            field,
            format!(
                "offset {offset} and size {bytes} pass the end of the allocation ({allocation_size} bytes)"
            ),
        );
    }
    if let Some(value) = values.get_mut(v) {
        if let Some(first) = value.allocation {
            return contradiction(
                format!("{field}.logical_buffer_id"),
                format!(
                    "logical buffer {} is assigned to allocation {first} already",
                    entry.logical_buffer_id
                ),
            );
        }
        value.allocation = Some(a);
        value.offset = offset;
    }
    Ok(v)
}

/// The shape at `index` of `shape`, walked without recursion.
fn subshape<'s>(shape: &'s Shape, index: &[i64]) -> Option<&'s Shape> {
    let mut at = shape;
    for &i in index {
        at = at.tuple_shapes.get(usize::try_from(i).ok()?)?;
    }
    Some(at)
}

/// A size field as bytes; negative sizes are refused.
fn size(bytes: i64, field: &str) -> Result<u64, AssignmentError> {
    u64::try_from(bytes).map_err(|_| AssignmentError::NegativeSize {
        field: field.to_owned(),
        size: bytes,
    })
}
