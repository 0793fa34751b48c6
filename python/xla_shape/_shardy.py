"""Shardy's text (jax 0.12's ``#sdy.sharding`` and ``sdy.mesh``): XLA's
shardings found again as Shardy text, and what each device holds of a
lowered function's arguments and results."""

from __future__ import annotations

from typing import Any, Optional

from . import _native
from ._arg_names import argument_names
from ._guard import call
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


def lowered_shardings(lowered: Any) -> LoweredShardings:
    """What each device holds of a lowered function's arguments and
    results: the report ``xla-shape lowered`` prints. ``lowered`` is a jax
    ``Lowered`` (its ``as_text()``: StableHLO with Shardy's attributes is
    read) or that text. The arguments of a ``Lowered`` are named by their
    pytree path (``args[0]['w1']``, from its ``args_info``), as jax names
    the compiled module's parameters; those of a text ``%arg0``... The GIL
    is released while it is read.

    >>> text = '''module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
    ...   sdy.mesh @mesh = <["a"=2]>
    ...   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
    ...     return %arg0 : tensor<8xf32>
    ...   }
    ... }'''
    >>> report = lowered_shardings(text)
    >>> report.entries[0].hlo, report.argument_bytes, report.result_bytes
    ('{devices=[2]<=[2]}', [16, 16], [32, 32])
    """
    if isinstance(lowered, str):
        text = lowered
    else:
        as_text = getattr(lowered, "as_text", None)
        if not callable(as_text):
            raise TypeError(
                "a lowered module is jax's Lowered or its as_text(), "
                f"not {type(lowered).__name__}"
            )
        text = as_text()
    fields = call(_native.lowered_shardings, text)
    names = None if isinstance(lowered, str) else argument_names(lowered)
    arguments = [e for e in fields["entries"] if e["kind"] == "argument"]
    if names is not None and len(names) == len(arguments):
        for entry, name in zip(arguments, names):
            entry["name"] = name
    return LoweredShardings(fields)
