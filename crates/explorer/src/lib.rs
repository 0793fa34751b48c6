//! The explorer page's WebAssembly: thin functions over the front ends'
//! shared library (`xla-shape-front`, which links no argument parser) that
//! hand the page the same
//! typed reports and SVG pictures the CLI prints and draws, as JSON.
//!
//! Every function returns one JSON object: `{"ok":true,...}` with the
//! reports, or `{"ok":false,"error":MESSAGE}` with the message the CLI
//! prints for the same input. Nothing is computed here that the library
//! does not compute for the CLI.
//!
//! ```
//! let reply: serde_json::Value = serde_json::from_str(&xla_shape_explorer::shape("f32[2,3]{0,1}")).unwrap();
//! assert_eq!(reply["ok"], true);
//! assert_eq!(reply["order"], serde_json::json!([0, 3, 1, 4, 2, 5]));
//! ```

#![forbid(unsafe_code)]

mod memory;
mod reply;
mod shape;
mod sharding;

pub use memory::{assignment_memory, module_memory};
pub use shape::{ORDER_SHOWN, shape};
pub use sharding::{reshard, shard};
