//! The order XLA numbers its values in (`HloValue::id`, the order of the
//! dump's logical buffers): the computations in call-graph post order
//! (callees first, visited in their callers' instruction post order, a
//! while's condition before its body), in each its instructions in post
//! order, the values an instruction defines before
//! the phi values of whiles and conditionals. The value of a buffer that
//! names it is chosen by this order: the first of its largest values in a
//! static allocation (as XLA's peak counts one), the first defined in a
//! heap buffer (the one XLA's heap trace allocates).

use super::buffers::Value;
use super::graph::Graph;
use super::post_order::post_order_positions;

/// A sort key per value of the order XLA numbers values in.
pub(crate) struct ValueOrder {
    /// The post-order rank of each computation.
    comp_rank: Vec<usize>,
    /// The post-order position of each instruction.
    position: Vec<usize>,
    /// Whether each instruction's values are phi values.
    phi: Vec<bool>,
}

impl ValueOrder {
    /// The order of `graph`'s values.
    pub fn new(graph: &Graph) -> Self {
        let position = post_order_positions(graph);
        // Each computation's instructions that call computations, in post
        // order: the order its callees are visited in (the others have
        // none to visit).
        let mut ordered: Vec<Vec<usize>> = vec![Vec::new(); graph.comps.len()];
        for (i, inst) in graph.insts.iter().enumerate() {
            if let Some(callers) = ordered
                .get_mut(inst.computation())
                .filter(|_| !graph.called(inst).is_empty())
            {
                callers.push(i);
            }
        }
        for callers in &mut ordered {
            callers.sort_by_key(|&i| position.get(i).copied().unwrap_or(usize::MAX));
        }
        let mut comp_rank = vec![usize::MAX; graph.comps.len()];
        let mut entered = vec![false; graph.comps.len()];
        let mut next = 0_usize;
        // Depth first over the computations each instruction calls, in
        // order: (computation, its next instruction, that one's next callee).
        let mut stack = vec![(graph.entry, 0_usize, 0_usize)];
        if let Some(e) = entered.get_mut(graph.entry) {
            *e = true;
        }
        while let Some(top) = stack.last_mut() {
            let (c, i, k) = *top;
            let inst = ordered
                .get(c)
                .and_then(|insts| insts.get(i))
                .and_then(|&x| graph.insts.get(x));
            let Some(inst) = inst else {
                stack.pop();
                if let Some(rank) = comp_rank.get_mut(c) {
                    *rank = next;
                    next += 1;
                }
                continue;
            };
            match graph.called(inst).get(k) {
                None => *top = (c, i + 1, 0),
                Some(&callee) => {
                    *top = (c, i, k + 1);
                    if let Some(seen) = entered.get_mut(callee).filter(|s| !**s) {
                        *seen = true;
                        stack.push((callee, 0, 0));
                    }
                }
            }
        }
        let mut loop_comps = vec![false; graph.comps.len()];
        for inst in graph.insts.iter().filter(|i| graph.opcode(i) == "while") {
            for &c in graph.called(inst) {
                if let Some(slot) = loop_comps.get_mut(c) {
                    *slot = true;
                }
            }
        }
        let phi = graph
            .insts
            .iter()
            .map(|i| {
                matches!(graph.opcode(i), "while" | "conditional")
                    || (graph.opcode(i) == "parameter"
                        && loop_comps.get(i.computation()) == Some(&true))
            })
            .collect();
        Self {
            comp_rank,
            position,
            phi,
        }
    }

    /// The sort key of value `v` of `graph`: earlier values first.
    pub fn key<'v>(&self, graph: &Graph, v: &'v Value) -> (bool, usize, usize, &'v [usize]) {
        let comp = graph
            .insts
            .get(v.inst)
            .map_or(usize::MAX, |i| i.computation());
        (
            self.phi.get(v.inst).copied().unwrap_or(true),
            self.comp_rank.get(comp).copied().unwrap_or(usize::MAX),
            self.position.get(v.inst).copied().unwrap_or(usize::MAX),
            &v.index,
        )
    }
}
