//! Reading XLA's dumps of a buffer assignment from their files, told apart
//! by content: the `HloProto` (`*after_optimizations.hlo.pb`), or
//! `*-buffer-assignment.txt` with its `*-live-range.txt` (given, or the file
//! beside it).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use hlo_util::MemoryDump;

/// A dump's contents, read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpFiles {
    /// A serialized `HloProto` with its buffer assignment.
    Proto(Vec<u8>),
    /// The buffer assignment's text and the live ranges' text.
    Text(String, String),
}

impl DumpFiles {
    /// The dump in `path` (`live_range`: the live ranges of a
    /// buffer-assignment text, by default the file beside it); none when the
    /// file is not one of XLA's dumps, nor `live_range` given.
    ///
    /// # Errors
    /// A message naming the file that cannot be read, or the live ranges a
    /// buffer-assignment text lacks.
    pub fn read(path: &Path, live_range: Option<&Path>) -> Result<Option<Self>, String> {
        let cannot = |p: &Path, e: std::io::Error| format!("cannot read {}: {e}", p.display());
        let mut head = Vec::with_capacity(32);
        // Worded as `hlo` words a module it cannot open.
        let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        file.take(32)
            .read_to_end(&mut head)
            .map_err(|e| cannot(path, e))?;
        if live_range.is_some() || MemoryDump::is_assignment_text(&head) {
            let beside = match live_range {
                Some(p) => PathBuf::from(p),
                None => MemoryDump::live_range_beside(path).ok_or_else(|| {
                    format!(
                        "{}: a buffer-assignment dump needs its live ranges: --live-range FILE",
                        path.display()
                    )
                })?,
            };
            let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| cannot(p, e));
            return Ok(Some(Self::Text(read(path)?, read(&beside)?)));
        }
        let bytes = std::fs::read(path).map_err(|e| cannot(path, e))?;
        Ok(MemoryDump::is_hlo_proto(&bytes).then_some(Self::Proto(bytes)))
    }

    /// The dump to compute with.
    pub fn dump(&self) -> MemoryDump<'_> {
        match self {
            Self::Proto(bytes) => MemoryDump::Proto(bytes),
            Self::Text(buffer_assignment, live_range) => MemoryDump::Text {
                buffer_assignment,
                live_range,
            },
        }
    }
}
