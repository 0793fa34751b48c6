//! Conformance tests live in tests/*.rs beside this crate root.
