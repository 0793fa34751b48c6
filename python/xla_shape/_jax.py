"""jax's objects, read without importing jax: each function returns
``None`` for an object that is not one of jax's (so that the caller tries
its other readings), and jax is imported only when an object of its is
given."""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple


class JaxSharding(NamedTuple):
    """A jax sharding as XLA sees it."""

    text: str
    """The HloSharding text (``{devices=[2,4]<=[8]}``)."""
    device_ids: Optional[List[int]]
    """jax's ``Device.id`` of each device number of ``text`` (``None``
    where the sharding names no devices)."""
    mesh_axes: Optional[List[Tuple[str, int]]]
    """The mesh's axis names and sizes, for a sharding over a mesh."""


def sharding(obj: object, ndim: int) -> Optional[JaxSharding]:
    """The HloSharding of a jax sharding for an array of ``ndim``
    dimensions, or ``None`` when ``obj`` is none of jax's."""
    return None


def module_text(obj: object) -> Optional[str]:
    """The HLO text of a jax ``Compiled`` or ``Lowered``, or ``None``."""
    return None


def layout_text(obj: object) -> Optional[str]:
    """XLA's layout text (``{1,0:T(8,128)}``) of a jax ``Layout`` or
    ``Format``, or ``None``."""
    return None
