//! The parts of a lowered module around `main`'s signature: the module's
//! attributes (`mhlo.num_partitions`, read as MLIR reads an integer
//! attribute), and where a brace closes (a module cut short is refused).

use std::collections::HashSet;

use crate::error::ParseError;
use crate::sdy::parse::{Cursor, Parsed};

/// The module's header, `module @name attributes {...} {`: the value of
/// `mhlo.num_partitions`, if given, and the offset of the `{` that opens
/// the module's body. `None` when the text has no `module` line (MLIR's
/// implicit module).
pub(crate) struct Header {
    pub(crate) num_partitions: Option<i64>,
    pub(crate) body: usize,
}

/// The first line that opens with `module` (then a space, `@` or `{`).
fn module_line(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("module")
            && rest.starts_with([' ', '@', '{', '\t'])
        {
            return Some(offset + (line.len() - trimmed.len()));
        }
        offset += line.len();
    }
    None
}

/// Reads the header of the module in `text`, if it has one.
pub(crate) fn header(text: &str) -> Parsed<Option<Header>> {
    let Some(start) = module_line(text) else {
        return Ok(None);
    };
    let mut c = Cursor::new(text);
    c.at = start + "module".len();
    if c.eat("@") {
        c.symbol()?;
    }
    let mut num_partitions = None;
    if c.eat("attributes") {
        c.expect("{")?;
        let mut keys: HashSet<String> = HashSet::new();
        if !c.eat("}") {
            loop {
                let key_at = c.at;
                let key = if c.peek_byte() == Some(b'"') {
                    c.string()?
                } else {
                    c.ident()?.to_string()
                };
                if !keys.insert(key.clone()) {
                    c.at = key_at;
                    return Err(
                        c.error(format!("duplicate key '{key}' in the module's attributes"))
                    );
                }
                let value = if c.eat("=") {
                    c.skip_space();
                    let at = c.at;
                    crate::sdy::lowered::skip_attribute_value(&mut c)?;
                    Some((at, text.get(at..c.at).unwrap_or_default().trim_end()))
                } else {
                    None
                };
                if key == "mhlo.num_partitions" {
                    let (at, value) = value.unwrap_or((c.at, ""));
                    num_partitions = Some(partitions(value).map_err(|message| {
                        c.at = at;
                        c.error(message)
                    })?);
                }
                if c.eat("}") {
                    break;
                }
                c.expect(",")?;
            }
        }
    }
    c.skip_space();
    let body = c.at;
    c.expect("{")?;
    Ok(Some(Header {
        num_partitions,
        body,
    }))
}

/// `mhlo.num_partitions`'s value as MLIR reads an integer attribute: a
/// decimal or `0x` hexadecimal literal, optionally negative, then
/// optionally `: iN`, `: siN` or `: uiN` (`i64` when not given), fitting
/// its type as a signed value; it must be at least 1.
fn partitions(value: &str) -> Result<i64, String> {
    let not_integer =
        || format!("mhlo.num_partitions must be an integer attribute (`8 : i32`), not `{value}`");
    let (literal, ty) = match value.split_once(':') {
        Some((literal, ty)) => (literal.trim(), Some(ty.trim())),
        None => (value.trim(), None),
    };
    let (negative, digits) = match literal.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, literal),
    };
    let parsed = match digits.strip_prefix("0x") {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            i128::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<i128>().ok()
        }
        None => None,
    };
    let bits = match ty {
        None => Some(64),
        Some(ty) => ty
            .strip_prefix("si")
            .or_else(|| ty.strip_prefix("ui"))
            .or_else(|| ty.strip_prefix('i'))
            .and_then(|bits| bits.parse::<u32>().ok())
            .filter(|bits| (1..=64).contains(bits)),
    };
    let (Some(bits), Some(magnitude)) = (bits, parsed) else {
        // 20 digits and more fit no i128 only past 39 digits: say so.
        if bits.is_some() && digits.len() > 18 && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("mhlo.num_partitions = {value} is out of range"));
        }
        return Err(not_integer());
    };
    let number = if negative { -magnitude } else { magnitude };
    let max = (1_i128 << (bits - 1)) - 1;
    if number > max {
        return Err(format!("mhlo.num_partitions = {value} is out of range"));
    }
    if number < 1 {
        return Err(format!(
            "mhlo.num_partitions = {value}: a partition count is at least 1"
        ));
    }
    i64::try_from(number).map_err(|_| format!("mhlo.num_partitions = {value} is out of range"))
}

/// The offset just past the `}` that closes the `{` at `open` (strings
/// skipped with their escapes), or an error naming where the text ends.
pub(crate) fn closing_brace(text: &str, open: usize, what: &str) -> Parsed<usize> {
    let bytes = text.as_bytes();
    let mut depth: usize = 0;
    let mut i = open;
    let mut in_string = false;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err(ParseError {
        message: format!("{what} is cut short: its '{{' at byte {open} is never closed"),
        offset: text.len(),
        found: "end of input".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_counts_are_integer_attributes_or_refused() {
        assert_eq!(partitions("8 : i32"), Ok(8));
        assert_eq!(partitions("8"), Ok(8));
        assert_eq!(partitions("0x10 : i64"), Ok(16));
        assert_eq!(partitions("2147483647 : i32"), Ok(2_147_483_647));
        for (value, message) in [
            (
                "-4 : i32",
                "mhlo.num_partitions = -4 : i32: a partition count is at least 1",
            ),
            (
                "0 : i32",
                "mhlo.num_partitions = 0 : i32: a partition count is at least 1",
            ),
            (
                "2147483648 : i32",
                "mhlo.num_partitions = 2147483648 : i32 is out of range",
            ),
            (
                "12345678901234567890 : i64",
                "mhlo.num_partitions = 12345678901234567890 : i64 is out of range",
            ),
            (
                "123456789012345678901234567890123456789012",
                "mhlo.num_partitions = 123456789012345678901234567890123456789012 is out of range",
            ),
        ] {
            assert_eq!(partitions(value).unwrap_err(), message, "{value}");
        }
        for value in [
            "\"4\"",
            "x",
            "4.5 : f32",
            "4x",
            "0x",
            "4 : f32",
            "true",
            "",
            "- 4",
        ] {
            assert_eq!(
                partitions(value).unwrap_err(),
                format!(
                    "mhlo.num_partitions must be an integer attribute (`8 : i32`), not `{value}`"
                ),
                "{value}"
            );
        }
    }

    #[test]
    fn a_brace_never_closed_is_an_error() {
        assert_eq!(closing_brace("{a {\"}\"} b}c", 0, "x"), Ok(11));
        let error = closing_brace("x {{ \"\\\"}\" }", 2, "the module").unwrap_err();
        assert_eq!(
            error.message,
            "the module is cut short: its '{' at byte 2 is never closed"
        );
    }
}
