"""Golden file of `OpSharding` protos as real XLA (jaxlib 0.12) reads and writes them.

Writes `tests/golden/sharding_protos.jsonl`: one row per `OpSharding`, hand-picked ones
for each canonicalisation of XLA's `HloSharding::FromProto` / `ToProto` first, then
random ones of every kind (replicated, maximal, tiled with explicit or iota devices,
`last_tile_dim_replicate`, subgroup types, manual, unknown, unreduced, tuples nested in
tuples, metadata, the reduction metadata of unreduced shardings, shard groups with any
`shard_group_type` value, named shardings). Each row is `{"proto", "ok", "string",
"hex"}`: `proto` the input bytes (hex), `string` XLA's
`HloSharding.from_proto(op).to_string()`, `hex` the bytes of `to_proto()` of that
sharding; or `{"proto", "ok": false, "error"}` with XLA's status text, or `"crash"`
with the CHECK message where XLA aborted the (child) process.

The protos are written byte by byte here (a few lines of protobuf wire format), so
that values the Python bindings cannot set (enum values no enum names, negative
`iota_transpose_perm` entries) are covered too.

Run with `/work/venv-jax/bin/python build-tools/gen_sharding_protos.py [--check]`
(jax 0.12.0.1, jaxlib 0.12.0.1, Python 3.13).
"""

from __future__ import annotations

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import XlaWorker, run  # noqa: E402
import sharding_random  # noqa: E402

TAG = "@@"
CHECK_RE = re.compile(r".*(Check failed: .*|terminate called .*|what\(\): .*)")
RANDOM_ROWS = 1500
RANDOM_NAMED_ROWS = 300


def worker() -> None:
    os.environ["JAX_PLATFORMS"] = "cpu"
    from jax._src.lib import xla_client as xc

    for line in sys.stdin:
        req = json.loads(line)
        try:
            op = xc.OpSharding()
            op.ParseFromString(bytes.fromhex(req["proto"]))
            s = xc.HloSharding.from_proto(op)
            res = {"ok": True, "string": s.to_string(), "hex": s.to_proto().SerializeToString().hex()}
        except Exception as e:  # noqa: BLE001 -- XLA's status is the golden value
            res = {"ok": False, "error": str(e)}
        sys.stdout.write(TAG + json.dumps(res) + "\n")
        sys.stdout.flush()


# The protobuf wire format of the fields of `OpSharding` and `OpMetadata` used here.

def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def scalar(field: int, n: int) -> bytes:
    return tag(field, 0) + varint(n)


def packed(field: int, values) -> bytes:
    body = b"".join(varint(v) for v in values)
    return tag(field, 2) + varint(len(body)) + body if values else b""


def message(field: int, body: bytes) -> bytes:
    return tag(field, 2) + varint(len(body)) + body


def text(field: int, s: str) -> bytes:
    return message(field, s.encode())


def metadata(op_type: str = "", op_name: str = "", source_line: int = 0) -> bytes:
    body = b""
    if op_type:
        body += text(1, op_type)
    if op_name:
        body += text(2, op_name)
    if source_line:
        body += scalar(4, source_line)
    return message(7, body)


def reduction(name: str) -> bytes:
    return metadata("sdy::reduction_op", name)


REPLICATED, MAXIMAL, TUPLE, OTHER, MANUAL, UNKNOWN, UNREDUCED = range(7)


def sharding(type_: int | None = None, dims=(), devices=(), tuple_=(), last_replicate=False, meta=b"",
             last_tile_dims=(), reshape=(), perm=(), group=None, named=None) -> bytes:
    """An `OpSharding`'s bytes; `group` is `(is_shard_group, id, type)`."""
    out = b""
    if type_:
        out += scalar(1, type_)
    out += packed(3, dims) + packed(4, devices)
    for element in tuple_:
        out += message(5, element)
    if last_replicate:
        out += scalar(6, 1)
    out += meta + packed(8, last_tile_dims) + packed(9, reshape) + packed(10, perm)
    if group is not None:
        is_group, gid, gtype = group
        if is_group:
            out += scalar(11, 1)
        if gid:
            out += scalar(12, gid)
        if gtype:
            out += scalar(13, gtype)
    if named is not None:
        out += message(14, named)
    return out


def field14(s: str) -> bytes:
    """The `named_sharding` field's contents of XLA's `to_proto` of sharding text `s`."""
    from jax._src.lib import xla_client as xc

    data = xc.HloSharding.from_string(s).to_proto().SerializeToString()
    assert data[0] == 0x72, s  # field 14, length-delimited
    length, at, shift = 0, 1, 0
    while True:
        b = data[at]
        length |= (b & 0x7F) << shift
        at += 1
        shift += 7
        if b < 0x80:
            break
    return data[at:at + length]


def named_bytes() -> list[bytes]:
    """The `named_sharding` field (a `NamedShardingProto`) of a few named shardings XLA wrote."""
    return [field14(s) for s in [
        "{mesh['x'=2,'y'=4], [{'x'}, {}]}", "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced={'x'}}",
        "{mesh['a'=2,'b'=2,'c'=2], [{'b'}], unreduced={'c'}, manual={'a'}}", "{mesh['x'=8], replicated}",
        "{mesh['x'=2,'y'=4], device_ids=(7,6,5,4,3,2,1,0), [{'y'}, {'x'}]}"]]


def hand() -> list[bytes]:
    """One proto (or a few) for each canonicalisation and check of XLA's FromProto/ToProto."""
    tiled = sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0])
    return [
        b"", sharding(REPLICATED, dims=[2], devices=[0, 1]), sharding(MANUAL), sharding(UNKNOWN),
        sharding(UNREDUCED), sharding(MAXIMAL, devices=[3]), sharding(MAXIMAL, devices=[-3]),
        sharding(MAXIMAL), sharding(MAXIMAL, devices=[0, 1]), sharding(MAXIMAL, dims=[1], reshape=[1], perm=[0]),
        sharding(7), sharding(99), sharding(-1),
        # One device: replicated, whichever way it is written.
        sharding(OTHER, dims=[1], devices=[5]), sharding(OTHER, dims=[1, 1], devices=[0]),
        sharding(OTHER, dims=[1, 1], reshape=[1], perm=[0]), sharding(OTHER, dims=[1], reshape=[1, 1], perm=[1, 0]),
        sharding(OTHER, dims=[2], reshape=[1], perm=[0]), sharding(OTHER, dims=[1], reshape=[2], perm=[0]),
        sharding(OTHER, dims=[0], reshape=[1], perm=[0]), sharding(OTHER, dims=[1], reshape=[1], perm=[5]),
        sharding(OTHER, dims=[1], reshape=[1]), sharding(OTHER, dims=[-2], devices=[0]), sharding(OTHER, devices=[4]),
        sharding(OTHER, dims=[1], reshape=[1], perm=[0], devices=[3]), sharding(OTHER, dims=[3], devices=[0], last_tile_dims=[9]),
        sharding(OTHER, dims=[1, 1], devices=[7], last_replicate=True),
        sharding(OTHER, dims=[1, 1], devices=[2], last_tile_dims=[MANUAL]),
        sharding(OTHER, dims=[1], devices=[5], meta=metadata(op_name="a"), group=(True, 3, 0)),
        sharding(OTHER, dims=[1], devices=[5], meta=reduction("MAX")),
        sharding(OTHER, dims=[2], devices=[5]), sharding(OTHER, dims=[1]), sharding(OTHER),
        sharding(OTHER, devices=[0, 1]), sharding(OTHER, dims=[2], devices=[0]),
        # Tiled, explicit and iota, with and without the fields of other kinds.
        tiled, sharding(OTHER, dims=[2, 4], devices=list(range(8))), sharding(OTHER, dims=[2, 4], devices=[7, 6, 5, 4, 3, 2, 1, 0]),
        sharding(OTHER, dims=[2, 4], reshape=[4, 2], perm=[1, 0]), sharding(OTHER, dims=[2, 4], reshape=[8]),
        sharding(OTHER, dims=[2, 4], reshape=[4, 2]), sharding(OTHER, dims=[2, 4], reshape=[4, 2], perm=[0]),
        sharding(OTHER, dims=[2, 4], reshape=[4, 2], perm=[1, 1]), sharding(OTHER, dims=[2, 4], reshape=[4, 2], perm=[-1, 0]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], devices=list(range(8))), sharding(OTHER, dims=[2, 4], reshape=[4]),
        sharding(OTHER, dims=[2, 4], devices=[0, 1, 2]), sharding(OTHER, dims=[2, 0], devices=[0, 1]),
        sharding(OTHER, dims=[2, -2], devices=[0, 1]), sharding(OTHER, dims=[2], devices=[1, 1]),
        sharding(OTHER, dims=[2], devices=[-1, 5]), sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], devices=[]),
        # Partial replication and subgroups, collapsing to {replicated} or {manual}.
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_replicate=True),
        sharding(OTHER, dims=[1, 8], reshape=[8], perm=[0], last_replicate=True),
        sharding(OTHER, dims=[8], reshape=[8], perm=[0], last_replicate=True),
        sharding(OTHER, dims=[8, 1], reshape=[8], perm=[0], last_replicate=True),
        sharding(OTHER, dims=[2, 4], devices=[7, 6, 5, 4, 3, 2, 1, 0], last_replicate=True),
        sharding(OTHER, dims=[1, 8], reshape=[8], perm=[0], last_tile_dims=[MANUAL]),
        sharding(OTHER, dims=[1, 8], reshape=[8], perm=[0], last_tile_dims=[REPLICATED]),
        sharding(OTHER, dims=[1, 8], reshape=[8], perm=[0], last_tile_dims=[UNREDUCED]),
        sharding(OTHER, dims=[1, 2, 4], reshape=[8], perm=[0], last_tile_dims=[MANUAL, MANUAL]),
        sharding(OTHER, dims=[1, 2, 4], reshape=[8], perm=[0], last_tile_dims=[REPLICATED, REPLICATED]),
        sharding(OTHER, dims=[1, 2, 4], reshape=[8], perm=[0], last_tile_dims=[MANUAL, REPLICATED]),
        sharding(OTHER, dims=[2, 2, 2], reshape=[8], perm=[0], last_tile_dims=[REPLICATED, MANUAL]),
        sharding(OTHER, dims=[2, 2, 2], reshape=[8], perm=[0], last_tile_dims=[UNREDUCED, MANUAL]),
        sharding(OTHER, dims=[2, 2, 2], reshape=[8], perm=[0], last_tile_dims=[UNREDUCED], last_replicate=True),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[UNREDUCED]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[UNREDUCED], meta=reduction("MIN")),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[MAXIMAL]),
        sharding(OTHER, dims=[2, 2, 2], reshape=[8], perm=[0], last_tile_dims=[MANUAL, MAXIMAL]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[TUPLE]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[OTHER]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[UNKNOWN]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[9]),
        sharding(OTHER, dims=[2, 4], reshape=[8], perm=[0], last_tile_dims=[MANUAL, MANUAL, MANUAL]),
        sharding(OTHER, dims=[2, 1, 4], reshape=[8], perm=[0], last_tile_dims=[MANUAL, REPLICATED]),
        # Shard groups: every shard_group_type value other than AS reads as LIKE.
        sharding(REPLICATED, group=(True, 1, 0)), sharding(REPLICATED, group=(True, 1, 1)),
        sharding(REPLICATED, group=(True, 1, 2)), sharding(REPLICATED, group=(True, 1, 99)),
        sharding(REPLICATED, group=(True, 1, -1)), sharding(REPLICATED, group=(False, 1, 1)),
        sharding(REPLICATED, group=(True, -1, 0)), sharding(REPLICATED, group=(True, -1, 1)),
        sharding(REPLICATED, group=(True, 0, 0)), sharding(MAXIMAL, devices=[1], group=(True, 5, 7)),
        sharding(OTHER, dims=[2], devices=[0, 1], group=(True, 1, 99)), sharding(MANUAL, group=(True, 2, 1)),
        # Metadata, and the reduction metadata of unreduced shardings.
        sharding(REPLICATED, meta=metadata(op_name="a")), sharding(MANUAL, meta=metadata("t", "n", 3)),
        sharding(UNREDUCED, meta=reduction("SUM")), sharding(UNREDUCED, meta=reduction("MAX")),
        sharding(UNREDUCED, meta=reduction("MIN")), sharding(UNREDUCED, meta=reduction("PROD")),
        sharding(UNREDUCED, meta=reduction("")), sharding(UNREDUCED, meta=reduction("max")),
        sharding(UNREDUCED, meta=reduction("MAX") + reduction("MIN")),
        sharding(UNREDUCED, meta=reduction("MIN") + reduction("SUM")),
        sharding(UNREDUCED, meta=metadata(op_name="a") + reduction("MAX")),
        sharding(UNREDUCED, meta=reduction("MAX") + metadata(op_name="a")),
        sharding(UNREDUCED, meta=message(7, text(1, "sdy::reduction_op") + text(2, "MAX") + scalar(4, 9))),
        sharding(REPLICATED, meta=reduction("MAX")), sharding(REPLICATED, meta=reduction("SUM") + metadata(op_name="a")),
        sharding(MAXIMAL, devices=[2], meta=reduction("MIN")), sharding(MANUAL, meta=reduction("MAX")),
        tiled + reduction("MAX"), sharding(UNREDUCED, group=(True, 4, 1)),
        # Tuples, nested tuples, metadata on tuples.
        sharding(TUPLE), sharding(TUPLE, tuple_=[b"", sharding(MAXIMAL, devices=[1])]),
        sharding(TUPLE, tuple_=[sharding(TUPLE, tuple_=[b"", sharding(MANUAL)]), tiled]),
        sharding(TUPLE, tuple_=[sharding(TUPLE, tuple_=[sharding(TUPLE, tuple_=[sharding(UNREDUCED)])])]),
        sharding(TUPLE, tuple_=[sharding(TUPLE)]), sharding(TUPLE, tuple_=[sharding(TUPLE), sharding(TUPLE)]),
        sharding(TUPLE, tuple_=[b""] * 6), sharding(TUPLE, meta=metadata(op_name="a")),
        sharding(TUPLE, tuple_=[b""], meta=metadata(op_name="a")),
        sharding(TUPLE, tuple_=[sharding(TUPLE, tuple_=[b""], meta=metadata(op_name="a"))]),
        sharding(TUPLE, tuple_=[b""], group=(True, 1, 0)), sharding(TUPLE, tuple_=[b""], meta=reduction("MAX")),
        sharding(TUPLE, tuple_=[sharding(OTHER, dims=[1], devices=[3]), sharding(UNREDUCED, meta=reduction("MIN"))]),
        sharding(TUPLE, tuple_=[sharding(OTHER, dims=[2], devices=[0])]),
        sharding(REPLICATED, tuple_=[sharding(MANUAL)]),
    ]


def named_reductions(named: list[bytes]) -> list[bytes]:
    """Named shardings with each `reduction_op` (SUM, MAX, MIN written out, values no enum value
    names), with reduction entries in their own or the `OpSharding`'s metadata, in tuples."""
    def op(value: int) -> bytes:
        return scalar(8, value)

    def named_meta(body: bytes) -> bytes:
        return message(6, body)

    reduction_entry = text(1, "sdy::reduction_op") + text(2, "MAX")
    out = [sharding(named=n + op(v)) for n in named for v in (0, 1, 2, 3, -1)]
    out += [sharding(named=named[1] + op(v)) for v in (4, 99, (1 << 31) - 1, -(1 << 31))]
    out += [
        sharding(OTHER, named=named[1] + op(2)), sharding(OTHER, named=named[2] + op(1)),
        sharding(named=named[1] + named_meta(reduction_entry)),
        sharding(named=named[1] + named_meta(reduction_entry) + op(2)),
        sharding(named=named[1] + named_meta(text(2, "a")) + op(1)),
        sharding(named=named[3] + named_meta(text(2, "a")) + op(1)),
        sharding(named=named[1] + op(1), meta=reduction("MIN")),
        sharding(named=named[2] + op(2), meta=metadata(op_name="a")),
        sharding(named=named[1] + op(2), group=(True, 3, 1)),
        sharding(TUPLE, tuple_=[sharding(named=named[1] + op(1)), sharding(UNREDUCED, meta=reduction("MAX"))]),
        sharding(TUPLE, tuple_=[sharding(TUPLE, tuple_=[sharding(named=named[2] + op(2))])]),
    ]
    return out


def random_tiled(rng: random.Random) -> bytes:
    n = rng.choice([1, 2, 2, 4, 6, 8, 8, 12, 16])
    factors = sharding_random.factors(rng, n)
    dims = []
    for f in factors:
        if dims and rng.random() < 0.4:
            dims[-1] *= f
        else:
            dims.append(f)
        if rng.random() < 0.2:
            dims.insert(rng.randrange(len(dims) + 1), 1)
    if not dims or rng.random() < 0.1:
        dims.append(1)
    kwargs = {}
    r = rng.random()
    if r < 0.25:
        kwargs["last_replicate"] = True
    elif r < 0.55:
        k = rng.randrange(1, min(3, len(dims)) + 1)
        pool = [REPLICATED, MANUAL, UNREDUCED] * 12 + [MAXIMAL, MAXIMAL, TUPLE, OTHER, UNKNOWN]
        kwargs["last_tile_dims"] = [rng.choice(pool) for _ in range(k)]
    if rng.random() < 0.5:
        reshape, perm = sharding_random.iota_reshape(rng, factors)
        kwargs["reshape"] = reshape
        if rng.random() < 0.95:
            kwargs["perm"] = perm
    else:
        ids = list(range(n))
        rng.shuffle(ids)
        if rng.random() < 0.05:
            ids[rng.randrange(n)] = rng.choice([-1, n, 0])
        kwargs["devices"] = ids
    if rng.random() < 0.03:
        dims[rng.randrange(len(dims))] += rng.choice([-1, 1])
    return sharding(OTHER, dims=dims, **kwargs, **extras(rng))


def random_meta(rng: random.Random) -> bytes:
    out = b""
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        if rng.random() < 0.5:
            out += reduction(rng.choice(["SUM", "MAX", "MIN", "PROD", ""]))
        else:
            out += metadata(rng.choice(["", "add"]), rng.choice(["a", "jit(f)/x"]), rng.choice([0, 7]))
    return out


def extras(rng: random.Random) -> dict:
    out = {"meta": random_meta(rng)}
    if rng.random() < 0.3:
        out["group"] = (rng.random() < 0.8, rng.choice([-1, 0, 1, 5, 1 << 40]), rng.choice([0, 0, 1, 1, 2, 99, -3]))
    return out


def random_sharding(rng: random.Random, named: list[bytes], depth: int = 0) -> bytes:
    kind = rng.random()
    if kind < 0.12:
        return sharding(rng.choice([REPLICATED, MANUAL, UNKNOWN, UNREDUCED, UNREDUCED]), **extras(rng))
    if kind < 0.2:
        devices = [rng.randrange(-1, 9)] if rng.random() < 0.9 else []
        return sharding(MAXIMAL, devices=devices, **extras(rng))
    if kind < 0.3 and depth < 3:
        elements = [random_sharding(rng, named, depth + 1) for _ in range(rng.randrange(0, 4))]
        meta = random_meta(rng) if rng.random() < 0.1 else b""
        return sharding(TUPLE, tuple_=elements, meta=meta)
    if kind < 0.35:
        return sharding(rng.choice([0, 3]), named=rng.choice(named), **extras(rng))
    if kind < 0.37:
        return sharding(rng.choice([7, 42]))
    return random_tiled(rng)


def random_named_text(rng: random.Random) -> str:
    """A valid named sharding's text: a random mesh and device order, each axis (or each half
    of an axis of size 4) on a dimension, replicated, unreduced, manual or unused, with a
    random reduction."""
    sizes = [rng.choice([1, 2, 2, 3, 4, 4]) for _ in range(rng.randrange(1, 4))]
    names = "abc"[:len(sizes)]
    rank = rng.randrange(0, 4)
    dims = [[] for _ in range(rank)]
    lists = {"replicated": [], "unreduced": [], "manual": []}
    targets = list(range(rank)) + ["replicated", "unreduced", "unreduced", "manual", None]
    for name, size in zip(names, sizes):
        halves = [(f"'{name}':(1)2", rng.choice(targets)), (f"'{name}':(2)2", rng.choice(targets))]
        if size == 4 and halves[0][1] != halves[1][1]:
            pieces = halves
        else:
            pieces = [(f"'{name}'", rng.choice(targets))]
        for ref, target in pieces:
            if isinstance(target, int):
                dims[target].insert(rng.randrange(len(dims[target]) + 1), ref)
            elif target is not None:
                lists[target].append(ref)
    mesh = "mesh[%s]" % ",".join(f"'{n}'={s}" for n, s in zip(names, sizes))
    total = 1
    for size in sizes:
        total *= size
    order = rng.random()
    if order < 0.2 and total > 1:
        ids = list(range(total))
        while ids == sorted(ids):
            rng.shuffle(ids)
        mesh += ", device_ids=(%s)" % ",".join(map(str, ids))
    elif order < 0.35 and len(sizes) > 1 and total > 1:
        mesh += ", device_ids=([%d,%d]T(1,0))" % (sizes[0], total // sizes[0])
    parts = ["[%s]" % ", ".join("{%s%s}" % (", ".join(d), rng.choice(["", "", ", ?"]) if d else "")
                                for d in dims)]
    reduction = rng.choice(["", "", "sum", "max", "min"])
    for key, refs in lists.items():
        op = reduction if key == "unreduced" and reduction else ""
        if refs or op:
            parts.append("%s=%s{%s}" % (key, op, ", ".join(refs)))
    return "{%s, %s}" % (mesh, ", ".join(parts))


def random_named(rng: random.Random) -> bytes:
    """An `OpSharding` holding a random named sharding as XLA writes it, with a random
    `reduction_op` and metadata (reduction entries too) in it and fields XLA ignores
    around it, sometimes mutated, sometimes in a tuple."""
    body = field14(random_named_text(rng))
    if rng.random() < 0.5:
        body += scalar(8, rng.choice([0, 1, 2, 3, -1, 99]))
    for _ in range(rng.choice([0, 0, 1, 2])):
        body += message(6, rng.choice([text(1, "sdy::reduction_op") + text(2, rng.choice(["MAX", "MIN", "SUM"])),
                                       text(2, "a"), text(1, "add") + scalar(4, 7)]))
    if rng.random() < 0.15:
        body += named_mutation(rng)
    one = sharding(rng.choice([None, None, OTHER, REPLICATED]), named=body,
                   **(extras(rng) if rng.random() < 0.3 else {}))
    if rng.random() < 0.15:
        return sharding(TUPLE, tuple_=[one, random_tiled(rng)][:rng.randrange(1, 3)])
    return one


def named_mutation(rng: random.Random) -> bytes:
    """Fields appended to a `NamedShardingProto` (repeated ones add, the mesh merges): an
    axis reference in a list or a new dimension, in range or not, whole or a sub-axis of any
    sizes; or a new mesh axis, of any size."""
    if rng.random() < 0.25:
        axis = text(1, rng.choice(["z", "a"])) + scalar(2, rng.choice([2, 0, -1]))
        return message(2, message(1, axis))
    ref = scalar(1, rng.choice([0, 0, 1, 2, 5, -1]))
    if rng.random() < 0.5:
        pre, size = rng.choice([(1, 2), (2, 2), (0, 2), (1, 1), (1, 3), (3, 2), (2, 1)])
        ref += message(2, scalar(1, pre) + scalar(2, size))
    field = rng.choice([3, 4, 5, 7])
    return message(field, message(1, ref) if field == 3 else ref)


def inputs(named: list[bytes]) -> list[bytes]:
    rng = random.Random(46)
    out = []
    for p in hand() + [sharding(named=named[0]), sharding(OTHER, named=named[1])] + named_reductions(named):
        if p not in out:
            out.append(p)
    seen = set(out)
    target = len(out) + RANDOM_ROWS
    while len(out) < target:
        p = random_sharding(rng, named)
        if p not in seen:
            seen.add(p)
            out.append(p)
    rng = random.Random(4646)
    target = len(out) + RANDOM_NAMED_ROWS
    while len(out) < target:
        p = random_named(rng)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def generate():
    named = named_bytes()
    runner = XlaWorker(__file__, TAG, CHECK_RE, lambda msg: {"ok": False, "crash": msg})
    rows = []
    for p in inputs(named):
        rows.append({"proto": p.hex(), **runner.run({"proto": p.hex()})})
    runner.close()
    return {"sharding_protos.jsonl": rows}


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        sys.exit(run(generate, __doc__))
