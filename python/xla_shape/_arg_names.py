"""The names jax gives a lowered function's arguments: their pytree paths,
as jax names the compiled module's parameters in their ``op_name``
(``params['w1']``, from the function's parameter names where jax keeps
them), else from ``lowered.args_info`` (``args[0]['w1']``,
``kwargs['x']``)."""

from __future__ import annotations

import importlib
from typing import Any, List, Optional


def _jax() -> Any:
    """jax, already imported by whoever made the ``Lowered`` given."""
    return importlib.import_module("jax")


def _path(keys: Any) -> str:
    """``args[i]...`` or ``kwargs['k']...`` for the key path of a leaf of
    ``args_info`` (the pair of the positional arguments and the keyword
    arguments)."""
    jax = _jax()
    head, rest = list(keys[:2]), keys[2:]
    where = "args" if getattr(head[0], "idx", 0) == 0 else "kwargs"
    return str(where + jax.tree_util.keystr(tuple(head[1:])) + jax.tree_util.keystr(tuple(rest)))


def argument_names(lowered: Any) -> Optional[List[str]]:
    """The pytree path of each argument of ``lowered``'s module, in order
(jax's ``op_name`` of the compiled module's parameters);
    ``None`` when it has no ``args_info`` (not jax's ``Lowered``). The
    arguments jax pruned from the module (unused ones, where
    ``keep_unused`` is off) are left out as jax leaves them out."""
    info = getattr(lowered, "args_info", None)
    if info is None:
        return None
    jax = _jax()
    leaves = jax.tree_util.tree_flatten_with_path(info)[0]
    names = [_path(keys) for keys, _ in leaves]
    compile_args = getattr(getattr(lowered, "_lowering", None), "compile_args", None)
    if not isinstance(compile_args, dict):
        return names
    # Where jax says them, its own names (the function's parameter names,
    # ``params['w1']``): those of the compiled module's op_name.
    debug = getattr(compile_args.get("all_args_info"), "debug_info", None)
    own = getattr(debug, "arg_names", None)
    if own is not None and len(own) == len(names):
        names = list(own)
    kept = compile_args.get("kept_var_idx")
    if kept is not None:
        names = [name for i, name in enumerate(names) if i in kept]
    return names
