#!/usr/bin/env python3
"""Generate the golden files in tests/golden/ from real XLA (the XLA inside jaxlib).

Usage (see build-tools/README.md):

    python build-tools/gen_golden.py            # writes tests/golden/*.jsonl
    python build-tools/gen_golden.py --check    # regenerates into a temp dir and diffs

Every golden file is JSON Lines: one JSON object per line, keys sorted, UTF-8,
no timestamps, in a fixed order, so re-running gives byte-identical files.

Where the data comes from:

* ``xla_client.Shape(str)`` is XLA's ``ParseShape`` (hlo_parser.cc).
* ``str(shape)`` is ``ShapeUtil::HumanStringWithLayout``.
* ``str(ProgramShape([], shape))`` is ``"() -> " + ShapeUtil::HumanString(shape)``.
* ``shape.to_serialized_proto()`` is ``Shape::ToProto().SerializeAsString()``.
* ``jax.jit(f).lower(...).compiler_ir("hlo")`` and
  ``lowered.compile().runtime_executable().hlo_modules()`` give HloModules whose
  serialized ``HloModuleProto`` we walk with a small wire-format reader.

XLA aborts the whole process (CHECK failure) on some parser inputs, so every call
of the parser runs in a child process (``--parse-worker``) that is restarted
when it dies; the CHECK message is recorded.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PROTO_DIR = os.path.join(REPO, "proto")
PROTO_FILE = "xla_data.proto"
DEFAULT_OUT = os.path.join(REPO, "tests", "golden")

# Keep XLA on the CPU and quiet; must be set before jax/jaxlib is imported.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# Marks the worker's result lines, so stray output of the library is ignored.
WORKER_TAG = "@@GOLDEN@@ "

# --------------------------------------------------------------------------
# Our proto, loaded with Google's python protobuf.
# --------------------------------------------------------------------------


class OurProto:
    """xla.Shape from proto/xla_data.proto, compiled with grpc_tools' protoc."""

    def __init__(self) -> None:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        from grpc_tools import protoc

        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "xla_data.pb")
            rc = protoc.main(
                ["protoc", "-I" + PROTO_DIR, "--descriptor_set_out=" + out, PROTO_FILE]
            )
            if rc != 0:
                raise SystemExit("protoc failed on %s (rc=%d)" % (PROTO_FILE, rc))
            with open(out, "rb") as f:
                fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
        pool = descriptor_pool.DescriptorPool()
        for fd in fds.file:
            pool.Add(fd)
        self.Shape = message_factory.GetMessageClass(pool.FindMessageTypeByName("xla.Shape"))
        self.unknown = []  # (where, path, field numbers)
        self.reserialize_mismatch = []  # (where, xla hex, python hex)

    def text(self, data: bytes, where: str) -> str:
        from google.protobuf import text_format

        msg = self.Shape.FromString(data)
        unknown = []
        self._collect_unknown(msg, "", unknown)
        if unknown:
            self.unknown.append((where, unknown))
        again = msg.SerializeToString()
        if again != data:
            self.reserialize_mismatch.append((where, data.hex(), again.hex()))
        return text_format.MessageToString(msg)

    def _collect_unknown(self, msg, path, out) -> None:
        from google.protobuf import unknown_fields

        ufs = unknown_fields.UnknownFieldSet(msg)
        for i in range(len(ufs)):
            out.append("%s#%d" % (path or "<root>", ufs[i].field_number))
        for fd, value in msg.ListFields():
            if fd.message_type is None:
                continue
            if fd.is_repeated:
                for i, sub in enumerate(value):
                    self._collect_unknown(sub, "%s%s[%d]." % (path, fd.name, i), out)
            else:
                self._collect_unknown(value, "%s%s." % (path, fd.name), out)


# --------------------------------------------------------------------------
# The parser worker (child process).
# --------------------------------------------------------------------------


def human_string(xc, shape) -> str:
    """ShapeUtil::HumanString (no layout), via ProgramShape's printer."""
    s = str(xc.hlo.ProgramShape([], shape))
    prefix = "() -> "
    if not s.startswith(prefix):
        raise RuntimeError("unexpected ProgramShape text %r" % s)
    return s[len(prefix):]


def parse_worker() -> None:
    from jax._src.lib import xla_client as xc

    out = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        text = req["input"]
        try:
            shape = xc.Shape(text)
        except Exception as e:  # XLA's status, as a JaxRuntimeError
            res = {"ok": False, "error": str(e)}
        else:
            res = {
                "ok": True,
                "string": str(shape),
                "string_no_layout": human_string(xc, shape),
                "hex": shape.to_serialized_proto().hex(),
            }
        out.write(WORKER_TAG + json.dumps(res) + "\n")
        out.flush()


class Parser:
    """Runs XLA's ParseShape in a child process that may die on a CHECK."""

    CHECK_RE = re.compile(r"^F\d{4} [\d:.]+\s+\d+ (\S+\] .*)$")

    def __init__(self) -> None:
        self.proc = None
        self.errf = None
        self.cache = {}
        self.crashes = []

    def _start(self) -> None:
        self.errf = tempfile.TemporaryFile(mode="w+b")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--parse-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errf,
            text=True,
            encoding="utf-8",
        )

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
            self.proc = None

    def parse(self, text: str) -> dict:
        if text in self.cache:
            return self.cache[text]
        if self.proc is None:
            self._start()
        self.proc.stdin.write(json.dumps({"input": text}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:  # the child died: XLA hit a CHECK
                self.proc.wait()
                self.errf.seek(0)
                err = self.errf.read().decode("utf-8", "replace")
                msg = None
                for l in err.splitlines():
                    m = self.CHECK_RE.match(l)
                    if m:
                        msg = m.group(1).rstrip()
                        break
                if msg is None:
                    msg = "process died with exit code %d" % self.proc.returncode
                self.proc = None
                res = {"ok": False, "crash": msg}
                self.crashes.append((text, msg))
                break
            if line.startswith(WORKER_TAG):
                res = json.loads(line[len(WORKER_TAG):])
                break
        self.cache[text] = res
        return res


# --------------------------------------------------------------------------
# Output helpers.
# --------------------------------------------------------------------------


class JsonlWriter:
    def __init__(self, path: str, key=None) -> None:
        self.path = path
        self.rows = []
        self.seen = set()
        self.key = key

    def add(self, row: dict) -> bool:
        if self.key is not None:
            k = self.key(row)
            if k in self.seen:
                return False
            self.seen.add(k)
        self.rows.append(row)
        return True

    def write(self) -> None:
        with open(self.path, "w", encoding="utf-8", newline="\n") as f:
            for row in self.rows:
                f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


def shape_row(proto: OurProto, parser: Parser, string, string_no_layout, data: bytes, source: str) -> dict:
    row = {
        "string": string,
        "string_no_layout": string_no_layout,
        "hex": data.hex(),
        "text": proto.text(data, source + " " + str(string)),
        "source": source,
    }
    # Does XLA's own parser give back the same bytes from the printed string?
    if string is not None:
        res = parser.parse(string)
        row["reparse_equal"] = bool(res.get("ok")) and res.get("hex") == data.hex()
    return row


# --------------------------------------------------------------------------
# shapes.jsonl
# --------------------------------------------------------------------------

# Every lowercase type name XLA's parser is tried with (array types only).
ARRAY_TYPES = [
    "pred",
    "s1", "s2", "s4", "s8", "s16", "s32", "s64",
    "u1", "u2", "u4", "u8", "u16", "u32", "u64",
    "f16", "bf16", "f32", "f64",
    "f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e3m4", "f8e5m2fnuz", "f8e4m3fnuz",
    "f4e2m1fn", "f8e8m0fnu", "f6e3m2fn", "f6e2m3fn",
    "c64", "c128",
]
SUB_BYTE_BITS = {"s1": 1, "u1": 1, "s2": 2, "u2": 2, "s4": 4, "u4": 4, "f4e2m1fn": 4}

# numpy / ml_dtypes dtype names tried with Shape.array_shape.
NUMPY_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]
ML_DTYPES = [
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
    "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4", "float4_e2m1fn", "float8_e8m0fnu",
    "int4", "uint4", "int2", "uint2", "float6_e3m2fn", "float6_e2m3fn",
]


def layout_str(m2m) -> str:
    return "{" + ",".join(str(d) for d in m2m) + "}"


def dims_str(dims) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def every_nth_permutation(rank: int, n: int):
    perms = list(itertools.permutations(range(rank)))
    chosen = perms[::n]
    for p in (tuple(range(rank)), tuple(reversed(range(rank)))):
        if p not in chosen:
            chosen.append(p)
    return chosen


def shape_parse_inputs():
    """(input, source) pairs of strings handed to XLA's ParseShape for shapes.jsonl."""
    out = []

    def add(s, tag):
        out.append((s, tag))

    # Every type: scalar, rank 1, rank 2 in both layouts, zero-size, ones.
    for t in ARRAY_TYPES:
        add(t + "[]", "parse:type")
        add(t + "[7]", "parse:type")
        add(t + "[2,3]", "parse:type")
        add(t + "[2,3]{0,1}", "parse:type")
        add(t + "[0]", "parse:type")
        add(t + "[1,1]{0,1}", "parse:type")
        add(t + "[<=4]", "parse:type")
        if t in SUB_BYTE_BITS:
            add("%s[8]{0:E(%d)}" % (t, SUB_BYTE_BITS[t]), "parse:type")
            add("%s[8,128]{1,0:T(8,128)(2,1)E(%d)}" % (t, SUB_BYTE_BITS[t]), "parse:type")
    add("pred[8]{0:E(1)}", "parse:type")
    add("pred[8,8,8]{0,2,1:E(32)}", "parse:type")
    add("pred[8,8,8]{0,2,1:T(8,128)E(32)}", "parse:type")
    add("token[]", "parse:type")
    add("opaque[]", "parse:type")

    # Every minor_to_major permutation for ranks 0..4, some for 5 and 6.
    rank_dims = {0: [], 1: [5], 2: [2, 3], 3: [2, 3, 4], 4: [2, 3, 4, 5], 5: [2, 3, 4, 5, 6], 6: [2, 1, 3, 1, 4, 2]}
    for rank in range(0, 7):
        if rank <= 4:
            perms = list(itertools.permutations(range(rank)))
        elif rank == 5:
            perms = every_nth_permutation(5, 12)
        else:
            perms = every_nth_permutation(6, 72)
        for p in perms:
            if rank == 0:
                continue  # "{}" is not a layout to the parser: the scalar case is "f32[]"
            add("f32" + dims_str(rank_dims[rank]) + layout_str(p), "parse:perm")
            if rank <= 3:
                add("s8" + dims_str(rank_dims[rank]) + layout_str(p), "parse:perm")
        add("f32" + dims_str(rank_dims[rank]), "parse:perm")
    # Zero-size and size-1 dimensions with several layouts.
    for dims in ([0], [0, 3], [3, 0], [0, 0], [1, 0, 4], [1], [1, 1, 1], [5, 1], [1, 5], [2, 1, 3], [0, 1, 0, 1]):
        for p in itertools.islice(itertools.permutations(range(len(dims))), 0, None, 2):
            add("f32" + dims_str(dims) + layout_str(p), "parse:dims")
    # Large dimensions.
    for s in (
        "f32[2147483647]", "f32[2147483648]", "u8[4294967296]", "f32[1000000,1000000]",
        "s8[9223372036854775807]", "pred[9223372036854775807]", "f32[2305843009213693951]",
        "f32[2305843009213693952]", "f32[9223372036854775807]", "s8[3037000499,3037000499]",
        "f64[65536,65536,65536]", "f32[0,9223372036854775807]", "c128[576460752303423487]",
    ):
        add(s, "parse:large")

    # Dynamic dimensions.
    for s in (
        "f32[<=3]", "f32[<=0]", "f32[<=3,4]", "f32[3,<=4]", "s32[<=5,<=6]{0,1}",
        "f32[?]", "f32[?,784]", "f32[784,?]", "f32[?,?]{0,1}", "f32[<=23,44,<=55]",
        "f32[?,<=3,4]", "bf16[<=8,?,128]{2,0,1}", "u4[<=16]{0:E(4)}", "f32[<=9223372036854775807]",
        "pred[?]", "(f32[<=3], s32[?])",
    ):
        add(s, "parse:dynamic")

    # Tuples.
    scalars = ["f32[]", "s32[]", "pred[]", "u8[]", "bf16[]", "c64[]", "s4[]", "f64[]", "token[]", "opaque[]", "u64[]", "f16[]", "s8[]"]
    add("()", "parse:tuple")
    add("(())", "parse:tuple")
    add("((), ())", "parse:tuple")
    add("(((())))", "parse:tuple")
    add("(f32[])", "parse:tuple")
    add("(f32[2,3]{0,1})", "parse:tuple")
    add("((f32[2,3]{0,1}))", "parse:tuple")
    for n in (2, 5, 6, 7, 10, 11, 12, 13):
        add("(" + ", ".join(scalars[:n]) + ")", "parse:tuple")
    add("(" + ", ".join("f32[%d]" % i for i in range(21)) + ")", "parse:tuple")
    add("(f32[1], (f32[2], token[]), opaque[], f32[3])", "parse:tuple")
    add("(f32[1572864], s8[5120,1024])", "parse:tuple")
    add("(opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1})", "parse:tuple")
    add("((f32[2]{0}, (s8[3,4]{0,1}, ())), pred[], (token[], (opaque[])))", "parse:tuple")
    add("(f32[1], f32[2], f32[3], f32[4], f32[5], (f32[6], f32[7], f32[8], f32[9], f32[10], f32[11], f32[12]), f32[13])", "parse:tuple")
    add("(f32[8,128]{1,0:T(8,128)}, bf16[4]{0:S(1)}, s4[16]{0:E(4)}, f32[<=3]{0})", "parse:tuple")

    # Buffers.
    for s in ("b(s32[])", "b(s32[3,4]{1,0})", "b(s32[3,4]{0,1})", "b(f32[8,16]{1,0})", "b(f32[<=3,?])",
              "b(f32[8,128]{1,0:T(8,128)S(1)})", "(b(s32[2]), f32[])", "((b(u8[0])), b(pred[1]))", "b(s4[8]{0:E(4)})"):
        add(s, "parse:buffer")

    # Layout attributes.
    for s in (
        "f32[8,128]{1,0:T(8,128)}",
        "f32[8,128]{0,1:T(8,128)}",
        "f32[2,3,4]{0,1,2:T(512,1024)}",
        "bf16[2,3,4]{1,2,0:T(16,256)(2,1)}",
        "bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}",
        "f32[123,456,789]{0,1,2:T(2,*,128)}",
        "bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}",
        "f32[1024]{0:T(1024)(128)}",
        "bf16[2048]{0:T(1024)(128)(2,1)}",
        "f32[8,4]{1,0:T(2,2)}",
        "f32[3]{0:T(4,8,128)}",
        "f32[]{:T(256)}",
        "f32[]{:T(8,128)}",
        "s8[32,128]{1,0:T(32,128)(4,1)}",
        "s4[123,456]{1,0:T(2,128)E(4)}",
        "f32[8]{0:T(*)}",
        "f32[8]{0:T(1)}",
        "f32[8,8]{1,0:T(9223372036854775807,1)}",
        "f32[10]{0:L(1)}",
        "f32[10]{0:L(2)}",
        "f32[3,2,1,5]{3,2,1,0:L(100)}",
        "f32[3,2,1,5]{3,2,1,0:T(42,123)(4,5)L(100)E(42)}",
        "f32[10]{0:E(0)}",
        "f32[10]{0:E(32)}",
        "f32[10]{0:E(16)}",
        "s8[10]{0:E(4)}",
        "f32[10]{0:E(9223372036854775807)}",
        "f32[10]{0:S(0)}",
        "f32[10]{0:S(1)}",
        "f32[10]{0:S(5)}",
        "f32[10]{0:S(6)}",
        "f32[10]{0:S(127)}",
        "f32[10]{0:S(128)}",
        "f32[10]{0:S(300)}",
        "f32[10]{0:S(-1)}",
        "f32[10]{0:S(-129)}",
        "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}",
        "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
        "f32[10,20]{0,1:SC(0:3)(1:0,4)}",
        "f32[10,20]{0,1:T(123)SC(0:3)(1:0,4)}",
        "f32[10]{0:SC(0:1,2,3,4,5,6,7,8,9)}",
        "f32[123,456]{1,0:T(16,128)M(1024)}",
        "f32[10]{0:M(0)}",
        "f32[10]{0:M(1)}",
        "f32[10]{0:M(9223372036854775807)}",
        "f32[10,10]{1,0:#(u32)}",
        "f32[10,10]{1,0:*(u16)}",
        "f32[10,10]{1,0:#(u64)*(u32)}",
        "f32[10,10]{1,0:#(s32)}",
        "f32[10,10]{1,0:#(f32)}",
        "f32[10,10]{1,0:#(u8)*(u8)}",
        "f32[1,2]{1,0:T(1,2)(3)L(4)#(u8)*(u8)E(32)S(2)SC(1:1)M(16)}",
        "f32[8,128]{1,0:T(8,128)L(4)E(32)S(1)M(8)}",
        "u4[8,128]{0,1:T(8,128)(2,1)L(1024)E(4)S(1)SC(1:64)M(4)}",
    ):
        add(s, "parse:layout")
    # Parsed but not validated by ParseShape (ShapeUtil::ValidateShape would reject these).
    for s in (
        "f32[2,3]{1,1}", "f32[2,3]{0,5}", "f32[2,3]{-1,0}", "f32[2]{0:T(0)}", "f32[2]{0:T()}",
        "f32[2]{0:E(-4)}", "f32[2]{0:SC(0:5)}", "f32[2]{0:SC(3:1)}", "f32[2]{0:SC(0:1)(0:1)}",
        "f32[2]{0:SC(0:0)}", "f32[4]{0:SC(0:3,1)}", "f32[2]{0:M(-5)}",
    ):
        add(s, "parse:unvalidated")
    return out


def add_constructed_shapes(xc, proto, parser, w: JsonlWriter) -> list:
    """Shapes built with xla_client's constructors rather than the parser."""
    import numpy as np
    import ml_dtypes

    notes = []

    def emit(shape, source):
        w.add(shape_row(proto, parser, str(shape), human_string(xc, shape), shape.to_serialized_proto(), source))

    dtypes = [(n, np.dtype(n)) for n in NUMPY_DTYPES]
    for n in ML_DTYPES:
        if hasattr(ml_dtypes, n):
            dtypes.append((n, np.dtype(getattr(ml_dtypes, n))))
        else:
            notes.append("ml_dtypes has no %s" % n)
    for name, dt in dtypes:
        try:
            emit(xc.Shape.array_shape(dt, (2, 3)), "array_shape:dtype")
            emit(xc.Shape.array_shape(dt, (2, 3), (0, 1)), "array_shape:dtype")
            emit(xc.Shape.array_shape(dt, ()), "array_shape:dtype")
            emit(xc.Shape.array_shape(dt, (4,), None, (True,)), "array_shape:dtype")
        except Exception as e:
            notes.append("Shape.array_shape(np.dtype(%s)) fails: %s" % (name, str(e).splitlines()[0]))
    for name, pt in xc.PrimitiveType.__members__.items():
        if name in ("PRIMITIVE_TYPE_INVALID", "TUPLE", "OPAQUE_TYPE", "TOKEN"):
            continue  # array_shape CHECK-fails on these
        emit(xc.Shape.array_shape(pt, (3, 0, 1), (1, 2, 0)), "array_shape:primitive_type")
        emit(xc.Shape.scalar_shape(pt), "scalar_shape")
    f32 = np.dtype("float32")
    for dims in ((), (1,), (0,), (7,), (2, 3), (4, 1, 3), (2, 2, 2, 2), (1, 2, 3, 4, 5), (6, 5, 4, 3, 2, 1)):
        rank = len(dims)
        for p in every_nth_permutation(rank, 37) if rank else [()]:
            emit(xc.Shape.array_shape(f32, dims, p), "array_shape:layout")
        if rank:
            dyn = tuple(i % 2 == 0 for i in range(rank))
            emit(xc.Shape.array_shape(f32, dims, None, dyn), "array_shape:dynamic")
            emit(xc.Shape.array_shape(f32, dims, tuple(range(rank)), tuple(True for _ in dims)), "array_shape:dynamic")
    s = xc.Shape.array_shape(f32, (3, 4, 5))
    s.set_dynamic_dimension(1, True)
    emit(s, "set_dynamic_dimension")
    s.set_dynamic_dimension(1, False)
    emit(s, "set_dynamic_dimension")
    emit(xc.Shape.token_shape(), "token_shape")
    emit(xc.Shape.tuple_shape([]), "tuple_shape")
    a = xc.Shape.array_shape(f32, (2, 3), (0, 1))
    b = xc.Shape.array_shape(np.dtype("int8"), (4,), None, (True,))
    emit(xc.Shape.tuple_shape([a]), "tuple_shape")
    emit(xc.Shape.tuple_shape([a, xc.Shape.token_shape(), b]), "tuple_shape")
    emit(xc.Shape.tuple_shape([xc.Shape.tuple_shape([]), xc.Shape.tuple_shape([a, xc.Shape.tuple_shape([b])])]), "tuple_shape")
    emit(xc.Shape.tuple_shape([xc.Shape.scalar_shape(xc.PrimitiveType.F32)] * 7), "tuple_shape")
    emit(xc.Shape.tuple_shape([a, b] * 6), "tuple_shape")
    return notes


def gen_shapes(xc, proto, parser, out_dir) -> list:
    notes = []
    w = JsonlWriter(os.path.join(out_dir, "shapes.jsonl"), key=lambda r: (r["string"], r["hex"]))
    for text, source in shape_parse_inputs():
        res = parser.parse(text)
        if not res.get("ok"):
            notes.append("shapes.jsonl: XLA rejects %r: %s" % (text, res.get("error") or res.get("crash")))
            continue
        w.add(shape_row(proto, parser, res["string"], res["string_no_layout"], bytes.fromhex(res["hex"]), source))
    notes += add_constructed_shapes(xc, proto, parser, w)
    w.write()
    return notes


# --------------------------------------------------------------------------
# parse_ok.jsonl / parse_errors.jsonl
# --------------------------------------------------------------------------


def parser_probe_inputs():
    """Strings, accepted or not, handed to XLA's ParseShape."""
    p = []
    # Whitespace and comments.
    p += [
        "f32[2,3]", " f32[2,3]", "f32[2,3] ", "\tf32[2,3]\n", "f32 [2,3]", "f32[ 2 , 3 ]",
        "f32[2,3] {1,0}", "f32[2,3]{ 1 , 0 }", "f32[ 1, 2,3, 4, 5]{0, 1, 2,3, 4 }",
        "f32[2,3]{1,0 : T( 8 , 128 ) }", "f32[123,456,789]{0,1,2:T(2, * , 128)}",
        "( f32[2] , s32[] )", "(f32[2],s32[])", "(\n  f32[2],\n  s32[]\n)",
        "/*c*/f32[2]", "f32/*c*/[2]", "f32[/*c*/2]", "(f32[], /*index=1*/s32[])",
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])", "(f32[2], // line comment\n s32[])",
        "f32[2] // trailing comment", "f32[2] /* trailing */", "/**/()", "(/* empty */)",
        "f32[2]/*", "f32[2] /* unterminated", "// only a comment", "f32[2] //",
    ]
    # Layouts omitted or partial.
    p += [
        "f32[]", "f32[7]", "f32[2,3,4]", "(f32[2,3], (s8[4,5]))", "b(f32[2,3])", "f32[<=2,?]",
        "f32[2,3]{1,0:}", "f32[]{:}", "f32[2,3]{:}", "f32[2,3]{}", "f32[]{}", "f32[]{:T(256)}",
        "f32[2]{:T(2)}", "f32[2,3]{1,0}{1,0}", "f32[2,3]{0}", "f32[2,3]{0,1,2}", "f32[2]{0,}",
        "f32[2]{,0}", "f32[2]{0 1}", "f32[2]{0;}", "f32[2]{a}", "f32[123,456]{foo}",
        "f32[123,456]dense{foo}", "f32[123,456]foobar{0,1}", "f32[2]{0:D(D)}", "f32[2,3]{1,0:D(D,C)}",
        "f32[2,3]{1,0:D(D,C+~)}", "f32[2]{0:D(S)}", "f32[2]{0:D(H)}", "f32[2]{0:D(X)}", "f32[2]{0:D()}",
        "f32[2]{0:D(D,D)}", "f32[2]{0:D(D)T(2)}",
    ]
    # Attributes: combinations, order, bad values.
    p += [
        "f32[2]{0:T(2)L(2)E(32)S(1)M(4)}", "f32[2]{0:E(32)T(2)}", "f32[2]{0:S(1)E(32)}",
        "f32[2]{0:M(4)S(1)}", "f32[2]{0:L(2)T(2)}", "f32[2]{0:SC(0:1)S(1)}", "f32[2]{0:M(4)SC(0:1)}",
        "f32[2]{0:T(2)T(2)}", "f32[2]{0:T(2)(2)}", "f32[2]{0:E(4)E(4)}", "f32[2]{0:S(1)S(2)}",
        "f32[2]{0:X(1)}", "f32[2]{0:t(2)}", "f32[2]{0:T}", "f32[2]{0:T(}", "f32[2]{0:T(2}",
        "f32[2]{0:T(a)}", "f32[2]{0:T(**)}", "f32[2]{0:T(*,*)}", "f32[2]{0:T(2,)}",
        "f32[2]{0:E()}", "f32[2]{0:E(x)}", "f32[2]{0:E}", "f32[2]{0:S()}", "f32[2]{0:L()}", "f32[2]{0:M()}",
        "f32[2]{0:SC()}", "f32[2]{0:SC(0)}", "f32[2]{0:SC(0:)}", "f32[2]{0:SC(:1)}", "f32[2]{0:SC(0:1,)}",
        "f32[2]{0:#()}", "f32[2]{0:#(u32}", "f32[2]{0:#(foo)}", "f32[2]{0:*(u16)#(u32)}",
        "f32[2]{0:#(u32)}", "f32[2]{0:*(s64)}", "f32[2]{0:#(pred)}", "f32[2]{0:P(s32[2])}",
        "f32[2]{0:P(s32[2]{0})}", "f32[2]{0:E(-1)}", "f32[2]{0:T(-3)}", "f32[2]{0:T(-9223372036854775808)}",
        "f32[2]{0:L(0)}", "f32[2]{0:L(-1)}", "f32[2]{0:S(-1)}", "f32[2]{0:M(-1)}",
        "f32[2]{0:S(9223372036854775807)}", "f32[2]{0:E(9223372036854775808)}",
        "f32[2]{0:L(1)}", "f32[2]{0:E(0)}", "f32[2]{0:S(0)}", "f32[2]{0:M(0)}",
        "f32[2]{0:T(2)L(1)E(0)S(0)M(0)}",
        "f32[2,3]{1,1}", "f32[2,3]{0,5}", "f32[2,3]{-1,0}", "f32[2]{0:T(0)}",
    ]
    # Dimensions.
    p += [
        "f32[-1]", "f32[-0]", "f32[+1]", "f32[01]", "f32[0x10]", "f32[1e3]", "f32[1.0]", "f32[2,]",
        "f32[,2]", "f32[2,,3]", "f32[2", "f32[2]]", "f32]", "f32", "f32[", "[2]", "f32[a]",
        "f32[9223372036854775807]", "f32[9223372036854775808]", "f32[18446744073709551616]",
        "f32[<=3]", "f32[< =3]", "f32[<3]", "f32[>=3]", "f32[<=-1]", "f32[<=?]", "f32[?3]", "f32[3?]",
        "f32[??]", "f32[?,?]", "f32[<=9223372036854775807]", "f32[<= 3]",
    ]
    # Element type names.
    p += [
        "g32[]", "F32[2]", "Pred[]", "preD[]", "PRED[]", "f32x[]", "float32[]", "f33[]", "s3[]", "u128[]",
        "f8[]", "bf32[]", "f6e3m2fn[2]", "f6e2m3fn[2]", "tuple[]", "buffer[]", "invalid[]",
        "primitive_type_invalid[]", "opaque_type[]", "opaque[]", "token[]", "token[2]", "opaque[2]",
        "token[]{}", "token", "opaque", "token[]{0}", "opaque[]{:T(2)}", "token[<=1]", "tuple", "b",
        "b[]", "b[2]", "c32[]", "f8e4m3fnuz[]", "F8E4M3FN[]", "s1[]", "u1[]",
    ]
    # Tuples.
    p += [
        "()", "( )", "(,)", "(f32[],)", "(,f32[])", "(f32[] f32[])", "(f32[]", "f32[])", "((f32[])",
        "(f32[]))", "((((((((((f32[]))))))))))", "(" * 64 + ")" * 64, "(f32[];s32[])", "[f32[]]",
        "{f32[]}", "(f32[2]{0}, f32[3]{0,1})",
    ]
    # Buffers.
    p += [
        "b(s32[])", "b(f32[8,16]{1,0})", "b()", "b(s32[], f32[])", "b(s32[],)", "b(())",
        "b((s32[]))", "b(token[])", "b(opaque[])", "b(b(s32[]))", "b (s32[])", "b( s32[] )",
        "b(s32[]", "b(s32[]))", "bs32[]", "B(s32[])", "b(s32[])b(s32[])", "(b(s32[]), b(f32[2]))",
        "b(s32[2]){0}", "b(f32[<=3])",
    ]
    # Errors XLA records while going on (a `*` tile dimension, a signed `#`/`*`
    # type, a malformed L/E/S/M) and reports when a later step fails,
    # possibly one that adds no message (a tuple element's validation, an
    # invalid size, a buffer of a non-array).
    p += [
        "(f32[2]{0:#(s32)})", "(f32[2]{0:T(*)*(u64)})", "(f32[2]{0:T(*)}, f32[2]{0:T(0)})",
        "(f32[2]{0:E(4}, f32[2]{0:T(0)})", "(f32[2]{0:#s8}, f32[2]{0:T(0)})", "(f32[2]{0:S}, f32[2]{0:T(0)})",
        "(f32[2]{0:M}, f32[2]{0:T(0)})", "(f32[2]{0:L(2}, f32[2]{0:T(0)})", "(f32[2]{0:T(*)}, b(token[]))",
        "(f32[2]{0:T(*)}, f32[-1])", "f32[-1,x]", "f32[-1", "f32[2]{0:T(*)Q}", "f32[2]{0:P(s32[2,-1,3])}",
        "f32[2]{0:P(s32[2,3]{0})}", "u16[16,64,8]{1,0,2M(0)}", "f32[2,3]{1,0PAD(3,5)}",
        "(f32[2,5]{0,1:SC(0:3)})", "(f32[5,2]{0,1:SC(0:3)})", "f32[2]{0:#(s8)}x",
    ]
    # Misc.
    p += ["", " ", "\n", "f32[2]f32[2]", "f32[2],", "f32[2] x", "x", "1", "%f32[2]", "f32[2]\x00", "é[]", "f32[２]"]
    return p


def gen_parse(proto, parser, out_dir) -> list:
    ok = JsonlWriter(os.path.join(out_dir, "parse_ok.jsonl"), key=lambda r: r["input"])
    err = JsonlWriter(os.path.join(out_dir, "parse_errors.jsonl"), key=lambda r: r["input"])
    inputs = parser_probe_inputs() + [s for s, _ in shape_parse_inputs()]
    for text in inputs:
        res = parser.parse(text)
        if res.get("ok"):
            data = bytes.fromhex(res["hex"])
            ok.add({
                "input": text,
                "string": res["string"],
                "string_no_layout": res["string_no_layout"],
                "hex": res["hex"],
                "text": proto.text(data, "parse_ok " + text),
            })
        elif "crash" in res:
            err.add({"input": text, "error": None, "crash": res["crash"]})
        else:
            full = res["error"]
            m = re.match(r"^([A-Z_]+): (.*)$", full, re.S)
            err.add({
                "input": text,
                "error": full,
                "code": m.group(1) if m else None,
                "message": m.group(2) if m else full,
            })
    ok.write()
    err.write()
    return []


# --------------------------------------------------------------------------
# hlo_shapes.jsonl
# --------------------------------------------------------------------------


def read_varint(buf: bytes, i: int):
    shift = 0
    val = 0
    while True:
        b = buf[i]
        i += 1
        val |= (b & 0x7F) << shift
        if not b & 0x80:
            return val, i
        shift += 7


def wire_fields(buf: bytes):
    """Yield (field_number, wire_type, value) where value is int or bytes."""
    i = 0
    n = len(buf)
    while i < n:
        key, i = read_varint(buf, i)
        fn, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 1:
            v = buf[i:i + 8]
            i += 8
        elif wt == 2:
            ln, i = read_varint(buf, i)
            v = buf[i:i + ln]
            i += ln
        elif wt == 5:
            v = buf[i:i + 4]
            i += 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        yield fn, wt, v


# Field numbers in xla/service/hlo.proto and xla/xla_data.proto.
MODULE_COMPUTATIONS = 3
MODULE_HOST_PROGRAM_SHAPE = 4
COMPUTATION_NAME = 1
COMPUTATION_INSTRUCTIONS = 2
COMPUTATION_PROGRAM_SHAPE = 4
INSTR_NAME = 1
INSTR_OPCODE = 2
INSTR_SHAPE = 3
INSTR_OUTFEED_SHAPE = 29
INSTR_OPERAND_SHAPES_WITH_LAYOUT = 57
PROGRAM_SHAPE_PARAMETERS = 1
PROGRAM_SHAPE_RESULT = 2


def module_shape_protos(data: bytes):
    """(where, instruction name or None, ShapeProto bytes) for every shape in an HloModuleProto."""
    out = []

    def program_shape(buf, where):
        for fn, wt, v in wire_fields(buf):
            if fn == PROGRAM_SHAPE_PARAMETERS and wt == 2:
                out.append((where + ".param", None, v))
            elif fn == PROGRAM_SHAPE_RESULT and wt == 2:
                out.append((where + ".result", None, v))

    for fn, wt, v in wire_fields(data):
        if fn == MODULE_COMPUTATIONS and wt == 2:
            for cfn, cwt, cv in wire_fields(v):
                if cfn == COMPUTATION_INSTRUCTIONS and cwt == 2:
                    name = opcode = None
                    shapes = []
                    for ifn, iwt, iv in wire_fields(cv):
                        if ifn == INSTR_NAME and iwt == 2:
                            name = iv.decode()
                        elif ifn == INSTR_OPCODE and iwt == 2:
                            opcode = iv.decode()
                        elif ifn == INSTR_SHAPE and iwt == 2:
                            shapes.append(("shape", iv))
                        elif ifn == INSTR_OUTFEED_SHAPE and iwt == 2:
                            shapes.append(("outfeed_shape", iv))
                        elif ifn == INSTR_OPERAND_SHAPES_WITH_LAYOUT and iwt == 2:
                            shapes.append(("operand_shape", iv))
                    for kind, sv in shapes:
                        out.append(("%s.%s" % (opcode, kind), name if kind == "shape" else None, sv))
                elif cfn == COMPUTATION_PROGRAM_SHAPE and cwt == 2:
                    program_shape(cv, "computation_program_shape")
        elif fn == MODULE_HOST_PROGRAM_SHAPE and wt == 2:
            program_shape(v, "host_program_shape")
    return out


def scan_shape(s: str, i: int) -> int:
    """End index of the shape text starting at s[i] (as XLA prints it)."""

    def balanced(j, open_c, close_c):
        depth = 0
        while j < len(s):
            c = s[j]
            if c == open_c:
                depth += 1
            elif c == close_c:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        raise ValueError("unbalanced %r in %r" % (open_c, s))

    if s[i] == "(":
        return balanced(i, "(", ")")
    m = re.compile(r"[a-z][a-z0-9_]*").match(s, i)
    if not m:
        raise ValueError("no shape at %d in %r" % (i, s))
    j = m.end()
    if m.group(0) == "b" and j < len(s) and s[j] == "(":
        return balanced(j, "(", ")")
    j = balanced(j, "[", "]")
    if j < len(s) and s[j] == "{":
        j = balanced(j, "{", "}")
    return j


INSTR_LINE = re.compile(r"^\s*(?:ROOT\s+)?%?([^\s=]+) = ")


def instruction_shape_strings(text: str) -> dict:
    """Instruction name -> printed shape, from HloModule::ToString output."""
    out = {}
    for line in text.splitlines():
        m = INSTR_LINE.match(line)
        if not m:
            continue
        try:
            end = scan_shape(line, m.end())
        except (ValueError, IndexError):
            continue
        out[m.group(1)] = line[m.end():end]
    return out


def shape_list(text: str, i: int, close: str):
    """Shapes separated by ", " from text[i] up to the closing character; (shapes, end)."""
    shapes = []
    while text[i] != close:
        end = scan_shape(text, i)
        shapes.append(text[i:end])
        i = end
        if text[i] == ",":
            i += 1
            while text[i] == " ":
                i += 1
    return shapes, i + 1


def printed_attribute_shapes(text: str):
    """Shapes printed outside instruction results: the module's
    'entry_computation_layout={(p0, p1)->r}' and custom calls'
    'operand_layout_constraints={s0, s1}'."""
    shapes = []
    key = "entry_computation_layout={("
    k = text.find(key)
    if k >= 0:
        params, i = shape_list(text, k + len(key), ")")
        assert text[i:i + 2] == "->", text[i:i + 20]
        end = scan_shape(text, i + 2)
        shapes += params + [text[i + 2:end]]
    key = "operand_layout_constraints={"
    k = text.find(key)
    while k >= 0:
        operands, _ = shape_list(text, k + len(key), "}")
        shapes += operands
        k = text.find(key, k + 1)
    return shapes


def jax_functions():
    """(name, function, argument specs) for the modules whose shapes we record."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    import numpy as np

    S = jax.ShapeDtypeStruct

    def elementwise(x, y):
        return jnp.tanh(x) * y + 1.0

    def broadcast(x, y):
        return x[:, None] + y[None, :], jnp.broadcast_to(x[0], (2, 3, 4))

    def dot(x, y):
        return jnp.dot(x, y, preferred_element_type=jnp.float32)

    def dot_batched(x, y):
        return jnp.einsum("bij,bjk->bik", x, y)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def conv_nhwc(x, w):
        return lax.conv_general_dilated(x, w, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def reduce(x):
        return jnp.sum(x, axis=0), jnp.max(x, axis=(1, 2)), jnp.argmax(x, axis=1)

    def transpose(x):
        return jnp.transpose(x, (2, 0, 1)), x.T

    def reshape(x):
        return x.reshape(6, 4), x.reshape(-1), x.reshape(2, 1, 3, 1, 4)

    def slices(x, i):
        return x[1:3, ::2], lax.dynamic_slice(x, (i, i * 0), (2, 3)), lax.dynamic_update_slice(x, jnp.zeros((1, 3), x.dtype), (i, i * 0 + 1))

    def gather(x, idx):
        return x[idx], jnp.take(x, idx, axis=1)

    def scatter(x, idx, v):
        return x.at[idx].add(v)

    def sort(x, y):
        return jnp.sort(x, axis=-1), lax.sort((x, y), num_keys=1), jnp.argsort(x)

    def multi(a, b, c, d):
        return a, (b, c), [d, a + a], {"k": c.astype(jnp.float32)}, jnp.zeros((0, 3), jnp.int8), jnp.float32(1.0)

    def compare(x, y):
        m = x > y
        return jnp.where(m, x, y), m, jnp.logical_and(m, ~m), m.astype(jnp.int8)

    def complex_ops(z, w):
        return z * w, jnp.abs(z), jnp.real(z), jnp.conj(w), jnp.fft.fft(z)

    def int_ops(a, b):
        return a + b, a.astype(jnp.int32) * 3, jnp.right_shift(a, 1), jnp.bitwise_xor(a, b)

    def mixed_precision(x):
        return x.astype(jnp.bfloat16) * 2, x.astype(jnp.float16), x.astype(jnp.float64), x.astype(jnp.int64)

    def loop(x):
        def body(c, xs):
            return c + xs, c * 2

        return lax.scan(body, jnp.zeros(x.shape[1:], x.dtype), x)

    def while_loop(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (jnp.int32(0), x))

    def cond(p, x):
        return lax.cond(p, lambda v: v + 1, lambda v: v * 2, x)

    def cumulative(x):
        return jnp.cumsum(x, axis=0), lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID")

    def pad_concat(x, y):
        return jnp.pad(x, ((1, 2), (0, 3))), jnp.concatenate([x, y], axis=0), lax.iota(jnp.int32, 5)

    def small_types(a, b, c):
        return a.astype(jnp.float32), b.astype(jnp.float32) + c.astype(jnp.float32), a

    def int4(a):
        return a, a.astype(jnp.int8), (a.astype(jnp.int8) * 2).astype(jnp.int4)

    def rng(key):
        return jax.random.normal(key, (3, 4)), jax.random.randint(key, (5,), 0, 10)

    def callback(x):
        from jax.experimental import io_callback

        y = io_callback(lambda v: v, jax.ShapeDtypeStruct((3,), jnp.float32), x, ordered=True)
        return y + 1

    def scalars(a, b):
        return a * b, jnp.sqrt(a)

    def rank6(x):
        return jnp.sum(x, axis=(1, 3)), jnp.transpose(x, (5, 4, 3, 2, 1, 0)) + 1

    def zero_size(x, y):
        return x + 1, jnp.concatenate([x, x], axis=1), y @ y.T

    def clamp_select(x, lo, hi):
        return jnp.clip(x, lo, hi), lax.select(x > 0, x, -x)

    def triangular(a, b):
        return lax.linalg.triangular_solve(a, b, left_side=True, lower=True)

    f32, bf16, s8, s32, u8, u32 = jnp.float32, jnp.bfloat16, jnp.int8, jnp.int32, jnp.uint8, jnp.uint32
    fns = [
        ("elementwise", elementwise, [S((4, 5), f32), S((4, 5), f32)]),
        ("broadcast", broadcast, [S((3,), f32), S((4,), f32)]),
        ("dot_bf16", dot, [S((8, 16), bf16), S((16, 32), bf16)]),
        ("dot_s8", dot, [S((8, 16), s8), S((16, 4), s8)]),
        ("dot_batched", dot_batched, [S((2, 3, 4), f32), S((2, 4, 5), f32)]),
        ("conv", conv, [S((1, 3, 8, 8), f32), S((4, 3, 3, 3), f32)]),
        ("conv_nhwc_bf16", conv_nhwc, [S((2, 9, 9, 3), bf16), S((3, 3, 3, 8), bf16)]),
        ("reduce", reduce, [S((4, 5, 6), f32)]),
        ("transpose", transpose, [S((2, 3, 4), f32)]),
        ("reshape", reshape, [S((2, 3, 4), s32)]),
        ("slices", slices, [S((4, 6), f32), S((), s32)]),
        ("gather", gather, [S((5, 7), f32), S((3,), s32)]),
        ("scatter", scatter, [S((6, 2), f32), S((4,), s32), S((4, 2), f32)]),
        ("sort", sort, [S((3, 8), f32), S((3, 8), s32)]),
        ("multi_output", multi, [S((2,), f32), S((3, 4), s8), S((1,), u8), S((2, 2), bf16)]),
        ("compare_pred", compare, [S((4,), f32), S((4,), f32)]),
        ("complex_c64", complex_ops, [S((8,), jnp.complex64), S((8,), jnp.complex64)]),
        ("int_u32", int_ops, [S((3, 3), u32), S((3, 3), u32)]),
        ("int_s8", int_ops, [S((16,), s8), S((16,), s8)]),
        ("mixed_precision", mixed_precision, [S((2, 2), f32)]),
        ("scan", loop, [S((5, 3), f32)]),
        ("while_loop", while_loop, [S((), s32), S((2,), f32)]),
        ("cond", cond, [S((), jnp.bool_), S((3,), f32)]),
        ("cumulative", cumulative, [S((4, 4), f32)]),
        ("pad_concat", pad_concat, [S((2, 3), f32), S((1, 3), f32)]),
        ("small_types", small_types, [S((4,), jnp.float16), S((4,), jnp.float8_e4m3fn), S((4,), jnp.float8_e5m2)]),
        ("int4", int4, [S((8, 4), jnp.int4)]),
        ("rng", rng, [S((2,), u32)]),
        ("ordered_callback_token", callback, [S((3,), f32)]),
        ("scalars", scalars, [S((), f32), S((), f32)]),
        ("rank6", rank6, [S((2, 1, 3, 1, 2, 2), f32)]),
        ("zero_size", zero_size, [S((3, 0), f32), S((0, 4), f32)]),
        ("clamp_select", clamp_select, [S((5,), f32), S((), f32), S((), f32)]),
        ("triangular_c128", triangular, [S((3, 3), jnp.complex128), S((3, 2), jnp.complex128)]),
        ("f64_s64", lambda x, n: (x * 2.0, n + 1, x.astype(jnp.complex128)), [S((3,), jnp.float64), S((3,), jnp.int64)]),
    ]
    del np
    return fns


def gen_hlo_shapes(xc, proto, parser, out_dir) -> list:
    import jax

    jax.config.update("jax_enable_x64", True)
    notes = []
    w = JsonlWriter(os.path.join(out_dir, "hlo_shapes.jsonl"))
    no_layout_opts = xc.hlo.HloPrintOptions()
    no_layout_opts.include_layout_in_shapes = False
    no_layout_opts.print_metadata = False
    with_layout_opts = xc.hlo.HloPrintOptions()
    with_layout_opts.print_metadata = False

    for name, fn, args in jax_functions():
        try:
            lowered = jax.jit(fn).lower(*args)
            comp = lowered.compiler_ir("hlo")
            stages = [("unoptimized", comp.as_serialized_hlo_module_proto(), comp.get_hlo_module())]
            compiled = lowered.compile()
            for k, mod in enumerate(compiled.runtime_executable().hlo_modules()):
                stages.append(("optimized" if k == 0 else "optimized%d" % k, mod.as_serialized_hlo_module_proto(), mod))
        except Exception as e:
            notes.append("hlo: %s failed: %s" % (name, str(e).splitlines()[0]))
            continue
        for stage, data, mod in stages:
            text_with = mod.to_string(with_layout_opts)
            text_without = mod.to_string(no_layout_opts)
            by_name_with = instruction_shape_strings(text_with)
            by_name_without = instruction_shape_strings(text_without)
            candidates = printed_attribute_shapes(text_with)
            seen = {}
            by_hex = {}
            items = module_shape_protos(data)
            # Strings of shapes that have an instruction name first.
            for where, iname, sv in items:
                if iname is not None and iname in by_name_with:
                    by_hex.setdefault(sv, (by_name_with[iname], by_name_without.get(iname)))
            for where, iname, sv in items:
                if sv in seen:
                    continue
                seen[sv] = True
                if sv in by_hex:
                    string, string_nl = by_hex[sv]
                else:
                    string = string_nl = None
                    # A shape that is no instruction's result (a program shape or a
                    # custom call's operand layout): try the shapes printed in
                    # attributes, keeping the one XLA parses back to these bytes.
                    for cand in candidates:
                        res = parser.parse(cand)
                        if res.get("ok") and res["hex"] == sv.hex():
                            string, string_nl = res["string"], res["string_no_layout"]
                            break
                    if string is None:
                        notes.append("hlo: %s/%s: no printed string for %s shape %s" % (name, stage, where, sv.hex()))
                w.add(shape_row(proto, parser, string, string_nl, sv, "jit:%s:%s:%s" % (name, stage, where)))
    w.write()
    return notes


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def generate(out_dir: str) -> list:
    from jax._src.lib import xla_client as xc

    os.makedirs(out_dir, exist_ok=True)
    proto = OurProto()
    parser = Parser()
    notes = []
    try:
        notes += gen_shapes(xc, proto, parser, out_dir)
        notes += gen_parse(proto, parser, out_dir)
        notes += gen_hlo_shapes(xc, proto, parser, out_dir)
    finally:
        parser.close()
    for text, msg in parser.crashes:
        notes.append("XLA CHECK-failed (process abort) parsing %r: %s" % (text, msg))
    for where, unknown in proto.unknown:
        notes.append("UNKNOWN FIELDS in %s: %s" % (where, ", ".join(unknown)))
    for where, xla_hex, py_hex in proto.reserialize_mismatch:
        notes.append("python re-serialization differs for %s: xla=%s python=%s" % (where, xla_hex, py_hex))
    return notes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: tests/golden)")
    ap.add_argument("--check", action="store_true", help="regenerate into a temporary directory and compare with --out")
    ap.add_argument("--parse-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.parse_worker:
        parse_worker()
        return 0

    import jax
    import jaxlib

    print("jax %s, jaxlib %s" % (jax.__version__, jaxlib.__version__), file=sys.stderr)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            notes = generate(tmp)
            bad = 0
            for fname in sorted(os.listdir(tmp)):
                with open(os.path.join(tmp, fname), "rb") as a:
                    new = a.read()
                try:
                    with open(os.path.join(args.out, fname), "rb") as b:
                        old = b.read()
                except FileNotFoundError:
                    old = None
                if new != old:
                    print("DIFFERS: %s" % fname, file=sys.stderr)
                    bad += 1
            print("%d file(s) differ" % bad, file=sys.stderr)
            return 1 if bad else 0
    notes = generate(args.out)
    for n in notes:
        print("note: " + n, file=sys.stderr)
    for fname in sorted(os.listdir(args.out)):
        if fname.endswith(".jsonl"):
            with open(os.path.join(args.out, fname), encoding="utf-8") as f:
                print("%s: %d lines" % (fname, sum(1 for _ in f)), file=sys.stderr)
    unknown = [n for n in notes if n.startswith("UNKNOWN FIELDS")]
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
