//! [`ViewReport`]: what `xla-shape view` says of a strided view.

use std::fmt;

use index_util::dimension_list as list;
use serde::{Deserialize, Serialize};

use crate::view::StridedView;

/// A view's sizes, strides (in elements), offset and contiguity: the
/// report `xla-shape view` prints, as fields (`Serialize`) or lines
/// (`Display`).
///
/// ```
/// let view = stride_util::resolve_view("[3,4]", &[".T"]).unwrap();
/// let report = stride_util::ViewReport::of(&view);
/// assert_eq!(report.strides, [1, 4]);
/// assert_eq!(
///     report.to_string(),
///     "shape: [4,3]\nstrides: [1,4]\noffset: 0\nc_contiguous: false\nf_contiguous: true"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ViewReport {
    /// The sizes.
    pub shape: Vec<i64>,
    /// The strides, in elements.
    pub strides: Vec<i64>,
    /// The offset of element `[0,...]`, in elements.
    pub offset: i64,
    /// Whether the view is packed row-major.
    pub c_contiguous: bool,
    /// Whether the view is packed column-major.
    pub f_contiguous: bool,
}

impl ViewReport {
    /// The report on `view`.
    #[must_use]
    pub fn of(view: &StridedView) -> Self {
        Self {
            shape: view.sizes().to_vec(),
            strides: view.strides().to_vec(),
            offset: view.offset(),
            c_contiguous: view.is_c_contiguous(),
            f_contiguous: view.is_f_contiguous(),
        }
    }
}

impl fmt::Display for ViewReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shape: {}\nstrides: {}\noffset: {}\nc_contiguous: {}\nf_contiguous: {}",
            list(&self.shape),
            list(&self.strides),
            self.offset,
            self.c_contiguous,
            self.f_contiguous
        )
    }
}
