//! Reads XLA's `*-buffer-assignment.txt` dump (`BufferAssignment::ToString`):
//! `allocation N: size S, page 0, parameter P, shape |…| at ShapeIndex {…},
//! maybe-live-out:` headers, each followed by its ` value: <ID name{index}
//! @COLOR> (size=S,offset=O): SHAPE` lines.

use super::AssignmentError;
use super::model::{Allocation, Assignment, Value};

const FILE: &str = "buffer-assignment";

/// The allocations and values of a `*-buffer-assignment.txt` dump; a value's
/// shape index is empty when XLA printed none (an array instruction).
///
/// # Errors
///
/// [`AssignmentError::Text`] at the first line that does not read.
pub(crate) fn read_assignment_text(text: &str) -> Result<Assignment, AssignmentError> {
    let mut assignment = Assignment::default();
    for (n, line) in text.lines().enumerate() {
        let fail = |message: &str| AssignmentError::Text {
            file: FILE,
            line: n.saturating_add(1),
            message: message.to_owned(),
        };
        if let Some(rest) = line.strip_prefix("allocation ") {
            assignment
                .allocations
                .push(allocation(rest).ok_or_else(|| fail("not an allocation header"))?);
        } else if let Some(rest) = line.strip_prefix(" value: ") {
            let a = assignment
                .allocations
                .len()
                .checked_sub(1)
                .ok_or_else(|| fail("a value before any allocation"))?;
            let mut value = value(rest).ok_or_else(|| fail("not a value line"))?;
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
            return Err(fail("not a line of a buffer-assignment dump"));
        }
    }
    Ok(assignment)
}

/// `N: size S, …:` after `allocation `.
fn allocation(header: &str) -> Option<Allocation> {
    let (_, flags) = header.split_once(": ")?;
    let flags = flags.strip_suffix(':')?;
    // Shapes (between `|`) may hold `, `: drop them before splitting.
    let mut plain = String::with_capacity(flags.len());
    for (k, part) in flags.split('|').enumerate() {
        if k % 2 == 0 {
            plain.push_str(part);
        }
    }
    let mut allocation = Allocation::default();
    for flag in plain.split(", ") {
        let (word, argument) = flag.split_once(' ').unwrap_or((flag, ""));
        match word {
            "size" => allocation.size = argument.parse().ok()?,
            "color" => allocation.color = argument.parse().ok()?,
            "parameter" => allocation.parameter = true,
            "constant" => allocation.constant = true,
            "thread-local" => allocation.thread_local = true,
            "maybe-live-out" => allocation.live_out = true,
            _ => {}
        }
    }
    allocation.aliased_parameter = allocation.parameter && allocation.live_out;
    Some(allocation)
}

/// `<ID name{index} @COLOR> (size=S,offset=O): SHAPE` after ` value: `.
fn value(line: &str) -> Option<Value> {
    let inner = line.strip_prefix('<')?;
    let (label, rest) = inner.split_once("> (size=")?;
    let (_id, label) = label.split_once(' ')?;
    let (name, _color) = label.rsplit_once(" @")?;
    // Values a while or conditional merges are marked `(phi)`.
    let name = name.strip_suffix(" (phi)").unwrap_or(name);
    let (size, rest) = rest.split_once(",offset=")?;
    let (offset, shape) = rest.split_once("): ")?;
    let (instruction, shape_index) = match name.strip_suffix('}') {
        Some(open) => {
            let (instruction, index) = open.rsplit_once('{')?;
            let index = if index.is_empty() {
                Vec::new()
            } else {
                index
                    .split(',')
                    .map(|i| i.trim().parse().ok())
                    .collect::<Option<Vec<i64>>>()?
            };
            (instruction, index)
        }
        None => (name, Vec::new()),
    };
    Some(Value {
        origin: crate::origins::metadata::Origin::default(),
        instruction: instruction.to_owned(),
        shape_index,
        shape: shape.to_owned(),
        bytes: size.parse().ok()?,
        offset: offset.parse().ok()?,
        allocation: None,
    })
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
}
