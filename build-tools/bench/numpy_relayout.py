"""numpy's time for the relayouts of crates/relayout/benches/relayout.rs.

Each case is timed beside a plain copy of the same number of bytes
(`np.copyto` between two contiguous arrays), best of `--repeat` runs with
`timeit`. Prints one JSON object: numpy's version and, per case, the best
time in seconds of the relayout and of the plain copy, and the bytes of the
destination array.
"""

import argparse
import json
import timeit

import numpy as np


def source(shape, dtype):
    """Bytes 0, 1, 2, ... (mod 251) viewed as `dtype`, so pages are written."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = (np.arange(size, dtype=np.uint32) % 251).astype(np.uint8)
    return raw.view(dtype).reshape(shape)


def best(fn, repeat):
    fn()  # fault the pages in before timing
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def plain_copy(nbytes, repeat):
    src = source((nbytes,), np.uint8)
    dst = np.empty_like(src)
    return best(lambda: np.copyto(dst, src), repeat)


def transpose(n, dtype, repeat):
    a = source((n, n), dtype)
    out = np.empty_like(a)
    return best(lambda: np.copyto(out, a.T), repeat), out.nbytes


def nchw_to_nhwc(repeat):
    a = source((32, 64, 56, 56), np.float32)
    out = np.empty((32, 56, 56, 64), np.float32)
    return best(lambda: np.copyto(out, a.transpose(0, 2, 3, 1)), repeat), out.nbytes


def permute_201(repeat):
    a = source((256, 256, 256), np.float32)
    out = np.empty((256, 256, 256), np.float32)
    return best(lambda: np.copyto(out, a.transpose(2, 0, 1)), repeat), out.nbytes


def identity(repeat):
    a = source((32, 64, 56, 56), np.float32)
    out = np.empty_like(a)
    return best(lambda: np.copyto(out, a), repeat), out.nbytes


def padded(repeat):
    """Rows of 56 copied into rows of 64, the 8 padding elements zeroed."""
    a = source((32, 64, 56, 56), np.float32)
    out = np.empty((32, 64, 56, 64), np.float32)

    def run():
        np.copyto(out[..., :56], a)
        out[..., 56:] = 0

    return best(run, repeat), out.nbytes


CASES = {
    "transpose f32[4096,4096]": lambda r: transpose(4096, np.float32, r),
    "transpose f64[2048,2048]": lambda r: transpose(2048, np.float64, r),
    "transpose u8[8192,8192]": lambda r: transpose(8192, np.uint8, r),
    "transpose f32[1024,1024]": lambda r: transpose(1024, np.float32, r),
    "permute (2,0,1) f32[256,256,256]": permute_201,
    "NCHW->NHWC f32[32,64,56,56]": nchw_to_nhwc,
    "identity f32[32,64,56,56]": identity,
    "padded f32[32,64,56,56] rows 56->64": padded,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    cases = {}
    for name, run in CASES.items():
        seconds, nbytes = run(args.repeat)
        cases[name] = {
            "relayout_s": seconds,
            "copy_s": plain_copy(nbytes, args.repeat),
            "bytes": nbytes,
        }
    print(json.dumps({"numpy": np.__version__, "cases": cases}))


if __name__ == "__main__":
    main()
