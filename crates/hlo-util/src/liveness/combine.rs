//! XLA's `CombineTempAllocations`: the temporary allocations of each memory
//! space (the heap's and the tuples' index tables) become one, laid end to
//! end at aligned offsets in the order `std::partition` leaves them when it
//! moves them behind the other allocations.

use crate::assignment::model::Assignment;

/// Combines the temporary allocations of `assignment`, whose allocations
/// are numbered as XLA creates them in `order` (the first pass's, the
/// heaps', then the thread-local ones), each memory space's into its first
/// (by the partition): its size the others' rounded up to `alignment`,
/// then the last's; the others keep no bytes and no values. `None` when a
/// size overflows.
pub(crate) fn combine_temps(
    assignment: &mut Assignment,
    order: &[usize],
    alignment: u64,
) -> Option<()> {
    let temp = |a: usize| assignment.allocations.get(a).is_some_and(|x| x.is_temp());
    let mut order = order.to_vec();
    let first_temp = partition(&mut order, |&a| !temp(a));
    let alignment = alignment.max(1);
    // Per memory space: the combined allocation, in order of first sight.
    let mut combined: Vec<(i64, usize)> = Vec::new();
    for &a in order.get(first_temp..).unwrap_or(&[]) {
        let color = assignment.allocations.get(a)?.color;
        let Some(&(_, into)) = combined.iter().find(|(c, _)| *c == color) else {
            combined.push((color, a));
            continue;
        };
        let size = assignment.allocations.get(a)?.size;
        let values = std::mem::take(&mut assignment.allocations.get_mut(a)?.values);
        if let Some(allocation) = assignment.allocations.get_mut(a) {
            allocation.size = 0;
        }
        let target = assignment.allocations.get_mut(into)?;
        let base = target.size.div_ceil(alignment).checked_mul(alignment)?;
        target.size = base.checked_add(size)?;
        for &v in &values {
            if let Some(value) = assignment.values.get_mut(v) {
                value.allocation = Some(into);
            }
        }
        target.values.extend(values);
    }
    Some(())
}

/// `std::partition` as the C++ standard libraries implement it for
/// bidirectional iterators (from both ends, swapping): the elements for
/// which `keep` holds first, the others after; returns where they start.
fn partition<T>(list: &mut [T], keep: impl Fn(&T) -> bool) -> usize {
    let (mut first, mut last) = (0, list.len());
    loop {
        while first != last && keep(&list[first]) {
            first += 1;
        }
        if first == last {
            return first;
        }
        last -= 1;
        while first != last && !keep(&list[last]) {
            last -= 1;
        }
        if first == last {
            return first;
        }
        list.swap(first, last);
        first += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assignment::model::{Allocation, Value};

    #[test]
    fn partition_swaps_from_both_ends() {
        // Temporaries (odd) at 1 and 3 swap with the kept 6 and 4.
        let mut list = [0, 1, 2, 3, 4, 5, 6];
        assert_eq!(partition(&mut list, |x| x % 2 == 0), 4);
        assert_eq!(list, [0, 6, 2, 4, 3, 5, 1]);
        let mut none: [i32; 0] = [];
        assert_eq!(partition(&mut none, |_| true), 0);
    }

    #[test]
    fn temporaries_of_a_memory_space_are_laid_end_to_end() {
        let temp = |size, color| Allocation {
            size,
            color,
            ..Allocation::default()
        };
        let mut assignment = Assignment {
            allocations: vec![
                temp(16, 0),
                Allocation {
                    parameter: true,
                    ..temp(64, 0)
                },
                temp(8, 5),
                temp(68, 0),
            ],
            values: vec![Value {
                allocation: Some(3),
                ..Value::default()
            }],
        };
        assignment.allocations[3].values.push(0);
        combine_temps(&mut assignment, &[0, 1, 2, 3], 64).unwrap();
        // The parameter swaps with the heap; 16 bytes at 0, 68 at 64.
        let sizes: Vec<u64> = assignment.allocations.iter().map(|a| a.size).collect();
        assert_eq!(sizes, [64 + 68, 64, 8, 0]);
        assert_eq!(assignment.values[0].allocation, Some(0));
        assert_eq!(assignment.allocations[0].values, [0]);
    }
}
