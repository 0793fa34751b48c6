//! Column-major `f32` values into TPU's `{1,0:T(8,128)}` tiles, planned once
//! and run on the calling thread and on a rayon pool, each element checked
//! at the position `index-util` gives it.

use index_util::TiledLayout;
use relayout::{FromTo, RelayoutPlan, rayon};
use schema::Shape;

fn main() -> anyhow::Result<()> {
    let from: Shape = "f32[300,1000]{0,1}".parse()?;
    let to: Shape = "f32[300,1000]{1,0:T(8,128)}".parse()?;
    let (rows, columns) = (300_i64, 1000_i64);

    // Element (i, j) holds i * 1000 + j, stored column-major.
    let mut values = vec![0.0_f32; 300 * 1000];
    for i in 0..rows {
        for j in 0..columns {
            let at = index_util::multidimensional_index_to_linear_index(&from, &[i, j])?;
            values[usize::try_from(at)?] = value(i, j);
        }
    }

    let plan = RelayoutPlan::xla(FromTo {
        from: &from,
        to: &to,
    })?;
    let layout = TiledLayout::new(&to)?;
    let mut one = vec![0.0_f32; usize::try_from(layout.buffer_len())?];
    plan.run(&values, &mut one)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
    let mut two = vec![0.0_f32; one.len()];
    plan.run_in(&pool, &values, &mut two)?;
    println!(
        "{from} -> {to}: {} positions for {} elements, strategy {:?}",
        one.len(),
        values.len(),
        plan.strategy()
    );
    assert_eq!(one.len(), 304 * 1024);
    assert!(
        one.iter()
            .zip(&two)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );

    for i in 0..rows {
        for j in 0..columns {
            let at = usize::try_from(layout.position(&[i, j])?)?;
            assert_eq!(
                one[at].to_bits(),
                value(i, j).to_bits(),
                "element [{i}, {j}]"
            );
        }
    }
    // The second tile of the first row of tiles starts at row 0, column 128.
    assert_eq!(one[8 * 128].to_bits(), value(0, 128).to_bits());
    Ok(())
}

/// The value of element (i, j): its row-major index, exact in `f32`.
fn value(i: i64, j: i64) -> f32 {
    (i * 1000 + j) as f32
}

rust_user::test_main!();
