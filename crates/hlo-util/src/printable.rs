//! Names from a module or a dump made safe to print on a terminal: a name
//! may hold any character (an HloProto's strings are arbitrary), and a raw
//! escape, carriage return or line feed would move the cursor, recolour
//! the terminal or forge a line of the report.

use std::borrow::Cow;

/// `text` with each control character (C0, DEL and C1: escape, bell,
/// carriage return, line feed, tab ...) written as Rust writes it in a
/// string literal (`\u{1b}`, `\u{7}`, `\r`, `\n`, `\t`); every other
/// character as it is, and `text` itself when it has none.
///
/// ```
/// assert_eq!(hlo_util::printable("add.1"), "add.1");
/// assert_eq!(hlo_util::printable("a\u{1b}[2J\r\nb"), "a\\u{1b}[2J\\r\\nb");
/// ```
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped_and_nothing_else() {
        assert!(matches!(
            printable("p\u{e9}.1 x"),
            Cow::Borrowed("p\u{e9}.1 x")
        ));
        assert_eq!(
            printable("\u{7}\u{1b}\t\u{7f}\u{9b}\\"),
            "\\u{7}\\u{1b}\\t\\u{7f}\\u{9b}\\"
        );
    }
}
