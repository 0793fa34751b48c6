//! A module's `entry_computation_layout` (`host_program_shape` in a
//! serialized module), and the check XLA's HLO verifier makes of it: as
//! many parameters as the entry computation has, and each parameter and
//! the result the same shape as the entry computation's, up to the layout
//! details the verifier ignores (tiles, tail padding, memory space). The
//! messages are the verifier's. Shapes are compared a tuple element at a
//! time, by a key written from their events, so that a tuple of millions
//! of elements costs its text.

use std::fmt::{self, Display, Formatter, Write as _};

use schema::{ParseError, PrimitiveType, Shape, ShapeEvent, ShapeTextWriter};

/// A module's `entry_computation_layout`: the shapes, layouts included,
/// that the entry computation's parameters and result take, as XLA prints
/// them (parse one for its [`Shape`]).
///
/// ```
/// let text = "HloModule m, entry_computation_layout={(f32[2]{0}, s8[])->f32[2]{0}}
/// ENTRY e {
///   p = f32[2] parameter(0)
///   q = s8[] parameter(1)
///   ROOT n = f32[2] negate(p)
/// }
/// ";
/// let module = hlo_util::read_text(text.as_bytes(), |_| {}).unwrap();
/// let layout = module.entry_computation_layout.unwrap();
/// assert_eq!(layout.parameters, ["f32[2]{0}", "s8[]"]);
/// assert_eq!(layout.to_string(), "(f32[2]{0}, s8[])->f32[2]{0}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryLayout {
    /// Each parameter's shape, by parameter number.
    pub parameters: Vec<String>,
    /// The result's shape (a serialized module may leave it out).
    pub result: Option<String>,
}

impl Display for EntryLayout {
    /// XLA's `(parameters)->result`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut parameters = ShapeTextWriter::default();
        parameters.push(ShapeEvent::TupleStart);
        for parameter in &self.parameters {
            parameters.push_text(parameter);
        }
        parameters.push(ShapeEvent::TupleEnd(self.parameters.len()));
        write!(
            f,
            "{}->{}",
            parameters.finish(),
            self.result.as_deref().unwrap_or("")
        )
    }
}

/// XLA's text of each element of the tuple `text` (`(f32[2]{0}, s8[])`),
/// read a tuple element at a time: a module's parameters. The empty tuple,
/// or a shape that is no tuple, has none.
pub(crate) fn element_texts(text: &str) -> Result<Vec<String>, ParseError> {
    let mut elements = Vec::new();
    let mut depth = 0_usize;
    let mut nested = ShapeTextWriter::default();
    Shape::parse_events(text, |event| {
        match event {
            ShapeEvent::TupleStart => depth += 1,
            ShapeEvent::TupleEnd(_) => depth = depth.saturating_sub(1),
            ShapeEvent::Element(_) => {}
        }
        match (event, depth) {
            // The outer tuple's own start and end, or a shape that is no
            // tuple with elements.
            (ShapeEvent::TupleStart, 1) | (ShapeEvent::TupleEnd(_) | ShapeEvent::Element(_), 0) => {
            }
            (ShapeEvent::Element(shape), 1) => elements.push(shape.to_string()),
            (ShapeEvent::TupleEnd(_), 1) => {
                nested.push(event);
                elements.push(std::mem::take(&mut nested).finish());
            }
            _ => nested.push(event),
        }
    })?;
    Ok(elements)
}

/// A shape as the verifier compares it: its text for messages, and its
/// key (element types, dimensions, tuple structure, the minor-to-major
/// order of arrays with a layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compared {
    pub text: String,
    pub key: String,
}

impl Compared {
    /// The comparison of the shape `text`.
    pub(crate) fn of_text(text: &str) -> Result<Self, ParseError> {
        let mut key = String::new();
        Shape::parse_events(text, |event| write_key(&mut key, event))?;
        Ok(Self {
            text: text.to_owned(),
            key,
        })
    }
}

/// Checks the layout's parameters and result against the entry
/// computation's `parameters` (by number) and `result` (its root's shape).
///
/// # Errors
///
/// The verifier's message for the first disagreement.
pub(crate) fn check_entry_layout(
    layout: (&[Compared], Option<&Compared>),
    parameters: &[Compared],
    result: &Compared,
) -> Result<(), String> {
    let (expected_parameters, expected_result) = layout;
    if let Some(expected) = expected_result
        && !same(&result.key, &expected.key)
    {
        return Err(format!(
            "Shape of the root instruction of entry computation ({}) should be \
             compatible to one specified in module's entry computation layout ({})",
            result.text, expected.text
        ));
    }
    if expected_parameters.len() != parameters.len() {
        return Err(format!(
            "Number of parameters in entry computation layout ({}) must be same as number of \
             parameters of entry computation ({})",
            expected_parameters.len(),
            parameters.len()
        ));
    }
    for (i, (parameter, expected)) in parameters.iter().zip(expected_parameters).enumerate() {
        if !same(&parameter.key, &expected.key) {
            return Err(format!(
                "Shape of the entry computation parameter {i} is {} should be \
                 compatible to the one specified in module's entry computation layout {}",
                parameter.text, expected.text
            ));
        }
    }
    Ok(())
}

/// Writes `event` into a key: `(` and `)` around tuples, each other shape
/// `type[dims]` and `{minor_to_major}` when it has a layout, then `;` (a
/// buffer `b(` its array `)`).
pub(crate) fn write_key(key: &mut String, event: ShapeEvent<'_>) {
    let shape = match event {
        ShapeEvent::TupleStart => return key.push('('),
        ShapeEvent::TupleEnd(_) => return key.push(')'),
        ShapeEvent::Element(shape) => shape,
    };
    // An explicit stack is not needed: a buffer holds one array.
    let (array, buffer) = match (
        PrimitiveType::try_from(shape.element_type),
        shape.tuple_shapes.first(),
    ) {
        (Ok(PrimitiveType::Buffer), Some(inner)) => (inner, true),
        _ => (shape, false),
    };
    if buffer {
        key.push_str("b(");
    }
    let name = PrimitiveType::try_from(array.element_type).map_or("?", |t| t.lowercase_name());
    // Writing into a String cannot fail.
    let _ = write!(key, "{name}{:?}", array.dimensions);
    if let Some(layout) = &array.layout {
        let _ = write!(key, "{{{:?}}}", layout.minor_to_major);
    }
    if buffer {
        key.push(')');
    }
    key.push(';');
}

/// Whether two keys are of the same shape: the same text, or the same but
/// for the minor-to-major order of arrays only one of them has a layout
/// for.
fn same(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (mut a, mut b) = (a.split(';'), b.split(';'));
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let strip = |s: &str| {
                    s.split_once('{')
                        .map_or((s.to_owned(), None), |(head, rest)| {
                            let tail = rest.rsplit_once('}').map_or("", |(_, t)| t);
                            (format!("{head}{tail}"), Some(rest.to_owned()))
                        })
                };
                let ((x_base, x_layout), (y_base, y_layout)) = (strip(x), strip(y));
                if x_base != y_base || matches!((x_layout, y_layout), (Some(p), Some(q)) if p != q)
                {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comparison of `shape`.
    fn compared(shape: &Shape) -> Compared {
        let mut key = String::new();
        shape.events(|event| write_key(&mut key, event));
        Compared {
            text: shape.to_string(),
            key,
        }
    }

    /// Checks the layout `text` (`(parameters)->result`) against the
    /// shapes `parameters` and `result`.
    fn check(text: &str, parameters: &[&str], result: &str) -> Result<(), String> {
        let (tuple, expected_result) = text.split_once("->").unwrap();
        let expected: Vec<_> = element_texts(tuple)
            .unwrap()
            .iter()
            .map(|p| Compared::of_text(p).unwrap())
            .collect();
        let expected_result = compared(&expected_result.parse().unwrap());
        let parameters: Vec<_> = parameters
            .iter()
            .map(|p| compared(&p.parse().unwrap()))
            .collect();
        let result = compared(&result.parse().unwrap());
        check_entry_layout((&expected, Some(&expected_result)), &parameters, &result)
    }

    #[test]
    fn disagreements_are_worded_as_the_verifier_words_them() {
        assert_eq!(
            check("(f32[2]{0})->f32[2]{0}", &["f32[2]{0}"], "f32[2]{0}"),
            Ok(())
        );
        assert_eq!(
            check("(f32[2]{0})->f32[]", &["f32[2]{0}"], "f32[2]{0}"),
            Err(
                "Shape of the root instruction of entry computation (f32[2]{0}) should be \
                 compatible to one specified in module's entry computation layout (f32[])"
                    .to_owned()
            )
        );
        assert_eq!(
            check("(f32[2]{0}, f32[])->f32[2]{0}", &["f32[2]{0}"], "f32[2]{0}"),
            Err(
                "Number of parameters in entry computation layout (2) must be same as number \
                 of parameters of entry computation (1)"
                    .to_owned()
            )
        );
        assert_eq!(
            check(
                "(f32[2,3]{1,0})->f32[2]{0}",
                &["f32[2,3]{0,1}"],
                "f32[2]{0}"
            ),
            Err(
                "Shape of the entry computation parameter 0 is f32[2,3]{0,1} should be \
                 compatible to the one specified in module's entry computation layout \
                 f32[2,3]{1,0}"
                    .to_owned()
            )
        );
        // Tiles and memory spaces are not compared; element types,
        // dimensions and the tuple structure are.
        let tiled = "(f32[8,128]{1,0:T(8,128)S(1)}, s8[])";
        assert_eq!(
            check("((f32[8,128]{1,0}, s8[]))->s8[]", &[tiled], "s8[]"),
            Ok(())
        );
        assert!(
            check(
                "((f32[8,128]{1,0}, s8[]))->s8[]",
                &["(f32[8,128], u8[])"],
                "s8[]"
            )
            .is_err()
        );
        assert!(
            check(
                "((f32[8,128]{1,0}, s8[]))->s8[]",
                &["((f32[8,128], s8[]))"],
                "s8[]"
            )
            .is_err()
        );
        assert!(
            check(
                "((f32[8,128]{1,0}, s8[]))->s8[]",
                &["(f32[8,127], s8[])"],
                "s8[]"
            )
            .is_err()
        );
        assert!(check("(b(f32[2]{0}))->s8[]", &["b(f32[2]{0})"], "s8[]").is_ok());
        assert!(check("(b(f32[2]{0}))->s8[]", &["b(f32[3]{0})"], "s8[]").is_err());
    }

    #[test]
    fn an_array_without_a_layout_matches_any_order() {
        let mut bare: Shape = "f32[2,3]".parse().unwrap();
        bare.layout = None;
        let bare = compared(&bare);
        let transposed = Compared::of_text("f32[2,3]{0,1}").unwrap();
        assert!(same(&bare.key, &transposed.key));
        assert!(same(&transposed.key, &bare.key));
        let other = Compared::of_text("f32[3,2]{0,1}").unwrap();
        assert!(!same(&bare.key, &other.key));
    }

    #[test]
    fn the_layout_prints_as_xla_writes_it() {
        let parameters = element_texts("(f32[2], (s8[], (token[])), ())").unwrap();
        assert_eq!(parameters, ["f32[2]{0}", "(s8[], (token[]))", "()"]);
        let layout = EntryLayout {
            parameters,
            result: Some("s8[]".to_owned()),
        };
        assert_eq!(
            layout.to_string(),
            "(f32[2]{0}, (s8[], (token[])), ())->s8[]"
        );
        assert!(element_texts("()").unwrap().is_empty());
        assert!(element_texts("f32[2]").unwrap().is_empty());
    }
}
