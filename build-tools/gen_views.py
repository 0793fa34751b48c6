"""Writes tests/golden/views.jsonl: chains of numpy view operations and what
numpy made of each step.

Every chain starts from a C-contiguous `np.arange(n, dtype=np.int32)` buffer
(`start` = `{"shape"}`: reshaped to that shape; or `{"as_strided": {...}}`:
`np.lib.stride_tricks.as_strided(buf[offset:], shape, byte strides)`), then
applies `steps` (a start numpy rejects records the exception text as
`start.error`, with no steps). After each step the row records numpy's shape, strides and
offset in elements (the offset from the data-pointer difference in
`__array_interface__`), C/F contiguity flags, and for small views the element
values (= their element offsets, as the buffer is an arange). A step numpy
rejects records the exception text and ends the chain; `reshape` is called with
`copy=False`, so a reshape that needs a copy is such an error. An index of
integers only (including `[]`) gets a trailing `...`, so numpy returns a 0-d
view rather than a scalar copy.

    /work/venv-golden/bin/python build-tools/gen_views.py [--check]
"""

from __future__ import annotations

import math
import random
import sys

from golden_io import run

ITEMSIZE = 4
MAX_ELEMENTS = 64


def index_text(items) -> str:
    def one(it):
        if it is None:
            return "None"
        if it is Ellipsis:
            return "..."
        if isinstance(it, int):
            return str(it)
        parts = ["" if v is None else str(v) for v in (it.start, it.stop, it.step)]
        return ":".join(parts) if it.step is not None else ":".join(parts[:2])

    return "[" + ", ".join(one(it) for it in items) + "]"


def random_slice(rng, size):
    def bound():
        return rng.choice([None, None, rng.randint(-size - 1, size + 1)])

    step = rng.choice([None, None, 1, 2, 3, -1, -2, -1])
    return slice(bound(), bound(), step)


def random_step(rng, shape):
    """One operation (json dict, numpy callable) for an array of `shape`."""
    import numpy as np

    nd = len(shape)
    bad = rng.random() < 0.1

    def axis(extra=0):
        n = nd + extra
        if bad or n == 0:
            return rng.randint(-n - 2, n + 1)
        return rng.randint(-n, n - 1)

    kind = rng.choice(
        ["reshape", "reshape", "reshape_f", "transpose", "transpose", "swapaxes", "moveaxis", "expand_dims",
         "squeeze", "broadcast_to", "index", "index", "index", "flip"]
    )
    if kind in ("reshape", "reshape_f"):
        count = math.prod(shape)
        target = []
        rest = count
        for _ in range(rng.randint(1, 4)):
            divisors = [d for d in range(1, rest + 1) if rest % d == 0] if rest else [0, 1, 2]
            d = rng.choice(divisors)
            target.append(d)
            rest = rest // d if d else rest
        if rest not in (0, 1) or count == 0:
            target.append(rest if count else 0)
        if rng.random() < 0.3 and target:
            target[rng.randrange(len(target))] = -1
        if bad:
            target.append(rng.choice([2, 3, -1]))
        order = "F" if kind == "reshape_f" else "C"
        return {"op": kind, "target": target}, lambda a: a.reshape(target, order=order, copy=False)
    if kind == "transpose":
        if rng.random() < 0.3:
            return {"op": "transpose"}, lambda a: a.T
        axes = list(range(nd))
        rng.shuffle(axes)
        axes = [x - nd if rng.random() < 0.3 else x for x in axes]
        if bad:
            axes = axes[:-1] if axes and rng.random() < 0.5 else axes + [0]
        return {"op": "transpose", "axes": axes}, lambda a: a.transpose(axes)
    if kind == "swapaxes":
        a1, a2 = axis(), axis()
        return {"op": "swapaxes", "axis1": a1, "axis2": a2}, lambda a: np.swapaxes(a, a1, a2)
    if kind == "moveaxis":
        k = rng.randint(0, nd)
        src = rng.sample(range(nd), k)
        dst = rng.sample(range(nd), k)
        if bad:
            src = src + [axis()]
        return {"op": "moveaxis", "source": src, "destination": dst}, lambda a: np.moveaxis(a, src, dst)
    if kind == "expand_dims":
        k = rng.randint(1, 2)
        axes = [axis(k) for _ in range(k)]
        return {"op": "expand_dims", "axes": axes}, lambda a: np.expand_dims(a, tuple(axes))
    if kind == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        if rng.random() < 0.3 or not ones:
            if bad and nd:
                ax = [axis()]
                return {"op": "squeeze", "axes": ax}, lambda a: np.squeeze(a, tuple(ax))
            return {"op": "squeeze"}, lambda a: np.squeeze(a)
        ax = rng.sample(ones, rng.randint(1, len(ones)))
        if bad:
            ax = ax + [ax[0]]
        return {"op": "squeeze", "axes": ax}, lambda a: np.squeeze(a, tuple(ax))
    if kind == "broadcast_to":
        target = [rng.choice([2, 3]) if s == 1 and rng.random() < 0.6 else s for s in shape]
        target = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))] + target
        if bad:
            target = target[1:] if target and rng.random() < 0.5 else [s + 1 for s in target]
        return {"op": "broadcast_to", "target": target}, lambda a: np.broadcast_to(a, target)
    if kind == "flip" and nd:
        # (np.flip of a 0-d array returns a scalar copy, not a view.)
        if rng.random() < 0.3:
            return {"op": "flip"}, lambda a: np.flip(a)
        ax = sorted(set(axis() for _ in range(rng.randint(1, nd))))
        return {"op": "flip", "axes": ax}, lambda a: np.flip(a, tuple(ax))
    # Basic indexing.
    items = []
    dims = list(shape)
    while dims and rng.random() < 0.85:
        size = dims.pop(0)
        r = rng.random()
        if r < 0.55:
            items.append(random_slice(rng, size))
        elif r < 0.75:
            items.append(rng.randint(-size, size - 1) if size and not bad else rng.randint(-size - 1, size + 1))
        elif r < 0.85:
            items.append(None)
            dims.insert(0, size)
        else:
            items.append(Ellipsis)
            dims = dims[rng.randint(0, len(dims)) :] if dims else []
    if rng.random() < 0.15:
        items.append(None)
    if bad:
        items.append(0)
    if not any(it is Ellipsis for it in items) and all(isinstance(it, int) for it in items):
        # Integers alone give numpy scalars (copies); with `...` a 0-d view.
        items.append(Ellipsis)
    key = tuple(items)
    return {"op": "index", "expression": index_text(items)}, lambda a: a[key]


def describe(view, base) -> dict:
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    out = {
        "shape": list(view.shape),
        "strides": [s // ITEMSIZE for s in view.strides],
        "offset": offset // ITEMSIZE,
        "c_contiguous": bool(view.flags.c_contiguous),
        "f_contiguous": bool(view.flags.f_contiguous),
    }
    if view.size <= MAX_ELEMENTS:
        out["elements"] = view.ravel(order="C").tolist()
    return out


def chain(rng):
    import numpy as np

    rank = rng.choice([0, 1, 2, 2, 3, 3, 4])
    shape = [rng.choice([1, 2, 3, 4, 2, 3, 0 if rng.random() < 0.1 else 2]) for _ in range(rank)]
    if rng.random() < 0.2 and rank:
        # as_strided over a buffer that fits the view.
        strides = [rng.choice([0, 1, 2, 3, -1, 5, 7]) for _ in shape]
        low = sum(min(0, st * (s - 1)) for s, st in zip(shape, strides))
        high = sum(max(0, st * (s - 1)) for s, st in zip(shape, strides))
        offset = -low + rng.randint(0, 2)
        n = offset + high + 1 + rng.randint(0, 2)
        buf = np.arange(n, dtype=np.int32)
        view = np.lib.stride_tricks.as_strided(buf[offset:], shape, [st * ITEMSIZE for st in strides])
        start = {"as_strided": {"buffer_len": n, "shape": shape, "strides": strides, "offset": offset}}
    else:
        n = math.prod(shape)
        buf = np.arange(n, dtype=np.int32)
        view = buf.reshape(shape)
        start = {"shape": shape}
    steps = []
    for _ in range(rng.randint(1, 5)):
        step, apply = random_step(rng, list(view.shape))
        try:
            view = apply(view)
        except (ValueError, IndexError, TypeError) as e:
            step["error"] = str(e)
            steps.append(step)
            break
        if not isinstance(view, np.ndarray) or (view.size and not np.shares_memory(view, buf)):
            sys.exit("not a view of the buffer: %r after %r" % (view, steps + [step]))
        step.update(describe(view, buf))
        steps.append(step)
    return {"start": start, "steps": steps}


def fixed_chains():
    """Chains found by differential testing: the order of numpy's checks
    (every axis's bounds before a repeat in flip/expand_dims/moveaxis, one
    at a time in transpose/squeeze), broadcasting to `()`, and the limit of
    64 dimensions."""
    import numpy as np

    def index(items):
        return {"op": "index", "expression": index_text(items)}, lambda a: a[tuple(items)]

    return [
        ([2, 4, 5, 1], [({"op": "flip", "axes": [-3, 1, 100]}, lambda a: np.flip(a, (-3, 1, 100)))]),
        ([2, 1, 1], [({"op": "expand_dims", "axes": [1, 1, 9]}, lambda a: np.expand_dims(a, (1, 1, 9)))]),
        ([2, 1, 1], [({"op": "moveaxis", "source": [0, 0, 9], "destination": [1, 2, 0]},
                      lambda a: np.moveaxis(a, [0, 0, 9], [1, 2, 0]))]),
        ([2, 1, 1], [({"op": "transpose", "axes": [0, 0, 5]}, lambda a: a.transpose([0, 0, 5]))]),
        ([2, 1, 1], [({"op": "squeeze", "axes": [1, 1, 7]}, lambda a: np.squeeze(a, (1, 1, 7)))]),
        ([4], [({"op": "broadcast_to", "target": []}, lambda a: np.broadcast_to(a, ()))]),
        ([1, 1], [({"op": "broadcast_to", "target": []}, lambda a: np.broadcast_to(a, ()))]),
        ([], [({"op": "broadcast_to", "target": []}, lambda a: np.broadcast_to(a, ()))]),
        ([2], [({"op": "expand_dims", "axes": list(range(63))}, lambda a: np.expand_dims(a, tuple(range(63))))]),
        ([2], [({"op": "expand_dims", "axes": list(range(64))}, lambda a: np.expand_dims(a, tuple(range(64))))]),
        ([2], [({"op": "reshape", "target": [1] * 64 + [2]}, lambda a: a.reshape([1] * 64 + [2], copy=False))]),
        ([2], [({"op": "broadcast_to", "target": [1] * 64 + [2, 3]}, lambda a: np.broadcast_to(a, [1] * 64 + [2, 3]))]),
        ([2], [index([None] * 65 + [5])]),
        ([2], [index([None] * 64 + [0])]),
        ([2], [({"op": "expand_dims", "axes": list(range(64)) + [0]},
                lambda a: np.expand_dims(a, tuple(range(64)) + (0,)))]),
    ]


def operation_chains():
    """One or two steps from a small row-major array for each kind of
    answer of each operation: reshapes that need a copy or not (C and F
    order, `-1` and other negative sizes, empty arrays, scalars), indices
    out of range, too many or two ellipses, clamped and reversed slices,
    `None`, bad and negative axes of transpose, swapaxes, moveaxis,
    expand_dims, squeeze and flip, broadcasts that fit or not, sizes past
    `i64`, reshapes in orders A and K, and `ravel` in every order after
    each kind of view: a view, or `copy` where numpy copies."""
    import numpy as np

    def reshape(*target, order="C"):
        step = {"op": "reshape" if order == "C" else "reshape_" + order.lower(), "target": list(target)}
        return step, lambda a: a.reshape(target, order=order, copy=False)

    def ravel(order):
        return {"op": "ravel", "order": order}, lambda a: a.ravel(order=order)

    def index(key):
        items = list(key) if isinstance(key, tuple) else [key]
        return {"op": "index", "expression": index_text(items)}, lambda a: a[tuple(items)]

    def on_axes(op, call):
        """The step `op` with optional `axes`: `call(a)` without, `call(a, axes)` with."""

        def step(*axes):
            if not axes:
                return {"op": op}, lambda a: call(a)
            return {"op": op, "axes": list(axes)}, lambda a: call(a, axes)

        return step

    transpose = on_axes("transpose", np.transpose)
    squeeze = on_axes("squeeze", np.squeeze)
    flip = on_axes("flip", np.flip)

    def swapaxes(a1, a2):
        return {"op": "swapaxes", "axis1": a1, "axis2": a2}, lambda a: np.swapaxes(a, a1, a2)

    def moveaxis(src, dst):
        return {"op": "moveaxis", "source": src, "destination": dst}, lambda a: np.moveaxis(a, src, dst)

    def expand_dims(*axes):
        return {"op": "expand_dims", "axes": list(axes)}, lambda a: np.expand_dims(a, axes)

    def broadcast_to(*target):
        return {"op": "broadcast_to", "target": list(target)}, lambda a: np.broadcast_to(a, target)

    s = np.s_
    return [
        ([3, 4], [reshape(2, -1, 2)]),
        ([6], [reshape(-1, 4)]),
        ([6], [reshape(4, -1)]),
        ([6], [reshape(4)]),
        ([6], [reshape(-1, -1)]),
        ([6], [reshape(0, -1)]),
        ([6], [reshape(-2, 3)]),
        ([2, 0, 3], [reshape(3, 0, 2)]),
        ([2, 0, 3], [reshape(0, -1)]),
        ([4, 3], [index(s[:, ::2]), reshape(8)]),
        ([4, 1, 3], [index(s[:, :, ::2]), reshape(2, 2, 2)]),
        ([4, 1, 3], [index(s[:, :, ::2]), reshape(2, 2, 1, 2, 1)]),
        ([2, 3, 4], [transpose(1, 0, 2), reshape(3, 8)]),
        ([2, 3, 4], [transpose(1, 0, 2), reshape(3, 2, 2, 2)]),
        ([5], [index(s[::2]), reshape(3, 1)]),
        ([3, 5], [index(s[:, ::2]), transpose(), reshape(3, 3, 1, order="F")]),
        ([3, 5], [index(s[:, ::2]), transpose(), reshape(1, 3, 3, 1, order="F")]),
        ([3, 5], [index(s[:, ::2]), transpose(), reshape(3, 1, 3)]),
        ([3], [broadcast_to(4, 3), reshape(2, 2, 3)]),
        ([1], [broadcast_to(4, 3), reshape(12)]),
        ([1, 1], [reshape()]),
        ([], [reshape(1, 1)]),
        ([4, 3], [index(5)]),
        ([4, 3], [index(-5)]),
        ([4, 3], [index(s[:, 3])]),
        ([4, 3], [index((0, 0, 0))]),
        ([4, 3], [index((Ellipsis, Ellipsis))]),
        ([4, 3], [index(s[1:1])]),
        ([4, 3], [index(s[::-1])]),
        ([4, 3], [index(s[1, None])]),
        ([4, 3], [index(s[None, ..., None])]),
        ([4, 3, 2], [index(s[1, ..., None, 1])]),
        ([4, 3], [index(s[None, None, 1:1:-1])]),
        ([4, 3], [index(s[10:-10:-3])]),
        ([10], [index(s[-3:2:-2])]),
        ([10], [index(s[-100:100:3])]),
        ([10], [index(s[8:-100:-4])]),
        ([3, 4], [index(s[::-1, 2])]),
        ([3, 4], [index(s[0:3:2, 1:4:2])]),
        ([4, 3], [index(s[::0])]),
        ([4, 3], [transpose(1, -2)]),
        ([4, 3], [transpose(0, 0)]),
        ([4, 3], [transpose(0, 2)]),
        ([4, 3], [transpose(0)]),
        ([4, 3], [swapaxes(0, 2)]),
        ([4, 3], [swapaxes(-1, 0)]),
        ([4, 3], [moveaxis([0], [2])]),
        ([4, 3], [moveaxis([0, 0], [1, 0])]),
        ([2, 3, 4, 5], [moveaxis([0, 1], [2])]),
        ([2, 3, 4, 5], [moveaxis([3, 0], [0, -1])]),
        ([4, 3], [expand_dims(3)]),
        ([4, 3], [expand_dims(0, 0)]),
        ([4, 3], [transpose(), expand_dims(0, 2)]),
        ([4, 3], [index(s[::2, ::2]), expand_dims(1, -1)]),
        ([4, 1, 3], [squeeze()]),
        ([4, 1, 3], [squeeze(5)]),
        ([4, 1, 3], [squeeze(0)]),
        ([2, 3], [squeeze(0, 0)]),
        ([1, 3], [broadcast_to(1, 3)]),
        ([1, 3], [broadcast_to(5, 1, 3)]),
        ([4, 1], [broadcast_to(4, 0)]),
        ([4, 3], [broadcast_to(2, 3)]),
        ([4, 3], [broadcast_to(3)]),
        ([4, 3], [broadcast_to(-1, 4, 3)]),
        ([3, 4, 1, 5], [broadcast_to(2, 3, 4, 10, 5)]),
        ([4, 3], [flip(2)]),
        ([4, 3], [flip(0, 0)]),
        ([4, 3], [flip()]),
        ([2, 3, 4], [flip(1)]),
        ([1], [reshape(2**32, 2**32)]),
        ([5], [reshape(-1, 2)]),
        ([], [broadcast_to(2**62, 4)]),
        ([3, 4], [transpose(), reshape(2, -1, order="F")]),
        ([3, 4], [transpose(), reshape(12, order="A")]),
        ([3, 4], [transpose(), reshape(12)]),
        ([3, 4], [transpose(), reshape(12, order="K")]),
        ([6], [index(s[::-1]), reshape(-1)]),
    ] + [
        (shape, before + [ravel(order)])
        for shape, befores in [
            ([6], [[], [index(s[::-1])], [index(s[::2])], [index(s[1:])], [index(s[:, None])], [index(s[None])],
                   [index(s[:1])]]),
            ([3, 4], [[], [index(s[::-1])], [transpose()], [index(s[::2])], [index(s[..., ::-1])],
                      [index(s[1:])], [index(s[:, None])], [index(s[None])], [broadcast_to(2, 3, 4)],
                      [index(s[:1])]]),
            ([2, 3, 4], [[], [index(s[::-1])]]),
            ([2, 1, 3], [[transpose(2, 0, 1)], [transpose(1, 0, 2)], [swapaxes(0, 1)], [index(s[:, None])],
                         [index(s[None])], [index(s[:1])]]),
        ]
        for before in befores
        for order in "CFAK"
    ]


def strided_chains():
    """`as_strided` starts at and past 64 dimensions: numpy checks the rank
    before the strides' count."""
    return [
        ({"buffer_len": 5, "shape": [1] * 65, "strides": [1] * 64, "offset": 0}, []),
        ({"buffer_len": 5, "shape": [1] * 64, "strides": [1] * 64, "offset": 0},
         [({"op": "reshape", "target": [-1]}, lambda a: a.reshape(-1, copy=False))]),
    ]


def run_chain(shape, steps):
    """A chain of explicit (json, numpy callable) steps from `np.arange`."""
    import numpy as np

    buf = np.arange(math.prod(shape), dtype=np.int32)
    return {"start": {"shape": shape}, "steps": run_steps(buf, buf.reshape(shape), steps)}


def run_strided_chain(spec, steps):
    """A chain of explicit steps from `as_strided`; a start numpy rejects
    records the exception text in `start` and has no steps."""
    import numpy as np

    buf = np.arange(spec["buffer_len"], dtype=np.int32)
    start = {"as_strided": spec}
    try:
        view = np.lib.stride_tricks.as_strided(
            buf[spec["offset"] :], spec["shape"], [st * ITEMSIZE for st in spec["strides"]]
        )
    except (ValueError, TypeError) as e:
        start["error"] = str(e)
        return {"start": start, "steps": []}
    return {"start": start, "steps": run_steps(buf, view, steps)}


def run_steps(buf, view, steps):
    """The rows of explicit (json, numpy callable) steps applied to `view`."""
    import numpy as np

    rows = []
    for step, apply in steps:
        try:
            view = apply(view)
        except (ValueError, IndexError, TypeError) as e:
            step["error"] = str(e)
            rows.append(step)
            break
        if view.size and not np.shares_memory(view, buf):
            step["copy"] = True
            rows.append(step)
            break
        step.update(describe(view, buf))
        rows.append(step)
    return rows


def generate():
    rng = random.Random(11)
    rows, seen = [], set()
    while len(rows) < 600:
        row = chain(rng)
        key = repr(row)
        if key not in seen:
            seen.add(key)
            rows.append(row)
    rows += [run_chain(shape, steps) for shape, steps in fixed_chains()]
    rows += [run_strided_chain(spec, steps) for spec, steps in strided_chains()]
    rows += [run_chain(shape, steps) for shape, steps in operation_chains()]
    return {"views.jsonl": rows}


if __name__ == "__main__":
    sys.exit(run(generate, __doc__))
