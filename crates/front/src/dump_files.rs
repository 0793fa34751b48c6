//! Reading XLA's dumps of a buffer assignment from their files, told apart
//! by content: the `HloProto` (`*after_optimizations.hlo.pb`), or
//! `*-buffer-assignment.txt` with its `*-live-range.txt` (given, or the file
//! beside it).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use hlo_util::MemoryDump;

use crate::Error;

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
    /// ```
    /// let error = xla_shape_front::DumpFiles::read("no such dump".as_ref(), None).unwrap_err();
    /// assert!(matches!(error, xla_shape_front::Error::Open { .. }));
    /// assert!(error.to_string().starts_with("cannot open no such dump: "));
    /// ```
    ///
    /// # Errors
    /// [`Error::Open`] or [`Error::Read`]: the file that cannot be read;
    /// [`Error::NoLiveRange`]: the live ranges a buffer-assignment text
    /// lacks.
    pub fn read(path: &Path, live_range: Option<&Path>) -> Result<Option<Self>, Error> {
        let cannot = |p: &Path| {
            let path = p.to_path_buf();
            |source| Error::Read { path, source }
        };
        let mut head = Vec::with_capacity(32);
        // Worded as `hlo` words a module it cannot open.
        let file = File::open(path).map_err(|source| Error::Open {
            path: path.to_path_buf(),
            source,
        })?;
        file.take(32).read_to_end(&mut head).map_err(cannot(path))?;
        if live_range.is_some() || MemoryDump::is_assignment_text(&head) {
            let beside = match live_range {
                Some(p) => PathBuf::from(p),
                None => MemoryDump::live_range_beside(path).ok_or_else(|| Error::NoLiveRange {
                    path: path.to_path_buf(),
                })?,
            };
            let read = |p: &Path| std::fs::read_to_string(p).map_err(cannot(p));
            return Ok(Some(Self::Text(read(path)?, read(&beside)?)));
        }
        let bytes = std::fs::read(path).map_err(cannot(path))?;
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
