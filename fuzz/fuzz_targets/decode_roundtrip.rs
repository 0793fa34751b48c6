//! Arbitrary bytes -> `Shape` (prost) -> validate -> print -> parse.
//!
//! Any decodable shape must validate, print and re-encode without a panic;
//! a shape that validates must print to text that parses back to a shape
//! that prints the same and is `shape_util::equal` to it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use schema::Shape;

/// XLA keeps a layout's memory space in an `int8`, and so does the text
/// format (`S(128)` parses as `S(-128)`); the proto field is an `int64`
/// that validation does not bound, so only shapes whose memory spaces fit
/// in `i8` can round-trip through text (a known, reported difference).
fn memory_spaces_fit_in_i8(shape: &Shape) -> bool {
    let layout_fits = shape.layout.as_deref().is_none_or(|layout| {
        i8::try_from(layout.memory_space).is_ok()
            && layout
                .physical_shape
                .as_deref()
                .is_none_or(memory_spaces_fit_in_i8)
    });
    layout_fits && shape.tuple_shapes.iter().all(memory_spaces_fit_in_i8)
}

fuzz_target!(|data: &[u8]| {
    let Ok(shape) = Shape::decode(data) else {
        return;
    };
    let valid = shape_util::validate_shape(&shape).is_ok();
    let _ = shape_util::validate_shape_with_optional_layout(&shape);
    let text = shape.to_string();
    let _ = shape.human_string();
    let reparsed = text.parse::<Shape>();
    // The bytes of a decoded shape decode back to it.
    let bytes = shape.encode_to_vec();
    assert_eq!(Shape::decode(bytes.as_slice()).ok().as_ref(), Some(&shape));
    if !valid || !memory_spaces_fit_in_i8(&shape) {
        return;
    }
    let parsed = match reparsed {
        Ok(parsed) => parsed,
        Err(error) => {
            panic!("valid shape {shape:?} prints as {text:?}, which does not parse: {error}")
        }
    };
    assert_eq!(
        parsed.to_string(),
        text,
        "print(parse(print(shape))) != print(shape)"
    );
    assert!(
        shape_util::equal(&parsed, &shape),
        "{text:?} parses to {parsed:?}, not equal to the decoded {shape:?}"
    );
});
