//! Reading Shardy's text: a cursor over the bytes with the grammar of
//! meshes, axis references and shardings.

use std::str::FromStr;

use crate::error::ParseError;
use crate::sdy::mesh::SdyMesh;
use crate::sdy::sharding::{MeshRef, SdyAxisRef, SdyDim, SdySharding, SdyShardingPerValue};

pub(crate) type Parsed<T> = Result<T, ParseError>;

/// A position in Shardy text.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pub(crate) at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or("")
    }

    /// Steps over the next character.
    pub(crate) fn bump_char(&mut self) {
        self.at += self.rest().chars().next().map_or(1, char::len_utf8);
    }

    /// The next byte, if any.
    pub(crate) fn peek_byte(&self) -> Option<u8> {
        self.rest().bytes().next()
    }

    pub(crate) fn skip_space(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    /// An error at the next token.
    pub(crate) fn error(&mut self, message: impl Into<String>) -> ParseError {
        self.skip_space();
        let rest = self.rest();
        let found = match rest.chars().next() {
            None => "end of input".to_string(),
            Some(c) if c.is_ascii_alphanumeric() || c == '_' => {
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
                    .collect();
                format!("`{word}`")
            }
            Some(c) => format!("`{c}`"),
        };
        ParseError {
            message: message.into(),
            offset: self.at,
            found,
        }
    }

    /// Skips `word` (after spaces) if it comes next.
    pub(crate) fn eat(&mut self, word: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(word) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect(&mut self, word: &str) -> Parsed<()> {
        if self.eat(word) {
            Ok(())
        } else {
            Err(self.error(format!("expected '{word}'")))
        }
    }

    pub(crate) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.rest().is_empty()
    }

    pub(crate) fn end(&mut self) -> Parsed<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("expected end of input"))
        }
    }

    /// A signed integer literal that fits an `i64`.
    pub(crate) fn int(&mut self) -> Parsed<i64> {
        self.skip_space();
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(self.error("expected integer"));
        }
        let literal = &rest[..sign + digits];
        match literal.parse::<i64>() {
            Ok(v) => {
                self.at += literal.len();
                Ok(v)
            }
            Err(_) => Err(self.error(format!("integer {literal} is out of range"))),
        }
    }

    /// An identifier (`[A-Za-z_$][A-Za-z0-9_$.-]*`).
    pub(crate) fn ident(&mut self) -> Parsed<&'a str> {
        self.skip_space();
        let rest = self.rest();
        let first_ok = rest
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$'));
        if !first_ok {
            return Err(self.error("expected identifier"));
        }
        let len = rest
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'))
            .count();
        self.at += len;
        Ok(&rest[..len])
    }

    /// A string literal with MLIR's escapes (`\"`, `\\`, `\n`, `\t`, `\XX`).
    pub(crate) fn string(&mut self) -> Parsed<String> {
        self.skip_space();
        let start = self.at;
        if !self.rest().starts_with('"') {
            return Err(self.error("expected string"));
        }
        let mut out = Vec::new();
        let bytes = self.text.as_bytes();
        let mut i = start + 1;
        loop {
            match bytes.get(i) {
                None | Some(b'\n') => {
                    self.at = start;
                    return Err(self.error("expected '\"' in string literal"));
                }
                Some(b'"') => break,
                Some(b'\\') => {
                    let escaped = match bytes.get(i + 1) {
                        Some(b'"') => Some((b'"', 2)),
                        Some(b'\\') => Some((b'\\', 2)),
                        Some(b'n') => Some((b'\n', 2)),
                        Some(b't') => Some((b'\t', 2)),
                        _ => bytes
                            .get(i + 1..i + 3)
                            .and_then(|h| std::str::from_utf8(h).ok())
                            .and_then(|h| u8::from_str_radix(h, 16).ok())
                            .map(|b| (b, 3)),
                    };
                    let Some((b, len)) = escaped else {
                        self.at = i;
                        return Err(self.error("unknown escape in string literal"));
                    };
                    out.push(b);
                    i += len;
                }
                Some(&b) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        self.at = i + 1;
        String::from_utf8(out).map_err(|_| {
            self.at = start;
            self.error("string literal is not UTF-8")
        })
    }

    /// `<[axes](, device_ids=[...])?>`.
    pub(crate) fn mesh_body(&mut self) -> Parsed<SdyMesh> {
        self.expect("<")?;
        self.skip_space();
        let no_axes = self.rest().starts_with("device_ids");
        if !no_axes {
            self.expect("[")?;
        }
        let mut axes = Vec::new();
        if !no_axes && !self.eat("]") {
            loop {
                let name = self.string()?;
                self.expect("=")?;
                let size = self.int()?;
                axes.push((name, size));
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let mut device_ids = None;
        let comma = no_axes || self.eat(",");
        if self.eat("device_ids") {
            self.expect("=")?;
            self.expect("[")?;
            let mut ids = vec![self.int()?];
            while self.eat(",") {
                ids.push(self.int()?);
            }
            self.expect("]")?;
            device_ids = Some(ids);
        } else if comma {
            return Err(self.error("expected 'device_ids'"));
        }
        self.expect(">")?;
        Ok(SdyMesh {
            name: None,
            axes,
            device_ids,
        })
    }

    /// A mesh in any of its forms: `<...>`, `#sdy.mesh<...>`, `mesh<...>`,
    /// or a `sdy.mesh @name = <...> {attributes}` line.
    pub(crate) fn mesh(&mut self) -> Parsed<SdyMesh> {
        if self.eat("sdy.mesh") {
            self.expect("@")?;
            let name = self.symbol()?;
            self.expect("=")?;
            let mut mesh = self.mesh_body()?;
            mesh.name = Some(name);
            self.skip_space();
            if self.rest().starts_with('{') {
                self.balanced()?;
            }
            return Ok(mesh);
        }
        if !self.eat("#sdy.mesh") {
            let _ = self.eat("mesh");
        }
        self.mesh_body()
    }

    /// A symbol name after `@`: an identifier or a string.
    pub(crate) fn symbol(&mut self) -> Parsed<String> {
        self.skip_space();
        if self.rest().starts_with('"') {
            self.string()
        } else {
            Ok(self.ident()?.to_string())
        }
    }

    /// Skips a bracketed group (`{...}`, `<...>`, `[...]`, `(...)`) with
    /// what it nests, strings included; returns its text.
    pub(crate) fn balanced(&mut self) -> Parsed<&'a str> {
        self.skip_space();
        let start = self.at;
        let bytes = self.text.as_bytes();
        if !matches!(bytes.get(start), Some(b'{' | b'<' | b'[' | b'(')) {
            return Err(self.error("expected a bracketed group"));
        }
        let mut stack: Vec<u8> = Vec::new();
        let mut i = self.at;
        loop {
            let Some(&c) = bytes.get(i) else {
                self.at = start;
                return Err(self.error("unbalanced brackets"));
            };
            match c {
                b'{' => stack.push(b'}'),
                b'<' => stack.push(b'>'),
                b'[' => stack.push(b']'),
                b'(' => stack.push(b')'),
                b'}' | b'>' | b']' | b')' => {
                    // `->` inside a group is an arrow, not a bracket.
                    let arrow = c == b'>' && i > 0 && bytes[i - 1] == b'-';
                    if !arrow && stack.pop() != Some(c) {
                        self.at = i;
                        return Err(self.error("unbalanced brackets"));
                    }
                }
                b'"' => {
                    self.at = i;
                    self.string()?;
                    i = self.at;
                    continue;
                }
                _ => {}
            }
            i += 1;
            if stack.is_empty() {
                break;
            }
        }
        self.at = i;
        Ok(&self.text[start..i])
    }

    /// `"a"` or `"a":(pre)size`.
    fn axis_ref(&mut self) -> Parsed<SdyAxisRef> {
        let name = self.string()?;
        let mut sub = None;
        if self.eat(":") {
            self.expect("(")?;
            let pre = self.int()?;
            self.expect(")")?;
            let size = self.int()?;
            sub = Some((pre, size));
        }
        Ok(SdyAxisRef { name, sub })
    }

    /// `{"a", "b"}`.
    fn axis_set(&mut self) -> Parsed<Vec<SdyAxisRef>> {
        self.expect("{")?;
        let mut out = Vec::new();
        if self.eat("}") {
            return Err(self.error("expected a non-empty axis list"));
        }
        loop {
            out.push(self.axis_ref()?);
            if self.eat("}") {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    /// `{"a", ?}p1`.
    fn dim(&mut self) -> Parsed<SdyDim> {
        self.expect("{")?;
        let mut axes = Vec::new();
        let mut closed = true;
        if !self.eat("}") {
            loop {
                if self.eat("?") {
                    closed = false;
                    self.expect("}")?;
                    break;
                }
                axes.push(self.axis_ref()?);
                if self.eat("}") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let mut priority = None;
        if self.rest().starts_with('p')
            && self.rest()[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            self.at += 1;
            priority = Some(self.int()?);
        }
        Ok(SdyDim {
            axes,
            closed,
            priority,
        })
    }

    /// `<@mesh, [dims], replicated={...}, unreduced={...}>`.
    pub(crate) fn sharding_body(&mut self) -> Parsed<SdySharding> {
        self.expect("<")?;
        let mesh = if self.eat("@") {
            MeshRef::Symbol(self.symbol()?)
        } else {
            self.skip_space();
            if !(self.rest().starts_with("mesh") || self.rest().starts_with("#sdy.mesh")) {
                return Err(self.error("expected '@' and a mesh name, or an inline mesh"));
            }
            MeshRef::Inline(self.mesh()?)
        };
        self.expect(",")?;
        self.expect("[")?;
        let mut dims = Vec::new();
        if !self.eat("]") {
            loop {
                dims.push(self.dim()?);
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let mut replicated = Vec::new();
        let mut unreduced = Vec::new();
        while self.eat(",") {
            if self.eat("replicated") && replicated.is_empty() && unreduced.is_empty() {
                self.expect("=")?;
                replicated = self.axis_set()?;
            } else if self.eat("unreduced") && unreduced.is_empty() {
                self.expect("=")?;
                unreduced = self.axis_set()?;
            } else {
                return Err(self.error("expected 'replicated' or 'unreduced'"));
            }
        }
        self.expect(">")?;
        Ok(SdySharding {
            mesh,
            dims,
            replicated,
            unreduced,
        })
    }

    /// `#sdy.sharding<...>` or its body alone.
    pub(crate) fn sharding(&mut self) -> Parsed<SdySharding> {
        let _ = self.eat("#sdy.sharding");
        self.sharding_body()
    }

    /// `#sdy.sharding_per_value<[<...>, ...]>`.
    pub(crate) fn per_value(&mut self) -> Parsed<SdyShardingPerValue> {
        self.expect("#sdy.sharding_per_value")?;
        self.expect("<")?;
        self.expect("[")?;
        let mut out = Vec::new();
        if !self.eat("]") {
            loop {
                out.push(self.sharding_body()?);
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        self.expect(">")?;
        Ok(SdyShardingPerValue(out))
    }
}

impl FromStr for SdyMesh {
    type Err = ParseError;

    /// Reads `<["a"=2]>`, `#sdy.mesh<...>`, `mesh<...>` or a whole
    /// `sdy.mesh @name = <...> {...}` line.
    fn from_str(text: &str) -> Parsed<Self> {
        let mut c = Cursor::new(text);
        let mesh = c.mesh()?;
        c.end()?;
        Ok(mesh)
    }
}

impl FromStr for SdySharding {
    type Err = ParseError;

    /// Reads `#sdy.sharding<...>` or its body `<...>`.
    fn from_str(text: &str) -> Parsed<Self> {
        let mut c = Cursor::new(text);
        let s = c.sharding()?;
        c.end()?;
        Ok(s)
    }
}

impl FromStr for SdyShardingPerValue {
    type Err = ParseError;

    fn from_str(text: &str) -> Parsed<Self> {
        let mut c = Cursor::new(text);
        let s = c.per_value()?;
        c.end()?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mesh_form_reads_the_same_axes() {
        for text in [
            r#"<["a"=2, "b"=4]>"#,
            r#"#sdy.mesh<["a"=2, "b"=4]>"#,
            r#"mesh<["a"=2,"b"=4]>"#,
            r#"sdy.mesh @mesh = <["a"=2, "b"=4]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}]}}"#,
        ] {
            let mesh: SdyMesh = text.parse().unwrap();
            assert_eq!(
                mesh.axes,
                [("a".to_string(), 2), ("b".to_string(), 4)],
                "{text}"
            );
        }
        let empty: SdyMesh = "<[]>".parse().unwrap();
        assert!(empty.axes.is_empty() && empty.device_ids.is_none());
        let maximal: SdyMesh = "<[], device_ids=[3]>".parse().unwrap();
        assert_eq!(maximal.maximal_device(), Some(3));
    }

    #[test]
    fn malformed_text_names_the_place() {
        let e = r#"#sdy.sharding<@mesh, [{"a" "b"}]>"#.parse::<SdySharding>().unwrap_err();
        assert_eq!(e.message, "expected ','");
        assert_eq!((e.offset, e.found.as_str()), (27, "`\"`"));
        let e = r#"<["a"=2"#.parse::<SdyMesh>().unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.found.as_str()),
            ("expected ','", "end of input")
        );
        let e = r#"<["a"=99999999999999999999]>"#.parse::<SdyMesh>().unwrap_err();
        assert_eq!(e.message, "integer 99999999999999999999 is out of range");
        let e = r#"#sdy.sharding<@m, [{}], replicated={}>"#.parse::<SdySharding>().unwrap_err();
        assert_eq!(e.message, "expected a non-empty axis list");
        let e = r#"#sdy.sharding<@m, [{"a\q"}]>"#.parse::<SdySharding>().unwrap_err();
        assert_eq!(e.message, "unknown escape in string literal");
    }

    #[test]
    fn odd_names_print_back_as_read() {
        let s: SdySharding = r#"<@"m x", [{"a\\b\0A"}]>"#.parse().unwrap();
        assert_eq!(s.to_string(), r#"#sdy.sharding<@"m x", [{"a\\b\0A"}]>"#);
        assert_eq!(s.to_string().parse::<SdySharding>().unwrap(), s);
    }

    #[test]
    fn escapes_and_priorities_are_read() {
        let s: SdySharding = r#"<@m, [{"a\22b"}p12, {?}]>"#.parse().unwrap();
        assert_eq!(s.dims[0].axes[0].name, "a\"b");
        assert_eq!(s.dims[0].priority, Some(12));
        assert!(!s.dims[1].closed);
    }
}
