"""relayout against real XLA's device buffers and numpy's own transposes."""

import re

import numpy as np
import pytest

import xla_shape
from conftest import golden


def _with_element_size(shape, bits):
    """XLA's printed shape with the element size its CPU client packs
    sub-byte types to (its default layout prints no ``E(bits)``)."""
    if bits >= 8 or "E(" in shape:
        return shape
    if not shape.endswith("}"):
        shape += "{}"
    head, layout = shape.rsplit("{", 1)
    sep = "" if ":" in layout else ":"
    return f"{head}{{{layout[:-1]}{sep}E({bits})}}"


def _row_major(row):
    rank = len(row["dimensions"])
    dims = ",".join(map(str, row["dimensions"]))
    layout = ",".join(str(d) for d in reversed(range(rank)))
    text = f"{row['dtype']}[{dims}]" + (f"{{{layout}}}" if rank else "")
    return _with_element_size(text, row["element_size_in_bits"])


@pytest.mark.parametrize("row", golden("memory_order"), ids=lambda r: r["shape"])
def test_relayout_writes_xla_device_buffers(row):
    device = _with_element_size(row["shape"], row["element_size_in_bits"])
    source = bytes.fromhex(row["row_major_hex"])
    want = bytes.fromhex(row["device_hex"])
    assert xla_shape.relayout(source, _row_major(row), device, raw=True).tobytes() == want
    assert xla_shape.relayout(want, device, _row_major(row), raw=True).tobytes() == source


def _bf16():
    return pytest.importorskip("ml_dtypes").bfloat16


DTYPES = {"f32": np.float32, "bf16": _bf16, "s8": np.int8, "f64": np.float64, "c64": np.complex64}


@pytest.mark.parametrize("name", sorted(DTYPES))
@pytest.mark.parametrize("dims", [(5, 7), (3, 4, 5), (2, 3, 4, 5), (67, 129)])
def test_relayout_is_numpys_transpose(name, dims):
    dtype = DTYPES[name]() if name == "bf16" else DTYPES[name]
    rng = np.random.default_rng(len(dims))
    a = (rng.integers(0, 100, size=dims)).astype(dtype)
    rank = len(dims)
    text = ",".join(map(str, dims))
    for perm in [tuple(reversed(range(rank))), tuple(rng.permutation(rank))]:
        # Major-to-minor `perm` is minor-to-major reversed.
        layout = ",".join(str(d) for d in reversed(perm))
        dst = f"{name}[{text}]{{{layout}}}"
        want = a.transpose(perm).copy()
        out = xla_shape.relayout(a, f"{name}[{text}]", dst)
        # The same array, laid out in memory as numpy's transpose.
        assert out.dtype == a.dtype and out.shape == a.shape
        assert np.array_equal(out, a)
        assert out.transpose(perm).flags.c_contiguous
        assert out.transpose(perm).tobytes() == want.tobytes()
        raw = xla_shape.relayout(a, f"{name}[{text}]", dst, raw=True)
        assert raw.dtype == a.dtype and raw.shape == (a.size,)
        assert raw.tobytes() == want.tobytes()
        # The raw buffer back into row-major order.
        back = xla_shape.relayout(raw, dst, f"{name}[{text}]")
        assert back.flags.c_contiguous and np.array_equal(back, a)


@pytest.mark.parametrize("rows,cols", [(16, 256), (10, 200), (1, 1)])
def test_tiled_relayout_is_numpys_tiling(rows, cols):
    a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    dst = f"f32[{rows},{cols}]{{1,0:T(8,128)}}"
    out = xla_shape.relayout(a, f"f32[{rows},{cols}]", dst, raw=True)
    padded = np.pad(a, ((0, -rows % 8), (0, -cols % 128)))
    r, c = padded.shape
    want = padded.reshape(r // 8, 8, c // 128, 128).transpose(0, 2, 1, 3).copy()
    assert out.tobytes() == want.tobytes()
    with pytest.raises(xla_shape.UnsupportedError, match="pass raw=True"):
        xla_shape.relayout(a, f"f32[{rows},{cols}]", dst)


def test_padded_relayout_is_numpys_pad():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    dst = "s32[2,3]{0,1:PAD(3,5)PV(one)}"
    want = np.pad(a.T, ((0, 2), (0, 1)), constant_values=1)
    assert xla_shape.relayout(a, "s32[2,3]", dst, raw=True).tobytes() == want.tobytes()
    out = xla_shape.relayout(a, "s32[2,3]", dst)
    assert np.array_equal(out, a) and out.strides == (4, 12)
    assert out.base is not None and out.base.nbytes == want.nbytes


def test_bytes_like_inputs_are_buffers_and_give_arrays():
    for data in [b"ABCDEF", bytearray(b"ABCDEF"), memoryview(b"ABCDEF"), np.frombuffer(b"ABCDEF", np.uint8).data]:
        raw = xla_shape.relayout(data, "u8[2,3]{1,0}", "u8[2,3]{0,1}", raw=True)
        assert isinstance(raw, np.ndarray) and raw.tobytes() == b"ADBECF"
    out = xla_shape.relayout(b"ABCDEF", "u8[2,3]{1,0}", "u8[2,3]{0,1}")
    assert out.tolist() == [list(b"ABC"), list(b"DEF")] and out.flags.f_contiguous


def test_arrays_are_read_by_their_own_strides():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2]
    out = xla_shape.relayout(a, "s16[3,2]", "s16[3,2]{0,1}", raw=True)
    assert out.tobytes() == a.T.copy().tobytes()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    fortran = np.asfortranarray(x)
    # A Fortran-ordered array is the same array: read as what it is, even
    # under a source layout that says otherwise.
    for src in ["f32[2,3]{1,0}", "f32[2,3]{0,1}"]:
        assert xla_shape.relayout(fortran, src, "f32[2,3]{1,0}", raw=True).tobytes() == x.tobytes()
    assert xla_shape.relayout(x.T, "f32[3,2]", "f32[3,2]{1,0}", raw=True).tobytes() == x.T.copy().tobytes()


def test_a_dtype_that_is_not_the_element_type_is_refused():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(xla_shape.XlaShapeError, match=r"data is float32 but the source's element type is s32 \(int32\)"):
        xla_shape.relayout(a, "s32[2,3]", "s32[2,3]{0,1}")
    with pytest.raises(xla_shape.XlaShapeError, match=r"data is int16\[5\]"):
        xla_shape.relayout(np.zeros(5, np.int16), "f32[2,3]", "f32[2,3]{0,1}")


def test_an_array_of_other_dimensions_is_refused_not_reshaped():
    message = (
        "data is {}[2, 3] but the source f32[3,2]{{1,0}} has dimensions [3, 2]: pass an array of"
        " the source's dimensions, or its buffer as bytes or a 1-D array (it is never reshaped)"
    )
    for dtype in (np.float32, np.uint8, np.int64):
        a = np.arange(6).astype(dtype).reshape(2, 3)
        with pytest.raises(xla_shape.XlaShapeError, match=re.escape(message.format(np.dtype(dtype)))):
            xla_shape.relayout(a, "f32[3,2]", "f32[3,2]{0,1}")
    # The same bytes as a buffer (1-D) are read as the source's layout.
    a = np.arange(6, dtype=np.float32)
    b = xla_shape.relayout(a, "f32[3,2]", "f32[3,2]{0,1}")
    assert b.tolist() == [[0, 1], [2, 3], [4, 5]] and b.flags.f_contiguous
    b = xla_shape.relayout(a.view(np.uint8), "f32[3,2]", "f32[3,2]{0,1}")
    assert b.tolist() == [[0, 1], [2, 3], [4, 5]]


def test_bad_sizes_and_shapes_raise():
    with pytest.raises(xla_shape.XlaShapeError, match="data has 5 bytes but a buffer of u8"):
        xla_shape.relayout(b"ABCDE", "u8[2,3]", "u8[2,3]{0,1}")
    with pytest.raises(xla_shape.XlaShapeError, match="not the same array"):
        xla_shape.relayout(b"ABCDEF", "u8[2,3]", "u8[3,2]")
    with pytest.raises(xla_shape.ParseError, match=re.escape("Syntax error")):
        xla_shape.relayout(b"ABCDEF", "u8[2,3", "u8[2,3]")
    with pytest.raises(xla_shape.InvalidShapeError, match="duplicate"):
        xla_shape.relayout(b"ABCDEF", "u8[2,3]{1,1}", "u8[2,3]")


def test_a_huge_destination_is_an_error_not_a_panic():
    with pytest.raises(xla_shape.XlaShapeError, match="1099511627776"):
        xla_shape.relayout(np.zeros(6, np.uint8), "u8[6]", "u8[6]{0:T(1099511627776)}")


def test_out_receives_the_destination():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.empty((4, 3), np.float32)
    assert xla_shape.relayout(a, "f32[3,4]", "f32[3,4]{0,1}", out=out) is out
    assert np.array_equal(out, a.T)
    with pytest.raises(xla_shape.XlaShapeError, match="out has 44 bytes"):
        xla_shape.relayout(a, "f32[3,4]", "f32[3,4]{0,1}", out=np.empty(11, np.float32))
    with pytest.raises(xla_shape.XlaShapeError, match="read-only"):
        xla_shape.relayout(a, "f32[3,4]", "f32[3,4]{0,1}", out=bytes(48))


@pytest.mark.parametrize("dst", ["f32[4,5]{0,1:PAD(6,7)}", "f32[4,5]{0,1:T(8,128)}", "f32[4,5]{0,1}"])
def test_out_gets_every_byte_of_a_new_buffer(dst):
    a = np.arange(20, dtype=np.float32).reshape(4, 5)
    new = xla_shape.relayout(a, "f32[4,5]", dst, raw=True)
    out = np.full(new.shape, 7, np.float32)
    xla_shape.relayout(a, "f32[4,5]", dst, out=out)
    assert out.tobytes() == new.tobytes()


def test_out_must_not_overlap_data_and_scalars_are_arrays():
    a = np.arange(6, dtype=np.uint8)
    with pytest.raises(xla_shape.XlaShapeError, match="overlaps"):
        xla_shape.relayout(a, "u8[2,3]", "u8[2,3]{0,1}", out=a)
    out = xla_shape.relayout(np.float32(3.0), "f32[]", "f32[]")
    assert out.dtype == np.float32 and out.shape == () and float(out) == 3.0


class DuckArray:
    """Stands for a jax array: ``shape``, ``dtype`` and ``__array__``."""

    def __init__(self, array):
        self._array = array
        self.shape, self.dtype = array.shape, array.dtype

    def __array__(self, dtype=None, copy=None):
        return self._array


def test_other_arrays_give_numpy_arrays():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = xla_shape.relayout(DuckArray(a), "f32[2,3]", "f32[2,3]{0,1}")
    assert isinstance(out, np.ndarray) and np.array_equal(out, a) and out.flags.f_contiguous


@pytest.mark.parametrize(
    "dst",
    ["f32[1024,1024]{0,1:T(8,128)}", "f32[1024,1024]{0,1:PAD(1030,1100)}"],
)
def test_threads_write_the_bytes_of_one_thread(dst):
    # 4 MiB of f32: large enough for a pool to split every piece (at most
    # one chunk per 512 KiB), into a tiled and a padded layout and back.
    a = np.arange(1024 * 1024, dtype=np.float32).reshape(1024, 1024)
    one = xla_shape.relayout(a, "f32[1024,1024]{1,0}", dst, raw=True)
    for threads in (2, 3):
        many = xla_shape.relayout(a, "f32[1024,1024]{1,0}", dst, threads=threads, raw=True)
        assert np.array_equal(many, one)
        out = np.empty_like(one)
        xla_shape.relayout(a, "f32[1024,1024]{1,0}", dst, out=out, threads=threads)
        assert np.array_equal(out, one)
    back = xla_shape.relayout(one, dst, "f32[1024,1024]{1,0}", threads=2)
    assert np.array_equal(back, a)
    for threads in (0, -1):
        with pytest.raises(xla_shape.XlaShapeError, match=f"^threads={threads}: "):
            xla_shape.relayout(a, "f32[1024,1024]{1,0}", dst, threads=threads)
    with pytest.raises(TypeError):
        xla_shape.relayout(a, "f32[1024,1024]{1,0}", dst, threads=2.0)
