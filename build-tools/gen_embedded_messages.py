#!/usr/bin/env python3
"""Cut every xla_data.proto message out of real HloModuleProtos.

Compiles a set of jax programs with the jaxlib in this venv, takes each
module's serialized `HloModuleProto` before optimization
(`lowered.compiler_ir("hlo")`) and after the CPU compiler
(`compiled.runtime_executable().hlo_modules()`), and walks the bytes with a
small wire reader. The field numbers and types come from XLA's own
descriptors of `xla/service/hlo.proto` and `xla/xla_data.proto`, as extracted
from jaxlib by `extract_descriptor.py` (tests/golden/descriptors/). Every
length-delimited field whose type is a message of xla_data.proto is cut out
exactly as XLA wrote it, at any depth, and written to
`tests/golden/embedded_messages.jsonl`, one row per distinct (message, bytes):

    {"message": "xla.OpMetadata", "hex": "...", "source": "jit:conv:unoptimized:computations.instructions.metadata"}

`message` is XLA's full name of the type. The first place a message is found
is its `source`. Sharded programs run over 8 CPU devices
(`--xla_force_host_platform_device_count=8`, set before jax is imported).

Usage: `gen_embedded_messages.py` writes the file, `--check` compares.
"""

from __future__ import annotations

import os
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import golden_io  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DESCRIPTORS = os.path.join(HERE, "..", "tests", "golden", "descriptors")

TYPE_MESSAGE = 11  # FieldDescriptorProto.TYPE_MESSAGE


def load_types():
    """{full type name: {field number: (field name, message type name or None)}},
    and the set of message names defined in xla_data.proto."""
    from google.protobuf import descriptor_pb2

    types = {}
    xla_data = set()

    def add(prefix, message, in_xla_data):
        name = prefix + "." + message.name
        types[name] = {
            f.number: (f.name, f.type_name.lstrip(".") if f.type == TYPE_MESSAGE else None) for f in message.field
        }
        if in_xla_data:
            xla_data.add(name)
        for nested in message.nested_type:
            add(name, nested, in_xla_data)

    for stem in ("xla_data", "hlo"):
        with open(os.path.join(DESCRIPTORS, stem + ".binpb"), "rb") as f:
            file = descriptor_pb2.FileDescriptorProto.FromString(f.read())
        for message in file.message_type:
            add(file.package, message, stem == "xla_data")
    return types, xla_data


def read_varint(buf: bytes, i: int):
    value = shift = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def fields(buf: bytes):
    """(number, wire type, payload) of every field of a message, in order."""
    i, n = 0, len(buf)
    while i < n:
        key, i = read_varint(buf, i)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, i = read_varint(buf, i)
        elif wire_type == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire_type == 2:
            length, i = read_varint(buf, i)
            value, i = buf[i : i + length], i + length
        elif wire_type == 5:
            value, i = buf[i : i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire_type)
        if i > n:
            raise ValueError("field %d runs past the end" % number)
        yield number, wire_type, value


def embedded(types, xla_data, type_name: str, buf: bytes, path: str, out: list):
    """Appends (XLA type name, bytes, path) for every xla_data.proto message
    nested in `buf` (a `type_name` message), depth first, in wire order."""
    layout = types[type_name]
    for number, wire_type, value in fields(buf):
        field = layout.get(number)
        if field is None or field[1] is None or wire_type != 2:
            continue
        name, child = field
        where = path + "." + name if path else name
        if child in xla_data:
            out.append((child, value, where))
        if child in types:
            embedded(types, xla_data, child, value, where, out)


# --------------------------------------------------------------------------
# The programs.
# --------------------------------------------------------------------------


def programs():
    """(name, function, argument specs, jit keyword arguments)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    jax.config.update("jax_enable_x64", True)
    S = jax.ShapeDtypeStruct
    out = []

    def add(name, fn, specs, **jit):
        out.append((name, fn, specs, jit))

    add(
        "conv_nchw",
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(1, 2)),
        [S((2, 3, 9, 9), jnp.float32), S((4, 3, 3, 3), jnp.float32)],
    )
    add(
        "conv_nhwc_grouped",
        lambda x, w: lax.conv_general_dilated(
            x, w, (2, 1), ((1, 2), (0, 1)), lhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=2,
        ),
        [S((1, 8, 8, 4), jnp.bfloat16), S((3, 3, 2, 6), jnp.bfloat16)],
    )
    add(
        "dot_precision_highest",
        lambda a, b: jnp.dot(a, b, precision=lax.Precision.HIGHEST),
        [S((4, 8), jnp.float32), S((8, 3), jnp.float32)],
    )
    add(
        "dot_general_batch_high",
        lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))), precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)),
        [S((2, 3, 4), jnp.float32), S((2, 4, 5), jnp.float32)],
    )
    add(
        "dot_algorithm",
        lambda a, b: lax.dot(a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32),
        [S((4, 4), jnp.float32), S((4, 4), jnp.float32)],
    )
    add("gather", lambda x, i: x[i], [S((10, 4), jnp.float32), S((3,), jnp.int32)])
    add("gather_2d", lambda x, i, j: x[i, :, j], [S((5, 6, 7), jnp.float32), S((2,), jnp.int32), S((2,), jnp.int32)])
    add("scatter_add", lambda x, i, u: x.at[i].add(u), [S((10, 4), jnp.float32), S((3,), jnp.int32), S((3, 4), jnp.float32)])
    add("scatter_set", lambda x, i, u: x.at[i, 1].set(u), [S((6, 5), jnp.int32), S((2,), jnp.int32), S((2,), jnp.int32)])
    add(
        "reduce_window_max",
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (0, 1), (0, 0))),
        [S((2, 9, 9, 3), jnp.float32)],
    )
    add(
        "reduce_window_dilated",
        lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "VALID", base_dilation=(2, 1), window_dilation=(1, 2)),
        [S((6, 7), jnp.float32)],
    )
    add("cumsum", lambda x: jnp.cumsum(x, axis=1), [S((3, 17), jnp.float32)])
    add("pad_interior", lambda x: lax.pad(x, jnp.float32(0), ((1, 2, 1), (0, -1, 0))), [S((3, 4), jnp.float32)])
    add(
        "constants",
        lambda x: (
            x
            + jnp.array([[1.5, -2.0, 3.25], [0.0, 7.0, -0.5]], jnp.float32),
            jnp.array([1, -2, 3, 2**40], jnp.int64) * 3,
            jnp.array([True, False, True]) ^ (x[0] > 0),
            jnp.array([1.0, 2.5], jnp.bfloat16) * 2,
            jnp.array([0.5, -1.0, 65504.0], jnp.float16) * 2,
            jnp.array([1 + 2j, -3j], jnp.complex64) * 2,
            jnp.array([1 - 1j], jnp.complex128) * 2,
            jnp.array([200, 7], jnp.uint8) + 1,
            jnp.array([-7, 3], jnp.int8) + 1,
            jnp.array([60000, 1], jnp.uint16) + 1,
            jnp.array([-300, 2], jnp.int16) + 1,
            jnp.array([4000000000, 5], jnp.uint32) + 1,
            jnp.array([2**63 + 5, 1], jnp.uint64) + 1,
            jnp.array([1e300, -2.5], jnp.float64) * 2,
            jnp.array([0.5, -1.5], jnp.float8_e4m3fn) * 2,
            jnp.array([1.0, 3.0], jnp.float8_e5m2) * 2,
            jnp.array([3, -4, 1], jnp.int4) + 1,
            jnp.array([[np.nan, np.inf], [-np.inf, 0.0]], jnp.float32) + x[0, :2],
        ),
        [S((2, 3), jnp.float32)],
    )
    add("iota_constant_tuple", lambda: (jnp.arange(6.0).reshape(2, 3), jnp.zeros((0, 3), jnp.int32)), [])
    add("sort_descending", lambda x: lax.sort(-x, dimension=0), [S((5, 3), jnp.float32)])
    add("sort_multi", lambda k, v: lax.sort((k, v), num_keys=1, is_stable=True), [S((8,), jnp.int32), S((8,), jnp.float32)])
    add("argsort", lambda x: jnp.argsort(x), [S((6,), jnp.float32)])

    def while_loop(x):
        return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))

    add("while", while_loop, [S((3,), jnp.float32)])
    add("fori", lambda x: lax.fori_loop(0, 7, lambda i, c: c + i, x), [S((2,), jnp.float32)])
    add("cond", lambda p, x: lax.cond(p, lambda y: y * 2, lambda y: y - 1, x), [S((), jnp.bool_), S((4,), jnp.float32)])
    add("switch", lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x), [S((), jnp.int32), S((4,), jnp.float32)])
    add("scan", lambda x: lax.scan(lambda c, y: (c + y, c * y), 0.0, x), [S((5,), jnp.float32)])
    add("fft", lambda x: jnp.fft.rfft(x), [S((16,), jnp.float32)])
    add("triangular_solve", lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True, transpose_a=True), [S((4, 4), jnp.float32), S((4, 2), jnp.float32)])
    add("cholesky", lambda a: jnp.linalg.cholesky(a), [S((4, 4), jnp.float32)])
    add("rng_bits", lambda k: jax.random.normal(k, (3, 4)), [S((2,), jnp.uint32)])
    add("rng_uniform", lambda k: jax.random.uniform(jax.random.key(0), (5,)) + k, [S((), jnp.float32)])
    add("argmax", lambda x: jnp.argmax(x, axis=1), [S((4, 6), jnp.float32)])
    add("dynamic_slice", lambda x, i: lax.dynamic_update_slice(x, lax.dynamic_slice(x, (i, 0), (2, 3)) * 2, (0, i)), [S((5, 6), jnp.float32), S((), jnp.int64)])
    add("reduce_precision", lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10), [S((4,), jnp.float32)])
    add("exp_accuracy", lambda x: lax.exp(x, accuracy=lax.Tolerance(atol=1e-5, rtol=1e-4, ulps=2)), [S((4,), jnp.float32)])
    add("exp_highest", lambda x: lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST), [S((4,), jnp.float32)])

    def with_attrs(x):
        with jax.named_scope("outer"):
            y = jnp.sin(x)
        from jax.experimental import xla_metadata

        with xla_metadata.set_xla_metadata(tag="golden", note="a=b,c", empty=""):
            return jnp.cos(y) * 3

    add("frontend_attributes", with_attrs, [S((3,), jnp.float32)])

    def callback(x):
        jax.debug.callback(lambda v: None, x, ordered=True)
        return x + 1

    add("ordered_callback", callback, [S((2,), jnp.float32)])

    devices = np.array(jax.devices())
    if len(devices) >= 8:
        mesh = Mesh(devices.reshape(2, 4), ("x", "y"))
        mesh3 = Mesh(devices.reshape(2, 2, 2), ("a", "b", "c"))
        sh = lambda m, *spec: NamedSharding(m, P(*spec))  # noqa: E731
        add("sharded_matmul", lambda a, b: a @ b, [S((8, 16), jnp.float32), S((16, 4), jnp.float32)],
            in_shardings=(sh(mesh, "x", "y"), sh(mesh, "y", None)), out_shardings=sh(mesh, "x", None))
        add("sharded_replicated_out", lambda a: jnp.sum(a, axis=0), [S((8, 8), jnp.float32)],
            in_shardings=sh(mesh, "x", "y"), out_shardings=sh(mesh))
        add("sharded_partial_replication", lambda a: a * 2, [S((8, 8), jnp.float32)],
            in_shardings=sh(mesh, "x", None), out_shardings=sh(mesh, None, "y"))
        add("sharded_3d_mesh", lambda a: jnp.tanh(a), [S((4, 4, 4), jnp.float32)],
            in_shardings=sh(mesh3, "a", ("b", "c"), None), out_shardings=sh(mesh3, ("c", "a"), None, "b"))
        add("sharded_tuple_out", lambda a: (a + 1, a.T), [S((8, 4), jnp.float32)],
            in_shardings=sh(mesh, "x", "y"), out_shardings=(sh(mesh, "y", None), sh(mesh, None, "x")))

        def constraint(a):
            b = jax.lax.with_sharding_constraint(a * 2, sh(mesh, None, ("x", "y")))
            return b.sum()

        add("sharding_constraint", constraint, [S((4, 8), jnp.float32)], in_shardings=sh(mesh, "x", None))

        def collectives(a):
            def inner(block):
                total = jax.lax.psum(block, "x")
                perm = jax.lax.ppermute(block, "y", [(i, (i + 1) % 4) for i in range(4)])
                gathered = jax.lax.all_gather(block, "y", tiled=True)
                return total + perm, gathered

            return jax.shard_map(inner, mesh=mesh, in_specs=P("x", "y"), out_specs=(P("x", "y"), P("x", "y")))(a)

        add("shard_map_collectives", collectives, [S((8, 8), jnp.float32)])
        add("device_put_maximal", lambda a: a + 1, [S((4,), jnp.float32)],
            in_shardings=jax.sharding.SingleDeviceSharding(devices[3]), out_shardings=jax.sharding.SingleDeviceSharding(devices[3]))
    return out


def modules():
    """(program name, stage, HloModuleProto bytes) of every program."""
    import jax

    for name, fn, specs, jit in programs():
        try:
            lowered = jax.jit(fn, **jit).lower(*specs)
            stages = [("unoptimized", lowered.compiler_ir("hlo").as_serialized_hlo_module_proto())]
            compiled = lowered.compile()
            for k, module in enumerate(compiled.runtime_executable().hlo_modules()):
                stages.append(("optimized" if k == 0 else "optimized%d" % k, module.as_serialized_hlo_module_proto()))
        except Exception as e:  # noqa: BLE001 - a program jax cannot build is reported, not fatal
            print("SKIPPED %s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__), file=sys.stderr)
            continue
        for stage, data in stages:
            yield name, stage, data


def python_round_trip(rows) -> dict:
    """How many rows python protobuf (with XLA's descriptor) parses and writes
    back to the same bytes, by message."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    with open(os.path.join(DESCRIPTORS, "xla_data.binpb"), "rb") as f:
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(f.read()))
    same = {}
    for row in rows:
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(row["message"]))
        data = bytes.fromhex(row["hex"])
        ok = cls.FromString(data).SerializeToString(deterministic=True) == data
        total, good = same.get(row["message"], (0, 0))
        same[row["message"]] = (total + 1, good + ok)
    return same


def generate():
    types, xla_data = load_types()
    rows, seen = [], set()
    for name, stage, data in modules():
        found = []
        embedded(types, xla_data, "xla.HloModuleProto", data, "", found)
        for type_name, payload, where in found:
            key = (type_name, payload)
            if key in seen:
                continue
            seen.add(key)
            rows.append({"message": type_name, "hex": payload.hex(), "source": "jit:%s:%s:%s" % (name, stage, where)})
    for message, (total, good) in sorted(python_round_trip(rows).items()):
        print("%-45s %4d rows, python protobuf writes back %d identically" % (message, total, good), file=sys.stderr)
    return {"embedded_messages.jsonl": rows}


if __name__ == "__main__":
    sys.exit(golden_io.run(generate, __doc__))
