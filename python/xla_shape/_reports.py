"""The report classes: the typed Rust reports (``shape_util::Explanation``,
``stride_util::ViewReport``, ``sharding_util::ShardReport`` and
``ReshardPlan``, ``hlo_util::MemoryReport`` and ``PeakReport``) as Python
objects, each field an attribute (``report.peak_bytes``) and a key
(``report["peak_bytes"]``), nested entries objects of their own."""

from __future__ import annotations

import keyword as _keyword
import os as _os
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Tuple, Type, Union

from ._guard import call
from ._native import Peak, Shape, XlaShapeError
from ._peak_tables import PeakTable
from ._svg import Svg


def _short(value: Any) -> str:
    """``repr(value)``, long lists cut to their first entries (one for a
    list of records, three otherwise)."""
    if not isinstance(value, list):
        return repr(value)
    keep = 1 if value and isinstance(value[0], Record) else 3
    if len(value) <= keep + 1:
        return repr(value)
    head = ", ".join(repr(v) for v in value[:keep])
    return f"[{head}, ... {len(value)} in all]"


class Record:
    """A report or an entry of one: its fields as attributes (a Python
    keyword gets a trailing ``_``: ``piece.from_``) and by key."""

    _entries: ClassVar[Dict[str, Type["Record"]]] = {}
    """The fields whose values (or list items) are records of their own."""

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self._fields: Dict[str, Any] = {}
        for key, value in fields.items():
            kind = self._entries.get(key)
            if kind is not None and value is not None:
                value = [kind(v) for v in value] if isinstance(value, list) else kind(value)
            self._fields[key] = value
            setattr(self, key + "_" if _keyword.iskeyword(key) else key, value)

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def keys(self) -> List[str]:
        """The field names, as the JSON of the command line names them."""
        return list(self._fields)

    def to_dict(self) -> Dict[str, Any]:
        """The fields as plain ``dict``s and ``list``s (the command's
        ``--json`` object)."""

        def plain(value: Any) -> Any:
            if isinstance(value, Record):
                return value.to_dict()
            if isinstance(value, list):
                return [plain(v) for v in value]
            if isinstance(value, Shape):
                return str(value)
            return value

        return {key: plain(value) for key, value in self._fields.items()}

    def __eq__(self, other: object) -> bool:
        """Equal to a record of the same class and fields, or to the
        ``dict`` of :meth:`to_dict`."""
        if isinstance(other, dict):
            return self.to_dict() == other
        return isinstance(other, Record) and type(other) is type(self) and self._fields == other._fields

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={_short(value)}" for key, value in self._fields.items())
        return f"{type(self).__name__}({fields})"


class Pictured(Record):
    """A record Jupyter shows as a picture (``_repr_svg_``), drawn when
    shown."""

    def __init__(self, fields: Mapping[str, Any], draw: Optional[Callable[[], Svg]] = None) -> None:
        super().__init__(fields)
        self._draw = draw

    def _repr_svg_(self) -> Optional[str]:
        """The picture, or ``None`` where there is none to draw."""
        if self._draw is None:
            return None
        try:
            return self._draw().text
        except XlaShapeError:
            return None


class Explanation(Pictured):
    """What ``explain`` reports of a shape (``shape_util::Explanation``):
    sizes, strides, major-to-minor order, tiles, padding. Jupyter shows
    the shape's picture."""

    element_type: str
    rank: Optional[int]
    true_rank: Optional[int]
    element_count: Optional[int]
    byte_size: Optional[int]
    buffer_size: Optional[int]
    tiles: List[List[int]]
    strides: Optional[List[int]]
    byte_strides: Optional[List[int]]
    major_to_minor: Optional[List[int]]
    padded_dimensions: Optional[List[int]]


class View(Pictured):
    """A strided view after numpy-style operations
    (``stride_util::ViewReport``): ``shape``, ``strides`` and ``offset`` in
    elements, and whether it is C or Fortran contiguous. Jupyter shows the
    view over its base's buffer."""

    shape: List[int]
    strides: List[int]
    offset: int
    c_contiguous: bool
    f_contiguous: bool


class DeviceShard(Record):
    """What one device holds (``sharding_util::DeviceShard``): its ``tile``
    in the tile grid, its box of the global array (``offsets`` to
    ``limits``, exclusive; ``None`` when it holds nothing) and the
    ``bytes`` of that box. ``device`` is jax's ``Device.id`` when the
    sharding came from jax, else the device number of XLA's sharding;
    ``position`` is always the latter."""

    device: int
    position: int
    tile: Optional[List[int]]
    offsets: Optional[List[int]]
    limits: Optional[List[int]]
    bytes: int

    @property
    def index(self) -> Optional[Tuple[slice, ...]]:
        """The box as a numpy index (jax's ``devices_indices_map`` entry),
        or ``None`` for a device that holds nothing."""
        if self.offsets is None or self.limits is None:
            return None
        return tuple(slice(lo, hi) for lo, hi in zip(self.offsets, self.limits))


class ShardReport(Pictured):
    """What every device holds of an array under a sharding
    (``sharding_util::ShardReport``): XLA's ``shard_shape`` (uneven
    dimensions rounded up), every device's :class:`DeviceShard`, and the
    ``replication_groups`` (devices holding the same data). Jupyter shows
    the sharding's picture."""

    _entries = {"devices": DeviceShard}

    shard_shape: Shape
    devices: List[DeviceShard]
    replication_groups: List[List[int]]
    mesh_axes: Optional[List[Tuple[str, int]]]

    def __init__(
        self,
        fields: Mapping[str, Any],
        device_ids: Optional[List[int]] = None,
        mesh_axes: Optional[List[Tuple[str, int]]] = None,
        draw: Optional[Callable[[], Svg]] = None,
    ) -> None:
        fields = dict(fields)
        fields["shard_shape"] = Shape(fields["shard_shape"])
        ids = _ids(device_ids)
        fields["devices"] = [
            dict(d, device=ids(d["device"]), position=d["device"]) for d in fields["devices"]
        ]
        fields["replication_groups"] = [[ids(d) for d in g] for g in fields["replication_groups"]]
        super().__init__(fields, draw)
        self.mesh_axes = mesh_axes

    @property
    def empty_devices(self) -> List[int]:
        """The devices that hold nothing of the array (no box, or an empty
        one: the last tiles of an uneven split)."""
        return [d.device for d in self.devices if d.offsets is None or _empty(d)]


class Piece(Record):
    """One block of a reshard (``sharding_util::Piece``): sent from device
    ``from_`` (key ``"from"``) to device ``to``, the box ``offsets`` to
    ``limits`` of the global array, and its ``bytes``."""

    from_: int
    to: int
    offsets: List[int]
    limits: List[int]
    bytes: int


class ReshardPlan(Record):
    """The pieces that move an array from one sharding to another
    (``sharding_util::ReshardPlan``): every destination device's box
    covered once, and the ``bytes_moved`` between devices and
    ``bytes_kept`` on them."""

    _entries = {"pieces": Piece}

    pieces: List[Piece]
    bytes_moved: int
    bytes_kept: int

    def __init__(
        self,
        fields: Mapping[str, Any],
        src_ids: Optional[List[int]] = None,
        dst_ids: Optional[List[int]] = None,
    ) -> None:
        fields = dict(fields)
        src, dst = _ids(src_ids), _ids(dst_ids)
        fields["pieces"] = [
            dict(p, **{"from": src(p["from"]), "to": dst(p["to"])}) for p in fields["pieces"]
        ]
        super().__init__(fields)


class Frame(Record):
    """A frame of a buffer's Python stack: the ``file``, ``line`` and
    ``function``, and where the module records them ``end_line``,
    ``column`` and ``end_column`` (else ``None``)."""

    file: str
    line: int
    function: str
    end_line: Optional[int]
    column: Optional[int]
    end_column: Optional[int]

    def __init__(self, fields: Mapping[str, Any]) -> None:
        keys = ("file", "line", "function", "end_line", "column", "end_column")
        full = {key: fields.get(key) for key in keys}
        full.update(fields)
        super().__init__(full)


class Sourced(Record):
    """A record of a buffer with an origin: its defining instruction's
    ``op_name`` and ``stack`` (:class:`Frame`, innermost first), and
    ``source``, the innermost frame's ``"file:line"``."""

    _entries = {"stack": Frame}

    op_name: Optional[str]
    stack: List[Frame]

    @property
    def source(self) -> Optional[str]:
        """``"file:line"`` of the innermost frame, ``None`` without a stack."""
        stack = self._fields.get("stack") or []
        return "%s:%d" % (stack[0].file, stack[0].line) if stack else None


class InstructionBuffer(Sourced):
    """An instruction's buffer in an HLO module: ``computation``, ``name``,
    ``opcode``, ``shape``, logical ``bytes``, ``allocated_bytes`` (tiles
    included), ``padding_bytes`` and ``padding_ratio``, ``memory_space``,
    for a sharded module the ``per_device_shape`` and
    ``per_device_bytes``; and where it comes from, as a
    :class:`LiveBuffer`: ``op_name``, ``stack`` and ``source``."""

    computation: str
    name: str
    opcode: str
    shape: str
    bytes: int
    allocated_bytes: int
    padding_bytes: int
    padding_ratio: float
    memory_space: int
    per_device_shape: Optional[str]
    per_device_bytes: Optional[int]


class ComputationTotal(Record):
    """The buffers of one computation added up."""

    computation: str
    instructions: int
    bytes: int
    allocated_bytes: int
    padding_bytes: int


class MemoryReport(Record):
    """Every buffer of an HLO module (``hlo_util::MemoryReport``):
    ``parameter_bytes`` and ``output_bytes`` as XLA's
    ``CompiledMemoryStats`` (jax's ``memory_analysis()``), the allocated
    sizes with tiles, the per-device sizes of a sharded module, each
    :class:`InstructionBuffer` (largest first), each computation's
    :class:`ComputationTotal` and, only when the reader met something it
    does not understand (an opcode XLA does not know, its buffer sized as
    any other's), ``warnings``: where and what, as the command prints them
    last."""

    _entries = {"instructions": InstructionBuffer, "computation_totals": ComputationTotal}

    module: str
    parameter_bytes: int
    output_bytes: int
    parameter_allocated_bytes: int
    output_allocated_bytes: int
    per_device_parameter_bytes: Optional[int]
    per_device_output_bytes: Optional[int]
    computations: int
    instruction_count: int
    instructions: List[InstructionBuffer]
    computation_totals: List[ComputationTotal]
    warnings: List[str]


class PeakAt(Record):
    """Where the peak is reached: the ``step`` (in ``unit``:
    ``heap_event`` or ``schedule_step``) and the ``instruction``."""

    step: int
    unit: str
    instruction: str


class LiveBuffer(Sourced):
    """A buffer live at the peak (or, with ``first_step``, ``last_step``
    and ``storage_of``, the position in ``buffers`` of the buffer whose
    storage it takes over, any buffer of a module's text): its ``name``,
    ``shape_index``, ``shape``, ``bytes`` and ``kind``; where it comes
    from, its defining instruction's ``op_name`` (an entry parameter's is
    its pytree path; ``None`` when the module records none) and ``stack``
    (:class:`Frame`, innermost first; empty when none); and ``source``,
    the innermost frame's ``"file:line"``."""

    name: str
    shape_index: List[int]
    shape: str
    bytes: int
    kind: str
    first_step: Optional[int]
    last_step: Optional[int]
    storage_of: Optional[int]


class AllocationTotals(Record):
    """XLA's allocation totals of one memory: argument, output, alias and
    temporary bytes."""

    argument_bytes: int
    output_bytes: int
    alias_bytes: int
    temp_bytes: int


class PeakReport(Pictured):
    """The peak memory of a compiled module (``hlo_util::PeakReport``), as
    XLA computes ``peak_memory_in_bytes``: ``peak_bytes`` (``static_bytes``
    plus ``heap_peak_bytes``), where (:class:`PeakAt`), the buffers live
    there (:class:`LiveBuffer`, largest first) and XLA's ``device`` and
    ``host`` totals; from a module's text also ``peak_is_estimate``,
    ``steps``, every buffer with its steps and, when the text has an opcode
    XLA does not know (read as an instruction of its shape, its buffers
    counted), ``warnings`` as :class:`MemoryReport` has them. Jupyter shows
    the memory timeline."""

    _entries = {
        "peak_at": PeakAt,
        "live_at_peak": LiveBuffer,
        "device": AllocationTotals,
        "host": AllocationTotals,
        "buffers": LiveBuffer,
    }

    peak_bytes: int
    static_bytes: int
    heap_peak_bytes: int
    peak_at: Optional[PeakAt]
    live_at_peak: List[LiveBuffer]
    device: AllocationTotals
    host: AllocationTotals
    warnings: List[str]
    peak_is_estimate: Optional[bool]
    steps: Optional[int]
    buffers: Optional[List[LiveBuffer]]

    def __init__(
        self,
        fields: Mapping[str, Any],
        draw: Optional[Callable[[], Svg]] = None,
        peak: Optional[Peak] = None,
    ) -> None:
        super().__init__(fields, draw)
        self._peak = peak
        if "warnings" not in self._fields:
            # None to report: an empty list (the JSON leaves the field out).
            self.warnings = []

    def _native(self) -> Peak:
        if self._peak is None:
            raise XlaShapeError("this report was built from a dict: call peak_memory() for its groupings")
        return self._peak

    def group(self, by: str) -> PeakTable:
        """The bytes live at the peak grouped ``by`` one of ``source`` (the
        innermost frame's ``file:line``), ``function``, ``stack`` (the
        whole stack), ``op`` (``op_name``), ``pass`` (jax's: ``forward``,
        ``backward`` inside ``transpose(...)``, ``remat``) or ``kind``: a
        :class:`PeakTable` of the group, ``bytes``, ``buffers`` and
        ``percent`` of the peak, largest first (``xla-shape hlo FILE
        --peak --by BY``). The buffers whose module records no origin are
        the group ``None``."""
        return PeakTable(by, call(self._native().groups, by))

    def by_source(self) -> PeakTable:
        """The bytes at the peak by source line: :meth:`group` ``("source")``."""
        return self.group("source")

    def by_op(self) -> PeakTable:
        """The bytes at the peak by jax op_name: :meth:`group` ``("op")``."""
        return self.group("op")

    def by_pass(self) -> PeakTable:
        """The bytes at the peak by jax's pass: :meth:`group` ``("pass")``."""
        return self.group("pass")

    def by_function(self) -> PeakTable:
        """The bytes at the peak by function: :meth:`group` ``("function")``."""
        return self.group("function")

    def flame(self) -> Svg:
        """The flame graph of the peak's bytes by Python stack (``xla-shape
        hlo FILE --peak --flame OUT.svg``): an icicle, outermost frame on
        top, each frame as wide as its bytes and labelled ``function
        (file:line)``, its buffers said when pointed at; the buffers
        without a stack are blocks of their own."""
        return Svg(call(self._native().flame_svg))

    def to_pprof(self, path: Union[str, "_os.PathLike[str]"]) -> None:
        """Writes the buffers live at the peak to ``path`` as a gzipped
        pprof profile (``--pprof OUT``): one sample per buffer, sample
        types ``allocations``/``count`` and ``space``/``bytes`` as
        ``jax.profiler.save_device_memory_profile`` writes them, its stack
        as locations, labels ``kind``, ``shape``, ``buffer`` and
        ``op_name``; ``pprof -http`` and speedscope open it."""
        data = call(self._native().pprof)
        with open(path, "wb") as f:
            f.write(data)

    def diff(self, other: "PeakReport") -> "PeakDiff":
        """What changed from this peak to ``other``'s (``xla-shape hlo A
        --peak --diff B``): :class:`PeakDiff`."""
        return PeakDiff(call(self._native().diff, other._native()))


class PeakDiff(Record):
    """The peak of program B against that of program A
    (``hlo_util::PeakDiff``): ``a_peak_bytes``, ``b_peak_bytes``,
    ``peak_bytes_delta`` (B less A), and the bytes at each peak
    ``by_source`` and ``by_op`` side by side (:class:`PeakTable` of the
    group, ``a_bytes``, ``b_bytes``, ``delta_bytes``), largest change
    first."""

    a_peak_bytes: int
    b_peak_bytes: int
    peak_bytes_delta: int
    by_source: PeakTable
    by_op: PeakTable

    def __init__(self, fields: Mapping[str, Any]) -> None:
        fields = dict(fields)
        fields["by_source"] = PeakTable("source", fields["by_source"])
        fields["by_op"] = PeakTable("op", fields["by_op"])
        super().__init__(fields)

    def _repr_html_(self) -> str:
        head = (
            f"<p>peak {self.a_peak_bytes} \u2192 {self.b_peak_bytes} bytes "
            f"({self.peak_bytes_delta:+d})</p>"
        )
        return head + self.by_source._repr_html_() + self.by_op._repr_html_()


def _empty(shard: DeviceShard) -> bool:
    """Whether the box of ``shard`` holds no element."""
    limits = shard.limits or []
    return any(lo >= hi for lo, hi in zip(shard.offsets or [], limits))


def _ids(device_ids: Optional[List[int]]) -> Callable[[int], int]:
    """Maps a device number of XLA's sharding to jax's ``Device.id``
    (itself without ``device_ids``)."""
    if device_ids is None:
        return lambda d: d
    ids = list(device_ids)

    def lookup(d: int) -> int:
        if not 0 <= d < len(ids):
            from ._native import ShardingError

            raise ShardingError(f"device {d} is beyond the {len(ids)} devices of the jax sharding")
        return ids[d]

    return lookup


class LoweredEntry(Record):
    """One argument or result of a lowered function
    (``sharding_util::sdy::LoweredEntry``): its ``kind`` (``argument`` or
    ``result``), ``index``, ``name``, MLIR ``tensor_type`` and XLA
    ``shape``, its sharding as Shardy wrote it (``sdy``) and as XLA's text
    (``hlo``), the ``shard_shape`` and the ``bytes`` each device holds, and
    the ``source`` of the sharding: ``lowered`` (the module's), ``compiled``
    (the one XLA chose) or ``unspecified`` (left to XLA's sharding
    propagation: no ``hlo``, ``shard_shape`` or ``bytes``)."""

    kind: str
    index: int
    name: Optional[str]
    tensor_type: str
    shape: str
    sdy: Optional[str]
    hlo: Optional[str]
    shard_shape: Optional[str]
    bytes: Optional[List[int]]
    source: str


class LoweredShardings(Record):
    """What each device holds of a lowered function's arguments and
    results (``sharding_util::sdy::LoweredReport``): the ``devices`` count,
    an :class:`LoweredEntry` per argument then result, and the
    ``argument_bytes`` and ``result_bytes`` of each device (of the entries
    whose sharding is known)."""

    _entries = {"entries": LoweredEntry}

    devices: int
    entries: List[LoweredEntry]
    argument_bytes: List[int]
    result_bytes: List[int]
