//! Helpers shared by the schema crate's integration tests.

pub use conformance::on_small_stack;
