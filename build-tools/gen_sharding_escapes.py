"""Golden file of quoted strings in sharding text as real XLA (jaxlib 0.12) reads them.

Writes `tests/golden/sharding_escapes.jsonl`, rows shaped as those of
`sharding_text.jsonl` (`gen_sharding.py`): `{"input", "ok", "string", "hex", "reparse"}`
from `xc.HloSharding.from_string(input)`, or `{"input", "ok": false, "error"}` with XLA's
status text, or `"crash"` where XLA aborted the (child) process. The inputs are mesh axis
names and metadata strings with every kind of C escape XLA's lexer knows (absl's
`CUnescape`: the letters, octal, `\\x`, `\\u`, `\\U`) and the ones it refuses, and a few
one-word named forms followed by attributes, metadata naming a reduction
(`sdy::reduction_op`), named shardings naming theirs (`unreduced=max{...}`), and the
one-word forms of named shardings over meshes with axes of size 1.

Run with `/work/venv-jax/bin/python build-tools/gen_sharding_escapes.py [--check]`
(jax 0.12.0.1, jaxlib 0.12.0.1, Python 3.13).
"""

from __future__ import annotations

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_io import XlaWorker, run  # noqa: E402

TAG = "@@"
CHECK_RE = re.compile(r".*(Check failed: .*|terminate called .*|what\(\): .*)")

NAMES = [
    r"a\\b", r"a\b", r"a\nb", r"a\ab", r"a\?\v\f", r"a\t\r", r"a\'b", r"a\"b", r"a\x41", r"a\x4a", r"a\101",
    r"a\0", r"a\7b", r"a\u0041b", r"a\U0001F600b", r"a\u00e9", r"a\x41b", r"a\x", r"a\qb", r"a\777", r"a\u00",
    r"a\uD800", r"a\U00110000", "a\\", "a b", "",
]

OTHER = [
    r'{replicated metadata={op_name="a\x41b"}}', r'{replicated metadata={op_name="a\x41"}}',
    r'{replicated metadata={op_name="a\u0041"}}', r'{replicated metadata={op_name="a\nb"}}',
    "{mesh['z'=2,'y'=2], replicated, unreduced={'y'}}", "{mesh['x'=1,'y'=1,'z'=2]unreduced, manual={'y'}}",
    "{mesh['x'=2], manual, metadata={op_name=\"a\"}}",
    # Metadata naming a reduction: kept as written; to_proto appends the entry it reads.
    '{unreduced metadata={op_type="sdy::reduction_op" op_name="MAX"}}',
    '{replicated metadata={op_type="sdy::reduction_op" op_name="MAX"}}',
    '{replicated metadata={op_type="sdy::reduction_op" op_name="SUM"}}',
    '{unreduced metadata={{op_type="sdy::reduction_op" op_name="MIN"}, {op_name="a"}}}',
    '{devices=[2,4]<=[8] last_tile_dims={unreduced} metadata={op_type="sdy::reduction_op" op_name="PROD"}}',
    # A named sharding's reduction, `unreduced=max{...}`, and the one-word forms of a
    # sharding splitting no dimension, by the devices its axes span (size-1 axes).
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}}", "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced= min {'x'}}",
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=sum{'x'}}", "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{}}",
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}, unreduced=min{}}",
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}, unreduced={}}",
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}, unreduced=sum{}}",
    "{mesh['x'=8], unreduced=max}", "{mesh['x'=8], unreduced=min{'x'}}", "{mesh['x'=8], unreduced=sum}",
    "{mesh['x'=8], unreduced=max{}}", "{mesh['x'=2,'y'=4], unreduced=max{'x'}}", "{mesh['x'=2,'y'=4], unreduced{'x'}}",
    "{mesh['x'=2,'y'=4], device_ids=(7,6,5,4,3,2,1,0), unreduced=max}", "{mesh['x'=8], unreduced=max, metadata={op_name=\"a\"}}",
    "{mesh['x'=8], unreduced=prod}", "{mesh['x'=8], unreduced=Max}", "{mesh['x'=8], unreduced={'x'}}", "{mesh['x'=8], unreduced=}",
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=MAX{'x'}}", "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max}",
    "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=1{'x'}}",
    "{mesh['a'=1], []}", "{mesh['a'=1], [{}]}", "{mesh['a'=3,'b'=1], [], unreduced={'a', 'b'}}",
    "{mesh['a'=3,'b'=1], [], replicated={'b'}, unreduced={'a'}}", "{mesh['a'=3,'b'=1], unreduced{'a'}}",
    "{mesh['a'=3,'b'=1], [], replicated={'b'}, unreduced=max{'a'}}",
    "{mesh['a'=1,'b'=1], [], unreduced={'a'}, manual={'b'}}", "{mesh['a'=3,'b'=1], [], unreduced=min{'b'}, manual={'a'}}",
    "{mesh['a'=1], [], manual={'a'}}", "{mesh['a'=1,'b'=2], [], manual={'a'}}", "{mesh['a'=1,'b'=2], [], unreduced={'a'}}",
    "{mesh['a'=3,'b'=1], [{}], manual={'a'}}",
]


def worker() -> None:
    os.environ["JAX_PLATFORMS"] = "cpu"
    from jax._src.lib import xla_client as xc

    for line in sys.stdin:
        req = json.loads(line)
        try:
            s = xc.HloSharding.from_string(req["input"])
            data = s.to_proto().SerializeToString()
            op = xc.OpSharding()
            op.ParseFromString(data)
            res = {"ok": True, "string": s.to_string(), "hex": data.hex(),
                   "reparse": xc.HloSharding.from_proto(op).to_string()}
        except Exception as e:  # noqa: BLE001 -- XLA's status is the golden value
            res = {"ok": False, "error": str(e)}
        sys.stdout.write(TAG + json.dumps(res, ensure_ascii=False) + "\n")
        sys.stdout.flush()


def generate():
    runner = XlaWorker(__file__, TAG, CHECK_RE, lambda msg: {"ok": False, "crash": msg})
    rows = []
    for text in ["{mesh['%s'=2], [{}]}" % n for n in NAMES] + OTHER:
        rows.append({"input": text, **runner.run({"input": text})})
    runner.close()
    return {"sharding_escapes.jsonl": rows}


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        sys.exit(run(generate, __doc__))
