//! Reads XLA's `*-live-range.txt` dump (`HloLiveRange::ToString`): the
//! flattened instruction sequence and each value's first and last time step
//! (`name{index}:start-end`). The "Live ranges at T (peak)" section that
//! follows is not read: it sums unpadded sizes of every value, shared or not.

use std::collections::HashMap;

use super::AssignmentError;

const FILE: &str = "live-range";

/// The schedule and the live ranges of a `*-live-range.txt` dump.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveRanges {
    /// The instruction at each time step.
    pub sequence: Vec<String>,
    /// `name{index}` (always with its braces) to the first and last step it
    /// is live at, both included.
    pub ranges: HashMap<String, (u64, u64)>,
}

/// Which section a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Head,
    Sequence,
    Ranges,
    Rest,
}

/// Reads a `*-live-range.txt` dump.
///
/// What XLA's dump always holds is checked: each instruction once in the
/// sequence, its steps in order, as many as the header's `max`; each value's
/// live range once, within `0..=max`.
///
/// # Errors
///
/// [`AssignmentError::Text`] at the first line of the sequence or the live
/// ranges that does not read or contradicts the dump, or when the dump has
/// neither section.
pub(crate) fn read_live_ranges(text: &str) -> Result<LiveRanges, AssignmentError> {
    let mut live = LiveRanges::default();
    let mut section = Section::Head;
    let mut seen = 0_u8;
    // The header's `max` with its line, and each instruction's step.
    let mut max: Option<(u64, usize)> = None;
    let mut steps: HashMap<String, usize> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let number = n.saturating_add(1);
        let fail = |message: &str| AssignmentError::Text {
            file: FILE,
            line: number,
            message: message.to_owned(),
        };
        if section == Section::Head
            && let Some(rest) = line.strip_prefix("HloLiveRange (max ")
        {
            let end = rest
                .strip_suffix("):")
                .and_then(|m| m.parse().ok())
                .ok_or_else(|| fail("not `HloLiveRange (max N):`"))?;
            max = Some((end, number));
            continue;
        }
        match line.trim() {
            "InstructionSequence:" => {
                section = Section::Sequence;
                seen |= 1;
                continue;
            }
            "BufferLiveRange:" => {
                section = Section::Ranges;
                seen |= 2;
                continue;
            }
            trimmed if !line.starts_with("    ") => {
                // Another section header, or the dump's first line.
                if section != Section::Head || !trimmed.starts_with("HloLiveRange") {
                    section = Section::Rest;
                }
                continue;
            }
            _ => {}
        }
        let item = line.trim_start();
        match section {
            Section::Sequence => {
                let (step, name) = item
                    .split_once(':')
                    .ok_or_else(|| fail("not `step:instruction`"))?;
                let step: usize = step.parse().map_err(|_| fail("not a step number"))?;
                if step != live.sequence.len() {
                    return Err(fail("steps out of order"));
                }
                if let Some(first) = steps.insert(name.to_owned(), step) {
                    return Err(fail(&format!(
                        "instruction `{name}` is in the sequence twice (steps {first} and {step})"
                    )));
                }
                live.sequence.push(name.to_owned());
            }
            Section::Ranges => {
                let (key, range) = item
                    .rsplit_once(':')
                    .ok_or_else(|| fail("not `name{index}:start-end`"))?;
                let (start, end) = range
                    .split_once('-')
                    .and_then(|(s, e)| Some((s.parse().ok()?, e.parse().ok()?)))
                    .ok_or_else(|| fail("not `start-end`"))?;
                if start > end {
                    return Err(fail("a live range that ends before it starts"));
                }
                let last = max.map_or(
                    u64::try_from(live.sequence.len()).unwrap_or(u64::MAX),
                    |m| m.0,
                );
                if end > last {
                    return Err(fail(&format!(
                        "the live range of `{key}` ends at {end}, past the schedule's end {last}"
                    )));
                }
                if live.ranges.insert(key.to_owned(), (start, end)).is_some() {
                    return Err(fail(&format!("`{key}` has a second live range")));
                }
            }
            Section::Head | Section::Rest => {}
        }
    }
    if seen != 3 {
        return Err(AssignmentError::Text {
            file: FILE,
            line: 1,
            message: "no InstructionSequence or BufferLiveRange section".to_owned(),
        });
    }
    if let Some((end, line)) = max {
        let steps = live.sequence.len();
        if u64::try_from(steps).ok() != Some(end) {
            return Err(AssignmentError::Text {
                file: FILE,
                line,
                message: format!("the header's max {end} is not the sequence's {steps} steps"),
            });
        }
    }
    Ok(live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_and_ranges_read() {
        let text = "HloLiveRange (max 2):\n  InstructionSequence:\n    0:p\n    1:t\n  \
BufferLiveRange:\n    p{}:0-2\n    t{1}:1-2\n  Live ranges at 1 (peak):\n    p{}: 4 bytes\n";
        let live = read_live_ranges(text).unwrap();
        assert_eq!(live.sequence, ["p", "t"]);
        assert_eq!(live.ranges.get("t{1}"), Some(&(1, 2)));
        assert_eq!(live.ranges.len(), 2);
        let error = read_live_ranges("HloLiveRange (max 3):\n  InstructionSequence:\n    1:p\n")
            .unwrap_err()
            .to_string();
        assert_eq!(error, "live-range, line 3: steps out of order");
    }

    /// `HloLiveRange (max 2)` over `p` and `t`, then `ranges`.
    fn error_of(sequence: &str, ranges: &str) -> String {
        let text = format!(
            "HloLiveRange (max 2):\n  InstructionSequence:\n{sequence}  BufferLiveRange:\n{ranges}"
        );
        read_live_ranges(&text).unwrap_err().to_string()
    }

    #[test]
    fn dumps_that_contradict_themselves_are_refused() {
        let sequence = "    0:p\n    1:t\n";
        assert_eq!(
            error_of(sequence, "    t{}:1-9223372036854775807\n"),
            "live-range, line 6: the live range of `t{}` ends at 9223372036854775807, \
past the schedule's end 2"
        );
        assert_eq!(
            error_of(sequence, "    t{}:1-100000000\n"),
            "live-range, line 6: the live range of `t{}` ends at 100000000, past the schedule's end 2"
        );
        assert_eq!(
            error_of(sequence, "    t{}:1-2\n    p{}:0-2\n    t{}:0-1\n"),
            "live-range, line 8: `t{}` has a second live range"
        );
        assert_eq!(
            error_of("    0:p\n    1:p\n", ""),
            "live-range, line 4: instruction `p` is in the sequence twice (steps 0 and 1)"
        );
        assert_eq!(
            error_of("    0:p\n", "    p{}:0-1\n"),
            "live-range, line 1: the header's max 2 is not the sequence's 1 steps"
        );
        let error = read_live_ranges("HloLiveRange (max x):\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "live-range, line 1: not `HloLiveRange (max N):`"
        );
        // Without the header, the sequence bounds the ranges.
        let text = "  InstructionSequence:\n    0:p\n  BufferLiveRange:\n    p{}:0-2\n";
        assert_eq!(
            read_live_ranges(text).unwrap_err().to_string(),
            "live-range, line 4: the live range of `p{}` ends at 2, past the schedule's end 1"
        );
    }
}
