//! The flattened schedule of `HloLiveRange`: the entry computation's
//! instructions in order, each control-flow instruction preceded by the
//! computations it calls (a while's condition, then its body; a
//! conditional's branches; a call's computation), inlined once.

use super::LivenessError;
use super::graph::{Calls, Graph};

/// The instructions in program order, and each one's step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schedule {
    pub sequence: Vec<usize>,
    /// The step of each instruction, `u64::MAX` when it has none.
    pub step: Vec<u64>,
}

impl Schedule {
    /// The step after the last: where the program ends.
    pub fn end(&self) -> u64 {
        u64::try_from(self.sequence.len()).unwrap_or(u64::MAX)
    }
}

/// Flattens the module's schedule without recursion.
///
/// # Errors
///
/// [`LivenessError::Malformed`] when a computation calls itself.
pub(crate) fn flatten(graph: &Graph) -> Result<Schedule, LivenessError> {
    let mut schedule = Schedule {
        sequence: Vec::new(),
        step: vec![u64::MAX; graph.insts.len()],
    };
    let mut visited = vec![false; graph.comps.len()];
    let mut on_stack = vec![false; graph.comps.len()];
    // (computation, next instruction, whether its callees are done)
    let mut stack = vec![(graph.entry, 0_usize, false)];
    if let Some(v) = visited.get_mut(graph.entry) {
        *v = true;
    }
    if let Some(v) = on_stack.get_mut(graph.entry) {
        *v = true;
    }
    while let Some(frame) = stack.last_mut() {
        let (c, k, expanded) = *frame;
        let Some(i) = graph
            .comps
            .get(c)
            .and_then(|comp| comp.instructions().nth(k))
        else {
            if let Some(v) = on_stack.get_mut(c) {
                *v = false;
            }
            stack.pop();
            continue;
        };
        let inst = graph.insts.get(i);
        if !expanded && inst.is_some_and(|x| x.calls == Calls::Control) {
            frame.2 = true;
            let called = inst.map_or(&[][..], |x| graph.called(x));
            for &callee in called.iter().rev() {
                if on_stack.get(callee) == Some(&true) {
                    return Err(LivenessError::Malformed {
                        instruction: inst.map_or_else(String::new, |x| graph.name(x).to_owned()),
                        message: "a computation calls itself".to_owned(),
                    });
                }
                if visited.get(callee) == Some(&false) {
                    if let Some(v) = visited.get_mut(callee) {
                        *v = true;
                    }
                    if let Some(v) = on_stack.get_mut(callee) {
                        *v = true;
                    }
                    stack.push((callee, 0, false));
                }
            }
            continue;
        }
        *frame = (c, k.saturating_add(1), false);
        if let Some(s) = schedule.step.get_mut(i) {
            *s = u64::try_from(schedule.sequence.len()).unwrap_or(u64::MAX);
        }
        schedule.sequence.push(i);
    }
    Ok(schedule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::graph::read_graph;

    #[test]
    fn a_while_runs_its_condition_then_its_body_before_itself() {
        let text = "HloModule m, is_scheduled=true

%body (b: s32[]) -> s32[] {
  %b = s32[] parameter(0)
  ROOT %n = s32[] negate(%b)
}

%cond (c: s32[]) -> pred[] {
  %c = s32[] parameter(0)
  ROOT %t = pred[] compare(%c, %c), direction=LT
}

ENTRY %e (p: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  ROOT %w = s32[] while(%p), condition=%cond, body=%body
}
";
        let graph = read_graph(text.as_bytes()).unwrap();
        let schedule = flatten(&graph).unwrap();
        let names: Vec<&str> = schedule
            .sequence
            .iter()
            .map(|&i| graph.name(&graph.insts[i]))
            .collect();
        assert_eq!(names, ["p", "c", "t", "b", "n", "w"]);
        assert_eq!(schedule.end(), 6);
    }
}
