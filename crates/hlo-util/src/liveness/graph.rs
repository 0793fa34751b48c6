//! The module as a graph: each instruction with its operands, the
//! computations it calls and the attributes buffer assignment needs, read
//! by the crate's streaming text reader.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use schema::Shape;

use super::LivenessError;
use super::attributes::{Alias, aliases};
use super::elements::Elements;
use crate::origins::frame::FrameTable;
use crate::origins::metadata::{InstOrigin, read_metadata};
use crate::origins::tables::Tables;
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
    pub name: String,
    pub opcode: String,
    pub shape: Shape,
    pub computation: usize,
    pub operands: Vec<usize>,
    /// Called computations: a while's condition then body, a
    /// conditional's branches, a call's or a fusion's computation.
    pub called: Vec<usize>,
    pub calls: Calls,
    /// A get-tuple-element's `index=`.
    pub tuple_index: usize,
    /// A parameter's number.
    pub parameter: usize,
    /// A fusion of kind `kLoop` or `kInput`.
    pub loop_fusion: bool,
    /// A custom call's `output_to_operand_aliasing`.
    pub aliasing: Vec<Alias>,
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
    /// The module's stack frames, if it records any.
    pub frames: Option<Arc<FrameTable>>,
}

/// Names read, resolved once the whole module is read: all in one text,
/// each instruction's operands and called computations as byte ranges.
#[derive(Default)]
struct Pending {
    text: String,
    /// Per instruction: the end (in `names`) of its operands, then of its
    /// called computations.
    ends: Vec<(usize, usize)>,
    names: Vec<(usize, usize)>,
    error: Option<LivenessError>,
}

impl Pending {
    fn push(&mut self, name: &str) {
        let start = self.text.len();
        self.text.push_str(name);
        self.names.push((start, self.text.len()));
    }

    /// The names of instruction `i`'s operands and called computations.
    fn of(&self, i: usize) -> (Vec<&str>, Vec<&str>) {
        let begin = i
            .checked_sub(1)
            .and_then(|p| self.ends.get(p))
            .map_or(0, |e| e.1);
        let (operands_end, called_end) = self.ends.get(i).copied().unwrap_or((begin, begin));
        let name = |&(a, b): &(usize, usize)| self.text.get(a..b).unwrap_or("");
        let slice = |from: usize, to: usize| self.names.get(from..to).unwrap_or(&[]);
        (
            slice(begin, operands_end).iter().map(name).collect(),
            slice(operands_end, called_end).iter().map(name).collect(),
        )
    }
}

/// The computations that are fusion bodies: their instructions' shapes
/// are not kept (no buffer of the module is theirs), which in a large
/// module is most of the memory a graph would take.
fn fusion_bodies(text: &str) -> Result<HashSet<String>, LivenessError> {
    let mut bodies = HashSet::new();
    read_text(text.as_bytes(), |i| {
        if matches!(i.opcode, "fusion" | "fusion-start") {
            for attribute in split_top(i.attributes) {
                if let Some(value) = attribute.strip_prefix("calls=") {
                    bodies.extend(computation_names(value));
                }
            }
        }
    })?;
    Ok(bodies)
}

/// Reads module text into a [`Graph`].
pub(crate) fn read_graph(text: &str) -> Result<Graph, LivenessError> {
    let bodies = fusion_bodies(text)?;
    let mut in_body = false;
    let mut graph = Graph::default();
    let mut pending = Pending::default();
    let mut comp_names: HashMap<String, usize> = HashMap::new();
    let mut table_warnings = Vec::new();
    let mut tables = Tables::from_text(text).unwrap_or_else(|m| {
        table_warnings.push(format!("{m}; the stacks are left out"));
        Tables::default()
    });
    let mut missing_frame: Option<(String, i64)> = None;
    let summary = read_text(text.as_bytes(), |i| {
        if pending.error.is_some() {
            return;
        }
        if graph.comps.last().is_none_or(|c| c.name != i.computation) {
            in_body = bodies.contains(i.computation);
            if comp_names.contains_key(i.computation) {
                pending.error = Some(LivenessError::Duplicate(i.computation.to_owned()));
                return;
            }
            comp_names.insert(i.computation.to_owned(), graph.comps.len());
            graph.comps.push(Comp {
                name: i.computation.to_owned(),
                ..Comp::default()
            });
        }
        let c = graph.comps.len() - 1;
        let id = graph.insts.len();
        let mut inst = Inst {
            name: i.name.to_owned(),
            opcode: i.opcode.to_owned(),
            shape: if in_body {
                Shape::default()
            } else {
                match i.shape.parse() {
                    Ok(shape) => shape,
                    Err(e) => {
                        pending.error = Some(LivenessError::Malformed {
                            instruction: i.name.to_owned(),
                            message: format!("{e}"),
                        });
                        return;
                    }
                }
            },
            computation: c,
            operands: Vec::new(),
            called: Vec::new(),
            calls: Calls::None,
            tuple_index: 0,
            parameter: 0,
            loop_fusion: false,
            aliasing: Vec::new(),
            users: 0,
            origin: None,
        };
        if i.opcode == "parameter" {
            inst.parameter = i.operands.trim().parse().unwrap_or(0);
        } else if i.opcode != "constant" {
            for piece in split_top(i.operands) {
                // After any `/*index=5*/` comment and the operand's shape.
                let piece = piece.rsplit("*/").next().unwrap_or(piece);
                let name = piece.rsplit(' ').next().unwrap_or(piece);
                pending.push(name.trim_start_matches('%'));
            }
        }
        let operands_end = pending.names.len();
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
                "metadata" if !in_body => {
                    let origin = read_metadata(value, &mut tables);
                    if let (None, Some(id)) = (&missing_frame, origin.missing_frame) {
                        missing_frame = Some((i.name.to_owned(), id));
                    }
                    if origin.op_name.is_some() || origin.frame.is_some() {
                        inst.origin = Some(Box::new(origin));
                    }
                }
                "output_to_operand_aliasing" => match aliases(value) {
                    Ok(a) => inst.aliasing = a,
                    Err(message) => {
                        pending.error = Some(LivenessError::Malformed {
                            instruction: i.name.to_owned(),
                            message,
                        });
                    }
                },
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
        let comp = &mut graph.comps[c];
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
        graph.insts.push(inst);
        for name in &condition {
            pending.push(name);
        }
        pending.ends.push((operands_end, pending.names.len()));
    })?;
    if let Some(error) = pending.error {
        return Err(error);
    }
    graph.scheduled = summary.is_scheduled;
    graph.warnings = summary.warnings;
    graph.warnings.append(&mut table_warnings);
    if let Some((name, id)) = missing_frame {
        graph.warnings.push(format!(
            "instruction {name} names stack frame {id}, which the module lacks; its stack is left out"
        ));
    }
    graph.frames = tables.build().unwrap_or_else(|m| {
        graph.warnings.push(format!("{m}; the stacks are left out"));
        None
    });
    graph.entry =
        *comp_names
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
    resolve(&mut graph, pending, &comp_names)?;
    Ok(graph)
}

/// Turns the names read into indices: an operand names an instruction of
/// its own computation (the text reader checked that it is defined before
/// it there), so names are looked up one computation at a time, and two
/// computations may use one name, as XLA's parser allows (it renames the
/// second).
fn resolve(
    graph: &mut Graph,
    pending: Pending,
    comp_names: &HashMap<String, usize>,
) -> Result<(), LivenessError> {
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut resolved = Vec::with_capacity(graph.insts.len());
    let mut elements = Elements::new(graph.insts.len());
    for id in 0..graph.insts.len() {
        let Some(inst) = graph.insts.get(id) else {
            continue;
        };
        if id == 0
            || graph
                .insts
                .get(id - 1)
                .is_some_and(|before| before.computation != inst.computation)
        {
            names.clear();
        }
        if names.insert(inst.name.as_str(), id).is_some() {
            return Err(LivenessError::Duplicate(inst.name.clone()));
        }
        let (operands, called) = pending.of(id);
        let name = || inst.name.clone();
        let operands = operands
            .iter()
            .map(|&o| {
                names
                    .get(o)
                    .copied()
                    .or_else(|| elements.resolve(o, &names, id))
                    .ok_or_else(|| LivenessError::UnknownOperand {
                        instruction: name(),
                        operand: o.to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let called = called
            .iter()
            .map(|&c| {
                comp_names
                    .get(c)
                    .copied()
                    .ok_or_else(|| LivenessError::UnknownComputation {
                        instruction: name(),
                        computation: c.to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        resolved.push((operands, called));
    }
    drop(names);
    add_elements(graph, &mut resolved, elements.into_list())?;
    let mut users = vec![0_usize; graph.insts.len()];
    for (operands, _) in &resolved {
        for &o in operands {
            if let Some(u) = users.get_mut(o) {
                *u = u.saturating_add(1);
            }
        }
    }
    for ((inst, (operands, called)), users) in graph.insts.iter_mut().zip(resolved).zip(users) {
        inst.operands = operands;
        inst.called = called;
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

/// Adds the tuple elements named `tuple#k` as operands (`list`: name,
/// tuple, index, first user) as the `get-tuple-element`s they stand for
/// (their operand in `resolved`), each just before its first user in its
/// computation.
///
/// # Errors
///
/// [`LivenessError::Malformed`] when the tuple has no element `k`.
fn add_elements(
    graph: &mut Graph,
    resolved: &mut Vec<(Vec<usize>, Vec<usize>)>,
    list: Vec<(String, usize, usize, usize)>,
) -> Result<(), LivenessError> {
    let mut before: HashMap<usize, Vec<usize>> = HashMap::new();
    for (name, tuple, index, user) in list {
        let id = graph.insts.len();
        let of = graph.insts.get(tuple);
        let shape = match of.and_then(|t| t.shape.tuple_shapes.get(index)) {
            Some(shape) => shape.clone(),
            // A fusion body's shapes are not kept: nor is this one.
            None if of.is_some_and(|t| t.shape == Shape::default()) => Shape::default(),
            None => {
                return Err(LivenessError::Malformed {
                    instruction: name,
                    message: format!(
                        "`{}` has no tuple element {index}",
                        of.map_or("", |t| t.name.as_str())
                    ),
                });
            }
        };
        let computation = graph.insts.get(user).map_or(0, |u| u.computation);
        graph.insts.push(Inst {
            name,
            opcode: "get-tuple-element".to_owned(),
            shape,
            computation,
            operands: Vec::new(),
            called: Vec::new(),
            calls: Calls::None,
            tuple_index: index,
            parameter: 0,
            loop_fusion: false,
            aliasing: Vec::new(),
            users: 0,
            origin: None,
        });
        resolved.push((vec![tuple], Vec::new()));
        before.entry(user).or_default().push(id);
    }
    if before.is_empty() {
        return Ok(());
    }
    for comp in &mut graph.comps {
        if !comp.instructions.iter().any(|i| before.contains_key(i)) {
            continue;
        }
        let mut order = Vec::with_capacity(comp.instructions.len());
        for &i in &comp.instructions {
            if let Some(elements) = before.get(&i) {
                order.extend(elements.iter().copied());
            }
            order.push(i);
        }
        comp.instructions = order;
    }
    Ok(())
}
