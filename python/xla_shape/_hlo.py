"""HLO modules: every buffer, the peak memory and its timeline, from a
module's text, a serialized module, XLA's dumps or jax's
``Compiled``/``Lowered``."""

from __future__ import annotations

import os as _os
from typing import Any, Union

from . import _inputs, _native
from ._guard import call
from ._native import HloError
from ._reports import MemoryReport, PeakReport
from ._svg import Svg

DumpLike = Union[bytes, bytearray, memoryview, str, "_os.PathLike[str]"]
"""XLA's dump of a buffer assignment: the ``HloProto``'s bytes, or a path."""


def hlo_memory(module: Any) -> MemoryReport:
    """Every buffer of an HLO module: the report ``xla-shape hlo --all``
    prints. ``module`` is the module's text (a ``str``:
    ``compiled.as_text()`` in jax, the ``*.txt`` files of
    ``--xla_dump_to``), a jax ``Compiled`` or ``Lowered`` (or any object
    with an ``as_text()`` method giving the text), or a serialized
    ``HloModuleProto`` (``bytes``: ``as_serialized_hlo_module_proto()``,
    the ``*.pb`` files; text as bytes is recognised too). StableHLO gets an
    error that says what to pass. ``parameter_bytes`` and ``output_bytes``
    are what XLA's ``CompiledMemoryStats`` reports (jax's
    ``memory_analysis()``: logical bytes), ``*_allocated_bytes`` the
    buffers' sizes with tiles; ``instructions`` lists every instruction's
    buffer, largest first, with its padding; ``computation_totals`` adds up
    each computation's. The GIL is released while the module is read.

    >>> text = '''HloModule tiled
    ... ENTRY %e (p: bf16[10,200]) -> bf16[10,200] {
    ...   ROOT %p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)
    ... }
    ... '''
    >>> report = hlo_memory(text)
    >>> report.parameter_bytes, report.parameter_allocated_bytes
    (4000, 8192)
    >>> report.instructions[0].padding_bytes, report.instructions[0].padding_ratio
    (4192, 2.048)
    >>> hlo_memory("ENTRY %e {}")
    Traceback (most recent call last):
    ...
    xla_shape.HloError: line 1, column 1: expected `HloModule` first
    >>> hlo_memory("module @jit_f {}")
    Traceback (most recent call last):
    ...
    xla_shape.HloError: this is StableHLO (jax's lowered.as_text()), whose buffers are not assigned yet: compile it and pass compiled.as_text()
    """
    return MemoryReport(call(_native.hlo_memory, _inputs.module(module)))


def _is_module_text(text: str) -> bool:
    """Whether ``text`` (or its first bytes) is a module's text: HLO, or
    StableHLO (which the native functions refuse with their message)."""
    return text.lstrip().startswith("HloModule") or _native.is_stablehlo(text)


def _module_text(x: Any) -> Any:
    """The module text ``x`` is or gives, or ``None`` for a dump (bytes, a
    path): a ``str`` is text when it starts with ``HloModule`` or
    ``module`` (StableHLO, refused natively) or spans lines; a path is read
    as text when its file holds a module's text (``compiled.as_text()``
    saved, or XLA's ``*after_optimizations.txt`` dump)."""
    x = _inputs.module(x) if not isinstance(x, (bytes, _os.PathLike)) else x
    if isinstance(x, str) and (_is_module_text(x) or "\n" in x):
        return x
    if isinstance(x, (str, _os.PathLike)) and _os.path.isfile(x):
        with open(x, "rb") as f:
            head = f.read(256).decode("utf-8", errors="replace")
        if _is_module_text(head):
            with open(x, encoding="utf-8") as f:
                return f.read()
    return None


def _dump(dump: Any) -> Union[bytes, str]:
    """A dump as the native functions take it: bytes, or a path."""
    if isinstance(dump, (bytearray, memoryview)):
        return bytes(dump)
    if isinstance(dump, bytes):
        return dump
    path: str = _os.fspath(dump)
    if not _os.path.exists(path):
        shown = path if len(path) <= 80 else path[:60] + "..." + path[-17:]
        raise HloError(
            f"{shown!r} is neither a module's text (HloModule ..., compiled.as_text())"
            " nor an existing file (XLA's dump of a buffer assignment)"
        )
    return path


def peak_memory(x: Any) -> PeakReport:
    """The peak memory of a compiled module as XLA computes
    ``peak_memory_in_bytes``: the report ``xla-shape hlo FILE --peak``
    prints. ``x`` is one of:

    - the module's text (a ``str``: ``compiled.as_text()``), the path of
      a file holding it (XLA's ``*after_optimizations.txt`` dump too), a
      jax ``Compiled``, or any object with an ``as_text()`` method giving
      the text: the peak computed from the scheduled module alone, as XLA's
      buffer assignment would place its buffers; the report adds
      ``peak_is_estimate`` (true for a module without a schedule, taken in
      the order of its text), ``steps`` and ``buffers`` (every buffer with
      its ``first_step`` and ``last_step``), and ``warnings`` when the text
      has an opcode XLA does not know (read as an instruction of its
      shape, its buffers counted). StableHLO (``lowered.as_text()``) is
      refused: compile it first;
    - XLA's dump of its buffer assignment
      (``XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_proto"``): the
      ``HloProto`` (``bytes``, or the path of ``*after_optimizations.hlo.pb``)
      or the path of ``*-buffer-assignment.txt`` (the ``*-live-range.txt``
      beside it is read too).

    ``peak_at`` says where the peak is reached (``step`` in ``unit``:
    ``heap_event`` or ``schedule_step``, and the ``instruction``);
    ``live_at_peak`` lists every buffer live there, largest first, with its
    ``kind``, the jax ``op_name`` and Python ``stack`` that made it;
    ``device`` and ``host`` are XLA's other allocation totals. The report
    groups the peak's bytes (:meth:`PeakReport.by_source`, ``by_op``,
    ``by_pass``), draws its flame graph (``flame()``), writes a pprof
    profile (``to_pprof(path)``) and compares itself with another
    program's (``diff(other)``). Jupyter shows the memory timeline. The GIL is released while the module
    or dump is read.

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
    >>> report.peak_bytes, report.peak_at.instruction, report.peak_is_estimate
    (3072, 'n', False)
    >>> unknown = peak_memory(text.replace("negate", "frobnicate"))
    >>> unknown.peak_bytes, unknown.warnings
    (3072, ['line 6, column 20: unknown opcode `frobnicate`, read as an instruction of its shape'])
    >>> peak_memory("module @jit_f {}")
    Traceback (most recent call last):
    ...
    xla_shape.HloError: this is StableHLO (jax's lowered.as_text()), whose buffers are not assigned yet: compile it and pass compiled.as_text()

    An ``HloModuleProto`` (``as_serialized_hlo_module_proto()``) carries no
    buffer assignment:

    >>> peak_memory(b"")
    Traceback (most recent call last):
    ...
    xla_shape.HloError: HloProto: no hlo_module

    A string that is neither:

    >>> peak_memory("garbage")
    Traceback (most recent call last):
    ...
    xla_shape.HloError: 'garbage' is neither a module's text (HloModule ..., compiled.as_text()) nor an existing file (XLA's dump of a buffer assignment)
    """
    text = _module_text(x)
    if text is not None:
        fields, peak = call(_native.peak_report, text, True)
        return PeakReport(
            fields,
            draw=lambda: Svg(call(_native.memory_timeline_text_svg, text)),
            peak=peak,
        )
    dump = _dump(x)
    fields, peak = call(_native.peak_report, dump, False)
    return PeakReport(
        fields,
        draw=lambda: Svg(call(_native.memory_timeline_svg, dump)),
        peak=peak,
    )


def memory_timeline(x: Any) -> Svg:
    """The memory timeline of a module (as for :func:`peak_memory`: its
    text, a jax ``Compiled``, or XLA's dump): the picture ``xla-shape hlo
    FILE --timeline OUT.svg`` writes. Live bytes over program order (the
    steps of the module's schedule or of a live-range dump, the heap events
    of an ``HloProto``) stacked by kind with the peak marked, the largest
    blocks of storage over their live ranges, and the buffers live at the
    peak; each band and bar says its buffer when pointed at.

    >>> memory_timeline("module.txt")
    Traceback (most recent call last):
    ...
    xla_shape.HloError: 'module.txt' is neither a module's text (HloModule ..., compiled.as_text()) nor an existing file (XLA's dump of a buffer assignment)
    """
    text = _module_text(x)
    if text is not None:
        return Svg(call(_native.memory_timeline_text_svg, text))
    return Svg(call(_native.memory_timeline_svg, _dump(x)))
