//! What the report takes from an assignment: the buffers live at the peak
//! and XLA's allocation totals.

use super::AssignmentError;
use super::bytes::add_bytes;
use super::model::{Assignment, HOST_COLOR};
use super::report::{AllocationTotals, LiveBuffer};

/// The buffers for values `live` of `assignment`, largest first.
pub(crate) fn live_buffers(assignment: &Assignment, live: &[usize]) -> Vec<LiveBuffer> {
    let mut buffers: Vec<LiveBuffer> = live
        .iter()
        .filter_map(|&v| {
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
        })
        .collect();
    buffers.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.shape_index.cmp(&b.shape_index))
    });
    buffers
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
