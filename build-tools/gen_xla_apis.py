"""Golden files for the ports of XLA's utility APIs (primitive_util, HloSharding's
queries) from numpy/ml_dtypes and real XLA (jaxlib 0.12).

Writes to tests/golden/:

* `primitive_float.jsonl`: `{"type", "bits", "nmant", "nexp", "minexp", "maxexp",
  "has_inf", "has_nan", "has_neg_zero"}` for every floating-point type: `ml_dtypes.finfo`
  (`bits` is finfo's, the bits of information), and whether `inf`, `nan` and `-0.0` survive
  a cast to the type (`isinf`, `isnan`, `signbit` of the value read back).
* `pack_int_n.jsonl`: `{"type", "values", "packed"}`: the bytes (hex) of a jax array of the
  sub-byte type on the CPU device (read through `unsafe_buffer_pointer`, the packed `E(n)`
  layout XLA's `PackIntN` writes) for the values (their low bits, one per byte).
* `shape_queries.jsonl`: `{"text", "is_static", "is_dynamic", "is_array", "is_tuple", "is_token",
  "leaf_count", "rank", "dynamic"}`: `xc.Shape`'s methods for shapes built with `array_shape`,
  `tuple_shape` and `token_shape` (`text` is `str(shape)`; `rank` and `dynamic`, the
  `is_dynamic_dimension` of each dimension, for arrays only).
* `sharding_queries.jsonl`: `{"input", ...}` with `xc.HloSharding`'s queries of the sharding
  (`is_replicated`, `is_maximal`, `is_manual`, `is_tiled`, `is_unknown`, `is_unreduced`,
  `tuple_elements`) and, for a non-tuple tiled sharding, `tile_assignment_dimensions`,
  `tile_assignment_devices`, `replicate_on_last_tile_dim`, `subgroup_types`, `num_devices`,
  `num_dimensions`. A query XLA aborts on is `{"crash": message}`.

Every XLA call runs in a child process (`--worker`) that is restarted when XLA aborts.
Run with `/work/venv-jax/bin/python build-tools/gen_xla_apis.py [--check]`.
"""

from __future__ import annotations

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import XlaWorker, run  # noqa: E402

TAG = "@@"
CHECK_RE = re.compile(r".*(Check failed: .*|terminate called .*|what\(\): .*)")

FLOATS = [
    ("f16", "float16"), ("bf16", "bfloat16"), ("f32", "float32"), ("f64", "float64"),
    ("f8e5m2", "float8_e5m2"), ("f8e4m3", "float8_e4m3"), ("f8e4m3fn", "float8_e4m3fn"),
    ("f8e4m3b11fnuz", "float8_e4m3b11fnuz"), ("f8e3m4", "float8_e3m4"),
    ("f8e5m2fnuz", "float8_e5m2fnuz"), ("f8e4m3fnuz", "float8_e4m3fnuz"),
    ("f4e2m1fn", "float4_e2m1fn"), ("f8e8m0fnu", "float8_e8m0fnu"),
    ("f6e3m2fn", "float6_e3m2fn"), ("f6e2m3fn", "float6_e2m3fn"),
]

SUB_BYTE = [("s1", "int1"), ("u1", "uint1"), ("s2", "int2"), ("u2", "uint2"), ("s4", "int4"), ("u4", "uint4")]

PACK_VALUES = [
    [1], [0, 1], [1, 2, 3], [1, 2, 3, 0, 1], [3, 0, 2, 1, 1, 3, 0, 2, 1],
    [7, 1, 0, 5, 6, 2, 4, 3, 1, 0, 7], list(range(16)), [1, 1, 1, 1, 1, 1, 1, 1, 0, 1],
]

QUERIES = ["is_replicated", "is_maximal", "is_manual", "is_tiled", "is_unknown", "is_unreduced"]
TILED = ["tile_assignment_dimensions", "tile_assignment_devices", "replicate_on_last_tile_dim",
         "num_devices", "num_dimensions"]

SHARDINGS = [
    "{replicated}", "{manual}", "{unknown}", "{unreduced}", "{maximal device=3}",
    "{devices=[2,4]<=[8]}", "{devices=[2,4]<=[4,2]T(1,0)}", "{devices=[4,2]7,6,5,4,3,2,1,0}",
    "{devices=[2,1,4]<=[8] last_tile_dim_replicate}", "{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual}}", "{devices=[2,4]<=[8] last_tile_dims={unreduced}}",
    "{devices=[1,2,2,2]<=[2,2,2]T(2,0,1) last_tile_dims={manual, replicated}}",
    "{devices=[8]<=[2,2,2]T(2,1,0)}", "{devices=[1,1,8]<=[8] last_tile_dim_replicate}",
    "{devices=[3,1]5,2,7}", "{devices=[2,2]0,3,1,2}", "{devices=[4,2]<=[2,4]T(1,0)}",
    "{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dim_replicate}", "{devices=[1,4,2]<=[8] last_tile_dims={replicated}}",
    "{devices=[2,1,2,2]<=[8] last_tile_dims={unreduced, replicated}}", "{devices=[2,2,2]7,5,3,1,6,4,2,0 last_tile_dim_replicate}",
    "{replicated shard_as 2}", "{devices=[2,2]<=[4] shard_like 1}",
    "{{replicated}, {maximal device=1}}", "{{replicated}, {replicated}}", "{{manual}, {manual}}",
    "{{maximal device=1}, {maximal device=1}}", "{{maximal device=1}, {maximal device=2}}",
    "{{unknown}, {unknown}}", "{{unknown}, {replicated}}", "{{manual}, {replicated}}",
    "{{devices=[2,2]<=[4]}, {maximal device=0}, {replicated}}", "{{devices=[4]<=[4]}, {devices=[2,2]<=[4]}}",
    "{{devices=[2,2]<=[4] last_tile_dim_replicate}, {replicated}}", "{{unreduced}, {unreduced}}",
    "{{devices=[2,2]<=[4] last_tile_dims={unreduced}}, {replicated}}",
    "{{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}, {manual}}",
]


def worker() -> None:
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ["JAX_PLATFORMS"] = "cpu"
    from jax._src.lib import xla_client as xc

    def query(req):
        s = xc.HloSharding.from_string(req["input"])
        name = req["query"]
        if name == "tuple_elements":
            return {"value": [e.to_string() for e in s.tuple_elements()]}
        if name == "subgroup_types":
            return {"value": [str(t).split(".")[-1].lower() for t in s.subgroup_types()]}
        value = getattr(s, name)()
        if not isinstance(value, (bool, int)):
            value = [int(v) for v in value]
        return {"value": value}

    for line in sys.stdin:
        req = json.loads(line)
        try:
            res = query(req)
        except Exception as e:  # noqa: BLE001 -- XLA's status is the golden value
            res = {"error": str(e)}
        sys.stdout.write(TAG + json.dumps(res) + "\n")
        sys.stdout.flush()


def floats() -> list[dict]:
    import warnings

    import ml_dtypes
    import numpy as np

    rows = []
    for name, dtype in FLOATS:
        dt = np.dtype(getattr(ml_dtypes, dtype) if hasattr(ml_dtypes, dtype) else dtype)
        f = ml_dtypes.finfo(dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            back = lambda v: np.array(v).astype(dt).astype(np.float64)  # noqa: E731
            rows.append({
                "type": name, "bits": int(f.bits), "nmant": int(f.nmant), "nexp": int(f.nexp),
                "minexp": int(f.minexp), "maxexp": int(f.maxexp),
                "has_inf": bool(np.isinf(back(np.inf))), "has_nan": bool(np.isnan(back(np.nan))),
                "has_neg_zero": bool(np.signbit(back(-0.0))),
            })
    return rows


def packs() -> list[dict]:
    import ctypes

    import jax
    import ml_dtypes
    import numpy as np

    rows = []
    for name, dtype in SUB_BYTE:
        dt = getattr(ml_dtypes, dtype)
        bits = int(name[1:])
        for values in PACK_VALUES:
            low = [v & ((1 << bits) - 1) for v in values]
            signed = [v - (1 << bits) if name[0] == "s" and v >= 1 << (bits - 1) else v for v in low]
            x = jax.device_put(np.array(signed, dtype=dt))
            x.block_until_ready()
            n = (len(values) * bits + 7) // 8
            data = bytes((ctypes.c_uint8 * n).from_address(x.unsafe_buffer_pointer()))
            rows.append({"type": name, "values": low, "packed": data.hex()})
    return rows


def shardings() -> list[dict]:
    w = XlaWorker(__file__, TAG, CHECK_RE, lambda msg: {"crash": msg})
    rows = []
    for text in SHARDINGS:
        row = {"input": text}
        for q in QUERIES + ["tuple_elements"]:
            row[q] = w.run({"input": text, "query": q})
        if row["is_tiled"].get("value") and not text.startswith("{{"):
            for q in TILED + ["subgroup_types"]:
                row[q] = w.run({"input": text, "query": q})
        rows.append(row)
    w.close()
    return rows


UNBOUNDED = -(1 << 63)

ARRAYS = [
    ("float32", (2, 3), (1, 0), (False, False)), ("float32", (2, 3), (0, 1), (True, False)),
    ("int8", (), None, ()), ("bfloat16", (4, 1, 5), (2, 1, 0), (False, True, True)),
    ("int4", (8,), (0,), (False,)), ("float32", (UNBOUNDED, 7), (1, 0), (True, False)),
    ("uint32", (0, 3), (0, 1), (False, False)), ("bool", (3, UNBOUNDED, 2), (2, 1, 0), (False, True, True)),
    ("complex64", (5,), None, (True,)),
]


def shapes() -> list[dict]:
    import numpy as np
    from jax._src.lib import xla_client as xc

    def array(spec):
        dtype, dims, layout, dynamic = spec
        return xc.Shape.array_shape(np.dtype(dtype), dims, layout, dynamic)

    built = [array(a) for a in ARRAYS]
    built += [xc.Shape.token_shape(), xc.Shape.tuple_shape([]),
              xc.Shape.tuple_shape([array(ARRAYS[1]), xc.Shape.token_shape(), array(ARRAYS[2])]),
              xc.Shape.tuple_shape([xc.Shape.tuple_shape([array(ARRAYS[5])]), xc.Shape.tuple_shape([])]),
              xc.Shape.tuple_shape([array(ARRAYS[0]), array(ARRAYS[4])])]
    rows = []
    for shape in built:
        row = {"text": str(shape), "is_static": shape.is_static(), "is_dynamic": shape.is_dynamic(),
               "is_array": shape.is_array(), "is_tuple": shape.is_tuple(), "is_token": shape.is_token(),
               "leaf_count": shape.leaf_count()}
        if shape.is_array():
            row["rank"] = shape.rank()
            row["dynamic"] = [shape.is_dynamic_dimension(i) for i in range(shape.rank())]
        rows.append(row)
    return rows


def generate() -> dict[str, list[dict]]:
    return {
        "shape_queries.jsonl": shapes(),
        "primitive_float.jsonl": floats(),
        "pack_int_n.jsonl": packs(),
        "sharding_queries.jsonl": shardings(),
    }


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker()
    else:
        sys.exit(run(generate, __doc__))
