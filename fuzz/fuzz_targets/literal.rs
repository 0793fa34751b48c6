//! Arbitrary bytes as a LiteralProto through literal-util: read as a
//! buffer in its own layout and in a layout the input picks, printed as
//! XLA's text, and a buffer built back into a LiteralProto that reads as
//! the same buffer. Nothing panics; a layout whose buffer is far larger
//! than the data is refused (memory stays within the library's
//! `MAX_GROWTH`).
//!
//! The input's first byte picks the layout; the rest is the message.

#![no_main]

use libfuzzer_sys::fuzz_target;
use literal_util::{LiteralText, MAX_GROWTH, from_buffer, to_buffer, to_text};
use prost::Message;
use schema::{Layout, LiteralProto, Shape};

/// Layouts to read a literal of rank `rank` in.
fn layout(pick: u8, rank: usize) -> Option<Layout> {
    let text = match (pick % 5, rank) {
        (0, _) => return None,
        (1, 1) => "{0:T(4)}",
        (2, 2) => "{0,1}",
        (3, 2) => "{1,0:T(2,2)}",
        (4, 2) => "{1,0:T(8,128)(2,1)}",
        _ => return None,
    };
    let dims = vec!["1"; rank].join(",");
    let shape: Shape = format!("u8[{dims}]{text}").parse().ok()?;
    shape.layout.map(|l| *l)
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(literal) = LiteralProto::decode(rest) else {
        return;
    };
    let _ = to_text(&literal);
    let _ = LiteralText::new(&literal);
    let rank = literal.shape.as_ref().map_or(0, |s| s.dimensions.len());
    let chosen = layout(pick, rank);
    for target in [None, chosen.as_ref()] {
        let Ok(buffer) = to_buffer(&literal, target) else {
            continue;
        };
        // The buffer is bounded by the data the message carries.
        let bound = (rest.len() as u64 * 8 + 16) * MAX_GROWTH + (1 << 20);
        assert!(
            buffer.len() as u64 <= bound,
            "{} bytes from {} bytes",
            buffer.len(),
            rest.len()
        );
        let Some(shape) = literal.shape.as_ref() else {
            continue;
        };
        let mut shape = shape.clone();
        if let Some(layout) = target {
            shape.layout = Some(Box::new(layout.clone()));
        }
        // A buffer builds back into a literal that gives the same buffer.
        let Ok(built) = from_buffer(&shape, &buffer) else {
            continue;
        };
        // In the layout of the buffer (a built literal's own layout drops
        // tiles, padding and packing, as XLA's literals do).
        let again = to_buffer(&built, shape.layout.as_deref())
            .unwrap_or_else(|e| panic!("{}: {e}", shape.human_string_with_layout()));
        assert_eq!(again, buffer, "{}", shape.human_string_with_layout());
    }
});
