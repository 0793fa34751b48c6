"""Shardings: ``HloSharding``, what each device holds, reshard plans and
sharding pictures; jax's shardings read through :mod:`._jax`."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from . import _inputs, _native
from ._guard import call
from ._inputs import ShapeLike
from ._reports import ReshardPlan, ShardReport
from ._svg import Svg


class HloSharding(_native.HloSharding):
    """An XLA sharding, parsed once from XLA's text (or an ``OpSharding``
    proto: :meth:`from_proto`); ``str`` is XLA's text. ``device_ids``
    (jax's ``Device.id`` of each device number, given by a jax sharding)
    and ``mesh_axes`` (its mesh's axis names and sizes) are ``None``
    otherwise.

    >>> s = HloSharding("{devices=[2,2]<=[4] last_tile_dim_replicate}")
    >>> s.num_devices, s.devices, s.replication_groups()
    (4, [0, 1, 2, 3], [[0, 1], [2, 3]])
    >>> s.to_proto().hex()
    '08031a02020230014a0104520100'
    >>> HloSharding.from_proto(s.to_proto()) == s
    True
    >>> s.shard("f32[6]").devices[2]
    DeviceShard(device=2, tile=[1], offsets=[3], limits=[6], bytes=12, position=2)
    """

    device_ids: Optional[List[int]]
    mesh_axes: Optional[List[Tuple[str, int]]]

    def __new__(
        cls,
        text: str,
        *,
        device_ids: Optional[List[int]] = None,
        mesh_axes: Optional[List[Tuple[str, int]]] = None,
    ) -> "HloSharding":
        self = super().__new__(cls, text)
        self.device_ids = None if device_ids is None else list(device_ids)
        self.mesh_axes = None if mesh_axes is None else list(mesh_axes)
        return self

    @classmethod
    def from_proto(cls, data: bytes) -> "HloSharding":
        """The sharding a serialized ``OpSharding`` holds, as XLA's
        ``HloSharding::FromProto`` reads it."""
        return cls(call(_native.sharding_from_proto, bytes(data)))

    @classmethod
    def from_shardy(cls, sharding: str, mesh: Optional[str] = None) -> "HloSharding":
        """The XLA sharding of a Shardy sharding (jax's
        ``#sdy.sharding<@mesh, [{"a"}, {}]>``), as XLA's Shardy export
        converts it; ``mesh`` is the mesh it names (``<["a"=2, "b"=4]>``,
        ``#sdy.mesh<...>`` or a whole ``sdy.mesh @mesh = <...>`` line), not
        needed for an inline mesh. ``mesh_axes`` are the mesh's axes. XLA's
        sharding text is read as it is, as every sharding argument is.
        Shardy's verifier's errors raise ``ShardingError`` with its message.

        >>> s = HloSharding.from_shardy('#sdy.sharding<@mesh, [{"b", "a"}, {}]>', '<["a"=2, "b"=4]>')
        >>> s, s.mesh_axes
        (HloSharding('{devices=[8,1]<=[2,4]T(1,0)}'), [('a', 2), ('b', 4)])
        >>> HloSharding.from_shardy('#sdy.sharding<mesh<["x"=4]>, [{}, {"x"}]>')
        HloSharding('{devices=[1,4]<=[4]}')
        """
        text, axes = call(_native.read_sharding, sharding, mesh)
        return cls(text, mesh_axes=axes)

    def __reduce__(self) -> Any:
        return (_rebuild, (str(self), self.device_ids, self.mesh_axes))

    @property
    def devices(self) -> Optional[List[int]]:
        """The devices of the tile assignment in the row-major order of its
        grid (jax's device ids when the sharding came from jax), or ``None``
        where the sharding has no tile assignment."""
        found = self.tile_assignment_devices
        ids = self.device_ids
        return found if found is None or ids is None else [ids[d] for d in found]

    def replication_groups(self, devices: Optional[int] = None) -> List[List[int]]:
        """The groups of devices holding the same data (jax's device ids
        when the sharding came from jax), over the sharding's device count
        or, when it names none, ``devices``."""
        groups = call(super().replication_groups, devices)
        ids = self.device_ids
        return groups if ids is None else [[ids[d] for d in g] for g in groups]

    def shard(self, shape: ShapeLike, *, devices: Optional[int] = None) -> ShardReport:
        """What each device holds of an array of ``shape``: :func:`shard`."""
        return shard(shape, self, devices=devices)


def _rebuild(
    text: str, device_ids: Optional[List[int]], mesh_axes: Optional[List[Tuple[str, int]]]
) -> HloSharding:
    return HloSharding(text, device_ids=device_ids, mesh_axes=mesh_axes)


def as_sharding(sharding: Any, shape: ShapeLike) -> HloSharding:
    """A sharding argument (XLA's text, Shardy's text over an inline mesh,
    an :class:`HloSharding`, or a jax sharding for an array of ``shape``)
    as an :class:`HloSharding`; a Shardy sharding over a named mesh is
    given as ``HloSharding.from_shardy(text, mesh)``.

    >>> as_sharding("{devices=[2]<=[2]}", "f32[4]")
    HloSharding('{devices=[2]<=[2]}')
    """
    if isinstance(sharding, HloSharding):
        return sharding
    if isinstance(sharding, _native.HloSharding):
        return HloSharding(str(sharding))
    if isinstance(sharding, str):
        # XLA's text or Shardy's: the native reader tells them apart.
        return HloSharding.from_shardy(sharding)
    ndim = _inputs.rank(_inputs.shape(shape))
    found = _inputs.jax_sharding(sharding, ndim)
    if found is None:
        raise TypeError(
            "a sharding is XLA's sharding text, an xla_shape.HloSharding or a jax sharding, "
            f"not {type(sharding).__name__}"
        )
    return HloSharding(found.text, device_ids=found.device_ids, mesh_axes=found.mesh_axes)


def _device_count(devices: Optional[int], *shardings: HloSharding) -> Optional[int]:
    """``devices``, else the device count of a jax sharding or a Shardy
    sharding over a mesh that names none in XLA's text (``{replicated}``
    over a mesh): its devices', or its mesh's."""
    if devices is not None:
        return devices
    for s in shardings:
        if s.num_devices is None and s.device_ids is not None:
            return len(s.device_ids)
        if s.num_devices is None and s.mesh_axes is not None:
            count = 1
            for _, size in s.mesh_axes:
                count *= size
            return count
    return None


def shard(shape: ShapeLike, sharding: Any = None, *, devices: Optional[int] = None) -> ShardReport:
    """What each device holds of an array of ``shape`` under ``sharding``
    (XLA's sharding text, an :class:`HloSharding`, or a jax sharding; for
    a jax array, its own ``sharding`` when none is given): the report
    ``xla-shape shard`` prints. ``shard_shape`` is XLA's shard
    shape (uneven dimensions rounded up); ``devices`` lists each device's
    ``tile``, its box of the global array (``offsets`` to ``limits``,
    exclusive; ``index`` as numpy slices) and the ``bytes`` of that box
    (``None`` boxes and 0 bytes for a device that holds nothing:
    ``empty_devices``); ``replication_groups`` are the devices holding the
    same data. ``device`` is jax's ``Device.id`` for a jax sharding (in its
    mesh's device order), else the device number of XLA's sharding text
    (the ids its tile assignment names, ``0..n-1``). The keyword
    ``devices`` is the device count of a sharding that names none
    (``{replicated}``, ``{maximal device=N}``; a jax sharding's devices
    otherwise); for a sharding that names its devices it must be their
    count. The GIL is released while the devices are laid out.

    >>> report = shard("f32[7,9]", "{devices=[2,4]<=[8]}")
    >>> report.shard_shape
    Shape('f32[4,3]{1,0}')
    >>> report.devices[3]
    DeviceShard(device=3, tile=[0, 3], offsets=[0, 9], limits=[4, 9], bytes=0, position=3)
    >>> report.devices[5].index
    (slice(4, 7, None), slice(3, 6, None))
    >>> shard("bf16[6]", "{devices=[2,2]<=[4] last_tile_dim_replicate}").replication_groups
    [[0, 1], [2, 3]]
    >>> shard("f32[8]", "{replicated}")
    Traceback (most recent call last):
    ...
    xla_shape.ShardingError: {replicated} names no device count: give devices=N
    >>> shard("f32[8]", "{devices=[8]<=[8]}", devices=4)
    Traceback (most recent call last):
    ...
    xla_shape.ShardingError: {devices=[8]<=[8]} has 8 devices, not the 4 given
    """
    if sharding is None:
        sharding = getattr(shape, "sharding", None)
        if sharding is None:
            raise TypeError(
                "shard() needs a sharding: XLA's text, an xla_shape.HloSharding or a jax"
                " sharding (a jax array gives its own)"
            )
    arg = _inputs.shape(shape)
    s = as_sharding(sharding, arg)
    count = _device_count(devices, s)
    facts = call(_native.shard, arg, s, count)
    return ShardReport(
        facts,
        device_ids=s.device_ids,
        mesh_axes=s.mesh_axes,
        draw=lambda: draw_sharding(arg, s, count),
    )


def reshard(
    shape: ShapeLike, src: Any, dst: Any, *, devices: Optional[int] = None
) -> ReshardPlan:
    """The plan that moves an array of ``shape`` from the sharding ``src``
    to ``dst`` (each as for :func:`shard`): the report ``xla-shape
    reshard`` prints. ``pieces`` cover every destination device's box
    exactly once, each a box (``offsets`` to ``limits``) sent ``from_``
    a device ``to`` a device with its ``bytes``; ``bytes_moved`` and
    ``bytes_kept`` total the pieces that change device and those that stay.
    ``devices`` is the device count when neither sharding names one. The
    GIL is released while the plan is made.

    >>> plan = reshard("f32[4,4]", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "{devices=[1,4]<=[4]}")
    >>> plan.pieces[1]
    Piece(from=2, to=0, offsets=[2, 0], limits=[4, 1], bytes=8)
    >>> plan.bytes_moved, plan.bytes_kept
    (32, 32)
    >>> reshard("f32[8]", "{replicated}", "{devices=[4]<=[4]}", devices=4).bytes_moved
    0
    """
    arg = _inputs.shape(shape)
    a, b = as_sharding(src, arg), as_sharding(dst, arg)
    facts = call(
        _native.reshard, arg, a, b, _device_count(devices, a, b), a.device_ids, b.device_ids
    )
    return ReshardPlan(facts)


def draw_sharding(shape: ShapeLike, sharding: Any, devices: Optional[int] = None) -> Svg:
    """The picture ``xla-shape draw SHAPE --sharding SHARDING`` draws."""
    arg = _inputs.shape(shape)
    s = as_sharding(sharding, arg)
    return Svg(
        call(
            _native.draw_sharding_svg,
            arg,
            s,
            _device_count(devices, s),
            s.mesh_axes,
            s.device_ids,
        )
    )
