//! Reading module text into a [`Graph`], streaming: one pass of the text
//! reader, the text itself not kept.

use std::borrow::Cow;
use std::io::Read;

use foldhash::HashMap;

use schema::Shape;

use super::{Calls, Comp, Graph, Inst};
use crate::liveness::LivenessError;
use crate::liveness::attributes::aliases;
use crate::origins::head::{head_tables, read_head};
use crate::origins::metadata::{InstOrigin, read_metadata};
use crate::origins::tables::{Tables, missing_frame_warning};
use crate::read_text;
use crate::scan::{computation_names, split_top};

/// What is kept while the module is read: the names of the computations
/// and of the current computation's instructions (an operand names an
/// instruction defined before it in its computation, a call a computation
/// defined before it: the text reader checks both), the current
/// computation's parameters, and each shape text, opcode and origin once.
#[derive(Default)]
struct Reading {
    computations: HashMap<String, usize>,
    local: HashMap<String, usize>,
    /// The current computation's parameters: each one's number and
    /// instruction, in the order of the text.
    parameters: Vec<(u32, usize)>,
    shapes: HashMap<String, u32>,
    opcodes: HashMap<String, u16>,
    origins: HashMap<InstOrigin, u32>,
    /// The tuple elements named `tuple#k` in the current computation, by
    /// tuple and index, with the instruction each became.
    elements: HashMap<(usize, usize), usize>,
    /// The stack-frame tables, filled as instructions name frames.
    tables: Tables,
    /// Each op_name once: modules repeat them.
    op_names: foldhash::HashSet<std::sync::Arc<str>>,
    /// Instructions whose metadata names a frame the tables lack, with it.
    missing_frames: Vec<(usize, i64)>,
    error: Option<LivenessError>,
}

/// `what` as a number of 32 bits.
fn small(n: usize, what: &str) -> Result<u32, LivenessError> {
    u32::try_from(n).map_err(|_| LivenessError::Overflow(what.to_owned()))
}

impl Reading {
    /// The shape written `text`, parsed at its first use.
    fn shape(
        &mut self,
        graph: &mut Graph,
        text: &str,
        instruction: &str,
    ) -> Result<u32, LivenessError> {
        if let Some(&shape) = self.shapes.get(text) {
            return Ok(shape);
        }
        let shape = text
            .parse::<Shape>()
            .map_err(|e| LivenessError::Malformed {
                instruction: instruction.to_owned(),
                message: format!("{e}"),
            })?;
        let id = graph.add_shape(shape)?;
        self.shapes.insert(text.to_owned(), id);
        Ok(id)
    }

    /// The opcode `name`, kept at its first use: XLA's borrowed from
    /// [`crate::OPCODES`] (no allocation), another a copy.
    fn opcode(&mut self, graph: &mut Graph, name: &str) -> Result<u16, LivenessError> {
        if let Some(&id) = self.opcodes.get(name) {
            return Ok(id);
        }
        let id = u16::try_from(graph.opcodes.len())
            .map_err(|_| LivenessError::Overflow("the distinct opcodes".to_owned()))?;
        let opcode = match crate::OPCODES.binary_search(&name) {
            Ok(k) => crate::OPCODES
                .get(k)
                .map_or_else(|| Cow::Owned(name.to_owned()), |&o| Cow::Borrowed(o)),
            Err(_) => Cow::Owned(name.to_owned()),
        };
        graph.opcodes.push(opcode);
        self.opcodes.insert(name.to_owned(), id);
        Ok(id)
    }

    /// `origin` (its op_name shared with the instructions that have it
    /// already), kept once: its number plus one, 0 for none.
    fn origin(&mut self, graph: &mut Graph, origin: InstOrigin) -> Result<u32, LivenessError> {
        if origin.op_name.is_none() && origin.frame.is_none() {
            return Ok(0);
        }
        let mut origin = InstOrigin {
            missing_frame: None,
            ..origin
        };
        if let Some(name) = origin.op_name.take() {
            let shared = match self.op_names.get(&name) {
                Some(known) => std::sync::Arc::clone(known),
                None => {
                    self.op_names.insert(std::sync::Arc::clone(&name));
                    name
                }
            };
            origin.op_name = Some(shared);
        }
        if let Some(&id) = self.origins.get(&origin) {
            return Ok(id);
        }
        let id = small(
            graph.origins.len().saturating_add(1),
            "the distinct origins",
        )?;
        graph.origins.push(origin.clone());
        self.origins.insert(origin, id);
        Ok(id)
    }

    /// The computation named `name`.
    fn computation(&self, name: &str, instruction: &str) -> Result<usize, LivenessError> {
        self.computations
            .get(name)
            .copied()
            .ok_or_else(|| LivenessError::UnknownComputation {
                instruction: instruction.to_owned(),
                computation: name.to_owned(),
            })
    }

    /// Gives the current computation its parameters by number. The text
    /// reader has checked them against the computation's signature (its
    /// `n` parameters numbered 0 to `n - 1`, each once) when it closes the
    /// computation; they are kept as read until then, so that a number out
    /// of range allocates nothing before that error.
    fn close_computation(&mut self, graph: &mut Graph) -> Result<(), LivenessError> {
        let mut parameters = std::mem::take(&mut self.parameters);
        parameters.sort_unstable();
        let count = parameters.len();
        if let Some(&(number, id)) = parameters
            .iter()
            .enumerate()
            .find_map(|(k, p)| (p.0 as usize != k).then_some(p))
        {
            return Err(LivenessError::Malformed {
                instruction: graph
                    .insts
                    .get(id)
                    .map_or_else(String::new, |i| graph.name(i).to_owned()),
                message: format!(
                    "parameter number {number}: the computation's {count} parameters are not numbered 0 to {}, each once",
                    count - 1
                ),
            });
        }
        if let Some(comp) = graph.comps.last_mut() {
            comp.parameters = parameters.into_iter().map(|(_, id)| id).collect();
        }
        Ok(())
    }

    /// Starts the computation `name`, after the current one: a second
    /// computation of one name is an error.
    fn open_computation(&mut self, graph: &mut Graph, name: &str) -> Result<(), LivenessError> {
        if self.computations.contains_key(name) {
            return Err(LivenessError::Duplicate(name.to_owned()));
        }
        self.close_computation(graph)?;
        self.computations.insert(name.to_owned(), graph.comps.len());
        self.local.clear();
        self.elements.clear();
        let start = small(graph.insts.len(), "the instructions")?;
        graph.comps.push(Comp {
            name: name.to_owned(),
            instructions: start..start,
            ..Comp::default()
        });
        Ok(())
    }

    /// Makes instruction `id` the current computation's parameter
    /// `number` (checked when the computation closes).
    fn add_parameter(&mut self, number: u32, id: usize) {
        self.parameters.push((number, id));
    }

    /// The origin that instruction `id`'s `metadata` `value` gives (see
    /// [`Self::origin`]), a frame it names that the tables lack kept to
    /// warn of.
    fn metadata(
        &mut self,
        graph: &mut Graph,
        id: usize,
        value: &str,
    ) -> Result<u32, LivenessError> {
        let origin = read_metadata(value, &mut self.tables);
        if let Some(frame) = origin.missing_frame
            && self.missing_frames.len() < MISSING_FRAMES
        {
            self.missing_frames.push((id, frame));
        }
        self.origin(graph, origin)
    }
}

impl Graph {
    /// Keeps `name`; where it is.
    fn add_name(&mut self, name: &str) -> Result<(u32, u32), LivenessError> {
        let place = small(self.names.len(), "the instructions' names")?;
        let length = small(name.len(), "the instructions' names")?;
        self.names.push_str(name);
        Ok((place, length))
    }

    /// Keeps `shape`; its number.
    fn add_shape(&mut self, shape: Shape) -> Result<u32, LivenessError> {
        let id = small(self.shapes.len(), "the distinct shapes")?;
        self.shapes.push(shape);
        Ok(id)
    }

    /// Keeps `operands` then `called`; where they are.
    fn add_links(
        &mut self,
        operands: &[usize],
        called: &[usize],
    ) -> Result<(u32, u32, u32), LivenessError> {
        let what = "the instructions' operands";
        let place = (
            small(self.links.len(), what)?,
            small(operands.len(), what)?,
            small(called.len(), what)?,
        );
        self.links.extend_from_slice(operands);
        self.links.extend_from_slice(called);
        Ok(place)
    }

    /// Adds `inst` to the last computation; its number.
    fn push(&mut self, inst: Inst) -> Result<usize, LivenessError> {
        let id = self.insts.len();
        let end = small(id.saturating_add(1), "the instructions")?;
        let comp = self
            .comps
            .last_mut()
            .ok_or_else(|| LivenessError::Malformed {
                instruction: String::new(),
                message: "an instruction outside a computation".to_owned(),
            })?;
        comp.instructions.end = end;
        self.insts.push(inst);
        Ok(id)
    }
}

/// The instruction of the current computation that operand `name` of
/// `instruction` names. XLA's dumps (`--xla_dump_to`'s
/// `*after_optimizations.txt`) leave out the `get-tuple-element` of a
/// tuple's element and name it `tuple#k` where it is used: each such
/// element becomes the `get-tuple-element` it stands for, added once per
/// computation, before its first user.
fn operand(
    graph: &mut Graph,
    r: &mut Reading,
    name: &str,
    instruction: &str,
) -> Result<usize, LivenessError> {
    if let Some(&o) = r.local.get(name) {
        return Ok(o);
    }
    let unknown = || LivenessError::UnknownOperand {
        instruction: instruction.to_owned(),
        operand: name.to_owned(),
    };
    let (tuple, index) = name.rsplit_once('#').ok_or_else(unknown)?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return Err(unknown());
    }
    let index: usize = index.parse().map_err(|_| unknown())?;
    let &t = r.local.get(tuple).ok_or_else(unknown)?;
    if let Some(&id) = r.elements.get(&(t, index)) {
        return Ok(id);
    }
    let of = *graph.insts.get(t).ok_or_else(unknown)?;
    let shape = match graph.shape(&of).tuple_shapes.get(index) {
        Some(shape) => graph.add_shape(shape.clone())?,
        // A fusion body's shapes are not kept: nor is this one.
        None if of.shape == 0 => 0,
        None => {
            return Err(LivenessError::Malformed {
                instruction: name.to_owned(),
                message: format!("`{tuple}` has no tuple element {index}"),
            });
        }
    };
    let inst = Inst {
        name: graph.add_name(name)?,
        links: graph.add_links(&[t], &[])?,
        shape,
        computation: of.computation,
        tuple_index: small(index, "a tuple index")?,
        parameter: 0,
        users: 0,
        origin: 0,
        aliasing: 0,
        opcode: r.opcode(graph, "get-tuple-element")?,
        calls: Calls::None,
        loop_fusion: false,
    };
    let id = graph.push(inst)?;
    r.elements.insert((t, index), id);
    Ok(id)
}

/// What XLA's GPU pipeline writes in a module's header or attributes: the
/// latency-hiding scheduler's fingerprint, the stream assignment's queues.
const GPU_MARKS: [&str; 2] = ["fingerprint_before_lhs", "\"operation_queue_id\""];

/// The instructions naming a missing frame that are kept, to warn of the
/// first outside a fusion body.
const MISSING_FRAMES: usize = 4096;

/// A fusion's body: no buffer of the module is its instructions', so
/// their names, shapes and origins are dropped as soon as a fusion calls
/// it (in a large module most instructions are in fusion bodies); the
/// names' and shapes' storage goes once the module is read.
fn fusion_body(graph: &mut Graph, c: usize) {
    let Some(range) = graph.comps.get(c).map(Comp::instructions) else {
        return;
    };
    for inst in graph.insts.get_mut(range).into_iter().flatten() {
        inst.name = (0, 0);
        inst.shape = 0;
        inst.origin = 0;
    }
}

/// Reads module text into a [`Graph`], streaming: one pass of the text
/// reader, the text itself not kept;
/// operands are resolved in their own computation as they are read (two
/// computations may use one name, as XLA's parser allows: it renames the
/// second).
pub(crate) fn read_graph(input: impl std::io::BufRead) -> Result<Graph, LivenessError> {
    let mut graph = Graph::default();
    graph.shapes.push(Shape::default());
    let mut input = input;
    let head = read_head(&mut input)?;
    let mut warnings = Vec::new();
    let tables = head_tables(&head, &mut warnings);
    let mut r = Reading {
        tables,
        ..Reading::default()
    };
    graph.gpu_configs = GPU_MARKS
        .iter()
        .any(|mark| head.windows(mark.len()).any(|w| w == mark.as_bytes()));
    let summary = read_text(head.as_slice().chain(input), |i| {
        if r.error.is_none()
            && let Err(error) = add_instruction(&mut graph, &mut r, i)
        {
            r.error = Some(error);
        }
    })?;
    if let Some(error) = r.error.take() {
        return Err(error);
    }
    r.close_computation(&mut graph)?;
    graph.scheduled = summary.is_scheduled;
    graph.warnings = summary.warnings;
    graph.warnings.append(&mut warnings);
    // The first instruction outside a fusion body (whose names are
    // dropped) that names a frame the module lacks.
    let missing = r.missing_frames.iter().find_map(|&(i, id)| {
        let name = graph.name(graph.insts.get(i)?);
        (!name.is_empty()).then(|| (name.to_owned(), id))
    });
    if let Some((name, id)) = missing {
        graph.warnings.push(missing_frame_warning(&name, id));
    }
    graph.frames = std::mem::take(&mut r.tables).build_or_warn(&mut graph.warnings);
    graph.entry = *r
        .computations
        .get(&summary.entry_computation)
        .ok_or_else(|| LivenessError::Malformed {
            instruction: summary.entry_computation.clone(),
            message: "the entry computation has no instruction".to_owned(),
        })?;
    drop(r);
    graph.io_alias =
        aliases(&summary.input_output_alias).map_err(|message| LivenessError::Malformed {
            instruction: "input_output_alias".to_owned(),
            message,
        })?;
    finish(&mut graph)?;
    Ok(graph)
}

/// Adds the instruction the reader read.
fn add_instruction(
    graph: &mut Graph,
    r: &mut Reading,
    i: &crate::Instruction<'_>,
) -> Result<(), LivenessError> {
    if graph.comps.last().is_none_or(|c| c.name != i.computation) {
        r.open_computation(graph, i.computation)?;
    }
    let c = graph.comps.len().saturating_sub(1);
    let operands = read_operands(graph, r, i)?;
    let id = graph.insts.len();
    let mut inst = new_inst(graph, r, i, c)?;
    graph.gpu_configs |= GPU_MARKS.iter().any(|mark| i.attributes.contains(mark));
    let names = read_attributes(graph, r, i, id, &mut inst)?;
    inst.calls = calls(i.opcode, !names.is_empty());
    let called = names
        .iter()
        .map(|name| r.computation(name, i.name))
        .collect::<Result<Vec<_>, _>>()?;
    inst.links = graph.add_links(&operands, &called)?;
    if inst.calls == Calls::Fused {
        for &body in &called {
            fusion_body(graph, body);
        }
    }
    if i.opcode == "parameter" {
        r.add_parameter(inst.parameter, id);
    }
    if r.local.insert(i.name.to_owned(), id).is_some() {
        return Err(LivenessError::Duplicate(i.name.to_owned()));
    }
    graph.push(inst)?;
    if i.is_root
        && let Some(comp) = graph.comps.get_mut(c)
    {
        comp.root = Some(id);
    }
    Ok(())
}

/// The instructions that the operands of `i` name (none for a parameter's
/// number or a constant's literal).
fn read_operands(
    graph: &mut Graph,
    r: &mut Reading,
    i: &crate::Instruction<'_>,
) -> Result<Vec<usize>, LivenessError> {
    let mut operands = Vec::new();
    if i.opcode != "parameter" && i.opcode != "constant" {
        for piece in split_top(i.operands) {
            // After any `/*index=5*/` comment and the operand's shape.
            let piece = piece.rsplit("*/").next().unwrap_or(piece);
            let name = piece.rsplit(' ').next().unwrap_or(piece);
            operands.push(operand(graph, r, name.trim_start_matches('%'), i.name)?);
        }
    }
    Ok(operands)
}

/// Instruction `i` of computation `c`, with its name, shape, opcode and
/// parameter number; its links, calls and attributes not yet read.
fn new_inst(
    graph: &mut Graph,
    r: &mut Reading,
    i: &crate::Instruction<'_>,
    c: usize,
) -> Result<Inst, LivenessError> {
    let mut inst = Inst {
        name: graph.add_name(i.name)?,
        links: (0, 0, 0),
        shape: r.shape(graph, i.shape, i.name)?,
        computation: small(c, "the computations")?,
        tuple_index: 0,
        parameter: 0,
        users: 0,
        origin: 0,
        aliasing: 0,
        opcode: r.opcode(graph, i.opcode)?,
        calls: Calls::None,
        loop_fusion: false,
    };
    if i.opcode == "parameter" {
        let number: usize = i.operands.trim().parse().unwrap_or(0);
        inst.parameter = small(number, "a parameter number")?;
    }
    Ok(inst)
}

/// Reads the attributes of `i` (instruction `id`) into `inst`: its tuple
/// index, fusion kind, origin and operand aliasing. The names of the
/// computations it calls, a while's condition first.
fn read_attributes(
    graph: &mut Graph,
    r: &mut Reading,
    i: &crate::Instruction<'_>,
    id: usize,
    inst: &mut Inst,
) -> Result<Vec<String>, LivenessError> {
    let mut called = Vec::new();
    let mut condition = Vec::new();
    for attribute in split_top(i.attributes) {
        let Some((key, value)) = attribute.split_once('=') else {
            continue;
        };
        match key {
            "condition" => condition = computation_names(value),
            "body"
            | "calls"
            | "to_apply"
            | "branch_computations"
            | "true_computation"
            | "false_computation"
            | "called_computations" => {
                called.extend(computation_names(value));
            }
            "index" => {
                let index: Option<usize> = value.trim().parse().ok();
                inst.tuple_index = index
                    .and_then(|k| u32::try_from(k).ok())
                    .unwrap_or(u32::MAX);
            }
            "kind" => inst.loop_fusion = matches!(value, "kLoop" | "kInput"),
            "metadata" => inst.origin = r.metadata(graph, id, value)?,
            "output_to_operand_aliasing" => {
                if let Some(aliasing) = operand_aliasing(graph, i.name, value)? {
                    inst.aliasing = aliasing;
                }
            }
            _ => {}
        }
    }
    condition.append(&mut called);
    Ok(condition)
}

/// How an instruction of `opcode` calls its computations, if it calls
/// any.
fn calls(opcode: &str, calls_any: bool) -> Calls {
    match opcode {
        _ if !calls_any => Calls::None,
        "while" | "conditional" | "call" => Calls::Control,
        "fusion" | "fusion-start" => Calls::Fused,
        _ => Calls::Applied,
    }
}

/// Keeps the `output_to_operand_aliasing` `value` of `instruction`: its
/// number plus one, none when the list is empty.
fn operand_aliasing(
    graph: &mut Graph,
    instruction: &str,
    value: &str,
) -> Result<Option<u32>, LivenessError> {
    let list = aliases(value).map_err(|message| LivenessError::Malformed {
        instruction: instruction.to_owned(),
        message,
    })?;
    if list.is_empty() {
        return Ok(None);
    }
    graph.aliasing.push(list.into_boxed_slice());
    small(graph.aliasing.len(), "the alias lists").map(Some)
}

/// Counts each instruction's users and gives back the storage of what
/// the fusion bodies dropped.
fn finish(graph: &mut Graph) -> Result<(), LivenessError> {
    let mut users = vec![0_u32; graph.insts.len()];
    for inst in &graph.insts {
        for &o in graph.operands(inst) {
            if let Some(u) = users.get_mut(o) {
                *u = u.saturating_add(1);
            }
        }
    }
    for (inst, users) in graph.insts.iter_mut().zip(users) {
        inst.users = users;
    }
    compact_names(graph);
    compact_shapes(graph);
    graph.insts.shrink_to_fit();
    graph.comps.shrink_to_fit();
    graph.links.shrink_to_fit();
    Ok(())
}

/// Keeps only the names still named.
fn compact_names(graph: &mut Graph) {
    let kept: usize = graph.insts.iter().map(|i| i.name.1 as usize).sum();
    let mut names = String::with_capacity(kept);
    for inst in &mut graph.insts {
        let (start, length) = (inst.name.0 as usize, inst.name.1 as usize);
        let name = graph
            .names
            .get(start..start.saturating_add(length))
            .unwrap_or("");
        // Within the old names' length: fits in 32 bits.
        inst.name = (u32::try_from(names.len()).unwrap_or(u32::MAX), inst.name.1);
        names.push_str(name);
    }
    graph.names = names;
}

/// Keeps only the shapes still had.
fn compact_shapes(graph: &mut Graph) {
    let mut new_id = vec![u32::MAX; graph.shapes.len()];
    if let Some(empty) = new_id.first_mut() {
        *empty = 0;
    }
    let mut kept = vec![Shape::default()];
    let mut old = std::mem::take(&mut graph.shapes);
    for inst in &mut graph.insts {
        let Some(slot) = new_id.get_mut(inst.shape as usize) else {
            inst.shape = 0;
            continue;
        };
        if *slot == u32::MAX {
            // No more shapes than before: fits in 32 bits.
            *slot = u32::try_from(kept.len()).unwrap_or(0);
            kept.push(
                old.get_mut(inst.shape as usize)
                    .map(std::mem::take)
                    .unwrap_or_default(),
            );
        }
        inst.shape = *slot;
    }
    graph.shapes = kept;
}
