//! The module's buffers (`HloBuffer`s) with what buffer assignment decides
//! from: bytes, memory space, kind of values, whether the program's result
//! holds them, and their live range on the flattened schedule
//! (`HloLiveRange`): from the first step a value of theirs is defined (an
//! entry parameter from step 0) to the last step a position of theirs is
//! written or read (the end of the program for parameters and results).

use super::LivenessError;
use super::dataflow::Dataflow;
use super::graph::Graph;
use super::schedule::Schedule;
use super::shapes::{is_tuple, subshapes};
use crate::BufferSizes;

/// One buffer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buffer {
    /// Its values: positions that define one, in module order.
    pub values: Vec<usize>,
    /// Bytes of its largest value.
    pub bytes: u64,
    pub color: i64,
    pub tuple: bool,
    pub constant: bool,
    pub parameter: bool,
    pub live_out: bool,
    pub start: u64,
    pub end: u64,
}

/// One value: a position that defines one.
#[derive(Debug, Clone)]
pub(crate) struct Value {
    pub inst: usize,
    pub index: Vec<usize>,
    pub bytes: u64,
    pub buffer: usize,
    /// The step it is defined at (0 for an entry parameter).
    pub step: u64,
}

/// The buffers, the values, and the buffer of each position.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buffers {
    pub list: Vec<Buffer>,
    pub values: Vec<Value>,
    /// The buffer of each position.
    pub of_position: Vec<usize>,
}

/// Groups the positions into buffers and computes their live ranges.
pub(crate) fn buffers(
    graph: &Graph,
    flow: &Dataflow,
    schedule: &Schedule,
) -> Result<Buffers, LivenessError> {
    let positions = flow.inst.len();
    let mut out = Buffers {
        of_position: vec![usize::MAX; positions],
        ..Buffers::default()
    };
    let mut of_root = vec![usize::MAX; positions];
    for p in 0..positions {
        let root = flow.buffer(p);
        let slot = of_root.get_mut(root).ok_or_else(overflow)?;
        if *slot == usize::MAX {
            *slot = out.list.len();
            out.list.push(Buffer {
                start: u64::MAX,
                ..Buffer::default()
            });
        }
        let b = *slot;
        if let Some(s) = out.of_position.get_mut(p) {
            *s = b;
        }
    }
    let end = schedule.end();
    for (i, inst) in graph.insts.iter().enumerate() {
        let range = flow.positions(graph, i);
        if range.is_empty() {
            continue;
        }
        let step = schedule.step.get(i).copied().unwrap_or(u64::MAX);
        let entry_parameter = inst.opcode == "parameter" && inst.computation == graph.entry;
        let subs = subshapes(&inst.shape);
        for (p, (index, shape)) in range.zip(subs) {
            let b = out.of_position.get(p).copied().ok_or_else(overflow)?;
            let buffer = out.list.get_mut(b).ok_or_else(overflow)?;
            if step != u64::MAX {
                buffer.end = buffer.end.max(step);
            }
            if flow.defines.get(p) != Some(&true) {
                continue;
            }
            let sizes = BufferSizes::of(shape).map_err(|e| LivenessError::Malformed {
                instruction: inst.name.clone(),
                message: e.to_string(),
            })?;
            let bytes = u64::try_from(sizes.allocated_bytes).map_err(|_| overflow())?;
            buffer.bytes = buffer.bytes.max(bytes);
            if buffer.values.is_empty() {
                buffer.color = sizes.memory_space;
            }
            buffer.tuple |= is_tuple(shape);
            buffer.constant |= inst.opcode == "constant";
            buffer.parameter |= entry_parameter;
            let start = if entry_parameter { 0 } else { step };
            buffer.start = buffer.start.min(start);
            if entry_parameter {
                buffer.end = end;
            }
            buffer.values.push(out.values.len());
            out.values.push(Value {
                inst: i,
                index,
                bytes,
                buffer: b,
                step: start,
            });
        }
        if matches!(inst.opcode.as_str(), "get-tuple-element" | "tuple") || step == u64::MAX {
            continue;
        }
        for &o in &inst.operands {
            for p in flow.positions(graph, o) {
                if let Some(buffer) = out.of_position.get(p).and_then(|&b| out.list.get_mut(b)) {
                    buffer.end = buffer.end.max(step);
                }
            }
        }
    }
    if let Some(root) = graph.comps.get(graph.entry).and_then(|c| c.root) {
        for p in flow.positions(graph, root) {
            if let Some(buffer) = out.of_position.get(p).and_then(|&b| out.list.get_mut(b)) {
                buffer.live_out = true;
                buffer.end = end;
            }
        }
    }
    for buffer in &mut out.list {
        if buffer.start == u64::MAX {
            buffer.start = buffer.end;
        }
        buffer.end = buffer.end.max(buffer.start);
    }
    Ok(out)
}

fn overflow() -> LivenessError {
    LivenessError::Overflow("the positions".to_owned())
}
