//! The heap traces of a dump, read from their bytes one event at a time:
//! each event resolved to the values it names and checked against the
//! module, none kept but as an [`Event`]; an event's instruction is read
//! again from its trace when it is asked for.

use std::collections::{HashMap, HashSet};

use prost::Message;

use super::AssignmentError;
use super::heap::Event;
use crate::proto::HeapSimulatorTrace;
use crate::proto::heap_simulator_trace::Event as EventProto;
use crate::wire::split_field;

/// `HeapSimulatorTrace.events`.
const EVENTS: u32 = 1;

/// Every trace's events, trace after trace, as their bytes.
pub(super) struct HeapTraces {
    /// Each trace's bytes.
    traces: Vec<Vec<u8>>,
    /// The number of the first event of each trace, counted over all.
    starts: Vec<usize>,
}

impl HeapTraces {
    /// Reads the events of `traces` (their bytes, in order): each trace's
    /// allocation one of `allocations`, each event's buffers among `ids`
    /// (logical buffer id to value index) and its instruction among
    /// `known`.
    ///
    /// # Errors
    ///
    /// Bytes that do not decode, an allocation, buffer, instruction or
    /// event kind the dump lacks, naming the field.
    pub fn read(
        traces: Vec<Vec<u8>>,
        allocations: usize,
        ids: &HashMap<i64, usize>,
        known: &HashSet<&str>,
    ) -> Result<(Self, Vec<Event>), AssignmentError> {
        let mut events = Vec::new();
        let mut starts = Vec::with_capacity(traces.len());
        for (t, bytes) in traces.iter().enumerate() {
            starts.push(events.len());
            let (ranges, rest) = split(bytes)?;
            let index = HeapSimulatorTrace::decode(rest.as_slice())
                .map_err(AssignmentError::Decode)?
                .buffer_allocation_index;
            if usize::try_from(index).map_or(true, |a| a >= allocations) {
                return Err(AssignmentError::Contradiction {
                    field: format!("heap_simulator_traces[{t}].buffer_allocation_index"),
                    message: format!("{index}, but the assignment has {allocations} allocations"),
                });
            }
            // At least two bytes of the trace an event: the events take at
            // most six times the trace.
            events.reserve(ranges.len());
            for (e, range) in ranges.into_iter().enumerate() {
                let event = EventProto::decode(bytes.get(range).unwrap_or_default())
                    .map_err(AssignmentError::Decode)?;
                events.push(resolve(&event, ids, known, |name| {
                    format!("heap_simulator_traces[{t}].events[{e}].{name}")
                })?);
            }
        }
        Ok((Self { traces, starts }, events))
    }

    /// The number of events of each trace, in order.
    pub fn lengths(&self, total: usize) -> Vec<usize> {
        let ends = self.starts.iter().skip(1).copied().chain([total]);
        self.starts
            .iter()
            .zip(ends)
            .map(|(&start, end)| end.saturating_sub(start))
            .collect()
    }

    /// The instruction of event `e` (counted over all traces); empty where
    /// it names none.
    pub fn instruction(&self, e: usize) -> String {
        let t = self.starts.partition_point(|&s| s <= e).saturating_sub(1);
        let (Some(bytes), Some(&start)) = (self.traces.get(t), self.starts.get(t)) else {
            return String::new();
        };
        split(bytes)
            .ok()
            .and_then(|(ranges, _)| ranges.into_iter().nth(e.saturating_sub(start)))
            .and_then(|range| EventProto::decode(bytes.get(range)?).ok())
            .map(|event| event.instruction_name)
            .unwrap_or_default()
    }
}

/// A trace's events' byte ranges and its other fields; prost's error for
/// bytes that are not a trace.
fn split(bytes: &[u8]) -> Result<(Vec<std::ops::Range<usize>>, Vec<u8>), AssignmentError> {
    split_field(bytes, EVENTS).map_err(|wire| match HeapSimulatorTrace::decode(bytes) {
        Err(error) => AssignmentError::Decode(error),
        Ok(_) => AssignmentError::Contradiction {
            field: "heap_simulator_traces".to_owned(),
            message: format!("at byte {}: {}", wire.offset, wire.message),
        },
    })
}

/// An event with its buffers resolved to value indices; `field` names its
/// fields for an error.
fn resolve(
    event: &EventProto,
    ids: &HashMap<i64, usize>,
    known: &HashSet<&str>,
    field: impl Fn(&str) -> String,
) -> Result<Event, AssignmentError> {
    let buffer = |id: i64, name: &str| {
        let v = ids
            .get(&id)
            .copied()
            .ok_or_else(|| AssignmentError::UnknownBuffer {
                field: field(name),
                id,
            })?;
        u32::try_from(v).map_err(|_| AssignmentError::Contradiction {
            field: field(name),
            message: format!("logical buffer {id} is value {v}, past the 2^32 a dump numbers"),
        })
    };
    if !event.instruction_name.is_empty() && !known.contains(event.instruction_name.as_str()) {
        return Err(AssignmentError::UnknownInstruction {
            field: field("instruction_name"),
            instruction: event.instruction_name.clone(),
        });
    }
    let b = buffer(event.buffer_id, "buffer_id")?;
    Ok(match event.kind {
        0 => Event::Alloc(b),
        1 => Event::Free(b),
        2 => Event::ShareWith(
            b,
            buffer(event.share_with_canonical_id, "share_with_canonical_id")?,
        ),
        kind => {
            return Err(AssignmentError::UnknownEventKind {
                field: field("kind"),
                kind,
            });
        }
    })
}
