//! `literal`: an XLA LiteralProto as a raw buffer in its own layout or
//! another one, or printed as XLA prints HLO constants; and `--from`, the
//! LiteralProto of a raw buffer.

use std::io::{Read, Write};
use std::path::Path;

use literal_util::LiteralText;
use prost::Message;
use schema::{LiteralProto, Shape};
use serde_json::json;

use super::relayout::{read_input, write_file};
use super::{Outcome, from_hex, reported, shape, to_hex};
use crate::cli::LiteralArgs;

/// What `literal` produced: a report line, and the bytes that standard
/// output carries when there is no `--output` (none for `--print` and
/// `--from`, which print their result as the report).
pub struct Produced {
    /// The plain line and JSON fields.
    pub outcome: Outcome,
    /// Whether standard output carries raw bytes (then the report is shown
    /// only with `--output`).
    pub raw: bool,
}

/// Runs `literal` with `args`.
pub fn run(args: &LiteralArgs) -> Produced {
    match &args.from {
        Some(text) => Produced {
            outcome: build(text, args),
            raw: false,
        },
        None => Produced {
            outcome: read(args),
            raw: !args.print,
        },
    }
}

/// `--from SHAPE`: the LiteralProto of the buffer in `--input` (or
/// standard input), in hex (or binary to `--output`).
fn build(text: &str, args: &LiteralArgs) -> Outcome {
    let shape = shape(text)?;
    let expected = index_util::TiledLayout::new(&shape)
        .map_err(|e| e.to_string())
        .and_then(|layout| {
            usize::try_from(layout.buffer_size_in_bytes())
                .map_err(|_| format!("a buffer of {text} does not fit in memory"))
        })?;
    let buffer = read_input(args.input.as_deref(), expected, text)?;
    let literal = literal_util::from_buffer(&shape, &buffer).map_err(|e| e.to_string())?;
    let bytes = literal.encode_to_vec();
    let literal_shape = literal
        .shape
        .as_ref()
        .map(Shape::human_string_with_layout)
        .unwrap_or_default();
    match &args.output {
        Some(path) => {
            write_file(path, &bytes)?;
            Ok((
                format!(
                    "wrote a LiteralProto of {} bytes to {}",
                    bytes.len(),
                    path.display()
                ),
                json!({"shape": literal_shape, "bytes_written": bytes.len(), "output": path.display().to_string()}),
            ))
        }
        None => {
            let hex = to_hex(&bytes);
            Ok((hex.clone(), json!({"shape": literal_shape, "hex": hex})))
        }
    }
}

/// The LiteralProto of INPUT: its buffer (to `--output` or standard
/// output), or with `--print` its text.
fn read(args: &LiteralArgs) -> Outcome {
    let literal = load(args)?;
    let literal = literal_util::element(&literal, &args.element.0).map_err(|e| e.to_string())?;
    let shape = literal.shape.as_ref().ok_or("LiteralProto has no shape")?;
    if args.print {
        return reported(&LiteralText::new(literal).map_err(|e| e.to_string())?);
    }
    let target = match &args.layout {
        Some(layout) => with_layout(shape, layout)?,
        None => shape.clone(),
    };
    let buffer =
        literal_util::to_buffer(literal, target.layout.as_deref()).map_err(|e| e.to_string())?;
    match &args.output {
        Some(path) => write_file(path, &buffer)?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&buffer)
                .and_then(|()| stdout.flush())
                .map_err(|e| format!("cannot write standard output: {e}"))?;
        }
    }
    let output = args.output.as_ref().map(|p| p.display().to_string());
    let name = target.human_string_with_layout();
    Ok((
        format!(
            "wrote {} bytes of {name} to {}",
            buffer.len(),
            output.as_deref().unwrap_or("standard output")
        ),
        json!({"shape": name, "bytes_written": buffer.len(), "output": output}),
    ))
}

/// The LiteralProto of INPUT: hex (argument or standard input) with
/// `--hex` (nothing, or a blank line, is the empty message), else a binary
/// message from the file INPUT or standard input.
fn load(args: &LiteralArgs) -> Result<LiteralProto, String> {
    let bytes = if args.hex {
        let text = match &args.input_message {
            Some(text) => text.clone(),
            None => String::from_utf8(read_bytes(None)?)
                .map_err(|_| "standard input is not hex text".to_string())?,
        };
        from_hex(&text)?
    } else {
        read_bytes(args.input_message.as_deref().map(Path::new))?
    };
    LiteralProto::decode(bytes.as_slice())
        .map_err(|e| format!("not a LiteralProto ({} bytes): {e}", bytes.len()))
}

/// The array shape `shape` with the layout written as `layout` (`{0,1}`,
/// `{1,0:T(2,2)}`, ...).
fn with_layout(shape: &Shape, layout: &str) -> Result<Shape, String> {
    let mut bare = shape.clone();
    bare.layout = None;
    let text = format!("{}{}", bare.human_string(), layout.trim());
    let parsed: Shape = text
        .parse()
        .map_err(|e: schema::ParseError| format!("layout {layout:?}: {e}"))?;
    Ok(parsed)
}

/// Everything from the file `path` or standard input.
fn read_bytes(path: Option<&Path>) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    match path {
        Some(path) => std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        None => std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
    };
    Ok(bytes)
}
