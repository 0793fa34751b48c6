//! One output line per input, plain or JSON, and the exit status.

use std::borrow::Cow;
use std::io::Write;
use std::process::ExitCode;

use serde_json::{Map, Value, json};

/// Where results go; remembers whether any input failed.
pub struct Output {
    json: bool,
    failed: bool,
}

impl Output {
    /// Output in JSON lines when `json`, else plain text.
    pub fn new(json: bool) -> Self {
        Self {
            json,
            failed: false,
        }
    }

    /// Whether results are printed as JSON.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// A success: `plain` in plain mode, else `fields` with `"ok": true`
    /// first.
    pub fn success(&mut self, plain: &str, fields: Value) {
        if self.json {
            let mut object = Map::new();
            object.insert("ok".into(), Value::Bool(true));
            if let Value::Object(rest) = fields {
                object.extend(rest);
            }
            self.line(&Value::Object(object).to_string());
        } else {
            self.line(&printable_lines(plain));
        }
    }

    /// A success in JSON mode already serialized: `object` must be a JSON
    /// object whose first field is `"ok": true` (for results too large to
    /// build as a `Value` first).
    pub fn success_serialized(&mut self, object: &str) {
        self.line(object);
    }

    /// A failed input: `error: <message>`, or `"ok": false` with `input` and
    /// `error` in JSON. Processing goes on; the exit status becomes 1.
    pub fn failure(&mut self, input: Option<&str>, message: &str) {
        let text = self.failure_text(input, message);
        self.line(&text);
    }

    /// A failure of a command whose standard output carries data
    /// (`relayout`): reported as [`Output::failure`] but on standard error.
    pub fn failure_on_stderr(&mut self, message: &str) {
        let text = self.failure_text(None, message);
        // Nothing more can be done if standard error is closed.
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    fn failure_text(&mut self, input: Option<&str>, message: &str) -> String {
        self.failed = true;
        if self.json {
            let mut object = json!({"ok": false});
            if let Some(input) = input {
                object["input"] = Value::String(clip(input));
            }
            object["error"] = Value::String(clip(message));
            object.to_string()
        } else {
            format!("error: {}", printable_lines(&one_line(&clip(message))))
        }
    }

    /// 1 if any input failed, else 0.
    pub fn exit_code(&self) -> ExitCode {
        if self.failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }

    fn line(&mut self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
            Ok(()) => {}
            // A closed pipe (e.g. `| head`) ends the output quietly.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                std::process::exit(if self.failed { 1 } else { 0 });
            }
            // Any other failure (a full disk, a device error) loses
            // results: said on standard error, and the exit status is 1.
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "error: cannot write standard output: {e}"
                );
                std::process::exit(1);
            }
        }
    }
}

/// The most bytes of an error message (or of the input a JSON failure
/// echoes) printed: a message quoting a huge token is cut in the middle,
/// its start and its end kept (where a nested decoder's reason is).
const MAX_ERROR_BYTES: usize = 1024;

/// `text`, or its first 768 and last 256 bytes (at character boundaries)
/// around how many bytes were left out.
fn clip(text: &str) -> String {
    if text.len() <= MAX_ERROR_BYTES {
        return text.to_owned();
    }
    let mut head = MAX_ERROR_BYTES / 4 * 3;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - MAX_ERROR_BYTES / 4;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{} ... ({} bytes left out) ... {}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// `text` with every control character but the line feeds between its
/// lines escaped ([`hlo_util::printable`]): a name read from a file (an
/// instruction's in a dump, a quoted token in an error) cannot move the
/// terminal's cursor, recolour it or overwrite a line.
fn printable_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(hlo_util::printable).collect();
    Cow::Owned(lines.join("\n"))
}

/// XLA's messages may span lines (`Syntax error:\n...`); plain output keeps
/// one line per input.
fn one_line(message: &str) -> String {
    message.split('\n').collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_but_line_feeds_are_escaped() {
        assert_eq!(printable_lines("a\nb"), "a\nb");
        assert_eq!(
            printable_lines("a\u{1b}[2J\r\u{7}\nb\tc"),
            "a\\u{1b}[2J\\r\\u{7}\nb\\tc"
        );
    }

    #[test]
    fn long_messages_are_cut_at_character_boundaries() {
        assert_eq!(clip("short"), "short");
        // 1 + 2,000 bytes: 'a' then 1,000 two-byte characters.
        let long = format!("a{}", "\u{e9}".repeat(1000));
        let clipped = clip(&long);
        let head = format!("a{}", "\u{e9}".repeat(383));
        let tail = "\u{e9}".repeat(128);
        assert_eq!(
            clipped,
            format!("{head} ... (978 bytes left out) ... {tail}")
        );
    }
}
