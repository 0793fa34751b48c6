"""Writes tests/golden/peak_memory/ and tests/golden/peak_memory.jsonl: jax
programs compiled by real XLA (the CPU client of jaxlib) with XLA's own buffer
assignment, and the peak memory XLA's algorithm computes from it: the programs
of `programs()` below, then those of peak_memory_heldout.py and peak_origins_programs.py
(written apart, to check general rules and origins; peak_memory_more.py gathers them, and the
expected origins, so that the line numbers of this file, which the module texts record, stay).

Each program is compiled in a child process of its own with
`XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_proto --xla_dump_hlo_as_text`
(a fresh DIR each time; the text flag adds the text dumps). For each program
NAME, tests/golden/peak_memory/NAME/ holds:

  compiled.txt                  `compiled.as_text()` (source file names canonicalized to their base name)
  after_optimizations.hlo.pb    XLA's `*after_optimizations.hlo.pb`: an HloProto, the module and its
                                BufferAssignmentProto, heap traces included (dumped before XLA drops them)
  buffer-assignment.txt         XLA's `*after_optimizations-buffer-assignment.txt`
  live-range.txt                XLA's `*after_optimizations-live-range.txt`

and peak_memory.jsonl one row: {"name", "memory_analysis": every number of jaxlib's `compiled.
memory_analysis()`, "expected": {"peak_bytes", "static_bytes", "heap_peak_bytes", "traces", "events",
"live_at_peak", "by_source" (see peak_memory_more.py)}}. XLA's algorithm (`ComputePeakMemory` of XLA's
buffer_assignment.cc) replayed here on the dumped BufferAssignmentProto: the static baseline (the
largest logical buffer of each allocation that holds an entry parameter, a constant or a maybe-live-out
value and is not thread-local) plus the ALLOC / FREE / SHARE_WITH events of every heap trace, replayed
with reference counts, trace after trace. jaxlib's CPU `peak_memory_in_bytes` is computed after XLA has
dropped the heap traces, so it is the static baseline alone: the generator checks that equality for
every program and fails if it does not hold.

The protos are decoded with Google's protobuf and the descriptors the Rust
crates are built from (tests/golden/descriptors/, taken from jaxlib).

    .venv-jax/bin/python build-tools/gen_peak_memory.py          # rewrite
    .venv-jax/bin/python build-tools/gen_peak_memory.py --check  # compare

Versions used for the committed files: jax 0.12.0.1, jaxlib 0.12.0.1 (CPU,
Linux x86_64), protobuf 7.36.2, Python 3.13. Run by hand; CI has no jax.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

from peak_memory_more import extra_programs, live_at_peak

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "tests", "golden")
DESCRIPTORS = os.path.join(GOLDEN, "descriptors")
TAG = "PEAK-RESULT "

# The dumped files kept, by the suffix of XLA's file name.
DUMPS = {
    ".cpu_after_optimizations.hlo.pb": "after_optimizations.hlo.pb",
    ".cpu_after_optimizations-buffer-assignment.txt": "buffer-assignment.txt",
    ".cpu_after_optimizations-live-range.txt": "live-range.txt",
}

STATS = [
    "alias_size_in_bytes",
    "argument_size_in_bytes",
    "generated_code_size_in_bytes",
    "host_alias_size_in_bytes",
    "host_argument_size_in_bytes",
    "host_generated_code_size_in_bytes",
    "host_output_size_in_bytes",
    "host_temp_size_in_bytes",
    "indefinite_allocations",
    "output_size_in_bytes",
    "peak_memory_in_bytes",
    "peak_unpadded_heap_bytes",
    "temp_size_in_bytes",
    "total_allocation_bytes",
]


def programs():
    """name -> (function, argument specs, jit keyword arguments)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    f32 = lambda *d: jax.ShapeDtypeStruct(d, jnp.float32)  # noqa: E731
    i32 = lambda *d: jax.ShapeDtypeStruct(d, jnp.int32)  # noqa: E731
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)

    def mlp(p, x):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return h @ p["w2"] + p["b2"]

    mlp_params = {"w1": f32(64, 128), "b1": f32(128), "w2": f32(128, 32), "b2": f32(32)}

    def mlp_loss(p, x, y):
        return jnp.mean((mlp(p, x) - y) ** 2)

    def attention(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k) / 8.0
        return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)

    def conv(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def conv_loss(x, k):
        return jnp.sum(jax.nn.relu(conv(x, k)) ** 2)

    def layer(h, w):
        return jnp.tanh(h @ w), None

    def layers(ws, x):
        h, _ = lax.scan(layer, x, ws)
        return jnp.sum(h)

    def layers_remat(ws, x):
        h, _ = lax.scan(jax.checkpoint(layer), x, ws)
        return jnp.sum(h)

    def dus_loop(x, rows):
        def body(i, acc):
            return lax.dynamic_update_slice(acc, rows[i][None] * acc[i][None], (i, 0))

        return lax.fori_loop(0, rows.shape[0], body, x)

    def while_converge(x):
        return lax.while_loop(lambda c: jnp.sum(c[0]) < 1e3, lambda c: (c[0] * 1.5 + 1.0, c[1] + 1), (x, 0))

    def dropout(k, x):
        keep = jax.random.bernoulli(k, 0.9, x.shape)
        return jnp.where(keep, x / 0.9, 0.0)

    def layernorm(x, g, b):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.var(x, axis=-1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-5) * g + b

    table = jnp.arange(4096.0).reshape(64, 64)

    return {
        "elementwise": (lambda a, b: jnp.exp(a) * b - 1.0, [f32(32, 64), f32(32, 64)], {}),
        "mlp": (mlp, [mlp_params, f32(16, 64)], {}),
        "mlp_grad": (jax.grad(mlp_loss), [mlp_params, f32(16, 64), f32(16, 32)], {}),
        "mlp_value_and_grad": (jax.value_and_grad(mlp_loss), [mlp_params, f32(16, 64), f32(16, 32)], {}),
        "attention": (attention, [f32(2, 64, 32), f32(2, 64, 32), f32(2, 64, 32)], {}),
        "attention_grad": (jax.grad(lambda q, k, v: jnp.sum(attention(q, k, v))), [f32(2, 32, 16)] * 3, {}),
        "conv": (conv, [f32(2, 3, 16, 16), f32(8, 3, 3, 3)], {}),
        "conv_grad": (jax.grad(conv_loss, argnums=(0, 1)), [f32(2, 3, 12, 12), f32(4, 3, 3, 3)], {}),
        "scan_cumulative": (lambda xs: lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(xs.shape[1:]), xs),
                            [f32(16, 8, 8)], {}),
        "scan_layers_grad": (jax.grad(layers), [f32(6, 32, 32), f32(8, 32)], {}),
        "scan_layers_remat_grad": (jax.grad(layers_remat), [f32(6, 32, 32), f32(8, 32)], {}),
        "fori_loop": (lambda x: lax.fori_loop(0, 10, lambda i, c: c * 2.0 + i, x), [f32(16, 16)], {}),
        "while_converge": (while_converge, [f32(8, 8)], {}),
        "cond": (lambda p, x: lax.cond(p, lambda v: v + 1.0, lambda v: (v * 3.0)[::-1], x),
                 [jax.ShapeDtypeStruct((), jnp.bool_), f32(64)], {}),
        "switch": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda v: v @ v.T], x), [i32(), f32(16, 16)], {}),
        "donated": (lambda a, b: (a + b, a * b), [f32(256), f32(256)], {"donate_argnums": (0,)}),
        "donated_update": (lambda s, g: {"w": s["w"] - 0.1 * g, "m": 0.9 * s["m"] + g},
                           [{"w": f32(64, 64), "m": f32(64, 64)}, f32(64, 64)], {"donate_argnums": (0,)}),
        "sort": (lambda x: (jnp.sort(x, axis=-1), jnp.argsort(x, axis=0)), [f32(32, 16)], {}),
        "sort_pairs": (lambda k, v: lax.sort((k, v), num_keys=1), [f32(128), i32(128)], {}),
        "top_k": (lambda x: lax.top_k(x, 5), [f32(8, 100)], {}),
        "gather": (lambda x, i: x[i], [f32(100, 16), i32(24)], {}),
        "scatter_add": (lambda x, i, u: x.at[i].add(u), [f32(100, 16), i32(24), f32(24, 16)], {}),
        "dus_loop": (dus_loop, [f32(16, 32), f32(16, 32)], {}),
        "dynamic_slice": (lambda x, i: lax.dynamic_update_slice(x, lax.dynamic_slice(x, (i, 0), (4, 8)) * 2, (0, i)),
                          [f32(24, 24), i32()], {}),
        "cholesky": (lambda a: jnp.linalg.cholesky(a @ a.T + 16.0 * jnp.eye(16)), [f32(16, 16)], {}),
        "solve": (jnp.linalg.solve, [f32(16, 16), f32(16, 4)], {}),
        "eigh": (jnp.linalg.eigh, [f32(16, 16)], {}),
        "svd": (lambda a: jnp.linalg.svd(a, full_matrices=False), [f32(24, 16)], {}),
        "qr": (jnp.linalg.qr, [f32(24, 16)], {}),
        "fft": (lambda x: jnp.fft.fft(x).real, [f32(8, 64)], {}),
        "rfft2_roundtrip": (lambda x: jnp.fft.irfft2(jnp.fft.rfft2(x) * 0.5, s=x.shape), [f32(32, 32)], {}),
        "random_normal": (lambda k: jax.random.normal(k, (64, 32)), [key], {}),
        "dropout": (dropout, [key, f32(32, 64)], {}),
        "many_outputs": (lambda x: tuple(x * i for i in range(9)), [f32(16, 4)], {}),
        "reduce": (lambda x: (x.sum(axis=1), x.max(), jnp.argmax(x, axis=0)), [f32(33, 70)], {}),
        "layernorm": (layernorm, [f32(32, 64), f32(64), f32(64)], {}),
        "cumsum": (lambda x: jnp.cumsum(x, axis=0), [f32(64, 16)], {}),
        "constant_table": (lambda x: x @ table + table[0], [f32(8, 64)], {}),
        "parameter_out": (lambda a, b: (a, a * b, b), [f32(64), f32(64)], {}),
        "concat_pad": (lambda a, b: jnp.pad(jnp.concatenate([a, b.T], axis=0), 2), [f32(16, 8), f32(8, 16)], {}),
        "transpose_chain": (lambda x: jnp.transpose(x, (2, 0, 1)).reshape(16, -1) @ jnp.ones((64, 8)),
                            [f32(4, 16, 16)], {}),
    }


def worker(name: str) -> None:
    """Compiles program `name` (XLA_FLAGS set by the parent) and prints its
    module text and memory analysis as one tagged JSON line."""
    import jax

    jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")
    fun, specs, kw = {**programs(), **extra_programs()}[name]

    def program(*args):
        return fun(*args)

    # The module is then `jit_NAME`, told apart from the helper modules jax
    # compiles on the way (constants built with jnp).
    program.__name__ = name
    compiled = jax.jit(program, **kw).lower(*specs).compile()
    stats = compiled.memory_analysis()
    answer = {"text": compiled.as_text(), "stats": {k: int(getattr(stats, k)) for k in STATS}}
    print(TAG + json.dumps(answer), flush=True)


def compile_program(name: str) -> tuple[dict, dict]:
    """(the worker's answer, kept file name -> bytes) for one program."""
    with tempfile.TemporaryDirectory() as dump:
        env = dict(os.environ)
        env["XLA_FLAGS"] = "--xla_dump_to=%s --xla_dump_hlo_as_proto --xla_dump_hlo_as_text" % dump
        env["JAX_PLATFORMS"] = "cpu"
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name],
                             env=env, check=True, capture_output=True, text=True).stdout
        (line,) = [l for l in out.splitlines() if l.startswith(TAG)]
        answer = json.loads(line[len(TAG):])
        files = {}
        for suffix, kept in DUMPS.items():
            found = glob.glob(os.path.join(dump, "module_*.jit_%s%s" % (name, suffix)))
            if len(found) != 1:
                raise SystemExit("%s: expected one %s dump, found %r" % (name, suffix, found))
            with open(found[0], "rb") as f:
                files[kept] = f.read()
        return answer, files


def hlo_proto_class():
    """HloProto's message class, built from the descriptors jaxlib holds."""
    from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, duration_pb2, message_factory, timestamp_pb2

    pool = descriptor_pool.DescriptorPool()
    for wkt in (any_pb2, duration_pb2, timestamp_pb2):
        pool.AddSerializedFile(wkt.DESCRIPTOR.serialized_pb)
    for stem in ("xla_data", "metrics", "hlo"):
        with open(os.path.join(DESCRIPTORS, stem + ".binpb"), "rb") as f:
            pool.Add(descriptor_pb2.FileDescriptorProto.FromString(f.read()))
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("xla.HloProto"))


def replay(assignment) -> dict:
    """XLA's peak: static baseline, then every heap trace replayed with
    reference counts (ALLOC=0, FREE=1, SHARE_WITH=2)."""
    size = {b.id: b.size for b in assignment.logical_buffers}
    refs = dict.fromkeys(size, 0)
    under = {}

    def root(i):
        while i in under:
            i = under[i]
        return i

    static = 0
    for a in assignment.buffer_allocations:
        if a.is_thread_local or not (a.is_entry_computation_parameter or a.is_constant or a.maybe_live_out):
            continue
        best = None
        for assigned in a.assigned:
            if best is None or size[assigned.logical_buffer_id] > size[best]:
                best = assigned.logical_buffer_id
        if best is not None:
            refs[best] = 1
            static += size[best]
    memory = peak = static
    events = 0
    for trace in assignment.heap_simulator_traces:
        for e in trace.events:
            events += 1
            if e.kind == 0:
                refs[e.buffer_id] += 1
                if refs[e.buffer_id] == 1:
                    memory += size[e.buffer_id]
            elif e.kind == 1:
                r = root(e.buffer_id)
                under.pop(e.buffer_id, None)
                refs[r] -= 1
                if refs[r] < 0:
                    raise SystemExit("FREE of buffer %d, never allocated" % e.buffer_id)
                if refs[r] == 0:
                    memory -= size[r]
            elif e.kind == 2:
                r = root(e.share_with_canonical_id)
                under[e.buffer_id] = r
                refs[r] += 1
                if refs[r] == 1:
                    memory += size[r]
            peak = max(peak, memory)
    return {"peak_bytes": peak, "static_bytes": static, "heap_peak_bytes": peak - static,
            "traces": len(assignment.heap_simulator_traces), "events": events}


def generate(hlo_proto) -> tuple[dict, list]:
    """(directory name -> kept file name -> bytes, rows of peak_memory.jsonl)."""
    dirs, rows = {}, []
    bad = []
    for name in {**programs(), **extra_programs()}:
        answer, files = compile_program(name)
        files["compiled.txt"] = answer["text"].encode()
        proto = hlo_proto.FromString(files["after_optimizations.hlo.pb"])
        if not proto.HasField("buffer_assignment"):
            raise SystemExit("%s: the dumped HloProto has no buffer assignment" % name)
        expected = {**replay(proto.buffer_assignment), **live_at_peak(proto)}
        stats = answer["stats"]
        if stats["temp_size_in_bytes"] and not expected["events"]:
            bad.append("%s: %d bytes of temporaries but no heap-trace event in the dump"
                       % (name, stats["temp_size_in_bytes"]))
        if expected["static_bytes"] != stats["peak_memory_in_bytes"]:
            bad.append("%s: static baseline %d != jaxlib peak_memory_in_bytes %d"
                       % (name, expected["static_bytes"], stats["peak_memory_in_bytes"]))
        print("%-24s peak %9d  static %9d  jaxlib %9d  traces %d" % (
            name, expected["peak_bytes"], expected["static_bytes"], stats["peak_memory_in_bytes"],
            expected["traces"]), file=sys.stderr)
        dirs[name] = files
        rows.append({"name": name, "memory_analysis": stats, "expected": expected})
    if not any(r["expected"]["events"] for r in rows):
        bad.append("no dumped HloProto has heap-trace events: were the traces dropped before the dump?")
    if bad:
        raise SystemExit("\n".join(bad))
    return dirs, rows


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=GOLDEN, help="output directory (default: tests/golden)")
    ap.add_argument("--check", action="store_true", help="regenerate in memory and compare with --out")
    args = ap.parse_args()
    from golden_io import jsonl_bytes, write_or_check

    dirs, rows = generate(hlo_proto_class())
    bad = 0
    for name, files in dirs.items():
        bad += write_or_check(files, os.path.join(args.out, "peak_memory", name), args.check)
    bad += write_or_check({"peak_memory.jsonl": jsonl_bytes(rows)}, args.out, args.check)
    print("%d programs" % len(rows), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
