"""Reshard plans between jax device assignments, by device id: the rows of
tests/golden/reshard_device_ids.jsonl, from jax's ``device_put`` between
meshes over permuted devices."""

import pytest

import xla_shape
from xla_shape import HloSharding


def test_reshard_totals_and_pieces_are_by_device_id(rows):
    cases = rows("reshard_device_ids")
    assert cases
    for row in cases:
        shape = "%s[%s]" % (row["dtype"], ",".join(map(str, row["dims"])))
        src = HloSharding(row["from"], device_ids=row["from_ids"])
        dst = HloSharding(row["to"], device_ids=row["to_ids"])
        plan = xla_shape.reshard(shape, src, dst)
        assert (plan.bytes_moved, plan.bytes_kept) == (row["bytes_moved"], row["bytes_kept"]), row
        for piece in plan.pieces:
            # Every piece lands on a device that holds its box in jax's result.
            assert row["result"][piece.to] is not None, (row, piece)


def _labels(svg):
    """Each labelled tile's device ids (the text just before its ``tile N``
    note), sorted, with how many cells carry that label."""
    texts = [t.split(">", 1)[1].split("</text>", 1)[0] for t in svg.split("<text")[1:]]
    out = {}
    for label, note in zip(texts, texts[1:]):
        if note.startswith("tile "):
            ids = tuple(sorted(int(d) for d in label.split(",")))
            out[ids] = out.get(ids, 0) + 1
    return out


def _expected(row, blocks):
    """The labels jax's ``devices_indices_map`` gives: the ids of each box,
    with its elements (the cell view) or one (the block view)."""
    by_box = {}
    for device, index in row["boxes"].items():
        by_box.setdefault(tuple(map(tuple, index)), []).append(int(device))
    out = {}
    for index, ids in by_box.items():
        elements = 1
        for lo, hi in index:
            elements *= hi - lo
        out[tuple(sorted(ids))] = 1 if blocks else elements
    return out


def test_pictures_label_tiles_by_device_id(rows):
    cases = rows("sharding_pictures")
    assert len(cases) == 7
    blocks_seen = 0
    for row in cases:
        shape = "f32[%s]" % ",".join(map(str, row["dims"]))
        sharding = HloSharding(row["sharding"], device_ids=row["device_ids"])
        svg = xla_shape.draw(shape, sharding=sharding)._repr_svg_()
        blocks = "blocks: one a shard" in svg
        blocks_seen += blocks
        assert _labels(svg) == _expected(row, blocks), row
    assert blocks_seen == 4


def test_a_jax_sharding_on_a_permuted_mesh_is_drawn_by_device_id():
    jax = pytest.importorskip("jax")
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    if jax.device_count() < 8:
        pytest.skip("needs 8 jax devices (XLA_FLAGS=--xla_force_host_platform_device_count=8)")
    devices = np.array(jax.devices()[:8])[[3, 6, 0, 5, 7, 1, 4, 2]].reshape(2, 4)
    sharding = NamedSharding(Mesh(devices, ("data", "model")), P(None, "model"))
    svg = xla_shape.draw("f32[512,1024]", sharding=sharding)._repr_svg_()
    shape = (512, 1024)
    want = {}
    for device, index in sharding.devices_indices_map(shape).items():
        box = tuple((s.start or 0, s.stop if s.stop is not None else n) for s, n in zip(index, shape))
        want.setdefault(box, []).append(device.id)
    assert _labels(svg) == {tuple(sorted(ids)): 1 for ids in want.values()}
