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
/// a `'`): its value (C escapes resolved) and the offset after it, or
/// `None` when it is not closed.
fn string(text: &str, start: usize) -> (Option<String>, usize) {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let mut out: Vec<u8> = Vec::new();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b if b == quote => return (Some(String::from_utf8_lossy(&out).into_owned()), i + 1),
            b'\\' if i + 1 < bytes.len() => {
                let e = bytes[i + 1];
                i += 2;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'x' => {
                        let mut v: u32 = 0;
                        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                            v = (v * 16 + char::from(bytes[i]).to_digit(16).unwrap_or(0)) & 0xff;
                            i += 1;
                        }
                        out.push(u8::try_from(v).unwrap_or(0));
                    }
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            if i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                                v = v * 8 + u32::from(bytes[i] - b'0');
                                i += 1;
                            }
                        }
                        out.push(u8::try_from(v & 0xff).unwrap_or(0));
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    (None, bytes.len())
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
