//! Reads XLA's `*-buffer-assignment.txt` dump (`BufferAssignment::ToString`):
//! `allocation N: size S, page 0, parameter P, shape |…| at ShapeIndex {…},
//! maybe-live-out:` headers, each followed by its ` value: <ID name{index}
//! @COLOR> (size=S,offset=O): SHAPE` lines.

use std::collections::HashMap;

use super::AssignmentError;
use super::bytes::{inside, parse_bytes};
use super::model::{Allocation, Assignment, Value};

const FILE: &str = "buffer-assignment";

/// The allocations and values of a `*-buffer-assignment.txt` dump; a value's
/// shape index is empty when XLA printed none (an array instruction).
///
/// What XLA's dump always holds is checked as it is read: allocations
/// numbered in order, sizes and offsets from 0 to `i64::MAX`, each value id
/// once, each value inside its allocation.
///
/// # Errors
///
/// [`AssignmentError::Text`] at the first line that does not read or
/// contradicts the lines before it.
pub(crate) fn read_assignment_text(text: &str) -> Result<Assignment, AssignmentError> {
    let mut assignment = Assignment::default();
    // Each value id with the line it is on.
    let mut ids: HashMap<i64, usize> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let number = n.saturating_add(1);
        let fail = |message: String| AssignmentError::Text {
            file: FILE,
            line: number,
            message,
        };
        if let Some(rest) = line.strip_prefix("allocation ") {
            let expected = assignment.allocations.len();
            assignment
                .allocations
                .push(allocation(rest, expected).map_err(fail)?);
        } else if let Some(rest) = line.strip_prefix(" value: ") {
            let a = assignment
                .allocations
                .len()
                .checked_sub(1)
                .ok_or_else(|| fail("a value before any allocation".to_owned()))?;
            let (id, mut value) = value(rest).map_err(fail)?;
            if let Some(first) = ids.insert(id, number) {
                return Err(fail(format!(
                    "value id {id} is defined twice (first on line {first})"
                )));
            }
            let size = assignment.allocations.get(a).map_or(0, |x| x.size);
            if !inside(value.offset, value.bytes, size) {
                return Err(fail(format!(
                    "value {id} ({}): offset {} and size {} pass the end of allocation {a} ({size} bytes)",
                    value.instruction, value.offset, value.bytes
                )));
            }
            value.allocation = Some(a);
            let v = assignment.values.len();
            assignment.values.push(value);
            if let Some(allocation) = assignment.allocations.get_mut(a) {
                allocation.values.push(v);
            }
        } else if !(line.is_empty()
            || line == "BufferAssignment:"
            || line.starts_with(char::is_whitespace)
            || line.starts_with("reused by"))
        {
            return Err(fail("not a line of a buffer-assignment dump".to_owned()));
        }
    }
    Ok(assignment)
}

/// `N: size S, …:` after `allocation `, the `expected`th allocation.
fn allocation(header: &str, expected: usize) -> Result<Allocation, String> {
    let not_header = || "not an allocation header".to_owned();
    let (number, flags) = header.split_once(": ").ok_or_else(not_header)?;
    let flags = flags.strip_suffix(':').ok_or_else(not_header)?;
    if number != expected.to_string() {
        return Err(format!(
            "allocation {number} where allocation {expected} comes (each once, in order)"
        ));
    }
    // Shapes (between `|`) may hold `, `: drop them before splitting.
    let mut plain = String::with_capacity(flags.len());
    for (k, part) in flags.split('|').enumerate() {
        if k % 2 == 0 {
            plain.push_str(part);
        }
    }
    let mut allocation = Allocation::default();
    let mut sized = false;
    for flag in plain.split(", ") {
        let (word, argument) = flag.split_once(' ').unwrap_or((flag, ""));
        match word {
            "size" => {
                allocation.size = parse_bytes(argument, &format!("allocation {number}: size"))?;
                sized = true;
            }
            "color" => {
                allocation.color = argument.parse().map_err(|_| {
                    format!("allocation {number}: color `{argument}` is not a number")
                })?;
            }
            "parameter" => allocation.parameter = true,
            "constant" => allocation.constant = true,
            "thread-local" => allocation.thread_local = true,
            "maybe-live-out" => allocation.live_out = true,
            _ => {}
        }
    }
    if !sized {
        return Err(format!("allocation {number} has no size"));
    }
    allocation.aliased_parameter = allocation.parameter && allocation.live_out;
    Ok(allocation)
}

/// `<ID name{index} @COLOR> (size=S,offset=O): SHAPE` after ` value: `:
/// its id and the value.
fn value(line: &str) -> Result<(i64, Value), String> {
    let not_value = || "not a value line".to_owned();
    let inner = line.strip_prefix('<').ok_or_else(not_value)?;
    let (label, rest) = inner.split_once("> (size=").ok_or_else(not_value)?;
    let (id, label) = label.split_once(' ').ok_or_else(not_value)?;
    let id: i64 = id
        .parse()
        .map_err(|_| format!("value id `{id}` is not a number"))?;
    let (name, _color) = label.rsplit_once(" @").ok_or_else(not_value)?;
    // Values a while or conditional merges are marked `(phi)`.
    let name = name.strip_suffix(" (phi)").unwrap_or(name);
    let (size, rest) = rest.split_once(",offset=").ok_or_else(not_value)?;
    let (offset, shape) = rest.split_once("): ").ok_or_else(not_value)?;
    let (instruction, shape_index) = match name.strip_suffix('}') {
        Some(open) => {
            let (instruction, index) = open.rsplit_once('{').ok_or_else(not_value)?;
            let index = if index.is_empty() {
                Vec::new()
            } else {
                index
                    .split(',')
                    .map(|i| i.trim().parse().ok())
                    .collect::<Option<Vec<i64>>>()
                    .ok_or_else(|| format!("value {id}: shape index `{{{index}}}` does not read"))?
            };
            (instruction, index)
        }
        None => (name, Vec::new()),
    };
    Ok((
        id,
        Value {
            origin: crate::origins::metadata::Origin::default(),
            instruction: instruction.to_owned(),
            shape_index,
            shape: shape.to_owned(),
            bytes: parse_bytes(size, &format!("value {id}: size"))?,
            offset: parse_bytes(offset, &format!("value {id}: offset"))?,
            allocation: None,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_values_read() {
        let text = "BufferAssignment:\n\
allocation 0: size 8, page 0, color 5, parameter 1, shape |(f32[1], f32[1])| at ShapeIndex {0, 1}, maybe-live-out:\n \
value: <3 t.1{0,1} @5> (size=4,offset=4): f32[1]{0}\n\
allocation 1: size 4, page 0, preallocated-temp:\n \
value: <4 a @0> (size=4,offset=0): f32[1]{0}\n \
value: <5 w{} (phi) @0> (size=4,offset=0): f32[1]{0}\n";
        let assignment = read_assignment_text(text).unwrap();
        let first = &assignment.allocations[0];
        assert_eq!((first.size, first.color), (8, 5));
        assert!(first.parameter && first.live_out && first.aliased_parameter);
        assert!(assignment.allocations[1].is_temp());
        let value = &assignment.values[0];
        assert_eq!(
            (value.instruction.as_str(), value.shape_index.as_slice()),
            ("t.1", &[0, 1][..])
        );
        assert_eq!((value.bytes, value.offset), (4, 4));
        assert_eq!(assignment.values[1].shape, "f32[1]{0}");
        assert_eq!(assignment.values[2].instruction, "w");
        let error = read_assignment_text(" value: <4 a @0> (size=4,offset=0): f32[1]\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "buffer-assignment, line 1: a value before any allocation"
        );
    }

    fn error_of(text: &str) -> String {
        read_assignment_text(text).unwrap_err().to_string()
    }

    #[test]
    fn dumps_that_contradict_themselves_are_refused() {
        let temp = "allocation 0: size 8192, page 0, preallocated-temp:\n";
        assert_eq!(
            error_of(&format!(
                "{temp} value: <17 t @0> (size=8192,offset=1099511627776): f32[2048]{{0}}\n"
            )),
            "buffer-assignment, line 2: value 17 (t): offset 1099511627776 and size 8192 \
pass the end of allocation 0 (8192 bytes)"
        );
        assert_eq!(
            error_of(&format!(
                "{temp} value: <17 t @0> (size=16384,offset=0): f32[4096]{{0}}\n"
            )),
            "buffer-assignment, line 2: value 17 (t): offset 0 and size 16384 \
pass the end of allocation 0 (8192 bytes)"
        );
        assert_eq!(
            error_of(&format!(
                "{temp} value: <17 t @0> (size=4,offset=0): f32[1]{{0}}\n \
value: <17 u @0> (size=4,offset=4): f32[1]{{0}}\n"
            )),
            "buffer-assignment, line 3: value id 17 is defined twice (first on line 2)"
        );
        assert_eq!(
            error_of(&format!("{temp}{temp}")),
            "buffer-assignment, line 2: allocation 0 where allocation 1 comes (each once, in order)"
        );
        assert_eq!(
            error_of("allocation 0: size -8192, page 0, preallocated-temp:\n"),
            "buffer-assignment, line 1: allocation 0: size -8192 is negative"
        );
        assert_eq!(
            error_of("allocation 0: size 18446744073709551616, page 0, preallocated-temp:\n"),
            "buffer-assignment, line 1: allocation 0: size 18446744073709551616 is beyond i64"
        );
        assert_eq!(
            error_of(&format!(
                "{temp} value: <17 t @0> (size=-4,offset=0): f32[1]{{0}}\n"
            )),
            "buffer-assignment, line 2: value 17: size -4 is negative"
        );
        assert_eq!(
            error_of("allocation 0: page 0, preallocated-temp:\n"),
            "buffer-assignment, line 1: allocation 0 has no size"
        );
    }
}
