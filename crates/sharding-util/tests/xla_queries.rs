//! `HloSharding`'s queries against the expected values of XLA's own unit
//! tests (`xla/hlo/ir/hlo_sharding_test.cc`, test names cited), and their
//! error paths. jaxlib's answers are checked in the workspace's conformance
//! tests (`tests/xla_apis.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::Shape;
use sharding_util::{ErrorKind, HloSharding, TileAssignment};

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

fn sharding(text: &str) -> HloSharding {
    text.parse().unwrap()
}

/// `HloShardingTest.Replicate`.
#[test]
fn replicate() {
    let s = HloSharding::replicate();
    assert!(s.is_replicated() && s.is_tile_maximal());
    assert!(s.uses_device(0) && s.uses_device(65535));
    assert!(!s.has_unique_device());
    assert_eq!(s, sharding("{replicated}"));
}

/// `HloShardingTest.DevicePlacement`.
#[test]
fn device_placement() {
    let s = HloSharding::assign_device(5);
    assert!(!s.is_replicated() && s.is_tile_maximal());
    assert!(!s.uses_device(0) && s.uses_device(5));
    assert_eq!(s.get_unique_device().unwrap(), 5);
    assert_ne!(s, HloSharding::replicate());
}

/// `HloShardingTest.Tile` (the passing case): `Tile({{0, 3}, {2, 1}})`
/// over `u32[4,5]`.
#[test]
fn tile() {
    let s = HloSharding::tile(TileAssignment::list(vec![2, 2], vec![0, 3, 2, 1]).unwrap());
    let u32_4_5 = shape("u32[4,5]");
    assert_eq!(s.device_for_tile_index(&[0, 0]).unwrap(), 0);
    assert_eq!(s.device_for_tile_index(&[0, 1]).unwrap(), 3);
    assert_eq!(s.device_for_tile_index(&[1, 0]).unwrap(), 2);
    assert_eq!(s.device_for_tile_index(&[1, 1]).unwrap(), 1);
    assert_eq!(s.tile_offset_for_device(&u32_4_5, 0).unwrap(), [0, 0]);
    assert_eq!(s.tile_offset_for_device(&u32_4_5, 3).unwrap(), [0, 3]);
    assert_eq!(s.tile_offset_for_device(&u32_4_5, 2).unwrap(), [2, 0]);
    assert_eq!(s.tile_offset_for_device(&u32_4_5, 1).unwrap(), [2, 3]);
    assert!(!s.has_unique_device());
    // The limits and shapes follow: tiles of ceil(5/2) = 3 columns.
    assert_eq!(s.tile_limit_for_device(&u32_4_5, 1).unwrap(), [4, 5]);
    assert_eq!(s.tile_limit_for_device(&u32_4_5, 0).unwrap(), [2, 3]);
    assert_eq!(s.tile_shape(&u32_4_5).unwrap().dimensions, [2, 3]);
    assert_eq!(
        s.tile_shape_for_device(&u32_4_5, 1).unwrap().dimensions,
        [2, 2]
    );
    assert_eq!(s.tile_index_for_device(2).unwrap(), [1, 0]);
    assert_eq!(
        (s.num_tiles().unwrap(), s.total_num_tiles().unwrap()),
        (4, 4)
    );
}

/// `HloShardingTest.EmptySingleTuple`.
#[test]
fn empty_single_tuple() {
    let s = HloSharding::single_tuple(&shape("()"), &HloSharding::assign_device(0)).unwrap();
    assert_eq!(s.tuple_elements().len(), 1);
    assert_eq!(
        s.extract_single_sharding(),
        Some(HloSharding::assign_device(0))
    );
}

/// `HloShardingTest.NestedTuple`: the sharding of each leaf of
/// `(f32[], (f32[3]), f32[4,6])`.
#[test]
fn nested_tuple() {
    let nested = shape("(f32[], (f32[3]), f32[4,6])");
    let tiled = HloSharding::tile(TileAssignment::list(vec![1, 2], vec![0, 1]).unwrap());
    let s = HloSharding::tuple(
        &nested,
        vec![
            HloSharding::replicate(),
            HloSharding::assign_device(0),
            tiled.clone(),
        ],
    )
    .unwrap();
    assert_eq!(
        s.get_sub_sharding(&nested, &[0]).unwrap(),
        HloSharding::replicate()
    );
    assert_eq!(
        s.get_sub_sharding(&nested, &[1, 0]).unwrap(),
        HloSharding::assign_device(0)
    );
    assert_eq!(s.get_sub_sharding(&nested, &[2]).unwrap(), tiled);
    assert_eq!(
        s.get_sub_sharding(&nested, &[1]).unwrap().to_string(),
        "{{maximal device=0}}"
    );
    assert_eq!(s.get_sub_sharding(&nested, &[]).unwrap(), s);
    // Wrong shapes and indices.
    let error = s.get_sub_sharding(&shape("()"), &[0]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Shape () has 0 leaf nodes while this sharding has 3"
    );
    let error = s.get_sub_sharding(&nested, &[3]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Mismatch);
    assert!(s.get_sub_sharding(&nested, &[0, 0]).is_err());
    assert!(s.get_sub_sharding(&nested, &[-1]).is_err());
    assert!(
        HloSharding::replicate()
            .get_sub_sharding(&nested, &[0])
            .is_err()
    );
}

/// `HloShardingTest.ToStringTupleTest`: `Tuple` of three leaves.
#[test]
fn tuple_of_leaves() {
    let shape3 = shape("(f32[3,5], u32[7,25], s32[9,11])");
    let s = HloSharding::tuple(
        &shape3,
        vec![
            HloSharding::replicate(),
            HloSharding::tile(TileAssignment::list(vec![1, 2], vec![3, 5]).unwrap()),
            HloSharding::assign_device(3),
        ],
    )
    .unwrap();
    assert_eq!(
        s.to_string(),
        "{{replicated}, {devices=[1,2]3,5}, {maximal device=3}}"
    );
    assert_eq!(
        HloSharding::tuple(&shape3, vec![HloSharding::replicate()])
            .unwrap_err()
            .to_string(),
        "Flat list has 1, required 3"
    );
    assert!(HloSharding::tuple(&shape("f32[2]"), vec![]).is_err());
    assert!(HloSharding::tuple(&shape3, vec![s.clone(), s.clone(), s]).is_err());
}

/// `HloShardingTest.NormalizeTrivialSubgroupToManual`.
#[test]
fn normalize_trivial_subgroup_to_manual() {
    let tiles = TileAssignment::list(vec![1, 2, 1], vec![0, 1]).unwrap();
    let types = [
        sharding_util::SubgroupType::Manual,
        sharding_util::SubgroupType::Replicated,
    ];
    assert!(HloSharding::subgroup(tiles, &types).unwrap().is_manual());
}

#[test]
fn used_and_unique_devices() {
    let s = sharding("{{maximal device=2}, {maximal device=2}, {replicated}, {maximal device=0}}");
    let (devices, count) = s.used_devices();
    assert_eq!(devices.into_iter().collect::<Vec<_>>(), [(0, 1), (2, 2)]);
    assert_eq!(count, 4);
    assert_eq!(s.unique_device(), None);
    assert_eq!(sharding("{{maximal device=2}}").unique_device(), Some(2));
    assert_eq!(HloSharding::flat_tuple(vec![]).unique_device(), None);
    assert_eq!(HloSharding::assign_device(7).used_devices().1, 1);
    assert!(!sharding("{unknown}").uses_device(0));
    assert!(sharding("{manual}").uses_device(3));
    assert!(sharding("{devices=[2]4,6}").uses_device(6));
    assert!(!sharding("{devices=[2,2]<=[4]}").uses_device(4));
}

#[test]
fn subgroup_dimensions_and_partial_replication() {
    let s = sharding("{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}");
    assert_eq!(
        (s.subgroup_manual_dim(), s.subgroup_replication_dim()),
        (Some(1), Some(2))
    );
    assert!(s.has_partial_replication() && s.is_manual_subgroup());
    assert_eq!(
        (s.num_tiles().unwrap(), s.total_num_tiles().unwrap()),
        (2, 8)
    );
    let p = sharding("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
    assert_eq!(
        (p.subgroup_manual_dim(), p.subgroup_replication_dim()),
        (None, Some(2))
    );
    assert_eq!(p.num_tiles_of(&[0, 1]).unwrap(), 2);
    assert!(p.num_tiles_of(&[2]).is_err());
    assert!(p.num_tiles_of(&[3]).is_err());
    assert_eq!(p.device_for_tile_index(&[1, 0]).unwrap(), 4);
    assert_eq!(p.tile_index_for_device(6).unwrap(), [1, 0]);
    let t = sharding("{devices=[2,2]<=[4]}");
    assert!(!t.has_partial_replication() && !t.is_manual_subgroup());
    assert_eq!(t.subgroup_replication_dim(), None);
    // A tuple has neither, as in XLA.
    assert!(!sharding("{{devices=[2,2]<=[4] last_tile_dim_replicate}}").has_partial_replication());
}

#[test]
fn tile_queries_refuse_what_xla_checks() {
    let f = shape("f32[4,4]");
    for text in ["{manual}", "{unknown}", "{unreduced}", "{{replicated}}"] {
        let s = sharding(text);
        assert!(s.tile_offset_for_device(&f, 0).is_err(), "{text}");
        assert!(s.num_tiles().is_err(), "{text}");
        assert!(s.total_num_tiles().is_err(), "{text}");
        assert!(s.tile_index_for_device(0).is_err(), "{text}");
    }
    // Tile-maximal shardings: the whole shape, one tile.
    let m = HloSharding::assign_device(1);
    assert_eq!(m.tile_offset_for_device(&f, 9).unwrap(), [0, 0]);
    assert_eq!(m.tile_limit_for_device(&f, 9).unwrap(), [4, 4]);
    assert_eq!(m.num_tiles().unwrap(), 1);
    assert_eq!(m.device_for_tile_index(&[]).unwrap(), 1);
    assert!(
        HloSharding::replicate()
            .device_for_tile_index(&[0])
            .is_err()
    );
    assert_eq!(HloSharding::manual().tile_shape(&f).unwrap(), f);
    assert!(sharding("{{replicated}}").tile_shape(&f).is_err());
    let t = sharding("{devices=[2,2]<=[4]}");
    let error = t.tile_offset_for_device(&shape("f32[4]"), 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "TileOffsetForDevice: shape f32[4] has rank 1, the sharding {devices=[2,2]<=[4]} tiles 2 dimensions"
    );
    assert_eq!(
        t.tile_index_for_device(9).unwrap_err().to_string(),
        "device 9 has no tile in {devices=[2,2]<=[4]}"
    );
    assert!(t.device_for_tile_index(&[2, 0]).is_err());
    assert!(t.tile_shape(&shape("f32[4]")).is_err());
    // Zero-sized dimensions: every tile empty.
    assert_eq!(
        t.tile_limit_for_device(&shape("f32[0,3]"), 3).unwrap(),
        [0, 3]
    );
    // A repeated device in a list: XLA keeps the last tile with it.
    let r = sharding("{devices=[2]1,1}");
    assert_eq!(r.tile_index_for_device(1).unwrap(), [1]);
}

#[test]
fn tuple_sharding_helpers() {
    let pair = shape("(f32[2], (s8[], ()))");
    assert_eq!(HloSharding::required_leaves(&pair), 2);
    let t = HloSharding::manual().get_tuple_sharding(&pair).unwrap();
    assert_eq!(t.to_string(), "{{manual}, {manual}}");
    assert_eq!(t.get_tuple_sharding(&pair).unwrap(), t);
    assert!(t.get_tuple_sharding(&shape("(f32[2])")).is_err());
    assert!(
        HloSharding::manual()
            .get_tuple_sharding(&shape("f32[2]"))
            .is_err()
    );
    assert_eq!(
        HloSharding::manual().normalize_tuple_sharding(&shape("f32[2]")),
        HloSharding::manual()
    );
    assert_eq!(t.normalize_tuple_sharding(&pair), t);
    assert_eq!(t.extract_single_sharding(), Some(HloSharding::manual()));
    assert_eq!(
        HloSharding::flat_tuple(vec![]).extract_single_sharding(),
        None
    );
    assert_eq!(
        HloSharding::single(&pair, &HloSharding::unknown())
            .unwrap()
            .tuple_elements()
            .len(),
        2
    );
    assert!(HloSharding::single_tuple(&pair, &t).is_err());
    assert!(HloSharding::single_tuple(&shape("f32[]"), &t).is_err());
    assert_eq!(
        HloSharding::tile_1d(&shape("f32[8]"), 2)
            .unwrap()
            .to_string(),
        "{devices=[2]<=[2]}"
    );
    assert!(HloSharding::tile_1d(&shape("f32[8,2]"), 2).is_err());
    assert!(HloSharding::tile_1d(&shape("f32[8]"), 1).is_err());
    assert!(HloSharding::iota_tile(vec![2, 0]).is_err());
    let with = HloSharding::flat_tuple(vec![
        HloSharding::replicate().with_metadata(vec![Default::default()]),
    ]);
    assert!(
        with.without_metadata().tuple_elements()[0]
            .metadata()
            .is_empty()
    );
    assert!(HloSharding::unreduced().is_unreduced());
    assert!(HloSharding::unknown().is_unknown());
}

#[test]
fn shard_groups() {
    assert!(sharding("{replicated shard_as 2}").is_shard_as());
    assert!(sharding("{devices=[2,2]<=[4] shard_like 1}").is_shard_like());
    assert!(!sharding("{replicated}").is_shard_group());
    assert!(!HloSharding::flat_tuple(vec![]).is_shard_group());
    let both = HloSharding::flat_tuple(vec![
        sharding("{replicated shard_as 2}"),
        sharding("{manual shard_like 2}"),
    ]);
    assert!(both.is_shard_group() && !both.is_shard_as() && !both.is_shard_like());
}

#[test]
fn tile_assignment_walk() {
    let tiles = TileAssignment::iota(vec![2, 3], vec![3, 2], vec![1, 0]).unwrap();
    assert_eq!(tiles.iter().collect::<Vec<_>>(), [0, 2, 4, 1, 3, 5]);
    assert_eq!(tiles.first(), 0);
    assert_eq!(tiles.device_at_flat(6), -1);
    assert!(tiles.uses_device(5) && !tiles.uses_device(-1));
}
