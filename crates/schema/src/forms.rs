//! A message in the forms a person or a program reads: XLA's human string,
//! its serialized bytes in hex, and protobuf text format. `Serialize` gives
//! the fields in the order listed (`Deserialize` reads them back); `Display`
//! the form a person reads first.

use std::fmt;

use prost::Message;
use prost_reflect::DynamicMessage;
use serde::{Deserialize, Serialize};

use crate::{FormatError, ProtoFormat, Shape, encode_message};

/// A shape's human string (with or without its layout) and the hex of its
/// serialized `Shape` message.
///
/// ```
/// let shape: schema::Shape = "f32[2]{0}".parse().unwrap();
/// let forms = schema::ShapeStrings::new(&shape, false);
/// assert_eq!(forms.to_string(), "f32[2]");
/// assert_eq!(forms.hex, "100b1a01022a060a0100800101320100");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeStrings {
    /// XLA's `HumanStringWithLayout`, or `HumanString` without the layout.
    pub shape: String,
    /// Lowercase hex of the serialized message (layout included).
    pub hex: String,
}

impl ShapeStrings {
    /// The forms of `shape`; its string shows the layout when `with_layout`.
    pub fn new(shape: &Shape, with_layout: bool) -> Self {
        let text = if with_layout {
            shape.to_string()
        } else {
            shape.human_string()
        };
        Self {
            shape: text,
            hex: hex::encode(shape.encode_to_vec()),
        }
    }
}

impl fmt::Display for ShapeStrings {
    /// The human string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.shape)
    }
}

/// A decoded `Shape` message: its human string with layout, the hex of the
/// message as re-encoded, and its protobuf text format.
///
/// ```
/// use schema::Message;
/// let bytes = "f32[2]{0}".parse::<schema::Shape>().unwrap().encode_to_vec();
/// let shape = schema::Shape::decode(bytes.as_slice()).unwrap();
/// let decoded = schema::DecodedShape::new(&shape).unwrap();
/// assert_eq!(decoded.to_string(), "f32[2]{0}");
/// assert!(decoded.text.starts_with("element_type:F32"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodedShape {
    /// XLA's `HumanStringWithLayout`.
    pub shape: String,
    /// Lowercase hex of the message re-encoded.
    pub hex: String,
    /// Protobuf text format, on one line.
    pub text: String,
}

impl DecodedShape {
    /// The forms of `shape`.
    ///
    /// # Errors
    ///
    /// The [`FormatError`] of [`ProtoFormat::to_text_format`].
    pub fn new(shape: &Shape) -> Result<Self, FormatError> {
        Ok(Self {
            shape: shape.to_string(),
            hex: hex::encode(shape.encode_to_vec()),
            text: shape.to_text_format()?,
        })
    }
}

impl fmt::Display for DecodedShape {
    /// The human string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.shape)
    }
}

/// A message of any type read from bytes: its text format, then the hex of
/// the message as re-encoded. ([`EncodedMessage`] holds the same forms in
/// the other order, hex first, for a message read from text.)
///
/// ```
/// let descriptor = schema::message_descriptor("xla.TileProto").unwrap();
/// let message = schema::decode_message(&descriptor, &[0x0a, 0x01, 0x02]).unwrap();
/// let decoded = schema::DecodedMessage::new(&message);
/// assert_eq!(decoded.to_string(), "dimensions:[2]");
/// assert_eq!(decoded.hex, "0a0102");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodedMessage {
    /// Protobuf text format, on one line.
    pub text: String,
    /// Lowercase hex of the message re-encoded.
    pub hex: String,
}

impl DecodedMessage {
    /// The forms of `message`.
    pub fn new(message: &DynamicMessage) -> Self {
        Self {
            text: message.to_text_format(),
            hex: hex::encode(encode_message(message)),
        }
    }
}

impl fmt::Display for DecodedMessage {
    /// The text format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.text)
    }
}

/// A message of any type read from text format: the hex of its encoding,
/// then its canonical text format.
///
/// ```
/// let descriptor = schema::message_descriptor("xla.TileProto").unwrap();
/// let message = schema::parse_text_format(&descriptor, "dimensions: [8, 128]").unwrap();
/// let encoded = schema::EncodedMessage::new(&message);
/// assert_eq!(encoded.to_string(), "0a03088001");
/// assert_eq!(encoded.text, "dimensions:[8,128]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncodedMessage {
    /// Lowercase hex of the encoded message.
    pub hex: String,
    /// The canonical protobuf text format, on one line.
    pub text: String,
}

impl EncodedMessage {
    /// The forms of `message`.
    pub fn new(message: &DynamicMessage) -> Self {
        Self {
            hex: hex::encode(encode_message(message)),
            text: message.to_text_format(),
        }
    }
}

impl fmt::Display for EncodedMessage {
    /// The hex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.hex)
    }
}
