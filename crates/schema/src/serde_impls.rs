//! `serde::Serialize` and `serde::Deserialize` for every message and enum
//! of the schema, in protobuf's JSON mapping.
//!
//! A message goes through its prost-reflect `DynamicMessage`: it serializes
//! exactly as [`ProtoFormat::to_json`](crate::ProtoFormat::to_json) writes
//! it, and deserializes from what
//! [`ProtoFormat::from_json`](crate::ProtoFormat::from_json) reads. An enum
//! serializes as its name and deserializes from its name or its number. The
//! build script lists the types (`serde_impls.rs` in `OUT_DIR`).

use std::fmt;

use prost::{Message, Name};
use prost_reflect::DynamicMessage;
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::ser::{self, Serialize, Serializer};

use crate::map_order::MessageJson;
use crate::proto_format::{descriptor, from_dynamic, to_dynamic};

/// Serializes `message` as proto3 canonical JSON.
fn serialize_message<M, S>(message: &M, serializer: S) -> Result<S::Ok, S::Error>
where
    M: Message + Name,
    S: Serializer,
{
    let dynamic = to_dynamic(message).map_err(ser::Error::custom)?;
    MessageJson(&dynamic).serialize(serializer)
}

/// Deserializes an `M` from proto3 JSON (either field-name spelling).
fn deserialize_message<'de, M, D>(deserializer: D) -> Result<M, D::Error>
where
    M: Message + Name + Default,
    D: Deserializer<'de>,
{
    let descriptor = descriptor::<M>().map_err(de::Error::custom)?;
    let dynamic = DynamicMessage::deserialize(descriptor, deserializer)?;
    from_dynamic(&dynamic).map_err(de::Error::custom)
}

/// `Serialize` and `Deserialize` through [`serialize_message`] and
/// [`deserialize_message`] for each message type.
macro_rules! serde_messages {
    ($($message:path,)*) => {$(
        impl serde::Serialize for $message {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serialize_message(self, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $message {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserialize_message(deserializer)
            }
        }
    )*};
}

/// `Serialize` as the value's name and `Deserialize` from its name or
/// number for each enum (with its full protobuf name, for errors).
macro_rules! serde_enums {
    ($($enum:path = $name:literal,)*) => {$(
        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str_name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any(EnumVisitor {
                    name: $name,
                    from_name: <$enum>::from_str_name,
                })
            }
        }
    )*};
}

include!(concat!(env!("OUT_DIR"), "/serde_impls.rs"));

/// Reads a prost enum from its name or number.
struct EnumVisitor<E> {
    /// The enum's full name, such as `xla.PrimitiveType`.
    name: &'static str,
    /// The value called this, if any (prost's `from_str_name`).
    from_name: fn(&str) -> Option<E>,
}

impl<'de, E: TryFrom<i32>> Visitor<'de> for EnumVisitor<E> {
    type Value = E;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(formatter, "the name or number of a {} value", self.name)
    }

    fn visit_str<Error: de::Error>(self, value: &str) -> Result<E, Error> {
        (self.from_name)(value).ok_or_else(|| Error::invalid_value(Unexpected::Str(value), &self))
    }

    fn visit_i64<Error: de::Error>(self, value: i64) -> Result<E, Error> {
        i32::try_from(value)
            .ok()
            .and_then(|number| E::try_from(number).ok())
            .ok_or_else(|| Error::invalid_value(Unexpected::Signed(value), &self))
    }

    fn visit_u64<Error: de::Error>(self, value: u64) -> Result<E, Error> {
        i32::try_from(value)
            .ok()
            .and_then(|number| E::try_from(number).ok())
            .ok_or_else(|| Error::invalid_value(Unexpected::Unsigned(value), &self))
    }
}
