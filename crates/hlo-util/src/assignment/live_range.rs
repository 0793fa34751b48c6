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
/// # Errors
///
/// [`AssignmentError::Text`] at the first line of the sequence or the live
/// ranges that does not read, or when the dump has neither section.
pub(crate) fn read_live_ranges(text: &str) -> Result<LiveRanges, AssignmentError> {
    let mut live = LiveRanges::default();
    let mut section = Section::Head;
    let mut seen = 0_u8;
    for (n, line) in text.lines().enumerate() {
        let fail = |message: &str| AssignmentError::Text {
            file: FILE,
            line: n.saturating_add(1),
            message: message.to_owned(),
        };
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
                live.ranges.insert(key.to_owned(), (start, end));
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
    Ok(live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_and_ranges_read() {
        let text = "HloLiveRange (max 3):\n  InstructionSequence:\n    0:p\n    1:t\n  \
BufferLiveRange:\n    p{}:0-3\n    t{1}:1-2\n  Live ranges at 1 (peak):\n    p{}: 4 bytes\n";
        let live = read_live_ranges(text).unwrap();
        assert_eq!(live.sequence, ["p", "t"]);
        assert_eq!(live.ranges.get("t{1}"), Some(&(1, 2)));
        assert_eq!(live.ranges.len(), 2);
        let error = read_live_ranges("HloLiveRange (max 3):\n  InstructionSequence:\n    1:p\n")
            .unwrap_err()
            .to_string();
        assert_eq!(error, "live-range, line 3: steps out of order");
    }
}
