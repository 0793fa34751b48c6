"""The examples in the package's docstrings run as written."""

import doctest

import xla_shape


def test_docstring_examples():
    result = doctest.testmod(xla_shape, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20
    assert result.failed == 0
