"""Prints the opcodes XLA's HLO parser accepts, one per line, sorted: the list
in crates/hlo-util/src/opcodes.rs.

Every word of lowercase letters, digits and dashes found in jaxlib's
libjax_common.so is offered to XLA's parser
(`xla_client.hlo.hlo_module_from_text`) as the opcode of an instruction whose
operand list is broken (`ROOT x = f32[] WORD(,,`): a word XLA does not know
fails at the word with `expects opcode` (or, for `WORD-start`, `-update`,
`-done`, `expects async wrapped opcode`); an opcode fails later, at the
operands. XLA reads `OPCODE-start`, `OPCODE-update` and `OPCODE-done` as the
async forms of any opcode: those are left out of the list (the reader accepts
them by that rule). Some opcodes make the parser abort (a CHECK failure), so the words
are tried in a child process that is restarted after the word it died on
(which is an opcode: the parser got past it).

    /work/venv-xla/bin/python build-tools/gen_hlo_opcodes.py > /tmp/opcodes.txt

Versions used for the committed list: jax/jaxlib 0.12.0.1 (137 opcodes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys


def words():
    import jaxlib

    path = os.path.join(os.path.dirname(jaxlib.__file__), "libjax_common.so")
    data = open(path, "rb").read()
    return sorted({w.decode() for w in re.findall(rb"(?<![A-Za-z0-9_-])[a-z][a-z0-9-]{1,40}(?![A-Za-z0-9_-])", data)})


def worker(candidates):
    from jax._src.lib import xla_client as xc

    for word in candidates:
        print("TRY " + word, flush=True)
        try:
            xc.hlo.hlo_module_from_text("HloModule m\nENTRY e {\n ROOT x = f32[] %s(,,\n}\n" % word)
            verdict = "OPCODE"
        except Exception as e:  # XLA's answer decides.
            verdict = "NO" if "was parsing 3:17: error: expects" in str(e) else "OPCODE"
        print("%s %s" % (verdict, word), flush=True)


def main():
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.stdin.read().split())
        return 0
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    pending = words()
    found = set()
    while pending:
        child = subprocess.run([sys.executable, __file__, "--worker"], input="\n".join(pending),
                               capture_output=True, text=True)
        done = set()
        last = None
        for line in child.stdout.splitlines():
            verdict, word = line.split(" ", 1)
            if verdict == "TRY":
                last = word
            else:
                done.add(word)
                if verdict == "OPCODE":
                    found.add(word)
        if child.returncode == 0:
            break
        if last is None or last in done:
            raise SystemExit("the worker died before trying a word: " + child.stderr[-500:])
        found.add(last)  # The parser aborted after reading it as an opcode.
        pending = pending[pending.index(last) + 1:]
    suffixes = ("-start", "-update", "-done")
    base = {w for w in found if not any(w.endswith(s) and w[: -len(s)] in found for s in suffixes)}
    print("\n".join(sorted(base)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
