//! Golden tests of XLA's human shape strings: the printer and the parser
//! against what real XLA printed, parsed and serialized.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, hex_decode, hex_encode, load, required, same};
use prost::Message;
use schema::{ParseError, Shape};

/// Decodes the row's `hex` into a Shape.
fn decoded(row: &Row) -> Result<Shape, String> {
    let bytes = hex_decode(required(row, "hex")?)?;
    Shape::decode(bytes.as_slice()).map_err(|e| format!("decode: {e}"))
}

/// Parses `text`, describing a failure.
fn parsed(text: &str) -> Result<Shape, String> {
    text.parse::<Shape>()
        .map_err(|e| format!("parse of {text:?} failed: {e}"))
}

/// Checks that `shape` prints as the row's `string` and `string_no_layout`.
fn prints_as_row(shape: &Shape, row: &Row) -> Result<(), String> {
    same(
        "Display",
        shape.to_string().as_str(),
        required(row, "string")?,
    )?;
    if let Some(no_layout) = field(row, "string_no_layout") {
        same("human_string", shape.human_string().as_str(), no_layout)?;
    }
    Ok(())
}

/// A shape XLA serialized prints as XLA printed it, and (when XLA's own
/// re-parse gave the same bytes) the printed string parses back to the same
/// bytes and prints identically.
fn check_shape_row(row: &Row) -> Result<(), String> {
    let shape = decoded(row)?;
    prints_as_row(&shape, row)?;
    let string = required(row, "string")?;
    if row
        .get("reparse_equal")
        .and_then(serde_json::Value::as_bool)
        == Some(false)
    {
        return Ok(());
    }
    let reparsed = parsed(string)?;
    same("parse(string)", &reparsed, &shape)?;
    same(
        "parse(string) bytes",
        hex_encode(&reparsed.encode_to_vec()).as_str(),
        required(row, "hex")?,
    )?;
    same(
        "print(parse(string))",
        reparsed.to_string().as_str(),
        string,
    )
}

fn check_shape_file(name: &str) -> bool {
    let rows = load(name).unwrap();
    let mut tally = Tally::new(name);
    for row in &rows {
        let case = field(row, "string").unwrap_or("?").to_owned();
        tally.record(&case, check_shape_row(row));
    }
    tally.finish()
}

#[test]
fn xla_shapes_print_and_parse_as_xla() {
    assert!(check_shape_file("shapes.jsonl"));
}

#[test]
fn hlo_shapes_print_and_parse_as_xla() {
    assert!(check_shape_file("hlo_shapes.jsonl"));
}

/// The rows XLA printed but cannot parse back identically: `#(invalid)`
/// is not a type name, and a negative `M(n)` is kept but not printed.
#[test]
fn strings_xla_cannot_reparse_behave_as_in_xla() {
    let rows = load("shapes.jsonl").unwrap();
    let odd: Vec<&Row> = rows
        .iter()
        .filter(|row| {
            row.get("reparse_equal")
                .and_then(serde_json::Value::as_bool)
                == Some(false)
        })
        .collect();
    assert_eq!(odd.len(), 2);
    for row in odd {
        let string = required(row, "string").unwrap();
        if string.contains("#(invalid)") {
            assert!(string.parse::<Shape>().is_err(), "{string}");
        } else {
            let shape = decoded(row).unwrap();
            let layout = shape.layout.as_deref().unwrap();
            assert!(layout.dynamic_shape_metadata_prefix_bytes < 0, "{string}");
            assert_eq!(string.parse::<Shape>().unwrap().to_string(), string);
        }
    }
}

/// Every input XLA's ParseShape accepted parses here to the same bytes and
/// prints XLA's canonical strings.
#[test]
fn parse_ok_inputs_parse_as_in_xla() {
    let rows = load("parse_ok.jsonl").unwrap();
    let mut tally = Tally::new("parse_ok.jsonl");
    for row in &rows {
        let input = field(row, "input").unwrap_or("?");
        let outcome = parsed(input).and_then(|shape| {
            prints_as_row(&shape, row)?;
            same(
                "bytes",
                hex_encode(&shape.encode_to_vec()).as_str(),
                required(row, "hex")?,
            )
        });
        tally.record(&format!("{input:?}"), outcome);
    }
    assert!(tally.finish());
}

/// The messages in XLA's error text with the column each was reported at:
/// the `C` and `msg` of each `was parsing 1:C: error: msg` line, or
/// `Extra content after shape` (no column).
fn xla_messages(text: &str) -> Vec<(Option<usize>, String)> {
    text.lines()
        .filter_map(|line| {
            if line == "Extra content after shape" {
                return Some((None, line.to_owned()));
            }
            let (place, message) = line.split_once(": error: ")?;
            let column = place
                .strip_prefix("was parsing 1:")
                .and_then(|c| c.parse().ok());
            Some((column, message.to_owned()))
        })
        .collect()
}

/// Our error for `input` agrees with XLA's: rejected, and where XLA names
/// the problem, our message is one XLA reported.
fn check_error_row(row: &Row) -> Result<(), String> {
    let input = required(row, "input")?;
    let error = match input.parse::<Shape>() {
        Ok(shape) => return Err(format!("accepted as {shape}")),
        Err(error) => error,
    };
    // Rows without a message are inputs XLA aborted on (`crash`) or
    // rejected with a bare `Syntax error:`; rejecting them is the check.
    let Some(message) = field(row, "message") else {
        return Ok(());
    };
    let expected = xla_messages(message);
    let ours = match &error {
        ParseError::Syntax { message, .. } => message.clone(),
        ParseError::ExtraContent { what, .. } => format!("Extra content after {what}"),
        other => format!("{other}"),
    };
    if !error.to_string().starts_with("Syntax error:\n") {
        return Err(format!("error text does not start like XLA's: {error}"));
    }
    if expected.is_empty() {
        return Ok(());
    }
    // XLA's message, at the column XLA reports it: for a shape string,
    // the byte offset (`// only a comment` ends at 1:17).
    let column = error.offset();
    let matches = |(at, message): &(Option<usize>, String)| {
        *message == ours && at.is_none_or(|at| at == column)
    };
    if expected.iter().any(matches) {
        Ok(())
    } else {
        Err(format!(
            "message {ours:?} at column {column}, XLA said {expected:?}"
        ))
    }
}

#[test]
fn parse_errors_are_rejected_with_xla_messages() {
    let rows = load("parse_errors.jsonl").unwrap();
    let mut tally = Tally::new("parse_errors.jsonl");
    for row in &rows {
        let input = field(row, "input").unwrap_or("?");
        tally.record(&format!("{input:?}"), check_error_row(row));
    }
    assert!(tally.finish());
}

/// The events of `text` as [`Shape::parse_events`] hands them over, each
/// element as its text; or the parse error.
fn parse_events(text: &str) -> Result<(Vec<String>, String), ParseError> {
    let mut events = Vec::new();
    let mut writer = schema::ShapeTextWriter::default();
    Shape::parse_events(text, |event| {
        events.push(describe(event));
        writer.push(event);
    })?;
    Ok((events, writer.finish()))
}

fn describe(event: schema::ShapeEvent<'_>) -> String {
    match event {
        schema::ShapeEvent::Element(shape) => shape.to_string(),
        other => format!("{other:?}"),
    }
}

/// Checks that `text` reads a part at a time as it parses whole.
fn reads_alike(text: &str) {
    match (text.parse::<Shape>(), parse_events(text)) {
        (Ok(shape), Ok((events, written))) => {
            let mut expected = Vec::new();
            shape.events(|event| expected.push(describe(event)));
            assert_eq!(events, expected, "{text}");
            assert_eq!(written, shape.to_string(), "{text}");
        }
        (Err(whole), Err(streamed)) => assert_eq!(streamed, whole, "{text}"),
        (whole, streamed) => panic!("{text}: {whole:?} but {streamed:?}"),
    }
}

/// Every shape string of the golden files, accepted or refused by XLA,
/// reads a part at a time as it parses whole: the same error, or the
/// events of the parsed shape and its text written from them.
#[test]
fn shapes_read_a_part_at_a_time_as_they_parse_whole() {
    let mut inputs = 0;
    for (file, key) in [
        ("parse_ok.jsonl", "input"),
        ("parse_errors.jsonl", "input"),
        ("shapes.jsonl", "string"),
        ("hlo_shapes.jsonl", "string"),
    ] {
        for row in load(file).unwrap() {
            let text = required(&row, key).unwrap();
            inputs += 1;
            reads_alike(text);
        }
    }
    // Paths the golden files may miss: elements failing validation (XLA
    // reports them at the tuple's end), buffers and empty tuples as
    // elements, a physical shape whose tuple is not streamed, nesting at
    // and past the limit, errors after many elements.
    let many = vec!["s8[]"; 1000].join(", ");
    let crafted = [
        "(f32[2]{0,0}, s8[])".to_owned(),
        "(s8[], (f32[2]{1}), s8[])".to_owned(),
        "(b(f32[2]), (), ((), token[]), opaque[])".to_owned(),
        "(b(token[]))".to_owned(),
        "(f32[2]{0:P((f32[1], s8[]))}, s8[])".to_owned(),
        "(f32[2]{0:P(f32[1])}, s8[])".to_owned(),
        format!("{}f32[]{}", "(".repeat(99), ")".repeat(99)),
        format!("{}f32[]{}", "(".repeat(100), ")".repeat(100)),
        format!("({many})"),
        format!("({many}"),
        format!("({many}, f32[9223372036854775807,2])"),
        format!("(({many}), x)"),
        format!("({many}) x"),
    ];
    for text in &crafted {
        inputs += 1;
        reads_alike(text);
    }
    assert!(inputs > 1000, "{inputs}");
}
