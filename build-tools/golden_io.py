"""Shared plumbing of the golden generators beside gen_golden.py: deterministic
JSON Lines output, the `--out` / `--check` command line, and the child process
that asks XLA what may abort it.

A generator module defines `generate() -> dict[str, list[dict]]` (file name to
rows, in order) and calls `run(generate, __doc__)`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden")


def jsonl_bytes(rows) -> bytes:
    """One `json.dumps(sort_keys=True, ensure_ascii=False)` line per row."""
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def run(generate, doc: str) -> int:
    """Writes the files of `generate()` to --out, or with --check compares them;
    the exit status: 1 if any file differs."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: tests/golden)")
    ap.add_argument("--check", action="store_true", help="regenerate in memory and compare with the files in --out")
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    files = generate()
    for name, rows in sorted(files.items()):
        print("%s: %d lines" % (name, len(rows)), file=sys.stderr)
    return 1 if write_or_check({n: jsonl_bytes(rows) for n, rows in files.items()}, args.out, args.check) else 0


def write_or_check(files: dict, out: str, check: bool) -> int:
    """Writes each `files[name]` (bytes) to `out/name`, or with `check`
    compares it with that file instead; the number of files that differ."""
    bad = 0
    for name, data in sorted(files.items()):
        path = os.path.join(out, name)
        if check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except FileNotFoundError:
                same = False
            if not same:
                print("DIFFERS: %s" % name, file=sys.stderr)
                bad += 1
        else:
            os.makedirs(out, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    if check:
        print("%d file(s) differ" % bad, file=sys.stderr)
    return bad


class XlaWorker:
    """`script --worker` in a child process, restarted when XLA aborts it.

    The child reads one JSON request per line and answers with one line that
    starts with `tag` followed by the JSON answer. Where the child dies
    instead, `run` returns `crash(message)`: the message is group 1 of the
    first line of the child's standard error that `check_re` matches (XLA's
    CHECK failure), else the exit code.
    """

    def __init__(self, script: str, tag: str, check_re, crash) -> None:
        self.script = os.path.abspath(script)
        self.tag = tag
        self.check_re = check_re
        self.crash = crash
        self.proc = None
        self.errf = None

    def run(self, request: dict) -> dict:
        if self.proc is None:
            self.errf = tempfile.TemporaryFile(mode="w+b")
            self.proc = subprocess.Popen(
                [sys.executable, self.script, "--worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errf,
                text=True,
                encoding="utf-8",
            )
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                self.proc.wait()
                self.errf.seek(0)
                msg = "process died with exit code %d" % self.proc.returncode
                for err_line in self.errf.read().decode("utf-8", "replace").splitlines():
                    m = self.check_re.match(err_line)
                    if m:
                        msg = m.group(1).rstrip()
                        break
                self.proc = None
                return self.crash(msg)
            if line.startswith(self.tag):
                return json.loads(line[len(self.tag) :])

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
