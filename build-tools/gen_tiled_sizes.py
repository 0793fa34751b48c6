"""Writes tests/golden/tiled_sizes.jsonl: the bytes real XLA (the CPU client
of jaxlib) allocates for arrays under tiled layouts.

Every array is placed on the CPU device with
`jax.device_put(x, Format(Layout(major_to_minor, tiling=..., sub_byte_element_size_in_bits=...), SingleDeviceSharding))`
and `on_device_size_in_bytes()` is read: XLA's `ShapeUtil::ArraySize` of the
device shape. The CPU client stores the data untiled in that allocation, so
these rows are sizes only; memory orders come from XLA's tiled-layout
document and unit tests (see tests/tiled_sizes.rs and index-util's tests).

Each row has the XLA-printed device shape (`shape`: the layout written as
XLA's parser and printer round-trip it), or, when the CPU client rejects the
layout, `error` with what XLA said.

    /work/venv-golden/bin/python build-tools/gen_tiled_sizes.py          # rewrite
    /work/venv-golden/bin/python build-tools/gen_tiled_sizes.py --check  # compare
"""

from __future__ import annotations

from golden_io import run

# (XLA name, numpy dtype name, E(n) values to try: 0 is "unset"). The CPU
# client packs s4/u4 whatever is asked (jax then fails on the layout
# override), so they are asked with E(4) only.
DTYPES = [
    ("s4", "int4", [4]),
    ("u4", "uint4", [4]),
    ("pred", "bool", [0]),
    ("s8", "int8", [0]),
    ("bf16", "bfloat16", [0]),
    ("f32", "float32", [0]),
    ("f64", "float64", [0]),
    ("c64", "complex64", [0]),
]

SHAPES = [
    [1],
    [7],
    [300],
    [2049],
    [3, 5],
    [10, 200],
    [16, 256],
    [1, 129],
    [0, 9],
    [2, 3, 5],
    [4, 9, 130],
    [2, 3, 4, 5],
    [3, 1, 17, 129],
]

TILINGS = [
    [[2, 2]],
    [[8, 128]],
    [[8, 128], [2, 1]],
    [[8, 128], [4, 1]],
    [[8, 128], [32, 1]],
    [[4, 128]],
    [[2, 128], [2, 1]],
    [[256]],
    [[128]],
    [[1024], [128], [2, 1]],
    [[2, 2, 2]],
    [[3, 4, 5, 6]],
    [[2, 4], [2, 1, 1, 1]],
    [[2, 2], [3]],
    [[8, 128], [1, 128], [2]],
    [[3, 7]],
]

# A tile of `*` (Tile::kCombineDimension, INT64_MIN): recorded as rejected.
COMBINE = -(1 << 63)
REJECTED = [("f32", "float32", 0, [4, 6], [[2, COMBINE]])]


def layout_text(m2m, tiling, bits):
    """`{1,0:T(8,128)(2,1)E(4)}` for XLA's parser."""
    minor_to_major = ",".join(str(d) for d in reversed(m2m))
    tiles = "".join("(%s)" % ",".join("*" if d == COMBINE else str(d) for d in t) for t in tiling)
    tiles = "T" + tiles if tiles else ""
    extra = tiles + ("E(%d)" % bits if bits else "")
    return "{%s%s}" % (minor_to_major, ":" + extra if extra else "")


def xla_string(name, dims, m2m, tiling, bits):
    from jax._src.lib import xla_client

    text = "%s[%s]%s" % (name, ",".join(map(str, dims)), layout_text(m2m, tiling, bits))
    return str(xla_client.Shape(text))


def measure(name, dtype, bits, dims, m2m, tiling):
    import jax
    import ml_dtypes  # noqa: F401  (registers int4/bfloat16 with numpy)
    import numpy as np
    from jax.experimental.layout import Format, Layout

    np_dtype = np.dtype(getattr(ml_dtypes, dtype, None) or dtype)
    sharding = jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0])
    row = {
        "dtype": name,
        "dimensions": dims,
        "major_to_minor": list(m2m),
        "tiling": tiling,
        "sub_byte_element_size_in_bits": bits,
    }
    try:
        layout = Layout(tuple(m2m), tiling=tuple(tuple(t) for t in tiling), sub_byte_element_size_in_bits=bits)
        y = jax.device_put(np.zeros(dims, dtype=np_dtype), Format(layout, sharding))
        y.block_until_ready()
        row["on_device_size_in_bytes"] = y.on_device_size_in_bytes()
        row["shape"] = xla_string(name, dims, m2m, tiling, bits)
    except Exception as e:  # XLA's answer is the row.
        row["error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0])
    return row


def generate():
    import jax

    jax.config.update("jax_enable_x64", True)
    rows = []
    for name, dtype, bit_options in DTYPES:
        for bits in bit_options:
            for dims in SHAPES:
                orders = [list(range(len(dims)))]
                if len(dims) > 1:
                    orders.append(list(reversed(range(len(dims)))))
                for m2m in orders:
                    for tiling in TILINGS:
                        rows.append(measure(name, dtype, bits, dims, m2m, tiling))
    for name, dtype, bits, dims, tiling in REJECTED:
        rows.append(measure(name, dtype, bits, dims, list(range(len(dims))), tiling))
    return {"tiled_sizes.jsonl": rows}


if __name__ == "__main__":
    raise SystemExit(run(generate, __doc__))
