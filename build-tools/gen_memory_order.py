"""Writes tests/golden/memory_order.jsonl: the physical bytes of arrays that
real XLA (the CPU client of jaxlib) stores under an explicit layout.

Every array is placed on the CPU device with
`jax.device_put(x, Format(Layout(major_to_minor=...), SingleDeviceSharding))`
and its device buffer is read raw with `ctypes.string_at(
array.unsafe_buffer_pointer(), array.on_device_size_in_bytes())` -- the bytes
XLA's buffer holds, not a copy converted back to row-major by numpy.

    /work/venv-golden/bin/python build-tools/gen_memory_order.py          # rewrite
    /work/venv-golden/bin/python build-tools/gen_memory_order.py --check  # compare
"""

from __future__ import annotations

import ctypes
import itertools
import math
import sys

from golden_io import run

# Shapes per rank; every permutation of each is a layout.
SHAPES = [
    [],
    [7],
    [1],
    [3, 4],
    [1, 5],
    [0, 3],
    [2, 3, 4],
    [3, 1, 2],
    [2, 3, 2, 3],
    [1, 2, 1, 3],
]


def dtypes():
    """(XLA name, numpy dtype, bits per element, value of row-major position p)."""
    import ml_dtypes
    import numpy as np

    def real(p):
        return (p - 17) * 0.5 + 0.25

    def cplx(p):
        return complex(real(p), -(p + 1))

    return [
        ("s2", np.dtype(ml_dtypes.int2), 2, lambda p: (p * 3 + 1) % 4 - 2),
        ("s4", np.dtype(ml_dtypes.int4), 4, lambda p: (p * 5 + 3) % 16 - 8),
        ("pred", np.dtype(np.bool_), 8, lambda p: p % 3 == 0),
        ("s8", np.dtype(np.int8), 8, lambda p: (p * 37 + 11) % 256 - 128),
        ("f8e4m3fn", np.dtype(ml_dtypes.float8_e4m3fn), 8, real),
        ("bf16", np.dtype(ml_dtypes.bfloat16), 16, real),
        ("f16", np.dtype(np.float16), 16, real),
        ("u16", np.dtype(np.uint16), 16, lambda p: (p * 4099 + 7) % 65536),
        ("s32", np.dtype(np.int32), 32, lambda p: p * 65599 - 1000000),
        ("f32", np.dtype(np.float32), 32, real),
        ("f64", np.dtype(np.float64), 64, real),
        ("u64", np.dtype(np.uint64), 64, lambda p: p * ((1 << 40) + 3) + 5),
        ("c64", np.dtype(np.complex64), 64, cplx),
        ("c128", np.dtype(np.complex128), 128, cplx),
    ]


def raw_bytes(array) -> bytes:
    """The device buffer of `array`, byte for byte."""
    size = array.on_device_size_in_bytes()
    if size == 0:
        return b""
    return ctypes.string_at(array.unsafe_buffer_pointer(), size)


def xla_string(name: str, dims, layout: str) -> str:
    """XLA's printed form of the device shape: the PjRt layout (`{0,1}`,
    `{0,1:E(4)}`) on the array shape, through XLA's ParseShape and printer.
    A scalar's layout `{}` is not written (XLA rejects `f32[]{}`)."""
    from jax._src.lib import xla_client

    text = "%s[%s]%s" % (name, ",".join(map(str, dims)), layout if dims else "")
    return str(xla_client.Shape(text))


def generate():
    import jax
    import numpy as np
    from jax.experimental.layout import Format, Layout

    jax.config.update("jax_enable_x64", True)
    device = jax.devices("cpu")[0]
    sharding = jax.sharding.SingleDeviceSharding(device)
    rows = []
    for name, dtype, bits, value in dtypes():
        for dims in SHAPES:
            count = math.prod(dims)
            x = np.array([value(p) for p in range(count)]).astype(dtype).reshape(dims)
            packed = math.ceil(count * bits / 8)
            row_major = None
            for m2m in itertools.permutations(range(len(dims))):
                y = jax.device_put(x, Format(Layout(major_to_minor=m2m), sharding))
                y.block_until_ready()
                data = raw_bytes(y)
                size = y.on_device_size_in_bytes()
                if bits < 8:
                    # XLA's CPU client packs sub-byte arrays even under the
                    # default layout, whose printed form has no E(bits) and whose
                    # size counts a byte per element. The bytes past the packed
                    # ones, and the bits past the last element in the last packed
                    # byte, are not written: they are cut off and zeroed here.
                    data = bytearray(data[:packed])
                    spare = packed * 8 - count * bits
                    if spare:
                        data[-1] &= 0xFF >> spare
                    data = bytes(data)
                if row_major is None:
                    # The identity permutation comes first: the row-major buffer.
                    row_major = data
                    if bits >= 8 and data != x.tobytes():
                        sys.exit("row-major device bytes differ from numpy's for %s%s" % (name, dims))
                row = {}
                if bits >= 8:
                    # XLA's own strides of the buffer, as its DLPack export gives
                    # them (numpy cannot import every dtype: those rows have none).
                    try:
                        exported = np.from_dlpack(y)
                    except (RuntimeError, BufferError, TypeError):
                        exported = None
                    if exported is not None:
                        if exported.size and exported.__array_interface__["data"][0] != y.unsafe_buffer_pointer():
                            sys.exit("DLPack export is a copy for %s%s" % (name, dims))
                        row["dlpack_byte_strides"] = list(exported.strides)
                rows.append(
                    row | {
                        "dtype": name,
                        "dimensions": dims,
                        "major_to_minor": list(m2m),
                        "shape": xla_string(name, dims, str(y._pjrt_layout)),
                        "element_size_in_bits": bits,
                        "on_device_size_in_bytes": size,
                        "row_major_hex": row_major.hex(),
                        "device_hex": data.hex(),
                    }
                )
    return {"memory_order.jsonl": rows}


if __name__ == "__main__":
    sys.exit(run(generate, __doc__))
