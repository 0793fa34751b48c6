//! The quoted strings XLA prints in module text (`CEscape`d): `\"`, `\'`,
//! `\\`, `\n`, `\t`, `\r`, octal `\ooo` and hex `\xhh` escapes.

/// The text of the string that starts with the `"` at the start of
/// `text`, unescaped, and the rest of `text` after its closing `"`; none
/// when `text` does not start with a whole string.
pub(crate) fn quoted(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len().min(256));
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let rest = body.get(i + 1..)?;
                return Some((String::from_utf8_lossy(&out).into_owned(), rest));
            }
            b'\\' => {
                let e = *bytes.get(i + 1)?;
                i += 2;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'0'..=b'7' => {
                        let mut value = u32::from(e - b'0');
                        for _ in 0..2 {
                            match bytes.get(i) {
                                Some(&d @ b'0'..=b'7') => {
                                    value = value * 8 + u32::from(d - b'0');
                                    i += 1;
                                }
                                _ => break,
                            }
                        }
                        out.push(u8::try_from(value & 0xff).unwrap_or(0));
                    }
                    b'x' => {
                        let mut value = 0_u32;
                        let mut digits = 0;
                        while let Some(d) = bytes.get(i).and_then(|&d| char::from(d).to_digit(16)) {
                            if digits == 2 {
                                break;
                            }
                            value = value * 16 + d;
                            digits += 1;
                            i += 1;
                        }
                        out.push(u8::try_from(value).unwrap_or(0));
                    }
                    other => out.push(other),
                }
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn escapes_read_as_xla_writes_them() {
        let (s, rest) = quoted(r#""args[0][\'w1\'] \"q\" \\ \101\x42\n" tail"#).unwrap();
        assert_eq!(s, "args[0]['w1'] \"q\" \\ AB\n");
        assert_eq!(rest, " tail");
        assert_eq!(quoted(r#""open"#), None);
        assert_eq!(quoted("x"), None);
        assert_eq!(quoted(r#""ü""#).unwrap().0, "ü");
    }
}
