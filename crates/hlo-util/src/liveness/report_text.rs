//! [`ModuleMemory`] as text: what `xla-shape hlo FILE --peak` prints of
//! it.

use std::fmt;

use super::report::ModuleMemory;

/// The line that says a peak is an estimate, and how to get XLA's.
pub const ESTIMATE_NOTE: &str = "estimate: the module is not scheduled (no is_scheduled=true), \
     so its instructions were taken in the order of the text; compile it and pass \
     compiled.as_text() for the peak XLA computes";

/// [`ModuleMemory::text`]: the memory as text with at most `top` live
/// buffers listed.
#[derive(Debug, Clone, Copy)]
pub struct ModuleMemoryText<'m> {
    memory: &'m ModuleMemory,
    top: usize,
}

impl ModuleMemory {
    /// The memory as text: [`ESTIMATE_NOTE`] on a line of its own when the
    /// peak is an estimate, then the peak's text with at most `top` live
    /// buffers listed ([`crate::PeakReport::text`]). The warnings are not
    /// in it: `Display` of the memory adds them last, one
    /// `warning: ...` line each.
    ///
    /// ```
    /// let text = "HloModule m\nENTRY e {\n  p = f32[256]{0} parameter(0)\n  ROOT n = f32[256]{0} negate(p)\n}\n";
    /// let memory = hlo_util::memory_from_module_text(text).unwrap();
    /// let shown = memory.text(1).to_string();
    /// assert!(shown.starts_with(hlo_util::ESTIMATE_NOTE));
    /// assert!(shown.contains("peak: 2048 bytes"));
    /// assert_eq!(memory.to_string(), memory.text(usize::MAX).to_string());
    /// ```
    #[must_use]
    pub fn text(&self, top: usize) -> ModuleMemoryText<'_> {
        ModuleMemoryText { memory: self, top }
    }
}

impl fmt::Display for ModuleMemoryText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.memory.peak_is_estimate {
            writeln!(f, "{ESTIMATE_NOTE}")?;
        }
        self.memory.peak.text(self.top).fmt(f)
    }
}

impl fmt::Display for ModuleMemory {
    /// Every live buffer listed, then the warnings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text(usize::MAX).fmt(f)?;
        for warning in &self.warnings {
            write!(f, "\nwarning: {warning}")?;
        }
        Ok(())
    }
}
