//! Sizes as XLA holds them (`int64`): read from a dump, checked, and summed
//! without passing `i64::MAX`.

/// The most bytes a size or a sum of sizes may be: XLA's sizes are `int64`.
pub(crate) const MAX_BYTES: u64 = i64::MAX.unsigned_abs();

/// `a + b`, none past [`MAX_BYTES`].
pub(crate) fn add_bytes(a: u64, b: u64) -> Option<u64> {
    a.checked_add(b).filter(|&sum| sum <= MAX_BYTES)
}

/// A size or an offset written in a dump: a decimal number from 0 to
/// `i64::MAX`; the error says what `what` holds instead.
pub(crate) fn parse_bytes(text: &str, what: &str) -> Result<u64, String> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} `{text}` is not a number"));
    }
    if text.starts_with('-') {
        return Err(format!("{what} {text} is negative"));
    }
    text.parse::<u64>()
        .ok()
        .filter(|&n| n <= MAX_BYTES)
        .ok_or_else(|| format!("{what} {text} is beyond i64"))
}

/// Whether `size` bytes at `offset` lie inside an allocation of
/// `allocation` bytes.
pub(crate) fn inside(offset: u64, size: u64, allocation: u64) -> bool {
    offset
        .checked_add(size)
        .is_some_and(|end| end <= allocation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_checked() {
        assert_eq!(parse_bytes("8192", "size"), Ok(8192));
        assert_eq!(
            parse_bytes("-8192", "size"),
            Err("size -8192 is negative".to_owned())
        );
        assert_eq!(
            parse_bytes("18446744073709551616", "size"),
            Err("size 18446744073709551616 is beyond i64".to_owned())
        );
        assert_eq!(
            parse_bytes("9223372036854775808", "offset"),
            Err("offset 9223372036854775808 is beyond i64".to_owned())
        );
        assert_eq!(
            parse_bytes("8k", "size"),
            Err("size `8k` is not a number".to_owned())
        );
        assert_eq!(add_bytes(MAX_BYTES, 0), Some(MAX_BYTES));
        assert_eq!(add_bytes(MAX_BYTES, 1), None);
        assert!(inside(4096, 4096, 8192) && !inside(1 << 40, 4, 8192));
        assert!(!inside(u64::MAX, 2, u64::MAX));
    }
}
