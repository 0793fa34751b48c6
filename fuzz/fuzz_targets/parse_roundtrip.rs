//! Arbitrary strings -> shape parser and layout parser -> print -> parse.
//!
//! Whatever parses must print to text that parses back to the same value
//! and prints the same; nothing may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use schema::{Layout, Shape};

fuzz_target!(|text: &str| {
    if let Ok(shape) = text.parse::<Shape>() {
        let printed = shape.to_string();
        let _ = shape.human_string();
        let _ = shape_util::validate_shape(&shape);
        let reparsed = match printed.parse::<Shape>() {
            Ok(reparsed) => reparsed,
            Err(error) => panic!("{text:?} parses, prints as {printed:?}, which does not parse: {error}"),
        };
        assert_eq!(reparsed, shape, "{text:?} -> {printed:?} -> a different shape");
        assert_eq!(reparsed.to_string(), printed);
    }
    if let Ok(layout) = text.parse::<Layout>() {
        let printed = layout.to_string();
        let reparsed = match printed.parse::<Layout>() {
            Ok(reparsed) => reparsed,
            Err(error) => panic!("{text:?} parses as a layout, prints as {printed:?}, which does not parse: {error}"),
        };
        assert_eq!(reparsed, layout, "{text:?} -> {printed:?} -> a different layout");
        assert_eq!(reparsed.to_string(), printed);
    }
});
