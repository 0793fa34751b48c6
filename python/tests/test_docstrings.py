"""The examples in the package's docstrings run as written."""

import doctest
import importlib

import pytest

MODULES = ["xla_shape", "xla_shape._shapes", "xla_shape._sharding", "xla_shape._hlo", "xla_shape._relayout"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0
