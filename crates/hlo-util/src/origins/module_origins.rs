//! The origins of a module's instructions by name, read from its text:
//! for the buffers of XLA's text dumps (`*-buffer-assignment.txt` names
//! each buffer's instruction but records no origin), from the module text
//! XLA dumps beside them.

use std::collections::HashMap;

use super::metadata::Origin;
use crate::liveness::LivenessError;
use crate::liveness::graph::read_graph;
use crate::{MemoryTimeline, PeakReport};

/// Each instruction's op_name and stack, by name.
///
/// ```
/// let text = "HloModule m
/// ENTRY %e (p: f32[4]) -> f32[4] {
///   ROOT %p = f32[4]{0} parameter(0), metadata={op_name=\"args[0]\"}
/// }
/// ";
/// let origins = hlo_util::ModuleOrigins::from_text(text).unwrap();
/// let mut report = hlo_util::PeakReport::default();
/// report.live_at_peak.push(hlo_util::LiveBuffer {
///     name: "p".to_owned(),
///     shape_index: Vec::new(),
///     shape: "f32[4]{0}".to_owned(),
///     bytes: 16,
///     kind: hlo_util::BufferKind::Parameter,
///     op_name: None,
///     stack: hlo_util::Stack::default(),
/// });
/// origins.apply(&mut report);
/// assert_eq!(report.live_at_peak[0].op_name.as_deref(), Some("args[0]"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ModuleOrigins {
    by_name: HashMap<String, Origin>,
}

impl ModuleOrigins {
    /// The origins of the module whose text is `text`.
    ///
    /// # Errors
    ///
    /// [`LivenessError`]: text that does not read as a module.
    pub fn from_text(text: &str) -> Result<Self, LivenessError> {
        let graph = read_graph(text.as_bytes())?;
        let by_name = graph
            .insts
            .iter()
            .filter_map(|inst| {
                let origin = graph.origin(inst)?.resolve(graph.frames.as_ref());
                Some((graph.name(inst).to_owned(), origin))
            })
            .collect();
        Ok(Self { by_name })
    }

    /// Gives each buffer live at the peak that has no origin that of its
    /// instruction.
    pub fn apply(&self, report: &mut PeakReport) {
        for b in &mut report.live_at_peak {
            if let Some(o) = self.of(&b.name, b.op_name.is_none() && b.stack.is_empty()) {
                b.op_name.clone_from(&o.op_name);
                b.stack = o.stack.clone();
            }
        }
    }

    /// Gives each block of the timeline that has no origin that of its
    /// instruction.
    pub fn apply_to_timeline(&self, timeline: &mut MemoryTimeline) {
        for b in &mut timeline.buffers {
            if let Some(o) = self.of(&b.name, b.op_name.is_none() && b.stack.is_empty()) {
                b.op_name.clone_from(&o.op_name);
                b.stack = o.stack.clone();
            }
        }
    }

    /// The origin of instruction `name`, if `wanted`.
    fn of(&self, name: &str, wanted: bool) -> Option<&Origin> {
        wanted.then(|| self.by_name.get(name)).flatten()
    }
}
