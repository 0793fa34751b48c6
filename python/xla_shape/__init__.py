"""XLA shapes and layouts, with XLA's semantics.

>>> import xla_shape
>>> s = xla_shape.parse("f32[2,3]{0,1}")
>>> s
Shape('f32[2,3]{0,1}')
>>> s.dimensions, s.element_type, s.layout
([2, 3], 'f32', '{0,1}')
>>> xla_shape.memory_order(s)
[0, 3, 1, 4, 2, 5]
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from ._native import Shape, XlaShapeError, parse
from . import _native

__all__ = [
    "Shape",
    "Svg",
    "XlaShapeError",
    "array_size",
    "broadcast",
    "byte_size",
    "draw",
    "explain",
    "linear_index",
    "memory_order",
    "multi_index",
    "parse",
    "relayout",
    "view",
]

ShapeLike = Union[str, Shape]


def byte_size(shape: ShapeLike, *, pointer_size: Optional[int] = None) -> int:
    """XLA's ``ShapeUtil::ByteSizeOf``: the bytes of the elements (tuples
    count ``pointer_size`` bytes per element and need it).

    >>> byte_size("f32[2,3]")
    24
    >>> byte_size("(f32[2], s8[])", pointer_size=8)
    16
    """
    return _native.byte_size(shape, pointer_size)


def array_size(shape: ShapeLike) -> int:
    """XLA's ``ShapeUtil::ArraySize``: the bytes XLA allocates for the
    array, tile and tail padding included.

    >>> array_size("bf16[10,200]{1,0:T(8,128)(2,1)}")
    8192
    """
    return _native.array_size(shape)


def explain(shape: ShapeLike) -> Dict[str, Any]:
    """The facts ``xla-shape --json explain`` prints (less ``ok`` and
    ``input``): sizes, strides, major-to-minor order, tiles, padding.

    >>> facts = explain("f32[2,3]{0,1}")
    >>> facts["buffer_size"], facts["strides"], facts["major_to_minor"]
    (24, [1, 2], [1, 0])
    """
    facts: Dict[str, Any] = json.loads(_native.explain_json(shape))
    return facts


def memory_order(shape: ShapeLike) -> List[Optional[int]]:
    """For each position of the buffer in memory order (tiles and padding
    included), the row-major index of the element stored there; ``None``
    for padding.

    >>> memory_order("f32[3,5]{1,0:T(2,2)}")[:8]
    [0, 1, 5, 6, 2, 3, 7, 8]
    >>> memory_order("f32[2,3]{0,1:PAD(3,5)}")[:6]
    [0, 3, None, 1, 4, None]
    """
    return _native.memory_order(shape)


def linear_index(shape: ShapeLike, multi: Sequence[int]) -> int:
    """The buffer position of the element at index ``multi`` (tiles and
    padding included).

    >>> linear_index("f32[10,20]{0,1}", [3, 5])
    53
    """
    return _native.linear_index(shape, list(multi))


def multi_index(shape: ShapeLike, linear: int) -> List[int]:
    """The index of the element at buffer position ``linear``; an error
    for a position in the padding.

    >>> multi_index("f32[10,20]{0,1}", 53)
    [3, 5]
    """
    return _native.multi_index(shape, linear)


def broadcast(
    *shapes: ShapeLike,
    dims: Optional[Sequence[int]] = None,
    in_dim: bool = False,
    numpy: bool = False,
) -> str:
    """What ``xla-shape broadcast`` prints: XLA's result shape for an
    elementwise binary op of two shapes (``dims``: the broadcast
    dimensions), or with ``in_dim=True`` XLA's BroadcastInDim of the first
    into the second, or with ``numpy=True`` numpy's broadcast of any number.
    Bare ``[d0,...]`` lists stand for ``f32`` arrays.

    >>> broadcast("[4]", "[1,2]", dims=[0])
    '[4,2]'
    >>> broadcast("f32[7,2,5]", "f32[7,2,6]")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: Binary op with incompatible shapes: f32[7,2,5] and f32[7,2,6].
    >>> broadcast("[8,1,6,1]", "[7,1,5]", numpy=True)
    '[8,7,6,5]'
    """
    texts = [str(s) for s in shapes]
    return _native.broadcast(texts, None if dims is None else list(dims), in_dim, numpy)


def view(base_dims: Union[str, Sequence[int]], *ops: str) -> Dict[str, Any]:
    """What ``xla-shape --json view`` prints (less ``ok`` and ``error``):
    the strided view (``shape``, ``strides`` and ``offset`` in elements,
    ``c_contiguous``, ``f_contiguous``) after numpy-style operations on an
    array of ``base_dims`` (row-major), or on an XLA shape string's layout.

    >>> view([3, 4], "[0:3:2, 1:4:2]")
    {'shape': [2, 2], 'strides': [8, 2], 'offset': 1, 'c_contiguous': False, 'f_contiguous': False}
    >>> view("[3,4]", ".T", ".reshape(12)")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: Unable to avoid creating a copy while reshaping. Shape (4,3) with strides (1,4) cannot be viewed as shape (12,)
    """
    if not isinstance(base_dims, str):
        base_dims = "[" + ",".join(str(int(d)) for d in base_dims) + "]"
    result: Dict[str, Any] = json.loads(_native.view_json(base_dims, list(ops)))
    return result


class Svg:
    """An SVG picture; Jupyter shows it inline (``_repr_svg_``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_svg_(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Svg, {len(self.text)} characters>"

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the SVG (UTF-8, ending in a newline) to ``path``: the
        bytes ``xla-shape draw -o PATH`` writes."""
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.text + "\n")


def draw(shape: ShapeLike) -> Svg:
    """The picture ``xla-shape draw`` draws: the logical array with each
    element's buffer position, tiles outlined, and the buffer in memory
    order.

    >>> picture = draw("f32[2,3]{0,1}")
    >>> "<svg" in picture._repr_svg_()
    True
    """
    return Svg(_native.draw_svg(shape))


def relayout(
    data: Any, src: ShapeLike, dst: ShapeLike, *, out: Any = None
) -> Union[np.ndarray, bytes, Any]:
    """Copies the buffer ``data``, laid out as ``src``, into a new buffer
    laid out as ``dst`` (the same array: element type and dimensions; any
    layouts, tiled or padded); padding is written as the layout says (tile
    padding as zeros).

    ``data`` is a numpy array (or scalar), whose bytes in C order are the
    buffer (read in place when it is C-contiguous), or any bytes-like object
    (read in place). It must hold exactly ``array_size(src)`` bytes. A
    numpy array gives a 1-D numpy array of its dtype (``uint8`` if the
    destination's bytes are not a whole number of its items); anything else
    gives ``bytes``. With ``out`` (a C-contiguous writable numpy array or
    writable bytes-like object of ``array_size(dst)`` bytes), the
    destination is written there and ``out`` is returned. The GIL is
    released during the copy.

    >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> relayout(a, "f32[2,3]{1,0}", "f32[2,3]{0,1}")
    array([0., 3., 1., 4., 2., 5.], dtype=float32)
    >>> relayout(b"ABCDEF", "u8[2,3]{1,0}", "u8[2,3]{0,1}")
    b'ADBECF'
    >>> buffer = bytearray(6)
    >>> relayout(b"ABCDEF", "u8[2,3]{1,0}", "u8[2,3]{0,1}", out=buffer)
    bytearray(b'ADBECF')
    """
    is_array = isinstance(data, (np.ndarray, np.generic))
    if is_array:
        flat = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    else:
        flat = np.frombuffer(data, dtype=np.uint8)
    if out is not None:
        if isinstance(out, np.ndarray):
            if not out.flags.c_contiguous:
                raise XlaShapeError("out must be C-contiguous")
            target = out.reshape(-1).view(np.uint8)
        else:
            target = np.frombuffer(out, dtype=np.uint8)
        if not target.flags.writeable:
            raise XlaShapeError("out is read-only")
        if np.may_share_memory(flat, target):
            raise XlaShapeError("out overlaps data: relayout needs a separate buffer")
        _native.relayout_into(flat, src, dst, target)
        return out
    if is_array:
        result = _native.relayout_into_array(flat, src, dst)
        itemsize = data.dtype.itemsize
        if itemsize and result.size % itemsize == 0:
            return result.view(data.dtype)
        return result
    return _native.relayout_into_bytes(flat, src, dst)
