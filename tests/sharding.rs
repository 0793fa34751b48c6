//! Golden tests of `sharding-util` against real XLA 0.12 (`build-tools/gen_sharding.py`):
//! - `sharding_text.jsonl`: `HloSharding::from_string` → `to_string`, `to_proto` bytes,
//!   `from_proto` back, and XLA's error texts (message and column) for hand-picked and
//!   random strings, named (mesh-axes) ones with `v3_to_v2_sharding`;
//! - `sharding_escapes.jsonl` (`build-tools/gen_sharding_escapes.py`): quoted axis names
//!   and metadata strings with C escapes, read as XLA reads them;
//! - `sharding_protos.jsonl` (`build-tools/gen_sharding_protos.py`): `OpSharding` bytes
//!   through `HloSharding::from_proto` → `to_string` and `to_proto` bytes, or XLA's
//!   reason for refusing them;
//! - `sharding_device_put.jsonl`: each device's data after `jax.device_put` between two
//!   NamedShardings = our reshard plan executed over per-device buffers;
//! - `sharding_indices.jsonl`: jax's per-device indices (`devices_indices_map`) for even shapes;
//! - `sharding_spmd.jsonl`: the parameter shape XLA's SPMD partitioner gives each device.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, load, required, same};
use prost::Message;
use sharding_util::HloSharding;

/// XLA's `was parsing 1:COL: error: MESSAGE` parts.
fn xla_error(error: &str) -> Option<(usize, &str)> {
    let rest = error.split("was parsing 1:").nth(1)?;
    let (col, rest) = rest.split_once(": error: ")?;
    let message = rest.split('\n').next()?;
    Some((col.parse().ok()?, message))
}

/// The inputs XLA accepts that we reject on purpose (docs/conformance.md,
/// "Deviations from XLA"): the input, a fragment of our message, and why.
const TEXT_DEVIATIONS: &[(&str, &str, &str)] = &[
    (
        "{devices=[2,4]<=[4,2]T(0,0)}",
        "is not a permutation",
        "a transpose that is not a permutation (XLA aborts on queries)",
    ),
    (
        "{mesh['x'=2,'y'=4], device_ids=([4,2]T(0,0)), [{'x'}, {}]}",
        "is not a permutation",
        "a transpose that is not a permutation (XLA aborts on queries)",
    ),
    (
        "{devices=[9223372036854775807]<=[9223372036854775807]}",
        "more than 2147483647 devices",
        "more devices than XLA can address (XLA throws bad_alloc on queries)",
    ),
    (
        "{devices=[9223372036854775807,2]<=[9223372036854775807,2]T(1,0)}",
        "more than 2147483647 devices",
        "more devices than XLA can address (XLA throws bad_alloc on queries)",
    ),
    (
        "{devices=[4294967296,4294967296]<=[4294967296,4294967296]T(1,0)}",
        "more than 2147483647 devices",
        "more devices than XLA can address (XLA throws bad_alloc on queries)",
    ),
    (
        "{mesh['x'=9223372036854775807,'y'=2], [{'x'}]}",
        "more than 2147483647 devices",
        "a mesh of more devices than XLA can address (XLA's v3_to_v2 crashes)",
    ),
    (
        "{mesh['x'=4294967296,'y'=4294967296], [{'x'}]}",
        "more than 2147483647 devices",
        "a mesh of more devices than XLA can address (XLA's v3_to_v2 crashes)",
    ),
    (
        "{mesh['x'=65536,'y'=65536], [{'x'}, {'y'}]}",
        "more than 2147483647 devices",
        "a mesh of more devices than XLA can address (XLA's v3_to_v2 crashes)",
    ),
];

/// XLA's reasons for refusing a sharding where it gives no parser position
/// (a RET_CHECK of `from_proto`, a CHECK failure that aborts, a status of
/// another step), each with the fragment of our message that names the
/// same reason.
const REASONS: &[(&str, &str)] = &[
    ("d > 0; }", "is not positive"),
    (
        "Extra content after sharding",
        "Extra content after sharding",
    ),
    (
        "Check failed: subgroup_types.empty()",
        "last_tile_dim_replicate and last_tile_dims= cannot be given together",
    ),
    ("pre-size must be >= 1", "its pre-size must be at least 1"),
    ("sub-axis size must be > 1", "its size must be more than 1"),
    (
        "next_pre_size must divide the full axis size",
        "does not split axis",
    ),
    (
        "Sub-axis size must be strictly less than the full axis size",
        "its size must be less than the axis size",
    ),
    ("Axes cannot coexist or axes overlap", "is used twice"),
    (
        "Axis index must be less than number of axes",
        "is not in a mesh of",
    ),
    ("mesh_axis_index_ >= 0", "is negative"),
    ("Mesh has duplicate axis names", "is not unique"),
    (
        "axes must be sorted by mesh axis index and sub-axis pre-size",
        "axes must be sorted by mesh axis index and sub-axis pre-size",
    ),
    ("can be merged: ", "can be merged: "),
    (
        "Non-iota device assignment has iota device id list",
        "in order must be left out",
    ),
    (
        "Device ids must be a permutation",
        "not a permutation of 0..",
    ),
    ("Mesh device ids must be non-negative", "is negative"),
    ("Mesh axis size must be positive", "not positive"),
    (
        "Maximal sharding is expected to have single device assignment, but",
        "Maximal sharding is expected to have single device assignment, but",
    ),
    (
        "proto.type() == OpSharding::OTHER",
        "unknown OpSharding type",
    ),
    (
        ") proto.tile_assignment_devices().empty()",
        "both iota_reshape_dims and tile_assignment_devices",
    ),
    (
        "proto.iota_reshape_dims().size() == proto.iota_transpose_perm().size()",
        "iota_transpose_perm should have the same rank as iota_reshape_dims",
    ),
    (
        "!proto.tile_assignment_devices().empty()",
        "without tile_assignment_devices",
    ),
    (
        "!proto.tile_assignment_dimensions().empty()",
        "without tile_assignment_dimensions",
    ),
    (
        "product_of_dimensions == product_of_iota_dimensions",
        "does not match the tile assignment dimensions product",
    ),
    (
        "product_of_dimensions == proto.tile_assignment_devices().size()",
        "does not match the tile assignment size",
    ),
    (
        "!proto.replicate_on_last_tile_dim()",
        "both last_tile_dims and replicate_on_last_tile_dim",
    ),
    (
        "Tuple sharding is expected to have no metadata.",
        "Tuple sharding is expected to have no metadata.",
    ),
];

/// XLA's refusals that give no reason at all: a syntax error with an empty
/// message, an allocation failure, a crash with no message (a segfault):
/// any error of ours is then right.
fn reasonless(xla: &str) -> bool {
    xla.trim_end().ends_with("Syntax error:")
        || xla == "std::bad_alloc"
        || xla.starts_with("process died with exit code")
}

/// How a refusal was compared with XLA's.
#[derive(Debug, Default, PartialEq)]
struct Refusals {
    /// Message and column of XLA's parser.
    located: usize,
    /// XLA's reason (`REASONS`).
    with_reason: usize,
    /// XLA gave none.
    without_reason: usize,
}

impl Refusals {
    /// Checks that `ours` refuses for XLA's reason `xla` and counts it.
    fn check(&mut self, xla: &str, ours: &str, offset: Option<usize>) -> Result<(), String> {
        if let Some((col, message)) = xla_error(xla) {
            same("message", ours, message)?;
            same("offset", offset, Some(col))?;
            self.located += 1;
            return Ok(());
        }
        if reasonless(xla) {
            self.without_reason += 1;
            return Ok(());
        }
        let Some((_, want)) = REASONS.iter().find(|(theirs, _)| xla.contains(theirs)) else {
            return Err(format!(
                "XLA's reason {xla:?} is not in REASONS (ours: {ours})"
            ));
        };
        if !ours.contains(want) {
            return Err(format!(
                "message {ours:?} does not name XLA's reason {xla:?}"
            ));
        }
        self.with_reason += 1;
        Ok(())
    }
}

fn check_text(row: &Row, refusals: &mut Refusals) -> Result<Option<&'static str>, String> {
    let input = required(row, "input")?;
    let parsed = input.parse::<HloSharding>();
    if row.get("ok").and_then(serde_json::Value::as_bool) == Some(true) {
        let sharding = match parsed {
            Ok(s) => s,
            Err(e) => {
                let listed = TEXT_DEVIATIONS
                    .iter()
                    .find(|(i, fragment, _)| *i == input && e.message.contains(fragment));
                return match listed {
                    Some((_, _, why)) => Ok(Some(why)),
                    None => Err(format!("rejected: {e}")),
                };
            }
        };
        same(
            "to_string",
            sharding.to_string().as_str(),
            required(row, "string")?,
        )?;
        let bytes = sharding.to_proto().encode_to_vec();
        same(
            "to_proto hex",
            conformance::hex_encode(&bytes).as_str(),
            required(row, "hex")?,
        )?;
        let decoded = schema::OpSharding::decode(bytes.as_slice()).map_err(|e| e.to_string())?;
        let back = HloSharding::from_proto(&decoded).map_err(|e| format!("from_proto: {e}"))?;
        same(
            "from_proto to_string",
            back.to_string().as_str(),
            required(row, "reparse")?,
        )?;
        if let Some(v2) = field(row, "v2") {
            same("v3_to_v2", sharding.v3_to_v2().to_string().as_str(), v2)?;
        }
        return Ok(None);
    }
    let error = field(row, "error")
        .or(field(row, "crash"))
        .unwrap_or_default();
    match parsed {
        Ok(s) => Err(format!("accepted as {s}; XLA: {error}")),
        Err(e) => refusals
            .check(error, &e.message, Some(e.offset))
            .map(|()| None),
    }
}

#[test]
fn sharding_text() {
    let mut tally = Tally::new("sharding_text");
    let mut refusals = Refusals::default();
    let mut deviations = 0;
    for row in load("sharding_text.jsonl").unwrap() {
        let case = field(&row, "input").unwrap_or_default().to_string();
        match check_text(&row, &mut refusals) {
            Ok(None) => tally.record(&case, Ok(())),
            Ok(Some(why)) => {
                deviations += 1;
                tally.record_deviation(&case, Err("rejected".to_string()), why);
            }
            Err(e) => tally.record(&case, Err(e)),
        }
    }
    assert!(tally.finish());
    let want = Refusals {
        located: 268,
        with_reason: 48,
        without_reason: 11,
    };
    assert_eq!(refusals, want, "refusals compared with XLA's");
    assert_eq!(deviations, TEXT_DEVIATIONS.len());
}

#[test]
fn sharding_escapes() {
    let mut tally = Tally::new("sharding_escapes");
    let mut refusals = Refusals::default();
    for row in load("sharding_escapes.jsonl").unwrap() {
        let case = field(&row, "input").unwrap_or_default().to_string();
        let outcome = check_text(&row, &mut refusals).and_then(|deviation| match deviation {
            None => Ok(()),
            Some(why) => Err(format!("a deviation ({why}) where none is listed")),
        });
        tally.record(&case, outcome);
    }
    assert!(tally.finish());
    let want = Refusals {
        located: 16,
        with_reason: 0,
        without_reason: 2,
    };
    assert_eq!(refusals, want, "refusals compared with XLA's");
}

/// Every device's box; jax indexes a maximal sharding as replicated, where
/// only its device holds data: the others are given the whole array here.
fn box_rows(sharding: &HloSharding, shape: &schema::Shape) -> Result<Vec<Vec<[i64; 2]>>, String> {
    let maximal = matches!(sharding.kind(), sharding_util::Kind::Maximal(_));
    (0..8)
        .map(|d| {
            let b = sharding.device_box(shape, d).map_err(|e| e.to_string())?;
            let b = match b {
                Some(b) => b,
                None if maximal => sharding_util::DeviceBox {
                    device: d,
                    tile: Vec::new(),
                    offsets: vec![0; shape.dimensions.len()],
                    limits: shape.dimensions.clone(),
                },
                None => return Err(format!("device {d} holds nothing")),
            };
            Ok(b.offsets
                .iter()
                .zip(&b.limits)
                .map(|(&o, &l)| [o, l])
                .collect())
        })
        .collect()
}

#[test]
fn sharding_indices() {
    let mut tally = Tally::new("sharding_indices");
    for row in load("sharding_indices.jsonl").unwrap() {
        let text = required(&row, "sharding").unwrap();
        let dims = conformance::ints(&row, "dims").unwrap();
        let case = format!("{text} over {dims:?}");
        let outcome = (|| {
            let sharding: HloSharding = text.parse().map_err(|e| format!("{e}"))?;
            let shape = shape_util::make_shape(schema::PrimitiveType::F32, &dims)
                .map_err(|e| e.to_string())?;
            let want: Vec<Vec<[i64; 2]>> =
                serde_json::from_value(row["devices"].clone()).map_err(|e| e.to_string())?;
            same("boxes", box_rows(&sharding, &shape)?, want)
        })();
        tally.record(&case, outcome);
    }
    assert!(tally.finish());
}

#[test]
fn sharding_spmd() {
    let mut tally = Tally::new("sharding_spmd");
    for row in load("sharding_spmd.jsonl").unwrap() {
        let text = required(&row, "sharding").unwrap();
        let shape_text = required(&row, "shape").unwrap();
        let case = format!("{text} on {shape_text}");
        let outcome = (|| {
            let sharding: HloSharding = text.parse().map_err(|e| format!("{e}"))?;
            let shape: schema::Shape = shape_text.parse().map_err(|e| format!("{e}"))?;
            let ours = sharding
                .validate(&shape, 8)
                .and_then(|()| sharding.shard_shape(&shape));
            if let Some(want) = field(&row, "shard_shape") {
                // The compile goes through StableHLO, which drops the layout: compare without it.
                let want: schema::Shape = want.parse().map_err(|e| format!("{e}"))?;
                let got = ours.map_err(|e| e.to_string())?;
                return same("shard shape", got.human_string(), want.human_string());
            }
            if let Some(crash) = field(&row, "crash") {
                // XLA crashes compiling shard groups on a parameter; we answer.
                let got = ours.map_err(|e| format!("{e} (XLA crashed: {crash})"))?;
                return same("shard group kept", sharding.shard_group().is_some(), true)
                    .map(|()| drop(got));
            }
            let want = required(&row, "error")?;
            match ours {
                Ok(s) => Err(format!("accepted as {s}; XLA: {want}")),
                Err(e) => same("error", e.to_string().as_str(), want),
            }
        })();
        tally.record(&case, outcome);
    }
    assert!(tally.finish());
}

/// Each device's shard buffer (row-major shard shape) of the global array
/// whose elements are their row-major numbers, as i32.
fn shard_buffers(shape: &schema::Shape, s: &HloSharding, n: i64) -> Vec<Vec<u8>> {
    let shard = s.shard_shape(shape).unwrap().dimensions;
    let len = usize::try_from(shard.iter().product::<i64>()).unwrap() * 4;
    (0..n)
        .map(|d| {
            let mut buf = vec![0u8; len];
            if let Some(b) = s.device_box(shape, d).unwrap() {
                let sizes: Vec<i64> = b
                    .offsets
                    .iter()
                    .zip(&b.limits)
                    .map(|(o, l)| l - o)
                    .collect();
                for k in 0..sizes.iter().product::<i64>() {
                    let (mut rest, mut local, mut global) = (k, 0, 0);
                    let mut index = vec![0; sizes.len()];
                    for (slot, &z) in index.iter_mut().zip(&sizes).rev() {
                        *slot = rest % z;
                        rest /= z;
                    }
                    for (i, &x) in index.iter().enumerate() {
                        local = local * shard[i] + x;
                        global = global * shape.dimensions[i] + x + b.offsets[i];
                    }
                    let at = usize::try_from(local).unwrap() * 4;
                    buf[at..at + 4].copy_from_slice(&i32::try_from(global).unwrap().to_le_bytes());
                }
            }
            buf
        })
        .collect()
}

#[test]
fn sharding_device_put() {
    let mut tally = Tally::new("sharding_device_put");
    for row in load("sharding_device_put.jsonl").unwrap() {
        let dims = conformance::ints(&row, "dims").unwrap();
        let from_text = required(&row, "from").unwrap();
        let to_text = required(&row, "to").unwrap();
        let case = format!("{from_text} -> {to_text} over {dims:?}");
        let outcome = (|| {
            let shape = shape_util::make_shape(schema::PrimitiveType::S32, &dims)
                .map_err(|e| e.to_string())?;
            let from: HloSharding = from_text.parse().map_err(|e| format!("{e}"))?;
            let to: HloSharding = to_text.parse().map_err(|e| format!("{e}"))?;
            let plan = sharding_util::reshard_plan(&shape, &from, &to, Some(8))
                .map_err(|e| e.to_string())?;
            let sources = shard_buffers(&shape, &from, 8);
            let mut got: Vec<Vec<u8>> = shard_buffers(&shape, &to, 8)
                .iter()
                .map(|b| vec![0; b.len()])
                .collect();
            sharding_util::execute_plan(&plan, (&from, &shape), (&to, &shape), &sources, &mut got)
                .map_err(|e| e.to_string())?;
            let got: Vec<Vec<i64>> = got
                .iter()
                .map(|b| {
                    b.chunks(4)
                        .map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                        .collect()
                })
                .collect();
            let want: Vec<Vec<i64>> =
                serde_json::from_value(row["data"].clone()).map_err(|e| e.to_string())?;
            same("device data", got, want)
        })();
        tally.record(&case, outcome);
    }
    assert!(tally.finish());
}

/// The kinds of `OpSharding` XLA's `from_proto` reads that we refuse
/// (docs/sharding.md, "Deviations from XLA").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ProtoDeviation {
    /// `last_tile_dims` holds a type that is no subgroup type (`TUPLE`,
    /// `OTHER`, `UNKNOWN`, a value no type has) on a dimension larger
    /// than 1: XLA prints `error_type.`, a text nothing parses.
    NoSubgroupType,
    /// `iota_transpose_perm` is not a permutation: XLA keeps it and
    /// aborts on queries.
    NotAPermutation,
}

impl ProtoDeviation {
    fn why(self) -> &'static str {
        match self {
            Self::NoSubgroupType => {
                "a subgroup type that is no subgroup type (XLA prints `error_type.`)"
            }
            Self::NotAPermutation => {
                "a transpose that is not a permutation (XLA aborts on queries)"
            }
        }
    }
}

/// The listed deviation `p` falls under, found from its fields alone, with
/// the exact message we refuse it with: the first tuple element that has
/// one, or for a tiled sharding of more than one device an iota transpose
/// that is not a permutation, else the first `last_tile_dims` entry that is
/// no subgroup type on a dimension larger than 1.
fn listed_deviation(p: &schema::OpSharding) -> Option<(ProtoDeviation, String)> {
    const TUPLE: i32 = 2;
    const OTHER: i32 = 3;
    if p.named_sharding.is_some() {
        return None;
    }
    if p.r#type == TUPLE {
        return p.tuple_shardings.iter().find_map(listed_deviation);
    }
    if p.r#type != OTHER {
        return None;
    }
    let reshape = &p.iota_reshape_dims;
    let one_device = if reshape.is_empty() {
        p.tile_assignment_devices.len() == 1
    } else {
        reshape.iter().product::<i64>() == 1
    };
    if one_device {
        return None;
    }
    let perm = &p.iota_transpose_perm;
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    let identity: Vec<i32> = (0..).take(perm.len()).collect();
    if !reshape.is_empty() && perm.len() == reshape.len() && sorted != identity {
        let list: Vec<String> = perm.iter().map(ToString::to_string).collect();
        return Some((
            ProtoDeviation::NotAPermutation,
            format!(
                "iota_transpose_perm ({}) is not a permutation of 0..{}",
                list.join(","),
                perm.len()
            ),
        ));
    }
    let dims = &p.tile_assignment_dimensions;
    let first = dims.len().checked_sub(p.last_tile_dims.len())?;
    let subgroup_types = [0, 1, 4, 6]; // REPLICATED, MAXIMAL, MANUAL, UNREDUCED
    p.last_tile_dims
        .iter()
        .zip(&dims[first..])
        .find(|&(t, &size)| !subgroup_types.contains(t) && size != 1)
        .map(|(t, _)| {
            (
                ProtoDeviation::NoSubgroupType,
                format!("OpSharding type {t} cannot be a subgroup type"),
            )
        })
}

/// Whether our refusal `ours` of `proto`, which XLA read as `xla`, is a
/// listed deviation: the one its fields fall under, with our message for
/// it word for word.
fn proto_deviation(proto: &schema::OpSharding, xla: &str, ours: &str) -> Option<ProtoDeviation> {
    let (kind, message) = listed_deviation(proto)?;
    let xla_agrees = kind != ProtoDeviation::NoSubgroupType || xla.contains("error_type.");
    (ours == message && xla_agrees).then_some(kind)
}

fn check_proto(row: &Row, refusals: &mut Refusals) -> Result<Option<ProtoDeviation>, String> {
    let bytes = conformance::hex_decode(required(row, "proto")?)?;
    let proto = schema::OpSharding::decode(bytes.as_slice()).map_err(|e| e.to_string())?;
    let ours = HloSharding::from_proto(&proto);
    if row.get("ok").and_then(serde_json::Value::as_bool) != Some(true) {
        let xla = field(row, "error")
            .or(field(row, "crash"))
            .unwrap_or_default();
        return match ours {
            Ok(s) => Err(format!("accepted as {s}; XLA: {xla}")),
            Err(e) => refusals.check(xla, e.message(), None).map(|()| None),
        };
    }
    let string = required(row, "string")?;
    let sharding = match ours {
        Ok(s) => s,
        Err(e) => {
            return match proto_deviation(&proto, string, e.message()) {
                Some(kind) => Ok(Some(kind)),
                None => Err(format!("refused: {e}; XLA read {string}")),
            };
        }
    };
    same("to_string", sharding.to_string().as_str(), string)?;
    same(
        "to_proto hex",
        conformance::hex_encode(&sharding.to_proto().encode_to_vec()).as_str(),
        required(row, "hex")?,
    )?;
    Ok(None)
}

#[test]
fn sharding_protos() {
    let mut tally = Tally::new("sharding_protos");
    let mut refusals = Refusals::default();
    let mut deviations = std::collections::BTreeMap::new();
    for row in load("sharding_protos.jsonl").unwrap() {
        let case = field(&row, "proto").unwrap_or_default().to_string();
        match check_proto(&row, &mut refusals) {
            Ok(None) => tally.record(&case, Ok(())),
            Ok(Some(kind)) => {
                *deviations.entry(kind).or_insert(0) += 1;
                tally.record_deviation(&case, Err("refused".to_string()), kind.why());
            }
            Err(e) => tally.record(&case, Err(e)),
        }
    }
    assert!(tally.finish());
    let want = Refusals {
        located: 0,
        with_reason: 156,
        without_reason: 2,
    };
    assert_eq!(refusals, want, "refusals compared with XLA's");
    assert_eq!(
        deviations.into_iter().collect::<Vec<_>>(),
        [
            (ProtoDeviation::NoSubgroupType, 35),
            (ProtoDeviation::NotAPermutation, 2)
        ]
    );
}
