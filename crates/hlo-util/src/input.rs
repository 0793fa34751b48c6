//! What a file or byte string holds, told by its first bytes: module
//! text, StableHLO, XLA's text dump of a buffer assignment, or a serialized
//! message (an `HloModuleProto`, or an `HloProto` dump). The readers and
//! every front end (the CLI, the Python package, the explorer page) ask
//! here, so that one input is read the same way everywhere.

use crate::MemoryDump;

/// How many first bytes [`InputKind::of`] looks at (at most; fewer when
/// the input is shorter).
pub const HEAD_BYTES: usize = 1 << 16;

/// What an input holds.
///
/// ```
/// use hlo_util::InputKind;
/// assert_eq!(InputKind::of(b"HloModule m\nENTRY e {}"), InputKind::ModuleText);
/// assert_eq!(InputKind::of(b"  module @jit_f attributes {}"), InputKind::StableHlo);
/// assert_eq!(InputKind::of(b"BufferAssignment:\nallocation 0: ..."), InputKind::AssignmentText);
/// assert_eq!(InputKind::of(&[0x0a, 0x05, 0xff, 0x00]), InputKind::Serialized);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputKind {
    /// Text for the HLO text reader: `HloModule ...`, or any printable
    /// text that starts with a letter (which the reader then refuses, at
    /// its line and column, if it is no module).
    ModuleText,
    /// StableHLO or another MLIR module (`module @name ...`, `module {`,
    /// `module attributes {...}`: jax's `lowered.as_text()`), whose buffers
    /// are not assigned yet.
    StableHlo,
    /// XLA's `*-buffer-assignment.txt` dump.
    AssignmentText,
    /// No text: a serialized `HloModuleProto`, or an `HloProto` dump
    /// ([`InputKind::of_whole`] tells that one apart).
    Serialized,
    /// A serialized `HloProto` with its module and buffer assignment (the
    /// `*after_optimizations.hlo.pb` dump).
    HloProto,
}

impl InputKind {
    /// What the input whose first bytes are `head` holds (at most
    /// [`HEAD_BYTES`] are looked at; a byte order mark and leading
    /// whitespace are skipped). A serialized message is
    /// [`InputKind::Serialized`], whatever it is.
    #[must_use]
    pub fn of(head: &[u8]) -> Self {
        let head = head.get(..HEAD_BYTES).unwrap_or(head);
        let head = head.strip_prefix(BOM).unwrap_or(head);
        let start = head
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(head.len());
        let rest = head.get(start..).unwrap_or_default();
        if MemoryDump::is_assignment_text(rest) {
            return Self::AssignmentText;
        }
        if is_mlir_module(rest) {
            return Self::StableHlo;
        }
        if rest.starts_with(b"HloModule") {
            return Self::ModuleText;
        }
        // Text that is not a module (a dump's report) is text, not a
        // message: it starts with a letter and its first bytes are
        // printable, its first line UTF-8.
        let printable = |b: &u8| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\r' | b'\t');
        let first_line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
        let text = rest.first().is_none_or(u8::is_ascii_alphabetic)
            && rest.iter().take(256).all(printable)
            && std::str::from_utf8(first_line).is_ok();
        if text {
            Self::ModuleText
        } else {
            Self::Serialized
        }
    }

    /// What the whole input `bytes` holds: as [`InputKind::of`], with an
    /// `HloProto` dump told apart from other messages (by decoding it).
    ///
    /// ```
    /// use hlo_util::InputKind;
    /// assert_eq!(InputKind::of_whole(b"HloModule m"), InputKind::ModuleText);
    /// assert_eq!(InputKind::of_whole(&[0x0a, 0x05, 0xff, 0x00]), InputKind::Serialized);
    /// ```
    #[must_use]
    pub fn of_whole(bytes: &[u8]) -> Self {
        match Self::of(bytes) {
            Self::Serialized if MemoryDump::is_hlo_proto(bytes) => Self::HloProto,
            kind => kind,
        }
    }

    /// `Ok` for module text; else why the input is not the module's text
    /// that a module's peak is computed from.
    ///
    /// ```
    /// use hlo_util::{InputKind, NotModuleText};
    /// assert_eq!(InputKind::of(b"module {}").module_text(), Err(NotModuleText::StableHlo));
    /// assert!(NotModuleText::StableHlo.to_string().ends_with("compile it and pass compiled.as_text()"));
    /// ```
    ///
    /// # Errors
    /// [`NotModuleText::StableHlo`] for StableHLO, else
    /// [`NotModuleText::Serialized`] for anything that is no text (a
    /// buffer-assignment dump is text, refused by the text reader).
    pub fn module_text(self) -> Result<(), NotModuleText> {
        match self {
            Self::StableHlo => Err(NotModuleText::StableHlo),
            Self::Serialized | Self::HloProto => Err(NotModuleText::Serialized),
            Self::ModuleText | Self::AssignmentText => Ok(()),
        }
    }
}

/// Why an input is not the module's text that was asked for; each message
/// names the fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum NotModuleText {
    /// StableHLO (jax's `lowered.as_text()`).
    #[error(
        "this is StableHLO (jax's lowered.as_text()), whose buffers are not \
         assigned yet: compile it and pass compiled.as_text()"
    )]
    StableHlo,
    /// A serialized module (or other message).
    #[error(
        "the peak is computed from the module's text, not a serialized \
         HloModuleProto: pass compiled.as_text() (or XLA's *after_optimizations.txt dump)"
    )]
    Serialized,
}

/// The byte order mark some editors write first.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Whether `text` starts as an MLIR module does: `module`, then a name
/// (`@...`), attributes or its body.
fn is_mlir_module(text: &[u8]) -> bool {
    let Some(after) = text.strip_prefix(b"module") else {
        return false;
    };
    let after = after.trim_ascii_start();
    after.starts_with(b"@") || after.starts_with(b"{") || after.starts_with(b"attributes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_input_is_told_by_its_first_bytes() {
        assert_eq!(InputKind::of(b""), InputKind::ModuleText);
        assert_eq!(
            InputKind::of(b"\xef\xbb\xbf\n HloModule m"),
            InputKind::ModuleText
        );
        assert_eq!(InputKind::of(b"ENTRY e {}"), InputKind::ModuleText);
        assert_eq!(
            InputKind::of(b"module attributes {x = 1}"),
            InputKind::StableHlo
        );
        assert_eq!(InputKind::of(b"module {}"), InputKind::StableHlo);
        // A module named `modules` is no MLIR module.
        assert_eq!(InputKind::of(b"modules"), InputKind::ModuleText);
        assert_eq!(InputKind::of(b"\x08\x01"), InputKind::Serialized);
        assert_eq!(InputKind::of(b"a\xff"), InputKind::Serialized);
        assert_eq!(InputKind::of(b"\xe9t\xe9"), InputKind::Serialized);
    }
}
