//! [`memory_order`] against the definition: the element at each position.

#![allow(clippy::unwrap_used, clippy::panic)]

use super::memory_order;
use crate::{IndexError, PhysicalLayout, TiledLayout};

fn layout(text: &str) -> PhysicalLayout {
    PhysicalLayout::new(&text.parse().unwrap()).unwrap()
}

/// The definition: the multi-index of each linear position, row-major.
fn reference(layout: &PhysicalLayout) -> Vec<Option<i64>> {
    (0..layout.padded_element_count())
        .map(|position| match layout.multidimensional_index(position) {
            Ok(index) => Some(
                index
                    .iter()
                    .zip(layout.dimensions())
                    .fold(0, |acc, (&i, &d)| acc * d + i),
            ),
            Err(IndexError::LinearIndexInPadding { .. }) => None,
            Err(e) => panic!("{e}"),
        })
        .collect()
}

#[test]
fn memory_order_is_the_per_position_definition() {
    for text in [
        "f32[2,3]{0,1}",
        "f32[2,3]{1,0}",
        "f32[2,3]{0,1:PAD(3,5)}",
        "f32[]",
        "f32[0,3]{1,0}",
        "f32[0,3]{1,0:PAD(2,3)}",
        "u8[2,1,3,1,2]{0,2,4,1,3}",
        "u8[2,1,3,1,2]{4,3,2,1,0:PAD(3,2,4,1,2)}",
        "u8[3,2,2]{1,2,0:PAD(4,3,2)}",
        "u8[1,1,1]{0,1,2:PAD(1,3,1)}",
        "u8[2,2,2,2]{3,1,2,0:PAD(2,3,3,2)}",
    ] {
        let tiled = TiledLayout::new(&text.parse().unwrap()).unwrap();
        assert_eq!(
            memory_order(&tiled).unwrap(),
            reference(&layout(text)),
            "{text}"
        );
    }
    // The seed: rows of 3 padded to 5, column-major.
    assert_eq!(
        memory_order(&TiledLayout::new(&"f32[2,3]{0,1:PAD(3,5)}".parse().unwrap()).unwrap())
            .unwrap()[..6],
        [Some(0), Some(3), None, Some(1), Some(4), None]
    );
}
