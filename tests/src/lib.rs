//! Shared helpers of the conformance tests (`tests/*.rs`): loading the golden
//! files in `tests/golden/` (JSON Lines written from real XLA by
//! `build-tools/gen_golden.py`), hex conversion, and a tally that reports
//! every failing case at once.

#![forbid(unsafe_code)]

use std::path::PathBuf;

use serde_json::{Map, Value};

/// One golden row: a JSON object.
pub type Row = Map<String, Value>;

/// The directory of the golden files.
pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden")
}

/// The rows of `tests/golden/<name>`, in file order.
///
/// # Errors
///
/// A message naming the file and line if it cannot be read or a line is not
/// a JSON object.
pub fn load(name: &str) -> Result<Vec<Row>, String> {
    let path = golden_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| match serde_json::from_str(line) {
            Ok(Value::Object(row)) => Ok(row),
            Ok(_) => Err(format!("{name}:{}: not a JSON object", i + 1)),
            Err(e) => Err(format!("{name}:{}: {e}", i + 1)),
        })
        .collect()
}

/// The string field `key` of `row`; `None` if it is absent or not a string.
pub fn field<'a>(row: &'a Row, key: &str) -> Option<&'a str> {
    row.get(key).and_then(Value::as_str)
}

/// The string field `key` of `row`, or an error naming the missing field.
///
/// # Errors
///
/// If the field is absent or not a string.
pub fn required<'a>(row: &'a Row, key: &str) -> Result<&'a str, String> {
    field(row, key).ok_or_else(|| format!("row has no string field `{key}`"))
}

/// Decodes lowercase or uppercase hex.
///
/// ```
/// assert_eq!(conformance::hex_decode("100b2a03"), Ok(vec![0x10, 0x0b, 0x2a, 0x03]));
/// assert!(conformance::hex_decode("1").is_err());
/// assert!(conformance::hex_decode("zz").is_err());
/// ```
///
/// # Errors
///
/// If the length is odd or a character is not a hex digit.
pub fn hex_decode(hex: &str) -> Result<Vec<u8>, String> {
    if !hex.len().is_multiple_of(2) {
        return Err(format!("odd-length hex: {hex}"));
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(format!("not a hex digit: {:?}", char::from(c))),
    };
    hex.as_bytes()
        .chunks_exact(2)
        .map(|pair| Ok(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// Encodes bytes as lowercase hex, as the golden files write them.
///
/// ```
/// assert_eq!(conformance::hex_encode(&[0x10, 0x0b, 0xff]), "100bff");
/// ```
pub fn hex_encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The tally of one golden set: counts passes, keeps every failure, and
/// prints `<name>: P/N cases passed` when finished.
#[derive(Debug)]
pub struct Tally {
    name: String,
    passed: usize,
    failures: Vec<String>,
    deviations: Vec<String>,
}

impl Tally {
    /// An empty tally for the golden set `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            passed: 0,
            failures: Vec::new(),
            deviations: Vec::new(),
        }
    }

    /// Records the outcome of the case described by `case`.
    pub fn record(&mut self, case: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(why) => self.failures.push(format!("{case}: {why}")),
        }
    }

    /// Records the outcome of a case with a known, documented deviation
    /// from XLA or numpy (`why`, listed in `build-tools/README.md`): a
    /// failure is counted as a deviation, not a failure; a pass is a pass.
    pub fn record_deviation(&mut self, case: &str, outcome: Result<(), String>, why: &str) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(got) => self.deviations.push(format!("{case}: {got} ({why})")),
        }
    }

    /// Prints the summary line, the deviations and the first 20 failures;
    /// returns whether every case passed or is a known deviation.
    #[must_use]
    pub fn finish(self) -> bool {
        let total = self.passed + self.failures.len() + self.deviations.len();
        if self.deviations.is_empty() {
            println!("{}: {}/{total} cases passed", self.name, self.passed);
        } else {
            println!(
                "{}: {}/{total} cases passed, {} known deviations",
                self.name,
                self.passed,
                self.deviations.len()
            );
        }
        for deviation in &self.deviations {
            println!("  DEVIATION {deviation}");
        }
        for failure in self.failures.iter().take(20) {
            println!("  FAIL {failure}");
        }
        self.failures.is_empty() && self.passed > 0
    }
}

/// The array of integers `key` of `row`.
///
/// # Errors
///
/// If the field is absent or not an array of integers.
pub fn ints(row: &Row, key: &str) -> Result<Vec<i64>, String> {
    row.get(key)
        .and_then(Value::as_array)
        .and_then(|values| values.iter().map(Value::as_i64).collect())
        .ok_or_else(|| format!("row has no integer array `{key}`"))
}

/// The integer field `key` of `row`.
///
/// # Errors
///
/// If the field is absent or not an integer.
pub fn int(row: &Row, key: &str) -> Result<i64, String> {
    row.get(key)
        .and_then(Value::as_i64)
        .ok_or_else(|| format!("row has no integer field `{key}`"))
}

/// Checks that `actual == expected`, describing the difference otherwise.
///
/// # Errors
///
/// `what: got .., want ..` if they differ.
pub fn same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    actual: T,
    expected: T,
) -> Result<(), String> {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: got {actual:?}, want {expected:?}"))
    }
}

/// The protobuf base-128 varint of `value`, for hand-built messages.
///
/// ```
/// assert_eq!(conformance::varint(300), [0xac, 0x02]);
/// ```
pub fn varint(mut value: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    while value >= 0x80 {
        bytes.push((value & 0x7f) as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
    bytes
}

/// A length-delimited protobuf field: the key byte, the length of
/// `contents` as a varint, then `contents`.
///
/// ```
/// assert_eq!(conformance::length_delimited(0x22, &[8, 1]), [0x22, 2, 8, 1]);
/// ```
pub fn length_delimited(key: u8, contents: &[u8]) -> Vec<u8> {
    let mut bytes = vec![key];
    bytes.extend(varint(contents.len() as u64));
    bytes.extend_from_slice(contents);
    bytes
}

/// The ShapeProto bytes of `depth` tuples nested around an `f32[]`, as XLA
/// would write them (`element_type` = field 2, `tuple_shapes` = field 4;
/// F32 = 11, TUPLE = 13 in `proto/xla_data.proto`).
///
/// ```
/// assert_eq!(conformance::nested_tuple_bytes(1), [0x10, 13, 0x22, 2, 0x10, 11]);
/// ```
pub fn nested_tuple_bytes(depth: usize) -> Vec<u8> {
    const ELEMENT_TYPE: u8 = 2 << 3;
    const TUPLE_SHAPES: u8 = 4 << 3 | 2;
    let mut bytes = vec![ELEMENT_TYPE, 11];
    for _ in 0..depth {
        let mut outer = vec![ELEMENT_TYPE, 13];
        outer.extend(length_delimited(TUPLE_SHAPES, &bytes));
        bytes = outer;
    }
    bytes
}

/// Runs `f` on a thread with a 2 MiB stack (the default for test threads),
/// so that a test proves its input cannot overflow an ordinary stack; a
/// panic in `f` fails the caller.
///
/// ```
/// conformance::on_small_stack(|| assert_eq!(1 + 1, 2));
/// ```
#[allow(clippy::unwrap_used)]
pub fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// The README's Rust example, compiled and run by `cargo test` as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The example of each published crate's README (shown on crates.io), run
/// as doctests.
#[cfg(doctest)]
pub mod crate_readmes {
    /// `xla-schema`.
    #[doc = include_str!("../../crates/schema/README.md")]
    pub struct Schema;
    /// `layout-util`.
    #[doc = include_str!("../../crates/layout-util/README.md")]
    pub struct LayoutUtil;
    /// `index-util`.
    #[doc = include_str!("../../crates/index-util/README.md")]
    pub struct IndexUtil;
    /// `shape-util`.
    #[doc = include_str!("../../crates/shape-util/README.md")]
    pub struct ShapeUtil;
    /// `stride-util`.
    #[doc = include_str!("../../crates/stride-util/README.md")]
    pub struct StrideUtil;
    /// `literal-util`.
    #[doc = include_str!("../../crates/literal-util/README.md")]
    pub struct LiteralUtil;
}
