//! The flame graph of the peak (an icicle: the outermost frame on top):
//! the bytes live at the peak by the Python stack that made them, each
//! frame as wide as its bytes, labelled `function (file:line)` (the file's
//! name; its whole path in the title) where the label fits and saying
//! everything in its `<title>`. The buffers without
//! a stack (those XLA inserted, and arguments) are blocks of their own.

use std::fmt::Write;

use super::flame_tree::{Node, Tree};
use super::scales::{fit, human, scale};
use super::svg::{FONT, MARGIN, Svg, TextStyle, text_width};
use crate::peak_samples::{ARGUMENTS, Sample};

/// The width of the graph.
const WIDTH: i64 = 1200;
/// The height of a frame's row.
const ROW: i64 = 18;
/// The buffers a frame's title lists at most.
const LISTED: usize = 8;
/// The warm colours of the program's frames, picked by function.
const WARM: [&str; 8] = [
    "#f4a259", "#e9724c", "#f6bd60", "#f28482", "#e5989b", "#f7a072", "#eddea4", "#ffb4a2",
];
/// The colour of the root.
const ROOT: &str = "#d9d9d9";
/// The colour of the arguments without a stack.
const ARGUMENT: &str = "#9ecae1";
/// The colour of the buffers XLA inserted.
const INSERTED: &str = "#c6c6c6";

/// The flame graph of `samples` (the buffers live at a peak of
/// `peak_bytes`), titled `title`.
pub fn render(title: &str, samples: &[Sample], peak_bytes: u64) -> String {
    let tree = Tree::of(samples, &format!("all: peak {}", human(peak_bytes)));
    let mut out = Svg::default();
    let line = FONT + 6;
    let mut y = MARGIN + FONT + 2;
    out.text(MARGIN, y, TextStyle::plain(FONT + 3), title);
    y += line;
    let stacked = samples.iter().filter(|s| s.has_stack).count();
    let note = format!(
        "peak {} ({} bytes): {} buffers live at the peak, {} with a Python stack; \
         widths by bytes, the outermost frame on top",
        human(peak_bytes),
        peak_bytes,
        samples.len(),
        stacked
    );
    out.text(MARGIN, y, TextStyle::plain(FONT), &note);
    let width = (WIDTH + 2 * MARGIN)
        .max(2 * MARGIN + text_width(&note, FONT))
        .max(2 * MARGIN + text_width(title, FONT + 3));
    let top = y + 12;
    let total = tree.nodes.first().map_or(0, |n| n.bytes);
    let depth = i64::try_from(tree.depth()).unwrap_or(i64::MAX / ROW);
    // Depth first; each node with its depth, where it starts (in bytes
    // from the left) and its block's colour.
    let mut stack = vec![(0_usize, 0_i64, 0_u64, ROOT)];
    while let Some((id, level, offset, fill)) = stack.pop() {
        let Some(node) = tree.nodes.get(id) else {
            continue;
        };
        let x0 = MARGIN + scale(offset, total, WIDTH.unsigned_abs());
        let x1 = MARGIN
            + scale(
                offset.saturating_add(node.bytes),
                total,
                WIDTH.unsigned_abs(),
            );
        if x1 - x0 < 1 {
            continue;
        }
        let y = top + level * ROW;
        let fill = if id == 0 { ROOT } else { fill };
        out.titled_rect(
            x0,
            y,
            ((x1 - x0 - 1).max(1), ROW - 1),
            fill,
            &tip(node, samples, total),
        );
        let label = fit(&node.label, x1 - x0 - 6);
        if label.chars().count() >= 4 || label == node.label {
            out.text(x0 + 3, y + ROW - 5, TextStyle::plain(FONT - 1), &label);
        }
        let mut next = offset;
        let mut children = Vec::with_capacity(node.children.len());
        for &child in &node.children {
            let Some(c) = tree.nodes.get(child) else {
                continue;
            };
            let fill = match (id, c.synthetic) {
                (0, true) if c.label == ARGUMENTS => ARGUMENT,
                (0, true) => INSERTED,
                (0, false) => warm(&c.function),
                (_, false) => warm(&c.function),
                (_, true) => fill,
            };
            children.push((child, level + 1, next, fill));
            next = next.saturating_add(c.bytes);
        }
        // Popped in drawing order.
        stack.extend(children.into_iter().rev());
    }
    let bottom = top + (depth + 1) * ROW;
    out.finish(title, width, bottom + MARGIN)
}

/// What a frame's `<title>` says: its label, bytes, share of the peak and
/// buffers, and those whose innermost frame it is.
fn tip(node: &Node, samples: &[Sample], total: u64) -> String {
    let tenths = scale(node.bytes, total, 1000);
    let mut tip = format!(
        "{}\n{} ({} bytes, {}.{}% of the peak) \u{b7} {} buffer{}",
        node.full,
        human(node.bytes),
        node.bytes,
        tenths / 10,
        tenths % 10,
        node.count,
        if node.count == 1 { "" } else { "s" }
    );
    let mut leaves: Vec<&Sample> = node.leaves.iter().filter_map(|&i| samples.get(i)).collect();
    leaves.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.buffer.cmp(&b.buffer)));
    for sample in leaves.iter().take(LISTED) {
        let _ = write!(
            tip,
            "\n{} {} \u{b7} {} bytes \u{b7} {}",
            sample.buffer, sample.shape, sample.bytes, sample.kind
        );
        if let Some(op) = &sample.op_name {
            let _ = write!(tip, " \u{b7} {op}");
        }
    }
    if leaves.len() > LISTED {
        let _ = write!(tip, "\n{} more", leaves.len() - LISTED);
    }
    tip
}

/// The warm colour of `function`: the same function, the same colour.
fn warm(function: &str) -> &'static str {
    // FNV-1a: stable across runs and platforms.
    let hash = function.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let i = usize::try_from(hash % WARM.len() as u64).unwrap_or(0);
    WARM.get(i).copied().unwrap_or(WARM[0])
}

#[cfg(test)]
mod tests {
    use hlo_util::BufferKind;

    use super::*;
    use crate::peak_samples::SampleFrame;

    fn frame(function: &str, line: i64) -> SampleFrame {
        SampleFrame {
            function: function.to_owned(),
            file: "model.py".to_owned(),
            line,
            column: None,
        }
    }

    #[test]
    fn frames_are_as_wide_as_their_bytes_and_say_their_buffers() {
        let samples = [
            Sample::new(
                "dot.3{}".to_owned(),
                "f32[256]{0}".to_owned(),
                3072,
                BufferKind::Temporary,
                Some("jit(f)/dot_general".to_owned()),
                vec![frame("attention", 55), frame("f", 10)],
            ),
            Sample::new(
                "dot.4{}".to_owned(),
                "f32[8]{0}".to_owned(),
                0,
                BufferKind::Temporary,
                None,
                vec![SampleFrame {
                    function: "g".to_owned(),
                    file: "/home/me/src/train.py".to_owned(),
                    line: 3,
                    column: None,
                }],
            ),
            Sample::new(
                "copy.5{}".to_owned(),
                "f32[256]{0}".to_owned(),
                1024,
                BufferKind::Temporary,
                None,
                Vec::new(),
            ),
        ];
        let svg = render("flame graph of m", &samples, 4096);
        // The root spans the graph; `f` three quarters of it.
        assert!(svg.contains(&format!("x=\"16\" y=\"62\" width=\"{}\"", WIDTH - 1)));
        assert!(svg.contains(&format!(
            "x=\"16\" y=\"80\" width=\"{}\"",
            WIDTH * 3 / 4 - 1
        )));
        assert!(svg.contains(">attention (model.py:55)</text>"));
        assert!(svg.contains(
            "<title>attention (model.py:55)\n3 KiB (3072 bytes, 75.0% of the peak) \u{b7} 1 buffer\n\
             dot.3{} f32[256]{0} \u{b7} 3072 bytes \u{b7} temporary \u{b7} jit(f)/dot_general</title>"
        ));
        assert!(svg.contains(&format!(">{}</text>", crate::peak_samples::INSERTED)));
        assert!(svg.contains("3 buffers live at the peak, 2 with a Python stack"));
        assert_eq!(warm("attention"), warm("attention"));
    }
}
