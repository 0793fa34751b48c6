//! The picture of a sharded array: its logical grid, each cell labelled with
//! the devices holding it and coloured by its tile (the devices of one
//! replication group share a colour), tiles outlined; any rank (slices past
//! rank 2, as for shapes).

use schema::Shape;
use sharding_util::{HloSharding, Kind};

use super::{Cell, Fill, Outline, Picture, Strip, window};

/// The most device ids a cell lists before it abbreviates.
const MAX_LABEL: usize = 4;

/// The picture of `shape` under `sharding` over `devices` devices.
///
/// # Errors
/// A message if the sharding does not fit the shape and device count.
pub fn picture(shape: &Shape, sharding: &HloSharding, devices: i64) -> Result<Picture, String> {
    sharding
        .validate(shape, devices)
        .map_err(|e| e.to_string())?;
    let shard = sharding
        .shard_shape(shape)
        .map_err(|e| e.to_string())?
        .dimensions;
    let dims = &shape.dimensions;
    let counts: Vec<i64> = dims
        .iter()
        .zip(&shard)
        .map(|(&d, &s)| if s == 0 { 1 } else { (d + s - 1) / s })
        .collect();
    let tiles: i64 = counts.iter().product();
    let axes: Vec<String> = (0..dims.len())
        .map(|d| format!("dim {d} \u{b7} size {} \u{b7} shard {}", dims[d], shard[d]))
        .collect();
    let holders = |tile: &[i64]| -> Result<Vec<i64>, String> {
        match sharding.kind() {
            Kind::Tiled { .. } => Ok(sharding
                .tile_devices(tile)
                .map_err(|e| e.to_string())?
                .take(MAX_LABEL + 1)
                .collect()),
            Kind::Maximal(d) => Ok(vec![*d]),
            _ => Ok((0..devices.min(8)).take(MAX_LABEL + 1).collect()),
        }
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
        let who = holders(&tile)?;
        let mut label: Vec<String> = who.iter().take(MAX_LABEL).map(i64::to_string).collect();
        if who.len() > MAX_LABEL {
            label.push("\u{2026}".to_owned());
        }
        Ok(Cell {
            label: label.join(","),
            note: format!("tile {flat}"),
            fill: Fill::Position(flat),
            emphasis: false,
        })
    };
    let panel_dims = window::panel_dims(dims.len());
    let outlines = |rows: usize, cols: usize| -> Vec<Outline> {
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
        let mut out = Vec::new();
        for (row, rows) in side(panel_dims.0, rows) {
            for &(col, cols) in &side(panel_dims.1, cols) {
                out.push(Outline {
                    row,
                    col,
                    rows,
                    cols,
                    level: 0,
                });
            }
        }
        out
    };
    let (panels, window_notes) = window::panels(dims, &axes, cell, outlines)?;
    let mut notes = vec![format!(
        "{devices} devices \u{b7} {tiles} tiles of {} \u{b7} cells: the devices holding them, coloured by tile",
        sharding.shard_shape(shape).map_err(|e| e.to_string())?
    )];
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
