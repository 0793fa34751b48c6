"""Writes tests/golden/hlo/: HLO modules compiled by real XLA (the CPU client of
jaxlib) with what XLA's `CompiledMemoryStats` says about them, and
hand-written modules with TPU-style tiled layouts that XLA's HLO parser
accepts, with what XLA allocates for each of their array shapes.

For each compiled module NAME:
  NAME.txt  `compiled.as_text()` (source file names canonicalized to their
            base name, so the text does not depend on the checkout's path)
  NAME.pb   the optimized module's serialized HloModuleProto
and a row of memory.jsonl: {"module", "argument_size_in_bytes",
"output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes"} from
`compiled.memory_analysis()` (or the executable's
`get_compiled_memory_stats()` for modules compiled with
`parameter_is_tupled_arguments`).

For each hand-written module NAME (tiled_*.txt): the text XLA's parser
(`xla_client.hlo.hlo_module_from_text`) read and printed back, and a row of
tiled.jsonl: {"module", "sizes": {shape: bytes}} where bytes is
`on_device_size_in_bytes()` of an array the CPU client creates with that
shape's layout (XLA's `ShapeUtil::ArraySize`; memory spaces `S(n)` are left out,
they do not change the size).

    /work/venv-xla/bin/python build-tools/gen_hlo_memory.py          # rewrite
    /work/venv-xla/bin/python build-tools/gen_hlo_memory.py --check  # compare

Versions used for the committed files: jax 0.12.0.1, jaxlib 0.12.0.1 (CPU,
Linux x86_64), Python 3.13.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "hlo")


def programs():
    """(name, function, argument specs, jit keyword arguments)."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental.layout import Format, Layout

    f32 = lambda *d: jax.ShapeDtypeStruct(d, jnp.float32)  # noqa: E731
    cpu = jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0])

    def conv(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def while_loop(x):
        return lax.fori_loop(0, 10, lambda i, c: c * 2.0 + i, x)

    def cond(p, x):
        return lax.cond(p, lambda v: v + 1.0, lambda v: (v * 3.0)[::-1], x)

    def scan(xs):
        return lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(xs.shape[1:]), xs)

    def pytree(d):
        return {"sum": d["a"] + d["b"][0], "parts": [d["b"][1] * 2, d["a"].T]}

    def mlp(x, w1, b1, w2):
        return jnp.tanh(x @ w1 + b1) @ w2

    def rng(key):
        return jax.random.normal(key, (16, 8)), jax.random.randint(key, (5,), 0, 9)

    def many(x):
        return tuple(x * i for i in range(7))

    return [
        ("elementwise", lambda a, b: jnp.exp(a) * b - 1.0, [f32(8, 16), f32(8, 16)], {}),
        ("identity", lambda a: a, [f32(3, 5)], {}),
        ("pair", lambda a, b: (a + b, a * b), [f32(8), f32(8)], {}),
        ("parameter_out", lambda a, b: (a, a * b, b), [f32(8), f32(8)], {}),
        ("same_twice", lambda a: (a + 1, a + 1), [f32(6)], {}),
        ("constant_out", lambda a: (a + 1, jnp.arange(5.0), jnp.float32(3)), [f32(4)], {}),
        ("seven_outputs", many, [f32(3)], {}),
        ("dot", lambda a, b: a @ b, [f32(64, 32), f32(32, 16)], {}),
        ("dot_bf16", lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32),
         [jax.ShapeDtypeStruct((16, 24), jnp.bfloat16), jax.ShapeDtypeStruct((24, 8), jnp.bfloat16)], {}),
        ("conv", conv, [f32(2, 3, 9, 9), f32(4, 3, 3, 3)], {}),
        ("reduce", lambda x: (x.sum(axis=1), x.max(), jnp.argmax(x, axis=0)), [f32(7, 33)], {}),
        ("gather", lambda x, i: x[i], [f32(10, 4), jax.ShapeDtypeStruct((6,), jnp.int32)], {}),
        ("scatter", lambda x, i, u: x.at[i].add(u),
         [f32(10, 4), jax.ShapeDtypeStruct((3,), jnp.int32), f32(3, 4)], {}),
        ("dynamic_slice", lambda x, i: lax.dynamic_update_slice(x, lax.dynamic_slice(x, (i, 0), (2, 3)) * 2, (0, i)),
         [f32(6, 6), jax.ShapeDtypeStruct((), jnp.int32)], {}),
        ("while", while_loop, [f32(5, 5)], {}),
        ("cond", cond, [jax.ShapeDtypeStruct((), jnp.bool_), f32(9)], {}),
        ("scan", scan, [f32(12, 3, 4)], {}),
        ("sort_cumsum", lambda x: (jnp.sort(x), jnp.cumsum(x)), [f32(50)], {}),
        ("pytree", pytree, [{"a": f32(3, 3), "b": (f32(3, 3), f32(2, 2))}], {}),
        ("mlp", mlp, [f32(32, 64), f32(64, 128), f32(128), f32(128, 10)], {}),
        ("rng", rng, [jax.ShapeDtypeStruct((2,), jnp.uint32)], {}),
        ("donated", lambda a, b: (a + b, a * b), [f32(8), f32(8)], {"donate_argnums": (0,)}),
        ("donated_all", lambda a, b: (a + b, b - a), [f32(16), f32(16)], {"donate_argnums": (0, 1)}),
        ("int4", lambda a, b: (a + 1, (a.astype(jnp.int8) * 2).astype(jnp.int4), b),
         [jax.ShapeDtypeStruct((7, 3), jnp.int4), jax.ShapeDtypeStruct((5,), jnp.uint4)], {}),
        ("int2", lambda a: a ^ a, [jax.ShapeDtypeStruct((9,), jnp.int2)], {}),
        ("f8", lambda a, b: (a.astype(jnp.float32) + b.astype(jnp.float32)).astype(jnp.float8_e4m3fn),
         [jax.ShapeDtypeStruct((4, 4), jnp.float8_e4m3fn), jax.ShapeDtypeStruct((4, 4), jnp.float8_e5m2)], {}),
        ("types", lambda a, b, c, d: (a.astype(jnp.float16), b & True, c * 2, d + 1),
         [f32(3), jax.ShapeDtypeStruct((5,), jnp.bool_), jax.ShapeDtypeStruct((2, 2), jnp.complex64),
          jax.ShapeDtypeStruct((3,), jnp.uint8)], {}),
        ("empty", lambda a, b: (a * 2, b.sum()), [f32(0, 4), f32(3, 0)], {}),
        ("scalar", lambda a: a * a, [f32()], {}),
        ("column_major", lambda a: a * 2, [f32(10, 200)],
         {"in_shardings": Format(Layout((1, 0)), cpu), "out_shardings": Format(Layout((0, 1)), cpu)}),
        ("tiled_cpu", lambda a: a * 2, [jax.ShapeDtypeStruct((10, 200), jnp.bfloat16)],
         {"in_shardings": Format(Layout((0, 1), tiling=((8, 128), (2, 1))), cpu),
          "out_shardings": Format(Layout((0, 1), tiling=((8, 128), (2, 1))), cpu)}),
    ]


# Modules whose parameters XLA receives as one tuple (CompileOptions'
# parameter_is_tupled_arguments): jax never asks for it on CPU.
TUPLED = [
    ("tupled", lambda a, b: (a + b, b[:4]), ((8,), (8,))),
    ("tupled_three", lambda a, b, c: a @ b + c, ((4, 6), (6, 2), (4, 2))),
]

# Hand-written modules with TPU-style layouts. Each shape is
# (type, dims, minor_to_major, tiles, E(n) or 0, memory space or 0).
TILED = {
    "tiled_rows": [
        ("bf16", [10, 200], [1, 0], [[8, 128], [2, 1]], 0, 0),
        ("f32", [10, 200], [1, 0], [[8, 128]], 0, 0),
        ("s32", [1000, 4], [1, 0], [[8, 128]], 0, 0),
        ("s4", [10, 200], [1, 0], [[8, 128], [4, 1]], 4, 0),
        ("pred", [3, 129], [1, 0], [[8, 128], [4, 1]], 0, 1),
        ("f32", [2, 3, 5], [2, 1, 0], [[2, 2]], 0, 0),
        ("bf16", [256, 128], [0, 1], [[8, 128], [2, 1]], 0, 1),
    ],
}


def tiled_module(shapes):
    """Module text using `shapes`: parameters, a negate, a tuple output."""
    texts = [shape_text(*s) for s in shapes]
    params = ", ".join("p%d: %s" % (i, t) for i, t in enumerate(texts))
    lines = ["HloModule tiled, entry_computation_layout={(%s)->(%s)}" % (", ".join(texts), ", ".join(texts[:2])), ""]
    lines.append("ENTRY %%main (%s) -> (%s) {" % (params, ", ".join(texts[:2])))
    for i, t in enumerate(texts):
        lines.append('  %%p%d = %s parameter(%d), sharding={replicated}, metadata={op_name="p{%d}, \\"x\\""}' % (i, t, i, i))
    lines.append("  %%n = %s negate(%%p0), backend_config={\"a\":{\"b\":[1,2]}}" % texts[0])
    lines.append("  ROOT %%t = (%s) tuple(%%n, %%p1)" % ", ".join(texts[:2]))
    lines.append("}")
    return "\n".join(lines) + "\n"


def shape_text(ty, dims, m2m, tiles, bits, space):
    extra = "T" + "".join("(%s)" % ",".join(map(str, t)) for t in tiles) if tiles else ""
    extra += "E(%d)" % bits if bits else ""
    extra += "S(%d)" % space if space else ""
    return "%s[%s]{%s%s}" % (ty, ",".join(map(str, dims)), ",".join(map(str, m2m)), ":" + extra if extra else "")


NUMPY = {"bf16": "bfloat16", "f32": "float32", "s32": "int32", "s4": "int4", "pred": "bool_"}


def allocated(ty, dims, m2m, tiles, bits):
    """`on_device_size_in_bytes()` of an array the CPU client makes with this
    layout (jax 0.12 refuses `device_put` into a tiled layout; a jitted
    `zeros` with that output format is accepted)."""
    import jax
    import jax.numpy as jnp
    from jax.experimental.layout import Format, Layout

    dtype = getattr(jnp, NUMPY[ty])
    layout = Layout(tuple(reversed(m2m)), tiling=tuple(tuple(t) for t in tiles), sub_byte_element_size_in_bits=bits)
    sharding = jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0])
    y = jax.jit(lambda: jnp.zeros(dims, dtype), out_shardings=Format(layout, sharding))()
    y.block_until_ready()
    return y.on_device_size_in_bytes()


def stats_row(name, stats):
    return {
        "module": name,
        "argument_size_in_bytes": stats.argument_size_in_bytes,
        "output_size_in_bytes": stats.output_size_in_bytes,
        "alias_size_in_bytes": stats.alias_size_in_bytes,
        "temp_size_in_bytes": stats.temp_size_in_bytes,
    }


def generate():
    """File name to bytes."""
    import jax
    import jax.numpy as jnp
    from jax._src.lib import xla_client as xc

    jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")
    files = {}
    memory = []
    for name, fun, specs, kw in programs():
        compiled = jax.jit(fun, **kw).lower(*specs).compile()
        files[name + ".txt"] = compiled.as_text().encode()
        (module,) = compiled.runtime_executable().hlo_modules()
        files[name + ".pb"] = module.as_serialized_hlo_module_proto()
        memory.append(stats_row(name, compiled.memory_analysis()))
    client = jax.devices("cpu")[0].client
    for name, fun, dims in TUPLED:
        mlir = jax.jit(fun).lower(*(jax.ShapeDtypeStruct(d, jnp.float32) for d in dims)).as_text()
        options = xc.CompileOptions()
        options.parameter_is_tupled_arguments = True
        exe = client.compile_and_load(mlir, xc.DeviceList(tuple(client.devices()[:1])), options)
        (module,) = exe.hlo_modules()
        files[name + ".txt"] = module.to_string().encode()
        files[name + ".pb"] = module.as_serialized_hlo_module_proto()
        memory.append(stats_row(name, exe.get_compiled_memory_stats()))
    tiled = []
    for name, shapes in TILED.items():
        module = xc.hlo.hlo_module_from_text(tiled_module(shapes))
        files[name + ".txt"] = module.to_string().encode()
        sizes = {shape_text(*s[:5], 0): allocated(*s[:5]) for s in shapes}
        tiled.append({"module": name, "sizes": sizes})
    files["memory.jsonl"] = jsonl(memory)
    files["tiled.jsonl"] = jsonl(tiled)
    return files


def jsonl(rows):
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows).encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true", help="regenerate in memory and compare with --out")
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    files = generate()
    # Imported here, not at the top: the golden modules record this file's
    # line numbers in their stack frames.
    from golden_io import write_or_check

    bad = write_or_check(files, args.out, args.check)
    print("%d files" % len(files), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
