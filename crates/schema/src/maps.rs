//! The three messages of `xla_data.proto` with a `map` field, written by hand
//! so that they encode as XLA (C++ protobuf) does: each map entry carries its
//! key and its value even when one of them is the default (`""`, `0`, an
//! empty message), and the entries come in key order. prost's derived code
//! leaves default keys and values out of an entry, so XLA's bytes for
//! `{"empty": ""}` (`0a09 0a05 656d707479 1200`) would come back two bytes
//! shorter. Decoding accepts either form. The layout of the types is the one
//! prost would generate (`BTreeMap` fields).

use std::collections::BTreeMap;

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, btree_map, encode_key, encode_varint, encoded_len_varint, int64,
    key_len, message, skip_field, string,
};
use prost::{DecodeError, Message, Name};

use crate::GemmPerfTableEntryValues;

/// Key-value attributes that a front end attaches to an operation and that
/// XLA carries along without interpreting (XLA's `FrontendAttributes`).
///
/// ```
/// use schema::Message;
///
/// let mut attributes = schema::FrontendAttributes::default();
/// attributes.map.insert("empty".into(), String::new());
/// // As XLA writes it: the empty value is in the entry.
/// assert_eq!(attributes.encode_to_vec(), b"\x0a\x09\x0a\x05empty\x12\x00");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct FrontendAttributes {
    /// The attributes.
    pub map: BTreeMap<String, String>,
}

/// Measured throughput of a matrix multiplication of one size (XLA's
/// `GemmPerfTableEntry`).
#[derive(Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct GemmPerfTableEntry {
    /// The batch size.
    pub b: i64,
    /// Rows of the result.
    pub m: i64,
    /// Columns of the result.
    pub n: i64,
    /// The contracted size.
    pub k: i64,
    /// Measured operation rates, each under its name.
    pub flops: BTreeMap<String, i64>,
}

/// Measured matrix-multiplication throughput tables (XLA's `GemmPerfTable`).
#[derive(Clone, PartialEq, Default, Debug)]
pub struct GemmPerfTable {
    /// The measurement sets, each under its name.
    pub entries: BTreeMap<String, GemmPerfTableEntryValues>,
}

/// The length of one map entry holding a key and a value of these lengths
/// (each with its tag), with the entry's own tag and length prefix.
fn entry_len(tag: u32, key_and_value: usize) -> usize {
    key_len(tag) + encoded_len_varint(key_and_value as u64) + key_and_value
}

/// The tag and length prefix of one map entry.
fn entry_header(tag: u32, key_and_value: usize, buf: &mut impl BufMut) {
    encode_key(tag, WireType::LengthDelimited, buf);
    encode_varint(key_and_value as u64, buf);
}

impl Message for FrontendAttributes {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for (key, value) in &self.map {
            entry_header(
                1,
                string::encoded_len(1, key) + string::encoded_len(2, value),
                buf,
            );
            string::encode(1, key, buf);
            string::encode(2, value, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => btree_map::merge(string::merge, string::merge, &mut self.map, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.map
            .iter()
            .map(|(key, value)| {
                entry_len(
                    1,
                    string::encoded_len(1, key) + string::encoded_len(2, value),
                )
            })
            .sum()
    }

    fn clear(&mut self) {
        self.map.clear();
    }
}

impl Message for GemmPerfTableEntry {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for (tag, value) in [(1, self.b), (2, self.m), (3, self.n), (4, self.k)] {
            if value != 0 {
                int64::encode(tag, &value, buf);
            }
        }
        for (key, value) in &self.flops {
            entry_header(
                5,
                string::encoded_len(1, key) + int64::encoded_len(2, value),
                buf,
            );
            string::encode(1, key, buf);
            int64::encode(2, value, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => int64::merge(wire_type, &mut self.b, buf, ctx),
            2 => int64::merge(wire_type, &mut self.m, buf, ctx),
            3 => int64::merge(wire_type, &mut self.n, buf, ctx),
            4 => int64::merge(wire_type, &mut self.k, buf, ctx),
            5 => btree_map::merge(string::merge, int64::merge, &mut self.flops, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let scalars: usize = [(1, self.b), (2, self.m), (3, self.n), (4, self.k)]
            .into_iter()
            .filter(|&(_, value)| value != 0)
            .map(|(tag, value)| int64::encoded_len(tag, &value))
            .sum();
        let flops: usize = self
            .flops
            .iter()
            .map(|(key, value)| {
                entry_len(
                    5,
                    string::encoded_len(1, key) + int64::encoded_len(2, value),
                )
            })
            .sum();
        scalars + flops
    }

    fn clear(&mut self) {
        *self = Self::default();
    }
}

impl Message for GemmPerfTable {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for (key, value) in &self.entries {
            entry_header(
                1,
                string::encoded_len(1, key) + message::encoded_len(2, value),
                buf,
            );
            string::encode(1, key, buf);
            message::encode(2, value, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => btree_map::merge(string::merge, message::merge, &mut self.entries, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.entries
            .iter()
            .map(|(key, value)| {
                entry_len(
                    1,
                    string::encoded_len(1, key) + message::encoded_len(2, value),
                )
            })
            .sum()
    }

    fn clear(&mut self) {
        self.entries.clear();
    }
}

/// `impl Name` for a message of package `xla`.
macro_rules! xla_name {
    ($($type:ident),*) => {$(
        impl Name for $type {
            const NAME: &'static str = stringify!($type);
            const PACKAGE: &'static str = "xla";
            fn full_name() -> String {
                concat!("xla.", stringify!($type)).into()
            }
            fn type_url() -> String {
                concat!("/xla.", stringify!($type)).into()
            }
        }
    )*};
}

xla_name!(FrontendAttributes, GemmPerfTableEntry, GemmPerfTable);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_default_keys_and_values_and_decode_either_form() {
        let mut table = GemmPerfTable::default();
        table
            .entries
            .insert(String::new(), GemmPerfTableEntryValues::default());
        // Key "" and an empty message, both written.
        assert_eq!(table.encode_to_vec(), [0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00]);
        assert_eq!(table.encoded_len(), 6);
        // prost's form (defaults left out) decodes to the same map.
        assert_eq!(GemmPerfTable::decode(&[0x0a, 0x00][..]).unwrap(), table);

        let mut entry = GemmPerfTableEntry {
            m: 3,
            ..Default::default()
        };
        entry.flops.insert("f32".into(), 0);
        let bytes = entry.encode_to_vec();
        assert_eq!(bytes, b"\x10\x03\x2a\x07\x0a\x03f32\x10\x00");
        assert_eq!(entry.encoded_len(), bytes.len());
        assert_eq!(GemmPerfTableEntry::decode(bytes.as_slice()).unwrap(), entry);

        let mut attributes = FrontendAttributes::default();
        attributes.map.insert("b".into(), "2".into());
        attributes.map.insert("a".into(), String::new());
        let bytes = attributes.encode_to_vec();
        assert_eq!(
            bytes,
            b"\x0a\x05\x0a\x01a\x12\x00\x0a\x06\x0a\x01b\x12\x012"
        );
        assert_eq!(attributes.encoded_len(), bytes.len());
        assert_eq!(
            FrontendAttributes::decode(bytes.as_slice()).unwrap(),
            attributes
        );
        assert_eq!(FrontendAttributes::full_name(), "xla.FrontendAttributes");
    }
}
