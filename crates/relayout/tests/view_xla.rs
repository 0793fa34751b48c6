//! Plans between a strided view (any strides, negative ones included, and
//! an offset) and an XLA layout (`RelayoutPlan::view_to_xla`,
//! `RelayoutPlan::xla_to_view`), against the element positions of
//! `index_util::TiledLayout` and of the view: odd sizes, each dimension
//! reversed, rank 2 and 3, `T(8,128)` f32 and `T(8,128)(2,1)` bf16
//! layouts, on one thread and on a pool of 2.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use index_util::TiledLayout;
use relayout::rayon::{ThreadPool, ThreadPoolBuilder};
use relayout::{FromTo, RelayoutError, RelayoutPlan, Strategy, StridedView};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn pool() -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(2).build().unwrap()
}

/// Pseudo-random bytes (a fixed linear congruential sequence).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005) | 1;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

/// A view of `sizes` inside a larger buffer: dimensions nested in `order`
/// (most major first), each stride one element more than the dimensions
/// inside it need (gaps), from element 5, then reversed along `flips`;
/// and the buffer's length in elements.
fn view(sizes: &[i64], order: &[usize], flips: &[i64]) -> (StridedView, usize) {
    let mut strides = vec![0_i64; sizes.len()];
    let mut stride = 1;
    for &d in order.iter().rev() {
        strides[d] = stride;
        stride = stride * sizes[d] + 1;
    }
    let base = StridedView::new(sizes, &strides, 5).unwrap();
    let len = base.offset_range().unwrap().1 as usize + 4;
    (base.flip_axes(flips).unwrap(), len)
}

/// Every index of `sizes`, row-major.
fn indices(sizes: &[i64]) -> Vec<Vec<i64>> {
    let mut all = vec![Vec::new()];
    for &size in sizes {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                (0..size).map(move |i| {
                    let mut index = prefix.clone();
                    index.push(i);
                    index
                })
            })
            .collect();
    }
    all
}

/// Relays `view` (elements of `size` bytes) into `to` and back, checking
/// every element's position, the tiles' padding (zeros), the bytes the
/// view does not address (untouched) and the pool's run; the strategy.
fn round_trip(view: &StridedView, len: usize, to: &Shape, size: usize) -> Strategy {
    let name = format!(
        "{:?} strides {:?} offset {} -> {}",
        view.sizes(),
        view.strides(),
        view.offset(),
        to.human_string_with_layout()
    );
    let layout = TiledLayout::new(to).unwrap();
    let positions = layout.buffer_len() as usize;
    let src = noise(len * size, len as u64);
    let plan = RelayoutPlan::view_to_xla(FromTo { from: view, to }, size).unwrap();
    let mut tiled = vec![0xEE_u8; positions * size];
    plan.run(&src, &mut tiled).unwrap();
    let mut held = vec![false; positions];
    for index in indices(view.sizes()) {
        let s = view.element_offset(&index).unwrap() as usize * size;
        let p = layout.position(&index).unwrap() as usize;
        held[p] = true;
        assert_eq!(
            tiled[p * size..p * size + size],
            src[s..s + size],
            "{name}: element {index:?}"
        );
    }
    for (p, _) in held.iter().enumerate().filter(|(_, held)| !**held) {
        assert!(
            tiled[p * size..p * size + size].iter().all(|&b| b == 0),
            "{name}: padding position {p}"
        );
    }
    let mut pooled = vec![0x11_u8; tiled.len()];
    plan.run_in(&pool(), &src, &mut pooled).unwrap();
    assert!(pooled == tiled, "{name}: on 2 threads");

    let back = RelayoutPlan::xla_to_view(FromTo { from: to, to: view }, size).unwrap();
    let mut out = vec![0xEE_u8; len * size];
    back.run(&tiled, &mut out).unwrap();
    let mut addressed = vec![false; len];
    for index in indices(view.sizes()) {
        let s = view.element_offset(&index).unwrap() as usize;
        addressed[s] = true;
        assert_eq!(
            out[s * size..s * size + size],
            src[s * size..s * size + size],
            "{name}: back, element {index:?}"
        );
    }
    for (s, _) in addressed.iter().enumerate().filter(|(_, a)| !**a) {
        assert!(
            out[s * size..s * size + size].iter().all(|&b| b == 0xEE),
            "{name}: back, untouched element {s}"
        );
    }
    let mut pooled = vec![0xEE_u8; out.len()];
    back.run_in(&pool(), &tiled, &mut pooled).unwrap();
    assert!(pooled == out, "{name}: back on 2 threads");
    plan.strategy()
}

/// Every order of the dimensions of rank 2 or 3, and each single
/// dimension reversed (and none, and all).
fn cases(rank: i64) -> Vec<(Vec<usize>, Vec<i64>)> {
    let orders: Vec<Vec<usize>> = if rank == 2 {
        vec![vec![0, 1], vec![1, 0]]
    } else {
        vec![
            vec![0, 1, 2],
            vec![0, 2, 1],
            vec![1, 0, 2],
            vec![1, 2, 0],
            vec![2, 0, 1],
            vec![2, 1, 0],
        ]
    };
    let mut flips: Vec<Vec<i64>> = vec![vec![], (0..rank).collect()];
    flips.extend((0..rank).map(|d| vec![d]));
    orders
        .iter()
        .flat_map(|order| flips.iter().map(move |f| (order.clone(), f.clone())))
        .collect()
}

#[test]
fn views_into_and_out_of_f32_tiles_rank_2() {
    let mut strategies = Vec::new();
    for to in ["f32[13,150]{1,0:T(8,128)}", "f32[13,150]{0,1:T(8,128)}"] {
        let to = shape(to);
        for (order, flips) in cases(2) {
            let (view, len) = view(&[13, 150], &order, &flips);
            strategies.push(round_trip(&view, len, &to, 4));
        }
    }
    // Both the one pass through the tiles and the composition.
    assert!(strategies.contains(&Strategy::TilePieces), "{strategies:?}");
    assert!(strategies.contains(&Strategy::Composed), "{strategies:?}");
    assert!(!strategies.contains(&Strategy::Elements), "{strategies:?}");
}

#[test]
fn views_into_and_out_of_bf16_tiles_rank_2() {
    for to in [
        "bf16[13,150]{1,0:T(8,128)}",
        "bf16[13,150]{1,0:T(8,128)(2,1)}",
        "bf16[150,13]{0,1:T(8,128)(2,1)}",
    ] {
        let to = shape(to);
        for (order, flips) in cases(2) {
            let (view, len) = view(&to.dimensions, &order, &flips);
            round_trip(&view, len, &to, 2);
        }
    }
}

#[test]
fn views_into_and_out_of_tiles_rank_3() {
    for (to, size) in [
        ("f32[3,11,135]{2,1,0:T(8,128)}", 4),
        ("bf16[3,11,135]{2,1,0:T(8,128)(2,1)}", 2),
        ("bf16[5,130,9]{1,2,0:T(8,128)(2,1)}", 2),
    ] {
        let to = shape(to);
        for (order, flips) in cases(3) {
            let (view, len) = view(&to.dimensions, &order, &flips);
            round_trip(&view, len, &to, size);
        }
    }
}

#[test]
fn views_into_untiled_layouts() {
    let to = shape("f32[13,150]{0,1}");
    for (order, flips) in cases(2) {
        let (view, len) = view(&[13, 150], &order, &flips);
        round_trip(&view, len, &to, 4);
    }
}

#[test]
fn a_large_reversed_transpose_composes_through_many_boxes() {
    // 840 KB of f32: more than one box of intermediates.
    let to = shape("f32[300,700]{1,0:T(8,128)}");
    let (view, len) = view(&[300, 700], &[1, 0], &[0, 1]);
    let strategy = round_trip(&view, len, &to, 4);
    assert!(
        matches!(strategy, Strategy::Composed | Strategy::TileTranspose),
        "{strategy:?}"
    );
}

#[test]
fn a_view_that_is_an_xla_layout_plans_as_one() {
    // Rows 2.. of a row-major array: the layout {1,0} from element 300.
    let rows = StridedView::new(&[13, 150], &[150, 1], 300).unwrap();
    let to = shape("f32[13,150]{1,0:T(8,128)}");
    let from = shape("f32[13,150]{1,0}");
    let plan = RelayoutPlan::view_to_xla(
        FromTo {
            from: &rows,
            to: &to,
        },
        4,
    )
    .unwrap();
    let xla = RelayoutPlan::xla(FromTo {
        from: &from,
        to: &to,
    })
    .unwrap();
    assert_eq!(plan.strategy(), xla.strategy());
    let len = 300 + 13 * 150;
    round_trip(&rows, len, &to, 4);
    // A buffer shorter than the offset.
    let mut tiled = vec![0_u8; 16 * 256 * 4];
    let err = plan.run(&[0_u8; 100], &mut tiled).unwrap_err();
    assert!(
        matches!(
            err,
            RelayoutError::OutsideBuffer {
                side: "source",
                offset: 300,
                len: 25
            }
        ),
        "{err}"
    );
}

#[test]
fn mismatches_name_the_values() {
    let to = shape("bf16[13,150]{1,0:T(8,128)(2,1)}");
    let (view, _) = view(&[13, 150], &[0, 1], &[0]);
    let err = RelayoutPlan::view_to_xla(
        FromTo {
            from: &view,
            to: &to,
        },
        4,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            RelayoutError::ViewElementSize {
                element_size: 4,
                element_bits: 16,
                ..
            }
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("4-byte") && text.contains("16-bit"), "{text}");
    let err = RelayoutPlan::xla_to_view(
        FromTo {
            from: &to,
            to: &view,
        },
        1,
    )
    .unwrap_err();
    assert!(err.to_string().contains("1-byte"), "{err}");
    let other = shape("bf16[13,151]{1,0:T(8,128)(2,1)}");
    let err = RelayoutPlan::view_to_xla(
        FromTo {
            from: &view,
            to: &other,
        },
        2,
    )
    .unwrap_err();
    assert!(matches!(err, RelayoutError::ShapeMismatch { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("(13,150)") && text.contains("151"), "{text}");
    let err = RelayoutPlan::view_to_xla(
        FromTo {
            from: &view,
            to: &to,
        },
        0,
    )
    .unwrap_err();
    assert!(
        matches!(err, RelayoutError::ElementSize { bits: 0 }),
        "{err}"
    );
    // A destination view that writes an element twice.
    let twice = StridedView::new(&[13, 150], &[0, 1], 0).unwrap();
    let err = RelayoutPlan::xla_to_view(
        FromTo {
            from: &to,
            to: &twice,
        },
        2,
    )
    .unwrap_err();
    assert!(
        matches!(err, RelayoutError::OverlappingDestination { .. }),
        "{err}"
    );
}
