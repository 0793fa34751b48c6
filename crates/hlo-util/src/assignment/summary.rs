//! What the report takes from an assignment: the buffers live at the peak
//! and XLA's allocation totals.

use super::AssignmentError;
use super::bytes::add_bytes;
use super::model::{Assignment, HOST_COLOR};
use super::report::{AllocationTotals, LiveBuffer};

/// The buffers for values `live` of `assignment`, largest first.
pub(crate) fn live_buffers(assignment: &Assignment, live: &[usize]) -> Vec<LiveBuffer> {
    let mut live = live.to_vec();
    sort_largest_first(assignment, &mut live);
    live.iter()
        .filter_map(|&v| live_buffer(assignment, v))
        .collect()
}

/// Sorts values of `assignment` as [`live_buffers`] lists them: largest
/// first, ties in name order, then in shape-index order (a stable sort).
pub(crate) fn sort_largest_first(assignment: &Assignment, values: &mut [usize]) {
    let key = |v: usize| {
        assignment
            .values
            .get(v)
            .map(|x| (x.bytes, x.instruction.as_str(), x.shape_index.as_slice()))
    };
    values.sort_by(|&a, &b| match (key(a), key(b)) {
        (Some(x), Some(y)) => {
            y.0.cmp(&x.0)
                .then_with(|| x.1.cmp(y.1))
                .then_with(|| x.2.cmp(y.2))
        }
        (x, y) => y.is_some().cmp(&x.is_some()),
    });
}

/// The buffer of value `v` of `assignment`.
pub(crate) fn live_buffer(assignment: &Assignment, v: usize) -> Option<LiveBuffer> {
    let value = assignment.values.get(v)?;
    Some(LiveBuffer {
        name: value.instruction.clone(),
        shape_index: value.shape_index.clone(),
        shape: value.shape.clone(),
        bytes: value.bytes,
        kind: assignment.kind_of(v),
        op_name: value.origin.op_name.clone(),
        stack: value.origin.stack.clone(),
    })
}

/// XLA's allocation totals (`PopulateBufferStatsFromAllocations`), device
/// and host.
///
/// # Errors
///
/// [`AssignmentError::Overflow`] when a sum is beyond `i64::MAX`.
pub(crate) fn allocation_totals(
    assignment: &Assignment,
) -> Result<(AllocationTotals, AllocationTotals), AssignmentError> {
    let mut device = AllocationTotals::default();
    let mut host = AllocationTotals::default();
    for allocation in &assignment.allocations {
        let totals = if allocation.color == HOST_COLOR {
            &mut host
        } else {
            &mut device
        };
        let add = |total: &mut u64, yes: bool| {
            if yes {
                *total = add_bytes(*total, allocation.size)
                    .ok_or_else(|| AssignmentError::Overflow("the allocation totals".to_owned()))?;
            }
            Ok::<(), AssignmentError>(())
        };
        add(&mut totals.argument_bytes, allocation.parameter)?;
        add(&mut totals.output_bytes, allocation.live_out)?;
        add(&mut totals.alias_bytes, allocation.aliased_parameter)?;
        add(&mut totals.temp_bytes, allocation.is_temp())?;
    }
    Ok((device, host))
}
