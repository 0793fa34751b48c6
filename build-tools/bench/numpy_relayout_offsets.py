"""numpy's `copyto` of the relayouts of build-tools/relayout-peers, at the
same buffer offsets, as JSON lines that the harness merges (`--numpy PATH`);
with `--torch-threads`, PyTorch's `permute().copy_()` too, on each thread
count given.

For each case and each (source, destination) offset in bytes past a 64-byte
line, both arrays are `np.frombuffer` views of preallocated bytearrays sliced
at the offset; `vec` uses arrays as `np.empty` allocates them (the offsets
written are their addresses mod 64). Times `np.copyto(dst, src.transpose(perm))`
and a plain `np.copyto` of the same bytes, interleaved over `--rounds` rounds,
each measurement the mean of enough calls to last `--min-time-ms`; writes the
median per function, one JSON object per line (function "numpy" or
"numpy copy", threads 1).

With `--torch-threads 1,2,4,...` (PyTorch installed), tensors over the same
two buffers (`torch.from_numpy`) are timed the same way on each thread count
(`torch.set_num_threads`): `dst.copy_(src.permute(perm))` and a plain
`copy_` of the same bytes (functions "torch" and "torch copy").

    python numpy_relayout_offsets.py [--cases f32-4096,nchw] [--offsets all]
        [--rounds 9] [--min-time-ms 20] [--quick] [--torch-threads LIST]
        [--json PATH]
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

from numpy_relayout import source

# id -> (name as in the harness and numpy_relayout.py, shape, dtype, perm)
CASES = {
    "f32-4096": ("transpose f32[4096,4096]", (4096, 4096), np.float32, (1, 0)),
    "f64-2048": ("transpose f64[2048,2048]", (2048, 2048), np.float64, (1, 0)),
    "u8-8192": ("transpose u8[8192,8192]", (8192, 8192), np.uint8, (1, 0)),
    "permute-256": ("permute (2,0,1) f32[256,256,256]", (256, 256, 256), np.float32, (2, 0, 1)),
    "nchw": ("NCHW->NHWC f32[32,64,56,56]", (32, 64, 56, 56), np.float32, (0, 2, 3, 1)),
    "f32-1024": ("transpose f32[1024,1024]", (1024, 1024), np.float32, (1, 0)),
}


def placements(spec):
    """`all` or a comma list of SRC:DST and `vec`, as the harness's --offsets."""
    if spec == "all":
        return [(s, d) for s in (0, 16, 32, 48) for d in (0, 16, 32, 48)] + ["vec"]
    out = []
    for item in spec.split(","):
        if item == "vec":
            out.append("vec")
        else:
            s, d = item.split(":")
            if not (0 <= int(s) < 64 and 0 <= int(d) < 64):
                raise SystemExit(f"--offsets: {item!r} is not SRC:DST below 64")
            out.append((int(s), int(d)))
    return out


def at_offset(raw, offset, shape, dtype):
    """An array over `raw` starting `offset` bytes past a 64-byte line."""
    base = np.frombuffer(raw, np.uint8).ctypes.data
    start = (64 - base % 64) % 64 + offset
    count = int(np.prod(shape))
    return np.frombuffer(raw, dtype, count=count, offset=start).reshape(shape)


def mean_time(fn, reps):
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


def measure(functions, rounds, min_time):
    """Median over interleaved rounds of each function's mean time."""
    reps = {}
    for name, fn in functions.items():
        once = mean_time(fn, 1)  # warm-up and calibration
        reps[name] = max(1, int(np.ceil(min_time / max(once, 1e-9))))
    samples = {name: [] for name in functions}
    names = list(functions)
    for r in range(rounds):
        for k in range(len(names)):
            name = names[(k + r) % len(names)]
            samples[name].append(mean_time(functions[name], reps[name]))
    return {name: (statistics.median(samples[name]), reps[name]) for name in names}


def write_records(out, base, result, copy_name, extra):
    """One JSON line per function of `result`, its ratio to `copy_name`."""
    copy_s = result[copy_name][0]
    for function, (median_s, reps) in result.items():
        record = dict(base, function=function, median_s=median_s, ratio_copy=median_s / copy_s, reps=reps)
        out.write(json.dumps(dict(record, **extra)) + "\n")
        out.flush()


def run_case(case_id, places, rounds, min_time, torch, torch_threads, out):
    name, shape, dtype, perm = CASES[case_id]
    data = source(shape, dtype)
    nbytes = data.nbytes
    dst_shape = tuple(shape[p] for p in perm)
    src_raw, dst_raw = bytearray(nbytes + 128), bytearray(nbytes + 128)
    for place in places:
        if place == "vec":
            src = np.empty(shape, dtype)
            dst = np.empty(dst_shape, dtype)
        else:
            src = at_offset(src_raw, place[0], shape, dtype)
            dst = at_offset(dst_raw, place[1], dst_shape, dtype)
        np.copyto(src, data)
        view = src.transpose(perm)
        expected = np.ascontiguousarray(view).view(np.uint8)
        np.copyto(dst, view)
        if not np.array_equal(dst.view(np.uint8), expected):
            raise SystemExit(f"{name}: numpy's copyto output differs")
        flat_src, flat_dst = src.reshape(-1), dst.reshape(-1)
        functions = {
            "numpy": lambda: np.copyto(dst, view),
            "numpy copy": lambda: np.copyto(flat_dst, flat_src),
        }
        result = measure(functions, rounds, min_time)
        offsets = (src.ctypes.data % 64, dst.ctypes.data % 64)
        base = {
            "case": name,
            "case_id": case_id,
            "placement": "vec" if place == "vec" else "line",
            "src_offset": offsets[0],
            "dst_offset": offsets[1],
            "threads": 1,
            "rounds": rounds,
        }
        write_records(out, base, result, "numpy copy", {"numpy_version": np.__version__})
        report = f"numpy {result['numpy'][0] * 1e3:.3f} ms, copy {result['numpy copy'][0] * 1e3:.3f} ms"
        if torch:
            # Tensors over the same bytes (uint8 for u8, as numpy's dtype).
            t_src, t_dst = torch.from_numpy(src), torch.from_numpy(dst)
            t_view = t_src.permute(*perm)
            t_flat_src, t_flat_dst = t_src.reshape(-1), t_dst.reshape(-1)
            for threads in torch_threads:
                torch.set_num_threads(threads)
                dst.view(np.uint8)[...] = 0xFF
                t_dst.copy_(t_view)
                if not np.array_equal(dst.view(np.uint8), expected):
                    raise SystemExit(f"{name}: PyTorch's copy_ output differs on {threads} threads")
                functions = {
                    "torch": lambda: t_dst.copy_(t_view),
                    "torch copy": lambda: t_flat_dst.copy_(t_flat_src),
                }
                result = measure(functions, rounds, min_time)
                extra = {"torch_version": torch.__version__}
                write_records(out, dict(base, threads=threads), result, "torch copy", extra)
                report += f"; torch on {threads}: {result['torch'][0] * 1e3:.3f} ms"
        print(f"{name} {place}: {report}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", help="comma list of case ids or parts of names (default all)")
    parser.add_argument("--offsets", help="all (default) or SRC:DST,...,vec")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--min-time-ms", type=float)
    parser.add_argument("--quick", action="store_true", help="--rounds 3 --min-time-ms 5 --offsets 0:0,16:48,vec")
    parser.add_argument("--torch-threads", help="also PyTorch's permute().copy_() on these thread counts (1,2,4,...)")
    parser.add_argument("--json", help="output file (default stdout)")
    args = parser.parse_args()
    cases = []
    for want in args.cases.split(",") if args.cases else list(CASES):
        # As the harness: an id, or part of a case's name.
        found = [i for i, case in CASES.items() if want == i or want in case[0]]
        if not found:
            raise SystemExit(f"--cases: no case matches {want!r} (ids: {', '.join(CASES)})")
        cases += [i for i in found if i not in cases]
    places = placements(args.offsets or ("0:0,16:48,vec" if args.quick else "all"))
    rounds = args.rounds or (3 if args.quick else 9)
    min_time = (args.min_time_ms or (5 if args.quick else 20)) / 1e3
    torch_threads = []
    for item in args.torch_threads.split(",") if args.torch_threads else []:
        if not item.isdigit() or int(item) < 1:
            raise SystemExit(f"--torch-threads: {item!r} is not a thread count")
        torch_threads.append(int(item))
    torch = None
    if torch_threads:
        try:
            import torch
        except ImportError:
            raise SystemExit("--torch-threads: PyTorch is not installed") from None
    out = open(args.json, "w") if args.json else sys.stdout
    try:
        for case_id in cases:
            run_case(case_id, places, rounds, min_time, torch, torch_threads, out)
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
