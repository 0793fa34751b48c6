//! Sharding text (named, mesh-axes, ones too) -> parse -> print -> parse (same
//! sharding, same text), a named sharding's `v3_to_v2` text parses back, OpSharding
//! -> from_proto -> to_proto (stable bytes after XLA's one normalization), and
//! for tiled shardings over a small shape: every element lies in exactly
//! one box per replica (each replication group covers the array once), and
//! a reshard plan to `{replicated}` covers every device's array once.
//!
//! The input's first bytes pick the array's dimensions; the rest is the
//! sharding text. Nothing may panic.

#![no_main]

mod sharding_names;

use libfuzzer_sys::fuzz_target;
use schema::OpSharding;
use sharding_names::raw_names;
use sharding_util::{HloSharding, Kind, reshard_plan};

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(sharding) = text.parse::<HloSharding>() else {
        return;
    };
    let printed = sharding.to_string();
    // XLA unescapes a quoted mesh axis name when it parses it and prints the
    // name as it is: a name with a backslash or a quote reads back as
    // another name (or not at all) in XLA too, so only other texts must
    // round-trip.
    if !raw_names(&sharding) {
        let reparsed: HloSharding = match printed.parse() {
            Ok(s) => s,
            Err(e) => panic!("{text:?} prints as {printed:?}, which does not parse: {e}"),
        };
        assert_eq!(reparsed.to_string(), printed, "{text:?}");
        // The same sharding, metadata aside (the text does not carry it).
        assert_eq!(
            without_metadata(reparsed.to_proto()),
            without_metadata(sharding.to_proto()),
            "{text:?}"
        );
    }
    let proto = sharding.to_proto();
    let back =
        HloSharding::from_proto(&proto).unwrap_or_else(|e| panic!("{text:?}: from_proto: {e}"));
    // XLA's from_proto normalizes once more (`{devices=[2]<=[2] last_tile_dims={unreduced}}`
    // comes back `{unreduced}`); after that the bytes are stable.
    let again = HloSharding::from_proto(&back.to_proto())
        .unwrap_or_else(|e| panic!("{text:?}: from_proto: {e}"));
    assert_eq!(
        again.to_proto(),
        back.to_proto(),
        "{text:?}: proto round trip"
    );
    // A named (mesh-axes) sharding's tile-assignment form prints as text that
    // parses back to itself.
    if sharding.named().is_some() {
        let v2 = sharding.v3_to_v2().to_string();
        let v2_back: HloSharding = v2
            .parse()
            .unwrap_or_else(|e| panic!("{text:?}: v2 {v2:?}: {e}"));
        assert_eq!(v2_back.to_string(), v2, "{text:?}: v2 round trip");
    }
    let Kind::Tiled {
        tiles, subgroups, ..
    } = sharding.kind()
    else {
        return;
    };
    // Manual and unreduced parts are not copies: the invariants are about data.
    if subgroups
        .iter()
        .any(|&t| t != sharding_util::SubgroupType::Replicated)
    {
        return;
    }
    let n = tiles.num_elements();
    if n > 4096 {
        return;
    }
    let rank = sharding.tiled_data_rank();
    let dims: Vec<i64> = (0..rank)
        .map(|d| i64::from((head >> (d % 4)) % 7))
        .collect();
    let Ok(shape) = shape_util::make_shape(schema::PrimitiveType::S8, &dims) else {
        return;
    };
    if sharding.validate(&shape, n).is_err() {
        return;
    }
    let elements: i64 = dims.iter().product();
    if elements > 4096 {
        return;
    }
    let Ok(groups) = sharding.replication_groups(n) else {
        return;
    };
    let replicas = groups.first().map_or(0, Vec::len);
    // Every element in exactly one box per replica index.
    for r in 0..replicas {
        let mut seen = vec![0u8; usize::try_from(elements).unwrap_or(0)];
        for group in &groups {
            assert_eq!(group.len(), replicas, "{text:?}: uneven replication groups");
            let b = sharding.device_box(&shape, group[r]).unwrap().unwrap();
            count_box(&dims, &b.offsets, &b.limits, &mut seen);
        }
        assert!(
            seen.iter().all(|&c| c == 1),
            "{text:?} over {dims:?}: replica {r} does not cover the array once"
        );
    }
    let everywhere: HloSharding = "{replicated}".parse().unwrap();
    let plan = reshard_plan(&shape, &sharding, &everywhere, Some(n)).unwrap();
    let total = plan.bytes_moved + plan.bytes_kept;
    assert_eq!(
        total,
        elements * n,
        "{text:?}: plan does not cover every device once"
    );
});

fn without_metadata(mut p: OpSharding) -> OpSharding {
    p.metadata.clear();
    if let Some(named) = &mut p.named_sharding {
        named.metadata.clear();
    }
    p.tuple_shardings = p
        .tuple_shardings
        .into_iter()
        .map(without_metadata)
        .collect();
    p
}

fn count_box(dims: &[i64], offsets: &[i64], limits: &[i64], seen: &mut [u8]) {
    let sizes: Vec<i64> = offsets.iter().zip(limits).map(|(o, l)| l - o).collect();
    let count: i64 = sizes.iter().product();
    for k in 0..count {
        let mut rest = k;
        let mut flat = 0;
        let mut index = vec![0; sizes.len()];
        for (slot, &z) in index.iter_mut().zip(&sizes).rev() {
            *slot = rest % z;
            rest /= z;
        }
        for ((i, o), d) in index.iter().zip(offsets).zip(dims) {
            flat = flat * d + i + o;
        }
        seen[usize::try_from(flat).unwrap()] += 1;
    }
}
