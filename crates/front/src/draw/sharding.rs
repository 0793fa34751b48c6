//! The picture of a sharded array: its logical grid, each cell labelled with
//! the devices holding it and coloured by its tile (the devices of one
//! replication group share a colour), tiles outlined; any rank (slices past
//! rank 2, as for shapes). An array too large for a cell an element is
//! drawn at the level of its tiles ([`super::blocks`]). Devices are named
//! by their ids when the device assignment is given (jax's
//! `mesh.devices.flat`), else by the sharding's device numbers. The notes
//! name the mesh's axes (a named sharding's own, or the ones given) and the
//! devices that hold nothing.

use schema::Shape;
use sharding_util::{HloSharding, Kind, Placement};

use super::{Cell, Fill, Outline, Picture, Strip, blocks, grid, outline_grid, window};

/// The most device ids a cell lists before it abbreviates.
const MAX_LABEL: usize = 4;

/// The most device ids the note of devices holding nothing lists.
const MAX_EMPTY_LISTED: usize = 32;
/// The most devices whose shards are looked at for that note.
const MAX_SCANNED: i64 = 1 << 16;

/// A mesh's axes (names and sizes, major first) and the device id of each
/// device number, each when given.
pub type MeshDevices<'a> = (Option<&'a [(String, i64)]>, Option<&'a [i64]>);

/// The picture of `shape` under `sharding` over `devices` devices, over a
/// mesh of `mesh_axes` (names and sizes, major first) when given, its
/// devices named by `device_ids` (the id of each device number) when given.
///
/// # Errors
/// A message if the sharding does not fit the shape and device count, or
/// the mesh's axes or the device ids do not hold `devices` devices.
pub fn picture(
    shape: &Shape,
    sharding: &HloSharding,
    devices: i64,
    (mesh_axes, device_ids): MeshDevices<'_>,
) -> Result<Picture, String> {
    sharding
        .validate(shape, devices)
        .map_err(|e| e.to_string())?;
    let mesh = mesh_note(sharding, devices, mesh_axes)?;
    let id = device_namer(device_ids, devices)?;
    let shard = sharding
        .shard_shape(shape)
        .map_err(|e| e.to_string())?
        .dimensions;
    let dims = &shape.dimensions;
    let counts = tile_counts(dims, &shard);
    let tiles = counts
        .iter()
        .try_fold(1i64, |acc, &c| acc.checked_mul(c))
        .ok_or("the sharding's tile count overflows a 64-bit integer")?;
    let axes = axis_captions(sharding, dims, &shard);
    // A tile's cell: the devices holding it, coloured by the tile.
    let tile_cell = |tile: &[i64], flat: i64| -> Result<Cell, String> {
        Ok(Cell {
            label: label(&tile_holders(sharding, devices, tile, &id)?),
            note: format!("tile {flat}"),
            fill: Fill::Position(flat),
            emphasis: false,
        })
    };
    let cell = |index: &[i64]| -> Result<Cell, String> {
        let tile: Vec<i64> = index
            .iter()
            .zip(&shard)
            .map(|(&i, &s)| if s == 0 { 0 } else { i / s })
            .collect();
        let flat = tile
            .iter()
            .zip(&counts)
            .fold(0, |acc, (&t, &c)| acc * c + t);
        tile_cell(&tile, flat)
    };
    let panel_dims = window::panel_dims(dims.len());
    let outlines = |rows: usize, cols: usize| tile_outlines(panel_dims, &shard, rows, cols);
    let large = blocks::needed(dims);
    let (panels, window_notes) = if large {
        blocks::panels(dims, &shard, &counts, &axes, tile_cell)?
    } else {
        window::panels(dims, &axes, cell, outlines)?
    };
    let mut notes = vec![format!(
        "{devices} devices \u{b7} {tiles} tiles of {}",
        sharding.shard_shape(shape).map_err(|e| e.to_string())?
    )];
    notes.extend(mesh);
    if device_ids.is_some() {
        notes.push("devices named by their ids".to_owned());
    }
    if !large {
        notes.push("cells: the devices holding them, coloured by tile".to_owned());
    }
    notes.extend(empty_note(sharding, shape, devices, &id)?);
    notes.extend(window_notes);
    Ok(Picture {
        legend: "tile",
        title: format!("{shape} {sharding}"),
        notes,
        positions: tiles,
        panels,
        strip: Strip {
            caption: String::new(),
            entries: Vec::new(),
            tick: 1,
            element_bits: 8,
        },
    })
}

/// The id of each device number: `device_ids[number]`, or the number
/// itself when no ids are given.
///
/// # Errors
/// A message if the ids are not `devices` long.
fn device_namer(device_ids: Option<&[i64]>, devices: i64) -> Result<impl Fn(i64) -> i64, String> {
    if let Some(ids) = device_ids
        && i64::try_from(ids.len()).ok() != Some(devices)
    {
        return Err(format!(
            "{} device ids for the sharding's {devices} devices",
            ids.len()
        ));
    }
    Ok(move |device: i64| -> i64 {
        device_ids
            .and_then(|ids| ids.get(usize::try_from(device).ok()?).copied())
            .unwrap_or(device)
    })
}

/// The first devices (by id, at most one more than a label lists) holding
/// source tile `tile` of `sharding` over `devices` devices.
fn tile_holders(
    sharding: &HloSharding,
    devices: i64,
    tile: &[i64],
    id: &impl Fn(i64) -> i64,
) -> Result<Vec<i64>, String> {
    match sharding.kind() {
        Kind::Tiled { .. } => Ok(sharding
            .tile_devices(tile)
            .map_err(|e| e.to_string())?
            .take(MAX_LABEL + 1)
            .map(id)
            .collect()),
        Kind::Maximal(d) => Ok(vec![id(*d)]),
        _ => Ok((0..devices.min(8)).take(MAX_LABEL + 1).map(id).collect()),
    }
}

/// The tiles along each dimension of `dims` cut into shards of `shard`.
fn tile_counts(dims: &[i64], shard: &[i64]) -> Vec<i64> {
    dims.iter()
        .zip(shard)
        .map(|(&d, &s)| match (d, s) {
            (_, 0) => 1,
            (0, _) => 0,
            // `d.div_ceil(s)` without the overflow of `d + s - 1`.
            _ => (d - 1) / s + 1,
        })
        .collect()
}

/// Each dimension's caption: its size, its shard and the mesh axes that
/// split it.
fn axis_captions(sharding: &HloSharding, dims: &[i64], shard: &[i64]) -> Vec<String> {
    (0..dims.len())
        .map(|d| {
            let mut words = format!("dim {d} \u{b7} size {} \u{b7} shard {}", dims[d], shard[d]);
            if let Some(split) = split_by(sharding, d) {
                words.push_str(&format!(" \u{b7} split by {split}"));
            }
            words
        })
        .collect()
}

/// The outlines of the tiles in a panel of `rows` by `cols` cells whose
/// rows and columns are the dimensions `panel_dims` (none: one cell wide).
fn tile_outlines(
    (row_dim, col_dim): (Option<usize>, Option<usize>),
    shard: &[i64],
    rows: usize,
    cols: usize,
) -> Vec<Outline> {
    let side = |dim: Option<usize>, shown: usize| -> Vec<(usize, usize)> {
        let Some(d) = dim else {
            return vec![(0, shown)];
        };
        let step = usize::try_from(shard[d].max(1)).unwrap_or(usize::MAX);
        (0..shown)
            .step_by(step)
            .map(|start| (start, step.min(shown - start)))
            .collect()
    };
    outline_grid(&side(row_dim, rows), &side(col_dim, cols))
}

/// A cell's label: the first of the devices `who` holding it, as many as
/// fit the cell (at most [`MAX_LABEL`]), then `…` if some are left out.
fn label(who: &[i64]) -> String {
    let mut shown = who.len().min(MAX_LABEL);
    loop {
        let mut parts: Vec<String> = who[..shown].iter().map(i64::to_string).collect();
        if who.len() > shown {
            parts.push("\u{2026}".to_owned());
        }
        let text = parts.join(",");
        if shown <= 1 || grid::fits(&text, grid::CELL) {
            return text;
        }
        shown -= 1;
    }
}

/// The note naming the mesh's axes (`mesh a=2 · b=4`): `given`, which must
/// hold `devices` devices, or else a named sharding's own mesh.
fn mesh_note(
    sharding: &HloSharding,
    devices: i64,
    given: Option<&[(String, i64)]>,
) -> Result<Option<String>, String> {
    let axes = match (given, sharding.named()) {
        (Some(axes), _) => {
            let mut held: i64 = 1;
            for (name, size) in axes {
                if *size <= 0 {
                    return Err(format!(
                        "mesh axis {name} has size {size}: sizes must be positive"
                    ));
                }
                held = held.checked_mul(*size).ok_or_else(|| {
                    format!("the mesh axes' sizes overflow at axis {name}={size}")
                })?;
            }
            if held != devices {
                return Err(format!(
                    "the mesh axes {} hold {held} devices, the sharding {devices}",
                    axes_text(axes)
                ));
            }
            axes
        }
        (None, Some(named)) => named.mesh.axes.as_slice(),
        (None, None) => return Ok(None),
    };
    if axes.is_empty() {
        return Ok(None);
    }
    Ok(Some(format!("mesh {}", axes_text(axes))))
}

/// `a=2 · b=4`.
fn axes_text(axes: &[(String, i64)]) -> String {
    axes.iter()
        .map(|(name, size)| format!("{name}={size}"))
        .collect::<Vec<_>>()
        .join(" \u{b7} ")
}

/// The mesh axes a named sharding splits dimension `d` by (`'y','x'`).
fn split_by(sharding: &HloSharding, d: usize) -> Option<String> {
    let named = sharding.named()?;
    let dim = named.dims.get(d)?;
    if dim.axes.is_empty() {
        return None;
    }
    Some(
        dim.axes
            .iter()
            .map(|r| named.axis_text(r))
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// The note listing the devices whose shard is empty (`devices holding
/// nothing: 7`), if any; past [`MAX_SCANNED`] devices, among the first of
/// them.
fn empty_note(
    sharding: &HloSharding,
    shape: &Shape,
    devices: i64,
    id: &impl Fn(i64) -> i64,
) -> Result<Option<String>, String> {
    if matches!(sharding.kind(), Kind::Unknown) {
        return Ok(None);
    }
    let placement = Placement::new(sharding, shape).map_err(|e| e.to_string())?;
    let scanned = devices.min(MAX_SCANNED);
    let mut listed = Vec::new();
    let mut count: i64 = 0;
    for device in 0..scanned {
        let held = placement
            .device_box(device)
            .map_err(|e| e.to_string())?
            .is_some_and(|b| b.offsets.iter().zip(&b.limits).all(|(o, l)| o < l));
        if !held {
            count = count.saturating_add(1);
            if listed.len() < MAX_EMPTY_LISTED {
                listed.push(id(device).to_string());
            }
        }
    }
    if count == 0 {
        return Ok(None);
    }
    let mut note = format!("devices holding nothing: {}", listed.join(", "));
    if count > i64::try_from(listed.len()).unwrap_or(i64::MAX) {
        note.push_str(&format!(", \u{2026} ({count} in all)"));
    }
    if scanned < devices {
        note.push_str(&format!(" among the first {scanned} devices"));
    }
    Ok(Some(note))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn notes(
        shape: &str,
        sharding: &str,
        devices: i64,
        axes: Option<&[(String, i64)]>,
    ) -> Vec<String> {
        let shape: Shape = shape.parse().unwrap();
        let sharding: HloSharding = sharding.parse().unwrap();
        picture(&shape, &sharding, devices, (axes, None))
            .unwrap()
            .notes
    }

    #[test]
    fn a_dimension_near_the_largest_size_counts_its_tiles_without_overflow() {
        let shape: Shape = "pred[9223372036854775807]".parse().unwrap();
        let sharding: HloSharding = "{devices=[2]<=[2]}".parse().unwrap();
        let p = picture(&shape, &sharding, 2, (None, None)).unwrap();
        assert_eq!(
            p.notes[0],
            "2 devices \u{b7} 2 tiles of pred[4611686018427387904]{0}"
        );
    }

    #[test]
    fn a_named_sharding_shows_its_mesh_and_the_axes_of_each_dimension() {
        let shape: Shape = "f32[7,8]".parse().unwrap();
        let sharding: HloSharding = "{mesh['x'=2,'y'=4], [{'y','x'}, {}]}".parse().unwrap();
        let p = picture(&shape, &sharding, 8, (None, None)).unwrap();
        assert_eq!(
            p.notes,
            [
                "8 devices \u{b7} 7 tiles of f32[1,8]{1,0}",
                "mesh x=2 \u{b7} y=4",
                "cells: the devices holding them, coloured by tile",
                "devices holding nothing: 7",
            ]
        );
        let rows = p.panels[0].row_axis.as_ref().unwrap();
        assert_eq!(
            rows.label,
            "dim 0 \u{b7} size 7 \u{b7} shard 1 \u{b7} split by 'y','x'"
        );
        let cols = p.panels[0].col_axis.as_ref().unwrap();
        assert_eq!(cols.label, "dim 1 \u{b7} size 8 \u{b7} shard 8");
    }

    #[test]
    fn given_mesh_axes_are_shown_and_must_hold_the_devices() {
        let axes = [("data".to_owned(), 2), ("model".to_owned(), 4)];
        let n = notes(
            "f32[8,8]",
            "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
            8,
            Some(&axes),
        );
        assert_eq!(n[1], "mesh data=2 \u{b7} model=4");
        assert_eq!(n.len(), 3, "{n:?}");
        let shape: Shape = "f32[8]".parse().unwrap();
        let sharding: HloSharding = "{devices=[4]<=[4]}".parse().unwrap();
        let error = picture(&shape, &sharding, 4, (Some(&axes), None)).unwrap_err();
        assert_eq!(
            error,
            "the mesh axes data=2 \u{b7} model=4 hold 8 devices, the sharding 4"
        );
        let bad = [("a".to_owned(), 0)];
        let error = picture(&shape, &sharding, 4, (Some(&bad), None)).unwrap_err();
        assert_eq!(error, "mesh axis a has size 0: sizes must be positive");
        let huge = [("a".to_owned(), i64::MAX), ("b".to_owned(), 2)];
        let error = picture(&shape, &sharding, 4, (Some(&huge), None)).unwrap_err();
        assert_eq!(error, format!("the mesh axes' sizes overflow at axis b=2"));
    }

    #[test]
    fn cell_labels_list_the_devices_that_fit() {
        assert_eq!(label(&[0, 4]), "0,4");
        assert_eq!(label(&[0, 1, 2, 3, 4]), "0,1,2,3,\u{2026}");
        assert_eq!(label(&[12, 13, 14, 15, 16]), "12,13,14,\u{2026}");
        assert_eq!(label(&[1020, 1021, 1022, 1023]), "1020,\u{2026}");
        assert_eq!(label(&[123_456_789_012]), "123456789012");
        for who in [&[12_i64, 13, 14][..], &[100, 101, 102, 103, 104]] {
            assert!(grid::fits(&label(who), grid::CELL), "{}", label(who));
        }
    }

    #[test]
    fn devices_holding_nothing_are_listed() {
        // 3 rows over 4 devices, each tile on two: tile 3 (devices 6, 7) is empty.
        let n = notes(
            "f32[3]",
            "{devices=[4,2]<=[8] last_tile_dim_replicate}",
            8,
            None,
        );
        assert_eq!(n.last().unwrap(), "devices holding nothing: 6, 7");
        let n = notes("f32[4]", "{maximal device=2}", 4, None);
        assert_eq!(n.last().unwrap(), "devices holding nothing: 0, 1, 3");
        let n = notes("f32[0,3]", "{replicated}", 2, None);
        assert_eq!(n.last().unwrap(), "devices holding nothing: 0, 1");
        let n = notes("f32[4]", "{replicated}", 2, None);
        assert!(
            !n.iter().any(|line| line.starts_with("devices holding")),
            "{n:?}"
        );
        let n = notes("f32[2]", "{devices=[64]<=[64]}", 64, None);
        let listed: Vec<String> = (2..34).map(|d| d.to_string()).collect();
        assert_eq!(
            n.last().unwrap(),
            &format!(
                "devices holding nothing: {}, \u{2026} (62 in all)",
                listed.join(", ")
            )
        );
    }

    #[test]
    fn many_devices_are_scanned_only_so_far() {
        let n = notes("f32[4]", "{maximal device=0}", 1 << 20, None);
        assert!(
            n.last()
                .unwrap()
                .ends_with("(65535 in all) among the first 65536 devices"),
            "{n:?}"
        );
    }
}
