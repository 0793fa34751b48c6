//! XLA's human string format for shapes and layouts: `f32[2,3]{0,1}`,
//! `(s32[], token[])`, `bf16[8,128]{1,0:T(8,128)}`.
//!
//! Printing follows XLA's `ShapeUtil::HumanString`/`HumanStringWithLayout`
//! and `Layout::ToString`; parsing follows XLA's HLO shape parser.
//!
//! One extension: the classic padded layout has no text form in XLA. A
//! padded layout prints its padded dimensions as `PAD(3,5)` and a padding
//! value other than `INVALID_PAD` as `PV(zero)` (`one`, `lowest`, `highest`,
//! `unknown`), after every XLA attribute: `{0,1:PAD(3,5)PV(zero)}`. Layouts
//! without padding print exactly as XLA prints them. The parser reads both
//! back (`PV` also takes the enum number).

mod events;
mod lex;
mod parse;
mod print;
mod validate;

pub use events::{ShapeEvent, ShapeTextWriter};
pub use parse::{MAX_DEPTH, ParseError};
