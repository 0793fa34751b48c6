#!/usr/bin/env python3
"""Extract a FileDescriptorProto compiled into jaxlib's shared libraries.

Every `.proto` file that XLA's C++ code uses is compiled into jaxlib, and the
protobuf runtime keeps each one's serialized `FileDescriptorProto` as a byte
array in the shared library. This tool finds it (the bytes start with field 1,
`name`, holding the proto path), reads the message field by field until the
bytes stop looking like a `FileDescriptorProto`, and checks the result with
Google's python protobuf (it parses and re-serializes to the same bytes).

Usage (see build-tools/README.md):

    python build-tools/extract_descriptor.py                        # xla/xla_data.proto
    python build-tools/extract_descriptor.py xla/service/hlo.proto  # any other path
    python build-tools/extract_descriptor.py --check                # exit 1 if the files differ

It writes `tests/golden/descriptors/<stem>.binpb` (the serialized
FileDescriptorProto exactly as found) and `<stem>.json` (the jaxlib version, the
library it came from, and the descriptor in protobuf's JSON mapping with its
field names), or with `--stdout` only prints the JSON.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(REPO, "tests", "golden", "descriptors")

# FileDescriptorProto's fields (google/protobuf/descriptor.proto) and their
# wire types: 0 varint, 2 length-delimited.
FILE_DESCRIPTOR_FIELDS = {
    1: 2,  # name
    2: 2,  # package
    3: 2,  # dependency
    4: 2,  # message_type
    5: 2,  # enum_type
    6: 2,  # service
    7: 2,  # extension
    8: 2,  # options
    9: 2,  # source_code_info
    10: 0,  # public_dependency
    11: 0,  # weak_dependency
    12: 2,  # syntax
    14: 0,  # edition
    15: 2,  # option_dependency
}


def read_varint(data: bytes, pos: int, end: int) -> tuple[int, int] | None:
    """The varint at `pos` and the position after it, or None if malformed."""
    value = 0
    for shift in range(0, 70, 7):
        if pos >= end:
            return None
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
    return None


def descriptor_end(data: bytes, start: int) -> int:
    """Where the FileDescriptorProto starting at `start` ends: the first byte
    that does not begin a well-formed field of FileDescriptorProto."""
    pos = start
    end = len(data)
    while pos < end:
        tag = read_varint(data, pos, end)
        if tag is None:
            break
        key, after_tag = tag
        number, wire_type = key >> 3, key & 7
        if FILE_DESCRIPTOR_FIELDS.get(number) != wire_type:
            break
        value = read_varint(data, after_tag, end)
        if value is None:
            break
        length, after_value = value
        if wire_type == 2:
            if after_value + length > end:
                break
            after_value += length
        pos = after_value
    return pos


def candidates(data: bytes, proto_path: str):
    """Every offset where a FileDescriptorProto named `proto_path` may start."""
    name = proto_path.encode()
    marker = bytes([0x0A, len(name)]) + name
    pos = data.find(marker)
    while pos >= 0:
        yield pos
        pos = data.find(marker, pos + 1)


def extract(proto_path: str, libraries: list[str]):
    """(library, bytes) of the one descriptor of `proto_path` in `libraries`."""
    from google.protobuf import descriptor_pb2

    found: dict[bytes, str] = {}
    for library in libraries:
        with open(library, "rb") as f:
            data = f.read()
        for start in candidates(data, proto_path):
            end = descriptor_end(data, start)
            # The generated code keeps the descriptor as a C string: a NUL
            # follows it, so the fields did not run on into other data.
            if end >= len(data) or data[end] != 0:
                continue
            raw = data[start:end]
            message = descriptor_pb2.FileDescriptorProto()
            try:
                message.ParseFromString(raw)
            except Exception:  # noqa: BLE001 - not a descriptor after all
                continue
            # A real descriptor names its package and declares types, and
            # python protobuf writes it back to the very same bytes.
            if not message.package or message.SerializeToString() != raw:
                continue
            if not (message.message_type or message.enum_type or message.service):
                continue
            found.setdefault(raw, os.path.basename(library))
    if not found:
        raise SystemExit("no FileDescriptorProto named %s in %s" % (proto_path, ", ".join(libraries)))
    if len(found) > 1:
        raise SystemExit("%d different FileDescriptorProtos named %s" % (len(found), proto_path))
    raw, library = next(iter(found.items()))
    return library, raw


def type_count(message) -> tuple[int, int]:
    """(messages, enums) of a FileDescriptorProto, nested ones included."""
    messages = enums = 0
    stack = list(message.message_type)
    enums += len(message.enum_type)
    while stack:
        m = stack.pop()
        messages += 1
        enums += len(m.enum_type)
        stack.extend(m.nested_type)
    return messages, enums


def readable(raw: bytes, library: str) -> bytes:
    """The JSON file: versions, source, counts and the descriptor itself."""
    import jaxlib
    from google.protobuf import descriptor_pb2, json_format

    message = descriptor_pb2.FileDescriptorProto.FromString(raw)
    messages, enums = type_count(message)
    doc = {
        "jaxlib": jaxlib.__version__,
        "library": "jaxlib/" + library,
        "proto": message.name,
        "messages": messages,
        "enums": enums,
        "bytes": len(raw),
        "descriptor": json_format.MessageToDict(message, preserving_proto_field_name=True),
    }
    return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("proto", nargs="?", default="xla/xla_data.proto", help="proto path as compiled into XLA")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: tests/golden/descriptors)")
    ap.add_argument("--check", action="store_true", help="extract again and compare with the files in --out")
    ap.add_argument("--stdout", action="store_true", help="print the JSON form only, write nothing")
    args = ap.parse_args()

    import jaxlib

    jaxlib_dir = os.path.dirname(jaxlib.__file__)
    libraries = sorted(glob.glob(os.path.join(jaxlib_dir, "**", "*.so"), recursive=True))
    library, raw = extract(args.proto, libraries)
    text = readable(raw, library)
    if args.stdout:
        sys.stdout.buffer.write(text)
        return 0
    stem = os.path.splitext(os.path.basename(args.proto))[0]
    files = {stem + ".binpb": raw, stem + ".json": text}
    bad = write_or_check(files, args.out, args.check)
    from google.protobuf import descriptor_pb2

    messages, enums = type_count(descriptor_pb2.FileDescriptorProto.FromString(raw))
    print(
        "%s: %d bytes from jaxlib %s %s, %d messages + %d enums"
        % (args.proto, len(raw), jaxlib.__version__, library, messages, enums),
        file=sys.stderr,
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
