"""Times ``xla_shape.relayout`` of a numpy array, into a new array each
run and into one ``out`` array, as ``crates/stride-util/examples/
time_relayout.rs`` times the same Rust call.

    python python/bench/time_relayout.py 'f32[4096,4096]{1,0}' 'f32[4096,4096]{0,1}' 20
"""

import sys
import time

import numpy as np

import xla_shape


def main(src, dst, runs=20):
    size = xla_shape.array_size(src)
    # The same bytes as the Rust example's source buffer.
    data = (np.arange(size, dtype=np.int64) % 251).astype(np.uint8)
    for how, out in [("new buffer", None), ("into out", np.zeros(xla_shape.array_size(dst), np.uint8))]:
        times = []
        for _ in range(max(1, int(runs))):
            start = time.perf_counter()
            result = xla_shape.relayout(data, src, dst, out=out, raw=True)
            times.append(time.perf_counter() - start)
            del result
        times.sort()
        best, median = times[0], times[len(times) // 2]
        print(
            f"python {how:10} {src} -> {dst}: {size >> 20} MiB, best {best * 1e3:.2f} ms, "
            f"median {median * 1e3:.2f} ms ({size / best / 1e9:.2f} GB/s), {len(times)} runs"
        )


if __name__ == "__main__":
    main(*sys.argv[1:])
