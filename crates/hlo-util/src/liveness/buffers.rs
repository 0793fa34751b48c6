//! The module's values and buffers (`HloValue`s, `HloBuffer`s) with what
//! buffer assignment decides from: bytes, memory space, kind of values,
//! whether the program's result holds them, and each value's live range on
//! the flattened schedule (`HloLiveRange`): from the step it is defined at
//! (an entry parameter from step 0) to the last step a position of it is
//! written or read (the end of the program for parameters and results; a
//! while reads its operand when its condition starts, its body's result
//! lives until the while, its condition's parameter until the body starts).

use super::LivenessError;
use super::dataflow::Dataflow;
use super::graph::{Graph, Inst};
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

/// One value (`HloValue`): the positions that hold it and the one that
/// defines it.
#[derive(Debug, Clone)]
pub(crate) struct Value {
    pub inst: usize,
    pub index: Vec<usize>,
    pub bytes: u64,
    pub buffer: usize,
    /// The step it is defined at (0 for an entry parameter).
    pub start: u64,
    /// The last step it is live at.
    pub end: u64,
    /// The last step it is read at, or `end` when it lives out: an entry
    /// parameter lives to the end of the program in the heap's view, but
    /// buffer assignment's interference test ends it at its last use.
    pub used_until: u64,
}

/// The buffers, the values, and the buffer and value of each position.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buffers {
    pub list: Vec<Buffer>,
    pub values: Vec<Value>,
    /// The buffer of each position.
    pub of_position: Vec<usize>,
    /// The value of each position.
    pub value_of_position: Vec<usize>,
}

/// Groups the positions into values and buffers and computes their live
/// ranges.
pub(crate) fn buffers(
    graph: &Graph,
    flow: &Dataflow,
    schedule: &Schedule,
) -> Result<Buffers, LivenessError> {
    let positions = flow.inst.len();
    let mut out = Buffers {
        of_position: vec![usize::MAX; positions],
        value_of_position: vec![usize::MAX; positions],
        ..Buffers::default()
    };
    let value_of_root = define_values(graph, flow, schedule, &mut out)?;
    out.map_positions(flow, &value_of_root);
    drop(value_of_root);
    for (i, inst) in graph.insts.iter().enumerate() {
        out.extend_to_uses(graph, flow, schedule, i, inst);
    }
    out.mark_live_out(graph, flow, schedule.end());
    out.close_ranges();
    // Grown a push at a time: the spare capacity (up to as much again)
    // goes back before the analyses that follow.
    out.list.shrink_to_fit();
    out.values.shrink_to_fit();
    Ok(out)
}

/// The step of instruction `i`, `u64::MAX` when it has none.
fn step_of(schedule: &Schedule, i: usize) -> u64 {
    schedule.step.get(i).copied().unwrap_or(u64::MAX)
}

/// The first parameter of the `k`th computation `inst` calls.
fn first_parameter(graph: &Graph, inst: &Inst, k: usize) -> Option<usize> {
    graph
        .called(inst)
        .get(k)
        .and_then(|&c| graph.comps.get(c))
        .and_then(|c| c.parameters.first().copied())
}

/// Makes the values and buffers of the positions that define one, in
/// module order of their definitions; the value of each value's root
/// position.
fn define_values(
    graph: &Graph,
    flow: &Dataflow,
    schedule: &Schedule,
    out: &mut Buffers,
) -> Result<Vec<usize>, LivenessError> {
    let positions = flow.inst.len();
    let end = schedule.end();
    let mut value_of_root = vec![usize::MAX; positions];
    let mut buffer_of_root = vec![usize::MAX; positions];
    for (i, inst) in graph.insts.iter().enumerate() {
        let range = flow.positions(graph, i);
        if range.is_empty() {
            continue;
        }
        let entry_parameter =
            graph.opcode(inst) == "parameter" && inst.computation() == graph.entry;
        for (p, (index, shape)) in range.zip(subshapes(graph.shape(inst))) {
            if flow.defines.get(p) != Some(&true) {
                continue;
            }
            let sizes = BufferSizes::of(shape).map_err(|e| LivenessError::Malformed {
                instruction: graph.name(inst).to_owned(),
                message: e.to_string(),
            })?;
            let bytes = u64::try_from(sizes.allocated_bytes).map_err(|_| overflow())?;
            let slot = buffer_of_root
                .get_mut(flow.buffer(p))
                .ok_or_else(overflow)?;
            if *slot == usize::MAX {
                *slot = out.list.len();
                out.list.push(Buffer {
                    color: sizes.memory_space,
                    start: u64::MAX,
                    ..Buffer::default()
                });
            }
            let b = *slot;
            let buffer = out.list.get_mut(b).ok_or_else(overflow)?;
            buffer.bytes = buffer.bytes.max(bytes);
            buffer.tuple |= is_tuple(shape);
            buffer.constant |= graph.opcode(inst) == "constant";
            buffer.parameter |= entry_parameter;
            buffer.values.push(out.values.len());
            let start = if entry_parameter {
                0
            } else {
                step_of(schedule, i)
            };
            if let Some(v) = value_of_root.get_mut(flow.value(p)) {
                *v = out.values.len();
            }
            out.values.push(Value {
                inst: i,
                index,
                bytes,
                buffer: b,
                start,
                end: if entry_parameter { end } else { start },
                used_until: start,
            });
        }
    }
    Ok(value_of_root)
}

impl Buffers {
    /// Gives each position its value and buffer.
    fn map_positions(&mut self, flow: &Dataflow, value_of_root: &[usize]) {
        for p in 0..flow.inst.len() {
            let v = value_of_root
                .get(flow.value(p))
                .copied()
                .unwrap_or(usize::MAX);
            if let Some(slot) = self.value_of_position.get_mut(p) {
                *slot = v;
            }
            if let Some(slot) = self.of_position.get_mut(p) {
                *slot = self.values.get(v).map_or(usize::MAX, |value| value.buffer);
            }
        }
    }

    /// Extends the values instruction `i` defines and those it reads to
    /// its step, and the callees' values that live until it.
    fn extend_to_uses(
        &mut self,
        graph: &Graph,
        flow: &Dataflow,
        schedule: &Schedule,
        i: usize,
        inst: &Inst,
    ) {
        let t = step_of(schedule, i);
        if t == u64::MAX {
            return;
        }
        self.extend(flow.positions(graph, i), t);
        match graph.opcode(inst) {
            "get-tuple-element" | "tuple" => return,
            "while" => {
                // The body's result lives until the while; the condition's
                // parameter until the body starts.
                let body = graph.called(inst).get(1).and_then(|&c| graph.comps.get(c));
                if let Some(root) = body.and_then(|c| c.root) {
                    self.extend(flow.positions(graph, root), t);
                }
                if let (Some(c), Some(b)) = (
                    first_parameter(graph, inst, 0),
                    first_parameter(graph, inst, 1),
                ) {
                    self.extend(flow.positions(graph, c), step_of(schedule, b));
                }
            }
            "conditional" => {
                for &c in graph.called(inst) {
                    if let Some(root) = graph.comps.get(c).and_then(|c| c.root) {
                        self.extend(flow.positions(graph, root), t);
                    }
                }
            }
            _ => {}
        }
        let (used_at, read) = operand_reads(graph, flow, schedule, inst, t);
        for &o in graph.operands(inst).iter().take(read) {
            self.extend(flow.positions(graph, o), used_at);
        }
    }

    /// Extends the values of the entry's result to `end` and marks their
    /// buffers live out.
    fn mark_live_out(&mut self, graph: &Graph, flow: &Dataflow, end: u64) {
        let Some(root) = graph.comps.get(graph.entry).and_then(|c| c.root) else {
            return;
        };
        for p in flow.positions(graph, root) {
            let v = self.value_of_position.get(p).copied().unwrap_or(usize::MAX);
            if let Some(value) = self.values.get_mut(v) {
                value.end = end;
                value.used_until = end;
                let b = value.buffer;
                if let Some(buffer) = self.list.get_mut(b) {
                    buffer.live_out = true;
                }
            }
        }
    }

    /// Ends no value before it starts, and gives each buffer the span of
    /// its values.
    fn close_ranges(&mut self) {
        for value in &mut self.values {
            value.end = value.end.max(value.start);
            value.used_until = value.used_until.max(value.start);
            if let Some(buffer) = self.list.get_mut(value.buffer) {
                buffer.start = buffer.start.min(value.start);
                buffer.end = buffer.end.max(value.end);
            }
        }
    }

    /// Extends the values at `positions` to step `t`.
    fn extend(&mut self, positions: std::ops::Range<usize>, t: u64) {
        if t == u64::MAX {
            return;
        }
        for p in positions {
            let v = self.value_of_position.get(p).copied().unwrap_or(usize::MAX);
            if let Some(value) = self.values.get_mut(v) {
                value.end = value.end.max(t);
                value.used_until = value.used_until.max(t);
            }
        }
    }
}

fn overflow() -> LivenessError {
    LivenessError::Overflow("the positions".to_owned())
}

/// The step at which `inst`, at step `t`, reads its operands, and how many
/// of the first it reads there. A while reads its operand when its
/// condition starts; a call's operands and a conditional's branch operands
/// are its computations' parameters, read there (those of a computation
/// called twice are values of their own: the call reads its operands).
fn operand_reads(
    graph: &Graph,
    flow: &Dataflow,
    schedule: &Schedule,
    inst: &Inst,
    t: u64,
) -> (u64, usize) {
    match (graph.opcode(inst), first_parameter(graph, inst, 0)) {
        ("while", Some(p)) => (step_of(schedule, p), graph.operands(inst).len()),
        ("call", _)
            if !graph
                .called(inst)
                .first()
                .is_some_and(|&c| flow.shared_callee(c)) =>
        {
            (t, 0)
        }
        ("conditional", _) => (t, 1),
        _ => (t, graph.operands(inst).len()),
    }
}
