"""jax's objects, read without importing jax: each function returns
``None`` for an object that is not one of jax's (so that the caller tries
its other readings), and jax is imported only when an object of its is
given.

Objects are recognised by the module their class comes from (``jax`` or
``jaxlib``) and by the methods they offer, never by importing jax to compare
types."""

from __future__ import annotations

import operator
import sys
from typing import Any, List, NamedTuple, Optional, Sequence, Tuple

from . import _native
from ._native import XlaShapeError


class JaxSharding(NamedTuple):
    """A jax sharding as XLA sees it."""

    text: str
    """The HloSharding text (``{devices=[2,4]<=[8]}``)."""
    device_ids: Optional[List[int]]
    """jax's ``Device.id`` of each device number of ``text`` (``None``
    where the sharding names no devices)."""
    mesh_axes: Optional[List[Tuple[str, int]]]
    """The mesh's axis names and sizes, for a sharding over a mesh."""


def _is_jax(obj: object) -> bool:
    """Whether the class of ``obj`` (or one of its bases) is jax's."""
    for cls in type(obj).__mro__:
        module = getattr(cls, "__module__", None) or ""
        if module in ("jax", "jaxlib") or module.startswith(("jax.", "jaxlib.")):
            return True
    return False


def _class_names(obj: object) -> List[str]:
    """The names of the class of ``obj`` and of its bases."""
    return [cls.__name__ for cls in type(obj).__mro__]


def sharding(obj: object, ndim: int) -> Optional[JaxSharding]:
    """The HloSharding of a jax sharding for an array of ``ndim``
    dimensions, or ``None`` when ``obj`` is none of jax's.

    Read: ``jax.sharding.NamedSharding`` (over a ``Mesh``: its devices in
    the mesh's order; over an ``AbstractMesh``: no devices),
    ``SingleDeviceSharding``, ``GSPMDSharding`` and any other
    ``jax.sharding.Sharding`` that XLA can place (``PositionalSharding``
    where a jax still has it), and jaxlib's ``HloSharding`` and
    ``OpSharding`` (whose device numbers are already XLA's, so
    ``device_ids`` is ``None``)."""
    if not _is_jax(obj):
        return None
    ndim = _count(ndim, "ndim")
    names = _class_names(obj)
    if "OpSharding" in names:
        hlo_sharding = getattr(sys.modules[type(obj).__module__], "HloSharding", None)
        if hlo_sharding is None:
            raise XlaShapeError(
                f"cannot read {type(obj).__name__}: jaxlib has no HloSharding beside it"
            )
        return JaxSharding(str(hlo_sharding.from_proto(obj).to_string()), None, None)
    to_string = getattr(obj, "to_string", None)
    if "HloSharding" in names and callable(to_string):
        return JaxSharding(str(to_string()), None, None)
    to_hlo = getattr(obj, "_to_xla_hlo_sharding", None)
    if not callable(getattr(obj, "devices_indices_map", None)) or not callable(to_hlo):
        return None
    spec = getattr(obj, "spec", None)
    if spec is not None and _is_partition_spec(spec) and len(spec) > ndim:
        # A PartitionSpec names at most one entry per dimension.
        raise XlaShapeError(
            f"the PartitionSpec {spec!r} has {len(spec)} entries, more than the"
            f" {ndim} dimension{'' if ndim == 1 else 's'} of the array (rank {ndim})"
        )
    # jax 0.12 offers no public route from a Sharding to its HloSharding;
    # `_to_xla_hlo_sharding(ndim)` is the method jax itself lowers with.
    try:
        text = str(to_hlo(ndim))
    except (ValueError, TypeError, IndexError) as e:
        raise XlaShapeError(f"{obj!r} does not fit an array of {ndim} dimensions: {e}") from e
    mesh = getattr(obj, "mesh", None)
    return JaxSharding(text, _device_ids(obj, mesh), _mesh_axes(mesh))


def _is_partition_spec(obj: object) -> bool:
    """Whether ``obj`` is jax's ``PartitionSpec`` (class ``P`` in jax 0.12)."""
    names = _class_names(obj)
    return _is_jax(obj) and ("PartitionSpec" in names or "P" in names) and hasattr(obj, "__len__")


def _device_ids(obj: Any, mesh: Any) -> Optional[List[int]]:
    """jax's ``Device.id`` of each device number of a sharding's
    HloSharding: its mesh's devices in the mesh's order, else jax's own
    device assignment (no public name in jax 0.12); ``None`` for an
    abstract mesh."""
    devices: Any = None
    if mesh is not None:
        try:
            devices = list(mesh.devices.flat)
        except (ValueError, AttributeError):
            # An AbstractMesh raises ValueError: it has no devices.
            return None
    else:
        try:
            devices = list(obj._device_assignment)
        except (ValueError, AttributeError):
            return None
    return [int(device.id) for device in devices]


def _mesh_axes(mesh: Any) -> Optional[List[Tuple[str, int]]]:
    """A mesh's axis names and sizes in its order, or ``None``."""
    shape = getattr(mesh, "shape", None) if mesh is not None else None
    if shape is None or not hasattr(shape, "items"):
        return None
    return [(str(name), int(size)) for name, size in shape.items()]


def module_text(obj: object) -> Optional[str]:
    """The HLO text of a jax ``Compiled`` or ``Lowered``, or ``None``.

    A ``Compiled`` gives the module XLA compiled (``as_text()``: scheduled,
    with the layouts and buffers XLA chose); a ``Lowered`` the module before
    XLA's passes (``as_text(dialect="hlo")``); jaxlib's ``XlaComputation``
    its ``as_hlo_text()``. StableHLO (the text ``lowered.as_text()`` gives,
    or the MLIR module of ``compiler_ir()``) and a jitted function that was
    given no arguments are refused with an ``XlaShapeError`` that says what
    to pass instead, as is a ``Traced``."""
    if isinstance(obj, str):
        if _native.is_stablehlo(obj):
            raise XlaShapeError(_native.STABLEHLO)
        return None
    if not _is_jax(obj):
        return None
    names = _class_names(obj)
    as_text = getattr(obj, "as_text", None)
    if "Compiled" in names and callable(as_text):
        text = as_text()
        if not isinstance(text, str):
            raise XlaShapeError("this jax Compiled gives no HLO text (its as_text() is None)")
        return text
    if "Lowered" in names and callable(as_text):
        return str(as_text(dialect="hlo"))
    as_hlo_text = getattr(obj, "as_hlo_text", None)
    if callable(as_hlo_text):
        return str(as_hlo_text())
    if "Module" in names and type(obj).__module__.startswith("jaxlib.mlir"):
        raise XlaShapeError(_native.STABLEHLO)
    if "Traced" in names:
        raise XlaShapeError("a jax Traced is not a module yet: pass traced.lower().compile()")
    if callable(getattr(obj, "lower", None)):
        raise XlaShapeError(
            f"{type(obj).__name__} is not a module yet: pass f.lower(*args).compile()"
            " (or f.lower(*args)) for the arguments it runs on"
        )
    return None


def layout_text(obj: object) -> Optional[str]:
    """XLA's layout text (``{1,0:T(8,128)}``) of a jax ``Layout`` or
    ``Format``, or ``None``.

    jax's ``Layout`` names the dimensions major to minor, XLA's text minor
    to major; its ``tiling`` becomes XLA's tiles (``T(8,128)(2,1)``, a
    combined dimension as ``*``) and a nonzero
    ``sub_byte_element_size_in_bits`` XLA's element size (``E(4)``). Also
    read: jaxlib's ``Layout`` (``to_string()``) and the layout of a jax
    array's or ``ShapeDtypeStruct``'s ``format`` (``None`` for a
    ``ShapeDtypeStruct`` that names none: XLA's default layout applies).
    ``Layout.AUTO`` and a ``Format`` without a layout name no layout and
    are refused."""
    if not _is_jax(obj):
        return None
    names = _class_names(obj)
    if "Format" in names and hasattr(obj, "layout") and hasattr(obj, "sharding"):
        layout = getattr(obj, "layout")
        if layout is None:
            raise XlaShapeError(f"{obj!r} names no layout (its layout is None)")
        return layout_text(layout)
    if "AutoLayoutSingleton" in names:
        raise XlaShapeError(
            "Layout.AUTO leaves the layout to XLA: pass the layout it chose"
            " (compiled.input_formats or compiled.output_formats)"
        )
    if hasattr(obj, "major_to_minor") and hasattr(obj, "tiling"):
        return _layout_text(
            getattr(obj, "major_to_minor"),
            getattr(obj, "tiling"),
            getattr(obj, "sub_byte_element_size_in_bits", 0),
        )
    to_string = getattr(obj, "to_string", None)
    if hasattr(obj, "minor_to_major") and callable(to_string):
        return str(to_string())
    if hasattr(obj, "format") and hasattr(obj, "shape") and hasattr(obj, "dtype"):
        # A jax array, or a ShapeDtypeStruct: its layout if it names one.
        layout = getattr(getattr(obj, "format"), "layout", None)
        if layout is None or "AutoLayoutSingleton" in _class_names(layout):
            return None
        return layout_text(layout)
    return None


def _layout_text(major_to_minor: Sequence[Any], tiling: Any, element_bits: Any) -> str:
    """XLA's text of a layout given as jax's ``Layout`` fields."""
    order = [_count(d, "a major_to_minor dimension") for d in major_to_minor]
    minor_to_major = ",".join(str(d) for d in reversed(order))
    tiles = "".join(
        "(" + ",".join(_tile_dim(d) for d in tile) + ")" for tile in (tiling or ())
    )
    suffix = ""
    if tiles:
        suffix += "T" + tiles
    bits = _count(element_bits or 0, "sub_byte_element_size_in_bits")
    if bits:
        suffix += f"E({bits})"
    return "{" + minor_to_major + (":" + suffix if suffix else "") + "}"


def _tile_dim(d: Any) -> str:
    """One tile dimension as XLA prints it (``*`` for a combined one)."""
    value = operator.index(d)
    if value == -1:
        return "*"
    if value <= 0:
        raise XlaShapeError(f"tile dimension {value} is not positive")
    return str(value)


def _count(value: Any, what: str) -> int:
    """``value`` as a non-negative integer, or an error naming it."""
    try:
        number = operator.index(value)
    except TypeError:
        raise XlaShapeError(f"{what} must be an integer, got {value!r}") from None
    if number < 0:
        raise XlaShapeError(f"{what} must not be negative, got {number}")
    return number
