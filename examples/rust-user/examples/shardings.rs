//! XLA's sharding text and Shardy's (as jax prints it) read into one
//! `HloSharding`, and the block of the array each device holds.

use anyhow::Context;
use sharding_util::sdy::read_sharding;
use sharding_util::{HloSharding, ShardReport};

fn main() -> anyhow::Result<()> {
    let shape: schema::Shape = "f32[8,12]".parse()?;
    let mesh = r#"sdy.mesh @mesh = <["a"=2, "b"=4]>"#;
    // Dimension 0 over "b" (4 ways), dimension 1 over "a" (2 ways).
    let shardy = read_sharding(r#"#sdy.sharding<@mesh, [{"b"}, {"a"}]>"#, Some(mesh))?;
    let xla = read_sharding("{devices=[4,2]<=[2,4]T(1,0)}", None)?;
    println!("{shardy}");
    assert_eq!(shardy, xla);
    assert_eq!(shardy.num_devices(), Some(8));

    let report = ShardReport::new(&xla, &shape, None)?;
    println!("{report}");
    assert_eq!(report.shard_shape.dimensions, [2, 6]);
    // Device d sits at tile (d % 4, d / 4): "b" is the minor mesh axis.
    for device in &report.devices {
        let held = device.held.as_ref().context("a device holds nothing")?;
        let (row, column) = (device.device % 4, device.device / 4);
        assert_eq!(held.tile, [row, column]);
        assert_eq!(held.offsets, [2 * row, 6 * column]);
        assert_eq!(held.limits, [2 * row + 2, 6 * column + 6]);
        assert_eq!(device.bytes, 2 * 6 * 4);
    }
    assert_eq!(report.replication_groups.len(), 8);

    // Half the devices replicate the other half: "a" is left out.
    let rows = read_sharding(r#"#sdy.sharding<@mesh, [{"b"}, {}]>"#, Some(mesh))?;
    let expected: HloSharding = "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}".parse()?;
    assert_eq!(rows, expected);
    let boxed = rows
        .device_box(&shape, 5)?
        .context("device 5 holds nothing")?;
    // Device 5 is a=1, b=1: the second block of rows.
    assert_eq!((boxed.offsets, boxed.limits), (vec![2, 0], vec![4, 12]));
    assert_eq!(
        rows.replication_groups(8)?,
        [[0, 4], [1, 5], [2, 6], [3, 7]]
    );

    // A sharding that does not fit its mesh is refused with Shardy's words.
    let error = read_sharding(r#"#sdy.sharding<@mesh, [{"c"}, {}]>"#, Some(mesh))
        .err()
        .context("an unknown axis was read")?;
    assert_eq!(error.to_string(), r#"unknown axis name: "c""#);
    Ok(())
}

rust_user::test_main!();
