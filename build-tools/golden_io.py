"""Shared plumbing of the golden generators beside gen_golden.py: deterministic
JSON Lines output and the `--out` / `--check` command line.

A generator module defines `generate() -> dict[str, list[dict]]` (file name to
rows, in order) and calls `run(generate, __doc__)`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden")


def jsonl_bytes(rows) -> bytes:
    """One `json.dumps(sort_keys=True, ensure_ascii=False)` line per row."""
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def run(generate, doc: str) -> int:
    """Writes the files of `generate()` to --out, or with --check compares them."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: tests/golden)")
    ap.add_argument("--check", action="store_true", help="regenerate in memory and compare with the files in --out")
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    files = generate()
    bad = 0
    for name, rows in sorted(files.items()):
        data = jsonl_bytes(rows)
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except FileNotFoundError:
                same = False
            if not same:
                print("DIFFERS: %s" % name, file=sys.stderr)
                bad += 1
        else:
            with open(path, "wb") as f:
                f.write(data)
        print("%s: %d lines" % (name, len(rows)), file=sys.stderr)
    if args.check:
        print("%d file(s) differ" % bad, file=sys.stderr)
    return 1 if bad else 0
