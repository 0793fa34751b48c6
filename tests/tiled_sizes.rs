//! Golden test of tiled buffer sizes: the bytes real XLA's CPU client
//! allocates for arrays under tiled layouts (`tiled_sizes.jsonl`, from
//! `build-tools/gen_tiled_sizes.py`: `on_device_size_in_bytes()`, XLA's
//! `ShapeUtil::ArraySize`) are `shape_util::array_size` and
//! `index_util::TiledLayout::buffer_size_in_bytes` of the shape XLA printed.
//!
//! Two kinds of rows are checked differently, and counted apart:
//! - layouts whose later tiles pad beyond the first (`T(2,2)(3)`): XLA
//!   allocates the first tile's size (its `ArraySize` ignores later tiles)
//!   while its index formula addresses past it, so `TiledLayout` refuses
//!   them; the row checks the refusal and that XLA's size is the first
//!   tile's;
//! - layouts the CPU client rejects (a `*` tile entry): the row records
//!   XLA's error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, int, load, required, same};
use index_util::{IndexError, TiledLayout};
use schema::Shape;

/// How a row was checked.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Size,
    RefusedNestedPadding,
    RejectedByXla,
}

fn check_row(row: &Row) -> Result<Kind, String> {
    if let Some(error) = row.get("error") {
        let error = error.as_str().unwrap_or_default();
        let tiling = row
            .get("tiling")
            .map(ToString::to_string)
            .unwrap_or_default();
        if !tiling.contains(&i64::MIN.to_string()) || !error.contains("dimension >= 0") {
            return Err(format!("unexpected XLA rejection of {tiling}: {error}"));
        }
        return Ok(Kind::RejectedByXla);
    }
    let text = required(row, "shape")?;
    let shape: Shape = text.parse().map_err(|e| format!("parse: {e}"))?;
    same("printed", shape.to_string().as_str(), text)?;
    let xla = int(row, "on_device_size_in_bytes")?;
    // XLA's ArraySize for every layout, positions or not.
    let size = shape_util::array_size(&shape).map_err(|e| e.to_string())?;
    same("array_size", size, xla)?;
    match TiledLayout::new(&shape) {
        Ok(layout) => {
            same("buffer_size_in_bytes", layout.buffer_size_in_bytes(), xla)?;
            Ok(Kind::Size)
        }
        Err(IndexError::UnsupportedTiledLayout { reason, .. })
            if reason.contains("XLA allocates") =>
        {
            Ok(Kind::RefusedNestedPadding)
        }
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn tiled_sizes_match_xla_allocations() {
    let rows = load("tiled_sizes.jsonl").unwrap();
    let mut tally = Tally::new("tiled_sizes");
    let (mut refused, mut rejected) = (0, 0);
    for row in &rows {
        let case = row
            .get("shape")
            .or_else(|| row.get("tiling"))
            .map(ToString::to_string)
            .unwrap_or_default();
        let outcome = check_row(row).map(|kind| match kind {
            Kind::Size => {}
            Kind::RefusedNestedPadding => refused += 1,
            Kind::RejectedByXla => rejected += 1,
        });
        tally.record(&case, outcome);
    }
    println!(
        "tiled_sizes: array_size = XLA on every sized row; positions refused on {refused} (later tiles pad beyond XLA's allocation), {rejected} rejected by XLA's CPU client"
    );
    assert!(tally.finish());
    assert!(rows.len() >= 300, "only {} rows", rows.len());
}
