//! The reduction of an unreduced sharding, which XLA keeps in the
//! sharding's metadata: an entry of `op_type` `sdy::reduction_op` whose
//! `op_name` is `SUM`, `MAX` or `MIN`.

use schema::OpMetadata;

/// The `op_type` of XLA's reduction entry.
const REDUCTION_OP_TYPE: &str = "sdy::reduction_op";

/// Whether `entry` is a reduction entry (whatever its `op_name`).
pub(crate) fn is_reduction(entry: &OpMetadata) -> bool {
    entry.op_type == REDUCTION_OP_TYPE
}

/// The reduction XLA reads from `metadata`: the last reduction entry named
/// `MAX` or `MIN`, else `SUM` (XLA reads any other name as no change).
pub(crate) fn reduction_of(metadata: &[OpMetadata]) -> &'static str {
    metadata
        .iter()
        .filter(|entry| is_reduction(entry))
        .fold("SUM", |name, entry| match entry.op_name.as_str() {
            "MAX" => "MAX",
            "MIN" => "MIN",
            _ => name,
        })
}

/// Appends the reduction entry XLA's `ToProto` writes: for a sharding with
/// an unreduced part, and for any other whose reduction is not `SUM`.
pub(crate) fn push_reduction(metadata: &mut Vec<OpMetadata>, name: &'static str, unreduced: bool) {
    if unreduced || name != "SUM" {
        metadata.push(OpMetadata {
            op_type: REDUCTION_OP_TYPE.to_string(),
            op_name: name.to_string(),
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
    fn the_last_max_or_min_wins_and_other_names_change_nothing() {
        let r = |names: &[&str]| {
            let metadata: Vec<_> = names.iter().map(|n| entry(REDUCTION_OP_TYPE, n)).collect();
            reduction_of(&metadata)
        };
        assert_eq!(r(&[]), "SUM");
        assert_eq!(r(&["PROD"]), "SUM");
        assert_eq!(r(&["MAX", "MIN"]), "MIN");
        assert_eq!(r(&["MIN", "SUM"]), "MIN");
        assert_eq!(r(&["max"]), "SUM");
        assert_eq!(reduction_of(&[entry("add", "MAX")]), "SUM");
    }

    #[test]
    fn an_entry_is_written_for_unreduced_or_a_reduction_other_than_sum() {
        let mut m = Vec::new();
        push_reduction(&mut m, "SUM", false);
        assert!(m.is_empty());
        push_reduction(&mut m, "SUM", true);
        push_reduction(&mut m, "MAX", false);
        assert_eq!(
            m,
            [
                entry(REDUCTION_OP_TYPE, "SUM"),
                entry(REDUCTION_OP_TYPE, "MAX")
            ]
        );
    }
}
