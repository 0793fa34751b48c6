//! XLA's dataflow and alias analyses on the module's graph: each
//! instruction output (and each tuple element) is a position. Positions
//! that hold the same value are joined into values (`HloValue`s, in SSA
//! form): get-tuple-element, tuple, bitcast and call pass-through. A while
//! (its output, its condition's and body's parameters) and a conditional
//! define phi values. Values that must hold the same storage are joined
//! into buffers (`HloBuffer`s): while and conditional carries, in-place
//! operations, custom calls' `output_to_operand_aliasing` and the module's
//! `input_output_alias`. Only computations whose values live in the
//! module's buffers (the entry and what it calls through control flow) have
//! positions; values of applied computations (a reduce's `to_apply`) are
//! thread-local and those of fusion bodies are not buffers at all.

use super::LivenessError;
use super::graph::{Calls, Comp, Graph, Inst};
use super::in_place::in_place_pairs;
use super::shapes::{count, offset, subshapes};

/// Where a computation's values live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Not reached from the entry.
    Unused,
    /// The entry and its control-flow callees: the module's buffers.
    Global,
    /// A fusion's body.
    Fused,
    /// Applied inside an instruction: thread-local values.
    ThreadLocal,
}

/// The positions of the global computations and the buffers they form.
#[derive(Debug, Clone)]
pub(crate) struct Dataflow {
    pub roles: Vec<Role>,
    /// Each instruction's first position (`usize::MAX` outside global
    /// computations) and how many it has.
    pub base: Vec<usize>,
    /// The instruction of each position.
    pub inst: Vec<usize>,
    /// Whether each position defines a value.
    pub defines: Vec<bool>,
    /// The computations that two or more calls call.
    shared_callee: Vec<bool>,
    /// Positions joined into values.
    values: Vec<usize>,
    /// Positions joined into buffers.
    buffers: Vec<usize>,
}

/// What a join makes of two positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// One value.
    Value,
    /// Two values in one buffer.
    Buffer,
}

impl Dataflow {
    /// The position of `inst`'s output at `index`.
    pub fn pos(&self, graph: &Graph, inst: usize, index: &[usize]) -> Option<usize> {
        let base = *self.base.get(inst).filter(|b| **b != usize::MAX)?;
        base.checked_add(offset(graph.shape(graph.insts.get(inst)?), index)?)
    }

    /// All positions of `inst`.
    pub fn positions(&self, graph: &Graph, inst: usize) -> std::ops::Range<usize> {
        match (self.base.get(inst), graph.insts.get(inst)) {
            (Some(&b), Some(i)) if b != usize::MAX => b..b.saturating_add(count(graph.shape(i))),
            _ => 0..0,
        }
    }

    /// Whether two or more calls call computation `c`: its parameters are
    /// values of their own, sharing the operands' buffers.
    pub fn shared_callee(&self, c: usize) -> bool {
        self.shared_callee.get(c) == Some(&true)
    }

    /// The buffer (a representative position) of position `p`.
    pub fn buffer(&self, p: usize) -> usize {
        root(&self.buffers, p)
    }

    /// The value (a representative position) of position `p`.
    pub fn value(&self, p: usize) -> usize {
        root(&self.values, p)
    }

    fn join(&mut self, a: usize, b: usize, join: Join) {
        if join == Join::Value {
            unite(&mut self.values, a, b);
        }
        unite(&mut self.buffers, a, b);
    }
}

/// The root of `p` in a union-find forest.
fn root(parent: &[usize], mut p: usize) -> usize {
    while let Some(&up) = parent.get(p) {
        if up == p {
            break;
        }
        p = up;
    }
    p
}

/// Joins the trees of `a` and `b`, the lower root on top, halving paths.
fn unite(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (halve(parent, a), halve(parent, b));
    if ra != rb {
        let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
        if let Some(slot) = parent.get_mut(high) {
            *slot = low;
        }
    }
}

fn halve(parent: &mut [usize], mut p: usize) -> usize {
    while let Some(&up) = parent.get(p) {
        if up == p {
            break;
        }
        let grand = parent.get(up).copied().unwrap_or(up);
        if let Some(slot) = parent.get_mut(p) {
            *slot = grand;
        }
        p = grand;
    }
    p
}

/// Opcodes whose output is (part of) an operand's: they define no value.
fn passes_through(graph: &Graph, inst: &Inst) -> bool {
    matches!(
        graph.opcode(inst),
        "get-tuple-element" | "bitcast" | "call" | "opt-barrier" | "domain" | "add-dependency"
    ) || graph.opcode(inst).ends_with("-done")
}

/// The roles of the computations, from the entry down: the global ones
/// first, so that a computation reached both ways keeps its buffers.
fn roles(graph: &Graph) -> Vec<Role> {
    let mut roles = vec![Role::Unused; graph.comps.len()];
    let mut global = vec![graph.entry];
    let mut rest = Vec::new();
    while let Some((c, role)) = global
        .pop()
        .map(|c| (c, Role::Global))
        .or_else(|| rest.pop())
    {
        match roles.get_mut(c) {
            Some(slot) if *slot == Role::Unused => *slot = role,
            _ => continue,
        }
        for i in graph.comps.get(c).map_or(0..0, |c| c.instructions()) {
            let Some(inst) = graph.insts.get(i) else {
                continue;
            };
            let callee = match (inst.calls, role) {
                (Calls::None, _) => continue,
                (Calls::Control, Role::Global) => Role::Global,
                (Calls::Fused, _) => Role::Fused,
                _ => Role::ThreadLocal,
            };
            for &callee_comp in graph.called(inst) {
                if callee == Role::Global {
                    global.push(callee_comp);
                } else {
                    rest.push((callee_comp, callee));
                }
            }
        }
    }
    roles
}

/// Which computations two or more `call`s call.
fn shared_callees(graph: &Graph) -> Vec<bool> {
    let mut sites = vec![0_u8; graph.comps.len()];
    for inst in graph.insts.iter().filter(|i| graph.opcode(i) == "call") {
        for &c in graph.called(inst) {
            if let Some(n) = sites.get_mut(c) {
                *n = n.saturating_add(1);
            }
        }
    }
    sites.into_iter().map(|n| n > 1).collect()
}

/// Builds the positions and joins those that share storage.
pub(crate) fn dataflow(graph: &Graph) -> Result<Dataflow, LivenessError> {
    let mut flow = lay_out_positions(graph);
    for (i, inst) in graph.insts.iter().enumerate() {
        if flow.base.get(i) == Some(&usize::MAX) {
            continue;
        }
        join_instruction(graph, &mut flow, i, inst)?;
    }
    flow.keep_first_definitions();
    join_io_aliases(graph, &mut flow)?;
    Ok(flow)
}

/// The computations a while calls: their parameters are phi values.
fn loop_computations(graph: &Graph) -> Vec<bool> {
    let mut loop_computation = vec![false; graph.comps.len()];
    for inst in graph.insts.iter().filter(|i| graph.opcode(i) == "while") {
        for &c in graph.called(inst) {
            if let Some(slot) = loop_computation.get_mut(c) {
                *slot = true;
            }
        }
    }
    loop_computation
}

/// The positions of the global computations' instructions, each its own
/// value and buffer, and which define a value.
fn lay_out_positions(graph: &Graph) -> Dataflow {
    let roles = roles(graph);
    let loop_computation = loop_computations(graph);
    // The parameters of a computation that two or more calls call hold
    // what each call site passes: values of their own, in one buffer with
    // the operands (XLA's value set of every site's operand).
    let shared_callee = shared_callees(graph);
    let mut base = vec![usize::MAX; graph.insts.len()];
    let mut inst_of = Vec::new();
    let mut defines = Vec::new();
    for (i, inst) in graph.insts.iter().enumerate() {
        if roles.get(inst.computation()) != Some(&Role::Global) {
            continue;
        }
        if let Some(slot) = base.get_mut(i) {
            *slot = inst_of.len();
        }
        let n = count(graph.shape(inst));
        let defining = match graph.opcode(inst) {
            "parameter" => {
                inst.computation() == graph.entry
                    || loop_computation.get(inst.computation()) == Some(&true)
                    || shared_callee.get(inst.computation()) == Some(&true)
            }
            _ => !passes_through(graph, inst),
        };
        for k in 0..n {
            inst_of.push(i);
            defines.push(defining && (k == 0 || graph.opcode(inst) != "tuple"));
        }
    }
    Dataflow {
        shared_callee,
        roles,
        base,
        values: (0..inst_of.len()).collect(),
        buffers: (0..inst_of.len()).collect(),
        inst: inst_of,
        defines,
    }
}

impl Dataflow {
    /// A value joined to an earlier one (an async start's operands) is that
    /// one: the first definition stands.
    fn keep_first_definitions(&mut self) {
        let mut seen = vec![false; self.inst.len()];
        for p in 0..self.inst.len() {
            if self.defines.get(p) != Some(&true) {
                continue;
            }
            let v = self.value(p);
            if seen.get(v) == Some(&true) {
                if let Some(d) = self.defines.get_mut(p) {
                    *d = false;
                }
            } else if let Some(s) = seen.get_mut(v) {
                *s = true;
            }
        }
    }
}

/// Joins the buffers of the entry's outputs and the parameters the
/// module's `input_output_alias` pairs them with.
fn join_io_aliases(graph: &Graph, flow: &mut Dataflow) -> Result<(), LivenessError> {
    for alias in &graph.io_alias {
        let entry = graph.comps.get(graph.entry);
        let param = entry.and_then(|c| c.parameters.get(alias.operand)).copied();
        let root = entry.and_then(|c| c.root);
        let pair = param.zip(root).and_then(|(p, r)| {
            Some((
                flow.pos(graph, r, &alias.output)?,
                flow.pos(graph, p, &alias.operand_index)?,
            ))
        });
        let (a, b) = pair.ok_or_else(|| LivenessError::Malformed {
            instruction: "input_output_alias".to_owned(),
            message: format!(
                "no output {:?} or parameter {}",
                alias.output, alias.operand
            ),
        })?;
        flow.join(a, b, Join::Buffer);
    }
    Ok(())
}

/// Joins `inst`'s output at `index` with `other`'s at `other_index`, every
/// sub-shape below them too.
fn join_trees(
    graph: &Graph,
    flow: &mut Dataflow,
    (inst, index): (usize, &[usize]),
    (other, other_index): (usize, &[usize]),
    join: Join,
) -> Result<(), LivenessError> {
    let malformed = || LivenessError::Malformed {
        instruction: graph
            .insts
            .get(inst)
            .map_or_else(String::new, |i| graph.name(i).to_owned()),
        message: format!("its shape does not match that of its operand at {other_index:?}"),
    };
    let shape = graph
        .insts
        .get(inst)
        .map(|i| graph.shape(i))
        .ok_or_else(malformed)?;
    let Some(sub) = sub_shape(shape, index) else {
        return Err(malformed());
    };
    for (rest, _) in subshapes(sub) {
        let mut a_index = index.to_vec();
        a_index.extend(&rest);
        let mut b_index = other_index.to_vec();
        b_index.extend(&rest);
        let a = flow.pos(graph, inst, &a_index).ok_or_else(malformed)?;
        let b = flow.pos(graph, other, &b_index).ok_or_else(malformed)?;
        flow.join(a, b, join);
    }
    Ok(())
}

/// The sub-shape at `index`.
pub(crate) fn sub_shape<'a>(
    shape: &'a schema::Shape,
    index: &[usize],
) -> Option<&'a schema::Shape> {
    index.iter().try_fold(shape, |s, &k| s.tuple_shapes.get(k))
}

/// The `k`th operand of `inst`.
fn nth_operand(graph: &Graph, inst: &Inst, k: usize) -> Option<usize> {
    graph.operands(inst).get(k).copied()
}

/// The `k`th computation `inst` calls.
fn nth_callee<'g>(graph: &'g Graph, inst: &Inst, k: usize) -> Option<&'g Comp> {
    graph.called(inst).get(k).and_then(|&c| graph.comps.get(c))
}

/// The error of `inst` that `message` says.
fn malformed(graph: &Graph, inst: &Inst, message: &str) -> LivenessError {
    LivenessError::Malformed {
        instruction: graph.name(inst).to_owned(),
        message: message.to_owned(),
    }
}

/// Joins the positions of `inst` (instruction `i`) with those of its
/// operands and callees that hold the same value or storage.
fn join_instruction(
    graph: &Graph,
    flow: &mut Dataflow,
    i: usize,
    inst: &Inst,
) -> Result<(), LivenessError> {
    let first = || nth_operand(graph, inst, 0).ok_or_else(|| malformed(graph, inst, "no operand"));
    match graph.opcode(inst) {
        "get-tuple-element" => {
            let o = first()?;
            join_trees(
                graph,
                flow,
                (i, &[]),
                (o, &[inst.tuple_index()]),
                Join::Value,
            )
        }
        "tuple" => {
            for (k, &o) in graph.operands(inst).iter().enumerate() {
                join_trees(graph, flow, (i, &[k]), (o, &[]), Join::Value)?;
            }
            Ok(())
        }
        "bitcast" | "opt-barrier" | "domain" | "add-dependency" => {
            let o = first()?;
            join_trees(graph, flow, (i, &[]), (o, &[]), Join::Value)
        }
        "while" => join_while(graph, flow, i, inst),
        "conditional" => join_conditional(graph, flow, i, inst),
        "call" => join_call(graph, flow, i, inst),
        "copy-start" => {
            // (destination, source, context): the source is the operand.
            let o = first()?;
            join_trees(graph, flow, (i, &[1]), (o, &[]), Join::Value)
        }
        start if start.ends_with("-start") => join_start(graph, flow, i, inst),
        done if done.ends_with("-done") => {
            let o = first()?;
            join_done(graph, flow, (i, done), o)
        }
        _ => {
            for (output, operand, operand_index) in in_place_pairs(graph, inst) {
                let o = nth_operand(graph, inst, operand)
                    .ok_or_else(|| malformed(graph, inst, "an alias names no operand"))?;
                join_trees(graph, flow, (i, &output), (o, &operand_index), Join::Buffer)?;
            }
            Ok(())
        }
    }
}

/// A while's output, its operand, its condition's and body's parameters
/// and its body's result: one buffer.
fn join_while(
    graph: &Graph,
    flow: &mut Dataflow,
    i: usize,
    inst: &Inst,
) -> Result<(), LivenessError> {
    let o = nth_operand(graph, inst, 0).ok_or_else(|| malformed(graph, inst, "no operand"))?;
    join_trees(graph, flow, (i, &[]), (o, &[]), Join::Buffer)?;
    let (condition, body) = (nth_callee(graph, inst, 0), nth_callee(graph, inst, 1));
    for c in [condition, body].into_iter().flatten() {
        if let Some(&p) = c.parameters.first() {
            join_trees(graph, flow, (i, &[]), (p, &[]), Join::Buffer)?;
        }
    }
    if let Some(root) = body.and_then(|c| c.root) {
        join_trees(graph, flow, (i, &[]), (root, &[]), Join::Buffer)?;
    }
    Ok(())
}

/// Each branch's parameter is its operand's value; the branches' results
/// share the conditional's buffer.
fn join_conditional(
    graph: &Graph,
    flow: &mut Dataflow,
    i: usize,
    inst: &Inst,
) -> Result<(), LivenessError> {
    for k in 0..graph.called(inst).len() {
        let c = nth_callee(graph, inst, k).ok_or_else(|| malformed(graph, inst, "no branch"))?;
        if let (Some(&p), Some(o)) = (
            c.parameters.first(),
            nth_operand(graph, inst, k.saturating_add(1)),
        ) {
            join_trees(graph, flow, (p, &[]), (o, &[]), Join::Value)?;
        }
        if let Some(root) = c.root {
            join_trees(graph, flow, (i, &[]), (root, &[]), Join::Buffer)?;
        }
    }
    Ok(())
}

/// A call's parameters are its operands (values of their own in the
/// operands' buffers when the computation is called twice); its output is
/// its computation's result.
fn join_call(
    graph: &Graph,
    flow: &mut Dataflow,
    i: usize,
    inst: &Inst,
) -> Result<(), LivenessError> {
    let c = nth_callee(graph, inst, 0).ok_or_else(|| malformed(graph, inst, "no computation"))?;
    let shared = graph
        .called(inst)
        .first()
        .is_some_and(|&c| flow.shared_callee(c));
    let join = if shared { Join::Buffer } else { Join::Value };
    for (k, &p) in c.parameters.iter().enumerate() {
        let o = nth_operand(graph, inst, k)
            .ok_or_else(|| malformed(graph, inst, "too few operands"))?;
        join_trees(graph, flow, (p, &[]), (o, &[]), join)?;
    }
    if let Some(root) = c.root {
        join_trees(graph, flow, (i, &[]), (root, &[]), Join::Value)?;
    }
    Ok(())
}

/// An async start's output, `((operands...), outputs, context)`: the
/// operands as they are.
fn join_start(
    graph: &Graph,
    flow: &mut Dataflow,
    i: usize,
    inst: &Inst,
) -> Result<(), LivenessError> {
    let operands = graph.shape(inst).tuple_shapes.first();
    if operands.is_some_and(|s| {
        super::shapes::is_tuple(s) && s.tuple_shapes.len() == graph.operands(inst).len()
    }) {
        for (k, &o) in graph.operands(inst).iter().enumerate() {
            join_trees(graph, flow, (i, &[0, k]), (o, &[]), Join::Value)?;
        }
    }
    Ok(())
}

/// An async done's output (instruction `i`, opcode `done`) is the outputs
/// its start `o` holds.
fn join_done(
    graph: &Graph,
    flow: &mut Dataflow,
    (i, done): (usize, &str),
    o: usize,
) -> Result<(), LivenessError> {
    let operand = graph.insts.get(o).map(|x| graph.shape(x));
    let from: &[usize] = match (done, operand) {
        ("copy-done", _) => &[0],
        (_, Some(s)) if super::shapes::is_tuple(s) => &[1],
        _ => &[],
    };
    join_trees(graph, flow, (i, &[]), (o, from), Join::Value)
}
