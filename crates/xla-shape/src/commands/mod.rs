//! One module per subcommand; each turns an input into a plain line and a
//! JSON object, or an error message.

mod broadcast;
mod compare;
mod decode;
mod draw;
mod encode;
mod explain;
mod files;
mod hlo;
mod hlo_dump;
mod hlo_json;
mod hlo_origins;
mod hlo_peak;
mod index;
mod literal;
mod lowered;
mod message;
mod order;
mod parse;
mod peak_outputs;
mod relayout;
mod reshard;
mod shard;
mod sharding;
mod validate;
mod view;

use serde_json::Value;

use crate::cli::Command;
use crate::inputs::{inputs, inputs_with_blank_lines};
use crate::output::Output;

/// Runs one subcommand, writing its results to `out`.
pub fn run(command: Command, out: &mut Output) {
    match command {
        Command::Parse { no_layout, shapes } => each(shapes, out, |s| parse::run(s, no_layout)),
        Command::Encode {
            message,
            text,
            shapes,
        } => encode(message, text, shapes, out),
        Command::Decode {
            binary,
            message,
            list_messages,
            messages,
        } => decode(binary, message, list_messages, messages, out),
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
        Command::Hlo(args) => {
            let report = hlo::run(&args, out.is_json());
            report_of_file(out, report, Some(&args.file));
        }
        Command::Sharding {
            hex,
            v2,
            mesh,
            sdy,
            inputs,
        } => each_of(hex_inputs(inputs, hex), out, |s| {
            sharding::run(s, hex, v2, mesh.as_deref(), sdy)
        }),
        Command::Lowered { file } => {
            let report = lowered::run(&file, out.is_json());
            report_of_file(out, report, None);
        }
        Command::Shard(args) => {
            let report = shard::run(&args, out.is_json());
            report_of_file(out, report, None);
        }
        Command::Reshard(args) => {
            let report = reshard::run(&args, out.is_json());
            report_of_file(out, report, None);
        }
        Command::Relayout(args) => match relayout::run(&args) {
            // Without --output, standard output carries the bytes.
            Ok((plain, fields)) if args.output.is_some() => out.success(&plain, fields),
            Ok(_) => {}
            Err(message) => out.failure_on_stderr(&message),
        },
        Command::Literal(args) => literal_outcome(literal::run(&args), args.output.is_none(), out),
    }
}

/// `encode`: shapes, or with `message` messages of that type (from text
/// format with `text`).
fn encode(message: Option<String>, text: bool, shapes: Vec<String>, out: &mut Output) {
    match message {
        Some(name) => message::encode(&name, shapes, text, out),
        None => each(shapes, out, |s| encode::run(s, text)),
    }
}

/// `decode`: the list of message types, messages of type `message`, or
/// shapes from hex inputs (from standard input's bytes with `binary`).
fn decode(
    binary: bool,
    message: Option<String>,
    list_messages: bool,
    messages: Vec<String>,
    out: &mut Output,
) {
    match message {
        _ if list_messages => message::list(out),
        Some(name) => message::decode(&name, binary, messages, out),
        None if binary => decode::run_binary(out),
        // Hex inputs: a blank line is the empty message, as an empty argument is.
        None => each_of(inputs_with_blank_lines(messages), out, decode::run),
    }
}

/// A report of a whole file (or input): its text, written as it is in
/// JSON (it is the serialized object), or the failure, naming `file`
/// where given.
fn report_of_file(out: &mut Output, report: Result<String, String>, file: Option<&str>) {
    match report {
        Ok(text) if out.is_json() => out.success_serialized(&text),
        Ok(text) => out.success(&text, Value::Null),
        Err(message) => out.failure(file, &message),
    }
}

/// Writes what `literal` produced: nothing when the buffer itself went to
/// standard output (`raw`, and `to_stdout`: no `--output`), the report
/// otherwise; a raw run's failure goes to standard error.
fn literal_outcome(produced: literal::Produced, to_stdout: bool, out: &mut Output) {
    match produced {
        literal::Produced {
            outcome: Ok(_),
            raw: true,
        } if to_stdout => {}
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
    xla_shape_front::operand::shape(text).map_err(|e| e.to_string())
}

/// [`xla_shape_front::operand::shape_or_dims`] with the message as the error.
fn shape_or_dims(text: &str) -> Result<(schema::Shape, bool), String> {
    xla_shape_front::operand::shape_or_dims(text).map_err(|e| e.to_string())
}

/// Lowercase hex of `bytes`.
fn to_hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// Bytes from hex (either case, surrounding whitespace ignored).
fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    hex::decode(text).map_err(|e| match e {
        hex::FromHexError::OddLength => {
            format!("hex has an odd number of digits ({})", text.len())
        }
        hex::FromHexError::InvalidHexCharacter { index, .. } => {
            let offset = index - index % 2;
            let pair = text.get(offset..offset + 2).unwrap_or_default();
            format!("invalid hex digits {pair:?} at offset {offset}")
        }
        other => other.to_string(),
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
}
