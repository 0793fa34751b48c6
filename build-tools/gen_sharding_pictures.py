"""Golden cases for the sharding pictures (`xla-shape draw --sharding`) from
jax 0.12 on 8 CPU devices: arrays placed by `NamedSharding`s over meshes
whose devices are in other orders than their ids.

Writes `tests/golden/sharding_pictures.jsonl`: one row per case, `{"dims",
"sharding", "device_ids", "boxes"}`: `sharding` is jax's HloSharding of the
placement (`_to_xla_hlo_sharding`, which numbers the devices by their
position in the mesh), `device_ids` the mesh's device ids in that order
(`mesh.devices.flat`), and `boxes` maps each device id (as a string) to the
global box jax's `devices_indices_map` gives it (`[[start, stop], ...]`).
A picture must label each tile with the ids of the devices whose box it is.

Small arrays are drawn a cell an element, large ones a block a tile; the
cases have both.

Run with `/work/venv-jax/bin/python build-tools/gen_sharding_pictures.py [--check]`.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import run  # noqa: E402

# (dims, device order, mesh shape, axis names, PartitionSpec)
CASES = [
    ([8, 8], [3, 6, 0, 5, 7, 1, 4, 2], [2, 4], ["data", "model"], (None, "model")),
    ([512, 1024], [3, 6, 0, 5, 7, 1, 4, 2], [2, 4], ["data", "model"], (None, "model")),
    ([512, 1024], [3, 6, 0, 5, 7, 1, 4, 2], [2, 4], ["data", "model"], ("data", "model")),
    ([4, 6], [7, 6, 5, 4, 3, 2, 1, 0], [4, 2], ["x", "y"], ("x", None)),
    ([1024, 64], [0, 2, 4, 6, 1, 3, 5, 7], [8], ["x"], ("x", None)),
    ([2, 96, 40], [5, 4, 7, 6, 1, 0, 3, 2], [2, 2, 2], ["a", "b", "c"], ("a", "c", "b")),
    ([16], [1, 0, 3, 2], [2, 2], ["x", "y"], (("y", "x"),)),
]


def generate():
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = jax.devices()
    assert len(devices) == 8, "needs 8 devices"
    rows = []
    for dims, order, shape, axes, spec in CASES:
        mesh = Mesh(np.array([devices[i] for i in order]).reshape(shape), tuple(axes))
        sharding = NamedSharding(mesh, P(*spec))
        boxes = {}
        for device, index in sharding.devices_indices_map(tuple(dims)).items():
            boxes[str(device.id)] = [[s.start or 0, dims[i] if s.stop is None else s.stop]
                                     for i, s in enumerate(index)]
        rows.append({"dims": dims, "sharding": sharding._to_xla_hlo_sharding(len(dims)).to_string(),
                     "device_ids": [int(d.id) for d in mesh.devices.flat], "boxes": boxes})
    return {"sharding_pictures.jsonl": rows}


if __name__ == "__main__":
    sys.exit(run(generate, __doc__))
