"""Writes tests/golden/broadcast.jsonl: result shapes and error texts of
broadcasting in real XLA (jaxlib's CPU XLA) and numpy.

Three kinds of rows (`kind`):

* `xla_binary`: an elementwise binary HLO instruction written without a result
  shape (`ROOT r = add(p0, p1)`), parsed with `xla_client.hlo.hlo_module_from_text`.
  The HLO parser infers the missing shape with XLA's
  `ShapeInference::InferBinaryOpShape` (no broadcast_dimensions: HLO has none).
  The last rows try more opcodes (shifts, and/or/xor, complex, ...) on every
  kind of element type, whose checks come before the broadcasting.
* `xla_broadcast_in_dim`: a StableHLO `broadcast_in_dim` converted to HLO by
  `mlir_module_to_xla_computation` (StableHLO's verifier runs first, then
  XLA's builder).
* `numpy`: `np.broadcast_shapes(*shapes)`.

    /work/venv-golden/bin/python build-tools/gen_broadcast.py [--check]
"""

from __future__ import annotations

import random
import re
import sys

from golden_io import run

SIZES = [1, 1, 2, 3, 0, 4]


def dim_text(size: int, dyn: str) -> str:
    return {"": str(size), "bounded": "<=%d" % size, "unbounded": "?"}[dyn]


def shape_text(ty: str, dims) -> str:
    return "%s[%s]" % (ty, ",".join(dim_text(s, d) for s, d in dims))


def binary_cases(rng: random.Random):
    """(op, lhs, rhs) strings."""
    cases = []
    types = [("f32", "f32")] * 6 + [("bf16", "f32"), ("f16", "bf16"), ("s32", "s32"), ("f32", "s32"), ("f64", "f16")]
    for _ in range(420):
        lt, rt = rng.choice(types)
        op = rng.choice(["add", "multiply", "maximum", "subtract", "atan2"])
        rank = rng.randint(0, 4)
        lhs = [(rng.choice(SIZES), "") for _ in range(rank)]
        mode = rng.random()
        if mode < 0.55:
            # Same rank: keep, set to 1 or change some dimensions.
            rhs = []
            for s, _ in lhs:
                r = rng.random()
                rhs.append((s if r < 0.5 else 1 if r < 0.8 else rng.choice(SIZES), ""))
        elif mode < 0.7:
            rhs = []  # scalar
        elif mode < 0.85:
            rhs = lhs[rng.randint(0, rank) :] if rank else [(2, "")]
        else:
            rhs = [(rng.choice(SIZES), "") for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.25:
            # Dynamic dimensions on either side.
            for side in (lhs, rhs):
                for i, (s, _) in enumerate(side):
                    if rng.random() < 0.4:
                        side[i] = (max(s, 1), rng.choice(["bounded", "unbounded"]))
        if rng.random() < 0.5:
            lhs, rhs = rhs, lhs
        cases.append((op, shape_text(lt, lhs), shape_text(rt, rhs)))
    return cases


OPCODE_TYPES = ["f32", "f64", "bf16", "s32", "u8", "s4", "pred", "c64"]
OPCODES = ["subtract", "divide", "remainder", "power", "atan2", "shift-left", "shift-right-logical",
           "shift-right-arithmetic", "and", "or", "xor", "complex", "minimum", "maximum", "multiply"]


def opcode_cases(rng: random.Random):
    """(op, lhs, rhs) of the opcodes whose element type checks come before
    broadcasting (InferBinaryOpShape), on every kind of element type."""
    cases = []
    for _ in range(200):
        op = rng.choice(OPCODES)
        lt = rng.choice(OPCODE_TYPES)
        rt = lt if rng.random() < 0.7 else rng.choice(OPCODE_TYPES)
        rank = rng.randint(0, 3)
        lhs = [(rng.choice(SIZES), "") for _ in range(rank)]
        rhs = [(s if rng.random() < 0.7 else 1, "") for s, _ in lhs] if rng.random() < 0.8 else []
        if rng.random() < 0.5:
            lhs, rhs = rhs, lhs
        cases.append((op, shape_text(lt, lhs), shape_text(rt, rhs)))
    return cases


def gen_binary(hlo, cases):
    rows = []
    seen = set()
    for op, lhs, rhs in cases:
        if (op, lhs, rhs) in seen:
            continue
        seen.add((op, lhs, rhs))
        text = "HloModule m\n\nENTRY e {\n  p0 = %s parameter(0)\n  p1 = %s parameter(1)\n  ROOT r = %s(p0, p1)\n}\n" % (lhs, rhs, op)
        row = {"kind": "xla_binary", "op": op, "lhs": lhs, "rhs": rhs}
        try:
            module = hlo.hlo_module_from_text(text)
            m = re.search(r"ROOT %r = (\S+) " + op + r"\(", module.to_string())
            row["result"] = m.group(1)
        except Exception as e:  # noqa: BLE001 -- the error text is the golden value
            m = re.search(r"failed to infer shape for opcode: [\w-]+, error: (.*)", str(e))
            if not m:
                sys.exit("unexpected error for %r: %s" % (text, e))
            row["error"] = m.group(1)
        rows.append(row)
    return rows


def tensor_type(dims, ty="f32") -> str:
    return "tensor<%s%s>" % ("".join(("?" if d is None else str(d)) + "x" for d in dims), ty)


def broadcast_in_dim_cases(rng: random.Random):
    """(operand dims, output dims, broadcast_dimensions); None is `?`."""
    cases = []
    for _ in range(330):
        out_rank = rng.randint(0, 4)
        out = [rng.choice([1, 2, 3, 4, 0]) for _ in range(out_rank)]
        op_rank = rng.randint(0, out_rank) if rng.random() < 0.9 else out_rank + 1
        if rng.random() < 0.8:
            dims = sorted(rng.sample(range(out_rank), min(op_rank, out_rank)))
        else:
            dims = sorted(rng.randint(-1, out_rank) for _ in range(op_rank))
        if rng.random() < 0.1 and dims:
            dims = dims[:-1] if rng.random() < 0.5 else dims + [out_rank - 1]
        operand = []
        for i in range(op_rank):
            target = out[dims[i]] if i < len(dims) and 0 <= dims[i] < out_rank else 2
            r = rng.random()
            operand.append(target if r < 0.6 else 1 if r < 0.8 else None if r < 0.87 else rng.choice([1, 2, 3, 5]))
        cases.append((operand, out, dims))
    return cases


def gen_broadcast_in_dim(rng, mlir):
    rows = []
    seen = set()
    for operand, out, dims in broadcast_in_dim_cases(rng):
        key = (tuple(map(str, operand)), tuple(out), tuple(dims))
        if key in seen:
            continue
        seen.add(key)
        text = (
            "module @m {\n  func.func public @main(%%arg0: %s) -> %s {\n"
            "    %%0 = stablehlo.broadcast_in_dim %%arg0, dims = [%s] : (%s) -> %s\n"
            "    return %%0 : %s\n  }\n}\n"
        ) % (tensor_type(operand), tensor_type(out), ", ".join(map(str, dims)), tensor_type(operand), tensor_type(out), tensor_type(out))
        row = {
            "kind": "xla_broadcast_in_dim",
            "operand": "f32[%s]" % ",".join("?" if d is None else str(d) for d in operand),
            "output": "f32[%s]" % ",".join(map(str, out)),
            "broadcast_dimensions": dims,
        }
        try:
            computation = mlir.mlir_module_to_xla_computation(text, use_tuple_args=False, return_tuple=False)
            row["result"] = str(computation.program_shape().result_shape())
        except Exception as e:  # noqa: BLE001
            m = re.search(r"-:3:10: error: (.*)", str(e))
            if not m:
                sys.exit("unexpected error for %r: %s" % (text, e))
            row["error"] = m.group(1)
        rows.append(row)
    return rows


def numpy_cases(rng: random.Random):
    cases = [[], [[]], [[0], [1]], [[-1]], [[2, -3], [3]], [[1 << 40, 1 << 40]], [[1 << 62], [4, 1]]]
    for _ in range(360):
        n = rng.choice([1, 2, 2, 2, 3, 3, 4])
        base = [rng.choice([2, 3, 4, 5, 0, 1]) for _ in range(rng.randint(0, 5))]
        shapes = []
        for _ in range(n):
            shape = base[rng.randint(0, len(base)) :]
            shape = [1 if rng.random() < 0.3 else d for d in shape]
            if rng.random() < 0.2 and shape:
                shape[rng.randrange(len(shape))] = rng.choice([2, 3, 4, 7])
            shapes.append(shape)
        cases.append(shapes)
    return cases


def numpy_limit_cases():
    """numpy's limits: 64 dimensions per array (the arrays made in order),
    32 per broadcast, and more than 64 shapes broadcast in groups (the shape
    so far as argument 0 of the next group)."""
    return [
        [[1] * 65, [-1]],
        [[-1], [1] * 65],
        [[1] * 64],
        [[2], [3], [1] * 33],
        [[1] * 32] * 3,
        [[1]] * 64 + [[2], [3]],
        [[2, 1]] * 3 + [[1]] * 66 + [[2, 3], [4, 1]],
        [[1]] * 100,
    ]


def gen_numpy(cases):
    import numpy as np

    rows = []
    seen = set()
    for shapes in cases:
        key = repr(shapes)
        if key in seen:
            continue
        seen.add(key)
        row = {"kind": "numpy", "shapes": shapes}
        try:
            row["result"] = list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
        except (ValueError, RuntimeError) as e:
            row["error"] = str(e)
        rows.append(row)
    return rows


def generate():
    import jax
    from jax._src.lib import xla_client as xc

    jax.config.update("jax_enable_x64", True)
    rows = gen_binary(xc.hlo, binary_cases(random.Random(7)))
    rows += gen_broadcast_in_dim(random.Random(8), xc._xla.mlir)
    rows += gen_numpy(numpy_cases(random.Random(9)))
    rows += gen_binary(xc.hlo, opcode_cases(random.Random(10)))
    rows += gen_numpy(numpy_limit_cases())
    return {"broadcast.jsonl": rows}


if __name__ == "__main__":
    sys.exit(run(generate, __doc__))
