"""Golden reshard cases from jax's `device_put` (jax 0.12, 8 CPU devices).

Writes `tests/golden/reshard_device_put.jsonl`: one row per case,
`{"dtype", "dims", "from", "to", "source", "result"}`. `from` and `to` are the
HLO shardings (`_to_xla_hlo_sharding`, or `{maximal device=K}` for an array
put on device K alone); `source` and `result` list, per device 0..7, what jax
holds there before and after `jax.device_put(x, to)`: `null` for a device that
holds nothing, else `{"index": [[start, stop], ...], "data": [...]}` (the
global box from the shard's `index`, the shard's elements row-major, as
integers). The array is `arange` of its element count (modulo 16, less 8, for
`int4`).

Kinds: tiled to tiled (transposed device orders, partial replication), tiled
to and from one device (maximal), sub-byte `int4`. jax 0.12 refuses shardings
that do not divide a dimension evenly (`device_put` and `jit` outputs alike),
so uneven cases cannot come from it; their positions are tested from XLA's
rule (a tile of `ceil(n / tiles)` elements) in sharding-util's unit tests.

Run with `/work/venv-jax/bin/python build-tools/gen_reshard.py [--check]`.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import run  # noqa: E402

# (dtype, dims, mesh shape, axis names, from, to); a spec is a PartitionSpec
# tuple, or an int: the one device that holds the whole array.
CASES = [
    ("int32", [8, 12], [2, 4], ["x", "y"], ("x", "y"), ("y", "x")),
    ("int32", [8, 16], [2, 4], ["x", "y"], ("x", None), (None, ("y", "x"))),
    ("int32", [4, 6, 2], [2, 2, 2], ["a", "b", "c"], (None, "b", None), ("a", None, "c")),
    ("int32", [16, 3], [8], ["x"], 5, ("x", None)),
    ("int32", [8, 12], [2, 4], ["x", "y"], ("y", "x"), 3),
    ("int32", [4, 4], [2, 4], ["x", "y"], 0, 7),
    ("float32", [8, 8], [2, 4], ["x", "y"], (None, "y"), (("x", "y"), None)),
    ("int16", [8, 4, 2], [2, 2, 2], ["a", "b", "c"], ("c", None, "a"), (("b", "a"), "c", None)),
    ("int4", [8, 8], [2, 4], ["x", "y"], ("x", "y"), ("y", None)),
    ("int4", [16], [8], ["x"], ("x",), 2),
    ("int4", [4, 8], [2, 4], ["x", "y"], 6, (None, ("y", "x"))),
]


def generate():
    import jax
    import ml_dtypes
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = jax.devices()
    assert len(devices) == 8, "needs 8 devices"

    def placed(x, mesh, spec):
        if isinstance(spec, int):
            return jax.device_put(x, devices[spec]), "{maximal device=%d}" % spec
        sharding = NamedSharding(mesh, P(*spec))
        return jax.device_put(x, sharding), sharding._to_xla_hlo_sharding(x.ndim).to_string()

    def holdings(array, dims):
        out = [None] * 8
        for shard in array.addressable_shards:
            index = [[s.start or 0, dims[i] if s.stop is None else s.stop] for i, s in enumerate(shard.index)]
            data = np.asarray(shard.data).astype(np.int64).reshape(-1).tolist()
            out[shard.device.id] = {"index": index, "data": data}
        return out

    rows = []
    for dtype, dims, mesh_shape, axes, src, dst in CASES:
        mesh = Mesh(np.array(devices).reshape(mesh_shape), tuple(axes))
        count = int(np.prod(dims))
        if dtype == "int4":
            x = (np.arange(count) % 16 - 8).astype(ml_dtypes.int4).reshape(dims)
        else:
            x = np.arange(count).astype(dtype).reshape(dims)
        a, from_text = placed(x, mesh, src)
        b, to_text = placed(a, mesh, dst)
        rows.append({"dtype": dtype, "dims": dims, "from": from_text, "to": to_text,
                     "source": holdings(a, dims), "result": holdings(b, dims)})
    return {"reshard_device_put.jsonl": rows}


if __name__ == "__main__":
    sys.exit(run(generate, __doc__))
