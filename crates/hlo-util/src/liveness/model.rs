//! From module text to [`ModuleMemory`]: the analyses in order, and their
//! result put in the data model of XLA's own dumps, so that the static
//! baseline, the totals and the live buffers are computed as they are from
//! a dumped assignment.

use super::LivenessError;
use super::assign::{Assigned, Place, assign};
use super::buffers::{Buffers, buffers};
use super::combine::combine_temps;
use super::dataflow::{Dataflow, Role, dataflow, sub_shape};
use super::graph::{Graph, read_graph};
use super::name_ties::NameTies;
use super::replay::{HeapPeak, heap_peak};
use super::report::{ModuleBuffer, ModuleMemory};
use super::schedule::{Schedule, flatten};
use super::value_order::ValueOrder;
use crate::assignment::baseline::static_baseline;
use crate::assignment::bytes::add_bytes;
use crate::assignment::model::{Allocation, Assignment, Value};
use crate::assignment::summary::{allocation_totals, live_buffers, sort_largest_first};
use crate::origins::metadata::Origin;
use crate::{BufferSizes, LiveBuffer, PeakPoint, PeakReport, StepUnit};

/// Computes the peak memory of a module and its buffers from its text
/// (`compiled.as_text()`), as XLA's buffer assignment would.
///
/// ```
/// let text = "HloModule m, is_scheduled=true, entry_computation_layout={(f32[256]{0})->f32[256]{0}}
///
/// ENTRY %main (p: f32[256]) -> f32[256] {
///   %p = f32[256]{0} parameter(0)
///   %e = f32[256]{0} exponential(%p)
///   %n = f32[256]{0} negate(%e)
///   ROOT %s = f32[256]{0} add(%n, %e)
/// }
/// ";
/// let memory = hlo_util::memory_from_module_text(text).unwrap();
/// // The parameter and the output; `e` takes the output's allocation (the
/// // add may write over it as it reads it), `n` is a temporary of the heap.
/// assert_eq!(memory.peak.static_bytes, 2048);
/// assert_eq!(memory.peak.peak_bytes, 2048 + 1024);
/// assert_eq!(memory.peak.peak_at.unwrap().instruction, "n");
/// assert!(!memory.peak_is_estimate);
/// ```
///
/// # Errors
///
/// [`LivenessError`]: text that does not read, names that resolve to
/// nothing, attributes that do not fit, sizes that overflow.
pub fn memory_from_module_text(text: &str) -> Result<ModuleMemory, LivenessError> {
    memory_from_module_reader(text.as_bytes())
}

/// [`memory_from_module_text`] of text read from `input` a line at a time:
/// the text is not kept, only the module's graph (a file need not be read
/// into memory first).
///
/// ```
/// let text = "HloModule m, is_scheduled=true\n\nENTRY %e (p: f32[4]) -> f32[4] {\n  ROOT %p = f32[4]{0} parameter(0)\n}\n";
/// let memory = hlo_util::memory_from_module_reader(std::io::Cursor::new(text)).unwrap();
/// assert_eq!(memory.peak.peak_bytes, 16);
/// ```
///
/// # Errors
///
/// As [`memory_from_module_text`]; a line that is not UTF-8 or cannot be
/// read is the text reader's error, at its line.
pub fn memory_from_module_reader(
    input: impl std::io::BufRead,
) -> Result<ModuleMemory, LivenessError> {
    let mut graph = read_graph(input)?;
    graph.insts.shrink_to_fit();
    let flow = dataflow(&graph)?;
    let schedule = flatten(&graph)?;
    let buffers = buffers(&graph, &flow, &schedule)?;
    let assigned = assign(&graph, &flow, &buffers);
    // The alignment of the heap's offsets on the backend that compiled the
    // module: 256 bytes on GPU (XLA's `kXlaAllocatedBufferAlignBytes`),
    // told by the GPU pipeline's marks in the text (the latency-hiding
    // scheduler's `fingerprint_before_lhs`, the stream assignment's
    // `operation_queue_id`), else 64 bytes (the CPU backend's `Align()`).
    let alignment = if graph.gpu_configs { 256 } else { 64 };
    let heap = heap_peak(
        &graph,
        &flow,
        &buffers,
        &assigned.place,
        &schedule,
        alignment,
    )?;
    let (mut model, of_buffer, name_warnings) =
        to_model(&graph, &flow, &buffers, &assigned, (&heap.sizes, alignment))
            .ok_or_else(|| overflow("the temporary allocations"))?;
    let peak = peak_report(&graph, &schedule, &model, &heap, &of_buffer)?;
    let steps_of = value_steps(&buffers, &of_buffer, model.values.len());
    // The analyses are done with: only the model and what is listed of it
    // stay for the report.
    let mut warnings = std::mem::take(&mut graph.warnings);
    warnings.extend(heap.warnings);
    warnings.extend(name_warnings);
    let (scheduled, steps) = (graph.scheduled, schedule.end());
    drop((graph, flow, schedule, buffers, assigned));
    let buffers = list_buffers(&mut model, &of_buffer, &steps_of, &heap.shares);
    Ok(ModuleMemory {
        peak,
        peak_is_estimate: !scheduled,
        steps,
        buffers,
        warnings,
    })
}

/// The error of a size of `what` that overflows.
fn overflow(what: &str) -> LivenessError {
    LivenessError::Overflow(what.to_owned())
}

/// The peak of `model` and of the `heap` replayed on `schedule`: the
/// static baseline plus the heap's highest point, and the buffers live
/// there (the model value of each buffer in `of_buffer`).
fn peak_report(
    graph: &Graph,
    schedule: &Schedule,
    model: &Assignment,
    heap: &HeapPeak,
    of_buffer: &[Option<usize>],
) -> Result<PeakReport, LivenessError> {
    let (static_bytes, mut live) =
        static_baseline(model).map_err(|_| overflow("the static baseline"))?;
    live.extend(
        heap.live
            .iter()
            .filter_map(|&b| of_buffer.get(b).copied().flatten()),
    );
    let (device, host) = allocation_totals(model).map_err(|_| overflow("the totals"))?;
    Ok(PeakReport {
        peak_bytes: add_bytes(static_bytes, heap.bytes)
            .ok_or_else(|| overflow(&format!("the peak ({static_bytes} + {})", heap.bytes)))?,
        static_bytes,
        heap_peak_bytes: heap.bytes,
        peak_at: heap.step.map(|step| PeakPoint {
            step,
            unit: StepUnit::ScheduleStep,
            instruction: usize::try_from(step)
                .ok()
                .and_then(|s| schedule.sequence.get(s))
                .and_then(|&i| graph.insts.get(i))
                .map_or_else(String::new, |i| graph.name(i).to_owned()),
        }),
        live_at_peak: live_buffers(model, &live),
        device,
        host,
    })
}

/// The live range of each of the `values` model values: that of the
/// buffer it names (`of_buffer`), none for a thread-local one.
fn value_steps(
    buffers: &Buffers,
    of_buffer: &[Option<usize>],
    values: usize,
) -> Vec<Option<(u64, u64)>> {
    let mut steps_of = vec![None; values];
    for (b, v) in of_buffer.iter().enumerate() {
        if let (Some(v), Some(buffer)) = (v, buffers.list.get(b))
            && let Some(slot) = steps_of.get_mut(*v)
        {
            *slot = Some((buffer.start, buffer.end));
        }
    }
    steps_of
}

/// Every value of `model` listed as the report lists buffers, the
/// thread-local ones last; each with its live range (`steps_of`) and the
/// value whose storage it takes over (`shares`, by buffer), found by
/// index. Each value's names are moved, not copied, into its buffer.
fn list_buffers(
    model: &mut Assignment,
    of_buffer: &[Option<usize>],
    steps_of: &[Option<(u64, u64)>],
    shares: &[(usize, usize)],
) -> Vec<ModuleBuffer> {
    let mut order: Vec<usize> = (0..model.values.len()).collect();
    sort_largest_first(model, &mut order);
    order.sort_by_key(|&v| model.kind_of(v) == crate::BufferKind::ThreadLocal);
    let storage_of = storage_taken(&order, of_buffer, shares);
    let mut kinds: Vec<_> = order.iter().map(|&v| model.kind_of(v)).collect();
    let mut listed = Vec::with_capacity(order.len());
    for ((&v, storage_of), kind) in order.iter().zip(storage_of).zip(kinds.drain(..)) {
        let range = steps_of.get(v).copied().flatten();
        let Some(value) = model.values.get_mut(v) else {
            continue;
        };
        listed.push(ModuleBuffer {
            first_step: range.map(|r| r.0),
            last_step: range.map(|r| r.1),
            storage_of,
            buffer: take_buffer(value, kind),
        });
    }
    listed
}

/// For each value listed in `order`, the place in it of the value whose
/// storage it takes over, from the `shares` of buffers (the model value of
/// each in `of_buffer`).
fn storage_taken(
    order: &[usize],
    of_buffer: &[Option<usize>],
    shares: &[(usize, usize)],
) -> Vec<Option<usize>> {
    let mut position = vec![usize::MAX; order.len()];
    for (p, &v) in order.iter().enumerate() {
        if let Some(slot) = position.get_mut(v) {
            *slot = p;
        }
    }
    let position_of = |b: usize| {
        let v = of_buffer.get(b).copied().flatten()?;
        position.get(v).copied().filter(|&p| p != usize::MAX)
    };
    let mut storage_of = vec![None; order.len()];
    for &(taker, operand) in shares {
        if let (Some(t), Some(o)) = (position_of(taker), position_of(operand))
            && let Some(slot) = storage_of.get_mut(t)
        {
            *slot = Some(o);
        }
    }
    storage_of
}

/// The buffer of `value`, of `kind`, its names moved out of it.
fn take_buffer(value: &mut Value, kind: crate::BufferKind) -> LiveBuffer {
    LiveBuffer {
        name: std::mem::take(&mut value.instruction),
        shape_index: std::mem::take(&mut value.shape_index),
        shape: std::mem::take(&mut value.shape),
        bytes: value.bytes,
        kind,
        op_name: value.origin.op_name.take(),
        stack: std::mem::take(&mut value.origin.stack),
    }
}

/// The analyses' result as an assignment: one value per buffer (its
/// largest), the first pass's allocations, one temporary allocation for
/// each memory space's heap (its size `heap_sizes`), one thread-local
/// allocation per value of an applied computation; then each memory
/// space's temporary allocations combined into one, at offsets aligned to
/// `alignment`. Returns the model value of each buffer and the warnings of
/// the buffers whose name the text leaves open; `None` when a size
/// overflows.
fn to_model(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    assigned: &Assigned,
    (heap_sizes, alignment): (&[(i64, u64)], u64),
) -> Option<(Assignment, Vec<Option<usize>>, Vec<String>)> {
    let mut model = Assignment::default();
    let mut heaps: Vec<Allocation> = heap_sizes
        .iter()
        .map(|&(color, size)| Allocation {
            size,
            color,
            ..Allocation::default()
        })
        .collect();
    let mut allocations: Vec<Allocation> = assigned
        .allocations
        .iter()
        .map(|a| Allocation {
            size: a.size,
            color: a.color,
            parameter: a.parameter,
            aliased_parameter: a.aliased,
            constant: a.constant,
            live_out: a.live_out,
            thread_local: false,
            values: Vec::new(),
        })
        .collect();
    let (of_buffer, warnings) = name_buffers(
        graph,
        buffers,
        &assigned.place,
        &mut model,
        (&mut allocations, &mut heaps),
    );
    for heap in heaps {
        let heap_index = allocations.len();
        for &v in &heap.values {
            if let Some(value) = model.values.get_mut(v) {
                value.allocation = Some(heap_index);
            }
        }
        allocations.push(heap);
    }
    add_thread_local(graph, flow, &mut model, &mut allocations);
    model.allocations = allocations;
    // In the order XLA creates them: the first pass's, the heaps', then
    // the thread-local ones.
    let order: Vec<usize> = (0..model.allocations.len()).collect();
    combine_temps(&mut model, &order, alignment)?;
    Some((model, of_buffer, warnings))
}

/// A model value for each buffer placed (`place`), named by the value XLA
/// names it by, added to its allocation of `allocations` (the first
/// pass's, their values then put in XLA's order: the static baseline
/// counts the first of the largest) or to its memory space's of `heaps`.
/// Returns the model value of each buffer and the warnings of the buffers
/// whose name the text leaves open.
fn name_buffers(
    graph: &Graph,
    buffers: &Buffers,
    place: &[Place],
    model: &mut Assignment,
    (allocations, heaps): (&mut [Allocation], &mut [Allocation]),
) -> (Vec<Option<usize>>, Vec<String>) {
    let order = ValueOrder::new(graph);
    let mut ties = NameTies::new(graph);
    let mut of_buffer = vec![None; buffers.list.len()];
    // The order key of each model value.
    let mut keys = Vec::with_capacity(buffers.list.len());
    model.values.reserve_exact(buffers.list.len());
    for (b, buffer) in buffers.list.iter().enumerate() {
        let place = place.get(b).copied().unwrap_or(Place::None);
        let values = || buffer.values.iter().filter_map(|&v| buffers.values.get(v));
        let Some(value) = named_value(graph, &order, values(), place) else {
            continue;
        };
        let Some(inst) = graph.insts.get(value.inst) else {
            continue;
        };
        let v = model.values.len();
        let allocation = match place {
            Place::Allocation(a) => {
                if let Some(alloc) = allocations.get_mut(a) {
                    alloc.values.push(v);
                }
                Some(a)
            }
            Place::Heap => {
                let h = heaps.iter().position(|h| h.color == buffer.color);
                if let Some(heap) = h.and_then(|h| heaps.get_mut(h)) {
                    heap.values.push(v);
                }
                None
            }
            Place::None => continue,
        };
        ties.check(graph, &order, (value, place == Place::Heap), values());
        of_buffer[b] = Some(v);
        keys.push(order.key(graph, value));
        model.values.push(Value {
            instruction: graph.name(inst).to_owned(),
            shape_index: value
                .index
                .iter()
                .map(|&k| i64::try_from(k).unwrap_or(i64::MAX))
                .collect(),
            shape: sub_shape(graph.shape(inst), &value.index)
                .map_or_else(String::new, ToString::to_string),
            bytes: buffer.bytes,
            offset: 0,
            allocation,
            origin: origin_of(graph, inst),
        });
    }
    for alloc in allocations {
        alloc.values.sort_by(|&x, &y| keys.get(x).cmp(&keys.get(y)));
    }
    (of_buffer, ties.warnings())
}

/// The value XLA names a buffer of `values` by: in the heap (`place`), the
/// first allocated; elsewhere the first of the largest, as the static
/// baseline counts it; each the first of equals in `order`.
fn named_value<'v>(
    graph: &Graph,
    order: &ValueOrder,
    values: impl Iterator<Item = &'v super::buffers::Value>,
    place: Place,
) -> Option<&'v super::buffers::Value> {
    if place == Place::Heap {
        values.min_by(|x, y| (x.start, order.key(graph, x)).cmp(&(y.start, order.key(graph, y))))
    } else {
        values.min_by(|x, y| {
            y.bytes
                .cmp(&x.bytes)
                .then_with(|| order.key(graph, x).cmp(&order.key(graph, y)))
        })
    }
}

/// A model value and a thread-local allocation for each value of an
/// applied computation (a constant's allocation a constant one), after
/// `allocations`.
fn add_thread_local(
    graph: &Graph,
    flow: &Dataflow,
    model: &mut Assignment,
    allocations: &mut Vec<Allocation>,
) {
    for (c, comp) in graph.comps.iter().enumerate() {
        if flow.roles.get(c) != Some(&Role::ThreadLocal) {
            continue;
        }
        for i in comp.instructions() {
            let Some(inst) = graph.insts.get(i) else {
                continue;
            };
            let bytes = BufferSizes::of(graph.shape(inst))
                .ok()
                .and_then(|s| u64::try_from(s.allocated_bytes).ok())
                .unwrap_or(0);
            let v = model.values.len();
            model.values.push(Value {
                instruction: graph.name(inst).to_owned(),
                shape_index: Vec::new(),
                shape: graph.shape(inst).to_string(),
                bytes,
                offset: 0,
                allocation: Some(allocations.len()),
                origin: origin_of(graph, inst),
            });
            // A constant of an applied computation is a constant all the same.
            let constant = graph.opcode(inst) == "constant";
            allocations.push(Allocation {
                size: bytes,
                thread_local: !constant,
                constant,
                values: vec![v],
                ..Allocation::default()
            });
        }
    }
}

/// The op_name and stack of `inst`'s values.
fn origin_of(graph: &Graph, inst: &super::graph::Inst) -> Origin {
    graph
        .origin(inst)
        .map_or_else(Origin::default, |o| o.resolve(graph.frames.as_ref()))
}
