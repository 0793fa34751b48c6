//! The order buffer assignment breaks ties in (`post_order_position` of
//! `AssignBuffersForComputations`): the computations callers first (the
//! reverse of the order the module text prints them in, callees before
//! callers), and in each its instructions in post order
//! (`MakeInstructionPostOrder`): a depth-first walk over operands, first
//! operand first, from each instruction without users in text order.

use super::graph::Graph;

/// The post-order position of every instruction, `usize::MAX` for one the
/// walk does not reach.
pub(crate) fn post_order_positions(graph: &Graph) -> Vec<usize> {
    let mut position = vec![usize::MAX; graph.insts.len()];
    let mut entered = vec![false; graph.insts.len()];
    let mut next = 0_usize;
    let mut stack: Vec<usize> = Vec::new();
    for comp in graph.comps.iter().rev() {
        for start in comp.instructions() {
            if graph.insts.get(start).is_none_or(|i| i.users() != 0) {
                continue;
            }
            stack.push(start);
            while let Some(&current) = stack.last() {
                let Some(seen) = entered.get_mut(current) else {
                    stack.pop();
                    continue;
                };
                if *seen {
                    stack.pop();
                    if let Some(slot) = position.get_mut(current)
                        && *slot == usize::MAX
                    {
                        *slot = next;
                        next = next.saturating_add(1);
                    }
                    continue;
                }
                *seen = true;
                if let Some(inst) = graph.insts.get(current) {
                    stack.extend(graph.operands(inst).iter().rev());
                }
            }
        }
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::graph::read_graph;

    #[test]
    fn operands_come_first_in_operand_order_not_in_schedule_order() {
        let text = "HloModule m, is_scheduled=true

ENTRY %main (a: f32[4], b: f32[4]) -> (f32[4], f32[4]) {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)
  %y = f32[4]{0} negate(%b)
  %x = f32[4]{0} negate(%a)
  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%x, %y)
}
";
        let graph = read_graph(text.as_bytes()).unwrap();
        let position = post_order_positions(&graph);
        let names: Vec<&str> = graph.insts.iter().map(|i| graph.name(i)).collect();
        let mut ordered: Vec<(usize, &str)> = position.into_iter().zip(names).collect();
        ordered.sort_unstable();
        let ordered: Vec<&str> = ordered.into_iter().map(|(_, n)| n).collect();
        assert_eq!(ordered, ["a", "x", "b", "y", "t"]);
    }
}
