//! Tiled buffers: the memory orders of XLA's "Tiled layout" document and
//! the values of XLA's unit tests, and properties on random shapes and
//! tilings (the forward map, the inverse map and the incremental iteration
//! agree; every element has exactly one position inside the buffer).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use index_util::{IndexError, PhysicalLayout, TiledLayout, linear_index_for_nested_tiling};
use layout_util::LayoutBuilder;
use proptest::prelude::*;
use schema::{COMBINE_DIMENSION, PrimitiveType, Shape, Tile};

fn layout(text: &str) -> TiledLayout {
    TiledLayout::new(&text.parse().unwrap()).unwrap()
}

/// The buffer in memory order: row-major element numbers, `.` for padding.
fn order(layout: &TiledLayout) -> String {
    let mut cells = Vec::new();
    let mut expected = 0;
    layout.for_each_position(|position, element| {
        assert_eq!(position, expected);
        expected += 1;
        cells.push(element.map_or(".".to_owned(), |e| e.to_string()));
    });
    assert_eq!(expected, layout.buffer_len());
    cells.join(" ")
}

fn row_major(dims: &[i64], index: &[i64]) -> i64 {
    index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
}

#[test]
fn xla_document_figure_1() {
    // f32[3,5]{1,0:T(2,2)}: the picture of XLA's tiled_layout.md.
    let tiled = layout("f32[3,5]{1,0:T(2,2)}");
    assert_eq!(
        order(&tiled),
        "0 1 5 6 2 3 7 8 4 . 9 . 10 11 . . 12 13 . . 14 . . ."
    );
    assert_eq!(tiled.buffer_dimensions(), [2, 3, 2, 2]);
    // The worked example: (2,3) -> tile (1,1), within (0,1) -> 17.
    assert_eq!(tiled.position(&[2, 3]).unwrap(), 17);
    assert_eq!(tiled.logical(17).unwrap(), Some(vec![2, 3]));
}

#[test]
fn xla_document_figure_2_repeated_tiling() {
    // f32[4,8]{1,0:T(2,4)(2,1)}: each 2x4 tile holds its two rows
    // interleaved column by column.
    let tiled = layout("f32[4,8]{1,0:T(2,4)(2,1)}");
    assert_eq!(
        order(&tiled),
        "0 8 1 9 2 10 3 11 4 12 5 13 6 14 7 15 \
         16 24 17 25 18 26 19 27 20 28 21 29 22 30 23 31"
    );
    assert_eq!(tiled.buffer_dimensions(), [2, 2, 1, 4, 2, 1]);
}

#[test]
fn xla_document_alternative_bf16_packing() {
    // 8x8 tiled (2,4)(2,1,1,1): the element with the red dot, (6,5), is at
    // 51; the second tile joins pairs of tiles of rows.
    let tiled = layout("bf16[8,8]{1,0:T(2,4)(2,1,1,1)}");
    assert_eq!(tiled.position(&[6, 5]).unwrap(), 51);
    assert_eq!(tiled.logical(51).unwrap(), Some(vec![6, 5]));
    assert_eq!(tiled.buffer_dimensions(), [2, 2, 2, 4, 2, 1, 1, 1]);
}

#[test]
fn xla_document_combined_dimensions() {
    // F32[2,7,8,11,10]{4,3,2,1,0} tiled (*,*,2,*,3) is F32[112,110] tiled
    // (2,3), with dims 0-2 and 3-4 combined row-major.
    let combined = layout("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
    let plain = layout("f32[112,110]{1,0:T(2,3)}");
    assert_eq!(combined.buffer_len(), plain.buffer_len());
    assert_eq!(combined.buffer_dimensions(), plain.buffer_dimensions());
    let dims = [2, 7, 8, 11, 10];
    let mut seen = 0;
    for i in 0..2 * 7 * 8 * 11 * 10 {
        let mut index = [0; 5];
        let mut rest = i;
        for (slot, &d) in index.iter_mut().zip(&dims).rev() {
            *slot = rest % d;
            rest /= d;
        }
        let flat = [
            (index[0] * 7 + index[1]) * 8 + index[2],
            index[3] * 10 + index[4],
        ];
        let position = combined.position(&index).unwrap();
        assert_eq!(position, plain.position(&flat).unwrap());
        assert_eq!(combined.logical(position).unwrap(), Some(index.to_vec()));
        seen += 1;
    }
    assert_eq!(seen, 12320);
    // The slow (non-incremental) iteration agrees with the plain layout's.
    let mut a = Vec::new();
    combined.for_each_position(|_, e| a.push(e.is_some()));
    let mut b = Vec::new();
    plain.for_each_position(|_, e| b.push(e.is_some()));
    assert_eq!(a, b);
}

#[test]
fn xla_unit_test_values() {
    // LayoutUtilTest (LinearIndexForNestedTiling): f32[8,4]{1,0:T(2,2)}
    // {3,1} -> 11; bf16[2048]{0:T(1024)(128)(2,1)} {128} -> 1, {1} -> 2.
    assert_eq!(
        layout("f32[8,4]{1,0:T(2,2)}").position(&[3, 1]).unwrap(),
        11
    );
    let bf16 = layout("bf16[2048]{0:T(1024)(128)(2,1)}");
    assert_eq!(bf16.position(&[128]).unwrap(), 1);
    assert_eq!(bf16.position(&[1]).unwrap(), 2);
    assert_eq!(bf16.position(&[0]).unwrap(), 0);
    assert_eq!(bf16.logical(1).unwrap(), Some(vec![128]));
}

#[test]
fn xla_shape_util_test_sizes() {
    // ShapeUtilTest.Int4ShapeSize: s4[64,128] E(4) is 64*128/2 bytes, and
    // so is s4[9216,6144] tiled (64,128)(8,1) with E(4).
    let size = |text: &str| layout(text).buffer_size_in_bytes();
    assert_eq!(size("s4[64,128]{1,0:E(4)}"), 64 * 128 / 2);
    assert_eq!(
        size("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}"),
        9216 * 6144 / 2
    );
    // XlaShapeUtilTest.ZeroSize: any zero dimension is a zero-byte buffer.
    for dims in [
        "0,64,128", "128,0,64", "64,128,0", "0,63,127", "127,0,63", "63,127,0",
    ] {
        assert_eq!(size(&format!("s4[{dims}]{{2,1,0:E(4)}}")), 0);
        assert_eq!(size(&format!("s4[{dims}]{{2,1,0:T(8,128)(2,1)E(4)}}")), 0);
    }
}

#[test]
fn tiles_with_more_dimensions_than_the_shape() {
    // f32[5]{0:T(2,2)} counts as f32[1,5]: rows 0 and 1 of each 2x2 tile,
    // the second row all padding.
    let tiled = layout("f32[5]{0:T(2,2)}");
    assert_eq!(order(&tiled), "0 1 . . 2 3 . . 4 . . .");
    assert_eq!(tiled.buffer_size_in_bytes(), 48);
}

#[test]
fn tiles_with_fewer_dimensions_than_the_shape() {
    // f32[2,3,3]{2,1,0:T(2,2)}: each [3,3] matrix tiled on its own.
    let tiled = layout("f32[2,3,3]{2,1,0:T(2,2)}");
    assert_eq!(
        order(&tiled),
        "0 1 3 4 2 . 5 . 6 7 . . 8 . . . 9 10 12 13 11 . 14 . 15 16 . . 17 . . ."
    );
}

#[test]
fn sub_byte_and_tail_padding_sizes() {
    // Positions count elements; bytes pack E(4) two to a byte.
    let s4 = layout("s4[10,200]{1,0:T(8,128)(4,1)E(4)}");
    assert_eq!(s4.buffer_len(), 4096);
    assert_eq!(s4.buffer_size_in_bytes(), 2048);
    assert_eq!(s4.byte_offset(3), (1, 4));
    let s4_unpacked = layout("s4[10,200]{1,0:T(8,128)(4,1)}");
    assert_eq!(s4_unpacked.buffer_size_in_bytes(), 4096);
    // L(100): 24 positions rounded up to 100, the tail is padding.
    let tail = layout("f32[3,5]{1,0:T(2,2)L(100)}");
    assert_eq!(tail.buffer_len(), 100);
    assert_eq!(tail.logical(99).unwrap(), None);
    assert_eq!(order(&tail).matches('.').count(), 100 - 15);
    // A later tile may pad up to the aligned allocation: (3) after T(2,2)
    // addresses 36 positions, inside the 40 XLA allocates with L(40)
    // (ArraySize: 24 positions rounded up to 40).
    let inside = layout("f32[3,5]{1,0:T(2,2)(3)L(40)}");
    assert_eq!(
        (inside.buffer_len(), inside.buffer_size_in_bytes()),
        (40, 160)
    );
    assert_eq!(order(&inside).matches('.').count(), 40 - 15);
    assert_eq!(
        TiledLayout::new(&"f32[3,5]{1,0:T(2,2)(3)L(30)}".parse().unwrap())
            .unwrap_err()
            .to_string(),
        "unsupported tiled layout f32[3,5]{1,0:T(2,2)(3)L(30)}: tile (3) pads the buffer to 36 elements, \
         but XLA allocates 30 (ShapeUtil::ArraySize counts only the first tile)"
    );
}

#[test]
fn unsupported_layouts_are_errors() {
    let error = |text: &str| {
        TiledLayout::new(&text.parse().unwrap())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error("f32[3,5]{1,0:T(2,2)(3)}"),
        "unsupported tiled layout f32[3,5]{1,0:T(2,2)(3)}: tile (3) pads the buffer to 36 elements, \
         but XLA allocates 24 (ShapeUtil::ArraySize counts only the first tile)"
    );
    assert!(error("f32[4,4]{1,0:T(2,*)}").contains("ends with *"));
    let mut padded: Shape = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    padded.layout.as_mut().unwrap().padded_dimensions = vec![4, 6];
    assert!(
        TiledLayout::new(&padded)
            .unwrap_err()
            .to_string()
            .contains("classic padding")
    );
    assert!(matches!(
        TiledLayout::new(
            &format!("f32[2,3]{{1,0:T(1,{})}}", i64::MAX)
                .parse()
                .unwrap()
        ),
        Err(IndexError::Overflow { .. })
    ));
    // Overflow anywhere (tile padding, tail padding, bytes) is an error.
    for text in [
        "f32[9223372036854775807]{0:T(2,2)}",
        "f32[2,2]{1,0:T(9223372036854775807,9223372036854775807)}",
    ] {
        assert!(
            matches!(
                TiledLayout::new(&text.parse().unwrap()),
                Err(IndexError::Overflow { .. })
            ),
            "{text}"
        );
    }
    // The bytes are bounded, as XLA's `ValidateShapeSize` bounds them, not
    // the bits: 2^60 bytes of s8 fit (2^63 bits), 2^63 bytes of f64 do not.
    assert_eq!(
        layout("s8[1152921504606846976]").buffer_size_in_bytes(),
        1 << 60
    );
    assert_eq!(
        layout("s8[1152921504606846976]").byte_offset((1 << 60) - 1),
        ((1 << 60) - 1, 0)
    );
    assert_eq!(
        layout("s8[9223372036854775807]").buffer_size_in_bytes(),
        i64::MAX
    );
    assert_eq!(
        TiledLayout::new(&"f64[1152921504606846976]{0:T(1)}".parse().unwrap())
            .unwrap_err()
            .to_string(),
        "the buffer of shape f64[1152921504606846976] (padding and tiles included) has more than i64::MAX bytes"
    );
    // Tail padding to i64::MAX positions of 4 bytes each.
    assert!(matches!(
        TiledLayout::new(
            &"f32[2,3]{1,0:T(2,2)L(9223372036854775807)}"
                .parse()
                .unwrap()
        ),
        Err(IndexError::ByteOverflow { .. })
    ));
    // 2^60 elements of 4 bits fit: 2^59 bytes.
    assert_eq!(
        layout("s4[1152921504606846976]{0:T(1)E(4)}").buffer_size_in_bytes(),
        1 << 59
    );
    let tiled = layout("f32[3,5]{1,0:T(2,2)}");
    assert!(matches!(
        tiled.position(&[3, 0]),
        Err(IndexError::IndexOutOfBounds { dimension: 0, .. })
    ));
    assert!(matches!(
        tiled.position(&[1]),
        Err(IndexError::RankMismatch { .. })
    ));
    assert!(matches!(
        tiled.logical(24),
        Err(IndexError::LinearIndexOutOfBounds { size: 24, .. })
    ));
}

#[test]
fn untiled_layouts_are_the_physical_layout() {
    // The seeds' padded example: a d 0 b e 0 c f 0 0 0 0 0 0 0.
    let padded = layout("f32[2,3]{0,1:PAD(3,5)}");
    assert_eq!(order(&padded), "0 3 . 1 4 . 2 5 . . . . . . .");
    assert!(!padded.is_tiled());
    assert_eq!(layout("f32[]").buffer_len(), 1);
    assert_eq!(order(&layout("f32[]")), "0");
    assert_eq!(order(&layout("f32[0,3]{1,0:T(2,2)}")), "");
}

/// A random array with a random layout and 0 to 3 random tiles (`*`
/// entries allowed but never last), or classic padding of up to 2 per
/// dimension when there are no tiles.
fn tiled_array() -> impl Strategy<Value = Shape> {
    (0_usize..=4)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(0_i64..=6, rank),
                Just((0_i64..).take(rank).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(
                    prop::collection::vec(
                        prop_oneof![8 => 1_i64..=4, 1 => Just(COMBINE_DIMENSION)],
                        1..=5,
                    ),
                    0..=3,
                ),
                prop::collection::vec(0_i64..=2, rank),
            )
        })
        .prop_map(|(dims, m2m, mut tiles, extra)| {
            for tile in &mut tiles {
                if let Some(last) = tile.last_mut() {
                    *last = (*last).max(1);
                }
            }
            let mut layout = LayoutBuilder::new(&m2m);
            if tiles.is_empty() {
                layout =
                    layout.padded_dimensions(dims.iter().zip(extra).map(|(d, e)| d + e).collect());
            }
            let tiles = tiles
                .into_iter()
                .map(|dimensions| Tile { dimensions })
                .collect();
            Shape {
                element_type: PrimitiveType::F32 as i32,
                is_dynamic_dimension: vec![false; dims.len()],
                dimensions: dims,
                layout: Some(Box::new(layout.tiles(tiles).build())),
                ..Shape::default()
            }
        })
}

proptest! {
    #[test]
    fn order_index_and_inverse_agree(shape in tiled_array()) {
        let tiled = match TiledLayout::new(&shape) {
            Ok(tiled) => tiled,
            Err(IndexError::UnsupportedTiledLayout { reason, .. }) => {
                prop_assert!(reason.contains("XLA allocates"), "{}", reason);
                return Ok(());
            }
            Err(e) => panic!("{shape}: {e}"),
        };
        let len = usize::try_from(tiled.buffer_len()).unwrap();
        let mut order = Vec::with_capacity(len);
        tiled.for_each_position(|position, element| {
            assert_eq!(usize::try_from(position).unwrap(), order.len());
            order.push(element);
        });
        prop_assert_eq!(order.len(), len);
        let dims = shape.dimensions.clone();
        let count: i64 = dims.iter().product();
        // Every element exactly once.
        let mut seen = vec![false; usize::try_from(count).unwrap()];
        for (position, element) in order.iter().enumerate() {
            let position = i64::try_from(position).unwrap();
            let logical = tiled.logical(position).unwrap();
            prop_assert_eq!(logical.as_ref().map(|m| row_major(&dims, m)), *element);
            if let Some(e) = element {
                let slot = &mut seen[usize::try_from(*e).unwrap()];
                prop_assert!(!*slot, "element {} twice", e);
                *slot = true;
                let multi = logical.unwrap();
                prop_assert_eq!(tiled.position(&multi).unwrap(), position);
            }
        }
        prop_assert!(seen.iter().all(|&s| s));
        // Tiled without `*`, XLA's LinearIndexForNestedTiling agrees.
        let tiles = &shape.layout.as_ref().unwrap().tiles;
        let combine = tiles.iter().any(|t| t.dimensions.contains(&COMBINE_DIMENSION));
        if !tiles.is_empty() && !combine {
            for (position, element) in order.iter().enumerate() {
                if element.is_some() {
                    let multi = tiled.logical(i64::try_from(position).unwrap()).unwrap().unwrap();
                    prop_assert_eq!(
                        linear_index_for_nested_tiling(&shape, &multi).unwrap(),
                        i64::try_from(position).unwrap()
                    );
                }
            }
        }
        // Untiled (maybe classically padded), it is XLA's IndexUtil.
        if tiles.is_empty() {
            let physical = PhysicalLayout::new(&shape).unwrap();
            prop_assert_eq!(tiled.buffer_len(), physical.padded_element_count());
            for (position, element) in order.iter().enumerate() {
                let position = i64::try_from(position).unwrap();
                prop_assert_eq!(
                    physical.multidimensional_index(position).ok(),
                    element.map(|_| tiled.logical(position).unwrap().unwrap())
                );
            }
        }
    }
}
