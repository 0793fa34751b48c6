"""XLA's element types and numpy's dtypes (ml_dtypes' for the types numpy
lacks: ``bfloat16``, ``float8_*``, ``int4``, ...), both ways."""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as _np

from ._native import UnsupportedError

NUMPY_NAMES: Dict[str, str] = {
    "pred": "bool",
    "s8": "int8",
    "s16": "int16",
    "s32": "int32",
    "s64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "c64": "complex64",
    "c128": "complex128",
    "s1": "int1",
    "s2": "int2",
    "s4": "int4",
    "u1": "uint1",
    "u2": "uint2",
    "u4": "uint4",
    "bf16": "bfloat16",
    "f4e2m1fn": "float4_e2m1fn",
    "f6e2m3fn": "float6_e2m3fn",
    "f6e3m2fn": "float6_e3m2fn",
    "f8e3m4": "float8_e3m4",
    "f8e4m3": "float8_e4m3",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e5m2": "float8_e5m2",
    "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e8m0fnu": "float8_e8m0fnu",
}
"""Each XLA element type's numpy (or ml_dtypes) dtype name."""

XLA_NAMES: Dict[str, str] = {name: xla for xla, name in NUMPY_NAMES.items()}
"""Each numpy (or ml_dtypes) dtype name's XLA element type."""

ML_DTYPES = frozenset(
    name
    for xla, name in NUMPY_NAMES.items()
    if xla in ("s1", "s2", "s4", "u1", "u2", "u4", "bf16") or xla.startswith(("f4e", "f6e", "f8e"))
)
"""The dtype names only ml_dtypes defines."""


def numpy_dtype(element_type: str) -> Any:
    """The numpy dtype of XLA's element type ``element_type``: numpy's own,
    or ml_dtypes' (an error saying so when ml_dtypes is not installed)."""
    name = NUMPY_NAMES.get(element_type)
    if name is None:
        raise UnsupportedError(f"{element_type} has no numpy dtype")
    if name not in ML_DTYPES:
        return _np.dtype(name)
    try:
        import ml_dtypes
    except ImportError:
        raise UnsupportedError(
            f"the numpy dtype of {element_type} is ml_dtypes.{name}: pip install ml_dtypes"
        ) from None
    return _np.dtype(getattr(ml_dtypes, name))


def element_type(dtype: Any) -> Optional[str]:
    """XLA's element type of ``dtype`` (a numpy dtype or scalar type, a jax
    dtype, or a name: ``float32``, ``bfloat16``, ``int4``, or XLA's own
    ``f32``), or ``None`` when it is none of these."""
    if isinstance(dtype, str):
        if dtype in NUMPY_NAMES:
            return dtype
        return XLA_NAMES.get(dtype)
    try:
        name = _np.dtype(dtype).name
    except TypeError:
        return None
    return XLA_NAMES.get(name)
