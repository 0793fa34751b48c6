//! The reduction of an unreduced sharding: how the partial results held
//! along its unreduced devices combine. A named sharding keeps it in
//! `NamedShardingProto.reduction_op`; a tile-assignment sharding in its
//! metadata, as an entry of `op_type` `sdy::reduction_op` whose `op_name`
//! is `SUM`, `MAX` or `MIN`.

use std::fmt;

use schema::OpMetadata;

/// How the partial results of an unreduced sharding combine (XLA's
/// `NamedShardingProto.ReductionOpProto`).
///
/// ```
/// use sharding_util::Reduction;
///
/// assert_eq!(Reduction::from_proto_value(2), Reduction::Min);
/// // XLA 0.12 reads any value it has no name for as a sum.
/// assert_eq!(Reduction::from_proto_value(3), Reduction::Sum);
/// assert_eq!(Reduction::Max.text(), "max");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Reduction {
    /// Added (the default, which XLA's text leaves out).
    #[default]
    Sum,
    /// Their maximum.
    Max,
    /// Their minimum.
    Min,
}

impl fmt::Display for Reduction {
    /// The word of XLA's text ([`Reduction::text`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.text())
    }
}

impl Reduction {
    /// The `reduction_op` value (`SUM` 0, `MAX` 1, `MIN` 2).
    pub fn proto_value(self) -> i32 {
        match self {
            Self::Sum => 0,
            Self::Max => 1,
            Self::Min => 2,
        }
    }

    /// The reduction of a `reduction_op` value: `MAX` and `MIN` by their
    /// values, and, as XLA 0.12 reads them, every other value (out of the
    /// enum's range or negative) a sum.
    pub fn from_proto_value(value: i32) -> Self {
        match value {
            1 => Self::Max,
            2 => Self::Min,
            _ => Self::Sum,
        }
    }

    /// The word of XLA's named sharding text (`unreduced=max{...}`).
    pub fn text(self) -> &'static str {
        match self {
            Self::Sum => "sum",
            Self::Max => "max",
            Self::Min => "min",
        }
    }

    /// The reduction of a word of XLA's named sharding text, which knows
    /// only the lower-case words.
    pub fn from_text(word: &str) -> Option<Self> {
        match word {
            "sum" => Some(Self::Sum),
            "max" => Some(Self::Max),
            "min" => Some(Self::Min),
            _ => None,
        }
    }

    /// The `op_name` of the metadata entry (`SUM`).
    fn entry_name(self) -> &'static str {
        match self {
            Self::Sum => "SUM",
            Self::Max => "MAX",
            Self::Min => "MIN",
        }
    }
}

/// The `op_type` of XLA's reduction entry.
const REDUCTION_OP_TYPE: &str = "sdy::reduction_op";

/// Whether `entry` is a reduction entry (whatever its `op_name`).
pub(crate) fn is_reduction(entry: &OpMetadata) -> bool {
    entry.op_type == REDUCTION_OP_TYPE
}

/// The reduction XLA reads from `metadata`: the last reduction entry named
/// `MAX` or `MIN`, else a sum (XLA reads any other name as no change).
pub(crate) fn reduction_of(metadata: &[OpMetadata]) -> Reduction {
    metadata
        .iter()
        .filter(|entry| is_reduction(entry))
        .fold(Reduction::Sum, |r, entry| match entry.op_name.as_str() {
            "MAX" => Reduction::Max,
            "MIN" => Reduction::Min,
            _ => r,
        })
}

/// Appends the reduction entry XLA's `ToProto` (and `v3_to_v2_sharding`)
/// writes: for a sharding with an unreduced part, and for any other whose
/// reduction is not a sum.
pub(crate) fn push_reduction(
    metadata: &mut Vec<OpMetadata>,
    reduction: Reduction,
    unreduced: bool,
) {
    if unreduced || reduction != Reduction::Sum {
        metadata.push(OpMetadata {
            op_type: REDUCTION_OP_TYPE.to_string(),
            op_name: reduction.entry_name().to_string(),
            ..OpMetadata::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(op_type: &str, op_name: &str) -> OpMetadata {
        OpMetadata {
            op_type: op_type.to_string(),
            op_name: op_name.to_string(),
            ..OpMetadata::default()
        }
    }

    #[test]
    fn words_honour_width_fill_and_alignment() {
        assert_eq!(format!("{:>10}|", Reduction::Max), "       max|");
        assert_eq!(format!("{:<8}|", crate::SubgroupType::Manual), "manual  |");
        let sharding: crate::HloSharding = "{replicated}".parse().unwrap();
        let canonical = crate::CanonicalSharding::new(&sharding);
        assert_eq!(format!("{canonical:>14}|"), "  {replicated}|");
        assert_eq!(Reduction::Min.to_string(), "min");
    }

    #[test]
    fn the_last_max_or_min_wins_and_other_names_change_nothing() {
        let r = |names: &[&str]| {
            let metadata: Vec<_> = names.iter().map(|n| entry(REDUCTION_OP_TYPE, n)).collect();
            reduction_of(&metadata)
        };
        assert_eq!(r(&[]), Reduction::Sum);
        assert_eq!(r(&["PROD"]), Reduction::Sum);
        assert_eq!(r(&["MAX", "MIN"]), Reduction::Min);
        assert_eq!(r(&["MIN", "SUM"]), Reduction::Min);
        assert_eq!(r(&["max"]), Reduction::Sum);
        assert_eq!(reduction_of(&[entry("add", "MAX")]), Reduction::Sum);
    }

    #[test]
    fn an_entry_is_written_for_unreduced_or_a_reduction_other_than_sum() {
        let mut m = Vec::new();
        push_reduction(&mut m, Reduction::Sum, false);
        assert!(m.is_empty());
        push_reduction(&mut m, Reduction::Sum, true);
        push_reduction(&mut m, Reduction::Max, false);
        assert_eq!(
            m,
            [
                entry(REDUCTION_OP_TYPE, "SUM"),
                entry(REDUCTION_OP_TYPE, "MAX")
            ]
        );
    }

    #[test]
    fn proto_values_and_words_round_trip() {
        for r in [Reduction::Sum, Reduction::Max, Reduction::Min] {
            assert_eq!(Reduction::from_proto_value(r.proto_value()), r);
            assert_eq!(Reduction::from_text(r.text()), Some(r));
        }
        for value in [3, 4, 99, -1, i32::MIN, i32::MAX] {
            assert_eq!(Reduction::from_proto_value(value), Reduction::Sum);
        }
        assert_eq!(Reduction::from_text("MAX"), None);
        assert_eq!(Reduction::from_text("prod"), None);
    }
}
