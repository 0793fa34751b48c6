//! A shape a part at a time: the tuples' elements one by one, as the
//! parser reads them or as a shape holds them, and its text written from
//! them. A tuple of millions of elements then costs its text, not a
//! [`Shape`] (and a boxed layout) for each element.

use std::fmt::Write as _;

use super::print::write_element_separator;
use crate::{PrimitiveType, Shape};

/// One step through a shape, outermost tuple first, elements in order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeEvent<'s> {
    /// A tuple with elements opens: they follow, then its
    /// [`ShapeEvent::TupleEnd`].
    TupleStart,
    /// A whole shape that is not a tuple with elements: an array, a
    /// `token[]`, an `opaque[]`, a buffer `b(...)`, or the empty tuple.
    Element(&'s Shape),
    /// The tuple opened last closes, after this many elements.
    TupleEnd(usize),
}

impl Shape {
    /// Hands `receiver` this shape's events, those [`Shape::parse_events`]
    /// gives for its text.
    ///
    /// ```
    /// use schema::{Shape, ShapeEvent};
    ///
    /// let shape: Shape = "((), f32[2])".parse().unwrap();
    /// let mut events = Vec::new();
    /// shape.events(|event| events.push(format!("{event:?}").len()));
    /// assert_eq!(events.len(), 4);
    /// ```
    pub fn events(&self, mut receiver: impl FnMut(ShapeEvent<'_>)) {
        // An explicit stack: tuples nest as deep as the parser allows.
        let mut pending: Vec<(&Shape, usize)> = vec![(self, 0)];
        while let Some((shape, next)) = pending.pop() {
            let is_tuple =
                shape.element_type == PrimitiveType::Tuple as i32 && !shape.tuple_shapes.is_empty();
            if !is_tuple {
                receiver(ShapeEvent::Element(shape));
                continue;
            }
            if next == 0 {
                receiver(ShapeEvent::TupleStart);
            }
            match shape.tuple_shapes.get(next) {
                Some(element) => {
                    pending.push((shape, next + 1));
                    pending.push((element, 0));
                }
                None => receiver(ShapeEvent::TupleEnd(next)),
            }
        }
    }
}

/// Writes a shape's text from its [`ShapeEvent`]s, as the shape's
/// [`Display`](std::fmt::Display) writes it.
///
/// ```
/// use schema::{Shape, ShapeTextWriter};
///
/// let mut writer = ShapeTextWriter::default();
/// Shape::parse_events("(f32[2], (s8[]), token[])", |event| writer.push(event)).unwrap();
/// assert_eq!(writer.finish(), "(f32[2]{0}, (s8[]), token[])");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ShapeTextWriter {
    text: String,
    /// How many elements each open tuple has so far.
    open: Vec<usize>,
}

impl ShapeTextWriter {
    /// Writes `event`.
    pub fn push(&mut self, event: ShapeEvent<'_>) {
        // Writing into a String cannot fail.
        match event {
            ShapeEvent::TupleStart => {
                self.separate();
                self.open.push(0);
                self.text.push('(');
            }
            ShapeEvent::Element(shape) => {
                self.separate();
                let _ = write!(self.text, "{shape}");
            }
            ShapeEvent::TupleEnd(_) => {
                self.open.pop();
                self.text.push(')');
            }
        }
    }

    /// Writes a whole shape given as XLA's text of it (`f32[2]{0}`), as
    /// [`ShapeEvent::Element`] of that shape would.
    ///
    /// ```
    /// use schema::{ShapeEvent, ShapeTextWriter};
    ///
    /// let mut writer = ShapeTextWriter::default();
    /// writer.push(ShapeEvent::TupleStart);
    /// for _ in 0..6 {
    ///     writer.push_text("s8[]");
    /// }
    /// writer.push(ShapeEvent::TupleEnd(6));
    /// assert_eq!(writer.finish(), "(s8[], s8[], s8[], s8[], s8[], /*index=5*/s8[])");
    /// ```
    pub fn push_text(&mut self, shape: &str) {
        self.separate();
        self.text.push_str(shape);
    }

    /// The text written.
    #[must_use]
    pub fn finish(self) -> String {
        self.text
    }

    /// Writes what comes before an element of the innermost open tuple.
    fn separate(&mut self) {
        if let Some(count) = self.open.last_mut() {
            let _ = write_element_separator(&mut self.text, *count);
            *count += 1;
        }
    }
}
