//! XLA's `LiteralProto` (the values of HLO constants and transfers) as raw
//! buffers in any layout, and printed as XLA prints HLO constants.
//!
//! A LiteralProto holds its array the way XLA's `Literal` does (checked
//! against jaxlib 0.12.0.1, see `tests/golden/literals.jsonl`): elements in
//! the order of the shape's `minor_to_major`, never tiled or padded even
//! when the layout has tiles; sub-byte types one element per byte; 8- and
//! 16-bit types as little-endian bytes fields; complex numbers as pairs.
//! [`to_buffer`] lays the array out as any layout says (classic padding,
//! tiles, `E(n)` packing) with the relayout engine (`xla-relayout`), and
//! [`from_buffer`] reads such a buffer back into the LiteralProto XLA's
//! `Literal::ToProto` writes. [`to_text`] prints XLA's text of the value.
//!
//! ```
//! use literal_util::{from_buffer, to_buffer, to_text};
//!
//! // A bf16 matrix in XLA's TPU layout: one (8,128) tile of 2-byte
//! // elements, pairs of rows interleaved (1, 3, 2, 4, then padding).
//! let shape: schema::Shape = "bf16[2,2]{1,0}".parse()?;
//! let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
//!     .iter()
//!     .flat_map(|v| ((v.to_bits() >> 16) as u16).to_le_bytes())
//!     .collect();
//! let literal = from_buffer(&shape, &values)?;
//! assert_eq!(to_text(&literal)?, "{ { 1, 2 }, { 3, 4 } }");
//! let tiled: schema::Shape = "bf16[2,2]{1,0:T(8,128)(2,1)}".parse()?;
//! let buffer = to_buffer(&literal, tiled.layout.as_deref())?;
//! assert_eq!(buffer.len(), 2048);
//! assert_eq!(buffer[..8], [0x80, 0x3f, 0x40, 0x40, 0x00, 0x40, 0x80, 0x40]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod buffer;
mod error;
mod float;
mod print;
mod storage;
mod text;

pub use buffer::{element, from_buffer, to_buffer};
pub use error::{LiteralError, MAX_GROWTH};
pub use print::to_text;
pub use text::LiteralText;
