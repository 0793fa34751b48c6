"""Writes tests/golden/literals.jsonl: XLA literals (HLO `constant(...)`) as
real XLA parses, prints and serializes them.

Two paths into XLA's literal code, both in a child process (`--worker`,
restarted if XLA aborts):

* `hlo` rows: an HLO module with one constant written in HLO text, parsed by
  XLA's HLO parser (`hlo_module_from_text`). XLA prints it back
  (`HloModule.to_string` with `print_large_constants`, i.e.
  `Literal::ToStringWithoutShapeOneline`) and serializes it
  (`as_serialized_hlo_module_proto`, where `HloInstructionProto.literal`
  holds `Literal::ToProto()`). Where the CPU client can hold the array, the
  same values are also placed on the device under the literal's layout and
  the device buffer is read raw (`device_shape`, `device_hex`).
* `proto` rows: a LiteralProto written field by field (bit patterns: every
  value of the 8-bit and smaller float types, NaN payloads, subnormals, odd
  sizes), put in place of the constant's literal in a module proto, and loaded
  by `HloModule.from_serialized_hlo_module_proto` (`Literal::CreateFromProto`).
  XLA prints what it loaded and serializes it again (`ToProto`), or says why
  it refused (`error`).

The LiteralProto schema is jaxlib's own: the serialized `xla/xla_data.proto`
and `xla/service/hlo.proto` descriptors compiled into `libjax_common.so` are
cut out of the library, and the field numbers used here are checked against
them.

    /work/venv-xla/bin/python build-tools/gen_literals.py          # rewrite
    /work/venv-xla/bin/python build-tools/gen_literals.py --check  # compare
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import struct
import sys

TAG = "@@literal@@ "
CHECK_RE = re.compile(r"^F\d{4} [\d:. ]+\d+ (\S+\] .*)$")
COMPUTATIONS, INSTRUCTIONS, INSTR_LITERAL, INSTR_SHAPE = 3, 2, 8, 3


# ---------------------------------------------------------------------------
# jaxlib's own schema, cut out of the shared library.


def _varint(buf: bytes, i: int):
    value = shift = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def extract_descriptor(library: bytes, name: str):
    """The serialized FileDescriptorProto `name` inside `library`: it starts
    with field 1 (the file name) and runs while the fields are those of a
    FileDescriptorProto (numbers 1-14, varint or length-delimited)."""
    from google.protobuf import descriptor_pb2

    key = b"\x0a" + bytes([len(name)]) + name.encode()
    start = library.find(key)
    if start < 0:
        sys.exit("no %s descriptor in jaxlib" % name)
    i = start
    while i < len(library):
        tag, j = _varint(library, i)
        number, wire = tag >> 3, tag & 7
        if not 1 <= number <= 14 or wire not in (0, 2):
            break
        value, j = _varint(library, j)
        i = j + (value if wire == 2 else 0)
    return descriptor_pb2.FileDescriptorProto.FromString(library[start:i])


def jaxlib_schema():
    """(LiteralProto class, ShapeProto class) of jaxlib's compiled schema."""
    import jaxlib
    from google.protobuf import descriptor_pool, message_factory

    path = os.path.join(os.path.dirname(jaxlib.__file__), "libjax_common.so")
    with open(path, "rb") as f:
        library = f.read()
    data = extract_descriptor(library, "xla/xla_data.proto")
    hlo = extract_descriptor(library, "xla/service/hlo.proto")
    fields = {
        (m.name, f.name): (f.number, f.type_name)
        for m in hlo.message_type
        for f in m.field
    }
    expected = {
        ("HloModuleProto", "computations"): (COMPUTATIONS, ".xla.HloComputationProto"),
        ("HloComputationProto", "instructions"): (INSTRUCTIONS, ".xla.HloInstructionProto"),
        ("HloInstructionProto", "literal"): (INSTR_LITERAL, ".xla.LiteralProto"),
        ("HloInstructionProto", "shape"): (INSTR_SHAPE, ".xla.ShapeProto"),
    }
    for key, want in expected.items():
        if fields.get(key) != want:
            sys.exit("hlo.proto field %s is %s, not %s" % (key, fields.get(key), want))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(data)
    literal = message_factory.GetMessageClass(pool.FindMessageTypeByName("xla.LiteralProto"))
    shape = message_factory.GetMessageClass(pool.FindMessageTypeByName("xla.ShapeProto"))
    return literal, shape


# ---------------------------------------------------------------------------
# The cases.

# XLA name -> (ml_dtypes/numpy dtype name, LiteralProto field).
TYPES = {
    "pred": ("bool", "preds"),
    "s1": ("int1", "s1s"),
    "s2": ("int2", "s2s"),
    "s4": ("int4", "s4s"),
    "s8": ("int8", "s8s"),
    "s16": ("int16", "s16s"),
    "s32": ("int32", "s32s"),
    "s64": ("int64", "s64s"),
    "u1": ("uint1", "u1s"),
    "u2": ("uint2", "u2s"),
    "u4": ("uint4", "u4s"),
    "u8": ("uint8", "u8s"),
    "u16": ("uint16", "u16s"),
    "u32": ("uint32", "u32s"),
    "u64": ("uint64", "u64s"),
    "f16": ("float16", "f16s"),
    "bf16": ("bfloat16", "bf16s"),
    "f32": ("float32", "f32s"),
    "f64": ("float64", "f64s"),
    "c64": ("complex64", "c64s"),
    "c128": ("complex128", "c128s"),
    "f8e5m2": ("float8_e5m2", "f8e5m2s"),
    "f8e4m3": ("float8_e4m3", "f8e4m3s"),
    "f8e4m3fn": ("float8_e4m3fn", "f8e4m3fns"),
    "f8e4m3b11fnuz": ("float8_e4m3b11fnuz", "f8e4m3b11fnuzs"),
    "f8e5m2fnuz": ("float8_e5m2fnuz", "f8e5m2fnuzs"),
    "f8e4m3fnuz": ("float8_e4m3fnuz", "f8e4m3fnuzs"),
    "f8e3m4": ("float8_e3m4", "f8e3m4s"),
    "f8e8m0fnu": ("float8_e8m0fnu", "f8e8m0fnus"),
    "f4e2m1fn": ("float4_e2m1fn", "f4e2m1fns"),
    "f6e2m3fn": ("float6_e2m3fn", "f6e2m3fns"),
    "f6e3m2fn": ("float6_e3m2fn", "f6e3m2fns"),
}
SUB_BYTE_BITS = {"s1": 1, "s2": 2, "s4": 4, "u1": 1, "u2": 2, "u4": 4, "f4e2m1fn": 4}


def np_dtype(name: str):
    import ml_dtypes
    import numpy as np

    dtype = TYPES[name][0]
    return np.dtype(getattr(ml_dtypes, dtype, None) or dtype)


def sample_values(name: str, count: int, rng: random.Random):
    """`count` values of type `name` (as a numpy array): a few special ones
    first, then seeded random ones."""
    import numpy as np

    dtype = np_dtype(name)
    if name == "pred":
        return np.array([rng.random() < 0.5 for _ in range(count)], dtype=dtype)
    if name[0] in "su" and name[1:].isdigit():
        bits, signed = int(name[1:]), name[0] == "s"
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        vals = ([lo, hi, 0, 1] + [rng.randint(lo, hi) for _ in range(count)])[:count]
        return np.array(vals, dtype=np.uint64 if name == "u64" else np.int64).astype(dtype)
    if dtype.kind == "c":
        real = sample_values("f64" if name == "c128" else "f32", 2 * count, rng)
        return (real[0::2] + 1j * real[1::2]).astype(dtype)
    # Floating point: all bit patterns are values; pick specials then random
    # finite values of varied magnitude.
    finfo = float_info(name)
    special = [1.0, -2.5, 0.0, -0.0, finfo["max"], finfo["tiny"], finfo["smallest"], 0.1, 1e-5, 123456.0]
    vals = []
    for v in special:
        vals.append(v)
    while len(vals) < count:
        vals.append(rng.choice([-1, 1]) * math.ldexp(rng.random(), rng.randint(finfo["minexp"], finfo["maxexp"])))
    arr = np.array(vals[:count], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        out = arr.astype(dtype)
    # Types without infinity saturate or give NaN on overflow; keep finite.
    return np.where(np.isfinite(out.astype(np.float64)), out, np.array(1.0, dtype=dtype)).astype(dtype)


def float_info(name: str):
    import ml_dtypes
    import numpy as np

    fi = ml_dtypes.finfo(np_dtype(name)) if name not in ("f32", "f64", "f16") else np.finfo(np_dtype(name))
    return {
        "max": float(fi.max),
        "tiny": float(fi.smallest_normal),
        "smallest": float(fi.smallest_subnormal),
        "minexp": int(fi.minexp) - 2,
        "maxexp": int(fi.maxexp) - 1,
    }


def value_text(name: str, v) -> str:
    """One element as HLO text (exact: the parser reads a double and converts)."""
    import numpy as np

    if name == "pred":
        return "true" if bool(v) else "false"
    dtype = np_dtype(name)
    if dtype.kind == "c":
        return "(%s, %s)" % (float_text(float(v.real)), float_text(float(v.imag)))
    if name[0] in "su" and name[1:].isdigit():
        return str(int(v))
    return float_text(float(np.float64(v)))


def float_text(x: float) -> str:
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return repr(x)


def array_text(name: str, dims, values) -> str:
    """Nested braces in row-major (logical) order."""
    if not dims:
        return value_text(name, values.reshape(())[()])
    arr = values.reshape(dims)

    def rec(a, depth):
        if depth == len(dims):
            return value_text(name, a[()])
        return "{" + ",".join(rec(a[i], depth + 1) for i in range(a.shape[0])) + "}"

    return rec(arr, 0)


def shape_text(name: str, dims, layout: str) -> str:
    return "%s[%s]%s" % (name, ",".join(map(str, dims)), layout)


def hlo_cases():
    """(shape text, constant text, numpy values or None, layout major_to_minor or None)."""
    rng = random.Random(21)
    cases = []

    def add(name, dims, layout="", device=True):
        values = sample_values(name, math.prod(dims), rng)
        m2m = None
        if device:
            minor_to_major = [int(x) for x in re.match(r"\{([\d,]*)", layout).group(1).split(",") if x] if layout else list(reversed(range(len(dims))))
            m2m = list(reversed(minor_to_major))
        cases.append((shape_text(name, dims, layout), array_text(name, dims, values), values.reshape(dims), m2m))

    for name in TYPES:
        add(name, [])
        add(name, [5])
        add(name, [2, 3], "{1,0}")
        add(name, [2, 3], "{0,1}")
        add(name, [2, 3, 4], "{0,2,1}")
        add(name, [0, 3], "{1,0}")
    for name in ["f32", "s8", "pred", "bf16", "c64", "s4", "u16"]:
        add(name, [2, 1, 2, 3], "{1,3,0,2}")
        add(name, [3, 4], "{1,0:T(2,2)}", device=False)
        add(name, [3, 4], "{0,1:T(2,2)}", device=False)
        add(name, [1, 1, 1, 1, 1], "{0,1,2,3,4}")
        add(name, [2, 0, 2], "{2,1,0}")
    add("bf16", [4, 3], "{1,0:T(8,128)(2,1)}", device=False)
    add("s4", [4, 5], "{0,1:E(4)}")
    add("u4", [9], "{0:E(4)}")
    add("s2", [3, 3], "{1,0:T(2,2)(4,1)E(2)}", device=False)
    add("f32", [4], "{0:S(1)}", device=False)
    add("f32", [4, 2, 3, 2, 2, 3], "{5,4,3,2,1,0}")
    # Numbers at the edges of %g's fixed and exponent forms, and rounding.
    for name, vals in [
        ("f32", [1e-5, 1e-4, 0.0001234, 99999.0, 999999.0, 1e6, 1234567.0, 3.4028235e38, 1.1754944e-38, 1e-45, 0.1, 1 / 3, 16777216.0, 16777217.0]),
        ("f64", [1e-5, 1e-4, 1e15, 1e16, 1e17, 0.1, 1 / 3, 2 ** 53 + 1.0, 1.7976931348623157e308, 5e-324, 123456789012345678.0, 2.5, 0.3]),
        ("f16", [65504.0, 6.1035156e-05, 5.9604645e-08, 0.1, 1000.0, 2049.0]),
        ("bf16", [3.3895314e38, 0.1, 1000.0, 257.0, 1e-10]),
    ]:
        values = np_array(name, vals)
        cases.append((shape_text(name, [len(vals)], ""), array_text(name, [len(vals)], values), values, [0]))
    specials = {
        "f32": ["nan", "-nan", "inf", "-inf", "nan(0x1234)", "-nan(0x7fffff)", "nan(0x1)"],
        "f64": ["nan", "-nan", "inf", "-inf", "nan(0x1234)", "-nan(0xfffffffffffff)"],
        "f16": ["nan", "-inf", "nan(0x3)"],
        "bf16": ["nan", "-inf", "-nan(0x1)"],
        "c64": ["(nan, inf)", "(-0, -nan)"],
    }
    for name, vals in specials.items():
        cases.append((shape_text(name, [len(vals)], ""), "{" + ", ".join(vals) + "}", None, None))
    # Tuples, nested and empty; a tiled element.
    cases.append(("(f32[], (s8[2], pred[]), ())", "(1.5, ({3, -4}, true), ())", None, None))
    cases.append(("()", "()", None, None))
    cases.append(("(bf16[3,2]{0,1:T(2,2)}, u4[3], c128[])", "({{1,2},{3,4},{5,6}}, {1, 2, 15}, (0.5, -1))", None, None))
    cases.append(("(pred[2,2], (f64[1]))", "({{true, false},{false,true}}, ({-0.0}))", None, None))
    return cases


def np_array(name, vals):
    import numpy as np

    return np.array(vals, dtype=np.float64).astype(np_dtype(name))


def bit_patterns(name: str):
    """Every bit pattern of a type of at most 8 bits; a selection otherwise."""
    bits = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(name)
    if bits is None:
        width = SUB_BYTE_BITS.get(name, 6 if name.startswith("f6") else 8)
        return list(range(1 << width))
    rng = random.Random(bits)
    exp_bits = {16: 5, 32: 8, 64: 11}[bits] if name != "bf16" else 8
    mant = bits - 1 - exp_bits
    top = ((1 << exp_bits) - 1) << mant
    out = [0, 1 << (bits - 1), 1, (1 << mant) - 1, 1 << mant, top - 1, top, top | 1, top | (1 << (mant - 1)),
           top | ((1 << mant) - 1), (1 << (bits - 1)) | top | 5, (1 << (bits - 1)) | top | (1 << (mant - 1)),
           (1 << (bits - 1)) | 1, (1 << (bits - 1)) | (top - 1)]
    out += [rng.getrandbits(bits) for _ in range(120 if bits > 16 else 200)]
    return out


def proto_cases(LP, SP):
    """(description, LiteralProto bytes, shape text for the base module)."""
    cases = []

    def shape(name, dims, m2m=None, extra=""):
        m2m = list(reversed(range(len(dims)))) if m2m is None else m2m
        text = "element_type: %s %s layout { %s %s tail_padding_alignment_in_elements: 1 } %s" % (
            name.upper(), " ".join("dimensions: %d" % d for d in dims), " ".join("minor_to_major: %d" % d for d in m2m),
            extra, " ".join("is_dynamic_dimension: false" for _ in dims))
        from google.protobuf import text_format

        return text_format.Parse(text, SP())

    def lit(name, dims, m2m=None, **fields):
        msg = LP()
        msg.shape.CopyFrom(shape(name, dims, m2m))
        for k, v in fields.items():
            if isinstance(v, (bytes, bytearray)):
                setattr(msg, k, bytes(v))
            else:
                getattr(msg, k).extend(v)
        return msg

    def layout_text(dims, m2m):
        if not dims:
            return ""
        return "{%s}" % ",".join(map(str, m2m if m2m is not None else reversed(range(len(dims)))))

    def add(desc, name, dims, m2m=None, **fields):
        cases.append((desc, lit(name, dims, m2m, **fields).SerializeToString(), shape_text(name, dims, layout_text(dims, m2m))))

    # Every value of the small float types, as bytes.
    for name in ["f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e3m4", "f8e8m0fnu",
                 "f4e2m1fn", "f6e2m3fn", "f6e3m2fn"]:
        pats = bit_patterns(name)
        add("every %s bit pattern" % name, name, [len(pats)], **{TYPES[name][1]: bytes(pats)})
    for name in ["f16", "bf16"]:
        pats = bit_patterns(name)
        add("%s bit patterns" % name, name, [len(pats)], **{TYPES[name][1]: b"".join(struct.pack("<H", p) for p in pats)})
    for name, fmt, ctype in [("f32", "<I", "<f"), ("f64", "<Q", "<d")]:
        pats = bit_patterns(name)
        vals = [struct.unpack(ctype, struct.pack(fmt, p))[0] for p in pats]
        add("%s bit patterns" % name, name, [len(vals)], **{TYPES[name][1]: vals})
    f32p = [struct.unpack("<f", struct.pack("<I", p))[0] for p in bit_patterns("f32")[:40]]
    add("c64 bit patterns", "c64", [20], c64s=f32p)
    f64p = [struct.unpack("<d", struct.pack("<Q", p))[0] for p in bit_patterns("f64")[:40]]
    add("c128 bit patterns", "c128", [4, 5], [0, 1], c128s=f64p)
    # Sub-byte integers: one element per byte, whatever the high bits hold.
    for name in ["s1", "s2", "s4", "u1", "u2", "u4"]:
        add("%s every byte" % name, name, [16, 16], [0, 1], **{TYPES[name][1]: bytes(range(256))})
    add("s8 every byte", "s8", [256], s8s=bytes(range(256)))
    add("u8 every byte", "u8", [256], u8s=bytes(range(256)))
    add("s16 in a column-major rank 3", "s16", [2, 3, 4], [0, 1, 2], s16s=b"".join(struct.pack("<h", v) for v in range(-12, 12)))
    add("u16 extremes", "u16", [4], u16s=struct.pack("<4H", 0, 1, 0x8000, 0xFFFF))
    add("s32 extremes", "s32", [4], s32s=[-(1 << 31), (1 << 31) - 1, 0, -1])
    add("s64 extremes", "s64", [4], s64s=[-(1 << 63), (1 << 63) - 1, 0, -1])
    add("u32 extremes", "u32", [3], u32s=[0, 1, (1 << 32) - 1])
    add("u64 extremes", "u64", [3], u64s=[0, 1, (1 << 64) - 1])
    add("pred rank 2 in {0,1}", "pred", [2, 3], [0, 1], preds=[True, False, False, True, True, False])
    add("pred scalar", "pred", [], preds=[False])
    add("f32 scalar", "f32", [], f32s=[-0.0])
    # Data that does not fit the shape.
    add("f32 short", "f32", [2, 3], f32s=[1, 2, 3, 4, 5])
    add("f32 long", "f32", [2, 3], f32s=[1, 2, 3, 4, 5, 6, 7])
    add("f32 without data", "f32", [2, 3])
    add("f32 data in s32s", "f32", [2], s32s=[1, 2])
    add("pred short", "pred", [3], preds=[True])
    add("c64 odd count", "c64", [2], c64s=[1, 2, 3])
    add("c128 long", "c128", [1], c128s=[1, 2, 3, 4])
    add("u8 short", "u8", [4], u8s=b"\x01\x02\x03")
    add("s8 long", "s8", [2], s8s=b"\x01\x02\x03")
    add("bf16 odd byte count", "bf16", [2], bf16s=b"\x01\x02\x03")
    add("f16 short", "f16", [3], f16s=b"\x00\x3c\x00\x3c")
    add("u16 long", "u16", [1], u16s=b"\x01\x00\x02\x00")
    add("s4 packed two per byte", "s4", [4], s4s=b"\x21\x43")
    add("f8e4m3fn long", "f8e4m3fn", [2], f8e4m3fns=b"\x01\x02\x03")
    add("s64 short", "s64", [3], s64s=[1])
    add("zero-size f32 without data", "f32", [0, 4])
    add("zero-size s8 without data", "s8", [4, 0], [0, 1])
    # The shape itself.
    msg = LP()
    msg.f32s.extend([1, 2])
    cases.append(("no shape", msg.SerializeToString(), "f32[2]{0}"))
    msg = LP()
    msg.shape.CopyFrom(shape("s4", [4], None, "element_size_in_bits: 4"))
    msg.s4s = b"\x01\x02\x03\x04"
    cases.append(("s4 shape with E(4)", msg.SerializeToString(), "s4[4]{0}"))
    msg = LP()
    msg.shape.CopyFrom(shape("s4", [4], None, "element_size_in_bits: 4"))
    msg.s4s = b"\x21\x43"
    cases.append(("s4 shape with E(4), packed data", msg.SerializeToString(), "s4[4]{0}"))
    msg = LP()
    msg.shape.CopyFrom(shape("f32", [2, 3], None, "tiles { dimensions: 2 dimensions: 2 }"))
    msg.f32s.extend(range(8))
    cases.append(("tiled f32 with the tile padding's 8 values", msg.SerializeToString(), "f32[2,3]{1,0:T(2,2)}"))
    msg.ClearField("f32s")
    msg.f32s.extend(range(6))
    cases.append(("tiled f32 with 6 values", msg.SerializeToString(), "f32[2,3]{1,0:T(2,2)}"))
    # Tuples.
    t = LP()
    t.shape.element_type = 13  # TUPLE
    a = lit("f32", [2], f32s=[1, 2])
    b = lit("s4", [3], s4s=b"\x01\x0f\x08")
    t.shape.tuple_shapes.add().CopyFrom(a.shape)
    t.shape.tuple_shapes.add().CopyFrom(b.shape)
    t.tuple_literals.add().CopyFrom(a)
    t.tuple_literals.add().CopyFrom(b)
    cases.append(("tuple (f32[2], s4[3])", t.SerializeToString(), "(f32[2]{0}, s4[3]{0})"))
    short = LP()
    short.CopyFrom(t)
    del short.tuple_literals[1]
    cases.append(("tuple with one literal missing", short.SerializeToString(), "(f32[2]{0}, s4[3]{0})"))
    bad = LP()
    bad.CopyFrom(t)
    bad.tuple_literals[0].ClearField("f32s")
    bad.tuple_literals[0].f32s.extend([1, 2, 3])
    cases.append(("tuple element with 3 values for 2", bad.SerializeToString(), "(f32[2]{0}, s4[3]{0})"))
    return cases


# ---------------------------------------------------------------------------
# The worker: every XLA call happens here.


def module_text(shape: str, value: str) -> str:
    return "HloModule m\n\nENTRY e {\n  ROOT c = %s constant(%s)\n}\n" % (shape, value)


def rewrite_literal(module: bytes, literal: bytes) -> bytes:
    from gen_validation import rewrite

    return rewrite(module, {COMPUTATIONS: {INSTRUCTIONS: {INSTR_LITERAL: None}}}, literal)


def constant_fields(module: bytes):
    """(instruction ShapeProto bytes, LiteralProto bytes) of the one constant."""
    from gen_golden import wire_fields

    for number, _, computation in wire_fields(module):
        if number != COMPUTATIONS:
            continue
        for n2, _, instruction in wire_fields(computation):
            if n2 != INSTRUCTIONS:
                continue
            fields = {}
            for n3, _, value in wire_fields(instruction):
                fields.setdefault(n3, value)
            if fields.get(2) == b"constant":
                return fields.get(INSTR_SHAPE, b""), fields.get(INSTR_LITERAL, b"")
    raise ValueError("no constant in the module")


def printed(module) -> tuple[str, str]:
    """(shape with layout, literal text) of the ROOT constant as XLA prints it."""
    from jaxlib import _hlo

    options = _hlo.HloPrintOptions()
    options.print_large_constants = True
    for line in module.to_string(options).splitlines():
        m = re.match(r"\s*ROOT %c = (.*?) constant\((.*)\)$", line)
        if m:
            return m.group(1), m.group(2)
    raise ValueError("no constant line")


def worker() -> None:
    from jaxlib import _hlo

    for line in sys.stdin:
        req = json.loads(line)
        try:
            module = _hlo.hlo_module_from_text(module_text(req["shape"], req["value"]))
            data = module.as_serialized_hlo_module_proto()
            if "literal" in req:
                module = _hlo.HloModule.from_serialized_hlo_module_proto(
                    rewrite_literal(data, bytes.fromhex(req["literal"])))
                data = module.as_serialized_hlo_module_proto()
            shape, text = printed(module)
            _, literal = constant_fields(data)
            res = {"shape": shape, "text": text, "hex": literal.hex()}
        except Exception as e:  # noqa: BLE001 -- XLA's status is the golden value
            res = {"error": str(e)}
        sys.stdout.write(TAG + json.dumps(res) + "\n")
        sys.stdout.flush()




# ---------------------------------------------------------------------------
# Device buffers.


def device_buffer(values, m2m, name):
    """(device shape string, device bytes) of `values` placed on the CPU device
    under the layout `m2m` (major to minor), or None where jax cannot."""
    import jax
    from jax.experimental.layout import Format, Layout

    from gen_memory_order import raw_bytes, xla_string

    device = jax.devices("cpu")[0]
    try:
        y = jax.device_put(values, Format(Layout(major_to_minor=tuple(m2m)), jax.sharding.SingleDeviceSharding(device)))
        y.block_until_ready()
    except Exception:  # noqa: BLE001 -- a dtype or layout the CPU client refuses
        return None
    data = raw_bytes(y)
    bits = SUB_BYTE_BITS.get(name)
    count = values.size
    if bits:
        # Packed, low bits first; bytes and bits past the last element are
        # not written (see gen_memory_order.py): cut off and zeroed.
        packed = math.ceil(count * bits / 8)
        data = bytearray(data[:packed])
        spare = packed * 8 - count * bits
        if spare:
            data[-1] &= 0xFF >> spare
        data = bytes(data)
    return xla_string(name, list(values.shape), str(y._pjrt_layout)), data


def generate():
    import jax

    jax.config.update("jax_enable_x64", True)
    LP, SP = jaxlib_schema()
    from google.protobuf import text_format

    runner = XlaWorker(__file__, TAG, CHECK_RE, lambda msg: {"crash": msg})
    rows = []
    try:
        for shape, value, values, m2m in hlo_cases():
            res = runner.run({"shape": shape, "value": value})
            row = {"kind": "hlo", "input": "%s constant(%s)" % (shape, value)}
            if "error" in res or "crash" in res:
                # F6 types: the parser and printer know them, ToProto aborts.
                rows.append(row | {k: v.strip() for k, v in res.items()})
                continue
            row.update(shape=res["shape"], text=res["text"], hex=res["hex"])
            # The message must be one our schema reads back to the same bytes.
            msg = LP.FromString(bytes.fromhex(res["hex"]))
            if msg.SerializeToString() != bytes.fromhex(res["hex"]):
                sys.exit("LiteralProto of %s does not re-serialize" % row["input"])
            row["proto_text"] = text_format.MessageToString(msg, as_one_line=True)
            if values is not None and m2m is not None and values.ndim > 0 and shape[:2] not in ("s1", "u1"):
                dev = device_buffer(values, m2m, shape.split("[")[0])
                if dev is not None:
                    row["device_shape"], data = dev
                    row["device_hex"] = data.hex()
            rows.append(row)
        base = {}
        for desc, literal, shape in proto_cases(LP, SP):
            if shape not in base:
                base[shape] = zeros_text(shape)
            res = runner.run({"shape": shape, "value": base[shape], "literal": literal.hex()})
            row = {"kind": "proto", "description": desc, "input_hex": literal.hex()}
            if "error" in res:
                row["error"] = res["error"].strip()
            elif "crash" in res:
                row["crash"] = res["crash"]
            else:
                row.update(shape=res["shape"], text=res["text"], hex=res["hex"])
            rows.append(row)
    finally:
        runner.close()
    return {"literals.jsonl": rows}


def zeros_text(shape: str) -> str:
    """A constant of zeros for `shape` (arrays and tuples) in HLO text."""
    shape = re.sub(r"\{[^{}]*\}", "", shape)  # layouts

    def parse(s, i):
        if s[i] == "(":
            i += 1
            parts = []
            while s[i] != ")":
                text, i = parse(s, i)
                parts.append(text)
                while s[i] in ", ":
                    i += 1
            return "(" + ", ".join(parts) + ")", i + 1
        m = re.compile(r"(\w+)\[([\d,]*)\]").match(s, i)
        name, dims = m.group(1), [int(d) for d in m.group(2).split(",") if d]
        zero = {"pred": "false", "c64": "(0, 0)", "c128": "(0, 0)", "f8e8m0fnu": "1"}.get(name, "0")

        def rec(k):
            if k == len(dims):
                return zero
            return "{" + ",".join(rec(k + 1) for _ in range(dims[k])) + "}"

        return rec(0), m.end()

    return parse(shape, 0)[0]


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if "--worker" in sys.argv:
        worker()
        sys.exit(0)
    from golden_io import XlaWorker, run

    sys.exit(run(generate, __doc__))
