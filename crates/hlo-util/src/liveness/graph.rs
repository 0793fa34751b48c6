//! The module as a graph: each instruction with its operands, the
//! computations it calls and the attributes buffer assignment needs, read
//! by the crate's streaming text reader.

use std::borrow::Cow;
use std::io::Read;
use std::sync::Arc;

use foldhash::HashMap;

use schema::Shape;

use super::LivenessError;
use super::attributes::{Alias, aliases};
use crate::origins::frame::FrameTable;
use crate::origins::head::{head_tables, read_head};
use crate::origins::metadata::{InstOrigin, read_metadata};
use crate::origins::tables::{Tables, missing_frame_warning};
use crate::read_text;
use crate::scan::{computation_names, split_top};

/// How an instruction calls its computations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Calls {
    /// It calls none.
    None,
    /// Control flow (`while`, `conditional`, `call`): the computations run
    /// as part of the program, their values in the module's buffers.
    Control,
    /// A fusion's body: compiled into the fusion, no buffers of its own.
    Fused,
    /// Applied inside the instruction (`to_apply` of a reduce, a sort's
    /// comparator): its values are thread-local.
    Applied,
}

/// One instruction.
#[derive(Debug, Clone)]
pub(crate) struct Inst {
    /// Where its name is in [`Graph::names`] (empty in a fusion body).
    pub name: (u32, u32),
    /// XLA's opcodes borrowed from [`crate::OPCODES`]; another is its own.
    pub opcode: Cow<'static, str>,
    /// Its shape, shared by the instructions written with the same text
    /// (a fusion body's are all the empty shape: no buffer is theirs).
    pub shape: Arc<Shape>,
    pub computation: usize,
    pub operands: Vec<usize>,
    /// Called computations: a while's condition then body, a
    /// conditional's branches, a call's or a fusion's computation.
    pub called: Box<[usize]>,
    pub calls: Calls,
    /// A get-tuple-element's `index=`.
    pub tuple_index: usize,
    /// A parameter's number.
    pub parameter: usize,
    /// A fusion of kind `kLoop` or `kInput`.
    pub loop_fusion: bool,
    /// A custom call's `output_to_operand_aliasing`.
    pub aliasing: Box<[Alias]>,
    /// How many operands of other instructions name it.
    pub users: usize,
    /// Its op_name and frame, when its metadata has either (never in a
    /// fusion body); boxed, as most instructions of a large module have
    /// none of their own.
    pub origin: Option<Box<InstOrigin>>,
}

/// One computation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Comp {
    pub name: String,
    /// Its instructions in the order of the text.
    pub instructions: Vec<usize>,
    pub root: Option<usize>,
    /// Its parameters by number.
    pub parameters: Vec<usize>,
}

/// The module.
#[derive(Debug, Clone, Default)]
pub(crate) struct Graph {
    pub insts: Vec<Inst>,
    pub comps: Vec<Comp>,
    pub entry: usize,
    pub scheduled: bool,
    /// The header's `input_output_alias`.
    pub io_alias: Vec<Alias>,
    /// The text reader's warnings ([`crate::ModuleSummary::warnings`]),
    /// then those of the stack-frame tables.
    pub warnings: Vec<String>,
    /// Whether an instruction's attributes hold GPU backend configs
    /// (`fingerprint_before_lhs`, `"operation_queue_id"`): XLA's GPU heap
    /// aligns its buffers to 256 bytes, the CPU's to 64.
    pub gpu_configs: bool,
    /// Every instruction's name, one after the other.
    pub names: String,
    /// The module's stack frames, if it records any.
    pub frames: Option<Arc<FrameTable>>,
}

/// What is kept while the module is read: the names of the computations
/// and of the current computation's instructions (an operand names an
/// instruction defined before it in its computation, a call a computation
/// defined before it: the text reader checks both), and each shape text
/// parsed once.
#[derive(Default)]
struct Reading {
    computations: HashMap<String, usize>,
    local: HashMap<String, usize>,
    shapes: HashMap<String, Arc<Shape>>,
    no_shape: Arc<Shape>,
    /// The tuple elements named `tuple#k` in the current computation, by
    /// tuple and index, with the instruction each became.
    elements: HashMap<(usize, usize), usize>,
    /// The stack-frame tables, filled as instructions name frames.
    tables: Tables,
    /// Each op_name once: modules repeat them.
    op_names: foldhash::HashSet<Arc<str>>,
    /// Instructions whose metadata names a frame the tables lack, with it.
    missing_frames: Vec<(usize, i64)>,
    error: Option<LivenessError>,
}

impl Reading {
    /// The shape written `text`, parsed at its first use.
    fn shape(&mut self, text: &str, instruction: &str) -> Result<Arc<Shape>, LivenessError> {
        if let Some(shape) = self.shapes.get(text) {
            return Ok(Arc::clone(shape));
        }
        let shape = Arc::new(
            text.parse::<Shape>()
                .map_err(|e| LivenessError::Malformed {
                    instruction: instruction.to_owned(),
                    message: format!("{e}"),
                })?,
        );
        self.shapes.insert(text.to_owned(), Arc::clone(&shape));
        Ok(shape)
    }

    /// `name`, shared with the instructions that have it already.
    fn op_name(&mut self, name: Arc<str>) -> Arc<str> {
        if let Some(known) = self.op_names.get(&name) {
            return Arc::clone(known);
        }
        self.op_names.insert(Arc::clone(&name));
        name
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
    let of = graph.insts.get(t).ok_or_else(unknown)?;
    let shape = match of.shape.tuple_shapes.get(index) {
        Some(shape) => Arc::new(shape.clone()),
        // A fusion body's shapes are not kept: nor is this one.
        None if *of.shape == Shape::default() => Arc::clone(&r.no_shape),
        None => {
            return Err(LivenessError::Malformed {
                instruction: name.to_owned(),
                message: format!("`{tuple}` has no tuple element {index}"),
            });
        }
    };
    let computation = of.computation;
    let id = graph.insts.len();
    let inst = Inst {
        name: graph.add_name(name)?,
        opcode: opcode("get-tuple-element"),
        shape,
        computation,
        operands: vec![t],
        called: Box::default(),
        calls: Calls::None,
        tuple_index: index,
        parameter: 0,
        loop_fusion: false,
        aliasing: Box::default(),
        users: 0,
        origin: None,
    };
    graph.insts.push(inst);
    if let Some(comp) = graph.comps.get_mut(computation) {
        comp.instructions.push(id);
    }
    r.elements.insert((t, index), id);
    Ok(id)
}

/// `name` from XLA's opcodes when it is one (no allocation per
/// instruction), else a copy.
fn opcode(name: &str) -> Cow<'static, str> {
    match crate::OPCODES.binary_search(&name) {
        Ok(k) => crate::OPCODES
            .get(k)
            .map_or_else(|| Cow::Owned(name.to_owned()), |&o| Cow::Borrowed(o)),
        Err(_) => Cow::Owned(name.to_owned()),
    }
}

impl Graph {
    /// The name of `inst`.
    pub fn name(&self, inst: &Inst) -> &str {
        let (start, length) = inst.name;
        let (Ok(start), Ok(length)) = (usize::try_from(start), usize::try_from(length)) else {
            return "";
        };
        self.names
            .get(start..start.saturating_add(length))
            .unwrap_or("")
    }

    /// Keeps `name`; where it is.
    fn add_name(&mut self, name: &str) -> Result<(u32, u32), LivenessError> {
        let place = u32::try_from(self.names.len())
            .ok()
            .zip(u32::try_from(name.len()).ok())
            .ok_or_else(|| LivenessError::Overflow("the instructions' names".to_owned()))?;
        self.names.push_str(name);
        Ok(place)
    }
}

/// What XLA's GPU pipeline writes in a module's header or attributes: the
/// latency-hiding scheduler's fingerprint, the stream assignment's queues.
const GPU_MARKS: [&str; 2] = ["fingerprint_before_lhs", "\"operation_queue_id\""];

/// The instructions naming a missing frame that are kept, to warn of the
/// first outside a fusion body.
const MISSING_FRAMES: usize = 4096;

/// A fusion's body: no buffer of the module is its instructions', so
/// their names and shapes are dropped as soon as a fusion calls it (in a
/// large module most instructions are in fusion bodies).
fn fusion_body(graph: &mut Graph, c: usize, no_shape: &Arc<Shape>) {
    let Some(comp) = graph.comps.get(c) else {
        return;
    };
    for &i in &comp.instructions {
        if let Some(inst) = graph.insts.get_mut(i) {
            inst.name = (0, 0);
            inst.shape = Arc::clone(no_shape);
            inst.origin = None;
        }
    }
}

/// Reads module text into a [`Graph`], streaming: one pass of the text
/// reader, the text itself not kept;
/// operands are resolved in their own computation as they are read (two
/// computations may use one name, as XLA's parser allows: it renames the
/// second).
pub(crate) fn read_graph(input: impl std::io::BufRead) -> Result<Graph, LivenessError> {
    let mut graph = Graph::default();
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
    if let Some(error) = r.error {
        return Err(error);
    }
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
        if r.computations.contains_key(i.computation) {
            return Err(LivenessError::Duplicate(i.computation.to_owned()));
        }
        r.computations
            .insert(i.computation.to_owned(), graph.comps.len());
        r.local.clear();
        r.elements.clear();
        graph.comps.push(Comp {
            name: i.computation.to_owned(),
            ..Comp::default()
        });
    }
    let c = graph.comps.len().saturating_sub(1);
    let mut operands = Vec::new();
    if i.opcode != "parameter" && i.opcode != "constant" {
        for piece in split_top(i.operands) {
            // After any `/*index=5*/` comment and the operand's shape.
            let piece = piece.rsplit("*/").next().unwrap_or(piece);
            let name = piece.rsplit(' ').next().unwrap_or(piece);
            operands.push(operand(graph, r, name.trim_start_matches('%'), i.name)?);
        }
    }
    let id = graph.insts.len();
    let mut inst = Inst {
        name: graph.add_name(i.name)?,
        opcode: opcode(i.opcode),
        shape: r.shape(i.shape, i.name)?,
        computation: c,
        operands: Vec::new(),
        called: Box::default(),
        calls: Calls::None,
        tuple_index: 0,
        parameter: 0,
        loop_fusion: false,
        aliasing: Box::default(),
        users: 0,
        origin: None,
    };
    inst.operands = operands;
    if i.opcode == "parameter" {
        inst.parameter = i.operands.trim().parse().unwrap_or(0);
    }
    graph.gpu_configs |= GPU_MARKS.iter().any(|mark| i.attributes.contains(mark));
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
            "index" => inst.tuple_index = value.trim().parse().unwrap_or(usize::MAX),
            "kind" => inst.loop_fusion = matches!(value, "kLoop" | "kInput"),
            "metadata" => {
                let origin = read_metadata(value, &mut r.tables);
                if let Some(frame) = origin.missing_frame
                    && r.missing_frames.len() < MISSING_FRAMES
                {
                    r.missing_frames.push((id, frame));
                }
                if origin.op_name.is_some() || origin.frame.is_some() {
                    let mut origin = origin;
                    origin.op_name = origin.op_name.map(|name| r.op_name(name));
                    inst.origin = Some(Box::new(origin));
                }
            }
            "output_to_operand_aliasing" => {
                inst.aliasing = aliases(value)
                    .map(Vec::into_boxed_slice)
                    .map_err(|message| LivenessError::Malformed {
                        instruction: i.name.to_owned(),
                        message,
                    })?;
            }
            _ => {}
        }
    }
    condition.append(&mut called);
    inst.calls = match i.opcode {
        _ if condition.is_empty() => Calls::None,
        "while" | "conditional" | "call" => Calls::Control,
        "fusion" | "fusion-start" => Calls::Fused,
        _ => Calls::Applied,
    };
    inst.called = condition
        .iter()
        .map(|name| r.computation(name, i.name))
        .collect::<Result<Vec<_>, _>>()?
        .into_boxed_slice();
    if inst.calls == Calls::Fused {
        for &body in &inst.called {
            fusion_body(graph, body, &r.no_shape);
        }
    }
    let comp = graph
        .comps
        .get_mut(c)
        .ok_or_else(|| LivenessError::Malformed {
            instruction: i.name.to_owned(),
            message: "no computation".to_owned(),
        })?;
    comp.instructions.push(id);
    if i.is_root {
        comp.root = Some(id);
    }
    if i.opcode == "parameter" {
        if comp.parameters.len() <= inst.parameter {
            comp.parameters
                .resize(inst.parameter.saturating_add(1), usize::MAX);
        }
        if let Some(slot) = comp.parameters.get_mut(inst.parameter) {
            *slot = id;
        }
    }
    if r.local.insert(i.name.to_owned(), id).is_some() {
        return Err(LivenessError::Duplicate(i.name.to_owned()));
    }
    graph.insts.push(inst);
    Ok(())
}

/// Counts each instruction's users and checks the parameters.
fn finish(graph: &mut Graph) -> Result<(), LivenessError> {
    let mut users = vec![0_usize; graph.insts.len()];
    for inst in &graph.insts {
        for &o in &inst.operands {
            if let Some(u) = users.get_mut(o) {
                *u = u.saturating_add(1);
            }
        }
    }
    for (inst, users) in graph.insts.iter_mut().zip(users) {
        inst.users = users;
    }
    for comp in &graph.comps {
        if comp.parameters.contains(&usize::MAX) {
            return Err(LivenessError::Malformed {
                instruction: comp.name.clone(),
                message: "a parameter number is missing".to_owned(),
            });
        }
    }
    Ok(())
}
