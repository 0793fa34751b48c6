"""Golden files for Shardy shardings (crates/sharding-util, `sdy`) from jax 0.12.

Writes to tests/golden/shardy/:

* `jax.jsonl`: `{"mesh", "sharding", "shape", "hlo", "device_ids", "indices"}` for random
  jax meshes over 8 CPU devices (with and without a device permutation) and random
  PartitionSpecs (several axes on a dimension, every order, unused and size-1 axes):
  `mesh` is the `sdy.mesh` line and `sharding` the `#sdy.sharding` of the parameter in
  `lowered.as_text()`, `hlo` the `sharding={...}` XLA gives the same parameter in
  `lowered.compiler_ir('hlo')`, `device_ids` the jax device id of each logical device
  (the mesh's devices in order: the ids the HLO sharding names index it), and `indices`
  jax's `devices_indices_map` per logical device as `[[start, stop], ...]`.
* `export.jsonl`: `{"mesh", "sharding", "shape", "hlo"}` or `{..., "error"}` for hand-made
  Shardy modules (meshes with `device_ids`, sub-axes, `replicated`, `unreduced`, open
  dimensions, priorities, inline meshes, malformed shardings) converted by XLA's own
  StableHLO-to-HLO path (`mlir_module_to_xla_computation`, the path `compiler_ir('hlo')`
  takes); `error` is the Shardy verifier's message.
* `replicated.jsonl`: `{"mesh", "sharding", "shape", "hlo", "devices", "indices"}` for jax
  meshes of 1 to 8 of the CPU devices and PartitionSpecs that shard nothing (`P()`, all
  `None`, or axes of size 1): the Shardy sharding names no device count in XLA's text
  (`{replicated}`); `devices` is the mesh's device count (`mhlo.num_partitions` of the
  lowered module), `indices` jax's `devices_indices_map` per logical device.
* `mlp.mlir`: `lowered.as_text()` of a sharded two-layer MLP on a 2x4 mesh, and
  `mlp.jsonl`: per argument and result its jax shape, dtype and `devices_indices_map`.
* `propagated.jsonl`: functions jitted without `out_shardings` (and one with an
  uncommitted argument), whose lowered module leaves a value's sharding to XLA's
  propagation: `{"name", "mlir", "values"}` with `mlir` the `lowered.as_text()` and per
  argument then result its `kind`, `shape`, `dtype`, `lowered` (whether the lowered module
  gives it a sharding), `hlo` (the sharding of `compiled.input_shardings` /
  `compiled.output_shardings` as XLA's text, `_to_xla_hlo_sharding`) and `bytes` (what
  each device holds under it, by the mesh's devices in order, from
  `devices_indices_map`), and `output_size_in_bytes` (`compiled.memory_analysis()`).

Run with `/work/venv-jax/bin/python build-tools/gen_shardy.py [--check]`.
"""

from __future__ import annotations

import os
import random
import re
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ["JAX_PLATFORMS"] = "cpu"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import jsonl_bytes, write_or_check  # noqa: E402

MESH_RE = re.compile(r"^\s*(sdy\.mesh @\w+ = .*)$", re.M)
ARG_RE = re.compile(r"%arg0: tensor<[^>]*> \{sdy\.sharding = (#sdy\.sharding<.*?>)[,}]")
PARAM_RE = re.compile(r"parameter\(0\), sharding=(\{.*?\})(?:, |$)", re.M)


def hlo_param_sharding(text: str) -> str:
    m = PARAM_RE.search(text)
    return m.group(1) if m else "{replicated}" if "parameter(0)" in text else ""


def factorizations(n: int):
    """Every ordered list of factors > 1 whose product is n."""
    if n == 1:
        return [[]]
    out = []
    for f in range(2, n + 1):
        if n % f == 0:
            out += [[f] + rest for rest in factorizations(n // f)]
    return out


def indices_of(sharding, shape, devices):
    m = sharding.devices_indices_map(tuple(shape))
    out = []
    for d in devices:
        idx = m[d]
        out.append([[s.start or 0, shape[k] if s.stop is None else s.stop] for k, s in enumerate(idx)])
    return out


def jax_cases(rng):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devs = np.array(jax.devices())
    names = ["a", "b", "c", "d"]
    rows = []
    for case in range(160):
        sizes = rng.choice(factorizations(8) + [[1] + f for f in factorizations(8)] + [[2, 1, 4], [8, 1]])
        rng.shuffle(sizes)
        axes = tuple(names[: len(sizes)])
        order = list(range(8))
        if case % 2:
            rng.shuffle(order)
        mesh = Mesh(devs[order].reshape(sizes), axes)
        rank = rng.randint(1, 3)
        pool = list(axes)
        rng.shuffle(pool)
        spec = []
        for d in range(rank):
            take = rng.randint(0, min(2, len(pool)))
            chosen, pool = pool[:take], pool[take:]
            spec.append(None if not chosen else chosen[0] if len(chosen) == 1 and rng.random() < 0.5 else tuple(chosen))
        shape = []
        for entry in spec:
            parts = () if entry is None else (entry,) if isinstance(entry, str) else entry
            tiles = 1
            for a in parts:
                tiles *= sizes[axes.index(a)]
            shape.append(tiles * rng.randint(1, 3))
        sharding = NamedSharding(mesh, P(*spec))
        lowered = jax.jit(lambda x: x + 1, in_shardings=sharding).lower(jax.ShapeDtypeStruct(tuple(shape), jnp.float32))
        text = lowered.as_text()
        mesh_line = MESH_RE.search(text).group(1)
        arg = ARG_RE.search(text)
        hlo = hlo_param_sharding(lowered.compiler_ir("hlo").as_hlo_text())
        ids = [d.id for d in mesh.devices.flat]
        rows.append(
            {
                "mesh": mesh_line,
                "sharding": arg.group(1) if arg else "",
                "shape": shape,
                "hlo": hlo,
                "device_ids": ids,
                "indices": indices_of(sharding, shape, list(mesh.devices.flat)),
            }
        )
    return rows


def replicated_cases(rng):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devs = np.array(jax.devices())
    rows = []
    for case in range(40):
        n = rng.choice([1, 2, 3, 4, 5, 6, 8])
        sizes = rng.choice(factorizations(n) or [[1]])
        if rng.random() < 0.4:
            sizes = sizes + [1]
        rng.shuffle(sizes)
        axes = tuple("mnop"[: len(sizes)])
        chosen = rng.sample(range(8), n)
        mesh = Mesh(devs[chosen].reshape(sizes), axes)
        rank = rng.randint(1, 3)
        ones = [a for a, size in zip(axes, sizes) if size == 1]
        spec = [None] * rank
        if ones and case % 3 == 0:
            spec[rng.randrange(rank)] = ones[0]
        spec = P(*spec) if case % 4 else P()
        shape = [rng.randint(1, 6) for _ in range(rank)]
        sharding = NamedSharding(mesh, spec)
        lowered = jax.jit(lambda x: x + 1, in_shardings=sharding).lower(jax.ShapeDtypeStruct(tuple(shape), jnp.float32))
        text = lowered.as_text()
        partitions = re.search(r"mhlo\.num_partitions = (\d+)", text)
        arg = ARG_RE.search(text)
        rows.append(
            {
                "mesh": MESH_RE.search(text).group(1),
                "sharding": arg.group(1) if arg else "",
                "shape": shape,
                "hlo": hlo_param_sharding(lowered.compiler_ir("hlo").as_hlo_text()),
                "devices": int(partitions.group(1)) if partitions else 1,
                "indices": indices_of(sharding, shape, list(mesh.devices.flat)),
            }
        )
    return rows


def convert(mesh: str, sharding: str, shape: str):
    from jax._src.lib import _jax

    txt = (
        "module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {\n"
        f"  sdy.mesh @mesh = {mesh}\n"
        f"  func.func public @main(%arg0: tensor<{shape}f32> {{sdy.sharding = {sharding}}}) -> tensor<{shape}f32> {{\n"
        f"    return %arg0 : tensor<{shape}f32>\n  }}\n}}"
    )
    try:
        c = _jax.mlir.mlir_module_to_xla_computation(txt, use_tuple_args=False, return_tuple=False)
    except Exception as e:  # XLA's status: the verifier's message is on its first line
        first = str(e).split("\n")[0]
        m = re.search(r"error: (?:'func\.func' op arg 0 - |custom op 'sdy\.mesh' )?(.*)$", first)
        return None, m.group(1) if m else first
    return hlo_param_sharding(c.as_hlo_text()), None


def axis_text(name, pre, size, full):
    return f'"{name}"' if pre == 1 and size == full else f'"{name}":({pre}){size}'


def random_export_case(rng):
    nax = rng.randint(1, 3)
    sizes = rng.choice([f for f in factorizations(8) if len(f) == nax] or [[8]])
    if rng.random() < 0.2:
        sizes = sizes + [1]
    names = ["x", "y", "z", "w"][: len(sizes)]
    mesh = "<[" + ", ".join(f'"{n}"={s}' for n, s in zip(names, sizes)) + "]"
    if rng.random() < 0.5:
        ids = list(range(8))
        rng.shuffle(ids)
        mesh += ", device_ids=[" + ", ".join(map(str, ids)) + "]"
    mesh += ">"
    # Split each axis into pieces, give each piece a place.
    rank = rng.randint(1, 3)
    places = {p: [] for p in list(range(rank)) + ["r", "u", None]}
    for n, s in zip(names, sizes):
        pieces = rng.choice(factorizations(s)) if s > 1 else [1]
        if rng.random() < 0.5:
            pieces = [s]
        pre = 1
        for p in pieces:
            places[rng.choice(list(places))].append((n, pre, p, s))
            pre *= p
    dims = []
    shape = []
    for d in range(rank):
        refs = places[d]
        rng.shuffle(refs)
        tiles = 1
        for r in refs:
            tiles *= r[2]
        body = ", ".join(axis_text(n, pre, p, s) for n, pre, p, s in refs)
        if rng.random() < 0.25:
            body = body + ", ?" if body else "?"
        dim = "{" + body + "}"
        if rng.random() < 0.2:
            dim += f"p{rng.randint(0, 3)}"
        dims.append(dim)
        shape.append(tiles * rng.randint(1, 2))
    extra = ""
    for key, word in (("r", "replicated"), ("u", "unreduced")):
        refs = sorted(places[key], key=lambda r: (names.index(r[0]), r[1]))
        if refs:
            extra += f", {word}={{" + ", ".join(axis_text(n, pre, p, s) for n, pre, p, s in refs) + "}"
    head = "@mesh" if rng.random() < 0.85 else "mesh" + mesh
    sharding = f"#sdy.sharding<{head}, [" + ", ".join(dims) + "]" + extra + ">"
    return mesh, sharding, shape


FIXED = [
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"a", "a"}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"a"}, {"a"}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"c"}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b":(1)3}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b":(1)4}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b":(1)2, "b":(2)2}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b":(2)2}, {"b":(1)2}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b":(1)2}, {"b"}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b"}, {}], replicated={"b"}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{}, {}], replicated={"b", "a"}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{}, {}], unreduced={"b", "a"}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"a"}p0, {"b", ?}p3]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{?}, {?}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"a"}, {}], unreduced={"b"}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{}, {}], unreduced={"a", "b"}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"a"}, {}], replicated={"b":(2)2}, unreduced={"b":(1)2}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b":(2)2}, {}], replicated={"a"}>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@nomesh, [{"a"}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<mesh<["x"=8]>, [{"x"}, {}]>', [8, 4]),
    ('<["a"=2, "b"=4], device_ids=[0, 1, 2, 3, 4, 5, 6, 7]>', '#sdy.sharding<@mesh, [{"a"}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4], device_ids=[0, 1, 2, 3, 4, 5, 6, 6]>', '#sdy.sharding<@mesh, [{"a"}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4], device_ids=[0, 1, 2, 3, 4, 5, 6]>', '#sdy.sharding<@mesh, [{"a"}, {}]>', [4, 4]),
    ('<["a"=2, "b"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>', '#sdy.sharding<@mesh, [{"b"}, {"a"}]>', [4, 4]),
    ('<["a"=2, "a"=4]>', '#sdy.sharding<@mesh, [{"a"}, {}]>', [4, 4]),
    ('<["a"=0, "b"=4]>', '#sdy.sharding<@mesh, [{"b"}, {}]>', [4, 4]),
    ('<[]>', '#sdy.sharding<@mesh, [{}, {}]>', [4, 4]),
    ('<[], device_ids=[3]>', '#sdy.sharding<@mesh, []>', []),
    ('<[], device_ids=[3]>', '#sdy.sharding<@mesh, [{}, {}]>', [4, 4]),
    ('<["a"=1, "b"=8]>', '#sdy.sharding<@mesh, [{"a"}, {"b"}]>', [4, 8]),
    ('<["a"=2, "b"=4]>', '#sdy.sharding<@mesh, [{"b"}, {"a"}]>', [4, 4]),
    ('<["a"=8]>', '#sdy.sharding<@mesh, [{"a":(2)2}, {"a":(1)2}], replicated={"a":(4)2}>', [4, 4]),
    ('<["a"=8]>', '#sdy.sharding<@mesh, [{"a":(4)2, "a":(1)2}, {}]>', [4, 4]),
]


def export_cases(rng):
    rows = []
    cases = list(FIXED)
    for _ in range(200):
        cases.append(random_export_case(rng))
    for mesh, sharding, shape in cases:
        hlo, error = convert(mesh, sharding, "x".join(map(str, shape)) + ("x" if shape else ""))
        row = {"mesh": mesh, "sharding": sharding, "shape": shape}
        if error is None:
            row["hlo"] = hlo
        else:
            row["error"] = error
        rows.append(row)
    return rows


def mlp():
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ("data", "model"))
    x = NamedSharding(mesh, P("data", None))
    w1 = NamedSharding(mesh, P(None, "model"))
    w2 = NamedSharding(mesh, P("model", None))
    b = NamedSharding(mesh, P("model"))
    out = NamedSharding(mesh, P("data", None))

    def f(x, w1, b1, w2):
        return jnp.maximum(x @ w1 + b1, 0) @ w2

    args = [
        (jax.ShapeDtypeStruct((32, 64), jnp.float32), x),
        (jax.ShapeDtypeStruct((64, 256), jnp.bfloat16), w1),
        (jax.ShapeDtypeStruct((256,), jnp.float32), b),
        (jax.ShapeDtypeStruct((256, 64), jnp.float32), w2),
    ]
    lowered = jax.jit(f, in_shardings=[s for _, s in args], out_shardings=out).lower(*[a for a, _ in args])
    devices = list(mesh.devices.flat)
    rows = []
    for kind, items in (("argument", args), ("result", [(jax.ShapeDtypeStruct((32, 64), jnp.float32), out)])):
        for a, s in items:
            rows.append(
                {
                    "kind": kind,
                    "shape": list(a.shape),
                    "dtype": str(a.dtype),
                    "indices": indices_of(s, a.shape, devices),
                }
            )
    return lowered.as_text(), rows


def propagated():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = np.array(jax.devices())
    cases = []

    def case(name, mesh, f, args):
        lowered = jax.jit(f).lower(*args)
        compiled = lowered.compile()
        text = lowered.as_text()
        signature = text[text.index("func.func public @main(") :]
        signature = signature[: signature.index("{\n")]
        results = signature[signature.index(") -> ") :]
        flat_in = jax.tree_util.tree_leaves(compiled.input_shardings[0])
        flat_out = jax.tree_util.tree_leaves(compiled.output_shardings)
        outs = jax.tree_util.tree_leaves(jax.eval_shape(f, *args))
        order = list(mesh.devices.flat)
        values = []
        for kind, items in (("argument", zip(args, flat_in)), ("result", zip(outs, flat_out))):
            for index, (a, s) in enumerate(items):
                if kind == "argument":
                    lowered_has = re.search(rf"%arg{index}: tensor<[^>]*> \{{sdy\.sharding", signature) is not None
                else:
                    lowered_has = "sdy.sharding" in results
                itemsize = np.dtype(a.dtype).itemsize
                boxes = indices_of(s, a.shape, order)
                values.append(
                    {
                        "kind": kind,
                        "shape": list(a.shape),
                        "dtype": str(a.dtype),
                        "lowered": lowered_has,
                        "hlo": str(s._to_xla_hlo_sharding(len(a.shape))),
                        "bytes": [itemsize * int(np.prod([hi - lo for lo, hi in box])) for box in boxes],
                    }
                )
        cases.append(
            {
                "name": name,
                "mlir": text,
                "values": values,
                "output_size_in_bytes": compiled.memory_analysis().output_size_in_bytes,
            }
        )

    def summed(w, x):
        return (x @ w).sum(0)

    def product(w, x):
        return x @ w

    for name, order in (("mesh", devices), ("permuted mesh", devices[[3, 6, 0, 5, 7, 1, 4, 2]])):
        mesh = Mesh(order.reshape(2, 4), ("data", "model"))
        w = jax.device_put(jnp.ones((256, 1024), jnp.float32), NamedSharding(mesh, P(None, "model")))
        x = jax.device_put(jnp.ones((8, 256), jnp.float32), NamedSharding(mesh, P("data")))
        case(f"sum of x @ w, {name}", mesh, summed, (w, x))
        case(f"x @ w, {name}", mesh, product, (w, x))
    mesh = Mesh(devices.reshape(2, 4), ("data", "model"))
    x = jax.device_put(jnp.ones((8, 256), jnp.float32), NamedSharding(mesh, P("data")))
    case("uncommitted w", mesh, product, (np.ones((256, 1024), np.float32), x))
    return cases


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "tests", "golden", "shardy"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    rng = random.Random(44)
    mlp_text, mlp_rows = mlp()
    files = {
        "jax.jsonl": jsonl_bytes(jax_cases(rng)),
        "export.jsonl": jsonl_bytes(export_cases(rng)),
        "replicated.jsonl": jsonl_bytes(replicated_cases(random.Random(9))),
        "mlp.mlir": mlp_text.encode("utf-8"),
        "mlp.jsonl": jsonl_bytes(mlp_rows),
        "propagated.jsonl": jsonl_bytes(propagated()),
    }
    return 1 if write_or_check(files, args.out, args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
