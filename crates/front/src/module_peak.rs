//! The peak memory of a module computed from its text alone
//! (`compiled.as_text()`), and its timeline picture: what `hlo FILE --peak`
//! prints and the Python package returns. Other inputs (StableHLO, a
//! serialized `HloModuleProto`) are refused with the fix.

use std::io::{BufRead, Read};

use hlo_util::{ModuleMemory, memory_from_module_reader, timeline_from_module_memory};

use crate::Error;
use crate::draw::timeline;

/// The memory of the module whose text is `input`: its peak, the buffers
/// live there, and every buffer over the steps of its schedule.
///
/// # Errors
/// [`Error::StableHlo`] or [`Error::SerializedModule`] instead of the
/// module's text (naming the fix); [`Error::Liveness`]: why the text cannot
/// be analysed.
pub fn module_memory(input: &[u8]) -> Result<ModuleMemory, Error> {
    module_memory_read(input, "the input")
}

/// [`module_memory`] of the text read from `input` a line at a time (a
/// file is never held whole): its first bytes tell module text from what
/// is not.
///
/// # Errors
/// As [`module_memory`]; [`Error::Read`] when the first bytes of `name`
/// cannot be read (later I/O errors are the text reader's, at their line).
pub fn module_memory_read(mut input: impl BufRead, name: &str) -> Result<ModuleMemory, Error> {
    let mut head = Vec::new();
    (&mut input)
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(|source| Error::Read {
            path: name.into(),
            source,
        })?;
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let rest = head.get(start..).unwrap_or_default();
    if rest.starts_with(b"module @") || rest.starts_with(b"module {") {
        return Err(Error::StableHlo);
    }
    let printable = |b: &u8| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\r' | b'\t');
    let text =
        rest.first().is_none_or(u8::is_ascii_alphabetic) && rest.iter().take(256).all(printable);
    // A serialized module is not UTF-8 as a rule; text is checked a line at
    // a time as it is read.
    let first_line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
    if !(text || rest.starts_with(b"HloModule")) || std::str::from_utf8(first_line).is_err() {
        return Err(Error::SerializedModule);
    }
    Ok(memory_from_module_reader(head.as_slice().chain(input))?)
}

/// How much of the input is read to tell what it is.
const HEAD_BYTES: u64 = 1 << 16;

/// The timeline picture of `memory`, titled with `file`'s name when given.
pub fn picture(file: Option<&str>, memory: &ModuleMemory) -> String {
    timeline::render(
        &timeline::title(file),
        &memory.peak,
        &timeline_from_module_memory(memory),
    )
}

#[cfg(test)]
mod tests {
    use super::module_memory;
    use crate::Error;

    #[test]
    fn stablehlo_and_protos_are_refused_with_the_fix() {
        let error = module_memory(b"  module @jit_f attributes {}").unwrap_err();
        assert!(matches!(error, Error::StableHlo));
        assert!(
            error.to_string().ends_with("pass compiled.as_text()"),
            "{error}"
        );
        let error = module_memory(&[0x0a, 0x05, 0xff, 0x00]).unwrap_err();
        assert!(matches!(error, Error::SerializedModule));
        let message = error.to_string();
        assert!(
            message.contains("not a serialized HloModuleProto"),
            "{message}"
        );
        let error = module_memory(b"ENTRY e {}").unwrap_err();
        assert!(matches!(error, Error::Liveness(_)));
        assert_eq!(
            error.to_string(),
            "line 1, column 1: expected `HloModule` first"
        );
    }
}
