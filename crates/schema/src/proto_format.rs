//! Protobuf text format and JSON (proto3 canonical mapping) for the schema
//! messages, through prost-reflect and the descriptor set compiled from
//! `proto/xla_data.proto` at build time.

use std::sync::OnceLock;

#[cfg(feature = "json")]
use crate::map_order::MessageJson;
use prost_reflect::DescriptorPool;
#[cfg(feature = "text-format")]
use {
    crate::text_writer,
    crate::{Layout, Shape},
    prost_reflect::text_format::FormatOptions,
    std::any::Any,
};
#[cfg(any(feature = "text-format", feature = "json"))]
use {
    prost::{Message, Name},
    prost_reflect::{DynamicMessage, MessageDescriptor},
};

/// The deepest nesting of messages (`{`/`<` inside one another) that
/// [`ProtoFormat::from_text_format`] accepts.
///
/// The text-format parser (prost-reflect's) recurses once per level with
/// large frames: about 80 levels exhaust a 2 MiB thread stack in a debug
/// build. JSON has a similar bound: serde_json stops at 128 levels of
/// objects and arrays, which is 64 levels of `tuple_shapes`.
#[cfg(feature = "text-format")]
pub const MAX_TEXT_FORMAT_DEPTH: usize = 64;

/// Errors converting a message to or from text format or JSON.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The embedded descriptor set could not be loaded (a build defect).
    #[error("descriptor set of xla_data.proto is unusable: {0}")]
    Descriptor(String),
    /// The message type is not in the descriptor set.
    #[error("message type {0} is not in xla_data.proto")]
    UnknownMessage(String),
    /// The text is not valid protobuf text format for the message.
    #[error("invalid text format for {message}: {reason}")]
    TextFormat {
        /// The full message name, such as `xla.Shape`.
        message: String,
        /// What the text-format parser reported.
        reason: String,
    },
    /// The text nests messages deeper than [`MAX_TEXT_FORMAT_DEPTH`].
    #[error(
        "invalid text format for {message}: messages nested deeper than {limit} levels (at byte {offset})"
    )]
    TooDeep {
        /// The full message name, such as `xla.Shape`.
        message: String,
        /// Byte offset of the `{` or `<` that opens one level too many.
        offset: usize,
        /// The limit, [`MAX_TEXT_FORMAT_DEPTH`].
        limit: usize,
    },
    /// The text is not valid JSON for the message.
    #[error("invalid JSON for {message}: {reason}")]
    Json {
        /// The full message name, such as `xla.Shape`.
        message: String,
        /// What the JSON parser reported.
        reason: String,
    },
    /// No message of the schema has this name (see
    /// [`crate::message_descriptor`]).
    #[error("{name} is not a message of xla_data.proto{}", not_a_message_hint(.suggestion.as_deref()))]
    NotAMessage {
        /// The name asked for.
        name: String,
        /// A message whose name differs only in case or in the `xla.` prefix.
        suggestion: Option<String>,
    },
    /// The bytes are not a valid message of the type (see
    /// [`crate::decode_message`]).
    #[error("invalid {message} message ({size} bytes): {reason}")]
    Decode {
        /// The full message name, such as `xla.OpSharding`.
        message: String,
        /// The size of the bytes given.
        size: usize,
        /// Where and why decoding failed.
        reason: String,
    },
    /// The message could not be converted between its typed and dynamic forms.
    #[error("cannot convert {message}: {reason}")]
    Convert {
        /// The full message name, such as `xla.Shape`.
        message: String,
        /// What went wrong.
        reason: String,
    },
}

/// The end of [`FormatError::NotAMessage`]'s text.
fn not_a_message_hint(suggestion: Option<&str>) -> String {
    match suggestion {
        Some(name) => format!("; did you mean {name}?"),
        None => "; names are full names such as xla.OpSharding or xla.ShapeProto \
                 (`xla-shape decode --list-messages` lists them)"
            .to_string(),
    }
}

/// Text format and JSON for every message of the schema.
///
/// ```
/// use schema::{ProtoFormat, Shape};
///
/// let shape: Shape = "f32[2,3]{1,0}".parse().unwrap();
/// let text = shape.to_text_format().unwrap();
/// assert_eq!(Shape::from_text_format(&text).unwrap(), shape);
/// let json = shape.to_json().unwrap();
/// assert!(json.contains(r#""elementType":"F32""#));
/// assert_eq!(Shape::from_json(&json).unwrap(), shape);
/// ```
#[cfg(any(feature = "text-format", feature = "json"))]
pub trait ProtoFormat: Sized {
    #[cfg(feature = "text-format")]
    /// The message in protobuf text format, on one line.
    fn to_text_format(&self) -> Result<String, FormatError>;
    #[cfg(feature = "text-format")]
    /// The message in protobuf text format, one field per line.
    fn to_text_format_pretty(&self) -> Result<String, FormatError>;
    #[cfg(feature = "text-format")]
    /// Parses protobuf text format.
    fn from_text_format(text: &str) -> Result<Self, FormatError>;
    #[cfg(feature = "json")]
    /// The message in proto3 canonical JSON (camelCase names, enum names,
    /// 64-bit integers as strings, map entries in key order).
    fn to_json(&self) -> Result<String, FormatError>;
    #[cfg(feature = "json")]
    /// Parses proto3 JSON (either field-name spelling).
    fn from_json(json: &str) -> Result<Self, FormatError>;
}

#[cfg(any(feature = "text-format", feature = "json"))]
impl<M: Message + Name + Default + 'static> ProtoFormat for M {
    #[cfg(feature = "text-format")]
    fn to_text_format(&self) -> Result<String, FormatError> {
        // Shapes and layouts (tuples of any size) have a direct writer that
        // writes the same bytes without building a dynamic message.
        let any: &dyn Any = self;
        if let Some(shape) = any.downcast_ref::<Shape>() {
            return Ok(text_writer::shape_text(shape));
        }
        if let Some(layout) = any.downcast_ref::<Layout>() {
            return Ok(text_writer::layout_text(layout));
        }
        dynamic_text_format(self)
    }

    #[cfg(feature = "text-format")]
    fn to_text_format_pretty(&self) -> Result<String, FormatError> {
        Ok(to_dynamic(self)?.to_text_format_with_options(&FormatOptions::new().pretty(true)))
    }

    #[cfg(feature = "text-format")]
    fn from_text_format(text: &str) -> Result<Self, FormatError> {
        if let Some(offset) = too_deep(text) {
            return Err(FormatError::TooDeep {
                message: M::full_name(),
                offset,
                limit: MAX_TEXT_FORMAT_DEPTH,
            });
        }
        let descriptor = descriptor::<M>()?;
        let dynamic = DynamicMessage::parse_text_format(descriptor, text).map_err(|e| {
            FormatError::TextFormat {
                message: M::full_name(),
                reason: e.to_string(),
            }
        })?;
        from_dynamic(&dynamic)
    }

    #[cfg(feature = "json")]
    fn to_json(&self) -> Result<String, FormatError> {
        let dynamic = to_dynamic(self)?;
        serde_json::to_string(&MessageJson(&dynamic)).map_err(|e| FormatError::Convert {
            message: M::full_name(),
            reason: e.to_string(),
        })
    }

    #[cfg(feature = "json")]
    fn from_json(json: &str) -> Result<Self, FormatError> {
        let descriptor = descriptor::<M>()?;
        let json_error = |e: serde_json::Error| FormatError::Json {
            message: M::full_name(),
            reason: e.to_string(),
        };
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let dynamic =
            DynamicMessage::deserialize(descriptor, &mut deserializer).map_err(json_error)?;
        deserializer.end().map_err(json_error)?;
        from_dynamic(&dynamic)
    }
}

/// The byte offset of the first `{` or `<` nested deeper than
/// [`MAX_TEXT_FORMAT_DEPTH`] in protobuf text format, skipping quoted
/// strings and `#` comments; `None` if the nesting stays within the limit.
#[cfg(feature = "text-format")]
pub(crate) fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0_usize;
    let mut quote = None;
    let mut escaped = false;
    let mut comment = false;
    for (offset, byte) in text.bytes().enumerate() {
        match (quote, byte) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), b'\\') => escaped = true,
            (Some(open), _) if byte == open => quote = None,
            (Some(_), _) => {}
            _ if comment => comment = byte != b'\n',
            (None, b'#') => comment = true,
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'{' | b'<') => {
                depth += 1;
                if depth > MAX_TEXT_FORMAT_DEPTH {
                    return Some(offset);
                }
            }
            (None, b'}' | b'>') => depth = depth.saturating_sub(1),
            (None, _) => {}
        }
    }
    None
}

/// Compact text format through prost-reflect, for any message (the
/// reference the direct writer matches).
#[cfg(feature = "text-format")]
pub(crate) fn dynamic_text_format<M: Message + Name>(message: &M) -> Result<String, FormatError> {
    Ok(to_dynamic(message)?.to_text_format())
}

pub(crate) fn pool() -> Result<&'static DescriptorPool, FormatError> {
    static POOL: OnceLock<Result<DescriptorPool, String>> = OnceLock::new();
    POOL.get_or_init(|| {
        DescriptorPool::decode(crate::FILE_DESCRIPTOR_SET).map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| FormatError::Descriptor(e.clone()))
}

#[cfg(any(feature = "text-format", feature = "json"))]
pub(crate) fn descriptor<M: Name>() -> Result<MessageDescriptor, FormatError> {
    let name = M::full_name();
    pool()?
        .get_message_by_name(&name)
        .ok_or(FormatError::UnknownMessage(name))
}

#[cfg(any(feature = "text-format", feature = "json"))]
pub(crate) fn to_dynamic<M: Message + Name>(message: &M) -> Result<DynamicMessage, FormatError> {
    DynamicMessage::decode(descriptor::<M>()?, message.encode_to_vec().as_slice()).map_err(|e| {
        FormatError::Convert {
            message: M::full_name(),
            reason: e.to_string(),
        }
    })
}

#[cfg(any(feature = "text-format", feature = "json"))]
pub(crate) fn from_dynamic<M: Message + Name + Default>(
    dynamic: &DynamicMessage,
) -> Result<M, FormatError> {
    dynamic
        .transcode_to::<M>()
        .map_err(|e| FormatError::Convert {
            message: M::full_name(),
            reason: e.to_string(),
        })
}
