"""Golden files for sharding (crates/sharding-util) from real XLA (jaxlib 0.12).

Writes to tests/golden/:

* `sharding_text.jsonl`: `{"input", "ok", "string", "hex", "reparse", "error", "crash"}` for
  hand-picked and random sharding strings. `string` is
  `xc.HloSharding.from_string(input).to_string()`, `hex` the bytes of `to_proto()`,
  `reparse` is `from_proto(to_proto()).to_string()`; `error` is XLA's status text,
  `crash` the CHECK message when XLA aborted the (child) process.
  Named (mesh-axes) inputs also have `v2`: `v3_to_v2_sharding().to_string()` (asked in a second
  request, so that a crash there cannot hide the text row), or `v2_error`/`v2_crash`.
* `sharding_indices.jsonl`: `{"sharding", "dims", "devices": [[[start, stop], ...] per device]}`:
  jax's `op_sharding_to_indices` (what `devices_indices_map` uses) over 8 devices, for
  shapes that divide evenly.
* `sharding_spmd.jsonl`: `{"shape", "sharding", "shard_shape", "error", "crash"}`: the parameter
  shape of a module compiled over 8 partitions with SPMD partitioning (HLO text with
  `sharding=` on the parameter -> `hlo_to_stablehlo` -> `compile_and_load`), or the error.

Every XLA call runs in a child process (`--worker`) that is restarted when XLA aborts.
Run with `/work/venv-xla/bin/python build-tools/gen_sharding.py [--check]`; it sets
`XLA_FLAGS=--xla_force_host_platform_device_count=8` itself.
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
PARAM_RE = re.compile(r"parameter\(0\)")


def worker() -> None:
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import numpy as np
    from jax._src import op_shardings
    from jax._src.lib import _jax
    from jax._src.lib import xla_client as xc

    def text(req):
        s = xc.HloSharding.from_string(req["input"])
        proto = s.to_proto()
        data = proto.SerializeToString()
        op = xc.OpSharding()
        op.ParseFromString(data)
        return {"ok": True, "string": s.to_string(), "hex": data.hex(),
                "reparse": xc.HloSharding.from_proto(op).to_string()}

    def v2(req):
        return {"v2": xc.HloSharding.from_string(req["input"]).v3_to_v2_sharding().to_string()}

    def indices(req):
        s = xc.HloSharding.from_string(req["sharding"])
        out = []
        for idx in op_shardings.op_sharding_to_indices(s, tuple(req["dims"]), 8):
            out.append([[sl.start or 0, req["dims"][d] if sl.stop is None else sl.stop]
                        for d, sl in enumerate(idx)])
        return {"devices": out}

    devices = jax.devices()

    def spmd(req):
        hlo = ("HloModule m, num_partitions=8\nENTRY e {\n"
               "  p = %s parameter(0), sharding=%s\n"
               "  ROOT c = %s copy(p), sharding=%s\n}\n") % (req["shape"], req["sharding"], req["shape"], req["sharding"])
        st = _jax.mlir.hlo_to_stablehlo(xc.hlo.hlo_module_from_text(hlo).as_serialized_hlo_module_proto())
        opts = xc.CompileOptions()
        eb = opts.executable_build_options
        eb.num_partitions = 8
        eb.num_replicas = 1
        eb.use_spmd_partitioning = True
        eb.device_assignment = xc.DeviceAssignment.create(np.arange(8).reshape(1, 8))
        exe = devices[0].client.compile_and_load(st, xc.DeviceList(tuple(devices)), opts)
        module = exe.hlo_modules()[0].to_string()
        for line in module.splitlines():
            if PARAM_RE.search(line):
                return {"shard_shape": line.split("=", 1)[1].strip().split(" ")[0]}
        raise RuntimeError("no parameter in the partitioned module")

    def device_put(req):
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        mesh = Mesh(np.array(devices).reshape(req["mesh"]), tuple(req["axes"]))
        dims = tuple(req["dims"])
        src = NamedSharding(mesh, P(*req["from"]))
        dst = NamedSharding(mesh, P(*req["to"]))
        x = jax.device_put(np.arange(int(np.prod(dims)), dtype=np.int32).reshape(dims), src)
        y = jax.device_put(x, dst)
        shards = sorted(y.addressable_shards, key=lambda sh: sh.device.id)
        return {"from_hlo": src._to_xla_hlo_sharding(len(dims)).to_string(),
                "to_hlo": dst._to_xla_hlo_sharding(len(dims)).to_string(),
                "data": [np.asarray(sh.data).reshape(-1).tolist() for sh in shards]}

    kinds = {"text": text, "v2": v2, "indices": indices, "spmd": spmd, "device_put": device_put}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            res = kinds[req["kind"]](req)
        except Exception as e:  # noqa: BLE001 -- XLA's status is the golden value
            res = {"ok": False, "error": str(e)}
        sys.stdout.write(TAG + json.dumps(res) + "\n")
        sys.stdout.flush()


HAND = [
    "{replicated}", "{ replicated }", "{manual}", "{unknown}", "{unreduced}", "{}", "{maximal device=3}",
    "{maximal device=0}", "{maximal device=-3}", "{maximal device=9223372036854775807}",
    "{devices=[2,4]0,1,2,3,4,5,6,7}", "{devices=[2,4]<=[8]}", "{devices=[2,4]<=[4,2]T(1,0)}",
    "{devices=[2,4]<=[2,4]T(0,1)}", "{devices=[2,4]<=[2,2,2]T(0,2,1)}", "{devices=[2,4]<=[2,2,2]T(1,0,2)}",
    "{devices=[8]<=[2,2,2]T(2,1,0)}", "{devices=[8]<=[2,2,2]T(0,1,2)}", "{devices=[8]<=[2,2,2]T(1,2,0)}",
    "{devices=[8]<=[2,1,4]T(2,1,0)}", "{devices=[8]<=[2,4]T(1,0)}", "{devices=[2,2]<=[4,1]T(1,0)}",
    "{devices=[2,1,4]<=[8] last_tile_dim_replicate}", "{devices=[2,4]<=[8] last_tile_dim_replicate}",
    "{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}", "{devices=[2,4]7,6,5,4,3,2,1,0 last_tile_dim_replicate}",
    "{devices=[2,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}", "{devices=[4,2]<=[2,2,2]T(2,1,0) last_tile_dim_replicate}",
    "{devices=[2,4]<=[2,2,2]T(2,1,0) last_tile_dim_replicate}", "{devices=[1,8]<=[8] last_tile_dim_replicate}",
    "{devices=[8,1]<=[8] last_tile_dim_replicate}", "{devices=[8]<=[8] last_tile_dim_replicate}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}", "{devices=[2,2,2]<=[8] last_tile_dims={replicated}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={replicated, manual}}", "{devices=[1,2,2,2]<=[8] last_tile_dims={manual, manual}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, manual}}", "{devices=[1,8]<=[8] last_tile_dims={unreduced}}",
    "{devices=[1,8]<=[8] last_tile_dims={manual}}", "{devices=[8]<=[8] last_tile_dims={manual}}",
    "{devices=[2,4]<=[8] last_tile_dims={unreduced}}", "{devices=[2,2,2]<=[8] last_tile_dims={unreduced, manual}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={replicated, unreduced}}", "{devices=[2,2,2]<=[8] last_tile_dims={unreduced, replicated}}",
    "{devices=[2,1,2,2]<=[8] last_tile_dims={replicated, unreduced, manual}}",
    "{devices=[2,2,1]<=[4] last_tile_dims={manual}}", "{devices=[2,1,1]<=[2] last_tile_dims={replicated, manual}}",
    "{devices=[2,1,2]<=[4] last_tile_dims={replicated}}", "{devices=[2,1]0,1 last_tile_dims={unreduced}}",
    "{devices=[2,4]1,0,2,3,4,5,6,7 last_tile_dims={manual, replicated}}",
    "{devices=[2]-1,5}", "{devices=[2]1,1}", "{devices=[3]0,1}", "{devices=[2]0,1,2}", "{devices=[1,1]0}", "{devices=[2]0}",
    "{devices=[1]3}", "{devices=[2,4]<=[8]T(0)}", "{devices=[2,2]<=[1,4]}", "{devices=[2,4]<=[4]}",
    "{devices=[2,4]<=[4,2]T(1)}", "{devices=[2,4]<=[4,2]T(0,0)}", "{devices=[2,4]<=[4,2]T(0,2)}",
    "{devices=[2,4]<=[4,2]T(-1,0)}", "{devices=[9223372036854775807]<=[9223372036854775807]}",
    "{devices=[2,0]<=[0]}", "{devices=[0]<=[0]}", "{devices=[-2]<=[-2]}", "{devices=[2,-1]<=[-2]}",
    "{replicated}x", "{replicated, maximal device=1}", "{{}}", "{{replicated}, {devices=[2]0,1}}",
    "{{replicated}, {{maximal device=1}, {manual}}}", "{{replicated}}",
    "{replicated metadata={op_name=\"a\"}}", "{maximal device=3 metadata={op_name=\"a\"}}",
    "{devices=[2,4]<=[4,2]T(1,0) metadata={op_name=\"x\" source_file=\"f\" source_line=3}}",
    "{replicated metadata={{op_name=\"a\"}, {op_type=\"b\"}}}",
    "{replicated shard_as 3}", "{maximal device=3 shard_like 2}", "{manual shard_as 1}",
    "{manual shard_as 1 shard_like 2}", "{unknown shard_like -1}", "{devices=[2]0,1 metadata={op_name=\"a\"} shard_as 2}",
    "{devices=[2]0,1 shard_like 0}", "{replicated shard_as}", "{replicated last_tile_dim_replicate}",
    "{maximal}", "{maximal device=1,2}", "{maximal device=}", "{devices=}", "{devices=[]}", "{devices=[2]}",
    "{devices=[2]<=}", "{devices=[2]<=[2]}", "{devices=[2]<=[2]T()}", "{devices=[2,4]<=[8] last_tile_dims={}}",
    "{devices=[2,4]<=[8] last_tile_dims={tuple}}", "{devices=[2,4]<=[8] last_tile_dims={other}}",
    "{devices=[2,4]<=[8] last_tile_dims={maximal}}", "{devices=[2,4]<=[8] last_tile_dims={bogus}}",
    "{devices=[2,4]<=[8] last_tile_dims={replicated} last_tile_dim_replicate}",
    "{devices=[2,4]<=[8] last_tile_dims={manual, manual, manual}}", "{devices=[4]<=[8]}",
    "{devices=[3,5]<=[15]}", "{devices=[3,5]<=[5,3]T(1,0)}", "{devices=[6,4]<=[2,3,4]T(1,2,0) last_tile_dim_replicate}",
    "{devices=[4,2]<=[2,2,2]T(1,2,0) last_tile_dim_replicate}", "{devices=[2,3,4]<=[3,2,4]T(1,0,2) last_tile_dim_replicate}",
    "{devices=[2,6]<=[3,4]T(1,0) last_tile_dim_replicate}", "{devices=[3,4]<=[2,6]T(1,0) last_tile_dim_replicate}",
    "{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dims={manual, replicated}}",
    "{devices=[2,1,2,2]<=[2,2,2]T(1,2,0) last_tile_dims={replicated, manual}}",
    "{devices=[2,2]0,1,2,3 last_tile_dim_replicate}", "{devices=[2,2]3,2,1,0 last_tile_dim_replicate}",
    "{devices=[2,3]5,4,3,2,1,0 last_tile_dim_replicate}",
    "{devices=[2,4]<=[8] metadata={op_name=\"a\"} shard_like 1}", " {replicated}", "{replicated}\n",
    "{devices=[2,4]<=[8]T(0,1)}", "{devices=[9223372036854775807,2]<=[9223372036854775807,2]T(1,0)}",
    "{devices=[4294967296,4294967296]<=[4294967296,4294967296]T(1,0)}",
    "{devices=[2,4]<=[8]", "{devices=[2,4]<=[8]}}", "{devices=[99999999999999999999]<=[1]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}]}", "{maximal device=1 last_tile_dim_replicate}",
]


NAMED = [
    "{mesh['x'=2,'y'=4], [{'x'}, {}]}", "{mesh['x'=2,'y'=4], [{'y','x'}, {}]}", "{mesh['x'=2,'y'=4], [{'y', 'x'}, {}]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], unreduced={'y'}}", "{mesh['x'=2,'y'=4], [{'x', ?}, {}], replicated={'y'}}",
    "{mesh['x'=2,'y'=4], [{'y':(1)2}, {'x'}]}", "{mesh['x'=2,'y'=4], [{'y':(2)2}, {}]}", "{mesh['x'=2,'y'=4], [{'y':(1)3}, {}]}",
    "{mesh['x'=2,'y'=4], [{'y':(1)2,'x'}, {'y':(2)2}]}", "{mesh['x'=2,'y'=4], [{'y':(2)2}], unreduced={'y':(1)2}}",
    "{mesh['x'=2,'y'=4], [{'y':(1)4}, {}]}", "{mesh['x'=2,'y'=4], [{'y':(1)1}, {}]}", "{mesh['x'=2,'y'=4], [{'y':(4)1}, {}]}",
    "{mesh['x'=2,'y'=4], [{'y':(1)2, 'y':(2)2}, {}]}", "{mesh['x'=2,'y'=4], [{'y':(1)2}, {'y':(1)2}]}",
    "{mesh['x'=2,'y'=4], [{'y':(0)2}, {}]}", "{mesh['x'=2,'y'=4], [{'y':(1)-2}, {}]}", "{mesh['x'=2,'y'=4], [{'y':(2)4}, {}]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {'x'}]}", "{mesh['x'=2,'x'=4], [{'x'}, {}]}", "{mesh['x'=2,'y'=4], [{'x'}], replicated={'x'}}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], unreduced={'x'}}", "{mesh['x'=2,'y'=4], [{}, {}], replicated={'y','x'}}",
    "{mesh['x'=2,'y'=4], [{}, {}], replicated={'x','y'}}", "{mesh['x'=2,'y'=4], [{}, {}], unreduced={'y','x'}}",
    "{mesh['x'=2,'y'=4], [{}, {}], unreduced={'x','y'}}", "{mesh['x'=2,'y'=4], [{}, {}], manual={'x'}, unreduced={'y'}}",
    "{mesh['x'=2,'y'=4], [{}, {}], unreduced={'y'}, manual={'x'}}", "{mesh['x'=2,'y'=4], [{}, {}], manual={'x','y'}}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], manual={'y'}}", "{mesh['x'=2,'y'=4], [{}, {}], replicated={'x'}, unreduced={'y'}}",
    "{mesh['x'=2,'y'=4], [{}, {}], unreduced={'y'}, replicated={'x'}}", "{mesh['x'=2,'y'=4], [{}, {}], manual={'x'}, replicated={'y'}}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], replicated={}}", "{mesh['x'=2,'y'=4], [{'x'}, {}], unreduced={}}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], manual={}}", "{mesh['x'=2,'y'=4], [{'x'}, {}], bogus={'y'}}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], replicated={'y'}, replicated={'y'}}",
    "{mesh['x'=2,'y'=4], [{}, {}] shard_as 1}", "{mesh['x'=2,'y'=4], [{}, {}], shard_as 1}",
    "{mesh['x'=2,'y'=4], [{}, {}], metadata={op_name=\"a\"}}", "{mesh['x'=2,'y'=4], [{'x'}], metadata={{op_name=\"a\"}, {op_type=\"b\"}}}",
    "{mesh['x'=2,'y'=4], [{?}, {}]}", "{mesh['x'=2,'y'=4], [{'x',?}, {'y', ?}]}", "{mesh['x'=2,'y'=4], [{?, 'x'}, {}]}",
    "{mesh['x'=2,'y'=4], [{'x'},{'y'}]}", "{mesh['x'=2,'y'=4], [{'y'},{'x'}]}", "{{mesh['x'=2], [{'x'}]}, {replicated}}",
    "{{mesh['x'=2], [{'x'}]}, {mesh['y'=4], [{}, {'y'}]}}", "{mesh['x'=2,'y'=4,'z'=1], [{'z'}, {}]}",
    "{mesh['x'=2,'y'=4,'z'=1], [{'z', 'x'}, {}]}", "{mesh['x'=1], [{'x'}]}", "{mesh['x'=1], [{}]}",
    "{mesh['x'=2,'y'=4], [], unreduced={'y'}}", "{mesh['x'=2,'y'=4], []}", "{mesh['x'=2,'y'=4], [], replicated={'x'}}",
    "{mesh['x'=2,'y'=4], [], manual={'x'}}", "{mesh['x'=2,'y'=4], replicated}", "{mesh['x'=2], [{'x'}], replicated}",
    "{mesh['a'=2], [{'a'}], replicated={}}", "{mesh[], [{}, {}]}", "{mesh[], []}", "{mesh[], [{}]}",
    "{mesh['x'=2,'y'=4], device_ids=(7,6,5,4,3,2,1,0), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=(1,0,2,3,4,5,6,7), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=(1,0,2,3,4,5,7,6), [{'y'}, {'x'}]}", "{mesh['x'=2,'y'=4], device_ids=(0,1,2,3,4,5,6,7), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=(1,0,2,3,4,5,6,8), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=(1,0,2,3,4,5,6,6), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=(1,0,2,3), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=(-1,0,2,3,4,5,6,7), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=([8]), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=([4,2]T(1,0)), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=([2,4]T(0,1)), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=([2,4]T(1,0)), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=([2,2,2]T(2,1,0)), [{'y'}, {'x'}]}", "{mesh['x'=2,'y'=4], device_ids=([2,2,2]T(0,2,1)), [{'y':(1)2}, {'x'}], unreduced={'y':(2)2}}",
    "{mesh['x'=2,'y'=4], device_ids=([4]), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=([4,2]T(0,0)), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=([4,2]), [{'x'}, {}]}", "{mesh['x'=2,'y'=4], device_ids=(<=[4,2]T(1,0)), [{'x'}, {}]}",
    "{mesh['x'=2,'y'=4], device_ids=[7,6,5,4,3,2,1,0], [{'x'}, {}]}", "{mesh['x'=2,'y'=4] device_ids=(7,6,5,4,3,2,1,0), [{'x'}]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], device_ids=(7,6,5,4,3,2,1,0)}", "{mesh['x'=2], device_ids=(1,0), [{'x'}]}",
    "{mesh['x'=2,'y'=4]<=[8], [{'x'}, {}]}", "{mesh['x'=2,'y'=4], [{'z'}, {}]}", "{mesh['x'=2,'y'=4], [{0}, {}]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], unreduced={'z'}}", "{mesh['x'=3], [{'x'}]}", "{mesh[\"x\"=2], [{\"x\"}]}",
    "{mesh[x=2], [{x}]}", "{mesh['x'=0], [{'x'}]}", "{mesh['x'=-2], [{'x'}]}", "{mesh[''=2], [{''}]}",
    "{mesh['x y'=2], [{'x y'}]}", "{mesh['x\\'y'=2], [{'x\\'y'}]}", "{ mesh [ 'x' = 2 ] , [ { 'x' } ] }",
    "{mesh['x'=2,'y'=4], [{'x'}, {}]", "{mesh['x'=2,'y'=4], [{'x'}, {}]}}", "{mesh['x'=2,'y'=4]}", "{mesh['x'=2,'y'=4],}",
    "{mesh['x'=2,'y'=4], [{'x'} {}]}", "{mesh['x'=2,'y'=4], [{'x' 'y'}, {}]}", "{mesh['x'=2,'y'=4] [{'x'}, {}]}",
    "{mesh['x'=2 'y'=4], [{'x'}, {}]}", "{mesh['x'2], [{'x'}]}", "{mesh['x'=], [{'x'}]}", "{mesh, [{'x'}]}",
    "{mesh['x'=2], [{'x':2}]}", "{mesh['x'=2], [{'x':(1)}]}", "{mesh['x'=2], [{'x':(1)2}]}", "{mesh['x'=4], [{'x':(1)2}], unreduced={'x':(2)2}}",
    "{mesh['x'=4], [{'x':(2)2}, {'x':(1)2}]}", "{mesh['x'=4], [{'x':(1)2}, {'x':(1)2}]}", "{mesh['x'=4], [{'x':(1)2}, {'x'}]}",
    "{mesh['x'=8], [{'x':(2)2}], replicated={'x':(4)2}}", "{mesh['x'=8], [{'x':(4)2}], replicated={'x':(1)2}}",
    "{mesh['x'=8], [{'x':(2)2}, {'x':(4)2}], unreduced={'x':(1)2}}", "{mesh['x'=8], [{'x':(2)4}, {'x':(1)2}]}",
    "{mesh['x'=6], [{'x':(2)3}]}", "{mesh['x'=6], [{'x':(3)2}]}", "{mesh['x'=6], [{'x':(1)3}]}", "{mesh['x'=6], [{'x':(1)4}]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}] metadata={op_name=\"a\"}}", "{mesh['x'=2,'y'=4], [{'x'}, {}], last_tile_dim_replicate}",
    "{mesh['x'=9223372036854775807,'y'=2], [{'x'}]}", "{mesh['x'=4294967296,'y'=4294967296], [{'x'}]}",
    "{mesh['x'=65536,'y'=65536], [{'x'}, {'y'}]}", "{mesh['a'=2,'b'=2,'c'=2], [{'c','a'}, {}, {'b'}]}",
    "{mesh['a'=2,'b'=2,'c'=2], [{'b'}], unreduced={'c'}, manual={'a'}}", "{mesh['a'=2,'b'=2,'c'=2], [{}], manual={'c'}}",
    "{mesh['a'=2,'b'=2,'c'=2], [{'a'}], manual={'b','c'}}", "{mesh['a'=2,'b'=2,'c'=2], [{'a'}], manual={'c','b'}}",
    "{mesh['x'=2,'y'=4], [{'x'}, {}], replicated={'y':(1)2}}", "{mesh['x'=2,'y'=4], [{'x'}, {}], replicated={'y':(2)2}}",
]


def random_named(rng: random.Random) -> str:
    """A random named sharding over a mesh of 8 or 16 devices, sometimes with sub-axes."""
    names = ["a", "b", "c", "d"]
    sizes = rng.choice([[8], [2, 4], [4, 2], [2, 2, 2], [2, 2, 4], [16], [4, 4], [1, 8]])
    axes = names[:len(sizes)]
    pool = []
    for name, size in zip(axes, sizes):
        if size >= 4 and rng.random() < 0.4:
            cut = rng.choice([f for f in range(2, size) if size % f == 0])
            pool += ["'%s':(1)%d" % (name, cut), "'%s':(%d)%d" % (name, cut, size // cut)]
        else:
            pool.append("'%s'" % name)
    rng.shuffle(pool)
    rank = rng.randrange(0, 4)
    dims = [[] for _ in range(rank)]
    rest = []
    for ref in pool:
        where = rng.randrange(rank + 2)
        (dims[where] if where < rank else rest).append(ref)
    text = "{mesh[%s]" % ",".join("'%s'=%d" % (a, z) for a, z in zip(axes, sizes))
    if rng.random() < 0.25:
        n = 1
        for z in sizes:
            n *= z
        ids = list(range(n))
        rng.shuffle(ids)
        text += ", device_ids=(%s)" % ",".join(map(str, ids))
    text += ", [%s]" % ", ".join("{%s}" % ", ".join(d + (["?"] if rng.random() < 0.1 else [])) for d in dims)
    order = {"'%s'" % a: i for i, a in enumerate(axes)}

    def key(ref):
        name = ref.split(":")[0]
        pre = int(ref.split("(")[1].split(")")[0]) if "(" in ref else 1
        return (order[name], pre)
    rest.sort(key=key)
    kinds = {}
    for ref in rest:
        kinds.setdefault(rng.choice(["replicated", "unreduced", "manual", None]), []).append(ref)
    for kind in ["replicated", "unreduced", "manual"]:
        if kinds.get(kind):
            text += ", %s={%s}" % (kind, ", ".join(kinds[kind]))
    return text + "}"


def random_sharding(rng: random.Random) -> str:
    """A random sharding text: mostly valid tile assignments over 2..16 devices."""
    kind = rng.random()
    if kind < 0.08:
        return rng.choice(["{replicated}", "{manual}", "{unknown}", "{maximal device=%d}" % rng.randrange(8)])
    if kind < 0.12:
        return "{%s}" % ", ".join(random_sharding(rng) for _ in range(rng.randrange(1, 4)))
    n = rng.choice([2, 4, 6, 8, 8, 8, 12, 16])
    factors = sharding_random.factors(rng, n)
    rng.shuffle(factors)
    # Tile dims: group factors, sprinkle 1s.
    dims = []
    for f in factors:
        if dims and rng.random() < 0.4:
            dims[-1] *= f
        else:
            dims.append(f)
        if rng.random() < 0.2:
            dims.append(1)
    if not dims:
        dims = [1]
    subgroups = []
    tail = ""
    r = rng.random()
    if r < 0.25 and len(dims) >= 2:
        tail = " last_tile_dim_replicate"
    elif r < 0.45 and len(dims) >= 2:
        k = rng.randrange(1, min(3, len(dims) - 0) + 1)
        subgroups = [rng.choice(["manual", "replicated", "unreduced"]) for _ in range(min(k, len(dims)))]
        tail = " last_tile_dims={%s}" % ", ".join(subgroups)
    if rng.random() < 0.5:
        reshape, perm = sharding_random.iota_reshape(rng, factors)
        if len(reshape) == 1:
            devices = "<=[%d]" % reshape[0]
        else:
            devices = "<=[%s]T(%s)" % (",".join(map(str, reshape)), ",".join(map(str, perm)))
    else:
        ids = list(range(n))
        rng.shuffle(ids)
        devices = ",".join(map(str, ids))
    suffix = ""
    if rng.random() < 0.1:
        suffix += " metadata={op_name=\"r\"}"
    if rng.random() < 0.1:
        suffix += " shard_%s %d" % (rng.choice(["as", "like"]), rng.randrange(5))
    return "{devices=[%s]%s%s%s}" % (",".join(map(str, dims)), devices, tail, suffix)


def mutate(rng: random.Random, s: str) -> str:
    i = rng.randrange(len(s) + 1)
    op = rng.random()
    if op < 0.4:
        return s[:i] + s[i + 1:]
    if op < 0.8:
        return s[:i] + rng.choice(["0", "9", ",", "[", "]", "{", "}", "=", " ", "T", "-", "<=", "(", ")"]) + s[i:]
    return s[:i]


def text_inputs():
    rng = random.Random(22)
    out = list(HAND)
    seen = set(out)
    add_random(rng, out, seen, random_sharding, len(HAND) + 700, 4)
    # Named shardings come after (their own seed), so the rows above stay as they were.
    rng = random.Random(23)
    named = [s for s in NAMED if s not in seen]
    seen.update(named)
    add_random(rng, named, seen, random_named, len(NAMED) + 300, 5)
    return out + named


def add_random(rng: random.Random, inputs: list, seen: set, make, count: int, every: int) -> None:
    """Appends inputs `make(rng)` not `seen` before until `inputs` holds
    `count`; the one to go at each position `every`-th is mutated first."""
    while len(inputs) < count:
        s = make(rng)
        if len(inputs) % every == every - 1:
            s = mutate(rng, s)
        if s not in seen:
            seen.add(s)
            inputs.append(s)


INDEX_SHARDINGS = [
    "{replicated}", "{maximal device=3}", "{devices=[2,4]<=[8]}", "{devices=[2,4]<=[4,2]T(1,0)}",
    "{devices=[8]<=[2,2,2]T(2,1,0)}", "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
    "{devices=[2,4]<=[8] last_tile_dim_replicate}", "{devices=[4,2]7,6,5,4,3,2,1,0}",
    "{devices=[2,2,2]<=[2,2,2]T(1,0,2)}", "{devices=[1,2,4]<=[2,4]T(1,0) last_tile_dim_replicate}",
    "{devices=[2,4,1]<=[8]}", "{devices=[4,1,2]<=[2,2,2]T(0,2,1) last_tile_dim_replicate}",
]
INDEX_DIMS = {1: [[8], [16]], 2: [[4, 8], [8, 8], [2, 12]], 3: [[4, 8, 2], [8, 4, 6]]}

SPMD_SHARDINGS = INDEX_SHARDINGS + [
    "{devices=[2,4]0,1,2,3,4,5,6,7}", "{devices=[8,1]<=[8]}", "{devices=[1,8]<=[8]}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}", "{devices=[8]<=[8]}",
    "{replicated shard_as 1}", "{devices=[2,4]<=[8] shard_like 1}",
]
SPMD_SHAPES = ["f32[7,9]{1,0}", "f32[7,9]{0,1}", "f32[8]{0}", "f32[7]{0}", "s8[3,5,2]{2,1,0}", "bf16[8,8]{1,0}",
               "f32[1,1]{1,0}", "f32[0,4]{1,0}", "f32[16,3,5]{0,2,1}", "f32[9,17]{1,0}", "pred[5,3]{1,0}"]


# jax.device_put between NamedShardings (mesh shape, axis names, array dims, from spec, to spec).
DEVICE_PUTS = [
    ([2, 4], ["x", "y"], [8, 12], ["x", "y"], ["y", "x"]),
    ([2, 4], ["x", "y"], [8, 12], ["x", None], [None, "y"]),
    ([2, 4], ["x", "y"], [8, 12], [None, None], ["y", None]),
    ([2, 4], ["x", "y"], [8, 16], [("x", "y"), None], [None, ("y", "x")]),
    ([8], ["x"], [16, 3], ["x", None], [None, None]),
    ([2, 2, 2], ["a", "b", "c"], [4, 4, 2], ["a", "b", "c"], [("c", "a"), None, "b"]),
    ([2, 2, 2], ["a", "b", "c"], [4, 6, 2], [None, "b", None], ["a", None, "c"]),
]


def rank_of(shape: str) -> int:
    inner = shape[shape.index("[") + 1:shape.index("]")]
    return 0 if not inner else inner.count(",") + 1


def generate():
    runner = XlaWorker(__file__, TAG, CHECK_RE, lambda msg: {"ok": False, "crash": msg})
    text_rows = []
    for s in text_inputs():
        res = runner.run({"kind": "text", "input": s})
        row = {"input": s, **res}
        if "mesh" in s and res.get("ok"):
            v2 = runner.run({"kind": "v2", "input": s})
            if "v2" in v2:
                row["v2"] = v2["v2"]
            elif "crash" in v2:
                row["v2_crash"] = v2["crash"]
            else:
                row["v2_error"] = v2["error"]
        text_rows.append(row)
    index_rows = []
    for s in INDEX_SHARDINGS:
        for rank, dims_list in INDEX_DIMS.items():
            for dims in dims_list:
                res = runner.run({"kind": "indices", "sharding": s, "dims": dims})
                if "devices" in res:
                    index_rows.append({"sharding": s, "dims": dims, "devices": res["devices"]})
    spmd_rows = []
    for s in SPMD_SHARDINGS:
        for shape in SPMD_SHAPES:
            res = runner.run({"kind": "spmd", "sharding": s, "shape": shape})
            row = {"shape": shape, "sharding": s}
            if "shard_shape" in res:
                row["shard_shape"] = res["shard_shape"]
            elif "crash" in res:
                row["crash"] = res["crash"]
            else:
                m = re.search(r"(Number of tile assignment[^\n]*)", res.get("error", ""))
                row["error"] = m.group(1) if m else res.get("error", "")
            spmd_rows.append(row)
    put_rows = []
    for mesh, axes, dims, src, dst in DEVICE_PUTS:
        req = {"kind": "device_put", "mesh": mesh, "axes": axes, "dims": dims, "from": src, "to": dst}
        res = runner.run(req)
        if "data" not in res:
            raise RuntimeError("device_put failed: %r -> %r" % (req, res))
        put_rows.append({"dims": dims, "from": res["from_hlo"], "to": res["to_hlo"], "data": res["data"]})
    runner.close()
    return {"sharding_text.jsonl": text_rows, "sharding_indices.jsonl": index_rows,
            "sharding_spmd.jsonl": spmd_rows, "sharding_device_put.jsonl": put_rows}


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        sys.exit(run(generate, __doc__))
