//! XLA's dumps of a buffer assignment, told apart by their content.

use std::path::{Path, PathBuf};

use prost::Message;

use super::AssignmentError;
use super::assignment_text::read_assignment_text;
use super::from_proto::{Dump, peak_from_hlo_proto, peak_of_dump};
use super::from_text::{peak_from_text_dumps, peak_of_text};
use super::live_range::read_live_ranges;
use super::report::PeakReport;
use super::timeline::MemoryTimeline;
use super::timeline_build::{
    timeline_from_hlo_proto, timeline_from_text_dumps, timeline_of_dump, timeline_of_text,
};
use crate::proto::HloProto;

/// The first line of a `*-buffer-assignment.txt` dump.
const ASSIGNMENT_HEAD: &[u8] = b"BufferAssignment:";

/// One of XLA's dumps of a buffer assignment: the `HloProto`
/// (`*after_optimizations.hlo.pb`), or the two text dumps.
///
/// ```
/// use hlo_util::MemoryDump;
/// assert!(MemoryDump::is_assignment_text(b"BufferAssignment:\nallocation 0: ..."));
/// assert!(!MemoryDump::is_hlo_proto(b"HloModule m"));
/// let dump = MemoryDump::Proto(&[]);
/// assert_eq!(dump.peak().unwrap_err(), hlo_util::AssignmentError::NoModule);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryDump<'d> {
    /// A serialized `HloProto` with its buffer assignment.
    Proto(&'d [u8]),
    /// `*-buffer-assignment.txt` with its `*-live-range.txt`.
    Text {
        /// The buffer assignment's text.
        buffer_assignment: &'d str,
        /// The live ranges' text.
        live_range: &'d str,
    },
}

impl MemoryDump<'_> {
    /// Whether `bytes` are an `HloProto` with its module and buffer
    /// assignment both set (an `HloModuleProto` is not).
    pub fn is_hlo_proto(bytes: &[u8]) -> bool {
        HloProto::decode(bytes)
            .is_ok_and(|p| p.hlo_module.is_some() && p.buffer_assignment.is_some())
    }

    /// Whether `bytes` start as a `*-buffer-assignment.txt` dump does.
    pub fn is_assignment_text(bytes: &[u8]) -> bool {
        bytes.starts_with(ASSIGNMENT_HEAD)
    }

    /// The live-range dump XLA writes beside the buffer-assignment dump
    /// `path`: its name with `live-range.txt` for `buffer-assignment.txt`;
    /// none for another name.
    ///
    /// ```
    /// use std::path::Path;
    /// let beside = hlo_util::MemoryDump::live_range_beside(Path::new("d/m.cpu-buffer-assignment.txt"));
    /// assert_eq!(beside.unwrap(), Path::new("d/m.cpu-live-range.txt"));
    /// assert!(hlo_util::MemoryDump::live_range_beside(Path::new("m.txt")).is_none());
    /// ```
    pub fn live_range_beside(path: &Path) -> Option<PathBuf> {
        let name = path.file_name()?.to_str()?;
        let stem = name.strip_suffix("buffer-assignment.txt")?;
        Some(path.with_file_name(format!("{stem}live-range.txt")))
    }

    /// The module text XLA dumps beside the buffer-assignment dump
    /// `path` (`*after_optimizations.txt` for
    /// `*after_optimizations-buffer-assignment.txt`), whose instructions
    /// give the buffers their origins; none for another name.
    ///
    /// ```
    /// use std::path::Path;
    /// let beside = hlo_util::MemoryDump::module_text_beside(Path::new("d/m.cpu_after_optimizations-buffer-assignment.txt"));
    /// assert_eq!(beside.unwrap(), Path::new("d/m.cpu_after_optimizations.txt"));
    /// assert!(hlo_util::MemoryDump::module_text_beside(Path::new("buffer-assignment.txt")).is_none());
    /// ```
    pub fn module_text_beside(path: &Path) -> Option<PathBuf> {
        let name = path.file_name()?.to_str()?;
        let stem = name.strip_suffix("-buffer-assignment.txt")?;
        Some(path.with_file_name(format!("{stem}.txt")))
    }

    /// The peak as XLA computes it.
    ///
    /// # Errors
    ///
    /// As [`peak_from_hlo_proto`] and [`peak_from_text_dumps`].
    pub fn peak(&self) -> Result<PeakReport, AssignmentError> {
        match *self {
            Self::Proto(bytes) => peak_from_hlo_proto(bytes),
            Self::Text {
                buffer_assignment,
                live_range,
            } => peak_from_text_dumps(buffer_assignment, live_range),
        }
    }

    /// The memory timeline.
    ///
    /// # Errors
    ///
    /// As [`timeline_from_hlo_proto`] and [`timeline_from_text_dumps`].
    pub fn timeline(&self) -> Result<MemoryTimeline, AssignmentError> {
        match *self {
            Self::Proto(bytes) => timeline_from_hlo_proto(bytes),
            Self::Text {
                buffer_assignment,
                live_range,
            } => timeline_from_text_dumps(buffer_assignment, live_range),
        }
    }

    /// The peak ([`MemoryDump::peak`]) and the memory timeline
    /// ([`MemoryDump::timeline`]) of one reading of the dump: the message
    /// is decoded, or the texts read, once for both.
    ///
    /// ```
    /// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/peak_memory/attention");
    /// let bytes = std::fs::read(dir.join("after_optimizations.hlo.pb")).unwrap();
    /// let dump = hlo_util::MemoryDump::Proto(&bytes);
    /// let (peak, timeline) = dump.peak_and_timeline().unwrap();
    /// assert_eq!(peak, dump.peak().unwrap());
    /// assert_eq!(timeline, dump.timeline().unwrap());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`MemoryDump::peak`] and [`MemoryDump::timeline`].
    pub fn peak_and_timeline(&self) -> Result<(PeakReport, MemoryTimeline), AssignmentError> {
        match *self {
            Self::Proto(bytes) => {
                let dump = Dump::decode(bytes)?;
                Ok((peak_of_dump(&dump)?, timeline_of_dump(&dump)?))
            }
            Self::Text {
                buffer_assignment,
                live_range,
            } => {
                let assignment = read_assignment_text(buffer_assignment)?;
                let ranges = read_live_ranges(live_range)?;
                Ok((
                    peak_of_text(&assignment, &ranges)?,
                    timeline_of_text(&assignment, &ranges)?,
                ))
            }
        }
    }
}
