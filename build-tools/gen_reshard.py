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

Also writes `tests/golden/reshard_device_ids.jsonl`: `device_put` between
two meshes whose devices are in other orders (or other devices), rows
`{"dtype", "dims", "from", "from_ids", "to", "to_ids", "source", "result",
"bytes_kept", "bytes_moved"}`: `from` and `to` number the devices by their
position in the mesh (`_to_xla_hlo_sharding`), `from_ids` and `to_ids` are
the meshes' device ids in that order (`mesh.devices.flat`), `source` and
`result` are by device id as above, and `bytes_kept` counts, per device,
the bytes of its result that its source shard already held (jax's shard
indices intersected), `bytes_moved` the rest of the result's bytes.

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


# (dtype, dims, (device order, mesh shape, axis names, spec) from, ... to).
PERMUTED = [
    ("float32", [8], ([0, 1], [2], ["a"], ("a",)), ([1, 0], [2], ["a"], ("a",))),
    ("int32", [8, 8], ([3, 6, 0, 5, 7, 1, 4, 2], [2, 4], ["data", "model"], (None, "model")),
     (list(range(8)), [2, 4], ["data", "model"], ("data", "model"))),
    ("int32", [8, 4], ([7, 3, 5, 1], [4], ["x"], ()), ([1, 5, 3, 7], [4], ["x"], ("x", None))),
    ("int32", [8, 4], ([3, 6, 0, 5, 7, 1, 4, 2], [2, 4], ["a", "b"], ()),
     ([7, 6, 5, 4, 3, 2, 1, 0], [4, 2], ["x", "y"], ("x", "y"))),
    ("int16", [4, 8], ([0, 1, 2, 3], [4], ["x"], (None, "x")), ([4, 5, 6, 7], [2, 2], ["x", "y"], ("y", "x"))),
    ("int32", [8, 8], ([7, 6, 5, 4, 3, 2, 1, 0], [2, 4], ["x", "y"], ("x", "y")),
     ([0, 2, 4, 6, 1, 3, 5, 7], [4, 2], ["x", "y"], ("x", None))),
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

    def on_mesh(order, shape, axes):
        return Mesh(np.array([devices[i] for i in order]).reshape(shape), tuple(axes))

    def kept_bytes(source, result, size):
        kept = moved = 0
        for src, res in zip(source, result):
            if res is None:
                continue
            total = int(np.prod([b - a for a, b in res["index"]]))
            both = 0
            if src is not None:
                both = int(np.prod([max(0, min(b, d) - max(a, c))
                                    for (a, b), (c, d) in zip(res["index"], src["index"])]))
            kept += both * size
            moved += (total - both) * size
        return kept, moved

    permuted = []
    for dtype, dims, (src_order, src_shape, src_axes, src), (dst_order, dst_shape, dst_axes, dst) in PERMUTED:
        src_mesh, dst_mesh = on_mesh(src_order, src_shape, src_axes), on_mesh(dst_order, dst_shape, dst_axes)
        x = np.arange(int(np.prod(dims))).astype(dtype).reshape(dims)
        a, from_text = placed(x, src_mesh, src)
        b, to_text = placed(a, dst_mesh, dst)
        source, result = holdings(a, dims), holdings(b, dims)
        kept, moved = kept_bytes(source, result, np.dtype(dtype).itemsize)
        permuted.append({
            "dtype": dtype, "dims": dims,
            "from": from_text, "from_ids": [int(d.id) for d in src_mesh.devices.flat],
            "to": to_text, "to_ids": [int(d.id) for d in dst_mesh.devices.flat],
            "source": source, "result": result, "bytes_kept": kept, "bytes_moved": moved})
    return {"reshard_device_put.jsonl": rows, "reshard_device_ids.jsonl": permuted}


if __name__ == "__main__":
    sys.exit(run(generate, __doc__))
