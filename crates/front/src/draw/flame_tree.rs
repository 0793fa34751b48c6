//! The tree a flame graph draws: the samples' stacks merged from the
//! outermost frame in, each node with the bytes of the samples through it.

use std::collections::HashMap;

use crate::peak_samples::Sample;

/// One frame of the merged stacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// `function (file:line)` with the file's name alone, or a synthetic
    /// frame's words: what the frame shows.
    pub label: String,
    /// The same with the file's whole path: what its title says.
    pub full: String,
    /// Whether it stands for no line of the program.
    pub synthetic: bool,
    /// The function alone (the colour follows it).
    pub function: String,
    /// The bytes of the samples through it.
    pub bytes: u64,
    /// How many samples pass through it.
    pub count: usize,
    /// Its children (indices into [`Tree::nodes`]), in drawing order:
    /// frames of the program first, largest first.
    pub children: Vec<usize>,
    /// The samples whose innermost frame it is (indices into the samples).
    pub leaves: Vec<usize>,
}

/// The merged stacks; node 0 is the root (all the samples).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// Every node, the root first.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The tree of `samples`, the root labelled `root`.
    pub fn of(samples: &[Sample], root: &str) -> Self {
        let mut nodes = vec![Node {
            label: root.to_owned(),
            full: root.to_owned(),
            synthetic: true,
            function: String::new(),
            bytes: 0,
            count: 0,
            children: Vec::new(),
            leaves: Vec::new(),
        }];
        let mut index: HashMap<(usize, String), usize> = HashMap::new();
        for (i, sample) in samples.iter().enumerate() {
            let mut at = 0;
            add(&mut nodes[at], sample.bytes);
            for frame in sample.frames.iter().rev() {
                let full = frame.label();
                let next = nodes.len();
                let child = *index.entry((at, full.clone())).or_insert(next);
                if child == next {
                    nodes.push(Node {
                        label: frame.short_label(),
                        full,
                        synthetic: frame.file.is_empty(),
                        function: frame.function.clone(),
                        bytes: 0,
                        count: 0,
                        children: Vec::new(),
                        leaves: Vec::new(),
                    });
                    nodes[at].children.push(child);
                }
                at = child;
                add(&mut nodes[at], sample.bytes);
            }
            nodes[at].leaves.push(i);
        }
        let keys: Vec<(bool, u64, String)> = nodes
            .iter()
            .map(|n| (n.synthetic, n.bytes, n.full.clone()))
            .collect();
        for node in &mut nodes {
            node.children.sort_by(|&a, &b| {
                let (sa, ba, la) = &keys[a];
                let (sb, bb, lb) = &keys[b];
                sa.cmp(sb).then(bb.cmp(ba)).then(la.cmp(lb))
            });
        }
        Self { nodes }
    }

    /// The deepest level below the root (0: the root alone).
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(0_usize, 0_usize)];
        while let Some((node, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            if let Some(n) = self.nodes.get(node) {
                stack.extend(n.children.iter().map(|&c| (c, depth + 1)));
            }
        }
        deepest
    }
}

/// Counts one sample of `bytes` through `node`.
fn add(node: &mut Node, bytes: u64) {
    node.bytes = node.bytes.saturating_add(bytes);
    node.count += 1;
}

#[cfg(test)]
mod tests {
    use hlo_util::BufferKind;

    use super::*;
    use crate::peak_samples::SampleFrame;

    fn frame(function: &str, line: i64) -> SampleFrame {
        SampleFrame {
            function: function.to_owned(),
            file: "m.py".to_owned(),
            line,
            column: None,
        }
    }

    fn sample(bytes: u64, stack: Vec<SampleFrame>) -> Sample {
        Sample::new(
            "b{}".to_owned(),
            "f32[4]".to_owned(),
            bytes,
            BufferKind::Temporary,
            None,
            stack,
        )
    }

    #[test]
    fn stacks_merge_from_the_outermost_frame() {
        let samples = [
            sample(10, vec![frame("a", 5), frame("main", 1)]),
            sample(30, vec![frame("b", 7), frame("main", 1)]),
            sample(100, Vec::new()),
            sample(5, vec![frame("a", 5), frame("main", 1)]),
        ];
        let tree = Tree::of(&samples, "all");
        let labels: Vec<&str> = tree.nodes.iter().map(|n| n.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "all",
                "main (m.py:1)",
                "a (m.py:5)",
                "b (m.py:7)",
                crate::peak_samples::INSERTED,
                "b{}"
            ]
        );
        let root = &tree.nodes[0];
        assert_eq!((root.bytes, root.count), (145, 4));
        // The program's frames first, however large the block without a
        // stack.
        assert_eq!(root.children, [1, 4]);
        assert_eq!(tree.nodes[1].children, [3, 2]);
        assert_eq!(
            (tree.nodes[2].bytes, tree.nodes[2].leaves.clone()),
            (15, vec![0, 3])
        );
        assert_eq!(tree.depth(), 2);
    }
}
