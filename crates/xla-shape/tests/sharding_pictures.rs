//! Sharding pictures against jax 0.12 (`build-tools/gen_sharding_pictures.py`,
//! `tests/golden/sharding_pictures.jsonl`): arrays placed by `NamedSharding`s
//! over meshes whose devices are in other orders than their ids, drawn with
//! the meshes' device ids. Each tile is labelled with the ids of the devices
//! jax gives its box (`devices_indices_map`): small arrays a cell an element
//! (each cell labelled), large ones a block a tile (each tile labelled once).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use conformance::load;
use serde_json::Value;

/// The labelled cells of an SVG picture: each cell's label (the text just
/// before its `tile N` note), its ids sorted, with how many cells have it.
fn labels(svg: &str) -> BTreeMap<Vec<i64>, usize> {
    let texts: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>')
                .and_then(|(_, rest)| rest.split_once("</text>"))
        })
        .map(|(content, _)| content)
        .collect();
    let mut out = BTreeMap::new();
    for pair in texts.windows(2) {
        if pair[1].starts_with("tile ") {
            let mut ids: Vec<i64> = pair[0].split(',').map(|d| d.parse().unwrap()).collect();
            ids.sort_unstable();
            *out.entry(ids).or_insert(0) += 1;
        }
    }
    out
}

/// What jax says each tile's label must be: the ids of the devices of
/// each box, sorted, with the cells the picture labels it in (its elements
/// in the cell view, one in the block view).
fn expected(row: &Value, blocks: bool) -> BTreeMap<Vec<i64>, usize> {
    let mut by_box: BTreeMap<Vec<(i64, i64)>, Vec<i64>> = BTreeMap::new();
    for (id, index) in row["boxes"].as_object().unwrap() {
        let index: Vec<(i64, i64)> = index
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_i64().unwrap(), r[1].as_i64().unwrap()))
            .collect();
        by_box.entry(index).or_default().push(id.parse().unwrap());
    }
    by_box
        .into_iter()
        .map(|(index, mut ids)| {
            ids.sort_unstable();
            let elements: i64 = index.iter().map(|(a, b)| b - a).product();
            (
                ids,
                if blocks {
                    1
                } else {
                    usize::try_from(elements).unwrap()
                },
            )
        })
        .collect()
}

#[test]
fn tiles_are_labelled_by_the_devices_jax_gives_them() {
    let rows = load("sharding_pictures.jsonl").unwrap();
    assert_eq!(rows.len(), 7);
    let mut blocks_seen = 0;
    for row in rows {
        let row = Value::Object(row);
        let dims: Vec<i64> = serde_json::from_value(row["dims"].clone()).unwrap();
        let ids: Vec<i64> = serde_json::from_value(row["device_ids"].clone()).unwrap();
        let text = row["sharding"].as_str().unwrap();
        let shape = shape_util::make_shape(schema::PrimitiveType::F32, &dims).unwrap();
        let sharding = sharding_util::sdy::read_sharding(text, None).unwrap();
        let svg =
            xla_shape_front::draw_hlo_sharding_on_devices(&shape, &sharding, None, None, &ids)
                .unwrap();
        let blocks = svg.contains("blocks: one a shard");
        blocks_seen += usize::from(blocks);
        assert_eq!(
            blocks,
            dims.iter().rev().take(2).any(|&d| d > 32),
            "{dims:?}"
        );
        assert_eq!(
            labels(&svg),
            expected(&row, blocks),
            "{dims:?} {text} on {ids:?}"
        );
    }
    assert_eq!(blocks_seen, 4);
}

#[test]
fn the_issue_weight_names_devices_3_and_7_first() {
    // `devs[[3,6,0,5,7,1,4,2]].reshape(2, 4)`, `P(None, "model")`: the
    // first column's tile is on devices 3 and 7 (positions 0 and 4).
    let shape: schema::Shape = "f32[512,1024]".parse().unwrap();
    let s = sharding_util::sdy::read_sharding(
        "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
        None,
    )
    .unwrap();
    let svg = xla_shape_front::draw_hlo_sharding_on_devices(
        &shape,
        &s,
        None,
        None,
        &[3, 6, 0, 5, 7, 1, 4, 2],
    )
    .unwrap();
    let first = svg.find(">3,7</text>").unwrap();
    // Devices 0 and 4 hold the third column (positions 2 and 6).
    assert!(svg.find(">0,4</text>").unwrap() > first);
    assert!(svg.contains("a cell is 32\u{d7}32 elements"));
}

#[test]
fn draw_takes_the_device_ids() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("xla-shape")
        .args([
            "draw",
            "f32[8,8]",
            "--sharding",
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
            "--device-ids",
            "3,6,0,5,7,1,4,2",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let svg = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        labels(&svg),
        BTreeMap::from([
            (vec![0, 4], 16),
            (vec![1, 6], 16),
            (vec![2, 5], 16),
            (vec![3, 7], 16)
        ])
    );
    let output = assert_cmd::cargo::cargo_bin_cmd!("xla-shape")
        .args([
            "draw",
            "f32[8]",
            "--sharding",
            "{devices=[2]<=[2]}",
            "--device-ids",
            "3,6,0",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let said = [output.stdout, output.stderr].concat();
    assert!(
        String::from_utf8(said)
            .unwrap()
            .contains("3 device ids for the sharding's 2 devices")
    );
}
