"""Shape strings and serialized ShapeProtos against real XLA's."""

import pytest

import xla_shape
from conftest import golden


@pytest.mark.parametrize("row", golden("parse_ok"), ids=lambda r: r["input"])
def test_parse_prints_and_serializes_as_xla(row):
    shape = xla_shape.parse(row["input"])
    assert str(shape) == row["string"]
    assert shape.to_bytes().hex() == row["hex"]
    assert xla_shape.Shape.from_bytes(bytes.fromhex(row["hex"])) == shape


@pytest.mark.parametrize(
    "row", golden("shapes") + golden("hlo_shapes"), ids=lambda r: r["string"]
)
def test_xla_messages_decode_to_xla_strings(row):
    shape = xla_shape.Shape.from_bytes(bytes.fromhex(row["hex"]))
    assert str(shape) == row["string"]
    assert shape.to_bytes().hex() == row["hex"]


def _xla_messages(text):
    """The messages in XLA's error text: each ``was parsing L:C: error: msg``
    line's ``msg``, or ``Extra content after shape``."""
    for line in text.splitlines():
        if line == "Extra content after shape":
            yield line
        elif ": error: " in line:
            yield line.split(": error: ", 1)[1]


@pytest.mark.parametrize("row", golden("parse_errors"), ids=lambda r: r["input"])
def test_parse_errors_carry_xla_message(row):
    with pytest.raises(xla_shape.XlaShapeError) as error:
        xla_shape.parse(row["input"])
    assert isinstance(error.value, ValueError)
    text = str(error.value)
    assert text.startswith("Syntax error:\n")
    # Ours names the byte XLA's `was parsing L:C` line names.
    ours = text[len("Syntax error:\n") :].rsplit(" (at byte ", 1)[0]
    expected = list(_xla_messages(row.get("message") or ""))
    # Rows without a message: inputs XLA aborted on, or a bare syntax error.
    assert not expected or ours in expected


def test_attributes_repr_and_equality():
    shape = xla_shape.parse("bf16[10,200]{1,0:T(8,128)(2,1)}")
    assert shape.dimensions == [10, 200]
    assert shape.element_type == "bf16"
    assert shape.layout == "{1,0:T(8,128)(2,1)}" and str(shape.layout) == "{1,0:T(8,128)(2,1)}"
    assert repr(shape) == "Shape('bf16[10,200]{1,0:T(8,128)(2,1)}')"
    assert shape == xla_shape.Shape("bf16[10,200]{1,0:T(8,128)(2,1)}")
    assert shape != xla_shape.parse("bf16[10,200]{0,1}")
    assert shape == "bf16[10,200]{1,0:T(8,128)(2,1)}" and shape != "bf16[10,200]"
    assert xla_shape.parse("(f32[2], s8[])").element_type == "tuple"
    assert xla_shape.parse("(f32[2], s8[])").layout is None


def test_shape_arguments_take_strings_or_shapes():
    shape = xla_shape.parse("f32[2,3]{0,1}")
    assert xla_shape.memory_order(shape) == xla_shape.memory_order("f32[2,3]{0,1}")
    with pytest.raises(TypeError, match="not int"):
        xla_shape.byte_size(3)


def test_bad_bytes_raise():
    with pytest.raises(xla_shape.XlaShapeError, match="invalid Shape message"):
        xla_shape.Shape.from_bytes(b"\xff")
