//! The peak memory of a module computed from its text alone
//! (`compiled.as_text()`), and its timeline picture: what `hlo FILE --peak`
//! prints and the Python package returns. Other inputs (StableHLO, a
//! serialized `HloModuleProto`) are refused with the fix.

use hlo_util::{ModuleMemory, memory_from_module_text, timeline_from_module_memory};

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
    let start = input
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(input.len());
    let head = input.get(start..).unwrap_or_default();
    if head.starts_with(b"module @") || head.starts_with(b"module {") {
        return Err(Error::StableHlo);
    }
    let printable = |b: &u8| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\r' | b'\t');
    let text =
        head.first().is_none_or(u8::is_ascii_alphabetic) && head.iter().take(256).all(printable);
    let text = std::str::from_utf8(input)
        .ok()
        .filter(|_| text || head.starts_with(b"HloModule"));
    let Some(text) = text else {
        return Err(Error::SerializedModule);
    };
    Ok(memory_from_module_text(text)?)
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
