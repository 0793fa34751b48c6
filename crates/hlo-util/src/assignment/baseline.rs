//! The static part of XLA's peak (`AllocateStaticBuffers`): the largest
//! value of each entry parameter, constant and maybe-live-out allocation
//! that is not thread-local. The allocation's own size is not used.

use super::AssignmentError;
use super::bytes::add_bytes;
use super::model::Assignment;

/// The baseline's bytes and the values it counts (one per static
/// allocation: its largest, the first of equals).
///
/// # Errors
///
/// [`AssignmentError::Overflow`] when the sum is beyond `i64::MAX`.
pub(crate) fn static_baseline(
    assignment: &Assignment,
) -> Result<(u64, Vec<usize>), AssignmentError> {
    let mut total = 0_u64;
    let mut counted = Vec::new();
    for allocation in assignment.allocations.iter().filter(|a| a.is_static()) {
        let mut largest: Option<(usize, u64)> = None;
        for &v in &allocation.values {
            let bytes = assignment.values.get(v).map_or(0, |value| value.bytes);
            if largest.is_none_or(|(_, most)| bytes > most) {
                largest = Some((v, bytes));
            }
        }
        if let Some((v, bytes)) = largest {
            total = add_bytes(total, bytes)
                .ok_or_else(|| AssignmentError::Overflow("the static baseline".to_owned()))?;
            counted.push(v);
        }
    }
    Ok((total, counted))
}
