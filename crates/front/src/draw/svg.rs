//! Writing SVG 1.1: escaped text, integer coordinates (so the output is the
//! same bytes everywhere), the hatch pattern and the legend.

use std::fmt::Write;

use super::{Extent, Picture, colour};

/// Space around everything, in pixels.
pub const MARGIN: i64 = 16;
/// The size of text lines.
pub const FONT: i64 = 13;
/// The id of the padding hatch pattern.
pub const HATCH_ID: &str = "padding-hatch";
/// The id of the legend's gradient.
const GRADIENT_ID: &str = "memory-gradient";

/// The elements written so far.
#[derive(Debug, Default)]
pub struct Svg {
    body: String,
}

impl Svg {
    /// A filled rectangle; `id` names it for tests (empty: none).
    pub fn rect(&mut self, id: &str, x: i64, y: i64, size: (i64, i64), fill: &str) {
        let id = if id.is_empty() {
            String::new()
        } else {
            format!(" id=\"{id}\"")
        };
        let _ = writeln!(
            self.body,
            "<rect{id} x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"{}\" stroke-width=\"1\"/>",
            size.0,
            size.1,
            colour::BORDER
        );
    }

    /// An unfilled rectangle (a tile outline or an emphasis border).
    pub fn frame(&mut self, x: i64, y: i64, size: (i64, i64), stroke: (&str, i64, &str)) {
        let (colour, width, dash) = stroke;
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{dash}\"")
        };
        let _ = writeln!(
            self.body,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\"{dash}/>",
            size.0, size.1
        );
    }

    /// A line.
    pub fn line(&mut self, from: (i64, i64), to: (i64, i64), stroke: &str) {
        let _ = writeln!(
            self.body,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"1\"/>",
            from.0, from.1, to.0, to.1
        );
    }

    /// A rectangle without border that says `title` when pointed at.
    pub fn titled_rect(&mut self, x: i64, y: i64, size: (i64, i64), fill: &str, title: &str) {
        let _ = writeln!(
            self.body,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"><title>{}</title></rect>",
            size.0,
            size.1,
            escape(title)
        );
    }

    /// A filled path (`d` in SVG's path syntax) without border.
    pub fn path(&mut self, d: &str, fill: &str) {
        let _ = writeln!(self.body, "<path d=\"{d}\" fill=\"{fill}\"/>");
    }

    /// A solid line of `width`.
    pub fn thick_line(&mut self, from: (i64, i64), to: (i64, i64), stroke: &str, width: i64) {
        let _ = writeln!(
            self.body,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
            from.0, from.1, to.0, to.1
        );
    }

    /// A dashed line of width 2.
    pub fn dashed_line(&mut self, from: (i64, i64), to: (i64, i64), stroke: &str) {
        let _ = writeln!(
            self.body,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"2\" stroke-dasharray=\"6,3\"/>",
            from.0, from.1, to.0, to.1
        );
    }

    /// Text at (`x`, `y`) (the baseline), anchored `start`, `middle` or `end`.
    pub fn text(&mut self, x: i64, y: i64, style: TextStyle, content: &str) {
        let TextStyle { size, anchor, fill } = style;
        let _ = writeln!(
            self.body,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" text-anchor=\"{anchor}\" fill=\"{fill}\">{}</text>",
            escape(content)
        );
    }

    /// The finished document, `width` by `height` pixels.
    pub fn finish(self, title: &str, width: i64, height: i64) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\">\n\
             <title>{}</title>\n\
             <defs>\n\
             <pattern id=\"{HATCH_ID}\" patternUnits=\"userSpaceOnUse\" width=\"8\" height=\"8\">\n\
             <rect width=\"8\" height=\"8\" fill=\"{}\"/>\n\
             <path d=\"M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4\" stroke=\"{}\" stroke-width=\"2\"/>\n\
             </pattern>\n\
             <linearGradient id=\"{GRADIENT_ID}\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"0\">\n",
            escape(title),
            colour::PADDING,
            colour::HATCH,
        );
        for (percent, hex) in colour::stops() {
            let _ = writeln!(out, "<stop offset=\"{percent}%\" stop-color=\"{hex}\"/>");
        }
        let _ = write!(
            out,
            "</linearGradient>\n</defs>\n\
             <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n{}</svg>",
            self.body
        );
        out
    }
}

/// How text is set.
#[derive(Debug, Clone, Copy)]
pub struct TextStyle {
    /// Font size in pixels.
    pub size: i64,
    /// `start`, `middle` or `end`.
    pub anchor: &'static str,
    /// Its colour.
    pub fill: &'static str,
}

impl TextStyle {
    /// Plain text of `size`, anchored at its start.
    pub const fn plain(size: i64) -> Self {
        Self {
            size,
            anchor: "start",
            fill: colour::INK,
        }
    }

    /// The same, anchored `anchor`.
    pub const fn anchored(self, anchor: &'static str) -> Self {
        Self { anchor, ..self }
    }

    /// The same in `fill`.
    pub const fn filled(self, fill: &'static str) -> Self {
        Self { fill, ..self }
    }
}

/// The width `text` may take in whatever monospace font a viewer picks:
/// 0.65 em a character, above the 0.6 em of common monospace fonts, so that
/// no line runs past the frame.
pub fn text_width(text: &str, size: i64) -> i64 {
    i64::try_from(text.chars().count())
        .unwrap_or(i64::MAX / 32)
        .saturating_mul(size.saturating_mul(13))
        / 20
}

/// The widest a header line may be set before it wraps, in pixels.
const HEADER_WIDTH: i64 = 800;

/// `text` in lines of at most `width` pixels at `size` (by
/// [`text_width`]), broken at spaces; a word longer than a line is
/// cut.
pub fn wrap(text: &str, size: i64, width: i64) -> Vec<String> {
    let per_char = size.saturating_mul(13).max(1);
    let most = usize::try_from(width.saturating_mul(20) / per_char)
        .unwrap_or(1)
        .max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_chars = 0;
    for word in text.split(' ') {
        let chars: Vec<char> = word.chars().collect();
        if line_chars > 0 && line_chars + 1 + chars.len() <= most {
            line.push(' ');
            line.extend(&chars);
            line_chars += 1 + chars.len();
            continue;
        }
        if line_chars > 0 {
            lines.push(std::mem::take(&mut line));
        }
        let mut pieces = chars.chunks(most).peekable();
        line_chars = 0;
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_some() {
                lines.push(piece.iter().collect());
            } else {
                line = piece.iter().collect();
                line_chars = piece.len();
            }
        }
    }
    if line_chars > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The title, the notes and the gradient legend; lines wider than the
/// header's width wrap.
pub fn header(out: &mut Svg, picture: &Picture, top: i64) -> Extent {
    let line = FONT + 6;
    let mut y = top + FONT + 2;
    let title = TextStyle::plain(FONT + 3);
    let mut width = 0;
    for (i, part) in wrap(&picture.title, FONT + 3, HEADER_WIDTH)
        .iter()
        .enumerate()
    {
        if i > 0 {
            y += line + 3;
        }
        out.text(MARGIN, y, title, part);
        width = width.max(text_width(part, FONT + 3));
    }
    for note in &picture.notes {
        for part in wrap(note, FONT, HEADER_WIDTH) {
            y += line;
            out.text(MARGIN, y, TextStyle::plain(FONT), &part);
            width = width.max(text_width(&part, FONT));
        }
    }
    // The legend: the gradient from the first position to the last.
    y += line;
    let words = format!("{}: first", picture.legend);
    out.text(MARGIN, y, TextStyle::plain(FONT), &words);
    let bar_x = MARGIN + text_width(&words, FONT) + 8;
    let _ = writeln!(
        out.body,
        "<rect x=\"{bar_x}\" y=\"{}\" width=\"160\" height=\"12\" fill=\"url(#{GRADIENT_ID})\"/>",
        y - 11
    );
    let last = format!("last ({})", picture.positions.saturating_sub(1));
    out.text(bar_x + 168, y, TextStyle::plain(FONT), &last);
    width = width.max(bar_x + 168 + text_width(&last, FONT) - MARGIN);
    Extent {
        width,
        height: y - top + line,
    }
}

/// `text` with XML's special characters escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Characters XML 1.0 does not allow are dropped.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b>&\"c\"\u{1}"), "a&lt;b&gt;&amp;&quot;c&quot;");
    }

    #[test]
    fn long_lines_wrap_at_spaces_and_long_words_are_cut() {
        // 100 pixels at size 10 hold 15 characters (0.65 em each).
        assert_eq!(
            wrap("8 devices \u{b7} 4 tiles of f32[3,4]", 10, 100),
            ["8 devices \u{b7} 4", "tiles of", "f32[3,4]"]
        );
        assert_eq!(
            wrap("{devices=[2,2]0,1,2,3}", 10, 100),
            ["{devices=[2,2]0", ",1,2,3}"]
        );
        assert_eq!(wrap("", 10, 100), [""]);
        assert_eq!(wrap("short", 10, 100), ["short"]);
        for part in wrap(&"word ".repeat(50), 13, 200) {
            assert!(text_width(&part, 13) <= 200, "{part}");
        }
    }

    #[test]
    fn widths_are_whole_pixels() {
        assert_eq!(text_width("abcde", 20), 65);
        assert_eq!(text_width("abcde", 10), 32);
        assert_eq!(text_width("", 10), 0);
    }
}
