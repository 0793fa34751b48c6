"""Reshard plans between jax device assignments, by device id: the rows of
tests/golden/reshard_device_ids.jsonl, from jax's ``device_put`` between
meshes over permuted devices."""

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
