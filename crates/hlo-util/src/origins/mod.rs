//! Where each buffer comes from: the `op_name` and the Python stack of
//! its defining instruction, read from the module's stack-frame tables
//! (text or `HloModuleProto`) and its metadata; the bytes at the peak
//! grouped by them ([`group_at_peak`]), and two peaks compared
//! ([`PeakDiff`]).

mod diff;
mod escape;
pub(crate) mod frame;
mod group;
pub(crate) mod head;
pub(crate) mod metadata;
mod module_origins;
pub(crate) mod tables;
mod text;

pub use diff::{DiffRow, PeakDiff};
pub use frame::{Frame, Frames, Stack};
pub use group::{GroupBy, GroupRow, group_at_peak, pass_of};
pub use module_origins::ModuleOrigins;
pub use text::groups_text;
