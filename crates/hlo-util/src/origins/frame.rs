//! Python stack frames as XLA records them: each frame a location (file,
//! function, line and columns) and its caller, stored once per module and
//! shared by every buffer whose instruction names one.

use std::fmt;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// One frame of a Python stack: where a call or an operation is in the
/// source.
///
/// ```
/// let frame = hlo_util::Frame::at("model.py", 12, "attention");
/// assert_eq!(frame.source(), "model.py:12");
/// assert_eq!(frame.to_string(), "attention (model.py:12)");
/// ```
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Frame {
    /// The file, as the module names it.
    pub file: String,
    /// The line (1-based).
    pub line: u64,
    /// The function (its qualified name); empty when the module records
    /// none (the older `source_file`/`source_line` metadata).
    pub function: String,
    /// The last line of the expression, when the module records it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// The column it starts at, when the module records it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// The column it ends at, when the module records it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u64>,
}

impl Frame {
    /// A frame of `file`, `line` and `function` without columns.
    pub fn at(file: &str, line: u64, function: &str) -> Self {
        Self {
            file: file.to_owned(),
            line,
            function: function.to_owned(),
            ..Self::default()
        }
    }

    /// `file:line`, as a source line is named.
    pub fn source(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

impl fmt::Display for Frame {
    /// `function (file:line)`, or `file:line` without a function.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.function.is_empty() {
            write!(f, "{}:{}", self.file, self.line)
        } else {
            write!(f, "{} ({}:{})", self.function, self.file, self.line)
        }
    }
}

/// A module's frames: the locations, and each frame's location and caller
/// (by index), checked to end (no caller cycle, no missing location).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FrameTable {
    /// The locations, each a [`Frame`].
    pub locations: Vec<Frame>,
    /// Each frame's location and caller, by index.
    pub frames: Vec<(usize, Option<usize>)>,
}

impl FrameTable {
    /// The table of `frames` (location, caller by index) over `locations`.
    ///
    /// # Errors
    ///
    /// A message naming the frame that names a location or a caller the
    /// table lacks, or whose callers go round in a circle.
    pub fn new(locations: Vec<Frame>, frames: Vec<(usize, Option<usize>)>) -> Result<Self, String> {
        for (k, &(location, parent)) in frames.iter().enumerate() {
            if location >= locations.len() {
                return Err(format!(
                    "stack frame {} names file location {}, which the module lacks ({} locations)",
                    k + 1,
                    location.saturating_add(1),
                    locations.len()
                ));
            }
            if let Some(p) = parent.filter(|&p| p >= frames.len()) {
                return Err(format!(
                    "stack frame {} names parent frame {}, which the module lacks ({} frames)",
                    k + 1,
                    p.saturating_add(1),
                    frames.len()
                ));
            }
        }
        // Each chain of callers walked once: 0 unseen, 1 on the walk, 2 done.
        let mut state = vec![0_u8; frames.len()];
        let mut walk = Vec::new();
        for start in 0..frames.len() {
            let mut at = Some(start);
            while let Some(k) = at {
                match state.get(k).copied() {
                    Some(0) => {
                        state[k] = 1;
                        walk.push(k);
                        at = frames.get(k).and_then(|f| f.1);
                    }
                    Some(1) => {
                        return Err(format!(
                            "stack frame {} is its own caller (the parent frames go round in a circle)",
                            k + 1
                        ));
                    }
                    _ => break,
                }
            }
            for k in walk.drain(..) {
                state[k] = 2;
            }
        }
        Ok(Self { locations, frames })
    }
}

/// A stack of frames, innermost first (the order pprof lists a sample's
/// locations): the frame an instruction names and its callers. A handle on
/// the module's frame table, so that a buffer's stack costs no copy.
///
/// ```
/// use hlo_util::{Frame, Stack};
/// let stack = Stack::from_frames(vec![Frame::at("a.py", 3, "inner"), Frame::at("a.py", 9, "outer")]);
/// assert_eq!(stack.len(), 2);
/// assert_eq!(stack.innermost().unwrap().function, "inner");
/// assert_eq!(stack.iter().last().unwrap().line, 9);
/// assert!(Stack::default().is_empty());
/// assert_eq!(serde_json::to_value(&stack).unwrap()[1]["function"], "outer");
/// ```
#[derive(Clone, Default)]
pub struct Stack {
    table: Option<Arc<FrameTable>>,
    frame: usize,
}

impl Stack {
    /// The stack from frame `frame` of `table`; empty when the table has
    /// no such frame.
    pub(crate) fn new(table: &Arc<FrameTable>, frame: usize) -> Self {
        if frame < table.frames.len() {
            Self {
                table: Some(Arc::clone(table)),
                frame,
            }
        } else {
            Self::default()
        }
    }

    /// A stack of `frames`, innermost first.
    pub fn from_frames(frames: Vec<Frame>) -> Self {
        let count = frames.len();
        let links = (0..count)
            .map(|k| (k, (k + 1 < count).then_some(k + 1)))
            .collect();
        match FrameTable::new(frames, links) {
            Ok(table) if count > 0 => Self::new(&Arc::new(table), 0),
            _ => Self::default(),
        }
    }

    /// The frames, innermost first.
    pub fn iter(&self) -> Frames<'_> {
        Frames {
            table: self.table.as_deref(),
            at: self.table.as_ref().map(|_| self.frame),
            left: self.table.as_ref().map_or(0, |t| t.frames.len()),
        }
    }

    /// The innermost frame: the line of the operation itself.
    pub fn innermost(&self) -> Option<&Frame> {
        self.iter().next()
    }

    /// How many frames.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether it has no frame.
    pub fn is_empty(&self) -> bool {
        self.table.is_none()
    }

    /// The frames, innermost first, copied.
    pub fn to_vec(&self) -> Vec<Frame> {
        self.iter().cloned().collect()
    }
}

/// The frames of a [`Stack`], innermost first.
#[derive(Debug, Clone)]
pub struct Frames<'s> {
    table: Option<&'s FrameTable>,
    at: Option<usize>,
    /// A bound on the steps left (the table is checked to have no cycle).
    left: usize,
}

impl<'s> Iterator for Frames<'s> {
    type Item = &'s Frame;

    fn next(&mut self) -> Option<&'s Frame> {
        let table = self.table?;
        let k = self.at?;
        self.left = self.left.checked_sub(1)?;
        let &(location, parent) = table.frames.get(k)?;
        self.at = parent;
        table.locations.get(location)
    }
}

impl<'s> IntoIterator for &'s Stack {
    type Item = &'s Frame;
    type IntoIter = Frames<'s>;

    fn into_iter(self) -> Frames<'s> {
        self.iter()
    }
}

impl PartialEq for Stack {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Stack {}

impl fmt::Debug for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Stack {
    /// The frames, innermost first, as a JSON array.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for frame in self.iter() {
            seq.serialize_element(frame)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Stack {
    /// The frames, innermost first, from a JSON array.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Frame>::deserialize(deserializer).map(Stack::from_frames)
    }
}

/// Reads an `op_name` back from a JSON string, or null.
pub(crate) fn deserialize_op_name<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Arc<str>>, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.map(Arc::from))
}

/// Serializes an `op_name` as a JSON string, or null.
pub(crate) fn serialize_op_name<S: Serializer>(
    op_name: &Option<Arc<str>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    op_name.as_deref().serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_tables_are_refused_with_the_frame() {
        let at = vec![Frame::at("a.py", 1, "f")];
        assert!(FrameTable::new(at.clone(), vec![(0, None), (0, Some(0))]).is_ok());
        let missing = FrameTable::new(at.clone(), vec![(1, None)]).unwrap_err();
        assert_eq!(
            missing,
            "stack frame 1 names file location 2, which the module lacks (1 locations)"
        );
        let parent = FrameTable::new(at.clone(), vec![(0, Some(4))]).unwrap_err();
        assert!(parent.contains("parent frame 5"), "{parent}");
        let circle = FrameTable::new(at, vec![(0, Some(1)), (0, Some(2)), (0, Some(1))]);
        assert!(circle.unwrap_err().contains("round in a circle"));
    }

    #[test]
    fn a_long_chain_is_walked_without_recursion() {
        let count = 100_000;
        let links = (0..count).map(|k| (0, (k > 0).then(|| k - 1))).collect();
        let table = Arc::new(FrameTable::new(vec![Frame::at("a.py", 1, "f")], links).unwrap());
        assert_eq!(Stack::new(&table, count - 1).len(), count);
        assert!(Stack::new(&table, count).is_empty());
    }
}
