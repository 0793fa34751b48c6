//! The JSON envelope every function returns: the report with `"ok":true`,
//! or `"ok":false` with the error's message.

use std::fmt::Display;

use serde::Serialize;
use serde_json::{Map, Value, json};

/// `{"ok":true, ...fields}`: `fields` must serialize to a JSON object;
/// an error reply when it cannot be serialized.
pub fn ok(fields: &impl Serialize) -> String {
    match serde_json::to_value(fields) {
        Ok(Value::Object(fields)) => {
            let mut object = Map::with_capacity(fields.len() + 1);
            object.insert("ok".to_owned(), Value::Bool(true));
            object.extend(fields);
            Value::Object(object).to_string()
        }
        Ok(other) => error(format!("the reply is no JSON object: {other}")),
        Err(why) => error(format!("the reply cannot be written as JSON: {why}")),
    }
}

/// `{"ok":false,"error":MESSAGE}`.
pub fn error(message: impl Display) -> String {
    json!({ "ok": false, "error": message.to_string() }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_puts_ok_first() {
        assert_eq!(ok(&json!({ "a": 1 })), r#"{"ok":true,"a":1}"#);
    }

    #[test]
    fn a_non_object_is_an_error() {
        assert_eq!(
            ok(&json!([1])),
            r#"{"ok":false,"error":"the reply is no JSON object: [1]"}"#
        );
    }

    #[test]
    fn error_carries_the_message() {
        assert_eq!(error("bad"), r#"{"ok":false,"error":"bad"}"#);
    }
}
