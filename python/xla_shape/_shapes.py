"""Shapes: parsing, validation, sizes, memory order, indices,
broadcasting, views and pictures."""

from __future__ import annotations

from typing import List, Optional, Sequence, Union

from . import _inputs, _native
from ._guard import call
from ._inputs import ShapeLike
from ._native import Shape
from ._reports import Explanation, View
from ._svg import Svg


def parse(text: str) -> Shape:
    """Parses XLA's shape text as XLA's parser does (an array without a
    layout gets XLA's default layout; numpy's type names are read as XLA's).
    The shape is not validated: see :func:`validate`.

    >>> s = parse("f32[2,3]{0,1}")
    >>> s
    Shape('f32[2,3]{0,1}')
    >>> s.dimensions, s.element_type, s.layout, s.rank
    ([2, 3], 'f32', Layout('{0,1}'), 2)
    >>> parse("f32[2,3]{1,1}")
    Shape('f32[2,3]{1,1}')
    """
    return call(_native.parse, text)


def as_shape(shape: ShapeLike) -> Shape:
    """Any shape argument as a :class:`Shape`, not validated.

    >>> import numpy as np
    >>> as_shape(np.zeros((2, 3), np.int8))
    Shape('s8[2,3]{1,0}')
    >>> as_shape(((16, 5), "bfloat16", "{0,1}"))
    Shape('bf16[16,5]{0,1}')
    >>> as_shape("float32[16,5]") == "f32[16,5]"
    True
    """
    arg = _inputs.shape(shape)
    return arg if isinstance(arg, Shape) else call(_native.parse, arg)


def validate(shape: ShapeLike) -> None:
    """XLA's ``ShapeUtil::ValidateShape``: returns ``None`` for a valid
    shape, else raises :class:`InvalidShapeError` with XLA's message.
    Every function that needs a valid shape validates it first.

    >>> validate("f32[2,3]{1,0}")
    >>> validate("f32[2,3]{1,1}")
    Traceback (most recent call last):
    ...
    xla_shape.InvalidShapeError: layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]
    """
    call(_native.validate, _inputs.shape(shape))


def byte_size(shape: ShapeLike, *, pointer_size: Optional[int] = None) -> int:
    """XLA's ``ShapeUtil::ByteSizeOf``: the bytes of the elements (tuples
    count ``pointer_size`` bytes per element and need it).

    >>> byte_size("f32[2,3]")
    24
    >>> byte_size("(f32[2], s8[])", pointer_size=8)
    16
    >>> import numpy as np
    >>> byte_size(np.zeros((4, 5), np.float16))
    40
    """
    return call(_native.byte_size, _inputs.shape(shape), pointer_size)


def array_size(shape: ShapeLike) -> int:
    """XLA's ``ShapeUtil::ArraySize``: the bytes XLA allocates for the
    array, tile and tail padding included.

    >>> array_size("bf16[10,200]{1,0:T(8,128)(2,1)}")
    8192
    """
    return call(_native.array_size, _inputs.shape(shape))


def explain(shape: ShapeLike) -> Explanation:
    """The facts ``xla-shape --json explain`` prints (less ``ok`` and
    ``input``): sizes, strides, major-to-minor order, tiles, padding.

    >>> facts = explain("f32[2,3]{0,1}")
    >>> facts.buffer_size, facts.strides, facts.major_to_minor
    (24, [1, 2], [1, 0])
    """
    arg = _inputs.shape(shape)
    facts = call(_native.explain, arg)
    return Explanation(facts, draw=lambda: draw(arg))


def memory_order(shape: ShapeLike) -> List[Optional[int]]:
    """For each position of the buffer in memory order (tiles and padding
    included), the row-major index of the element stored there; ``None``
    for padding.

    >>> memory_order("f32[3,5]{1,0:T(2,2)}")[:8]
    [0, 1, 5, 6, 2, 3, 7, 8]
    >>> memory_order("f32[2,3]{0,1:PAD(3,5)}")[:6]
    [0, 3, None, 1, 4, None]
    """
    return call(_native.memory_order, _inputs.shape(shape))


def linear_index(shape: ShapeLike, multi: Sequence[int]) -> int:
    """The buffer position of the element at index ``multi`` (tiles and
    padding included).

    >>> linear_index("f32[10,20]{0,1}", [3, 5])
    53
    """
    index = _inputs.dimensions(multi, "indices")
    return call(_native.linear_index, _inputs.shape(shape), index)


def multi_index(shape: ShapeLike, linear: int) -> List[int]:
    """The index of the element at buffer position ``linear``; an error
    for a position in the padding.

    >>> multi_index("f32[10,20]{0,1}", 53)
    [3, 5]
    """
    (position,) = _inputs.dimensions([linear], "positions")
    return call(_native.multi_index, _inputs.shape(shape), position)


def broadcast(
    *shapes: ShapeLike,
    dims: Optional[Sequence[int]] = None,
    in_dim: bool = False,
    numpy: bool = False,
) -> Shape:
    """XLA's result shape for an elementwise binary op of two shapes
    (``dims``: the broadcast dimensions), or with ``in_dim=True`` XLA's
    BroadcastInDim of the first into the second, or with ``numpy=True``
    numpy's broadcast of any number: what ``xla-shape broadcast`` prints.
    Bare ``[d0,...]`` lists stand for ``f32`` arrays.

    >>> broadcast("[4]", "[1,2]", dims=[0])
    Shape('f32[4,2]{1,0}')
    >>> broadcast("f32[7,2,5]", "f32[7,2,6]")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: Binary op with incompatible shapes: f32[7,2,5] and f32[7,2,6].
    >>> broadcast("[8,1,6,1]", "[7,1,5]", numpy=True).dimensions
    [8, 7, 6, 5]
    """
    texts = [s if isinstance(s, str) and s.lstrip().startswith("[") else str(as_shape(s)) for s in shapes]
    dim_list = None if dims is None else _inputs.dimensions(dims, "dims")
    text = call(_native.broadcast, texts, dim_list, in_dim, numpy)
    return parse(("f32" + text) if text.startswith("[") else text)


def view(base_dims: Union[str, Sequence[int]], *ops: str) -> View:
    """The strided view (``shape``, ``strides`` and ``offset`` in elements,
    ``c_contiguous``, ``f_contiguous``) after numpy-style operations on an
    array of ``base_dims`` (row-major), or on an XLA shape string's layout:
    what ``xla-shape --json view`` prints (less ``ok`` and ``error``).

    >>> view([3, 4], "[0:3:2, 1:4:2]")
    View(shape=[2, 2], strides=[8, 2], offset=1, c_contiguous=False, f_contiguous=False)
    >>> view("[3,4]", ".T", ".reshape(12)")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: Unable to avoid creating a copy while reshaping. Shape (4,3) with strides (1,4) cannot be viewed as shape (12,)
    >>> view([2.9, 3.99])
    Traceback (most recent call last):
    ...
    TypeError: dimensions are integers: 2.9 (float) is not one
    """
    if not isinstance(base_dims, str):
        base_dims = "[" + ",".join(map(str, _inputs.dimensions(base_dims, "dimensions"))) + "]"
    base, steps = base_dims, list(ops)
    return View(
        call(_native.view, base, steps),
        draw=lambda: Svg(call(_native.draw_view_svg, base, steps)),
    )


def draw(shape: ShapeLike, *, sharding: object = None, devices: Optional[int] = None) -> Svg:
    """The picture ``xla-shape draw`` draws: the logical array with each
    element's buffer position, tiles outlined, and the buffer in memory
    order; with ``sharding`` (XLA's sharding text, an ``HloSharding`` or a
    jax sharding), the array's blocks, each labelled with the devices
    holding it and coloured by its tile (``devices``: the device count of a
    sharding that names none).

    >>> picture = draw("f32[2,3]{0,1}")
    >>> "<svg" in picture._repr_svg_()
    True
    >>> picture = draw("f32[6,8]", sharding="{devices=[2,2]<=[4]}")
    >>> "<svg" in picture._repr_svg_()
    True
    """
    if sharding is not None:
        from ._sharding import draw_sharding

        return draw_sharding(shape, sharding, devices)
    if devices is not None:
        raise TypeError("draw() takes devices= only with sharding=")
    return Svg(call(_native.draw_svg, _inputs.shape(shape)))
