//! The peak memory of a module computed from its text alone
//! (`compiled.as_text()`), and its timeline picture: what `hlo FILE --peak`
//! prints and the Python package returns. Other inputs (StableHLO, a
//! serialized `HloModuleProto`) are refused with the fix.

use std::io::{BufRead, Read};

use hlo_util::{
    HEAD_BYTES, InputKind, ModuleMemory, memory_from_module_reader, timeline_from_module_memory,
};

use crate::Error;
use crate::draw::timeline;

/// The memory of the module whose text is `input`: its peak, the buffers
/// live there, and every buffer over the steps of its schedule.
///
/// # Errors
/// [`Error::NotModuleText`] for StableHLO or a serialized module instead of the
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
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|source| Error::Read {
            path: name.into(),
            source,
        })?;
    InputKind::of(&head).module_text()?;
    Ok(memory_from_module_reader(head.as_slice().chain(input))?)
}

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
    use hlo_util::NotModuleText;

    use super::module_memory;
    use crate::Error;

    #[test]
    fn stablehlo_and_protos_are_refused_with_the_fix() {
        let error = module_memory(b"  module @jit_f attributes {}").unwrap_err();
        assert!(matches!(
            error,
            Error::NotModuleText(NotModuleText::StableHlo)
        ));
        assert!(
            error.to_string().ends_with("pass compiled.as_text()"),
            "{error}"
        );
        let error = module_memory(&[0x0a, 0x05, 0xff, 0x00]).unwrap_err();
        assert!(matches!(
            error,
            Error::NotModuleText(NotModuleText::Serialized)
        ));
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
