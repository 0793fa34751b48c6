"""The arguments every function takes: shapes (strings, ``Shape``s,
arrays, ``(dimensions, dtype)`` pairs, jax layouts), shardings (text,
``HloSharding``, jax's shardings) and modules (text, bytes, jax's
``Compiled``/``Lowered``)."""

from __future__ import annotations

import operator as _operator
import re as _re
from typing import Any, List, Optional, Sequence, Tuple, Union

from . import _jax
from ._dtypes import XLA_NAMES, element_type
from ._native import Layout, Shape, UnsupportedError, XlaShapeError, parse

ShapeLike = Union[str, Shape, Tuple[Sequence[int], Any], Tuple[Sequence[int], Any, Any], Any]
"""What a ``shape`` argument takes: XLA's shape text (element types as XLA
or numpy/ml_dtypes name them: ``f32[16,5]``, ``float32[16,5]``,
``bfloat16[8]{0}``), a ``Shape``, an array (anything with ``.shape`` and
``.dtype``: numpy, jax), or ``(dimensions, dtype)`` with an optional layout
third (XLA's layout text, a ``Layout``, or a jax ``Layout``/``Format``)."""

_NAMED_TYPE = _re.compile(r"\b([a-z][a-z0-9_]*)(?=\[)")


def shape_text(text: str) -> str:
    """XLA's shape text with numpy's (and ml_dtypes') element type names
    replaced by XLA's."""
    return _NAMED_TYPE.sub(lambda m: XLA_NAMES.get(m.group(1), m.group(1)), text)


def dimensions(values: Any, what: str) -> List[int]:
    """The integers of ``values``; a ``TypeError`` naming the first that is
    none (a float is no dimension)."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} are a sequence of integers, not {type(values).__name__}")
    result = []
    for value in values:
        try:
            result.append(_operator.index(value))
        except TypeError:
            raise TypeError(
                f"{what} are integers: {value!r} ({type(value).__name__}) is not one"
            ) from None
    return result


def _type_name(dtype: Any) -> str:
    name = element_type(dtype)
    if name is None:
        raise UnsupportedError(f"the dtype {dtype!r} has no XLA element type")
    return name


def _layout_text(layout: Any) -> str:
    if layout is None:
        return ""
    if isinstance(layout, (str, Layout)):
        return str(layout)
    text = _jax.layout_text(layout)
    if text is None:
        raise TypeError(
            "a layout is XLA's layout text, an xla_shape.Layout or a jax Layout/Format, "
            f"not {type(layout).__name__}"
        )
    return text


def _from_parts(dims: Any, dtype: Any, layout: Any) -> str:
    sizes = ",".join(map(str, dimensions(dims, "dimensions")))
    return f"{_type_name(dtype)}[{sizes}]{_layout_text(layout)}"


def shape(shape_like: ShapeLike) -> Union[Shape, str]:
    """``shape_like`` as the native functions take a shape: a ``Shape`` or
    XLA's text."""
    arg: Any = shape_like
    if isinstance(arg, Shape):
        return arg
    if isinstance(arg, str):
        return shape_text(arg)
    if isinstance(arg, tuple) and len(arg) in (2, 3):
        return _from_parts(arg[0], arg[1], arg[2] if len(arg) == 3 else None)
    dims, dtype = getattr(arg, "shape", None), getattr(arg, "dtype", None)
    if dims is not None and dtype is not None:
        return _from_parts(dims, dtype, _jax.layout_text(arg))
    raise TypeError(
        "a shape is XLA's shape text, an xla_shape.Shape, an array or (dimensions, dtype), "
        f"not {type(arg).__name__}"
    )


def rank(arg: Union[Shape, str]) -> int:
    """The rank of a converted shape argument (0 where it does not parse:
    the native call then reports why)."""
    if isinstance(arg, Shape):
        return int(arg.rank)
    try:
        return int(parse(arg).rank)
    except XlaShapeError:
        return 0


def jax_sharding(arg: Any, ndim: int) -> Optional[_jax.JaxSharding]:
    """The jax sharding ``arg`` is, for an array of ``ndim`` dimensions, or
    ``None``."""
    if isinstance(arg, str):
        return None
    return _jax.sharding(arg, ndim)


def module(arg: Any) -> Any:
    """A module argument: ``str``/``bytes`` as given, a jax
    ``Compiled``/``Lowered`` as its HLO text, any other object with an
    ``as_text()`` method as that text."""
    if isinstance(arg, (str, bytes)):
        return arg
    if isinstance(arg, (bytearray, memoryview)):
        return bytes(arg)
    text = _jax.module_text(arg)
    if text is not None:
        return text
    as_text = getattr(arg, "as_text", None)
    return as_text() if callable(as_text) else arg
