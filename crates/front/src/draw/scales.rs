//! Numbers as a chart writes them: bytes in binary units, round ticks,
//! values scaled to whole pixels, names cut to fit.

use super::svg::FONT;

/// `value * span / whole` in whole pixels (0 when `whole` is 0).
pub fn scale(value: u64, whole: u64, span: u64) -> i64 {
    if whole == 0 {
        return 0;
    }
    let scaled = u128::from(value) * u128::from(span) / u128::from(whole);
    i64::try_from(scaled).unwrap_or(i64::MAX)
}

/// A step as an index.
pub fn index(step: u64) -> usize {
    usize::try_from(step).unwrap_or(usize::MAX)
}

/// `text` cut to fit `width` pixels of the small font, with an ellipsis.
pub fn fit(text: &str, width: i64) -> String {
    let room = usize::try_from(width * 5 / ((FONT - 1) * 3)).unwrap_or(0);
    if text.chars().count() <= room {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(room.saturating_sub(1)).collect();
    cut.push('\u{2026}');
    cut
}

/// Bytes in binary units to two decimals, trailing zeros dropped: `512 B`,
/// `1.5 KiB`, `1.25 MiB`, `768 MiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut unit = 0;
    let mut whole = bytes;
    while whole >= 1024 && unit + 1 < UNITS.len() {
        whole /= 1024;
        unit += 1;
    }
    let divisor = 1_u128 << (10 * unit);
    let hundredths = (u128::from(bytes) * 100 + divisor / 2) / divisor;
    let name = UNITS.get(unit).copied().unwrap_or("B");
    let (int, frac) = (hundredths / 100, hundredths % 100);
    if frac == 0 {
        format!("{int} {name}")
    } else if frac.is_multiple_of(10) {
        format!("{int}.{} {name}", frac / 10)
    } else {
        format!("{int}.{frac:02} {name}")
    }
}

/// The byte axis: a power-of-two tick that gives at most five intervals,
/// and the axis's top, a multiple of it at or above `highest`.
pub fn byte_ticks(highest: u64) -> (u64, u64) {
    let tick = highest
        .div_ceil(5)
        .max(1)
        .checked_next_power_of_two()
        .unwrap_or(1 << 63);
    let top = highest.div_ceil(tick).max(1).saturating_mul(tick);
    (tick, top)
}

/// About six round step numbers from 0 to the last step.
pub fn step_ticks(steps: u64) -> Vec<u64> {
    let last = steps.saturating_sub(1);
    let raw = (last / 6).max(1);
    let magnitude = 10_u64.pow(raw.ilog10());
    let tick = [1, 2, 5, 10]
        .iter()
        .map(|m| m * magnitude)
        .find(|&t| t >= raw)
        .unwrap_or(raw);
    let mut ticks: Vec<u64> = (0..=last).step_by(index(tick).max(1)).collect();
    // The last step too, unless a tick sits close by.
    if ticks.last().is_some_and(|&t| last - t > tick / 2) {
        ticks.push(last);
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(human(0), "0 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(768 << 20), "768 MiB");
        assert_eq!(human(1_310_720), "1.25 MiB");
        assert_eq!(human(1_050_000), "1 MiB");
        assert_eq!(human(1100), "1.07 KiB");
        assert_eq!(byte_ticks(1000), (256, 1024));
        assert_eq!(byte_ticks(0), (1, 1));
    }

    #[test]
    fn step_ticks_are_round() {
        assert_eq!(step_ticks(10), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(
            step_ticks(100_000),
            [0, 20_000, 40_000, 60_000, 80_000, 99_999]
        );
        assert_eq!(step_ticks(1), [0]);
    }

    #[test]
    fn long_names_are_cut() {
        assert_eq!(fit("abcdef", 22), "ab\u{2026}");
        assert_eq!(fit("ab", 100), "ab");
    }
}
