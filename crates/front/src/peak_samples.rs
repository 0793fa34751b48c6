//! The buffers live at the peak as samples of a memory profile: each its
//! bytes, its Python stack (innermost frame first, as pprof orders a
//! sample's locations) and the words that name it. The pprof profile and
//! the flame graph are both drawn from these.

use hlo_util::{BufferKind, Frame, PeakReport};

/// One frame of a buffer's stack: a line of the user's program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SampleFrame {
    /// The function (`train_step`, `<module>`); for a frame standing for a
    /// buffer with no stack, the words that name it.
    pub function: String,
    /// The file (empty for such a frame).
    pub file: String,
    /// The line (0: none).
    pub line: i64,
    /// The column, where the module records one.
    pub column: Option<i64>,
}

impl SampleFrame {
    /// The frame of the module's `frame`.
    pub fn of(frame: &Frame) -> Self {
        Self {
            function: frame.function.clone(),
            file: frame.file.clone(),
            line: i64::try_from(frame.line).unwrap_or(i64::MAX),
            column: frame.column.and_then(|c| i64::try_from(c).ok()),
        }
    }

    /// A frame that stands for no line of the program: a block of the
    /// flame graph (`[no Python source]`) or a buffer in it.
    pub fn synthetic(words: impl Into<String>) -> Self {
        Self {
            function: words.into(),
            file: String::new(),
            line: 0,
            column: None,
        }
    }

    /// `function (file:line)`, as the flame graph's titles say a frame; a
    /// synthetic frame's words alone.
    pub fn label(&self) -> String {
        if self.file.is_empty() {
            return self.function.clone();
        }
        format!("{} ({}:{})", self.function, self.file, self.line)
    }

    /// [`label`](Self::label) with the file's name alone, without its
    /// directories (`train (model.py:55)` for `/home/me/model.py`), as
    /// the flame graph writes it on a frame.
    pub fn short_label(&self) -> String {
        if self.file.is_empty() {
            return self.function.clone();
        }
        let name = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        format!("{} ({name}:{})", self.function, self.line)
    }
}

/// The outermost frame of the buffers that are entry parameters and have
/// no stack.
pub const ARGUMENTS: &str = "[arguments: no Python source]";
/// The outermost frame of the other buffers without a stack: those XLA
/// inserted (copies, loop state, fusions of no one line).
pub const INSERTED: &str = "[inserted by XLA: no Python source]";

/// One buffer live at the peak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Its stack, innermost first; for a buffer without one, two synthetic
    /// frames: the buffer's name (its op_name for a parameter) inside
    /// [`ARGUMENTS`] or [`INSERTED`].
    pub frames: Vec<SampleFrame>,
    /// Bytes as XLA allocates them.
    pub bytes: u64,
    /// `name{index}`.
    pub buffer: String,
    /// Its shape as XLA prints it.
    pub shape: String,
    /// What it holds (`temporary`, `parameter`, ...).
    pub kind: &'static str,
    /// The jax op that made it, where the module records one.
    pub op_name: Option<String>,
    /// Whether `frames` is the buffer's own stack (not synthetic).
    pub has_stack: bool,
}

impl Sample {
    /// A sample of a buffer with a stack (innermost first) or, with an
    /// empty `stack`, of one without.
    pub fn new(
        buffer: String,
        shape: String,
        bytes: u64,
        kind: BufferKind,
        op_name: Option<String>,
        stack: Vec<SampleFrame>,
    ) -> Self {
        let has_stack = !stack.is_empty();
        let frames = if has_stack {
            stack
        } else {
            let (block, inner) = match (kind, &op_name) {
                (BufferKind::Parameter, Some(path)) => (ARGUMENTS, path.clone()),
                (BufferKind::Parameter, None) => (ARGUMENTS, buffer.clone()),
                _ => (INSERTED, buffer.clone()),
            };
            vec![SampleFrame::synthetic(inner), SampleFrame::synthetic(block)]
        };
        Self {
            frames,
            bytes,
            buffer,
            shape,
            kind: kind.word(),
            op_name,
            has_stack,
        }
    }
}

/// `name{index}`, as the reports name a buffer.
pub fn buffer_name(name: &str, index: &[i64]) -> String {
    let index: Vec<String> = index.iter().map(i64::to_string).collect();
    format!("{name}{{{}}}", index.join(","))
}

/// The samples of `report`'s buffers live at the peak, in its order
/// (largest first); their bytes add up to the peak.
pub fn samples(report: &PeakReport) -> Vec<Sample> {
    report
        .live_at_peak
        .iter()
        .map(|b| {
            Sample::new(
                buffer_name(&b.name, &b.shape_index),
                b.shape.clone(),
                b.bytes,
                b.kind,
                b.op_name.as_deref().map(str::to_owned),
                b.stack.iter().map(SampleFrame::of).collect(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_labelled_with_the_files_name_and_titled_with_its_path() {
        let frame = SampleFrame {
            function: "train".to_owned(),
            file: "/home/me/src/model.py".to_owned(),
            line: 55,
            column: Some(4),
        };
        assert_eq!(frame.short_label(), "train (model.py:55)");
        assert_eq!(frame.label(), "train (/home/me/src/model.py:55)");
        let windows = SampleFrame {
            file: "C:\\src\\model.py".to_owned(),
            ..frame
        };
        assert_eq!(windows.short_label(), "train (model.py:55)");
        assert_eq!(SampleFrame::synthetic(ARGUMENTS).short_label(), ARGUMENTS);
    }
}
