//! Skipping text XLA prints inside an instruction without reading it:
//! brackets are matched, strings and `/*...*/` comments are stepped over, so
//! an attribute such as `backend_config="{\"a\":[1,2]}"` or
//! `sharding={devices=[2,1]<=[2]}` can never be mistaken for the end of
//! what surrounds it.

/// The deepest bracket nesting [`scan`] follows; deeper text is refused.
const MAX_NESTING: usize = 256;

/// Why [`scan`] stopped: the byte offset in the line and the message.
pub(crate) type ScanError = (usize, String);

/// Walks `line` from byte `from` to the first byte of `stops` found outside
/// any bracket, string or comment, or to the end of the line, and returns
/// that offset. A closing bracket in `stops` met at depth 0 also stops.
///
/// # Errors
///
/// A closing bracket that does not match, a bracket left open at the end,
/// an unterminated string or comment, nesting deeper than [`MAX_NESTING`].
pub(crate) fn scan(line: &str, from: usize, stops: &[u8]) -> Result<usize, ScanError> {
    let bytes = line.as_bytes();
    let mut open: Vec<(u8, usize)> = Vec::new();
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        if open.is_empty() && stops.contains(&b) {
            return Ok(i);
        }
        match b {
            b'(' | b'[' | b'{' => {
                if open.len() >= MAX_NESTING {
                    return Err((i, format!("brackets nested deeper than {MAX_NESTING}")));
                }
                open.push((b, i));
            }
            b')' | b']' | b'}' => match open.pop() {
                Some((opener, _)) if closer(opener) == b => {}
                Some((opener, at)) => {
                    return Err((
                        i,
                        format!(
                            "`{}` does not close the `{}` at column {}",
                            char::from(b),
                            char::from(opener),
                            at + 1
                        ),
                    ));
                }
                None => return Err((i, format!("unmatched `{}`", char::from(b)))),
            },
            b'"' => i = end_of_string(bytes, i)?,
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = end_of_comment(bytes, i)?,
            _ => {}
        }
        i += 1;
    }
    match open.last() {
        Some(&(opener, at)) => Err((at, format!("`{}` is never closed", char::from(opener)))),
        None => Ok(bytes.len()),
    }
}

/// The pieces of `text` between its top-level commas, trimmed, empty ones
/// left out.
pub(crate) fn split_top(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let end = scan(text, at, b",").unwrap_or(text.len());
        let piece = text.get(at..end).unwrap_or("").trim();
        if !piece.is_empty() {
            pieces.push(piece);
        }
        at = end.saturating_add(1);
    }
    pieces
}

/// `%f` or `{%f, %g}`: the names without `%`.
pub(crate) fn computation_names(value: &str) -> Vec<String> {
    let inner = value
        .trim()
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(value);
    split_top(inner)
        .into_iter()
        .map(|n| n.trim_start_matches('%').to_owned())
        .collect()
}

/// The closing bracket of `opener`.
fn closer(opener: u8) -> u8 {
    match opener {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

/// The offset of the quote closing the string that opens at `start`
/// (backslash escapes any byte).
fn end_of_string(bytes: &[u8], start: usize) -> Result<usize, ScanError> {
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return Ok(i),
            _ => i += 1,
        }
    }
    Err((start, "unterminated string".to_owned()))
}

/// The offset of the `/` closing the comment that opens at `start`.
fn end_of_comment(bytes: &[u8], start: usize) -> Result<usize, ScanError> {
    let body = bytes.get(start + 2..).unwrap_or_default();
    body.windows(2)
        .position(|w| w == b"*/")
        .map(|p| start + 2 + p + 1)
        .ok_or((start, "unterminated comment".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_comments_and_brackets_are_stepped_over() {
        let line = r#"a={x,"}\",(" /*)*/ [1]}, b=2"#;
        assert_eq!(scan(line, 0, b","), Ok(23));
        assert_eq!(scan("(f32[2]{0}, s32[]) add", 0, b" "), Ok(18));
        assert_eq!(scan("x(a, (b)) y", 2, b")"), Ok(8));
        assert_eq!(scan("abc", 0, b","), Ok(3));
        assert_eq!(computation_names("{%a, %b.1}"), ["a", "b.1"]);
        assert_eq!(split_top("f32[2]{1,0} %a, %b"), ["f32[2]{1,0} %a", "%b"]);
    }

    #[test]
    fn unbalanced_text_is_refused_where_it_goes_wrong() {
        assert_eq!(
            scan("{(}", 0, b""),
            Err((2, "`}` does not close the `(` at column 2".into()))
        );
        assert_eq!(scan("a }", 0, b""), Err((2, "unmatched `}`".into())));
        assert_eq!(
            scan("x={[1]", 0, b""),
            Err((2, "`{` is never closed".into()))
        );
        assert_eq!(
            scan(r#"s="ab\""#, 0, b""),
            Err((2, "unterminated string".into()))
        );
        assert_eq!(
            scan("/* x", 0, b""),
            Err((0, "unterminated comment".into()))
        );
        let deep = "(".repeat(MAX_NESTING + 1);
        assert!(scan(&deep, 0, b"").unwrap_err().1.contains("deeper"));
    }
}
