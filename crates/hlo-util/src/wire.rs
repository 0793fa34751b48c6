//! The protobuf wire format, walked field by field: a message read from a
//! stream stops at its first byte that cannot start a field, and a large
//! message is taken apart one repeated field at a time instead of decoded
//! whole (prost builds every nested message at once: an `HloModuleProto`
//! of a million instructions would take more than a hundred times its
//! size).

use std::io::{BufRead, Read};
use std::ops::Range;

/// The largest message protobuf serializes (2 GiB less one byte).
const MAX_MESSAGE_BYTES: u64 = (1 << 31) - 1;

/// Why the bytes are not a message: where (a byte offset) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WireError {
    /// The offset of the offending byte from the start of the message.
    pub offset: u64,
    /// What is wrong there.
    pub message: String,
}

impl WireError {
    fn at(offset: u64, message: impl Into<String>) -> Self {
        Self {
            offset,
            message: message.into(),
        }
    }
}

/// One field's key: its number and wire type.
struct Key {
    number: u32,
    wire_type: u8,
}

/// Reads one message from `input` to its end, field by field: a key that
/// is no field's (number 0, a group or an unknown wire type) or a length
/// past protobuf's 2 GiB is an error as soon as it is read, not after the
/// rest of the input.
///
/// # Errors
///
/// [`WireError`] at the offending byte; an I/O error as its message.
pub(crate) fn read_message(mut input: impl BufRead) -> Result<Vec<u8>, WireError> {
    let mut bytes = Vec::new();
    loop {
        let start = bytes.len() as u64;
        let Some(key) = read_varint(&mut input, &mut bytes, start)? else {
            return Ok(bytes);
        };
        let key = key_of(key, start)?;
        let length = match key.wire_type {
            0 => {
                let at = bytes.len() as u64;
                read_varint(&mut input, &mut bytes, at)?
                    .ok_or_else(|| WireError::at(at, "the input ends inside a varint"))?;
                0
            }
            1 => 8,
            5 => 4,
            _ => {
                let at = bytes.len() as u64;
                read_varint(&mut input, &mut bytes, at)?
                    .ok_or_else(|| WireError::at(at, "the input ends before a length"))?
            }
        };
        let total = (bytes.len() as u64).saturating_add(length);
        if total > MAX_MESSAGE_BYTES {
            return Err(WireError::at(
                start,
                format!(
                    "field {} claims {length} bytes: the message would pass protobuf's \
                     {MAX_MESSAGE_BYTES}",
                    key.number
                ),
            ));
        }
        let read = (&mut input)
            .take(length)
            .read_to_end(&mut bytes)
            .map_err(|e| WireError::at(bytes.len() as u64, format!("cannot read: {e}")))?;
        if (read as u64) < length {
            return Err(WireError::at(
                start,
                format!(
                    "field {} claims {length} bytes but only {read} remain",
                    key.number
                ),
            ));
        }
    }
}

/// Takes the message `bytes` apart: the byte ranges of each occurrence of
/// field `number` (a repeated message field), and the message's other
/// fields, copied as they are (a message of their own).
///
/// # Errors
///
/// [`WireError`] at the first byte that is not a field, or a length past
/// the end.
pub(crate) fn split_field(
    bytes: &[u8],
    number: u32,
) -> Result<(Vec<Range<usize>>, Vec<u8>), WireError> {
    let mut ranges = Vec::new();
    let mut rest = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let key = key_of(varint_at(bytes, &mut at)?, start as u64)?;
        let end = match key.wire_type {
            0 => {
                varint_at(bytes, &mut at)?;
                at
            }
            1 => at.saturating_add(8),
            5 => at.saturating_add(4),
            _ => {
                let length = varint_at(bytes, &mut at)?;
                usize::try_from(length)
                    .ok()
                    .and_then(|l| at.checked_add(l))
                    .unwrap_or(usize::MAX)
            }
        };
        if end > bytes.len() {
            return Err(WireError::at(
                start as u64,
                format!(
                    "field {} runs past the end of the message ({} bytes)",
                    key.number,
                    bytes.len()
                ),
            ));
        }
        if key.number == number && key.wire_type == 2 {
            ranges.push(at..end);
        } else {
            rest.extend_from_slice(&bytes[start..end]);
        }
        at = end;
    }
    Ok((ranges, rest))
}

/// A key's field number and wire type, if it is one of a field.
fn key_of(key: u64, offset: u64) -> Result<Key, WireError> {
    let wire_type = (key & 7) as u8;
    let number = u32::try_from(key >> 3).unwrap_or(0);
    if number == 0 || number >= 1 << 29 {
        return Err(WireError::at(
            offset,
            format!("{key:#x} is not a field's key (field number {})", key >> 3),
        ));
    }
    if !matches!(wire_type, 0 | 1 | 2 | 5) {
        return Err(WireError::at(
            offset,
            format!("field {number} has wire type {wire_type}, which no field of XLA's has"),
        ));
    }
    Ok(Key { number, wire_type })
}

/// Reads a varint from `input`, appending its bytes to `bytes`; `None` at
/// the end of the input before its first byte.
fn read_varint(
    input: &mut impl BufRead,
    bytes: &mut Vec<u8>,
    offset: u64,
) -> Result<Option<u64>, WireError> {
    let mut value = 0_u64;
    for shift in (0..70).step_by(7) {
        let mut byte = [0_u8];
        let read = input
            .read(&mut byte)
            .map_err(|e| WireError::at(offset, format!("cannot read: {e}")))?;
        if read == 0 {
            if shift == 0 {
                return Ok(None);
            }
            return Err(WireError::at(offset, "the input ends inside a varint"));
        }
        bytes.push(byte[0]);
        if shift == 63 && byte[0] > 1 {
            break;
        }
        value |= u64::from(byte[0] & 0x7f) << shift;
        if byte[0] < 0x80 {
            return Ok(Some(value));
        }
    }
    Err(WireError::at(offset, "a varint longer than 10 bytes"))
}

/// The varint at `*at` in `bytes`, moving `*at` past it.
fn varint_at(bytes: &[u8], at: &mut usize) -> Result<u64, WireError> {
    let mut rest = bytes.get(*at..).unwrap_or_default();
    read_varint(&mut rest, &mut Vec::new(), *at as u64)?
        .ok_or_else(|| WireError::at(*at as u64, "the message ends inside a varint"))
        .inspect(|_| *at = bytes.len() - rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_read_to_its_end_and_garbage_stops_at_once() {
        // Field 1, a string "ab"; field 6, the varint 300.
        let message = [0x0a, 0x02, b'a', b'b', 0x30, 0xac, 0x02];
        assert_eq!(read_message(&message[..]), Ok(message.to_vec()));
        // Zeros: no field has number 0; only the first byte is read.
        let mut zeros = std::io::BufReader::with_capacity(1, std::io::repeat(0).take(1 << 40));
        assert_eq!(
            read_message(&mut zeros).unwrap_err(),
            WireError::at(0, "0x0 is not a field's key (field number 0)")
        );
        assert_eq!(zeros.get_ref().limit(), (1 << 40) - 1);
        assert_eq!(
            read_message(&[0x0a, 0x05, b'a'][..]).unwrap_err().message,
            "field 1 claims 5 bytes but only 1 remain"
        );
        assert_eq!(
            read_message(&[0x0b][..]).unwrap_err().message,
            "field 1 has wire type 3, which no field of XLA's has"
        );
        let huge = [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert!(
            read_message(&huge[..])
                .unwrap_err()
                .message
                .contains("protobuf's")
        );
    }

    #[test]
    fn a_repeated_field_is_taken_apart() {
        // Field 1 "x", field 2 twice, field 5 the varint 7.
        let message = [0x0a, 0x01, b'x', 0x12, 0x01, 0xaa, 0x28, 0x07, 0x12, 0x00];
        let (ranges, rest) = split_field(&message, 2).unwrap();
        assert_eq!(ranges, [5..6, 10..10]);
        assert_eq!(rest, [0x0a, 0x01, b'x', 0x28, 0x07]);
        assert_eq!(
            split_field(&[0x12, 0x09], 2).unwrap_err().message,
            "field 2 runs past the end of the message (2 bytes)"
        );
    }
}
