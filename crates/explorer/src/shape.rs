//! The shape panel: a shape's `explain` report, memory order and picture.

use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;
use xla_shape_front::Explanation;

use crate::reply;

/// How many positions of the memory order the reply lists at most (the
/// page shows the start of the buffer; `positions` counts them all).
pub const ORDER_SHOWN: usize = 4096;

/// What the shape panel shows.
#[derive(Serialize)]
struct ShapeReply<'a> {
    /// The shape as XLA prints it, layout included.
    shape: &'a str,
    /// `xla-shape explain`'s text.
    text: String,
    /// `xla-shape explain --json`'s fields.
    explanation: &'a Explanation,
    /// The buffer's positions in memory order, when they can be listed.
    positions: Option<usize>,
    /// The row-major index stored at each of the first [`ORDER_SHOWN`]
    /// positions (`null`: padding), as `xla-shape order` lists them.
    order: Option<&'a [Option<i64>]>,
    /// Why the memory order cannot be listed.
    order_error: Option<String>,
    /// `xla-shape draw`'s picture.
    svg: Option<String>,
    /// Why the shape cannot be drawn.
    svg_error: Option<String>,
}

/// The shape panel's reply for the shape `text`: `shape` (as XLA prints
/// it), `text` and `explanation` (`xla-shape explain` and its `--json`
/// fields), `positions` and `order` (`xla-shape order`, the first
/// [`ORDER_SHOWN`] positions) or `order_error`, and `svg` (`xla-shape
/// draw`) or `svg_error`. A shape XLA rejects gets its message as `error`.
///
/// ```
/// let reply: serde_json::Value = serde_json::from_str(&xla_shape_explorer::shape("f32[2,3]{0,1}")).unwrap();
/// assert_eq!(reply["explanation"]["strides"], serde_json::json!([1, 2]));
/// assert!(reply["svg"].as_str().unwrap().contains("<svg"));
/// let reply: serde_json::Value = serde_json::from_str(&xla_shape_explorer::shape("f32[2,3]{0,1,2}")).unwrap();
/// assert_eq!(reply["ok"], false);
/// assert!(reply["error"].as_str().unwrap().contains("minor to major size is 3"));
/// ```
#[wasm_bindgen]
pub fn shape(text: &str) -> String {
    let shape: schema::Shape = match text.parse() {
        Ok(shape) => shape,
        Err(error) => return reply::error(error),
    };
    let explanation = match xla_shape_front::explain(&shape) {
        Ok(explanation) => explanation,
        Err(error) => return reply::error(error),
    };
    let (order, order_error) = split(xla_shape_front::memory_order(&shape));
    let (svg, svg_error) = split(xla_shape_front::draw(&shape));
    reply::ok(&ShapeReply {
        shape: &explanation.shape,
        text: explanation.to_string(),
        explanation: &explanation,
        positions: order.as_ref().map(Vec::len),
        order: order
            .as_deref()
            .map(|order| &order[..order.len().min(ORDER_SHOWN)]),
        order_error,
        svg,
        svg_error,
    })
}

/// A result as its value or its error's message.
fn split<T>(result: Result<T, xla_shape_front::Error>) -> (Option<T>, Option<String>) {
    match result {
        Ok(value) => (Some(value), None),
        Err(error) => (None, Some(error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn reply(text: &str) -> Value {
        serde_json::from_str(&shape(text)).unwrap()
    }

    #[test]
    fn a_tiled_shape_reports_its_padding() {
        let reply = reply("f32[2,3]{0,1:T(2,128)}");
        assert_eq!(reply["shape"], "f32[2,3]{0,1:T(2,128)}");
        assert_eq!(reply["explanation"]["buffer_size"], 2048);
        assert_eq!(reply["explanation"]["strides"], Value::Null);
        assert_eq!(reply["positions"], 512);
        assert_eq!(reply["order"][0], 0);
        assert!(
            reply["text"]
                .as_str()
                .unwrap()
                .contains("buffer size: 2048 bytes (512 positions for 6 elements, 32 bits each)")
        );
    }

    #[test]
    fn a_long_order_is_cut() {
        let reply = reply("u8[8192]");
        assert_eq!(reply["positions"], 8192);
        assert_eq!(reply["order"].as_array().unwrap().len(), ORDER_SHOWN);
    }

    #[test]
    fn a_parse_error_is_the_parsers_message() {
        assert_eq!(
            reply("f32[2,"),
            json!({ "ok": false, "error": "f32[2,".parse::<schema::Shape>().unwrap_err().to_string() })
        );
    }
}
