//! `RelayoutPlan`: one plan from views or XLA shapes, run on the calling
//! thread, on a pool and as a part, with the same bytes each way; views
//! and XLA shapes of the same relayout take the same path.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use relayout::{FromTo, RelayoutError, RelayoutPlan, Strategy, StridedView, rayon};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn buffer_len(shape: &Shape) -> usize {
    usize::try_from(index_util::TiledLayout::array_size(shape).unwrap()).unwrap()
}

#[test]
fn strategies_and_simd_levels_pad_as_one_word() {
    assert_eq!(format!("{:>10}|", Strategy::Runs), "      runs|");
    assert_eq!(
        format!("{:<16}|", Strategy::TileTranspose),
        "tile_transpose  |"
    );
    assert_eq!(format!("{:>8}|", relayout::SimdLevel::Avx2), "    avx2|");
    assert_eq!(Strategy::SingleCopy.to_string(), "single_copy");
}

#[test]
fn views_and_xla_shapes_of_nchw_to_nhwc_take_the_same_path() {
    // The peers' form: the row-major NCHW source permuted to NHWC order,
    // into a row-major NHWC destination; and the XLA form of the same copy.
    let sizes = [32, 64, 56, 56];
    let src = StridedView::row_major(&sizes)
        .unwrap()
        .permute(&[0, 2, 3, 1])
        .unwrap();
    let dst = StridedView::row_major(&[32, 56, 56, 64]).unwrap();
    let views = RelayoutPlan::new(
        FromTo {
            from: &src,
            to: &dst,
        },
        4,
    )
    .unwrap();
    let (a, b) = (
        shape("f32[32,64,56,56]{3,2,1,0}"),
        shape("f32[32,64,56,56]{1,3,2,0}"),
    );
    let xla = RelayoutPlan::xla(FromTo { from: &a, to: &b }).unwrap();
    assert_eq!(views.strategy(), xla.strategy());
    // The constructors of stride-util name the same copy once more.
    let (nchw, nhwc) = (
        StridedView::nchw(&sizes).unwrap(),
        StridedView::nhwc(&sizes).unwrap(),
    );
    let named = RelayoutPlan::new(
        FromTo {
            from: &nchw,
            to: &nhwc,
        },
        4,
    )
    .unwrap();
    assert_eq!(named.strategy(), xla.strategy());
    // And the bytes agree.
    let input = pattern(32 * 64 * 56 * 56 * 4);
    let (mut one, mut two) = (vec![0; input.len()], vec![0; input.len()]);
    views.run(&input, &mut one).unwrap();
    xla.run(&input, &mut two).unwrap();
    assert!(one == two);
}

#[test]
fn xla_layouts_on_a_pool_write_the_bytes_of_one_thread() {
    // 4 MiB arrays: every large piece is split on the pool.
    let row_major = "f32[1024,1024]{1,0}";
    let layouts = [
        "f32[1024,1024]{0,1}",
        "f32[1024,1024]{0,1:T(8,128)}",
        "f32[1024,1024]{1,0:T(8,128)}",
        "f32[1024,1024]{0,1:PAD(1030,1100)}",
        "f32[1024,1024]{1,0:PAD(1024,1100)PV(one)}",
    ];
    let pools = [pool(2), pool(3)];
    for to in layouts {
        let (from, to) = (shape(row_major), shape(to));
        let plan = RelayoutPlan::xla(FromTo {
            from: &from,
            to: &to,
        })
        .unwrap();
        let input = pattern(buffer_len(&from));
        let mut one = vec![0xEE; buffer_len(&to)];
        plan.run(&input, &mut one).unwrap();
        for pool in &pools {
            let mut many = vec![0xEE; one.len()];
            plan.run_in(pool, &input, &mut many).unwrap();
            assert!(many == one, "{}", to.human_string_with_layout());
        }
        let back = RelayoutPlan::xla(FromTo {
            from: &to,
            to: &from,
        })
        .unwrap();
        let mut again = vec![0; input.len()];
        back.run_in(&pools[1], &one, &mut again).unwrap();
        assert!(again == input, "{} back", to.human_string_with_layout());
    }
}

#[test]
fn packed_and_repacked_layouts_on_a_pool() {
    for (from, to) in [
        ("s4[512,512]{1,0:E(4)}", "s4[512,512]{0,1:E(4)}"),
        ("s4[512,512]{1,0}", "s4[512,512]{0,1:T(8,128)(4,1)E(4)}"),
        ("s4[512,512]{1,0:T(8,128)(4,1)E(4)}", "s4[512,512]{0,1}"),
        ("bf16[1024,1024]{1,0}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}"),
    ] {
        let (from, to) = (shape(from), shape(to));
        let plan = RelayoutPlan::xla(FromTo {
            from: &from,
            to: &to,
        })
        .unwrap();
        // Sub-byte values one per byte keep their low bits only.
        let input: Vec<u8> = pattern(buffer_len(&from)).iter().map(|b| b & 0x7).collect();
        let mut one = vec![0_u8; buffer_len(&to)];
        plan.run(&input, &mut one).unwrap();
        let mut many = vec![0; one.len()];
        plan.run_in(&pool(2), &input, &mut many).unwrap();
        assert!(many == one, "{}", to.human_string_with_layout());
    }
}

#[test]
fn a_plan_runs_many_times_and_checks_each_buffer() {
    let a = StridedView::row_major(&[64, 64]).unwrap();
    let plan = RelayoutPlan::new(
        FromTo {
            from: &a.transpose(),
            to: &a,
        },
        4,
    )
    .unwrap();
    assert_eq!(plan.strategy(), Strategy::Tiled);
    let input = pattern(64 * 64 * 4);
    let mut first = vec![0; input.len()];
    plan.run(&input, &mut first).unwrap();
    let mut second = vec![0; input.len()];
    plan.run_part(&input, &mut second, 1 << 30).unwrap();
    assert!(first == second);
    let err = plan.run(&input[..100], &mut second).unwrap_err();
    assert!(
        matches!(err, RelayoutError::OutsideBuffer { side: "source", .. }),
        "{err}"
    );
    let err = plan.run(&input, &mut second[..100]).unwrap_err();
    assert!(
        matches!(
            err,
            RelayoutError::OutsideBuffer {
                side: "destination",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn plans_refuse_what_no_run_could_copy() {
    let a = StridedView::row_major(&[4, 4]).unwrap();
    let b = StridedView::row_major(&[4, 5]).unwrap();
    let err = RelayoutPlan::new(FromTo { from: &a, to: &b }, 4).unwrap_err();
    assert!(matches!(err, RelayoutError::ShapeMismatch { .. }), "{err}");
    let err = RelayoutPlan::new(FromTo { from: &a, to: &a }, 0).unwrap_err();
    assert!(
        matches!(err, RelayoutError::ElementSize { bits: 0 }),
        "{err}"
    );
    let twice = StridedView::new(&[4, 4], &[0, 1], 0).unwrap();
    let err = RelayoutPlan::new(
        FromTo {
            from: &a,
            to: &twice,
        },
        4,
    )
    .unwrap_err();
    assert!(
        matches!(err, RelayoutError::OverlappingDestination { .. }),
        "{err}"
    );
    let err = RelayoutPlan::new_bits(FromTo { from: &a, to: &a }, 3).unwrap_err();
    assert!(
        matches!(err, RelayoutError::ElementSize { bits: 3 }),
        "{err}"
    );
    let (f32s, s32s) = (shape("f32[2,3]{1,0}"), shape("s32[2,3]{1,0}"));
    let err = RelayoutPlan::xla(FromTo {
        from: &f32s,
        to: &s32s,
    })
    .unwrap_err();
    assert!(matches!(err, RelayoutError::ShapeMismatch { .. }), "{err}");
}
