//! The tokenizer of shape strings, after XLA's HLO lexer (`hlo_lexer.cc`).
//!
//! Only the tokens a shape or layout can contain are told apart; every other
//! token XLA knows (floats, names, strings, arrows, ...) becomes
//! [`Token::Other`], which no grammar rule accepts, so the parser rejects it
//! where XLA's parser would. Whitespace (space, tab, CR, LF), `/*...*/` and
//! `//...` comments separate tokens.

/// One token of a shape string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token<'a> {
    /// An integer. Like XLA, a non-negative literal is read as `u64` and
    /// reinterpreted as `i64` (`18446744073709551615` is `-1`); a literal
    /// that fits neither is an [`Token::Error`].
    Int(i64),
    /// An identifier: `[a-zA-Z_][a-zA-Z0-9_.-]*` (type names, `b`, `T`, ...).
    Ident(&'a str),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LSquare,
    /// `]`
    RSquare,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `*`
    Asterisk,
    /// `#`
    Octothorp,
    /// `?`
    Question,
    /// `<=`
    Leq,
    /// `+`
    Plus,
    /// `~`
    Tilde,
    /// A token that never appears in a shape, with XLA's name for its kind.
    Other(&'static str),
    /// The end of the input.
    Eof,
    /// Text XLA's lexer rejects (`@`, a lone `<`, an unterminated comment,
    /// an integer out of range). Its text is the offending character, the
    /// opening of the unterminated comment or string, or the whole integer.
    Error,
}

impl Token<'_> {
    /// XLA's name for the token kind (`TokKindToString`), as its parse
    /// errors show it: `kRparen`, `kIdent`, ...
    pub(super) fn kind_name(self) -> &'static str {
        match self {
            Self::Int(_) => "kInt",
            Self::Ident(name) => keyword_kind(name).unwrap_or("kIdent"),
            Self::LParen => "kLparen",
            Self::RParen => "kRparen",
            Self::LSquare => "kLsquare",
            Self::RSquare => "kRsquare",
            Self::LBrace => "kLbrace",
            Self::RBrace => "kRbrace",
            Self::Comma => "kComma",
            Self::Colon => "kColon",
            Self::Asterisk => "kAsterisk",
            Self::Octothorp => "kOctothorp",
            Self::Question => "kQuestionMark",
            Self::Leq => "kLeq",
            Self::Plus => "kPlus",
            Self::Tilde => "kTilde",
            Self::Other(kind) => kind,
            Self::Eof => "kEof",
            Self::Error => "kError",
        }
    }
}

/// The keyword kinds of XLA's lexer that an identifier can turn into.
fn keyword_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "true" => "kw_true",
        "false" => "kw_false",
        "inf" => "kw_inf",
        "nan" => "kDecimal",
        "HloModule" => "kw_HloModule",
        "ENTRY" => "kw_ENTRY",
        "ROOT" => "kw_ROOT",
        _ => return None,
    })
}

/// A cursor over the tokens of a string, one token of lookahead.
pub(super) struct Lexer<'a> {
    src: &'a str,
    /// Where the next token starts being searched for.
    pos: usize,
    token: Token<'a>,
    /// Byte offset of `token`.
    start: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer positioned on the first token of `src`.
    pub(super) fn new(src: &'a str) -> Self {
        let mut lexer = Self {
            src,
            pos: 0,
            token: Token::Eof,
            start: 0,
        };
        lexer.bump();
        lexer
    }

    /// The current token.
    pub(super) fn token(&self) -> Token<'a> {
        self.token
    }

    /// The byte offset where the current token starts.
    pub(super) fn start(&self) -> usize {
        self.start
    }

    /// The text of the current token, for error messages.
    pub(super) fn text(&self) -> &'a str {
        self.src.get(self.start..self.pos).unwrap_or("")
    }

    /// Moves to the next token.
    pub(super) fn bump(&mut self) {
        let (start, token, end) = lex_token(self.src, self.pos);
        self.start = start;
        self.token = token;
        self.pos = end;
    }

    /// The token after the current one, without moving.
    pub(super) fn peek(&self) -> Token<'a> {
        if matches!(self.token, Token::Eof | Token::Error) {
            return self.token;
        }
        lex_token(self.src, self.pos).1
    }

    /// Moves past the current token if it is `token`.
    pub(super) fn eat(&mut self, token: Token<'_>) -> bool {
        if self.token == token {
            self.bump();
            true
        } else {
            false
        }
    }
}

/// Lexes the token at or after `pos`: its start, the token, and its end.
fn lex_token(src: &str, mut pos: usize) -> (usize, Token<'_>, usize) {
    let bytes = src.as_bytes();
    loop {
        let start = pos;
        let Some(&c) = bytes.get(pos) else {
            return (start, Token::Eof, pos);
        };
        pos += 1;
        let next = bytes.get(pos).copied();
        let single = |token| (start, token, start + 1);
        return match c {
            b' ' | b'\t' | b'\n' | b'\r' => continue,
            b'/' if next == Some(b'*') => match src[pos + 1..].find("*/") {
                Some(end) => {
                    pos += 1 + end + 2;
                    continue;
                }
                None => (start, Token::Error, start + 2),
            },
            b'/' if next == Some(b'/') => {
                pos = src[pos..].find(['\n', '\r']).map_or(src.len(), |i| pos + i);
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => lex_identifier(src, start),
            b'0'..=b'9' | b'-' => lex_number(src, start),
            b'?' => single(Token::Question),
            b'<' if next == Some(b'=') => (start, Token::Leq, start + 2),
            b'(' => single(Token::LParen),
            b')' => single(Token::RParen),
            b'[' => single(Token::LSquare),
            b']' => single(Token::RSquare),
            b'{' => single(Token::LBrace),
            b'}' => single(Token::RBrace),
            b',' => single(Token::Comma),
            b':' => single(Token::Colon),
            b'*' => single(Token::Asterisk),
            b'#' => single(Token::Octothorp),
            b'+' => single(Token::Plus),
            b'~' => single(Token::Tilde),
            b'=' => single(Token::Other("kEqual")),
            b'%' => {
                let end = identifier_end(bytes, pos);
                if end == pos {
                    (start, Token::Error, pos)
                } else {
                    (start, Token::Other("kName"), end)
                }
            }
            b'.' if src[start..].starts_with("...") => (start, Token::Other("kDots"), start + 3),
            b'"' | b'\'' => lex_string(bytes, start),
            _ => (start, Token::Error, char_end(src, start)),
        };
    }
}

/// The end of the character starting at byte `start` of `src`.
fn char_end(src: &str, start: usize) -> usize {
    start + src[start..].chars().next().map_or(1, char::len_utf8)
}

/// The end of the run of identifier characters `[a-zA-Z0-9_.-]` from `pos`.
fn identifier_end(bytes: &[u8], mut pos: usize) -> usize {
    while bytes
        .get(pos)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
    {
        pos += 1;
    }
    pos
}

/// An identifier; followed by `:` it is a name, by `=` an attribute name.
fn lex_identifier(src: &str, start: usize) -> (usize, Token<'_>, usize) {
    let bytes = src.as_bytes();
    let end = identifier_end(bytes, start);
    match bytes.get(end) {
        Some(b':') => (start, Token::Other("kName"), end + 1),
        Some(b'=') => (start, Token::Other("kAttributeName"), end + 1),
        _ => (start, Token::Ident(&src[start..end]), end),
    }
}

/// An integer, or one of the number-like tokens XLA lexes before integers
/// (decimals `1.5`/`2e3`, `2x3`, paddings `1_2`, `->`, `-inf`, `-nan`),
/// which are [`Token::Other`].
fn lex_number(src: &str, start: usize) -> (usize, Token<'_>, usize) {
    let bytes = src.as_bytes();
    let negative = bytes.get(start) == Some(&b'-');
    let digits_start = start + usize::from(negative);
    let mut end = digits_start;
    while bytes.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    if end == digits_start {
        // A '-' without digits.
        let rest = &src[start..];
        return if rest.starts_with("->") {
            (start, Token::Other("kArrow"), start + 2)
        } else if rest.starts_with("-inf") {
            (start, Token::Other("kNegInf"), start + 4)
        } else if rest.starts_with("-nan") || rest.starts_with("-.") {
            (
                start,
                Token::Other("kDecimal"),
                identifier_end(bytes, start + 1),
            )
        } else {
            (start, Token::Error, start + 1)
        };
    }
    let follows = |offset: usize| bytes.get(end + offset).copied();
    let digit_follows = |offset: usize| follows(offset).is_some_and(|c| c.is_ascii_digit());
    let pattern = match follows(0) {
        Some(b'.') => Some("kDecimal"),
        Some(b'e' | b'E')
            if digit_follows(1)
                || (matches!(follows(1), Some(b'+' | b'-')) && digit_follows(2)) =>
        {
            Some("kDecimal")
        }
        Some(b'x') if digit_follows(1) => Some("kDxD"),
        Some(b'_') => Some("kPad"),
        _ => None,
    };
    if let Some(kind) = pattern {
        let mut pattern_end = end;
        while bytes.get(pattern_end).is_some_and(|&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'+' | b'>' | b'?')
        }) {
            pattern_end += 1;
        }
        return (start, Token::Other(kind), pattern_end);
    }
    let digits = &src[digits_start..end];
    let value = if negative {
        src[start..end].parse::<i64>().ok()
    } else {
        // XLA reads non-negative literals as u64 and bit-casts them.
        digits
            .parse::<u64>()
            .ok()
            .map(|v| i64::from_ne_bytes(v.to_ne_bytes()))
    };
    match value {
        Some(v) => (start, Token::Int(v), end),
        None => (start, Token::Error, end),
    }
}

/// A quoted string with backslash escapes.
fn lex_string(bytes: &[u8], start: usize) -> (usize, Token<'_>, usize) {
    let quote = bytes[start];
    let mut pos = start + 1;
    while let Some(&c) = bytes.get(pos) {
        match c {
            b'\\' => pos += 2,
            _ if c == quote => return (start, Token::Other("kString"), pos + 1),
            _ => pos += 1,
        }
    }
    (start, Token::Error, start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Token<'_>> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        while !matches!(lexer.token(), Token::Eof | Token::Error) {
            out.push(lexer.token());
            lexer.bump();
        }
        out.push(lexer.token());
        out
    }

    #[test]
    fn shape_tokens() {
        use Token::*;
        assert_eq!(
            tokens("f32[<=2, ?]{1,0:T(8,*)}"),
            [
                Ident("f32"),
                LSquare,
                Leq,
                Int(2),
                Comma,
                Question,
                RSquare,
                LBrace,
                Int(1),
                Comma,
                Int(0),
                Colon,
                Ident("T"),
                LParen,
                Int(8),
                Comma,
                Asterisk,
                RParen,
                RBrace,
                Eof
            ]
        );
    }

    #[test]
    fn comments_and_whitespace_separate_tokens() {
        use Token::*;
        assert_eq!(
            tokens(" (\t/*index=5*/f32[]\r\n// rest\n)"),
            [LParen, Ident("f32"), LSquare, RSquare, RParen, Eof]
        );
        assert_eq!(tokens("( /* open"), [LParen, Error]);
    }

    #[test]
    fn integers_follow_xla() {
        use Token::*;
        assert_eq!(tokens("18446744073709551615"), [Int(-1), Eof]);
        assert_eq!(tokens("-9223372036854775808"), [Int(i64::MIN), Eof]);
        assert_eq!(tokens("18446744073709551616"), [Error]);
        assert_eq!(tokens("-9223372036854775809"), [Error]);
        assert_eq!(tokens("1.5"), [Other("kDecimal"), Eof]);
        assert_eq!(tokens("2e3"), [Other("kDecimal"), Eof]);
        assert_eq!(tokens("2x3"), [Other("kDxD"), Eof]);
        assert_eq!(tokens("1_2"), [Other("kPad"), Eof]);
        assert_eq!(tokens("->"), [Other("kArrow"), Eof]);
    }

    #[test]
    fn names_and_strange_characters() {
        use Token::*;
        assert_eq!(
            tokens("x: y="),
            [Other("kName"), Other("kAttributeName"), Eof]
        );
        assert_eq!(tokens("@"), [Error]);
        assert_eq!(tokens("<"), [Error]);
        assert_eq!(tokens("\0"), [Error]);
        assert_eq!(tokens("é"), [Error]);
        assert_eq!(tokens("'a\\'b' x"), [Other("kString"), Ident("x"), Eof]);
    }
}
