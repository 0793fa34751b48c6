//! Map fields as reflection sees them: which messages hold one at any depth,
//! and proto3 JSON that writes each map's entries in key order.
//!
//! A prost-reflect `DynamicMessage` keeps a map in a `HashMap`, so its JSON
//! lists the entries of a map in no fixed order. [`MessageJson`] writes
//! them in key order (the order of the typed messages' `BTreeMap`s and of
//! [`crate::encode_message`]), and everything else as prost-reflect does.

use std::collections::HashSet;

use prost_reflect::{Kind, MessageDescriptor};
#[cfg(feature = "json")]
use {
    prost_reflect::{DynamicMessage, ReflectMessage},
    serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor},
    serde::ser::{self, Serialize, SerializeMap, Serializer},
    std::cmp::Ordering,
    std::fmt,
};

/// Whether a `descriptor` message holds a map field, itself or in a message
/// it holds at any depth.
pub(crate) fn holds_map(descriptor: &MessageDescriptor) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![descriptor.clone()];
    while let Some(message) = stack.pop() {
        if !seen.insert(message.full_name().to_string()) {
            continue;
        }
        for field in message.fields() {
            if field.is_map() {
                return true;
            }
            if let Kind::Message(inner) = field.kind() {
                stack.push(inner);
            }
        }
    }
    false
}

/// A message as proto3 canonical JSON (prost-reflect's mapping with its
/// default options), with the entries of every map in key order.
#[cfg(feature = "json")]
pub(crate) struct MessageJson<'a>(pub(crate) &'a DynamicMessage);

#[cfg(feature = "json")]
impl Serialize for MessageJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let descriptor = self.0.descriptor();
        if !holds_map(&descriptor) {
            return self.0.serialize(serializer);
        }
        // prost-reflect's JSON, read back with members in the order written,
        // and each map's members sorted.
        let json = serde_json::to_vec(self.0).map_err(ser::Error::custom)?;
        let mut tree: Tree = serde_json::from_slice(&json).map_err(ser::Error::custom)?;
        sort_maps(&mut tree, &descriptor);
        tree.serialize(serializer)
    }
}

/// A JSON value that keeps an object's members in the order written.
#[cfg(feature = "json")]
enum Tree {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

/// Sorts the members of every object of `tree` (a `descriptor` message)
/// that is a map field, at any depth, by key.
#[cfg(feature = "json")]
fn sort_maps(tree: &mut Tree, descriptor: &MessageDescriptor) {
    let Tree::Object(members) = tree else {
        return;
    };
    for (name, value) in members {
        let Some(field) = descriptor.fields().find(|f| f.json_name() == name) else {
            continue;
        };
        let Kind::Message(inner) = field.kind() else {
            continue;
        };
        if field.is_map() {
            let Tree::Object(entries) = value else {
                continue;
            };
            let numeric = !matches!(
                inner.map_entry_key_field().kind(),
                Kind::String | Kind::Bool
            );
            entries.sort_by(|a, b| compare_keys(&a.0, &b.0, numeric));
            if let Kind::Message(values) = inner.map_entry_value_field().kind()
                && holds_map(&values)
            {
                for (_, entry) in entries {
                    sort_maps(entry, &values);
                }
            }
        } else if holds_map(&inner) {
            match value {
                Tree::Array(items) => {
                    for item in items {
                        sort_maps(item, &inner);
                    }
                }
                item => sort_maps(item, &inner),
            }
        }
    }
}

/// The order of two map keys as JSON writes them: integer keys by value,
/// strings (and `false`, `true`) by their bytes.
#[cfg(feature = "json")]
fn compare_keys(a: &str, b: &str, numeric: bool) -> Ordering {
    match (numeric, a.parse::<i128>(), b.parse::<i128>()) {
        (true, Ok(a), Ok(b)) => a.cmp(&b),
        _ => a.cmp(b),
    }
}

#[cfg(feature = "json")]
impl Serialize for Tree {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tree::Null => serializer.serialize_unit(),
            Tree::Bool(value) => serializer.serialize_bool(*value),
            Tree::Number(value) => value.serialize(serializer),
            Tree::String(value) => serializer.serialize_str(value),
            Tree::Array(items) => serializer.collect_seq(items),
            Tree::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (name, value) in members {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(feature = "json")]
impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

/// Reads a [`Tree`].
#[cfg(feature = "json")]
struct TreeVisitor;

#[cfg(feature = "json")]
impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Null)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Tree, E> {
        Ok(Tree::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Tree, E> {
        Ok(Tree::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Tree, E> {
        Ok(Tree::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Tree, E> {
        serde_json::Number::from_f64(value)
            .map(Tree::Number)
            .ok_or_else(|| E::custom("a number that JSON cannot hold"))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Tree, E> {
        Ok(Tree::String(value.to_string()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Tree, E> {
        Ok(Tree::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry()? {
            members.push(member);
        }
        Ok(Tree::Object(members))
    }
}
