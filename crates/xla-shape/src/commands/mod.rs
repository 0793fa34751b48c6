//! One module per subcommand; each turns an input into a plain line and a
//! JSON object, or an error message.

pub(crate) mod broadcast;
mod compare;
mod decode;
pub(crate) mod draw;
mod encode;
pub(crate) mod explain;
pub(crate) mod hlo;
mod index;
mod literal;
mod message;
pub(crate) mod order;
mod parse;
mod relayout;
pub(crate) mod reshard;
pub(crate) mod shard;
mod sharding;
mod validate;
pub(crate) mod view;

use std::num::IntErrorKind;

use serde_json::Value;

use crate::cli::Command;
use crate::inputs::{inputs, inputs_with_blank_lines};
use crate::output::Output;

/// Runs one subcommand, writing its results to `out`.
pub fn run(command: Command, out: &mut Output) {
    match command {
        Command::Parse { no_layout, shapes } => each(shapes, out, |s| parse::run(s, no_layout)),
        Command::Encode {
            message: Some(name),
            text,
            shapes,
        } => message::encode(&name, shapes, text, out),
        Command::Encode { text, shapes, .. } => each(shapes, out, |s| encode::run(s, text)),
        Command::Decode {
            list_messages: true,
            ..
        } => message::list(out),
        Command::Decode {
            message: Some(name),
            binary,
            messages,
            ..
        } => message::decode(&name, binary, messages, out),
        Command::Decode { binary: true, .. } => decode::run_binary(out),
        // Hex inputs: a blank line is the empty message, as an empty argument is.
        Command::Decode { messages, .. } => {
            each_of(inputs_with_blank_lines(messages), out, decode::run)
        }
        Command::Validate {
            hex,
            require_layout,
            inputs,
        } => each_of(hex_inputs(inputs, hex), out, |s| {
            validate::run(s, hex, require_layout)
        }),
        Command::Order { shapes } => each(shapes, out, order::run),
        Command::Explain { shapes } => each(shapes, out, explain::run),
        Command::Index(args) => single(out, index::run(&args)),
        Command::Broadcast(args) => single(out, broadcast::run(&args)),
        Command::Compare { a, b } => single(out, compare::run(&a, &b)),
        Command::View { base, ops } => single(out, view::run(&base, &ops)),
        Command::Draw(args) => single(out, draw::run(&args)),
        Command::Hlo(args) => match hlo::run(&args, out.is_json()) {
            Ok(text) if out.is_json() => out.success_serialized(&text),
            Ok(text) => out.success(&text, Value::Null),
            Err(message) => out.failure(Some(&args.file), &message),
        },
        Command::Sharding { hex, v2, inputs } => {
            each_of(hex_inputs(inputs, hex), out, |s| sharding::run(s, hex, v2))
        }
        Command::Shard(args) => single(out, shard::run(&args)),
        Command::Reshard(args) => single(out, reshard::run(&args)),
        Command::Relayout(args) => match relayout::run(&args) {
            // Without --output, standard output carries the bytes.
            Ok((plain, fields)) if args.output.is_some() => out.success(&plain, fields),
            Ok(_) => {}
            Err(message) => out.failure_on_stderr(&message),
        },
        Command::Literal(args) => match literal::run(&args) {
            // Standard output carries the buffer unless --output or --print.
            literal::Produced {
                outcome: Ok(_),
                raw: true,
            } if args.output.is_none() => {}
            literal::Produced {
                outcome: Ok((plain, fields)),
                ..
            } => out.success(&plain, fields),
            literal::Produced {
                outcome: Err(message),
                raw: true,
            } => out.failure_on_stderr(&message),
            literal::Produced {
                outcome: Err(message),
                ..
            } => out.failure(None, &message),
        },
    }
}

/// What a command makes of one input: the plain line(s) and the JSON fields.
type Outcome = Result<(String, Value), String>;

/// A typed report of a library crate as a command's outcome: its text form
/// (`Display`) and its JSON fields (`Serialize`).
fn reported<R: std::fmt::Display + serde::Serialize>(report: &R) -> Outcome {
    let fields = serde_json::to_value(report).map_err(|e| e.to_string())?;
    Ok((report.to_string(), fields))
}

/// Runs `f` on every input (arguments, or lines of standard input), one
/// output line each; a failure is reported and processing goes on. JSON
/// objects carry the input.
fn each(args: Vec<String>, out: &mut Output, f: impl FnMut(&str) -> Outcome) {
    each_of(inputs(args), out, f);
}

/// The inputs of a command that takes text, or hex with `hex`: for hex, a
/// blank line of standard input is the empty message (as an empty argument
/// is); for text, it is an error.
fn hex_inputs(args: Vec<String>, hex: bool) -> Box<dyn Iterator<Item = Result<String, String>>> {
    if hex {
        inputs_with_blank_lines(args)
    } else {
        inputs(args)
    }
}

/// [`each`] over inputs already gathered.
fn each_of(
    inputs: impl Iterator<Item = Result<String, String>>,
    out: &mut Output,
    mut f: impl FnMut(&str) -> Outcome,
) {
    for input in inputs {
        match input {
            Ok(input) => match f(&input) {
                Ok((plain, mut fields)) => {
                    fields["input"] = Value::String(input);
                    out.success(&plain, fields);
                }
                Err(message) => out.failure(Some(&input), &message),
            },
            Err(message) => out.failure(None, &message),
        }
    }
}

/// Reports the outcome of a command that takes its arguments directly.
fn single(out: &mut Output, outcome: Outcome) {
    match outcome {
        Ok((plain, fields)) => out.success(&plain, fields),
        Err(message) => out.failure(None, &message),
    }
}

/// Parses an XLA shape string, filling in XLA's default layout.
fn shape(text: &str) -> Result<schema::Shape, String> {
    text.trim()
        .parse()
        .map_err(|e: schema::ParseError| e.to_string())
}

/// An XLA shape string, or a bare dimension list `[d0,d1,...]` standing for
/// an `f32` array of those dimensions with XLA's default layout (packed row
/// major); with whether it was bare.
fn shape_or_dims(text: &str) -> Result<(schema::Shape, bool), String> {
    if text.trim_start().starts_with('[') {
        let dims = parse_list(text).map_err(|e| format!("in {text:?}: {e}"))?;
        let shape = shape_util::make_shape(schema::PrimitiveType::F32, &dims)
            .map_err(|e| format!("in {text:?}: {e}"))?;
        Ok((shape, true))
    } else {
        Ok((shape(text)?, false))
    }
}

/// Lowercase hex of `bytes`.
fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from hex (either case, surrounding whitespace ignored).
fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return Err(format!("hex has an odd number of digits ({})", text.len()));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            let pair = text.get(i..i + 2).unwrap_or_default();
            u8::from_str_radix(pair, 16)
                .map_err(|_| format!("invalid hex digits {pair:?} at offset {i}"))
        })
        .collect()
}

/// `[a,b,c]`, as XLA prints dimension lists.
fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(","))
}

/// Parses `i,j,k` (or `[i,j,k]`; empty for rank 0) as integers.
pub(crate) fn parse_list(text: &str) -> Result<Vec<i64>, String> {
    let inner = text.trim();
    let inner = inner
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(inner);
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    inner.split(',').map(parse_integer).collect()
}

/// Parses a decimal `i64`, saying whether a failure is a number out of range.
pub(crate) fn parse_integer(text: &str) -> Result<i64, String> {
    let text = text.trim();
    text.parse::<i64>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => format!(
            "{text} is out of range: integers run from {} to {}",
            i64::MIN,
            i64::MAX
        ),
        _ => format!("{text:?} is not an integer"),
    })
}

#[cfg(test)]
#[path = "deep_rank_tests.rs"]
mod deep_rank_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_bad_digits() {
        assert_eq!(to_hex(&[0x08, 0xab, 0x00]), "08ab00");
        assert_eq!(from_hex(" 08AB00\n").unwrap(), [0x08, 0xab, 0x00]);
        assert!(from_hex("0").unwrap_err().contains("odd"));
        assert!(from_hex("zz").unwrap_err().contains("\"zz\""));
        assert!(from_hex("é0").is_err());
    }

    #[test]
    fn lists_parse_with_or_without_brackets() {
        assert_eq!(parse_list("1, 2,-3").unwrap(), [1, 2, -3]);
        assert_eq!(parse_list("[4,5]").unwrap(), [4, 5]);
        assert_eq!(parse_list("[]").unwrap(), Vec::<i64>::new());
        assert!(parse_list("1,x").unwrap_err().contains("\"x\""));
        assert_eq!(
            parse_list("1,-99999999999999999999").unwrap_err(),
            "-99999999999999999999 is out of range: integers run from \
             -9223372036854775808 to 9223372036854775807"
        );
        assert_eq!(list(&[2, 3]), "[2,3]");
    }
}
