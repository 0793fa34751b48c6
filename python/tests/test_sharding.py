"""Shards and reshard plans against real XLA's and jax's (the golden files of
`build-tools/gen_sharding.py`, jax/jaxlib 0.12.0.1 on 8 CPU devices)."""

import pathlib

import numpy as np
import pytest

import xla_shape
from conftest import golden


def without_layout(text):
    shape = xla_shape.as_shape(text)
    return shape.element_type, shape.dimensions


@pytest.mark.parametrize(
    "row", golden("sharding_spmd"), ids=lambda r: f"{r['sharding']} on {r['shape']}"
)
def test_shard_shape_is_what_xlas_spmd_partitioner_gives(row):
    if "error" in row:
        with pytest.raises(xla_shape.XlaShapeError) as error:
            xla_shape.shard(row["shape"], row["sharding"], devices=8)
        assert str(error.value) == row["error"]
        return
    got = xla_shape.shard(row["shape"], row["sharding"], devices=8)
    if "shard_shape" in row:
        # XLA compiled through StableHLO, which drops the layout.
        assert without_layout(got["shard_shape"]) == without_layout(row["shard_shape"])
    # "crash": XLA crashed compiling a shard group on a parameter; we answer.


@pytest.mark.parametrize(
    "row", golden("sharding_indices"), ids=lambda r: f"{r['sharding']} over {r['dims']}"
)
def test_device_boxes_are_jaxs_indices(row):
    shape = "f32[" + ",".join(map(str, row["dims"])) + "]"
    devices = xla_shape.shard(shape, row["sharding"], devices=8)["devices"]
    assert [d["device"] for d in devices] == list(range(8))
    for device, want in zip(devices, row["devices"]):
        if device["offsets"] is None:
            # jax indexes a maximal sharding as replicated, where only its
            # device holds the data.
            assert row["sharding"].startswith("{maximal")
            assert device["bytes"] == 0
            continue
        assert [list(b) for b in zip(device["offsets"], device["limits"])] == want
        assert device["bytes"] == 4 * int(np.prod([hi - lo for lo, hi in want]))


@pytest.mark.parametrize(
    "row",
    golden("sharding_device_put"),
    ids=lambda r: f"{r['from']} -> {r['to']} over {r['dims']}",
)
def test_reshard_plan_gives_each_device_jaxs_data(row):
    dims = row["dims"]
    shape = "s32[" + ",".join(map(str, dims)) + "]"
    array = np.arange(int(np.prod(dims)), dtype=np.int32).reshape(dims)
    src = xla_shape.shard(shape, row["from"], devices=8)["devices"]
    dst = xla_shape.shard(shape, row["to"], devices=8)
    shard_dims = dst.shard_shape.dimensions
    plan = xla_shape.reshard(shape, row["from"], row["to"], devices=8)
    buffers = [np.zeros(shard_dims, dtype=np.int32) for _ in range(8)]
    moved = kept = 0
    for piece in plan["pieces"]:
        box = tuple(slice(lo, hi) for lo, hi in zip(piece["offsets"], piece["limits"]))
        holder = src[piece["from"]]
        # Sent only by a device that holds the box.
        assert all(
            h_lo <= lo and hi <= h_hi
            for lo, hi, h_lo, h_hi in zip(
                piece["offsets"], piece["limits"], holder["offsets"], holder["limits"]
            )
        )
        origin = dst["devices"][piece["to"]]["offsets"]
        local = tuple(slice(lo - o, hi - o) for lo, hi, o in zip(piece["offsets"], piece["limits"], origin))
        buffers[piece["to"]][local] = array[box]
        assert piece["bytes"] == array[box].nbytes
        if piece["from"] == piece["to"]:
            kept += piece["bytes"]
        else:
            moved += piece["bytes"]
    assert [b.reshape(-1).tolist() for b in buffers] == row["data"]
    assert (plan["bytes_moved"], plan["bytes_kept"]) == (moved, kept)


def test_replicated_and_maximal_take_the_device_count():
    facts = xla_shape.shard("f32[8]", "{maximal device=3}", devices=4)
    assert [d["bytes"] for d in facts["devices"]] == [0, 0, 0, 32]
    with pytest.raises(xla_shape.XlaShapeError, match="names no device count"):
        xla_shape.reshard("f32[8]", "{replicated}", "{replicated}")


def test_sharding_errors_raise_with_the_parsers_message():
    with pytest.raises(xla_shape.XlaShapeError, match="is not a permutation"):
        xla_shape.shard("f32[8,8]", "{devices=[2,4]<=[4,2]T(0,0)}")
    with pytest.raises(ValueError):
        xla_shape.reshard("f32[8]", "{devices=[2]<=[2]}", "{bogus}")


def test_sharding_pictures_are_the_commands(tmp_path):
    picture = xla_shape.draw(
        xla_shape.parse("f32[6,8]"),
        sharding="{devices=[2,2,2]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}",
    )
    picture.save(tmp_path / "sharding.svg")
    # The README's picture, drawn by `xla-shape draw ... --sharding ... -o`.
    drawn = pathlib.Path(__file__).resolve().parents[2] / "docs" / "images" / "draw-sharding.svg"
    assert (tmp_path / "sharding.svg").read_bytes() == drawn.read_bytes()
    assert "<svg" in str(xla_shape.draw("f32[4]", sharding="{replicated}", devices=2))
    with pytest.raises(xla_shape.XlaShapeError):
        xla_shape.draw("f32[4]", sharding="{replicated}")
    with pytest.raises(TypeError):
        xla_shape.draw("f32[4]", devices=2)
