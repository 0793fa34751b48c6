//! ndarray views into TPU's tiles: a transposed array (a column-major
//! weight) and one with its rows reversed (a negative stride), each as a
//! `StridedView` over the array's elements, relaid into `{1,0:T(8,128)}`
//! by one plan from the view (`RelayoutPlan::view_to_xla`).

use anyhow::Context;
use index_util::TiledLayout;
use ndarray::{Array2, ArrayView2, s};
use relayout::{FromTo, RelayoutPlan, StridedView};
use schema::Shape;

fn main() -> anyhow::Result<()> {
    let weight = Array2::from_shape_fn((256, 40), |(i, j)| (i * 40 + j) as f32);

    // Transposed: [40, 256], column-major in memory, an XLA layout as it is
    // (the plan relays it as that layout).
    let transposed = weight.t();
    let (view, elements) = StridedView::from_ndarray(&transposed)?;
    assert_eq!(view.to_xla_layout()?.minor_to_major, [0, 1]);
    let to: Shape = "f32[40,256]{1,0:T(8,128)}".parse()?;
    let tiled = into_tiles(&view, elements, &to)?;
    check(&tiled, &to, transposed)?;
    println!("{:?} -> {to}: {} positions", view.strides(), tiled.len());

    // Rows reversed: stride -40. No XLA layout runs backwards; the plan
    // reads the view as it is.
    let reversed = weight.slice(s![..;-1, ..]);
    let (view, elements) = StridedView::from_ndarray(&reversed)?;
    assert_eq!(
        (view.strides(), view.offset()),
        (&[-40_i64, 1][..], 255 * 40)
    );
    assert!(view.to_xla_layout().is_err());
    let to: Shape = "f32[256,40]{1,0:T(8,128)}".parse()?;
    let tiled = into_tiles(&view, elements, &to)?;
    check(&tiled, &to, reversed)?;
    println!(
        "{:?} (rows reversed) -> {to}: {} positions",
        view.strides(),
        tiled.len()
    );
    // The first row of the first tile is the original's last row.
    assert_eq!(tiled[..40], weight.row(255).to_vec()[..]);
    Ok(())
}

/// The f32 `elements` that `view` addresses, relaid into the tiled `to`.
fn into_tiles(view: &StridedView, elements: &[f32], to: &Shape) -> anyhow::Result<Vec<f32>> {
    let mut tiled = vec![0.0_f32; usize::try_from(TiledLayout::array_size(to)? / 4)?];
    RelayoutPlan::view_to_xla(FromTo { from: view, to }, 4)?.run(elements, &mut tiled)?;
    Ok(tiled)
}

/// Checks that every element of `array` is at its position of `shape`'s
/// buffer `tiled`.
fn check(tiled: &[f32], shape: &Shape, array: ArrayView2<'_, f32>) -> anyhow::Result<()> {
    let layout = TiledLayout::new(shape)?;
    for ((i, j), &value) in array.indexed_iter() {
        let index = [i64::try_from(i)?, i64::try_from(j)?];
        let at = usize::try_from(layout.position(&index)?)?;
        let found = tiled.get(at).context("a position outside the buffer")?;
        assert_eq!(
            found.to_bits(),
            value.to_bits(),
            "element {index:?} of {shape}"
        );
    }
    Ok(())
}

rust_user::test_main!();
