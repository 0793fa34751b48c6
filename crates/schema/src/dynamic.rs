//! Any message of the schema by name, as prost-reflect dynamic messages:
//! XLA's names of the classic-named types resolved, decoding with errors that
//! say where the bytes go wrong, encoding as XLA writes maps, and text format
//! with a depth limit.

use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};
use prost_reflect::{
    DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor, ReflectMessage,
};

use crate::map_order::holds_map;
use crate::proto_format::pool;
#[cfg(feature = "text-format")]
use crate::proto_format::{MAX_TEXT_FORMAT_DEPTH, too_deep};
use crate::{CLASSIC_NAMES, FormatError};

/// The deepest nesting of messages that [`decode_message`] and
/// [`encode_message`] follow: protobuf's own recursion limit, which prost
/// shares.
const MAX_WIRE_DEPTH: usize = 100;

/// The schema's descriptor pool ([`crate::FILE_DESCRIPTOR_SET`], decoded once).
///
/// # Errors
///
/// [`FormatError::Descriptor`] if the embedded descriptor set is unusable (a
/// build defect).
pub fn descriptor_pool() -> Result<&'static DescriptorPool, FormatError> {
    pool()
}

/// The message called `name`: a full name such as `xla.OpSharding` or
/// `xla.OpMetadata.ProfileInfo`, where XLA's current names of the classic
/// types (`xla.ShapeProto`, ...; see [`CLASSIC_NAMES`]) stand for ours.
///
/// ```
/// let shape = schema::message_descriptor("xla.ShapeProto").unwrap();
/// assert_eq!(shape.full_name(), "xla.Shape");
/// let error = schema::message_descriptor("OpSharding").unwrap_err();
/// assert!(error.to_string().contains("did you mean xla.OpSharding?"));
/// ```
///
/// # Errors
///
/// [`FormatError::NotAMessage`] if no message of the schema has that name,
/// with a suggestion when a name differs only in case or in the `xla.`
/// prefix.
pub fn message_descriptor(name: &str) -> Result<MessageDescriptor, FormatError> {
    let pool = pool()?;
    let ours = CLASSIC_NAMES
        .iter()
        .find(|(_, xla)| *xla == name)
        .map_or(name, |(ours, _)| ours);
    if let Some(descriptor) = pool.get_message_by_name(ours) {
        return Ok(descriptor);
    }
    let wanted = name.trim_start_matches("xla.").to_ascii_lowercase();
    let suggestion = message_names()?
        .into_iter()
        .find(|candidate| candidate.trim_start_matches("xla.").to_ascii_lowercase() == wanted);
    Err(FormatError::NotAMessage {
        name: name.to_string(),
        suggestion,
    })
}

/// The full names of every message of the schema (nested ones included, map
/// entries left out), sorted, with XLA's names of the classic types beside
/// ours.
///
/// ```
/// let names = schema::message_names().unwrap();
/// assert!(names.contains(&"xla.OpSharding".to_string()));
/// assert!(names.contains(&"xla.Shape".to_string()));
/// assert!(names.contains(&"xla.ShapeProto".to_string()));
/// ```
///
/// # Errors
///
/// [`FormatError::Descriptor`] if the embedded descriptor set is unusable.
pub fn message_names() -> Result<Vec<String>, FormatError> {
    let mut names: Vec<String> = pool()?
        .all_messages()
        .filter(|m| !m.is_map_entry())
        .map(|m| m.full_name().to_string())
        .chain(CLASSIC_NAMES.iter().map(|(_, xla)| (*xla).to_string()))
        .collect();
    names.sort();
    Ok(names)
}

/// Decodes `bytes` as a `descriptor` message. Fields the schema does not
/// know are kept (and written back by [`encode_message`]).
///
/// ```
/// let window = schema::message_descriptor("xla.Window").unwrap();
/// let message = schema::decode_message(&window, &[0x0a, 0x02, 0x08, 0x03]).unwrap();
/// assert_eq!(message.to_text_format(), "dimensions:[{size:3}]");
/// let error = schema::decode_message(&window, &[0x0a, 0x05, 0x08]).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "invalid xla.Window message (3 bytes): at byte 0, field dimensions (1) \
///      claims 5 bytes but only 1 remain"
/// );
/// ```
///
/// # Errors
///
/// [`FormatError::Decode`] naming the byte offset and the sizes where the
/// bytes are not a valid message of that type.
pub fn decode_message(
    descriptor: &MessageDescriptor,
    bytes: &[u8],
) -> Result<DynamicMessage, FormatError> {
    DynamicMessage::decode(descriptor.clone(), bytes).map_err(|error| FormatError::Decode {
        message: descriptor.full_name().to_string(),
        size: bytes.len(),
        reason: diagnose(descriptor, bytes, 0, 0)
            .err()
            .unwrap_or_else(|| error.to_string()),
    })
}

/// Encodes `message` as XLA does: fields in field-number order, and every
/// map entry with both its key and its value, entries in key order (prost
/// and prost-reflect leave a default key or value out of the entry, and
/// prost-reflect writes a map in no fixed order).
///
/// ```
/// let attributes = schema::message_descriptor("xla.FrontendAttributes").unwrap();
/// let xla = b"\x0a\x05\x0a\x01a\x12\x00\x0a\x06\x0a\x01b\x12\x012";
/// let message = schema::decode_message(&attributes, xla).unwrap();
/// assert_eq!(schema::encode_message(&message), xla);
/// ```
pub fn encode_message(message: &DynamicMessage) -> Vec<u8> {
    let bytes = message.encode_to_vec();
    let descriptor = message.descriptor();
    if holds_map(&descriptor) {
        // The bytes come from prost-reflect, so they parse; the fallback
        // is never taken.
        if let Ok(canonical) = with_full_map_entries(&descriptor, &bytes, 0) {
            return canonical;
        }
    }
    bytes
}

/// Parses protobuf text format as a `descriptor` message.
///
/// ```
/// let sharding = schema::message_descriptor("xla.OpSharding").unwrap();
/// let message = schema::parse_text_format(&sharding, "type: MAXIMAL tile_assignment_devices: 3").unwrap();
/// assert_eq!(schema::encode_message(&message), [0x08, 0x01, 0x22, 0x01, 0x03]);
/// ```
///
/// # Errors
///
/// [`FormatError::TooDeep`] beyond [`MAX_TEXT_FORMAT_DEPTH`] levels, and
/// [`FormatError::TextFormat`] for what the parser rejects.
#[cfg(feature = "text-format")]
pub fn parse_text_format(
    descriptor: &MessageDescriptor,
    text: &str,
) -> Result<DynamicMessage, FormatError> {
    let message = descriptor.full_name().to_string();
    if let Some(offset) = too_deep(text) {
        return Err(FormatError::TooDeep {
            message,
            offset,
            limit: MAX_TEXT_FORMAT_DEPTH,
        });
    }
    DynamicMessage::parse_text_format(descriptor.clone(), text).map_err(|e| {
        FormatError::TextFormat {
            message,
            reason: e.to_string(),
        }
    })
}

/// One field on the wire: its number, wire type, the offset of its tag,
/// and its payload (the bytes after a length prefix; the value bytes of
/// other wire types).
struct WireField<'a> {
    number: u32,
    wire_type: u8,
    offset: usize,
    raw: &'a [u8],
    payload: &'a [u8],
}

/// Reads a varint at `pos`: its value and the position after it.
fn varint(bytes: &[u8], pos: usize, base: usize) -> Result<(u64, usize), String> {
    let mut value = 0_u64;
    for i in 0..10 {
        let Some(&byte) = bytes.get(pos + i) else {
            return Err(format!(
                "at byte {}, the varint runs past the end of the message",
                base + pos
            ));
        };
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Ok((value, pos + i + 1));
        }
    }
    Err(format!(
        "at byte {}, a varint is longer than 10 bytes",
        base + pos
    ))
}

/// The fields of `bytes` in order; an error names the first malformed one.
/// `base` is the offset of `bytes` in the outermost message.
fn wire_fields<'a>(
    descriptor: &MessageDescriptor,
    bytes: &'a [u8],
    base: usize,
) -> Result<Vec<WireField<'a>>, String> {
    let mut fields = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let offset = pos;
        let (key, after_key) = varint(bytes, pos, base)?;
        let number = u32::try_from(key >> 3).unwrap_or(u32::MAX);
        let wire_type = (key & 7) as u8;
        if number == 0 || number > 536_870_911 {
            return Err(format!(
                "at byte {}, field number {} is out of range (1 to 536870911)",
                base + offset,
                key >> 3
            ));
        }
        let name = descriptor.get_field(number).map_or_else(
            || format!("{number} (unknown)"),
            |f| format!("{} ({number})", f.name()),
        );
        let (start, end) = match wire_type {
            0 => (after_key, varint(bytes, after_key, base)?.1),
            1 | 5 => {
                let size = if wire_type == 1 { 8 } else { 4 };
                (after_key, after_key + size)
            }
            2 => {
                let (length, start) = varint(bytes, after_key, base)?;
                let remaining = bytes.len() - start;
                if length > remaining as u64 {
                    return Err(format!(
                        "at byte {}, field {name} claims {length} bytes but only {remaining} remain",
                        base + offset
                    ));
                }
                (start, start + length as usize)
            }
            _ => {
                return Err(format!(
                    "at byte {}, field {name} has wire type {wire_type}, which proto3 messages do not use",
                    base + offset
                ));
            }
        };
        if end > bytes.len() {
            return Err(format!(
                "at byte {}, field {name} needs {} bytes but only {} remain",
                base + offset,
                end - start,
                bytes.len() - start
            ));
        }
        fields.push(WireField {
            number,
            wire_type,
            offset,
            raw: &bytes[offset..end],
            payload: &bytes[start..end],
        });
        pos = end;
    }
    Ok(fields)
}

/// The wire type a field of this kind has when not packed.
fn wire_type_of(kind: &Kind) -> u8 {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => 1,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => 5,
        Kind::String | Kind::Bytes | Kind::Message(_) => 2,
        _ => 0,
    }
}

/// Explains why `bytes` is not a valid `descriptor` message: the first
/// malformed field, at any depth. `Ok` if no reason is found.
fn diagnose(
    descriptor: &MessageDescriptor,
    bytes: &[u8],
    base: usize,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_WIRE_DEPTH {
        return Err(format!(
            "at byte {base}, messages are nested deeper than {MAX_WIRE_DEPTH} levels"
        ));
    }
    for field in wire_fields(descriptor, bytes, base)? {
        let Some(known) = descriptor.get_field(field.number) else {
            continue;
        };
        let at = base + field.offset;
        let kind = known.kind();
        let expected = wire_type_of(&kind);
        let packed = field.wire_type == 2 && known.is_list() && expected != 2;
        if field.wire_type != expected && !packed {
            return Err(format!(
                "at byte {at}, field {} ({}) has wire type {}, expected {expected}",
                known.name(),
                field.number,
                field.wire_type
            ));
        }
        let payload_base = base + field.offset + (field.raw.len() - field.payload.len());
        match kind {
            Kind::Message(inner) if field.wire_type == 2 => {
                diagnose(&inner, field.payload, payload_base, depth + 1)?;
            }
            Kind::String if std::str::from_utf8(field.payload).is_err() => {
                return Err(format!(
                    "at byte {at}, field {} ({}) is not valid UTF-8",
                    known.name(),
                    field.number
                ));
            }
            _ if packed => {
                let size = match expected {
                    1 => 8,
                    5 => 4,
                    _ => 0,
                };
                if size > 0 && field.payload.len() % size != 0 {
                    return Err(format!(
                        "at byte {at}, packed field {} ({}) has {} bytes, not a multiple of {size}",
                        known.name(),
                        field.number,
                        field.payload.len()
                    ));
                }
                let mut pos = 0;
                while size == 0 && pos < field.payload.len() {
                    pos = varint(field.payload, pos, payload_base)?.1;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `bytes` (a `descriptor` message) with every map entry written in full
/// and the entries of each map in key order.
fn with_full_map_entries(
    descriptor: &MessageDescriptor,
    bytes: &[u8],
    depth: usize,
) -> Result<Vec<u8>, String> {
    if depth > MAX_WIRE_DEPTH {
        return Err(format!(
            "messages nested deeper than {MAX_WIRE_DEPTH} levels"
        ));
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut entries: Vec<(Option<prost_reflect::MapKey>, Vec<u8>)> = Vec::new();
    let mut map_number = 0;
    for field in wire_fields(descriptor, bytes, 0)? {
        let known = descriptor.get_field(field.number);
        if map_number != field.number {
            flush(&mut entries, map_number, &mut out);
        }
        match known {
            Some(map) if map.is_map() && field.wire_type == 2 => {
                map_number = field.number;
                entries.push(full_entry(&map, field.payload, depth)?);
            }
            Some(f) if field.wire_type == 2 && matches!(f.kind(), Kind::Message(_)) => {
                let Kind::Message(inner) = f.kind() else {
                    continue;
                };
                let nested = with_full_map_entries(&inner, field.payload, depth + 1)?;
                encode_key(field.number, WireType::LengthDelimited, &mut out);
                encode_varint(nested.len() as u64, &mut out);
                out.extend_from_slice(&nested);
            }
            _ => out.extend_from_slice(field.raw),
        }
    }
    flush(&mut entries, map_number, &mut out);
    Ok(out)
}

/// Writes the collected entries of map field `number`, in key order.
fn flush(
    entries: &mut Vec<(Option<prost_reflect::MapKey>, Vec<u8>)>,
    number: u32,
    out: &mut Vec<u8>,
) {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, entry) in entries.drain(..) {
        encode_key(number, WireType::LengthDelimited, out);
        encode_varint(entry.len() as u64, out);
        out.extend_from_slice(&entry);
    }
}

/// One map entry with its key and value both present (a missing one written
/// as its default), and its key for sorting.
fn full_entry(
    map: &FieldDescriptor,
    bytes: &[u8],
    depth: usize,
) -> Result<(Option<prost_reflect::MapKey>, Vec<u8>), String> {
    let Kind::Message(entry) = map.kind() else {
        return Err(format!("map field {} has no entry type", map.name()));
    };
    let mut key = None;
    let mut value = None;
    for field in wire_fields(&entry, bytes, 0)? {
        match field.number {
            1 => key = Some(field.raw.to_vec()),
            2 => {
                let value_field = entry.map_entry_value_field();
                value = Some(match value_field.kind() {
                    Kind::Message(inner) if field.wire_type == 2 => {
                        let nested = with_full_map_entries(&inner, field.payload, depth + 1)?;
                        let mut out = Vec::new();
                        encode_key(2, WireType::LengthDelimited, &mut out);
                        encode_varint(nested.len() as u64, &mut out);
                        out.extend_from_slice(&nested);
                        out
                    }
                    _ => field.raw.to_vec(),
                });
            }
            _ => {}
        }
    }
    let key = key.unwrap_or_else(|| default_field(&entry.map_entry_key_field()));
    let value = value.unwrap_or_else(|| default_field(&entry.map_entry_value_field()));
    let sort_key = DynamicMessage::decode(entry.clone(), key.as_slice())
        .ok()
        .and_then(|m| m.get_field_by_number(1).map(|v| v.into_owned()))
        .and_then(prost_reflect::Value::into_map_key);
    Ok((sort_key, [key, value].concat()))
}

/// Field `field` holding its default value, tag included.
fn default_field(field: &FieldDescriptor) -> Vec<u8> {
    let wire_type = wire_type_of(&field.kind());
    let mut out = Vec::new();
    encode_varint(
        u64::from(field.number()) << 3 | u64::from(wire_type),
        &mut out,
    );
    let zeros = match wire_type {
        1 => 8,
        5 => 4,
        _ => 1,
    };
    out.resize(out.len() + zeros, 0);
    out
}
