//! The outputs XLA updates in place in an operand's buffer
//! (`HloDataflowAnalysis::GetInPlaceInputOutputPairs`): a
//! dynamic-update-slice's operand 0, a scatter's operands, a fusion whose
//! output is one of those on a fusion parameter, a custom call's
//! `output_to_operand_aliasing`.

use super::graph::{Graph, Inst};

/// `(output index, operand number, operand index)` for each output of
/// `inst` that shares an operand's buffer.
pub(crate) fn in_place_pairs(graph: &Graph, inst: &Inst) -> Vec<(Vec<usize>, usize, Vec<usize>)> {
    match graph.opcode(inst) {
        "dynamic-update-slice" => vec![(Vec::new(), 0, Vec::new())],
        "scatter" => scatter_pairs(graph, inst),
        "custom-call" => graph
            .aliasing(inst)
            .iter()
            .map(|a| (a.output.clone(), a.operand, a.operand_index.clone()))
            .collect(),
        "fusion" => fusion_pairs(graph, inst),
        _ => Vec::new(),
    }
}

fn scatter_pairs(graph: &Graph, inst: &Inst) -> Vec<(Vec<usize>, usize, Vec<usize>)> {
    let n = graph.operands(inst).len().saturating_sub(1) / 2;
    if n <= 1 {
        return vec![(Vec::new(), 0, Vec::new())];
    }
    (0..n).map(|k| (vec![k], k, Vec::new())).collect()
}

/// The fusion parameter an in-place instruction of the fused body updates,
/// for each output of the fusion.
fn fusion_pairs(graph: &Graph, inst: &Inst) -> Vec<(Vec<usize>, usize, Vec<usize>)> {
    let Some(body) = graph.called(inst).first().and_then(|&c| graph.comps.get(c)) else {
        return Vec::new();
    };
    let Some(root) = body.root.and_then(|r| graph.insts.get(r)) else {
        return Vec::new();
    };
    let outputs: Vec<(Vec<usize>, usize)> = if graph.opcode(root) == "tuple" {
        graph
            .operands(root)
            .iter()
            .enumerate()
            .map(|(k, &o)| (vec![k], o))
            .collect()
    } else {
        body.root.map(|r| (Vec::new(), r)).into_iter().collect()
    };
    let mut pairs = Vec::new();
    for (output, x) in outputs {
        let Some(x) = graph.insts.get(skip_bitcasts(graph, x)) else {
            continue;
        };
        if !matches!(graph.opcode(x), "dynamic-update-slice" | "scatter") {
            continue;
        }
        let Some(&updated) = graph.operands(x).first() else {
            continue;
        };
        let source = skip_bitcasts(graph, updated);
        if let Some(p) = graph
            .insts
            .get(source)
            .filter(|p| graph.opcode(p) == "parameter")
        {
            pairs.push((output, p.parameter(), Vec::new()));
        }
    }
    pairs
}

/// Follows bitcasts to the instruction they reinterpret.
pub(crate) fn skip_bitcasts(graph: &Graph, mut i: usize) -> usize {
    for _ in 0..graph.insts.len() {
        match graph.insts.get(i) {
            Some(x) if graph.opcode(x) == "bitcast" => match graph.operands(x).first() {
                Some(&o) => i = o,
                None => break,
            },
            _ => break,
        }
    }
    i
}
