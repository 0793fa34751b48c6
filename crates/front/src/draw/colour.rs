//! The colours: one sequential gradient (viridis, which stays ordered for
//! colour-blind readers and in grey) for memory position, and the fixed
//! colours of padding, faded entries, text and tile outlines.

/// Viridis sampled at nine even steps, from position 0 (dark purple) to the
/// last position (yellow); colours between are interpolated.
const STOPS: [[u8; 3]; 9] = [
    [0x44, 0x01, 0x54],
    [0x47, 0x2d, 0x7b],
    [0x3b, 0x52, 0x8b],
    [0x2c, 0x72, 0x8e],
    [0x21, 0x91, 0x8c],
    [0x28, 0xae, 0x80],
    [0x5e, 0xc9, 0x62],
    [0xad, 0xdc, 0x30],
    [0xfd, 0xe7, 0x25],
];

/// The gradient's colour stops, `(percent, #rrggbb)`, for the legend.
pub fn stops() -> impl Iterator<Item = (usize, String)> {
    let last = STOPS.len() - 1;
    STOPS
        .iter()
        .enumerate()
        .map(move |(i, &rgb)| (i * 100 / last, hex(rgb)))
}

/// The colour of buffer `position` among `positions` (0 the first stop,
/// `positions - 1` the last). Integer arithmetic: exact and the same
/// everywhere.
pub fn rgb(position: i64, positions: i64) -> [u8; 3] {
    let span = i128::from((positions - 1).max(1));
    let position = i128::from(position.clamp(0, positions.max(1) - 1));
    let segments = (STOPS.len() - 1) as i128;
    // Where the position falls: segment `i`, fraction `rest / span`.
    let scaled = position * segments;
    let i = usize::try_from(scaled / span)
        .unwrap_or(0)
        .min(STOPS.len() - 2);
    let rest = scaled - i as i128 * span;
    let (from, to) = (STOPS[i], STOPS[i + 1]);
    let mix = |a: u8, b: u8| {
        let (a, b) = (i128::from(a), i128::from(b));
        // Rounded to nearest; always between a and b.
        let value = a + ((b - a) * rest * 2 + span).div_euclid(2 * span);
        u8::try_from(value).unwrap_or(0)
    };
    [
        mix(from[0], to[0]),
        mix(from[1], to[1]),
        mix(from[2], to[2]),
    ]
}

/// `#rrggbb`.
pub fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Black or white, whichever reads better on `background`.
pub fn text_on(background: [u8; 3]) -> &'static str {
    let [r, g, b] = background.map(u32::from);
    if 299 * r + 587 * g + 114 * b >= 128_000 {
        "#000000"
    } else {
        "#ffffff"
    }
}

/// The background of padding cells, under the hatching.
pub const PADDING: &str = "#f2f2f2";
/// The hatching lines of padding.
pub const HATCH: &str = "#8c8c8c";
/// Entries outside a view.
pub const FADED: &str = "#e6e6e6";
/// Text on padding and faded entries.
pub const MUTED_TEXT: &str = "#555555";
/// Cell borders.
pub const BORDER: &str = "#ffffff";
/// Headings and axis words.
pub const INK: &str = "#222222";

/// The fill of each kind of buffer (Okabe and Ito's colour-blind safe
/// palette): parameters, constants, outputs, temporaries, thread-local.
pub fn of_kind(kind: hlo_util::BufferKind) -> &'static str {
    match kind {
        hlo_util::BufferKind::Parameter => "#0072b2",
        hlo_util::BufferKind::Constant => "#cc79a7",
        hlo_util::BufferKind::Output => "#009e73",
        hlo_util::BufferKind::Temporary => "#e69f00",
        hlo_util::BufferKind::ThreadLocal => "#999999",
    }
}

/// What stands for many small buffers together.
pub const AGGREGATE: &str = "#b0b0b0";
/// The peak's marks.
pub const PEAK: &str = "#d55e00";

/// The stroke of tile outlines at each nesting level (then repeating):
/// colour, width and dash pattern, so levels differ without colour too.
pub const OUTLINES: [(&str, i64, &str); 3] = [
    ("#000000", 4, ""),
    ("#d55e00", 3, "8,4"),
    ("#0072b2", 2, "2,3"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gradient_runs_from_the_first_stop_to_the_last() {
        assert_eq!(hex(rgb(0, 24)), "#440154");
        assert_eq!(hex(rgb(23, 24)), "#fde725");
        assert_eq!(hex(rgb(0, 1)), "#440154");
        // Halfway is the middle stop exactly; a quarter the third.
        assert_eq!(hex(rgb(4, 9)), "#21918c");
        assert_eq!(hex(rgb(2, 9)), "#3b528b");
        // Between stops, between their channels.
        let [r, g, b] = rgb(1, 17);
        assert!((0x44..=0x47).contains(&r) && (0x01..=0x2d).contains(&g));
        assert!((0x54..=0x7b).contains(&b));
        assert_eq!(stops().next(), Some((0, "#440154".to_owned())));
        assert_eq!(stops().last(), Some((100, "#fde725".to_owned())));
    }

    #[test]
    fn text_stays_readable() {
        assert_eq!(text_on(rgb(0, 2)), "#ffffff");
        assert_eq!(text_on(rgb(1, 2)), "#000000");
    }
}
