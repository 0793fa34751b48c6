"""Sizes, memory order and indices against real XLA's."""

import pytest

import xla_shape
from conftest import golden


@pytest.mark.parametrize(
    "row", [r for r in golden("tiled_sizes") if "shape" in r], ids=lambda r: r["shape"]
)
def test_array_size_is_xla_allocation(row):
    assert xla_shape.array_size(row["shape"]) == row["on_device_size_in_bytes"]


@pytest.mark.parametrize("row", golden("memory_order"), ids=lambda r: r["shape"])
def test_byte_size_is_xla_on_device_size(row):
    assert xla_shape.byte_size(row["shape"]) == row["on_device_size_in_bytes"]


def test_byte_size_of_tuples_needs_a_pointer_size():
    assert xla_shape.byte_size("(f32[2], s8[])", pointer_size=8) == 16
    with pytest.raises(xla_shape.XlaShapeError):
        xla_shape.byte_size("(f32[2], s8[])")


@pytest.mark.parametrize(
    "shape",
    ["f32[2,3]{0,1}", "f32[3,5]{1,0:T(2,2)}", "f32[2,3]{0,1:PAD(3,5)}", "bf16[3,9]{1,0:T(2,4)(2,1)}"],
)
def test_indices_agree_with_memory_order(shape):
    order = xla_shape.memory_order(shape)
    dims = xla_shape.parse(shape).dimensions
    for position, element in enumerate(order):
        if element is None:
            with pytest.raises(xla_shape.XlaShapeError, match="padding"):
                xla_shape.multi_index(shape, position)
            continue
        multi = []
        for size in reversed(dims):
            multi.insert(0, element % size)
            element //= size
        assert xla_shape.multi_index(shape, position) == multi
        assert xla_shape.linear_index(shape, multi) == position


def test_explain_is_the_cli_json():
    assert xla_shape.explain("f32[2,3]{0,1:PAD(3,5)PV(zero)}") == {
        "element_type": "f32",
        "rank": 2,
        "true_rank": 2,
        "element_count": 6,
        "byte_size": 60,
        "buffer_size": 60,
        "tiles": [],
        "strides": [1, 3],
        "byte_strides": [4, 12],
        "major_to_minor": [1, 0],
        "padded_dimensions": [3, 5],
    }
    assert xla_shape.explain("(f32[2], s8[])")["rank"] is None
