//! The bytes live at the peak grouped by where they come from: source
//! line, function, stack, op_name, jax's pass, kind.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{BufferKind, LiveBuffer, PeakReport};

/// What the buffers live at the peak are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The innermost frame's `file:line`: the line of the operation.
    Source,
    /// The innermost frame's function, with its file: `function (file)`
    /// (the file alone for a frame without a function).
    Function,
    /// The whole stack, outermost first: `f (a.py:3) > g (b.py:9)`.
    Stack,
    /// The `op_name` (an entry parameter's is its pytree path).
    Op,
    /// jax's pass as the name stack says it ([`pass_of`]).
    Pass,
    /// The kind of buffer ([`BufferKind::word`]).
    Kind,
}

impl GroupBy {
    /// Every grouping, in the order of the variants.
    pub const ALL: [Self; 6] = [
        Self::Source,
        Self::Function,
        Self::Stack,
        Self::Op,
        Self::Pass,
        Self::Kind,
    ];

    /// Its name, as `--by` spells it.
    ///
    /// ```
    /// assert_eq!(hlo_util::GroupBy::Op.word(), "op");
    /// assert_eq!("source".parse::<hlo_util::GroupBy>(), Ok(hlo_util::GroupBy::Source));
    /// ```
    pub fn word(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Function => "function",
            Self::Stack => "stack",
            Self::Op => "op",
            Self::Pass => "pass",
            Self::Kind => "kind",
        }
    }

    /// The group of buffer `b`; none when the module records nothing of
    /// it (no stack, no op_name): a buffer XLA inserted.
    pub fn key(self, b: &LiveBuffer) -> Option<String> {
        match self {
            Self::Source => b.stack.innermost().map(super::Frame::source),
            Self::Function => b.stack.innermost().map(|f| {
                if f.function.is_empty() {
                    f.file.clone()
                } else {
                    format!("{} ({})", f.function, f.file)
                }
            }),
            Self::Stack => {
                let frames: Vec<String> = b.stack.iter().map(ToString::to_string).collect();
                (!frames.is_empty())
                    .then(|| frames.into_iter().rev().collect::<Vec<_>>().join(" > "))
            }
            Self::Op => b.op_name.as_deref().map(str::to_owned),
            Self::Pass => {
                if b.kind == BufferKind::Parameter {
                    Some("parameter".to_owned())
                } else {
                    b.op_name.as_deref().map(|o| pass_of(o).to_owned())
                }
            }
            Self::Kind => Some(b.kind.word().to_owned()),
        }
    }
}

impl fmt::Display for GroupBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.word())
    }
}

impl FromStr for GroupBy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|g| g.word() == s)
            .ok_or_else(|| {
                let words: Vec<&str> = Self::ALL.iter().map(|g| g.word()).collect();
                format!("no grouping `{s}` (one of {})", words.join(", "))
            })
    }
}

/// jax's pass of an operation, from its `op_name`'s name stack:
/// `remat` for a rematerialised computation (a `rematted_computation`
/// scope, or a `remat` one), `backward` inside a `transpose(...)` (the
/// transposed, backward pass of `grad`), `forward` otherwise.
///
/// ```
/// use hlo_util::pass_of;
/// assert_eq!(pass_of("jit(step)/jvp(attention)/dot_general"), "forward");
/// assert_eq!(pass_of("jit(step)/transpose(jvp(attention))/dot_general"), "backward");
/// assert_eq!(pass_of("jit(g)/transpose(jvp())/while/body/checkpoint/rematted_computation/tanh"), "remat");
/// ```
pub fn pass_of(op_name: &str) -> &'static str {
    let mut backward = false;
    for scope in op_name.split('/') {
        if scope == "rematted_computation" || scope.starts_with("remat") {
            return "remat";
        }
        backward |= scope.starts_with("transpose(");
    }
    if backward { "backward" } else { "forward" }
}

/// One group of buffers live at the peak.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRow {
    /// The group ([`GroupBy::key`]); none for the buffers whose module
    /// records nothing of them.
    pub key: Option<String>,
    /// Their bytes.
    pub bytes: u64,
    /// How many buffers.
    pub buffers: u64,
    /// Their bytes in percent of the peak.
    pub percent: f64,
}

/// The bytes live at the peak by `by`, largest first (ties by key, the
/// group of no key last among equals).
///
/// ```
/// use hlo_util::{GroupBy, group_at_peak};
/// let report = hlo_util::PeakReport::default();
/// assert!(group_at_peak(&report, GroupBy::Source).is_empty());
/// ```
pub fn group_at_peak(report: &PeakReport, by: GroupBy) -> Vec<GroupRow> {
    group_buffers(&report.live_at_peak, by, report.peak_bytes)
}

/// The bytes of `buffers` by `by`, in percent of `total`.
pub(crate) fn group_buffers(buffers: &[LiveBuffer], by: GroupBy, total: u64) -> Vec<GroupRow> {
    let mut groups: HashMap<Option<String>, (u64, u64)> = HashMap::new();
    for b in buffers {
        let entry = groups.entry(by.key(b)).or_default();
        entry.0 = entry.0.saturating_add(b.bytes);
        entry.1 = entry.1.saturating_add(1);
    }
    let mut rows: Vec<GroupRow> = groups
        .into_iter()
        .map(|(key, (bytes, count))| GroupRow {
            key,
            bytes,
            buffers: count,
            percent: percent(bytes, total),
        })
        .collect();
    rows.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then_with(|| a.key.is_none().cmp(&b.key.is_none()))
            .then_with(|| a.key.cmp(&b.key))
    });
    rows
}

/// `part` in percent of `whole` (0 for an empty whole).
fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}
