"""Writes tests/golden/validation.jsonl: which shapes real XLA rejects when it
loads them, and with what error text.

Each input is a shape string used as the entry parameter of an HLO module,
`ROOT p0 = <shape> parameter(0)`:

1. `xla_client.hlo.hlo_module_from_text` parses it (XLA's HLO parser, which
   checks the syntax and a few things such as the layout length but does not
   validate the layout);
2. the module is serialized to an `HloModuleProto` and loaded back through
   `xla_computation_to_mlir_module(XlaComputation(bytes))`, which runs
   `HloModule::CreateFromProto` and so XLA's shape and layout validation
   (`ShapeUtil::ValidateShapeWithOptionalLayout`, `LayoutUtil::ValidateLayoutForShape`).

A row is `{"input", "stage", ...}`: `stage` is `parse` or `load` with `code`
and `message` (XLA's status code and text; for `parse`, the text after
`error: ` when XLA names one), `accepted` when both steps pass,
or `crash` when XLA aborted the process (a CHECK failure) with `crash` holding
the CHECK message. Every input runs in a child process (`--worker`), restarted
after a crash.

    /work/venv-golden/bin/python build-tools/gen_validation.py [--check]
"""

from __future__ import annotations

import json
import re
import sys

TAG = "@@VALIDATION@@"
CHECK_RE = re.compile(r"^F\d{4} [\d:.]+\s+\d+ (\S+\] .*)$")


def module_text(shape: str) -> str:
    return "HloModule m\n\nENTRY e {\n  ROOT p0 = %s parameter(0)\n}\n" % shape


# Where the parameter's ShapeProto sits in an HloModuleProto (field numbers of
# xla/service/hlo.proto): computations = 3 > instructions = 2 > shape = 3, and
# the program shapes (computation's = 4, module's host_program_shape = 4) with
# parameters = 1 and result = 2.
PROGRAM_SHAPE = {1: None, 2: None}
MODULE_SHAPES = {3: {2: {3: None}, 4: PROGRAM_SHAPE}, 4: PROGRAM_SHAPE}


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def field(number: int, wire_type: int, value) -> bytes:
    key = varint(number << 3 | wire_type)
    if wire_type == 0:
        return key + varint(value)
    if wire_type == 2:
        return key + varint(len(value)) + value
    return key + value


def packed(number: int, values) -> bytes:
    return field(number, 2, b"".join(varint(v) for v in values)) if values else b""


def rewrite(buf: bytes, tree: dict, new: bytes) -> bytes:
    """`buf` re-encoded with every message at a `tree` leaf replaced by `new`."""
    from gen_golden import wire_fields

    out = b""
    for number, wire_type, value in wire_fields(buf):
        if wire_type == 2 and number in tree:
            value = new if tree[number] is None else rewrite(value, tree[number], new)
        out += field(number, wire_type, value)
    return out


def shape_proto(element_type, dims=(), dynamic=None, tuples=(), layout=None) -> bytes:
    """A ShapeProto written field by field (xla_data.proto numbers)."""
    out = field(2, 0, element_type) if element_type else b""
    out += packed(3, dims)
    for t in tuples:
        out += field(4, 2, t)
    if layout is not None:
        out += field(5, 2, layout)
    return out + packed(6, [int(d) for d in (dynamic if dynamic is not None else [False] * len(dims))])


def layout_proto(m2m=(), tail=1, extra=b"") -> bytes:
    """A LayoutProto: minor_to_major = 1, `extra` fields, tail alignment = 16."""
    return packed(1, m2m) + extra + (field(16, 0, tail) if tail is not None else b"")


def proto_inputs():
    """(description, ShapeProto bytes) that the HLO text cannot express."""
    PRED, S4, S32, F32, TUPLE, OPAQUE, TOKEN, BUFFER = 1, 21, 4, 11, 13, 14, 17, 34
    L = layout_proto
    P = shape_proto
    f32_2 = P(F32, [2], layout=L([0]))
    return [
        ("f32[2] as XLA writes it", f32_2),
        ("negative dimension", P(F32, [-2], layout=L([0]))),
        ("negative second dimension", P(F32, [3, -1], layout=L([1, 0]))),
        ("dynamic flags fewer than dimensions", P(F32, [2, 3], dynamic=[True], layout=L([1, 0]))),
        ("dynamic flags more than dimensions", P(F32, [2], dynamic=[False, True], layout=L([0]))),
        ("no dynamic flags", P(F32, [2, 3], dynamic=[], layout=L([1, 0]))),
        ("element type INVALID", P(0, [2], layout=L([0]))),
        ("element type 999", P(999, [2], layout=L([0]))),
        ("tuple with dimensions", P(TUPLE, [2])),
        ("token with dimensions", P(TOKEN, [2])),
        ("opaque with dimensions", P(OPAQUE, [1])),
        ("array without layout", P(F32, [2, 3])),
        ("minor_to_major shorter than rank", P(F32, [2, 3], layout=L([0]))),
        ("minor_to_major longer than rank", P(F32, [2], layout=L([0, 1]))),
        ("tuple with a layout", P(TUPLE, tuples=[f32_2], layout=L([]))),
        ("token with a layout", P(TOKEN, layout=L([]))),
        ("negative dynamic dimension", P(F32, [-5], dynamic=[True], layout=L([0]))),
        ("unbounded dynamic dimension", P(F32, [-(1 << 63)], dynamic=[True], layout=L([0]))),
        ("unbounded but static dimension", P(F32, [-(1 << 63)], dynamic=[False], layout=L([0]))),
        ("tail padding alignment 0", P(F32, [2], layout=L([0], tail=0))),
        ("no tail padding alignment", P(F32, [2], layout=L([0], tail=None))),
        ("classic padded_dimensions (field 2)", P(F32, [2], layout=L([0], extra=packed(2, [4])))),
        ("classic padding_value (field 3)", P(F32, [2], layout=L([0], extra=field(3, 0, 1)))),
        ("buffer with two shapes", P(BUFFER, tuples=[f32_2, f32_2])),
        ("buffer of a tuple", P(BUFFER, tuples=[P(TUPLE, tuples=[f32_2])])),
        ("buffer with dimensions", P(BUFFER, [2], tuples=[f32_2])),
        ("nested tuple with a negative dimension", P(TUPLE, tuples=[P(TUPLE, tuples=[P(F32, [-1], layout=L([0]))])])),
        ("s4 with element_size_in_bits 4", P(S4, [8], layout=L([0], extra=field(7, 0, 4)))),
        ("pred with a tile", P(PRED, [8], layout=L([0], extra=field(6, 2, packed(1, [4]))))),
        ("tile with no dimensions", P(S32, [8], layout=L([0], extra=field(6, 2, b"")))),
        ("dim_level_types on a dense array", P(F32, [2], layout=L([0], extra=packed(9, [1])))),
        ("memory space 300", P(F32, [2], layout=L([0], extra=field(8, 0, 300)))),
    ]


def worker() -> None:
    from jax._src.lib import xla_client as xc

    base = xc.hlo.hlo_module_from_text(module_text("f32[2]")).as_serialized_hlo_module_proto()
    if rewrite(base, {}, b"") != base:
        sys.exit("the wire re-encoder does not reproduce XLA's module bytes")
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "hex" in req:
                data = rewrite(base, MODULE_SHAPES, bytes.fromhex(req["hex"]))
            else:
                data = xc.hlo.hlo_module_from_text(module_text(req["text"])).as_serialized_hlo_module_proto()
        except Exception as e:  # noqa: BLE001 -- XLA's status is the golden value
            m = re.search(r"error: (.*)", str(e))
            res = {"stage": "parse", "error": str(e)}
            if m:
                res["message"] = m.group(1)
        else:
            try:
                computation = xc.XlaComputation(data)
                xc._xla.mlir.xla_computation_to_mlir_module(computation)
                res = {"stage": "accepted"}
            except Exception as e:  # noqa: BLE001
                res = {"stage": "load", "error": str(e)}
        sys.stdout.write(TAG + json.dumps(res) + "\n")
        sys.stdout.flush()




def inputs():
    dims = ["f32[2,3]", "s8[4,1]", "bf16[2,3,4]"]
    out = []
    # minor_to_major: duplicates, out of range, negative, wrong length, valid.
    for m2m in ["{1,1}", "{0,0}", "{0,5}", "{2,0}", "{-1,0}", "{1,-1}", "{1}", "{1,0,2}", "{0,1}", "{1,0}"]:
        out.append("f32[2,3]" + m2m)
    for m2m in ["{2,2,0}", "{0,1,3}", "{2,1,0}", "{0,2,1}", "{3,2,1}", "{1,0}"]:
        out.append("bf16[2,3,4]" + m2m)
    out += ["f32[]{0}", "f32[5]{-1}", "f32[5]{1}", "f32[5]{0}", "f32[0]{0}"]
    # Tiles.
    for tiles in ["T(0)", "T(-3)", "T(2,0)", "T(0,128)", "T(8,128)", "T(8,128)(2,1)", "T(2)(0)", "T(2,2,2)",
                  "T(2,3,4,5)", "T(*)", "T(*,128)", "T(1)", "T(128)", "T()", "T(-9223372036854775808)",
                  "T(8,128)(2,1)(1)", "T(4611686018427387904)"]:
        out.append("f32[2,3]{1,0:%s}" % tiles)
    out += ["f32[]{:T(256)}", "f32[]{:T(0)}", "s4[8]{0:T(2)}", "pred[8]{0:T(32)(4,1)}"]
    # Element sizes.
    for ty, e in [("f32", "-4"), ("f32", "0"), ("f32", "32"), ("f32", "16"), ("f32", "64"), ("s4", "4"), ("s4", "8"),
                  ("s4", "2"), ("pred", "1"), ("pred", "8"), ("u2", "2"), ("f32", "9223372036854775808")]:
        out.append("%s[2,3]{1,0:E(%s)}" % (ty, e))
    # Memory space, tail padding alignment, dynamic metadata, split configs.
    for attr in ["S(0)", "S(1)", "S(-1)", "S(128)", "M(-5)", "M(0)", "M(8)", "L(1)", "L(4)", "L(0)", "L(-1)",
                 "SC(0:2)", "SC(1:1,2)", "SC(5:2)", "SC(-1:2)", "SC(0:2)SC(0:3)", "SC(1:2)SC(0:1)", "SC(0:)",
                 "#(s32)", "#(u8)", "*(s64)", "#(s32)*(s32)", "#(f32)"]:
        out.append("f32[4,6]{1,0:%s}" % attr)
    # Dimensions: dynamic, huge, zero.
    out += [
        "f32[<=4]", "f32[<=4]{0}", "f32[?]", "f32[?,3]{1,0}", "f32[<=0]", "f32[?]{0:T(2)}", "f32[<=3]{0:T(2)}",
        "f32[9223372036854775807]", "f32[9223372036854775807,2]", "f32[4611686018427387904,4]",
        "s8[3037000500,3037000500]", "f32[0,9223372036854775807]", "pred[9223372036854775807]",
        "f32[-1]", "f32[<=-1]", "f32[0]", "f32[1,1,1,1,1,1,1,1]",
        "s4[9223372036854775807]{0:E(4)}", "c128[576460752303423488]",
    ]
    # Non-array types and tuples.
    out += ["token[]", "opaque[]", "()", "(f32[2]{0}, s32[])", "(f32[2,3]{1,1})",
            "((f32[2]{0:E(-1)}), s8[])", "(f32[], (token[], opaque[]))", "b(f32[2]{0})", "b(f32[2,3]{1,1})",
            "token[2]", "opaque[2]", "f32[2]{0:T(-3)}", "(f32[2]{0:T(0)})", "(s32[], f32[2]{5})",
            "(f32[9223372036854775807,2])", "(f32[2]{0:#(s32)})", "(f32[2]{0:SC(3:1)})", "((f32[2,3]{0,1}), f32[])"]
    for d in dims:
        out.append(d)
    # Found by differential testing: split indices checked one at a time, a
    # zero size counted before the byte width, the first of several parse errors.
    out += ["s64[<=0,1]{0,1:SC(1:9,1)}", "u8[<=8,3,3,?]{3,0,1,2:SC(0:3,9,7)}", "c64[1,1]{1,0:SC(1:5,3,5)}",
            "(s64[<=4611686018427387904,0,2])", "f32[0,4611686018427387904]", "s64[4611686018427387904,0]",
            "c64[9223372036854775807,0,0,0,?,4611686018427387904]{5,0,2,4,3,1:SC(6:4)(2:0,8,0)}",
            "f64[3037000500,2,8,4]{2,1,0,3,4:#(u32)*(pred)M(8)}", "(f32[2]{0:T(*)}, f32[2]{0:T(0)})"]
    seen = set()
    return [x for x in out if not (x in seen or seen.add(x))]


def generate():
    runner = XlaWorker(__file__, TAG, CHECK_RE, lambda msg: {"stage": "crash", "crash": msg})
    rows = []
    try:
        cases = [({"text": t}, {"input": t}) for t in inputs()]
        cases += [({"hex": p.hex()}, {"proto": d, "hex": p.hex()}) for d, p in proto_inputs()]
        for request, row in cases:
            res = runner.run(request)
            row["stage"] = res["stage"]
            if "error" in res:
                code, _, message = res["error"].partition(": ")
                row["code"] = code
                if res["stage"] == "load":
                    row["message"] = message
                elif "message" in res:
                    row["message"] = res["message"]
            if "crash" in res:
                row["crash"] = res["crash"]
            rows.append(row)
    finally:
        runner.close()
    return {"validation.jsonl": rows}


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
        sys.exit(0)
    from golden_io import XlaWorker, run

    sys.exit(run(generate, __doc__))
