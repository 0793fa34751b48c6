"""Calls into the native module that never surface a Rust panic: a panic
(PyO3's ``PanicException``, a ``BaseException``) becomes an
``XlaShapeError`` naming the call."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from ._native import XlaShapeError

T = TypeVar("T")


def call(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, a panic inside it raised as ``XlaShapeError``."""
    try:
        return function(*args)
    except BaseException as e:  # noqa: B036 - PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        name = getattr(function, "__name__", "call")
        raise XlaShapeError(f"{name}: internal error: {e}") from None
