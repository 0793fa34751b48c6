//! The tokens of XLA's sharding text (a subset of XLA's HLO lexer).

/// One token and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// `{`, `}`, `[`, `]`, `(`, `)`, `,`.
    Punct(u8),
    /// `<=`.
    Leq,
    /// An identifier or keyword (`replicated`, `T`).
    Ident(String),
    /// `name=`: an identifier directly followed by `=`.
    Attr(String),
    /// An integer literal that fits an `i64`.
    Int(i64),
    /// An integer literal out of `i64`'s range.
    BadInt(String),
    /// A string literal, unescaped.
    Str(String),
    /// Anything else (one character).
    Bad(char),
    /// The end of the input.
    End,
}

/// Splits the text into tokens.
pub(crate) fn tokens(text: &str) -> Vec<(Token, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // A `/*...*/` comment, as XLA prints `/*index=5*/` in long tuples.
        if text[i..].starts_with("/*")
            && let Some(end) = text[i + 2..].find("*/")
        {
            i += end + 4;
            continue;
        }
        let token = match c {
            b'{' | b'}' | b'[' | b']' | b'(' | b')' | b',' => {
                i += 1;
                Token::Punct(c)
            }
            b'<' if bytes.get(i + 1) == Some(&b'=') => {
                i += 2;
                Token::Leq
            }
            b'-' | b'0'..=b'9' => {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let literal = &text[start..i];
                match literal.parse::<i64>() {
                    Ok(v) => Token::Int(v),
                    Err(_) if literal == "-" => Token::Bad('-'),
                    Err(_) => Token::BadInt(literal.to_string()),
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'.' | b'-'))
                {
                    i += 1;
                }
                let name = text[start..i].to_string();
                if bytes.get(i) == Some(&b'=') {
                    i += 1;
                    Token::Attr(name)
                } else {
                    Token::Ident(name)
                }
            }
            b'"' | b'\'' => {
                let (value, end) = string(text, i);
                i = end;
                match value {
                    Some(s) => Token::Str(s),
                    None => Token::Bad('"'),
                }
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                i += ch.len_utf8();
                Token::Bad(ch)
            }
        };
        out.push((token, start));
    }
    out.push((Token::End, text.len()));
    out
}

/// A string literal starting at `start` (a `"` or, as in mesh axis names,
/// a `'`): its value and the offset after it. The value is `None` when the
/// string is not closed, or when an escape is not one of C's as XLA reads
/// them (absl's `CUnescape`: `\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v`,
/// `\\`, `\'`, `\"`, `\?`, up to 3 octal digits, `\x` and hex digits, `\u`
/// and 4 or `\U` and 8 hex digits) or leaves bytes that are not UTF-8 (XLA
/// keeps such bytes; a Rust string cannot).
fn string(text: &str, start: usize) -> (Option<String>, usize) {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let mut out: Vec<u8> = Vec::new();
    let mut ok = true;
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b if b == quote => {
                let value = String::from_utf8(out).ok().filter(|_| ok);
                return (value, i + 1);
            }
            b'\\' if i + 1 < bytes.len() => {
                let (escaped, next) = escape(bytes, i + 1);
                match escaped {
                    Some(Escaped::Byte(b)) => out.push(b),
                    Some(Escaped::Char(c)) => {
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                    None => ok = false,
                }
                i = next;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    (None, bytes.len())
}

/// What one escape stands for.
enum Escaped {
    /// A byte (`\n`, octal, `\x`).
    Byte(u8),
    /// A character (`\u`, `\U`), written as UTF-8.
    Char(char),
}

/// The escape whose letter is at `at` (after the backslash): what it stands
/// for (`None` if XLA refuses it) and the offset after it.
fn escape(bytes: &[u8], at: usize) -> (Option<Escaped>, usize) {
    let digits = |from: usize, radix: u32, most: usize| {
        let count = bytes[from..]
            .iter()
            .take(most)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count();
        let value = bytes[from..from + count].iter().try_fold(0u32, |v, b| {
            v.checked_mul(radix)?
                .checked_add(char::from(*b).to_digit(radix)?)
        });
        (value, count)
    };
    let byte = |v: Option<u32>| v.and_then(|v| u8::try_from(v).ok()).map(Escaped::Byte);
    let simple = |b: u8| (Some(Escaped::Byte(b)), at + 1);
    match bytes[at] {
        b'n' => simple(b'\n'),
        b't' => simple(b'\t'),
        b'r' => simple(b'\r'),
        b'a' => simple(0x07),
        b'b' => simple(0x08),
        b'f' => simple(0x0c),
        b'v' => simple(0x0b),
        b @ (b'\\' | b'\'' | b'"' | b'?') => simple(b),
        b'0'..=b'7' => {
            let (value, count) = digits(at, 8, 3);
            (byte(value), at + count)
        }
        b'x' => {
            // All the hex digits that follow, at least one.
            let (value, count) = digits(at + 1, 16, usize::MAX);
            (byte(value.filter(|_| count > 0)), at + 1 + count)
        }
        b @ (b'u' | b'U') => {
            let width = if b == b'u' { 4 } else { 8 };
            let (value, count) = digits(at + 1, 16, width);
            let c = value.filter(|_| count == width).and_then(char::from_u32);
            (c.map(Escaped::Char), at + 1 + count)
        }
        _ => (None, at + 1),
    }
}

/// How an error message shows a token.
pub(crate) fn describe(token: &Token) -> String {
    match token {
        Token::Punct(c) => format!("`{}`", char::from(*c)),
        Token::Leq => "`<=`".to_string(),
        Token::Ident(s) => format!("`{s}`"),
        Token::Attr(s) => format!("`{s}=`"),
        Token::Int(v) => format!("`{v}`"),
        Token::BadInt(s) => format!("`{s}` (out of the range of a 64-bit integer)"),
        Token::Str(s) => format!("{s:?}"),
        Token::Bad(c) if c.is_ascii_graphic() => format!("`{c}`"),
        Token::Bad(c) => format!("`{c}` (U+{:04X})", u32::from(*c)),
        Token::End => "end of input".to_string(),
    }
}
