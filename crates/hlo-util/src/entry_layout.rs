//! The check XLA's HLO verifier makes of a module's
//! `entry_computation_layout` (`host_program_shape` in a serialized
//! module): as many parameters as the entry computation has, and each
//! parameter and the result the same shape as the entry computation's, up
//! to the layout details the verifier ignores (tiles, tail padding, memory
//! space). The messages are the verifier's.

use schema::{ProgramShape, Shape};

/// Checks `layout` against the entry computation's `parameters` (by
/// number) and `result` (its root's shape).
///
/// # Errors
///
/// The verifier's message for the first disagreement.
pub(crate) fn check_entry_layout(
    layout: &ProgramShape,
    parameters: &[Shape],
    result: &Shape,
) -> Result<(), String> {
    if let Some(expected) = &layout.result
        && !same(result, expected)
    {
        return Err(format!(
            "Shape of the root instruction of entry computation ({result}) should be \
             compatible to one specified in module's entry computation layout ({expected})"
        ));
    }
    if layout.parameters.len() != parameters.len() {
        return Err(format!(
            "Number of parameters in entry computation layout ({}) must be same as number of \
             parameters of entry computation ({})",
            layout.parameters.len(),
            parameters.len()
        ));
    }
    for (i, (parameter, expected)) in parameters.iter().zip(&layout.parameters).enumerate() {
        if !same(parameter, expected) {
            return Err(format!(
                "Shape of the entry computation parameter {i} is {parameter} should be \
                 compatible to the one specified in module's entry computation layout {expected}"
            ));
        }
    }
    Ok(())
}

/// Whether `a` and `b` have one element type, dimensions and (for arrays
/// whose layouts are both written) dimension order, tuple elements alike.
fn same(a: &Shape, b: &Shape) -> bool {
    // An explicit stack: tuples nest as deep as the shape parser allows.
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        if a.element_type != b.element_type
            || a.dimensions != b.dimensions
            || a.tuple_shapes.len() != b.tuple_shapes.len()
        {
            return false;
        }
        if let (Some(x), Some(y)) = (&a.layout, &b.layout)
            && x.minor_to_major != y.minor_to_major
        {
            return false;
        }
        pending.extend(a.tuple_shapes.iter().zip(&b.tuple_shapes));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> ProgramShape {
        let (parameters, result) = text.split_once("->").unwrap();
        let parameters: Shape = parameters.parse().unwrap();
        ProgramShape {
            parameters: parameters.tuple_shapes,
            result: Some(result.parse().unwrap()),
            parameter_names: Vec::new(),
        }
    }

    fn shape(text: &str) -> Shape {
        text.parse().unwrap()
    }

    #[test]
    fn disagreements_are_worded_as_the_verifier_words_them() {
        let f32_2 = shape("f32[2]{0}");
        assert_eq!(
            check_entry_layout(
                &layout("(f32[2]{0})->f32[2]{0}"),
                std::slice::from_ref(&f32_2),
                &f32_2
            ),
            Ok(())
        );
        assert_eq!(
            check_entry_layout(
                &layout("(f32[2]{0})->f32[]"),
                std::slice::from_ref(&f32_2),
                &f32_2
            ),
            Err(
                "Shape of the root instruction of entry computation (f32[2]{0}) should be \
                 compatible to one specified in module's entry computation layout (f32[])"
                    .to_owned()
            )
        );
        assert_eq!(
            check_entry_layout(
                &layout("(f32[2]{0}, f32[])->f32[2]{0}"),
                std::slice::from_ref(&f32_2),
                &f32_2
            ),
            Err(
                "Number of parameters in entry computation layout (2) must be same as number \
                 of parameters of entry computation (1)"
                    .to_owned()
            )
        );
        let transposed = shape("f32[2,3]{0,1}");
        assert_eq!(
            check_entry_layout(&layout("(f32[2,3]{1,0})->f32[2]{0}"), &[transposed], &f32_2),
            Err(
                "Shape of the entry computation parameter 0 is f32[2,3]{0,1} should be \
                 compatible to the one specified in module's entry computation layout \
                 f32[2,3]{1,0}"
                    .to_owned()
            )
        );
        let tiled = shape("(f32[8,128]{1,0:T(8,128)S(1)}, s8[])");
        assert_eq!(
            check_entry_layout(
                &layout("((f32[8,128]{1,0}, s8[]))->s8[]"),
                &[tiled],
                &shape("s8[]")
            ),
            Ok(())
        );
    }
}
