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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Section {
    #[default]
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
    let mut reader = Reader::default();
    for (n, line) in text.lines().enumerate() {
        reader.line(n.saturating_add(1), line)?;
    }
    reader.finish()
}

/// The error at line `line` of the dump.
fn fail(line: usize, message: &str) -> AssignmentError {
    AssignmentError::Text {
        file: FILE,
        line,
        message: message.to_owned(),
    }
}

/// A dump read so far.
#[derive(Debug, Default)]
struct Reader {
    live: LiveRanges,
    section: Section,
    /// The sections met: 1 the sequence, 2 the live ranges.
    seen: u8,
    /// The header's `max` with its line.
    max: Option<(u64, usize)>,
    /// Each instruction's step.
    steps: HashMap<String, usize>,
}

impl Reader {
    /// Reads line `number`, `line`.
    fn line(&mut self, number: usize, line: &str) -> Result<(), AssignmentError> {
        if self.section == Section::Head
            && let Some(rest) = line.strip_prefix("HloLiveRange (max ")
        {
            let end = rest
                .strip_suffix("):")
                .and_then(|m| m.parse().ok())
                .ok_or_else(|| fail(number, "not `HloLiveRange (max N):`"))?;
            self.max = Some((end, number));
            return Ok(());
        }
        if self.section_header(line) {
            return Ok(());
        }
        let item = line.trim_start();
        match self.section {
            Section::Sequence => self.sequence_item(number, item),
            Section::Ranges => self.range_item(number, item),
            Section::Head | Section::Rest => Ok(()),
        }
    }

    /// Whether `line` heads a section (or is the dump's first line), the
    /// section it starts entered.
    fn section_header(&mut self, line: &str) -> bool {
        match line.trim() {
            "InstructionSequence:" => {
                self.section = Section::Sequence;
                self.seen |= 1;
            }
            "BufferLiveRange:" => {
                self.section = Section::Ranges;
                self.seen |= 2;
            }
            trimmed if !line.starts_with("    ") => {
                // Another section header, or the dump's first line.
                if self.section != Section::Head || !trimmed.starts_with("HloLiveRange") {
                    self.section = Section::Rest;
                }
            }
            _ => return false,
        }
        true
    }

    /// `step:instruction`, at line `number`.
    fn sequence_item(&mut self, number: usize, item: &str) -> Result<(), AssignmentError> {
        let (step, name) = item
            .split_once(':')
            .ok_or_else(|| fail(number, "not `step:instruction`"))?;
        let step: usize = step
            .parse()
            .map_err(|_| fail(number, "not a step number"))?;
        if step != self.live.sequence.len() {
            return Err(fail(number, "steps out of order"));
        }
        if let Some(first) = self.steps.insert(name.to_owned(), step) {
            return Err(fail(
                number,
                &format!(
                    "instruction `{name}` is in the sequence twice (steps {first} and {step})"
                ),
            ));
        }
        self.live.sequence.push(name.to_owned());
        Ok(())
    }

    /// `name{index}:start-end`, at line `number`.
    fn range_item(&mut self, number: usize, item: &str) -> Result<(), AssignmentError> {
        let (key, range) = item
            .rsplit_once(':')
            .ok_or_else(|| fail(number, "not `name{index}:start-end`"))?;
        let (start, end) = range
            .split_once('-')
            .and_then(|(s, e)| Some((s.parse().ok()?, e.parse().ok()?)))
            .ok_or_else(|| fail(number, "not `start-end`"))?;
        if start > end {
            return Err(fail(number, "a live range that ends before it starts"));
        }
        let last = self.max.map_or(
            u64::try_from(self.live.sequence.len()).unwrap_or(u64::MAX),
            |m| m.0,
        );
        if end > last {
            return Err(fail(
                number,
                &format!("the live range of `{key}` ends at {end}, past the schedule's end {last}"),
            ));
        }
        if self
            .live
            .ranges
            .insert(key.to_owned(), (start, end))
            .is_some()
        {
            return Err(fail(number, &format!("`{key}` has a second live range")));
        }
        Ok(())
    }

    /// The dump read, checked for both sections and as many steps as its
    /// header says.
    fn finish(self) -> Result<LiveRanges, AssignmentError> {
        if self.seen != 3 {
            return Err(fail(1, "no InstructionSequence or BufferLiveRange section"));
        }
        if let Some((end, line)) = self.max {
            let steps = self.live.sequence.len();
            if u64::try_from(steps).ok() != Some(end) {
                return Err(fail(
                    line,
                    &format!("the header's max {end} is not the sequence's {steps} steps"),
                ));
            }
        }
        Ok(self.live)
    }
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
