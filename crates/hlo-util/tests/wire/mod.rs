//! The protobuf wire format of what the tests build by hand.

#![allow(dead_code)]

/// Appends `n` as a varint.
pub fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends a length-delimited field.
pub fn bytes_field(number: u64, payload: &[u8], out: &mut Vec<u8>) {
    varint((number << 3) | 2, out);
    varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

/// Appends a varint field.
pub fn int_field(number: u64, value: u64, out: &mut Vec<u8>) {
    varint(number << 3, out);
    varint(value, out);
}
