//! Buffers whose name the module text leaves open. A buffer is named by
//! the first of its largest values (the first defined in the heap) in the
//! order XLA numbers values in ([`ValueOrder`]). That order ranks the
//! computations callees first, but two computations the call graph does
//! not order (neither calls the other, directly or not: a conditional's
//! branches) come in the order of XLA's module, which its dumped
//! `HloModuleProto` records and the text does not. When the first value
//! ties with a value of such a computation on everything else, XLA may
//! name the buffer by that one: the report says so.

use super::buffers::Value;
use super::graph::{Calls, Graph};
use super::value_order::ValueOrder;

/// Buffers warned of one by one; the rest are counted.
const MAX_WARNED: usize = 8;

/// Computations of other names than the first named in one warning.
const MAX_NAMED: usize = 3;

/// The nesting of the global computations (the entry and its control-flow
/// callees) in a depth-first walk over their calls.
struct Nesting {
    /// When the walk enters each computation (`usize::MAX`: never).
    enter: Vec<usize>,
    /// When it leaves each.
    leave: Vec<usize>,
    /// The calls of a computation already left by the walk from another
    /// that does not hold it (a computation with two callers): (caller,
    /// callee).
    cross: Vec<(usize, usize)>,
}

impl Nesting {
    fn new(graph: &Graph) -> Self {
        let n = graph.comps.len();
        let mut nesting = Self {
            enter: vec![usize::MAX; n],
            leave: vec![usize::MAX; n],
            cross: Vec::new(),
        };
        let mut clock = 0_usize;
        let Some(slot) = nesting.enter.get_mut(graph.entry) else {
            return nesting;
        };
        *slot = clock;
        clock += 1;
        // (computation, its next instruction, that one's next callee).
        let start = graph
            .comps
            .get(graph.entry)
            .map_or(0, |c| c.instructions().start);
        let mut stack = vec![(graph.entry, start, 0_usize)];
        while let Some(top) = stack.last_mut() {
            let (c, i, k) = *top;
            let inst = graph
                .comps
                .get(c)
                .filter(|comp| comp.instructions().contains(&i))
                .and_then(|_| graph.insts.get(i));
            let Some(inst) = inst else {
                stack.pop();
                if let Some(slot) = nesting.leave.get_mut(c) {
                    *slot = clock;
                    clock += 1;
                }
                continue;
            };
            let callee = (inst.calls == Calls::Control)
                .then(|| graph.called(inst).get(k).copied())
                .flatten();
            let Some(callee) = callee else {
                *top = (c, i + 1, 0);
                continue;
            };
            *top = (c, i, k + 1);
            match nesting.enter.get(callee).copied() {
                Some(usize::MAX) => {
                    nesting.enter[callee] = clock;
                    clock += 1;
                    let first = graph
                        .comps
                        .get(callee)
                        .map_or(0, |c| c.instructions().start);
                    stack.push((callee, first, 0));
                }
                // Entered after `c` (which is still open): one of its own.
                Some(entered) if entered > nesting.enter[c] => {}
                Some(_) => nesting.cross.push((c, callee)),
                None => {}
            }
        }
        nesting
    }

    /// Whether the walk entered `b` inside `a` (or `b` is `a`).
    fn holds(&self, a: usize, b: usize) -> bool {
        match (self.enter.get(a), self.leave.get(a)) {
            (Some(&ea), Some(&la)) => self
                .enter
                .get(b)
                .zip(self.leave.get(b))
                .is_some_and(|(&eb, &lb)| ea <= eb && lb <= la),
            _ => false,
        }
    }

    /// Whether `a` calls `b`, directly or through others (or is `b`). Two
    /// comparisons where every global computation has one caller; else
    /// the calls into computations of two callers are followed too.
    fn calls(&self, a: usize, b: usize) -> bool {
        if self.holds(a, b) {
            return true;
        }
        if self.cross.is_empty() {
            return false;
        }
        let mut reached = vec![a];
        let mut seen = vec![false; self.enter.len()];
        while let Some(s) = reached.pop() {
            for &(caller, callee) in &self.cross {
                if self.holds(s, caller) && seen.get(callee) == Some(&false) {
                    if self.holds(callee, b) {
                        return true;
                    }
                    seen[callee] = true;
                    reached.push(callee);
                }
            }
        }
        false
    }

    /// Whether the call graph orders `a` and `b`: one calls the other.
    fn ordered(&self, a: usize, b: usize) -> bool {
        self.calls(a, b) || self.calls(b, a)
    }
}

/// The warnings of the buffers whose name the text leaves open, gathered
/// as the buffers are named.
pub(crate) struct NameTies {
    nesting: Nesting,
    warnings: Vec<String>,
    /// Such buffers beyond the ones warned of.
    more: usize,
}

impl NameTies {
    /// For the buffers of `graph`.
    pub fn new(graph: &Graph) -> Self {
        Self {
            nesting: Nesting::new(graph),
            warnings: Vec::new(),
            more: 0,
        }
    }

    /// Checks the buffer of `values` named by `named`, the first of them
    /// by [`ValueOrder`] among the largest (`heap`: among the first
    /// defined).
    pub fn check<'v>(
        &mut self,
        graph: &Graph,
        order: &ValueOrder,
        (named, heap): (&Value, bool),
        values: impl Iterator<Item = &'v Value>,
    ) {
        let comp_of = |v: &Value| graph.insts.get(v.inst).map(|i| i.computation());
        let Some(home) = comp_of(named) else {
            return;
        };
        let phi = order.key(graph, named).0;
        let mut rivals: Vec<(usize, &Value)> = values
            .filter(|x| {
                if heap {
                    x.start == named.start
                } else {
                    x.bytes == named.bytes
                }
            })
            .filter(|x| order.key(graph, x).0 == phi)
            .filter_map(|x| comp_of(x).map(|c| (c, x)))
            .filter(|&(c, _)| c != home && !self.nesting.ordered(home, c))
            .collect();
        if rivals.is_empty() {
            return;
        }
        if self.warnings.len() >= MAX_WARNED {
            self.more += 1;
            return;
        }
        // The first value of each computation, as XLA would take it.
        rivals.sort_by(|x, y| order.key(graph, x.1).cmp(&order.key(graph, y.1)));
        let mut comps: Vec<usize> = Vec::new();
        rivals.retain(|&(c, _)| {
            let first = !comps.contains(&c);
            if first {
                comps.push(c);
            }
            first
        });
        let mut names: Vec<String> = rivals
            .iter()
            .take(MAX_NAMED)
            .map(|&(_, x)| value_name(graph, x))
            .collect();
        if rivals.len() > MAX_NAMED {
            names.push(format!("{} others", rivals.len() - MAX_NAMED));
        }
        let how = if heap {
            "are defined at the same step"
        } else {
            "are equal in size"
        };
        self.warnings.push(format!(
            "buffer {} may be named {} by XLA: they share it and {how}, and XLA names a buffer by the first of such values in the order it numbers computations in, which the module text does not record (the dump `*after_optimizations.hlo.pb` does)",
            value_name(graph, named),
            or_list(&names),
        ));
    }

    /// The warnings, the last counting the buffers not warned of one by
    /// one.
    pub fn warnings(mut self) -> Vec<String> {
        if self.more > 0 {
            self.warnings.push(format!(
                "{} more buffers may be named otherwise by XLA, for the same reason",
                self.more
            ));
        }
        self.warnings
    }
}

/// "`name{index}` (of `computation`)".
fn value_name(graph: &Graph, v: &Value) -> String {
    let Some(inst) = graph.insts.get(v.inst) else {
        return String::new();
    };
    let index = if v.index.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = v.index.iter().map(ToString::to_string).collect();
        format!("{{{}}}", parts.join(","))
    };
    let comp = graph
        .comps
        .get(inst.computation())
        .map_or("", |c| c.name.as_str());
    format!("`{}{index}` (of `{comp}`)", graph.name(inst))
}

/// "a", "a or b", "a, b or c".
fn or_list(names: &[String]) -> String {
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::graph::read_graph;
    use crate::memory_from_module_text;

    /// A module whose conditional's three branches give results of the
    /// shapes `results` (not in a tuple: one buffer for the three, the
    /// module's output).
    fn switch(results: [&str; 3]) -> String {
        let mut text = String::from("HloModule m, is_scheduled=true\n\n");
        for (k, (op, shape)) in ["negate", "exponential", "sine"]
            .iter()
            .zip(results)
            .enumerate()
        {
            text.push_str(&format!(
                "%b{k} (p{k}: (f32[16])) -> f32[16] {{\n  %p{k} = (f32[16]{{0}}) parameter(0)\n  %g{k} = f32[16]{{0}} get-tuple-element(%p{k}), index=0\n  ROOT %r{k} = {shape} {op}(%g{k})\n}}\n\n"
            ));
        }
        text.push_str(
            "ENTRY %main (i: s32[], x: f32[16]) -> f32[16] {
  %i = s32[] parameter(0)
  %x = f32[16]{0} parameter(1)
  %t = (f32[16]{0}) tuple(%x)
  ROOT %c = f32[16]{0} conditional(%i, %t, %t, %t), branch_computations={%b0, %b1, %b2}
}
",
        );
        text
    }

    #[test]
    fn equal_results_of_branches_leave_the_name_open() {
        let memory = memory_from_module_text(&switch(["f32[16]{0}"; 3])).unwrap();
        assert_eq!(
            memory.warnings,
            [
                "buffer `r0` (of `b0`) may be named `r1` (of `b1`) or `r2` (of `b2`) by XLA: they share it and are equal in size, and XLA names a buffer by the first of such values in the order it numbers computations in, which the module text does not record (the dump `*after_optimizations.hlo.pb` does)"
            ]
        );
        let output = memory.buffers.iter().find(|b| b.buffer.name == "r0");
        assert_eq!(output.map(|b| b.buffer.bytes), Some(64));
    }

    #[test]
    fn a_largest_result_names_its_buffer() {
        // The last branch's result is tiled: 1024 bytes, the others' 64.
        let tiled = "f32[16]{0:T(256)}";
        let memory = memory_from_module_text(&switch(["f32[16]{0}", "f32[16]{0}", tiled])).unwrap();
        assert!(memory.warnings.is_empty(), "{:?}", memory.warnings);
        let output = memory.buffers.iter().find(|b| b.buffer.name == "r2");
        assert_eq!(output.map(|b| b.buffer.bytes), Some(1024));
    }

    #[test]
    fn a_computation_of_two_callers_is_ordered_with_both() {
        let text = "HloModule m
%f (a: f32[4]) -> f32[4] {
  ROOT %a = f32[4]{0} parameter(0)
}
%b0 (p0: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  ROOT %c0 = f32[4]{0} call(%p0), to_apply=%f
}
%b1 (p1: f32[4]) -> f32[4] {
  %p1 = f32[4]{0} parameter(0)
  ROOT %c1 = f32[4]{0} call(%p1), to_apply=%f
}
ENTRY %main (i: s32[], x: f32[4]) -> f32[4] {
  %i = s32[] parameter(0)
  %x = f32[4]{0} parameter(1)
  ROOT %c = f32[4]{0} conditional(%i, %x, %x), branch_computations={%b0, %b1}
}
";
        let graph = read_graph(text.as_bytes()).unwrap();
        let comp = |name: &str| graph.comps.iter().position(|c| c.name == name).unwrap();
        let nesting = Nesting::new(&graph);
        let (f, b0, b1, main) = (comp("f"), comp("b0"), comp("b1"), comp("main"));
        assert!(!nesting.cross.is_empty());
        for (a, b) in [(b0, f), (b1, f), (main, f), (main, b1)] {
            assert!(nesting.calls(a, b) && !nesting.calls(b, a), "{a} {b}");
        }
        assert!(!nesting.ordered(b0, b1));
    }
}
