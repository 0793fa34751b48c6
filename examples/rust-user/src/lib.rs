//! Six programs a Rust user writes against the workspace's crates, as
//! examples (`examples/*.rs`), each doing real work and asserting its
//! result; `cargo test -p rust-user` runs every one's `main`, and
//! `cargo run -p rust-user --example NAME` runs one:
//!
//! - `shape_proto`: a `ShapeProto` decoded from bytes, validated, printed
//!   as XLA's text and encoded again;
//! - `tpu_sizes`: the bytes XLA allocates for TPU's tiled layouts;
//! - `relayout_pool`: column-major `f32` values into TPU's `T(8,128)` tiles
//!   on a rayon pool, checked against `index-util`'s positions;
//! - `hlo_peak`: an HLO module's peak memory and the buffers live there;
//! - `shardings`: XLA's and Shardy's sharding text, and each device's box;
//! - `ndarray_tiles`: ndarray views (negative strides too) into tiles.
//!
//! The library holds what the programs share: where the workspace's files
//! are, and the test that runs a program's `main`.
//!
//! ```
//! let module = rust_user::workspace_file("tests/golden/peak_memory/mlp/compiled.txt");
//! assert!(module.is_file());
//! ```

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

/// The file at `relative` (a path from the workspace's root, such as
/// `tests/golden/...`).
pub fn workspace_file(relative: impl AsRef<Path>) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}

/// The test of an example program: `cargo test` runs its `main` (the
/// example's `[[example]]` in `Cargo.toml` has `test = true`). Written
/// once at the end of the program, after its `main`.
///
/// ```
/// fn main() -> anyhow::Result<()> {
///     assert_eq!(usize::try_from(8_i64)?, 8);
///     Ok(())
/// }
/// rust_user::test_main!();
/// ```
#[macro_export]
macro_rules! test_main {
    () => {
        #[cfg(test)]
        mod tests {
            #[test]
            fn main_runs() -> ::anyhow::Result<()> {
                super::main()
            }
        }
    };
}
