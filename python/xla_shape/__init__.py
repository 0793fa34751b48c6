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
    "hlo_memory",
    "memory_timeline",
    "linear_index",
    "memory_order",
    "multi_index",
    "peak_memory",
    "parse",
    "relayout",
    "reshard",
    "shard",
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
    facts: Dict[str, Any] = _native.explain(shape)
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
    result: Dict[str, Any] = _native.view(base_dims, list(ops))
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


def draw(
    shape: ShapeLike, *, sharding: Optional[str] = None, devices: Optional[int] = None
) -> Svg:
    """The picture ``xla-shape draw`` draws: the logical array with each
    element's buffer position, tiles outlined, and the buffer in memory
    order; with ``sharding`` (XLA's sharding text), the array's blocks, each
    labelled with the devices holding it and coloured by its tile
    (``devices``: the device count of a sharding that names none).

    >>> picture = draw("f32[2,3]{0,1}")
    >>> "<svg" in picture._repr_svg_()
    True
    >>> picture = draw("f32[6,8]", sharding="{devices=[2,2]<=[4]}")
    >>> "<svg" in picture._repr_svg_()
    True
    """
    if sharding is not None:
        return Svg(_native.draw_sharding_svg(shape, sharding, devices))
    if devices is not None:
        raise TypeError("draw() takes devices= only with sharding=")
    return Svg(_native.draw_svg(shape))


def shard(
    shape: ShapeLike, sharding: str, *, devices: Optional[int] = None
) -> Dict[str, Any]:
    """What each device holds of an array of ``shape`` under ``sharding``
    (XLA's sharding text): the object ``xla-shape --json shard`` prints,
    less ``ok``. ``shard_shape`` is XLA's shard shape (uneven dimensions
    rounded up); ``devices`` lists each device's ``tile``, its box of the
    global array (``offsets`` to ``limits``, exclusive) and the ``bytes`` of
    that box (``None`` boxes and 0 bytes for a device that holds nothing);
    ``replication_groups`` are the devices holding the same data. The
    keyword ``devices`` is the device count of a sharding that names none
    (``{replicated}``, ``{maximal device=N}``).

    >>> facts = shard("f32[7,9]", "{devices=[2,4]<=[8]}")
    >>> facts["shard_shape"]
    'f32[4,3]{1,0}'
    >>> facts["devices"][3]
    {'device': 3, 'tile': [0, 3], 'offsets': [0, 9], 'limits': [4, 9], 'bytes': 0}
    >>> shard("bf16[6]", "{devices=[2,2]<=[4] last_tile_dim_replicate}")["replication_groups"]
    [[0, 1], [2, 3]]
    >>> shard("f32[8]", "{replicated}")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: {replicated} names no device count: give devices=N
    """
    facts: Dict[str, Any] = _native.shard(shape, sharding, devices)
    return facts


def reshard(
    shape: ShapeLike, src: str, dst: str, *, devices: Optional[int] = None
) -> Dict[str, Any]:
    """The plan that moves an array of ``shape`` from the sharding ``src``
    to ``dst``: the object ``xla-shape --json reshard`` prints, less
    ``ok``. ``pieces`` cover every destination device's box exactly once,
    each a box (``offsets`` to ``limits``) sent ``from`` a device ``to`` a
    device with its ``bytes``; ``bytes_moved`` and ``bytes_kept`` total the
    pieces that change device and those that stay. ``devices`` is the device
    count when neither sharding names one.

    >>> plan = reshard("f32[4,4]", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "{devices=[1,4]<=[4]}")
    >>> plan["pieces"][1]
    {'from': 2, 'to': 0, 'offsets': [2, 0], 'limits': [4, 1], 'bytes': 8}
    >>> plan["bytes_moved"], plan["bytes_kept"]
    (32, 32)
    >>> reshard("f32[8]", "{replicated}", "{devices=[4]<=[4]}", devices=4)["bytes_moved"]
    0
    """
    plan: Dict[str, Any] = _native.reshard(shape, src, dst, devices)
    return plan


def hlo_memory(module: Union[str, bytes, bytearray, memoryview, Any]) -> Dict[str, Any]:
    """Every buffer of an HLO module: the object ``xla-shape --json hlo
    --all`` prints, less ``ok``. ``module`` is the module's text (a ``str``:
    ``compiled.as_text()`` in jax, the ``*.txt`` files of
    ``--xla_dump_to``), any object with an ``as_text()`` method giving it (a
    jax ``Compiled``), or a serialized ``HloModuleProto`` (``bytes``:
    ``as_serialized_hlo_module_proto()``, the ``*.pb`` files; text as bytes
    is recognised too). ``parameter_bytes`` and ``output_bytes`` are what
    XLA's ``CompiledMemoryStats`` reports (jax's ``memory_analysis()``:
    logical bytes), ``*_allocated_bytes`` the buffers' sizes with tiles;
    ``instructions`` lists every instruction's buffer, largest first, with
    its padding; ``computation_totals`` adds up each computation's. The GIL
    is released while the module is read.

    >>> text = '''HloModule tiled
    ... ENTRY %e (p: bf16[10,200]) -> bf16[10,200] {
    ...   ROOT %p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)
    ... }
    ... '''
    >>> report = hlo_memory(text)
    >>> report["parameter_bytes"], report["parameter_allocated_bytes"]
    (4000, 8192)
    >>> report["instructions"][0]["padding_bytes"], report["instructions"][0]["padding_ratio"]
    (4192, 2.048)
    >>> hlo_memory("ENTRY %e {}")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: line 1, column 1: expected `HloModule` first
    """
    if isinstance(module, (bytearray, memoryview)):
        module = bytes(module)
    return _native.hlo_memory(_as_text(module))


def _as_text(module: Any) -> Any:
    """The text of an object with an ``as_text()`` method (a jax
    ``Compiled``; duck-typed), else ``module`` itself."""
    if isinstance(module, (str, bytes, os.PathLike)):
        return module
    as_text = getattr(module, "as_text", None)
    return as_text() if callable(as_text) else module


def _module_text(x: Any) -> Optional[str]:
    """The module text ``x`` is or gives (``as_text()``), or ``None`` for a
    dump (bytes, a path): a ``str`` is text when it starts with
    ``HloModule`` or ``module`` (StableHLO, refused natively) or spans
    lines."""
    x = _as_text(x)
    if not isinstance(x, str):
        return None
    head = x.lstrip()
    if head.startswith(("HloModule", "module @", "module {")) or "\n" in x:
        return x
    return None


DumpLike = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]


def _dump(dump: DumpLike) -> Union[bytes, str]:
    """A dump as the native functions take it: bytes, or a path."""
    if isinstance(dump, (bytearray, memoryview)):
        return bytes(dump)
    if isinstance(dump, bytes):
        return dump
    return os.fspath(dump)


def peak_memory(x: Union[DumpLike, Any]) -> Dict[str, Any]:
    """The peak memory of a compiled module as XLA computes
    ``peak_memory_in_bytes``: the object ``xla-shape --json hlo FILE
    --peak`` prints, less ``ok``. ``x`` is one of:

    - the module's text (a ``str``: ``compiled.as_text()``), or any object
      with an ``as_text()`` method giving it (a jax ``Compiled``): the peak
      computed from the scheduled module alone, as XLA's buffer assignment
      would place its buffers; the report adds ``peak_is_estimate`` (true
      for a module without a schedule, taken in the order of its text),
      ``steps`` and ``buffers`` (every buffer with its ``first_step`` and
      ``last_step``). StableHLO (``lowered.as_text()``) is refused: compile
      it first;
    - XLA's dump of its buffer assignment
      (``XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_proto"``): the
      ``HloProto`` (``bytes``, or the path of ``*after_optimizations.hlo.pb``)
      or the path of ``*-buffer-assignment.txt`` (the ``*-live-range.txt``
      beside it is read too).

    ``peak_at`` says where the peak is reached (``step`` in ``unit``:
    ``heap_event`` or ``schedule_step``, and the ``instruction``);
    ``live_at_peak`` lists every buffer live there, largest first, with its
    ``kind``; ``device`` and ``host`` are XLA's other allocation totals. The
    GIL is released while the module or dump is read.

    >>> text = '''HloModule m, is_scheduled=true
    ...
    ... ENTRY %main (p: f32[256]) -> f32[256] {
    ...   %p = f32[256]{0} parameter(0)
    ...   %e = f32[256]{0} exponential(%p)
    ...   %n = f32[256]{0} negate(%e)
    ...   ROOT %s = f32[256]{0} add(%n, %e)
    ... }
    ... '''
    >>> report = peak_memory(text)
    >>> report["peak_bytes"], report["peak_at"]["instruction"], report["peak_is_estimate"]
    (3072, 'n', False)
    >>> peak_memory("module @jit_f {}")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: this is StableHLO (jax's lowered.as_text()), whose buffers are not assigned yet: compile it and pass compiled.as_text()

    An ``HloModuleProto`` (``as_serialized_hlo_module_proto()``) carries no
    buffer assignment:

    >>> peak_memory(b"")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: HloProto: no hlo_module
    """
    text = _module_text(x)
    report: Dict[str, Any] = (
        _native.peak_memory_text(text) if text is not None else _native.peak_memory(_dump(x))
    )
    return report


def memory_timeline(x: Union[DumpLike, Any]) -> Svg:
    """The memory timeline of a module (as for :func:`peak_memory`: its
    text, an object with ``as_text()``, or XLA's dump): the picture
    ``xla-shape hlo FILE --timeline OUT.svg`` writes. Live bytes over
    program order (the steps of the module's schedule or of a live-range
    dump, the heap events of an ``HloProto``) stacked by kind with the peak
    marked, the largest blocks of storage over their live ranges, and the
    buffers live at the peak; each band and bar says its buffer when
    pointed at.

    >>> memory_timeline("module.txt")
    Traceback (most recent call last):
    ...
    xla_shape.XlaShapeError: cannot open module.txt: No such file or directory (os error 2)
    """
    text = _module_text(x)
    if text is not None:
        return Svg(_native.memory_timeline_text_svg(text))
    return Svg(_native.memory_timeline_svg(_dump(x)))


def relayout(
    data: Any, src: ShapeLike, dst: ShapeLike, *, out: Any = None, threads: int = 1
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
    destination is written there and ``out`` is returned. ``threads`` is 1
    (the calling thread) or the size of a pool the copy is split over
    (copies below 512 KiB a thread stay on one; the bytes written are the
    same). The GIL is released during the copy.

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
        _native.relayout_into(flat, src, dst, target, threads)
        return out
    if is_array:
        result = _native.relayout_into_array(flat, src, dst, threads)
        itemsize = data.dtype.itemsize
        if itemsize and result.size % itemsize == 0:
            return result.view(data.dtype)
        return result
    return _native.relayout_into_bytes(flat, src, dst, threads)


# Shardy text (jax 0.12's `#sdy.sharding`, `sdy.mesh`).

__all__ += ["lowered_shardings", "sharding_from_shardy", "sharding_to_shardy"]


def sharding_from_shardy(sharding: str, mesh: Optional[str] = None) -> str:
    """XLA's sharding text of a Shardy sharding, as XLA's Shardy export
    converts it; ``mesh`` is the mesh it names (``<["a"=2, "b"=4]>`` or a
    whole ``sdy.mesh @mesh = <...>`` line), not needed for an inline mesh.
    Shardy's verifier's errors raise ``XlaShapeError`` with its message.

    >>> sharding_from_shardy('#sdy.sharding<@mesh, [{"b", "a"}, {}]>', '<["a"=2, "b"=4]>')
    '{devices=[8,1]<=[2,4]T(1,0)}'
    >>> sharding_from_shardy('#sdy.sharding<mesh<["x"=4]>, [{}, {"x"}]>')
    '{devices=[1,4]<=[4]}'
    """
    return _native.sharding_from_shardy(sharding, mesh)


def sharding_to_shardy(sharding: str, mesh: str, rank: int) -> Optional[str]:
    """The Shardy sharding of whole axes of ``mesh`` that converts to the XLA
    sharding ``sharding`` for an array of rank ``rank``; ``None`` if none does.

    >>> sharding_to_shardy("{devices=[8,1]<=[2,4]T(1,0)}", 'sdy.mesh @mesh = <["a"=2, "b"=4]>', 2)
    '#sdy.sharding<@mesh, [{"b", "a"}, {}]>'
    >>> sharding_to_shardy("{devices=[3]<=[3]}", '<["a"=2, "b"=4]>', 1) is None
    True
    """
    return _native.sharding_to_shardy(sharding, mesh, rank)


def lowered_shardings(lowered: Any) -> Dict[str, Any]:
    """What each device holds of a lowered function's arguments and results:
    ``lowered`` is a jax ``Lowered`` (its ``as_text()`` is read) or that text.
    The dict of ``xla-shape --json lowered``: ``devices``, ``entries`` (per
    argument then result: ``kind``, ``index``, ``name``, ``tensor_type``,
    ``shape``, ``sdy``, ``hlo``, ``shard_shape``, ``bytes`` by device),
    ``argument_bytes`` and ``result_bytes`` by device.

    >>> text = '''module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
    ...   sdy.mesh @mesh = <["a"=2]>
    ...   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
    ...     return %arg0 : tensor<8xf32>
    ...   }
    ... }'''
    >>> report = lowered_shardings(text)
    >>> report["entries"][0]["hlo"], report["argument_bytes"], report["result_bytes"]
    ('{devices=[2]<=[2]}', [16, 16], [32, 32])
    """
    text = lowered if isinstance(lowered, str) else lowered.as_text()
    report: Dict[str, Any] = _native.lowered_shardings(text)
    return report
