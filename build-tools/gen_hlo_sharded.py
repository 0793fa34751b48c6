"""Writes the sharded part of tests/golden/hlo/: jax programs over 8 host
devices (XLA_FLAGS=--xla_force_host_platform_device_count=8) whose modules,
before SPMD partitioning, carry `sharding={...}`, with what XLA says one
device holds once they are partitioned.

A script of its own beside gen_hlo_memory.py: the modules that script writes
record the line numbers of its source in their stack-frame tables, so any
line added there would rewrite every one of them.

For each program NAME (sharded_*):
  NAME.txt  the module before SPMD partitioning, with its shardings
            (`lowered.compiler_ir('hlo').as_hlo_text()`)
  NAME.pb   the same module serialized (`as_serialized_hlo_module_proto()`)
and a row of sharded.jsonl: {"module", "argument_size_in_bytes",
"output_size_in_bytes", "entry_computation_layout"} from the module compiled
over the 8 devices: `compiled.memory_analysis()` (what one device holds) and
the partitioned module's entry_computation_layout (the per-device shapes).
jax refuses shardings that do not divide entry parameters and results
evenly: the uneven shards are inside (sharding constraints).

    /work/venv-xla/bin/python build-tools/gen_hlo_sharded.py          # rewrite
    /work/venv-xla/bin/python build-tools/gen_hlo_sharded.py --check  # compare

Versions used for the committed files: jax 0.12.0.1, jaxlib 0.12.0.1 (CPU,
Linux x86_64), Python 3.13.
"""

from __future__ import annotations

import argparse
import os
import sys

from gen_hlo_memory import OUT, jsonl


def programs():
    """(name, function, argument specs, in_shardings, out_shardings)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    f32 = lambda *d: jax.ShapeDtypeStruct(d, jnp.float32)  # noqa: E731
    grid = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))
    line = Mesh(np.array(jax.devices()[:8]), ("d",))
    s = lambda *spec: NamedSharding(grid, P(*spec))  # noqa: E731
    d = lambda *spec: NamedSharding(line, P(*spec))  # noqa: E731

    def tiled(a, b):
        uneven = jax.lax.with_sharding_constraint(a[:7, :9], s("x", "y"))
        return a * 2, uneven.sum(), b * 2

    def rows(x, w):
        y = jnp.tanh(x @ w.astype(jnp.float32))
        odd = jax.lax.with_sharding_constraint(y[:13], d("d"))
        return y, {"mean": y.mean(axis=0), "odd": odd.max(axis=1)}

    return [
        ("sharded_tiled", tiled, [f32(8, 12), f32(16)], (s("x", "y"), s()), (s("x", "y"), s(), s("y"))),
        ("sharded_replicated", jnp.sin, [f32(5, 3)], s(), s()),
        ("sharded_rows", rows, [f32(64, 32), jax.ShapeDtypeStruct((32, 24), jnp.bfloat16)], (d("d"), d()),
         (d("d"), {"mean": d(), "odd": d()})),
        ("sharded_columns", lambda a, b: (a + b[None, :], a.T), [f32(6, 16), f32(16)], (s(None, "y"), s("y")),
         (s(None, ("x", "y")), s("y"))),
    ]


def entry_layout(text):
    """The `entry_computation_layout={...}` of a module's first line."""
    head = text.split("\n", 1)[0]
    start = head.index("entry_computation_layout={") + len("entry_computation_layout=")
    depth = 0
    for i in range(start, len(head)):
        depth += {"{": 1, "}": -1}.get(head[i], 0)
        if depth == 0:
            return head[start + 1 : i]
    raise ValueError("unbalanced entry_computation_layout")


def generate():
    """File name to bytes."""
    import jax

    jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")
    files = {}
    rows = []
    for name, fun, specs, ins, outs in programs():
        lowered = jax.jit(fun, in_shardings=ins, out_shardings=outs).lower(*specs)
        hlo = lowered.compiler_ir("hlo")
        files[name + ".txt"] = hlo.as_hlo_text().encode()
        files[name + ".pb"] = hlo.as_serialized_hlo_module_proto()
        compiled = lowered.compile()
        stats = compiled.memory_analysis()
        rows.append({
            "module": name,
            "argument_size_in_bytes": stats.argument_size_in_bytes,
            "output_size_in_bytes": stats.output_size_in_bytes,
            "entry_computation_layout": entry_layout(compiled.as_text()),
        })
    files["sharded.jsonl"] = jsonl(rows)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true", help="regenerate in memory and compare with --out")
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
    files = generate()
    # Imported here, not at the top: the golden modules record this file's
    # line numbers in their stack frames.
    from golden_io import write_or_check

    bad = write_or_check(files, args.out, args.check)
    print("%d files" % len(files), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
