"""``relayout``: an array (or a buffer) copied into the buffer of another
layout, given back as a numpy array whose indices are the array's, laid out
in memory as the destination says (or as that raw buffer)."""

from __future__ import annotations

import operator as _operator
from typing import Any, Optional, Tuple

import numpy as _np

from . import _native
from ._dtypes import numpy_dtype
from ._guard import call
from ._inputs import ShapeLike
from ._native import Shape, UnsupportedError, XlaShapeError
from ._shapes import array_size, as_shape


def _dtype_or_none(shape: Shape) -> Any:
    try:
        return shape.dtype
    except XlaShapeError:
        return None


def _as_array(data: Any) -> Optional[_np.ndarray]:
    """``data`` as a numpy array when it is one (or a numpy scalar, or an
    array with ``__array__``: jax's), else ``None`` (a bytes-like buffer)."""
    if isinstance(data, (_np.ndarray, _np.generic)):
        return _np.asarray(data)
    if hasattr(data, "__array__") and hasattr(data, "shape") and hasattr(data, "dtype"):
        return _np.asarray(data)
    return None


def _logical_source(array: _np.ndarray, shape: Shape) -> Tuple[_np.ndarray, str]:
    """The bytes of the logical ``array`` and the layout they are in: the
    array's own memory order when it is contiguous in some order of its
    dimensions (C, Fortran, transposed: read in place), else a C-ordered
    copy."""
    rank = array.ndim
    order = sorted(range(rank), key=lambda d: -abs(array.strides[d]))
    permuted = array.transpose(order)
    if not permuted.flags.c_contiguous:
        order = list(range(rank))
        permuted = _np.ascontiguousarray(array)
    minor_to_major = ",".join(str(d) for d in reversed(order))
    dims = ",".join(map(str, shape.dimensions))
    text = f"{shape.element_type}[{dims}]" + (f"{{{minor_to_major}}}" if rank else "")
    return permuted.reshape(-1).view(_np.uint8), text


def _source(data: Any, shape: Shape) -> Tuple[_np.ndarray, Any]:
    """The source bytes and the shape they are laid out as."""
    array = _as_array(data)
    expected = _dtype_or_none(shape)
    if array is not None and list(array.shape) == shape.dimensions:
        if expected is None or array.dtype != expected:
            want = shape.element_type if expected is None else f"{shape.element_type} ({expected})"
            raise XlaShapeError(f"data is {array.dtype} but the source's element type is {want}")
        return _logical_source(array, shape)
    if array is not None:
        if array.ndim != 1:
            raise XlaShapeError(
                f"data is {array.dtype}{list(array.shape)} but the source {shape} has dimensions"
                f" {shape.dimensions}: pass an array of the source's dimensions, or its buffer"
                " as bytes or a 1-D array (it is never reshaped)"
            )
        if array.dtype != _np.uint8 and array.dtype != expected:
            raise XlaShapeError(
                f"data is {array.dtype}{list(array.shape)}: neither the array {shape} "
                "(its dimensions) nor its buffer (uint8, or that element type)"
            )
        return _np.ascontiguousarray(array).reshape(-1).view(_np.uint8), shape
    return _np.frombuffer(data, dtype=_np.uint8), shape


def _shaped(buffer: _np.ndarray, shape: Shape) -> _np.ndarray:
    """The buffer of ``shape`` as the logical array, strided in the
    layout's memory order; an error for a layout no strides describe."""
    layout = shape.layout
    dtype = _dtype_or_none(shape)
    bits = 0 if layout is None else layout.element_size_in_bits
    if layout is None or layout.tiles or dtype is None or bits not in (0, dtype.itemsize * 8):
        why = "has no numpy dtype" if dtype is None else "is tiled or packed"
        raise UnsupportedError(
            f"the buffer of {shape} {why}, so no strided array shows it: pass raw=True"
        )
    major_to_minor = list(reversed(layout.minor_to_major))
    sizes = layout.padded_dimensions or shape.dimensions
    physical = buffer[: _np.prod([sizes[d] for d in major_to_minor], dtype=_np.int64) * dtype.itemsize]
    array = physical.view(dtype).reshape([sizes[d] for d in major_to_minor])
    array = array[tuple(slice(0, shape.dimensions[d]) for d in major_to_minor)]
    logical: _np.ndarray = array.transpose([major_to_minor.index(d) for d in range(len(major_to_minor))])
    return logical


def _has_gaps(shape: Shape) -> bool:
    """Whether the buffer of ``shape`` may hold bytes that no element
    fills: it is larger than its elements (tile or dimension padding), or
    its elements are packed."""
    dtype = _dtype_or_none(shape)
    layout = shape.layout
    if dtype is None or layout is None or layout.element_size_in_bits:
        return True
    count = int(_np.prod(shape.dimensions, dtype=_np.int64))
    itemsize: int = dtype.itemsize
    return array_size(shape) != count * itemsize


def _raw(buffer: _np.ndarray, shape: Shape) -> _np.ndarray:
    """The buffer as a 1-D array of the element type's dtype where its
    items fill it (unpacked), else of bytes."""
    dtype = _dtype_or_none(shape)
    layout = shape.layout
    bits = 0 if layout is None else layout.element_size_in_bits
    if dtype is None or bits not in (0, dtype.itemsize * 8) or buffer.size % dtype.itemsize:
        return buffer
    return buffer.view(dtype)


def relayout(
    data: Any,
    src: ShapeLike,
    dst: ShapeLike,
    *,
    out: Any = None,
    threads: int = 1,
    raw: bool = False,
) -> Any:
    """Copies an array into the layout ``dst`` (the same array as ``src``:
    element type and dimensions; any layouts, tiled or padded); padding is
    written as the layout says (tile padding as zeros).

    ``data`` is either the array itself (a numpy or jax array, or numpy
    scalar, with ``src``'s dimensions and the dtype of its element type:
    ``float32`` for ``f32``, ml_dtypes' ``bfloat16`` for ``bf16``; another
    dtype is refused), read by its own indices whatever its strides
    (C or Fortran order, transposed, sliced: ``src``'s layout does not
    matter then), or a buffer laid out as ``src`` (a bytes-like object, or
    a 1-D ``uint8`` array or array of the element type's dtype, of
    ``array_size(src)`` bytes). An array of other dimensions is refused,
    never reshaped.

    The result is a numpy array with the input's logical indices whose
    memory is laid out as ``dst`` says (a Fortran-ordered array for
    ``{0,1}``; padded layouts as a view of the padded buffer); a jax array
    in gives a numpy array back (jax arrays carry no strides). With
    ``raw=True`` (needed for tiled or packed layouts, which no strides
    describe) it is the destination buffer as a 1-D array (of the element
    type's dtype, or ``uint8`` when items do not fill it). With ``out`` (a
    C-contiguous writable numpy array or bytes-like object of
    ``array_size(dst)`` bytes) the buffer is written there and ``out`` is
    returned. ``threads`` is 1 (the calling thread) or the size of a pool
    the copy is split over (copies below 512 KiB a thread stay on one; the
    bytes are the same). The GIL is released during the copy.

    >>> import numpy as np
    >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> b = relayout(a, "f32[2,3]", "f32[2,3]{0,1}")
    >>> bool((b == a).all()), b.flags.f_contiguous
    (True, True)
    >>> relayout(a, "f32[2,3]", "f32[2,3]{0,1}", raw=True)
    array([0., 3., 1., 4., 2., 5.], dtype=float32)
    >>> relayout(b"ABCDEF", "u8[2,3]{1,0}", "u8[2,3]{0,1}", raw=True).tobytes()
    b'ADBECF'
    >>> buffer = bytearray(6)
    >>> relayout(b"ABCDEF", "u8[2,3]{1,0}", "u8[2,3]{0,1}", out=buffer)
    bytearray(b'ADBECF')
    >>> relayout(a, "s32[2,3]", "s32[2,3]{0,1}")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: data is float32 but the source's element type is s32 (int32)
    >>> relayout(a, "f32[3,2]", "f32[3,2]{0,1}")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: data is float32[2, 3] but the source f32[3,2]{1,0} has dimensions [3, 2]: pass an array of the source's dimensions, or its buffer as bytes or a 1-D array (it is never reshaped)
    """
    threads = _operator.index(threads)
    if threads < 1:
        raise XlaShapeError(f"threads={threads}: the copy needs at least 1 thread")
    src_shape, dst_shape = as_shape(src), as_shape(dst)
    flat, source = _source(data, src_shape)
    if out is not None:
        if isinstance(out, _np.ndarray):
            if not out.flags.c_contiguous:
                raise XlaShapeError("out must be C-contiguous")
            target = out.reshape(-1).view(_np.uint8)
        else:
            target = _np.frombuffer(out, dtype=_np.uint8)
        if not target.flags.writeable:
            raise XlaShapeError("out is read-only")
        if _np.may_share_memory(flat, target):
            raise XlaShapeError("out overlaps data: relayout needs a separate buffer")
        # The copy writes the elements and the padding values a layout
        # names; the rest of a padded, tiled or packed buffer is zeros, as
        # in a new one.
        if _has_gaps(dst_shape):
            target[...] = 0
        call(_native.relayout_into, flat, source, dst_shape, target, threads)
        return out
    expected = array_size(source)
    if flat.size != expected:
        raise XlaShapeError(f"data has {flat.size} bytes but a buffer of {source} has {expected}")
    size = array_size(dst_shape)
    try:
        target = _np.zeros(size, _np.uint8)
    except (MemoryError, ValueError) as e:
        raise XlaShapeError(f"cannot allocate the {size} bytes of a buffer of {dst_shape}: {e}") from None
    call(_native.relayout_into, flat, source, dst_shape, target, threads)
    return _raw(target, dst_shape) if raw else _shaped(target, dst_shape)
