//! The memory timeline of a dumped buffer assignment, as a person chasing
//! an out-of-memory error wants it: live bytes over program order stacked
//! by kind with the peak marked, the largest blocks of storage as bands over
//! their live ranges, and the buffers live at the peak as bars, each saying
//! its buffer and the source line it comes from when pointed at. Any number
//! of steps: the area keeps each pixel column's highest step, and the blocks
//! and buffers past the largest are drawn together, labelled as such (the
//! largest buffer, not their sum, sets the bars' scale).

use hlo_util::{BufferKind, MemoryTimeline, PeakReport, Stack, StepUnit, TimelineBuffer};

use super::colour;
use super::scales::{byte_ticks, fit, human, index, scale, step_ticks};
use super::svg::{FONT, MARGIN, Svg, TextStyle, text_width};
use crate::peak_samples::buffer_name;

/// The left edge of the plots (the byte axis's labels go left of it).
const PLOT_X: i64 = MARGIN + 88;
/// The width of the plots.
const PLOT_W: i64 = 640;
/// The width of the plots as a span to scale to.
const PLOT_SPAN: u64 = PLOT_W.unsigned_abs();
/// The height of the stacked area.
const AREA_H: i64 = 220;
/// The narrowest the names' column right of the plots is.
const LABEL_W: i64 = 360;
/// The widest it grows to hold the names whole: the picture stays within
/// 1200 pixels (unless its title is wider, which the names may then use).
const LABEL_MAX_W: i64 = 1200 - (PLOT_X + PLOT_W + 12) - MARGIN;
/// How many blocks get a band, and buffers a bar, of their own.
const SHOWN: usize = 12;
/// The height of a band or bar, and the space between two.
const ROW: (i64, i64) = (16, 4);
/// The kinds stacked, bottom up.
const STACK: [BufferKind; 4] = [
    BufferKind::Parameter,
    BufferKind::Constant,
    BufferKind::Output,
    BufferKind::Temporary,
];

/// The picture of `timeline` with `report`'s peak, titled `title`.
pub fn render(title: &str, report: &PeakReport, timeline: &MemoryTimeline) -> String {
    let mut out = Svg::default();
    let line = FONT + 6;
    let mut y = MARGIN + FONT + 2;
    out.text(MARGIN, y, TextStyle::plain(FONT + 3), title);
    y += line;
    let mut note = format!(
        "peak {} ({} bytes): static {} + heap {}",
        human(report.peak_bytes),
        report.peak_bytes,
        human(report.static_bytes),
        human(report.heap_peak_bytes)
    );
    if let Some(at) = &report.peak_at {
        note.push_str(&format!(
            ", at {} {} ({})",
            unit(at.unit),
            at.step,
            at.instruction
        ));
    }
    out.text(MARGIN, y, TextStyle::plain(FONT), &note);
    let width = (PLOT_X + PLOT_W + 12 + labels_width(report, timeline) + MARGIN)
        .max(2 * MARGIN + text_width(&note, FONT))
        .max(2 * MARGIN + text_width(title, FONT + 3));
    // The names take whatever room the picture has right of the plots.
    let label_w = width - (PLOT_X + PLOT_W + 12) - MARGIN;
    y += line;
    y = legend(&mut out, timeline, y);
    y = area(&mut out, report, timeline, y + 24);
    y = bands(&mut out, timeline, y + 16, label_w);
    y = bars(&mut out, report, y + 16, label_w);
    out.finish(title, width, y + MARGIN)
}

/// The colour key of the kinds present; the next line's top.
fn legend(out: &mut Svg, timeline: &MemoryTimeline, top: i64) -> i64 {
    let mut x = MARGIN;
    for kind in STACK {
        if !timeline.buffers.iter().any(|b| b.kind == kind) {
            continue;
        }
        out.rect("", x, top - 11, (12, 12), colour::of_kind(kind));
        let words = plural(kind);
        out.text(x + 16, top, TextStyle::plain(FONT), words);
        x += 16 + text_width(words, FONT) + 20;
    }
    top + FONT + 6
}

/// The scales of the stacked area: `steps` drawn in `columns`, bytes up
/// to `axis_max` over the plot's height down to `bottom`.
struct AreaScale {
    steps: u64,
    columns: u64,
    axis_max: u64,
    bottom: i64,
}

impl AreaScale {
    /// The height of `bytes`.
    fn y_of(&self, bytes: u64) -> i64 {
        self.bottom - scale(bytes, self.axis_max, AREA_H.unsigned_abs())
    }

    /// The left edge of column `c`.
    fn x_of_column(&self, c: u64) -> i64 {
        PLOT_X + scale(c, self.columns, PLOT_SPAN)
    }

    /// The left edge of step `s`.
    fn x_of_step(&self, s: u64) -> i64 {
        PLOT_X + scale(s, self.steps, PLOT_SPAN)
    }
}

/// The stacked live bytes with the peak marked; the bottom of its axis.
fn area(out: &mut Svg, report: &PeakReport, timeline: &MemoryTimeline, top: i64) -> i64 {
    let steps = timeline.steps.max(1);
    let columns = steps.min(PLOT_SPAN);
    let totals = timeline.live_bytes();
    let highest = totals
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .max(report.peak_bytes);
    let (tick, axis_max) = byte_ticks(highest);
    let plot = AreaScale {
        steps,
        columns,
        axis_max,
        bottom: top + AREA_H,
    };
    // The step standing for each column: its highest.
    let chosen: Vec<usize> = (0..columns)
        .map(|c| {
            let from = index(scale(c, columns, steps) as u64);
            let to = index(scale(c + 1, columns, steps) as u64).max(from + 1);
            (from..to)
                .max_by_key(|&s| (totals.get(s).copied().unwrap_or(0), std::cmp::Reverse(s)))
                .unwrap_or(from)
        })
        .collect();
    stacked_kinds(out, timeline, &chosen, &plot);
    byte_axis(out, tick, &plot);
    step_axis(out, timeline.unit, &plot);
    peak_mark(out, report, top, &plot);
    plot.bottom + 40
}

/// The live bytes of each kind, stacked, at the `chosen` step of each
/// column.
fn stacked_kinds(out: &mut Svg, timeline: &MemoryTimeline, chosen: &[usize], plot: &AreaScale) {
    let mut below = vec![0_u64; chosen.len()];
    // One kind's live bytes at a time: a timeline of many steps holds two
    // sums at once, not five.
    for kind in &STACK {
        let live = timeline.live_bytes_of(*kind);
        let above: Vec<u64> = chosen
            .iter()
            .zip(&below)
            .map(|(&s, &b)| b.saturating_add(live.get(s).copied().unwrap_or(0)))
            .collect();
        if above != below {
            let mut d = String::new();
            for (c, &bytes) in above.iter().enumerate() {
                let c = c as u64;
                let op = if c == 0 { 'M' } else { 'L' };
                d.push_str(&format!(
                    "{op}{},{} L{},{} ",
                    plot.x_of_column(c),
                    plot.y_of(bytes),
                    plot.x_of_column(c + 1),
                    plot.y_of(bytes)
                ));
            }
            for (c, &bytes) in below.iter().enumerate().rev() {
                let c = c as u64;
                d.push_str(&format!(
                    "L{},{} L{},{} ",
                    plot.x_of_column(c + 1),
                    plot.y_of(bytes),
                    plot.x_of_column(c),
                    plot.y_of(bytes)
                ));
            }
            d.push('Z');
            out.path(&d, colour::of_kind(*kind));
        }
        below = above;
    }
}

/// The byte axis, a line every `tick` bytes.
fn byte_axis(out: &mut Svg, tick: u64, plot: &AreaScale) {
    let mut at = 0;
    while at <= plot.axis_max {
        let y = plot.y_of(at);
        out.line(
            (PLOT_X - 4, y),
            (PLOT_X + PLOT_W, y),
            if at == 0 { colour::INK } else { "#dddddd" },
        );
        out.text(
            PLOT_X - 8,
            y + 4,
            TextStyle::plain(FONT - 1).anchored("end"),
            &human(at),
        );
        at = match at.checked_add(tick) {
            Some(next) if tick > 0 => next,
            _ => break,
        };
    }
}

/// The step axis, its ticks and what a step counts.
fn step_axis(out: &mut Svg, unit: StepUnit, plot: &AreaScale) {
    let bottom = plot.bottom;
    for s in step_ticks(plot.steps) {
        let x = plot.x_of_step(s);
        out.line((x, bottom), (x, bottom + 4), colour::INK);
        out.text(
            x,
            bottom + 16,
            TextStyle::plain(FONT - 1).anchored("middle"),
            &s.to_string(),
        );
    }
    let words = match unit {
        StepUnit::HeapEvent => "heap event (XLA's heap simulator traces, one after the other)",
        StepUnit::ScheduleStep => "time step of the flattened schedule (XLA's HloLiveRange)",
    };
    out.text(
        PLOT_X + PLOT_W / 2,
        bottom + 34,
        TextStyle::plain(FONT).anchored("middle"),
        words,
    );
}

/// The peak: a dashed line at its bytes, one down from `top` at its step,
/// and its label.
fn peak_mark(out: &mut Svg, report: &PeakReport, top: i64, plot: &AreaScale) {
    let peak_y = plot.y_of(report.peak_bytes);
    out.dashed_line((PLOT_X, peak_y), (PLOT_X + PLOT_W, peak_y), colour::PEAK);
    let mut label = format!("peak {}", human(report.peak_bytes));
    let x = match &report.peak_at {
        Some(at) => {
            let x = (plot.x_of_step(at.step) + plot.x_of_step(at.step.saturating_add(1))) / 2;
            // Down to the peak, not over the area: a one-step peak stays
            // visible.
            out.dashed_line((x, top - 4), (x, peak_y - 3), colour::PEAK);
            label.push_str(&format!(" at {} {}", unit(at.unit), at.step));
            x
        }
        None => PLOT_X,
    };
    let anchor = if x > PLOT_X + PLOT_W / 2 {
        "end"
    } else {
        "start"
    };
    let shift = if anchor == "end" { -6 } else { 6 };
    out.text(
        x + shift,
        top - 8,
        TextStyle::plain(FONT).anchored(anchor).filled(colour::PEAK),
        &label,
    );
}

/// The blocks of `timeline`, largest first (ties by first step, then
/// name).
fn largest(timeline: &MemoryTimeline) -> Vec<&TimelineBuffer> {
    let mut order: Vec<&TimelineBuffer> = timeline.buffers.iter().collect();
    order.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then(a.first.cmp(&b.first))
            .then(a.name.cmp(&b.name))
    });
    order
}

/// The names of the bands and bars drawn, as written right of them.
fn labels(report: &PeakReport, timeline: &MemoryTimeline) -> Vec<String> {
    let bands = largest(timeline)
        .into_iter()
        .take(SHOWN)
        .map(|b| buffer_name(&b.name, &b.shape_index));
    let bars = report
        .live_at_peak
        .iter()
        .take(SHOWN)
        .map(|b| format!("{} {}", buffer_name(&b.name, &b.shape_index), b.shape));
    bands.chain(bars).collect()
}

/// The width the names' column asks for: the longest name whole, within
/// [`LABEL_W`] and [`LABEL_MAX_W`].
fn labels_width(report: &PeakReport, timeline: &MemoryTimeline) -> i64 {
    labels(report, timeline)
        .iter()
        .map(|l| text_width(l, FONT - 1))
        .max()
        .unwrap_or(0)
        .clamp(LABEL_W, LABEL_MAX_W)
}

/// The largest blocks as bands over their live ranges, the others as one
/// row of their summed live bytes; the bottom.
fn bands(out: &mut Svg, timeline: &MemoryTimeline, top: i64, label_w: i64) -> i64 {
    let order = largest(timeline);
    let heading = format!(
        "the {} largest of {} blocks of storage, over the steps they are live at",
        order.len().min(SHOWN),
        order.len()
    );
    let mut y = top + FONT;
    out.text(MARGIN, y, TextStyle::plain(FONT), &heading);
    y += 8;
    let steps = timeline.steps.max(1);
    for buffer in order.iter().take(SHOWN) {
        band(out, buffer, y, steps, label_w);
        y += ROW.0 + ROW.1;
    }
    if order.len() > SHOWN {
        others(out, timeline, &order, y, label_w);
        y += ROW.0 + ROW.1;
    }
    y
}

/// One block as a band at `y` over its live range (of `steps`), its bytes
/// left of the plot and its name right.
fn band(out: &mut Svg, buffer: &TimelineBuffer, y: i64, steps: u64, label_w: i64) {
    let x_of_step = |s: u64| PLOT_X + scale(s, steps, PLOT_SPAN);
    let x = x_of_step(buffer.first);
    let end = x_of_step(buffer.last.saturating_add(1)).max(x + 2);
    let tip = format!(
        "{} {} \u{b7} {} bytes \u{b7} {} \u{b7} defined by {} \u{b7} steps {}-{}{}",
        buffer_name(&buffer.name, &buffer.shape_index),
        buffer.shape,
        buffer.bytes,
        buffer.kind.word(),
        buffer.name,
        buffer.first,
        buffer.last,
        origin(buffer.op_name.as_deref(), &buffer.stack)
    );
    out.titled_rect(x, y, (end - x, ROW.0), colour::of_kind(buffer.kind), &tip);
    out.text(
        PLOT_X - 8,
        y + ROW.0 - 4,
        TextStyle::plain(FONT - 1).anchored("end"),
        &human(buffer.bytes),
    );
    let name = fit(&buffer_name(&buffer.name, &buffer.shape_index), label_w);
    out.text(
        PLOT_X + PLOT_W + 12,
        y + ROW.0 - 4,
        TextStyle::plain(FONT - 1),
        &name,
    );
}

/// The blocks of `order` past the first [`SHOWN`] as one row at `y`: their
/// live bytes summed at each step, the highest sum left of the plot and
/// their count right.
fn others(
    out: &mut Svg,
    timeline: &MemoryTimeline,
    order: &[&TimelineBuffer],
    y: i64,
    label_w: i64,
) {
    let rest = order.len().saturating_sub(SHOWN);
    let largest = order.iter().skip(SHOWN).map(|b| b.bytes).max().unwrap_or(0);
    // The others' live bytes, summed where they are, never copied.
    let shown = order.get(..SHOWN).unwrap_or_default();
    let live = timeline.live_bytes_where(|b| !shown.iter().any(|&s| std::ptr::eq(s, b)));
    let most = live.iter().copied().max().unwrap_or(0).max(1);
    let d = live_outline(&live, most, timeline.steps.max(1), y);
    out.path(&d, colour::AGGREGATE);
    out.frame(PLOT_X, y, (PLOT_W, ROW.0), (colour::AGGREGATE, 1, ""));
    out.text(
        PLOT_X - 8,
        y + ROW.0 - 4,
        TextStyle::plain(FONT - 1).anchored("end"),
        &human(most),
    );
    let words = format!(
        "{} smaller blocks of {} or less, together",
        rest,
        human(largest)
    );
    out.text(
        PLOT_X + PLOT_W + 12,
        y + ROW.0 - 4,
        TextStyle::plain(FONT - 1),
        &fit(&words, label_w),
    );
}

/// The path of the `live` bytes of each of `steps` (`most` the row's full
/// height) across the plot, on a row at `y`: the highest in each column.
fn live_outline(live: &[u64], most: u64, steps: u64, y: i64) -> String {
    let columns = steps.min(PLOT_SPAN);
    let mut d = format!("M{},{} ", PLOT_X, y + ROW.0);
    for c in 0..columns {
        let from = index(scale(c, columns, steps) as u64);
        let to = index(scale(c + 1, columns, steps) as u64).max(from + 1);
        let bytes = live
            .get(from..to)
            .and_then(|s| s.iter().copied().max())
            .unwrap_or(0);
        let h = scale(bytes, most, ROW.0.unsigned_abs());
        let (x0, x1) = (
            PLOT_X + scale(c, columns, PLOT_SPAN),
            PLOT_X + scale(c + 1, columns, PLOT_SPAN),
        );
        d.push_str(&format!("L{x0},{} L{x1},{} ", y + ROW.0 - h, y + ROW.0 - h));
    }
    d.push_str(&format!("L{},{} Z", PLOT_X + PLOT_W, y + ROW.0));
    d
}

/// The buffers live at the peak as bars, largest first, the others as one
/// bar of their sum; the bottom. The largest buffer sets the scale: a sum
/// larger than it is drawn the whole width, broken.
fn bars(out: &mut Svg, report: &PeakReport, top: i64, label_w: i64) -> i64 {
    let live = &report.live_at_peak;
    let heading = format!("the {} buffers live at the peak, largest first", live.len());
    let mut y = top + FONT;
    out.text(MARGIN, y, TextStyle::plain(FONT), &heading);
    y += 8;
    let rest: Vec<u64> = live.iter().skip(SHOWN).map(|b| b.bytes).collect();
    let rest_bytes = rest.iter().fold(0_u64, |s, &b| s.saturating_add(b));
    let most = live.iter().map(|b| b.bytes).max().unwrap_or(0).max(1);
    let row = |out: &mut Svg, y: i64, bytes: u64, fill: &str, tip: &str, name: &str| {
        let w = scale(bytes.min(most), most, PLOT_SPAN).max(1);
        out.titled_rect(PLOT_X, y, (w, ROW.0), fill, tip);
        if bytes > most {
            // Broken: two white strokes across the bar near its end.
            for dx in [-26, -20] {
                let x = PLOT_X + PLOT_W + dx;
                out.thick_line((x, y + ROW.0 + 2), (x + 6, y - 2), colour::BORDER, 3);
            }
        }
        out.text(
            PLOT_X - 8,
            y + ROW.0 - 4,
            TextStyle::plain(FONT - 1).anchored("end"),
            &human(bytes),
        );
        out.text(
            PLOT_X + PLOT_W + 12,
            y + ROW.0 - 4,
            TextStyle::plain(FONT - 1),
            &fit(name, label_w),
        );
    };
    for buffer in live.iter().take(SHOWN) {
        let name = buffer_name(&buffer.name, &buffer.shape_index);
        let tip = format!(
            "{name} {} \u{b7} {} bytes \u{b7} {} \u{b7} defined by {}{}",
            buffer.shape,
            buffer.bytes,
            buffer.kind.word(),
            buffer.name,
            origin(buffer.op_name.as_deref(), &buffer.stack)
        );
        row(
            out,
            y,
            buffer.bytes,
            colour::of_kind(buffer.kind),
            &tip,
            &format!("{name} {}", buffer.shape),
        );
        y += ROW.0 + ROW.1;
    }
    if !rest.is_empty() {
        let words = format!("{} smaller buffers together", rest.len());
        let tip = format!("{words}: {rest_bytes} bytes");
        row(out, y, rest_bytes, colour::AGGREGATE, &tip, &words);
        y += ROW.0 + ROW.1;
    }
    y
}

/// The picture's title: of the dump in `file` (its name), or plain.
pub fn title(file: Option<&str>) -> String {
    let Some(file) = file else {
        return "memory timeline".to_owned();
    };
    let name = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned());
    format!("memory timeline of {name}")
}

/// Where a buffer comes from, as its title ends: ` · at file:line in
/// function` (its innermost frame) and ` · op op_name`, each where the
/// module records it.
fn origin(op_name: Option<&str>, stack: &Stack) -> String {
    let mut words = String::new();
    if let Some(frame) = stack.innermost() {
        words.push_str(&format!(
            " \u{b7} at {} in {}",
            frame.source(),
            frame.function
        ));
    }
    if let Some(op) = op_name {
        words.push_str(&format!(" \u{b7} op {op}"));
    }
    words
}

/// The kind as a legend says it.
fn plural(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::Parameter => "parameters",
        BufferKind::Constant => "constants",
        BufferKind::Output => "outputs",
        BufferKind::Temporary => "temporaries",
        BufferKind::ThreadLocal => "thread-local",
    }
}

/// What a step counts, in words.
fn unit(unit: StepUnit) -> &'static str {
    match unit {
        StepUnit::HeapEvent => "heap event",
        StepUnit::ScheduleStep => "step",
    }
}

#[cfg(test)]
mod tests {
    use hlo_util::{Frame, LiveBuffer};

    use super::*;

    fn live(name: String, bytes: u64, stack: Stack) -> LiveBuffer {
        LiveBuffer {
            name,
            shape_index: Vec::new(),
            shape: "f32[8]{0}".to_owned(),
            bytes,
            kind: BufferKind::Temporary,
            op_name: Some("jit(step)/dot_general".into()),
            stack,
        }
    }

    #[test]
    fn the_largest_buffer_sets_the_bars_scale_and_names_fit_whole() {
        let long = format!("fusion.{}", "x".repeat(40));
        let frame = Stack::from_frames(vec![Frame::at("model.py", 55, "attention")]);
        let mut buffers = vec![live(long.clone(), 1000, frame)];
        buffers.extend((0..11).map(|i| live(format!("big.{i}"), 1000, Stack::default())));
        buffers.extend((0..1280).map(|i| live(format!("small.{i}"), 100, Stack::default())));
        let mut report = PeakReport::default();
        report.peak_bytes = 140_000;
        report.heap_peak_bytes = 140_000;
        report.live_at_peak = buffers;
        let svg = render("t", &report, &MemoryTimeline::default());
        // The twelve largest are as wide as the plot, and so is the sum of
        // the others, broken.
        let full = format!("width=\"{PLOT_W}\" height=\"{}\"", ROW.0);
        assert_eq!(svg.matches(&full).count(), 13, "{svg}");
        assert!(svg.contains("1280 smaller buffers together: 128000 bytes"));
        assert_eq!(svg.matches("stroke-width=\"3\"").count(), 2);
        // The long name whole, the picture wider for it.
        assert!(svg.contains(&format!(">{long}{{}} f32[8]{{0}}</text>")));
        assert!(!svg.contains('\u{2026}'));
        // The source line in the title.
        assert!(svg.contains(&format!(
            "defined by {long} \u{b7} at model.py:55 in attention \u{b7} op jit(step)/dot_general</title>"
        )));
    }
}
