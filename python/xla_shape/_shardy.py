"""Shardy's text (jax 0.12's ``#sdy.sharding`` and ``sdy.mesh``): XLA's
shardings found again as Shardy text, and what each device holds of a
lowered function's arguments and results."""

from __future__ import annotations

import sys
from typing import Any, List, Optional

from . import _inputs, _jax, _native
from ._arg_names import argument_names
from ._guard import call
from ._native import HloError, XlaShapeError
from ._reports import LoweredShardings
from ._sharding import HloSharding


def sharding_to_shardy(sharding: Any, mesh: str, rank: int) -> Optional[str]:
    """The Shardy sharding of whole axes of ``mesh`` that converts to the
    XLA sharding ``sharding`` (text or :class:`HloSharding`) for an array
    of rank ``rank``; ``None`` if none does.

    >>> sharding_to_shardy("{devices=[8,1]<=[2,4]T(1,0)}", 'sdy.mesh @mesh = <["a"=2, "b"=4]>', 2)
    '#sdy.sharding<@mesh, [{"b", "a"}, {}]>'
    >>> sharding_to_shardy("{devices=[3]<=[3]}", '<["a"=2, "b"=4]>', 1) is None
    True
    """
    text = str(sharding) if isinstance(sharding, HloSharding) else sharding
    found: Optional[str] = call(_native.sharding_to_shardy, text, mesh, rank)
    return found


def lowered_shardings(lowered: Any, *, compiled: Any = None) -> LoweredShardings:
    """What each device holds of a lowered function's arguments and
    results: the report ``xla-shape lowered`` prints. ``lowered`` is a jax
    ``Lowered`` (its ``as_text()``: StableHLO with Shardy's attributes is
    read) or that text. The arguments of a ``Lowered`` are named by their
    pytree path (``args[0]['w1']``, from its ``args_info``), as jax names
    the compiled module's parameters; those of a text ``%arg0``... The GIL
    is released while it is read.

    A value the lowered module gives no sharding (a result of
    ``jax.jit(f)`` without ``out_shardings``, an uncommitted argument) is
    left to XLA's sharding propagation: on more than one device its
    ``source`` is ``"unspecified"``, with no ``hlo``, ``shard_shape`` or
    ``bytes``, and it counts in no total. Given ``compiled`` (the jax
    ``Compiled`` of the same ``Lowered``, ``lowered.compile()``), such a
    value takes the sharding XLA chose (``compiled.input_shardings``,
    ``compiled.output_shardings``; ``source`` ``"compiled"``).

    >>> text = '''module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
    ...   sdy.mesh @mesh = <["a"=2]>
    ...   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
    ...     return %arg0 : tensor<8xf32>
    ...   }
    ... }'''
    >>> report = lowered_shardings(text)
    >>> report.entries[0].hlo, report.argument_bytes
    ('{devices=[2]<=[2]}', [16, 16])
    >>> report.entries[1].source, report.entries[1].bytes, report.result_bytes
    ('unspecified', None, [0, 0])
    """
    text = _lowered_text(lowered)
    report = _named(lowered, call(_native.lowered_shardings, text, None))
    if compiled is None:
        return report
    chosen = _chosen_shardings(report, compiled)
    return _named(lowered, call(_native.lowered_shardings, text, chosen))


def _named(lowered: Any, fields: Any) -> LoweredShardings:
    """The report of ``fields``, the arguments of a ``Lowered`` named by
    their pytree paths."""
    names = None if isinstance(lowered, str) else argument_names(lowered)
    arguments = [e for e in fields["entries"] if e["kind"] == "argument"]
    if names is not None and len(names) == len(arguments):
        for entry, name in zip(arguments, names):
            entry["name"] = name
    return LoweredShardings(fields)


def _lowered_text(lowered: Any) -> str:
    """The StableHLO text of a lowered module argument."""
    if isinstance(lowered, str):
        if lowered.lstrip().startswith("HloModule"):
            raise HloError(
                "this is an HLO module, not a lowered one: pass jax's Lowered"
                " (jax.jit(f).lower(*args)) or its as_text()"
            )
        return lowered
    if "Compiled" in _jax._class_names(lowered) and _jax._is_jax(lowered):
        raise TypeError(
            "lowered_shardings reads jax's Lowered (jax.jit(f).lower(*args)), not its"
            " Compiled: pass the Lowered, and lowered_shardings(lowered, compiled=compiled)"
            " for the shardings XLA chose where the lowered module gives none"
        )
    as_text = getattr(lowered, "as_text", None)
    if not callable(as_text):
        raise TypeError(
            "a lowered module is jax's Lowered or its as_text(), "
            f"not {type(lowered).__name__}"
        )
    text = as_text()
    if not isinstance(text, str):
        raise TypeError(f"{type(lowered).__name__}.as_text() gave {type(text).__name__}, not text")
    return text


def _chosen_shardings(report: LoweredShardings, compiled: Any) -> List[Optional[str]]:
    """XLA's text of the sharding ``compiled`` gives each argument and
    result the lowered module leaves unspecified (``None`` for the others),
    in the report's order."""
    inputs = getattr(compiled, "input_shardings", None)
    outputs = getattr(compiled, "output_shardings", None)
    if inputs is None or outputs is None or not _jax._is_jax(compiled):
        raise TypeError(
            "compiled is jax's Compiled (lowered.compile()), "
            f"not {type(compiled).__name__}"
        )
    # A jax object was given: jax is imported (and not imported here).
    leaves = sys.modules["jax"].tree_util.tree_leaves
    given = {"argument": leaves(inputs), "result": leaves(outputs)}
    chosen: List[Optional[str]] = []
    for kind, shardings in given.items():
        entries = [e for e in report.entries if e.kind == kind]
        unspecified = [e for e in entries if e.source == "unspecified"]
        if unspecified and len(shardings) != len(entries):
            raise XlaShapeError(
                f"the Compiled has {len(shardings)} {kind} shardings, the lowered module"
                f" {len(entries)} {kind}s: is it this Lowered's compile()?"
            )
        for entry, sharding in zip(entries, shardings):
            if entry.source != "unspecified":
                chosen.append(None)
                continue
            found = _jax.sharding(sharding, _inputs.rank(entry.shape))
            if found is None:
                raise TypeError(f"{kind} {entry.index}: {sharding!r} is not a jax sharding")
            chosen.append(found.text)
        chosen.extend([None] * (len(entries) - len(shardings)))
    return chosen
