//! `shard` and `reshard` between arbitrary shardings of arbitrary shapes:
//! nothing panics, sizes beyond `i64` and plans beyond the caps are errors;
//! over small arrays the plan covers every destination element exactly
//! once, its byte totals are the destination's, and `execute_plan` gives
//! every device the elements a copy by global index gives it.
//!
//! The shardings are built here (replicated, maximal, or a tile grid over an
//! explicit device list, with or without replicated trailing dimension),
//! so each device's block is known without the crate's own placement: tile
//! `t` of a dimension of `n` split `g` ways holds `[t*ceil(n/g),
//! min((t+1)*ceil(n/g), n))`.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use schema::Shape;
use sharding_util::{HloSharding, ShardReport, execute_plan, reshard_plan};

/// A sharding as the target builds it.
#[derive(Debug, Arbitrary)]
enum Spec {
    Replicated,
    Maximal(u8),
    /// Tile counts per array dimension, a replicated trailing dimension,
    /// and a rotation and a reversal of the device list.
    Tiled {
        grid: Vec<u8>,
        replicas: u8,
        rotate: u8,
        reverse: bool,
    },
}

#[derive(Debug, Arbitrary)]
struct Input {
    dims: Vec<u64>,
    element: u8,
    from: Spec,
    to: Spec,
    devices: u8,
}

/// The text of `spec` over `rank` dimensions, and each device's tile (grid
/// index per array dimension; `None`: holds nothing) over `n` devices.
fn build(spec: &Spec, rank: usize, n: usize) -> Option<(String, Vec<Option<Vec<usize>>>)> {
    match spec {
        Spec::Replicated => Some(("{replicated}".to_owned(), vec![Some(vec![0; rank]); n])),
        Spec::Maximal(d) => {
            let d = usize::from(*d) % n;
            let tiles = (0..n).map(|k| (k == d).then(|| vec![0; rank])).collect();
            Some((format!("{{maximal device={d}}}"), tiles))
        }
        Spec::Tiled {
            grid,
            replicas,
            rotate,
            reverse,
        } => {
            let mut grid: Vec<usize> = (0..rank)
                .map(|i| grid.get(i).map_or(1, |&g| usize::from(g % 4) + 1))
                .collect();
            let replicas = usize::from(replicas % 3) + 1;
            let tiles: usize = grid.iter().product();
            if tiles * replicas != n || (tiles == 1 && replicas == 1) || rank == 0 {
                return None;
            }
            let mut list: Vec<usize> = (0..n).collect();
            list.rotate_left(usize::from(*rotate) % n);
            if *reverse {
                list.reverse();
            }
            let mut held = vec![None; n];
            for (flat, &device) in list.iter().enumerate() {
                let mut rest = flat / replicas;
                let mut tile = vec![0; rank];
                for i in (0..rank).rev() {
                    tile[i] = rest % grid[i];
                    rest /= grid[i];
                }
                held[device] = Some(tile);
            }
            let last = if replicas > 1 {
                grid.push(replicas);
                " last_tile_dim_replicate"
            } else {
                ""
            };
            let join = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
            Some((
                format!("{{devices=[{}]{}{last}}}", join(&grid), join(&list)),
                held,
            ))
        }
    }
}

/// The block `[lo, hi)` tile `tile` holds of `dims` split `grid` ways.
fn block(dims: &[usize], grid: &[usize], tile: &[usize]) -> Vec<(usize, usize)> {
    dims.iter()
        .zip(grid)
        .zip(tile)
        .map(|((&n, &g), &t)| {
            let s = n.div_ceil(g);
            ((t * s).min(n), ((t + 1) * s).min(n))
        })
        .collect()
}

fn grid_of(spec: &Spec, rank: usize) -> Vec<usize> {
    match spec {
        Spec::Tiled { grid, .. } => (0..rank)
            .map(|i| grid.get(i).map_or(1, |&g| usize::from(g % 4) + 1))
            .collect(),
        _ => vec![1; rank],
    }
}

/// Each device's shard buffer (u32 elements, row-major, of the shard
/// shape): the global row-major index of each element it holds, padding
/// `fill`.
fn buffers(dims: &[usize], grid: &[usize], held: &[Option<Vec<usize>>], fill: u32) -> Vec<Vec<u8>> {
    let shard: Vec<usize> = dims
        .iter()
        .zip(grid)
        .map(|(&n, &g)| n.div_ceil(g))
        .collect();
    let len: usize = shard.iter().product();
    held.iter()
        .map(|tile| {
            let mut out = vec![fill; len];
            if let Some(tile) = tile {
                let b = block(dims, grid, tile);
                for (local, slot) in out.iter_mut().enumerate() {
                    let mut rest = local;
                    let mut global = 0;
                    let mut inside = true;
                    let mut stride = 1;
                    let mut index = vec![0; dims.len()];
                    for i in (0..dims.len()).rev() {
                        index[i] = rest % shard[i];
                        rest /= shard[i];
                    }
                    for i in (0..dims.len()).rev() {
                        let g = b[i].0 + index[i];
                        inside &= g < b[i].1;
                        global += g * stride;
                        stride *= dims[i];
                    }
                    if inside {
                        *slot = u32::try_from(global).unwrap_or(u32::MAX);
                    } else {
                        *slot = 0;
                    }
                }
            }
            out.iter().flat_map(|v| v.to_le_bytes()).collect()
        })
        .collect()
}

fuzz_target!(|input: Input| {
    let rank = input.dims.len().min(3);
    let n = usize::from(input.devices % 8) + 1;
    let Some((from_text, from_held)) = build(&input.from, rank, n) else {
        return;
    };
    let Some((to_text, to_held)) = build(&input.to, rank, n) else {
        return;
    };
    // Mostly small dimensions; some huge, for the size checks.
    let dims: Vec<u64> = input.dims[..rank]
        .iter()
        .map(|&d| {
            if d >> 63 == 1 {
                d & (i64::MAX as u64)
            } else {
                d % 13
            }
        })
        .collect();
    let element = ["u8", "s16", "f32", "s4", "f64"][usize::from(input.element % 5)];
    let text = format!(
        "{element}[{}]",
        dims.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let Ok(shape) = text.parse::<Shape>() else {
        return;
    };
    let from: HloSharding = from_text
        .parse()
        .unwrap_or_else(|e| panic!("{from_text}: {e}"));
    let to: HloSharding = to_text.parse().unwrap_or_else(|e| panic!("{to_text}: {e}"));
    let devices = Some(n as i64);
    let report = ShardReport::new(&from, &shape, devices);
    let plan = match reshard_plan(&shape, &from, &to, devices) {
        Ok(plan) => plan,
        Err(e) => {
            // Only sizes beyond i64 are refused here.
            assert!(
                e.kind() == sharding_util::ErrorKind::TooLarge,
                "{text} {from_text} -> {to_text}: {e}"
            );
            return;
        }
    };
    let elements: u128 = dims.iter().map(|&d| u128::from(d)).product();
    if elements > 4096 {
        return;
    }
    let report = report.unwrap_or_else(|e| panic!("{text} {from_text}: {e}"));
    // An empty array with a huge dimension: nothing more to compare.
    if dims.iter().any(|&d| d > 4096) {
        return;
    }
    let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let (from_grid, to_grid) = (grid_of(&input.from, rank), grid_of(&input.to, rank));
    // The report's boxes are the blocks of the target's own placement.
    for (device, shard) in report.devices.iter().enumerate() {
        let want = from_held[device]
            .as_ref()
            .map(|t| block(&dims, &from_grid, t));
        let got = shard.held.as_ref().map(|b| {
            b.offsets
                .iter()
                .zip(&b.limits)
                .map(|(&o, &l)| (o as usize, l as usize))
                .collect::<Vec<_>>()
        });
        assert_eq!(got, want, "{text} {from_text}: device {device}");
    }
    // Every destination element exactly once, from a device holding it.
    let mut covered = vec![vec![0_u8; elements as usize]; n];
    for piece in &plan.pieces {
        let (src, dst) = (piece.from as usize, piece.to as usize);
        let src_block = block(
            &dims,
            &from_grid,
            from_held[src].as_ref().expect("source holds"),
        );
        let mut index = vec![0; rank];
        let sizes: Vec<usize> = piece
            .offsets
            .iter()
            .zip(&piece.limits)
            .map(|(&o, &l)| (l - o) as usize)
            .collect();
        let count: usize = sizes.iter().product();
        for k in 0..count {
            let mut rest = k;
            for i in (0..rank).rev() {
                index[i] = piece.offsets[i] as usize + rest % sizes[i];
                rest /= sizes[i];
            }
            assert!(
                index
                    .iter()
                    .zip(&src_block)
                    .all(|(&x, &(lo, hi))| lo <= x && x < hi),
                "{from_text} -> {to_text}: device {src} does not hold {index:?}"
            );
            let flat = index.iter().zip(&dims).fold(0, |acc, (&x, &d)| acc * d + x);
            covered[dst][flat] += 1;
        }
    }
    for (device, tile) in to_held.iter().enumerate() {
        let want: Vec<u8> = match tile {
            None => vec![0; elements as usize],
            Some(t) => {
                let b = block(&dims, &to_grid, t);
                (0..elements as usize)
                    .map(|flat| {
                        let mut rest = flat;
                        let mut inside = true;
                        for i in (0..rank).rev() {
                            let x = rest % dims[i];
                            rest /= dims[i];
                            inside &= b[i].0 <= x && x < b[i].1;
                        }
                        u8::from(inside)
                    })
                    .collect()
            }
        };
        assert_eq!(
            covered[device], want,
            "{text} {from_text} -> {to_text}: device {device}"
        );
    }
    // XLA stores s4 a byte per element unless a layout packs it (`E(4)`).
    let bits = match element {
        "u8" | "s4" => 8,
        "s16" => 16,
        "f32" => 32,
        _ => 64,
    };
    let piece_bytes: i64 = plan
        .pieces
        .iter()
        .map(|p| {
            let e: i64 = p
                .offsets
                .iter()
                .zip(&p.limits)
                .map(|(o, l)| l - o)
                .product();
            (e * bits + 7) / 8
        })
        .sum();
    assert_eq!(plan.bytes_moved + plan.bytes_kept, piece_bytes);
    // Execute u32-sized elements: as f32 (4 bytes) the global index moves.
    if element != "f32" {
        return;
    }
    let sources = buffers(&dims, &from_grid, &from_held, 0);
    let want = buffers(&dims, &to_grid, &to_held, 0xdead_beef);
    let mut got: Vec<Vec<u8>> = want.iter().map(|b| vec![0xab; b.len()]).collect();
    // Devices holding nothing keep what they had.
    for (device, tile) in to_held.iter().enumerate() {
        if tile.is_none() {
            got[device].clone_from(&want[device]);
        }
    }
    execute_plan(&plan, (&from, &shape), (&to, &shape), &sources, &mut got)
        .unwrap_or_else(|e| panic!("{text} {from_text} -> {to_text}: {e}"));
    assert_eq!(got, want, "{text} {from_text} -> {to_text}");
});
