//! The sharding text parser's cursor over tokens, with the pieces both
//! grammars (tile-assignment and named shardings) read: integers, iota
//! device lists and metadata.

use schema::OpMetadata;

use crate::error::ParseError;
use crate::lex::{Token, describe};

pub(crate) struct Parser {
    pub(crate) tokens: Vec<(Token, usize)>,
    pub(crate) at: usize,
}

pub(crate) type Parsed<T> = Result<T, ParseError>;

impl Parser {
    pub(crate) fn peek(&self) -> &Token {
        &self.tokens[self.at.min(self.tokens.len() - 1)].0
    }

    pub(crate) fn bump(&mut self) {
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
    }

    pub(crate) fn error_at(&self, at: usize, message: impl Into<String>) -> ParseError {
        let index = at.min(self.tokens.len() - 1);
        let (token, offset) = &self.tokens[index];
        ParseError {
            message: message.into(),
            offset: *offset,
            found: describe(token),
        }
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.at, message)
    }

    pub(crate) fn eat(&mut self, c: u8) -> bool {
        if *self.peek() == Token::Punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect(&mut self, c: u8, message: &str) -> Parsed<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(message))
        }
    }

    pub(crate) fn int(&mut self) -> Parsed<i64> {
        match *self.peek() {
            Token::Int(v) => {
                self.bump();
                Ok(v)
            }
            _ => Err(self.error("expects integer")),
        }
    }

    pub(crate) fn int_list(&mut self) -> Parsed<Vec<i64>> {
        let mut out = vec![self.int()?];
        while self.eat(b',') {
            out.push(self.int()?);
        }
        Ok(out)
    }

    /// `[reshape]` or `[reshape]T(perm)` after `<=`.
    pub(crate) fn iota(&mut self) -> Parsed<(Vec<i64>, Vec<i64>)> {
        self.expect(b'[', "expected '[' to start sharding iota_reshape_dims")?;
        let reshape = self.int_list()?;
        self.expect(b']', "expected ']' to end sharding iota_reshape_dims")?;
        if reshape.len() == 1 {
            return Ok((reshape, vec![0]));
        }
        let message = "expected 'T(' to start sharding devices iota_transpose_perm";
        if *self.peek() != Token::Ident("T".to_string()) {
            return Err(self.error(message));
        }
        self.bump();
        self.expect(b'(', message)?;
        let rank = i64::try_from(reshape.len()).unwrap_or(i64::MAX);
        let mut perm = Vec::new();
        loop {
            let p = self.int()?;
            if !(0..rank).contains(&p) {
                return Err(self.error(format!(
                    "Out of range iota minor_to_major value {p}, expecting value in range [0, {rank})"
                )));
            }
            perm.push(p);
            if !self.eat(b',') {
                break;
            }
        }
        self.expect(
            b')',
            "expected ')' to end sharding devices iota_transpose_perm",
        )?;
        Ok((reshape, perm))
    }

    /// `{op_name="a"}` or `{{...}, {...}}` after `metadata=`.
    pub(crate) fn metadata_list(&mut self) -> Parsed<Vec<OpMetadata>> {
        let is_list = *self.peek() == Token::Punct(b'{')
            && self.tokens.get(self.at + 1).map(|t| &t.0) == Some(&Token::Punct(b'{'));
        if !is_list {
            return Ok(vec![self.metadata()?]);
        }
        self.bump();
        let mut out = Vec::new();
        if *self.peek() != Token::Punct(b'}') {
            loop {
                out.push(self.metadata()?);
                if !self.eat(b',') {
                    break;
                }
            }
        }
        self.expect(b'}', "expects '}' at the end of metadata list")?;
        Ok(out)
    }

    /// One `{name=value ...}`.
    fn metadata(&mut self) -> Parsed<OpMetadata> {
        self.expect(b'{', "expects '{' to start metadata")?;
        let mut m = OpMetadata::default();
        while *self.peek() != Token::Punct(b'}') {
            let Token::Attr(name) = self.peek().clone() else {
                return Err(self.error("expects attribute name"));
            };
            let name_at = self.at;
            self.bump();
            match name.as_str() {
                "op_type" => m.op_type = self.string()?,
                "op_name" => m.op_name = self.string()?,
                "source_file" => m.source_file = self.string()?,
                "deduplicated_name" => m.deduplicated_name = self.string()?,
                "scheduling_name" => m.scheduling_name = self.string()?,
                "source_line" => m.source_line = self.int32()?,
                "source_end_line" => m.source_end_line = self.int32()?,
                "source_column" => m.source_column = self.int32()?,
                "source_end_column" => m.source_end_column = self.int32()?,
                "stack_frame_id" => m.stack_frame_id = self.int32()?,
                "profile_type" | "metadata_payload" => {
                    return Err(
                        self.error(format!("metadata attribute \"{name}\" is not supported"))
                    );
                }
                _ => {
                    return Err(self.error_at(name_at, format!(
                        "unexpected attribute \"{name}\". Allowed attributes: deduplicated_name, metadata_payload, op_name, op_type, profile_type, scheduling_name, source_column, source_end_column, source_end_line, source_file, source_line, stack_frame_id"
                    )));
                }
            }
            self.eat(b',');
        }
        self.bump();
        Ok(m)
    }

    fn string(&mut self) -> Parsed<String> {
        match self.peek().clone() {
            Token::Str(s) => {
                self.bump();
                Ok(s)
            }
            _ => Err(self.error("expects string")),
        }
    }

    fn int32(&mut self) -> Parsed<i32> {
        let v = self.int()?;
        i32::try_from(v).map_err(|_| self.error(format!("value {v} out of range for int32")))
    }
}
