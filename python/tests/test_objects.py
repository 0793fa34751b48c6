"""Shape, Layout and HloSharding objects, and the report classes."""

import copy
import pickle

import pytest

import xla_shape


def test_shapes_are_values():
    shape = xla_shape.parse("bf16[10,200]{1,0:T(8,128)(2,1)}")
    again = xla_shape.Shape("bf16[10,200]{1,0:T(8,128)(2,1)}")
    assert shape == again and hash(shape) == hash(again)
    assert len({shape, again, xla_shape.parse("f32[2]")}) == 2
    assert pickle.loads(pickle.dumps(shape)) == shape
    assert copy.copy(shape) is shape and copy.deepcopy(shape) is shape
    # `==` with the text XLA's parser reads to the same shape.
    assert shape == "bf16[10,200]{1,0:T(8,128)(2,1)}"
    assert xla_shape.parse("f32[2,3]") == "f32[2,3]"
    assert xla_shape.parse("f32[2,3]") == "f32[2,3]{1,0}"
    assert shape != "bf16[10,200]{0,1}" and shape != "not a shape" and shape != 3


def test_shape_attributes():
    shape = xla_shape.parse("f32[<=4,3]{0,1}")
    assert (shape.rank, shape.ndim, shape.dimensions) == (2, 2, [4, 3])
    assert shape.dynamic_dimensions == [True, False]
    assert not shape.is_tuple and shape.tuple_shapes == []
    assert str(shape.layout) == "{0,1}" and shape.layout.minor_to_major == [0, 1]
    scalar = xla_shape.parse("s8[]")
    assert (scalar.rank, scalar.dimensions, scalar.dynamic_dimensions) == (0, [], [])
    tup = xla_shape.parse("(f32[2], (s8[], pred[3]))")
    assert tup.is_tuple and tup.element_type == "tuple" and tup.layout is None
    assert tup.tuple_shapes == ["f32[2]{0}", "(s8[], pred[3]{0})"]
    assert tup.tuple_shapes[1].tuple_shapes[1].dimensions == [3]


def test_layouts():
    layout = xla_shape.parse("s4[10,200]{1,0:T(8,128)(2,1)E(4)S(1)}").layout
    assert layout.minor_to_major == [1, 0]
    assert layout.tiles == [[8, 128], [2, 1]]
    assert (layout.element_size_in_bits, layout.memory_space) == (4, 1)
    assert str(layout) == "{1,0:T(8,128)(2,1)E(4)S(1)}"
    assert repr(layout) == "Layout('{1,0:T(8,128)(2,1)E(4)S(1)}')"
    assert layout == "{1,0:T(8,128)(2,1)E(4)S(1)}"
    assert hash(layout) == hash(xla_shape.parse("s4[3,4]{1,0:T(8,128)(2,1)E(4)S(1)}").layout)
    combined = xla_shape.parse("f32[8,8]{1,0:T(2,*)}").layout
    assert combined.tiles == [[2, -(2**63)]]
    assert xla_shape.parse("f32[2,3]{0,1:PAD(3,5)}").layout.padded_dimensions == [3, 5]


def test_numpy_dtypes():
    np = pytest.importorskip("numpy")
    assert xla_shape.parse("f32[2]").dtype == np.float32
    assert xla_shape.parse("pred[]").dtype == np.bool_
    assert xla_shape.parse("c128[1]").dtype == np.complex128
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert xla_shape.parse("bf16[2]").dtype == ml_dtypes.bfloat16
    assert xla_shape.parse("s4[2]").dtype == ml_dtypes.int4
    assert xla_shape.parse("f8e4m3fn[2]").dtype == ml_dtypes.float8_e4m3fn
    with pytest.raises(xla_shape.UnsupportedError, match="tuple has no numpy dtype"):
        xla_shape.parse("(f32[2])").dtype


def test_an_ml_dtypes_type_without_ml_dtypes_says_so(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(xla_shape.UnsupportedError, match=r"ml_dtypes\.bfloat16: pip install ml_dtypes"):
        xla_shape.parse("bf16[2]").dtype


def test_validate_gives_xlas_messages():
    assert xla_shape.validate("f32[2,3]{1,0}") is None
    assert xla_shape.parse("f32[2,3]{1,0}").validate() is None
    bad = xla_shape.parse("f32[2,3]{1,1}")
    message = "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]"
    for check in [bad.validate, lambda: xla_shape.validate(bad), lambda: xla_shape.byte_size(bad)]:
        with pytest.raises(xla_shape.InvalidShapeError) as error:
            check()
        assert str(error.value) == message
    # A shape read without a layout has none to check, but validate()
    # wants one as XLA's ValidateShape does.
    no_layout = xla_shape.Shape.from_bytes(bytes.fromhex("100b1a020203"))
    assert xla_shape.byte_size(no_layout) == 24
    with pytest.raises(xla_shape.InvalidShapeError, match="does not have a layout"):
        no_layout.validate()


def test_functions_validate_first():
    for call in [
        xla_shape.byte_size,
        xla_shape.array_size,
        xla_shape.explain,
        xla_shape.memory_order,
        xla_shape.draw,
        lambda s: xla_shape.linear_index(s, [0, 0]),
        lambda s: xla_shape.shard(s, "{devices=[2,1]<=[2]}"),
    ]:
        with pytest.raises(xla_shape.InvalidShapeError, match="duplicate values"):
            call("f32[2,3]{1,1}")


def test_shape_likes():
    np = pytest.importorskip("numpy")
    want = xla_shape.parse("f32[16,5]{1,0}")
    for like in [
        "float32[16,5]",
        np.zeros((16, 5), np.float32),
        ((16, 5), np.float32),
        ((16, 5), "float32"),
        ([16, 5], np.dtype("float32")),
        ((16, 5), "f32", "{1,0}"),
        ((16, 5), np.float32, want.layout),
        want,
    ]:
        assert xla_shape.as_shape(like) == want, like
        assert xla_shape.byte_size(like) == 320
    assert xla_shape.as_shape(((8,), "bfloat16")) == "bf16[8]"
    assert xla_shape.as_shape(((8,), "int4")) == "s4[8]"
    assert xla_shape.as_shape(((8,), "float8_e4m3fn")) == "f8e4m3fn[8]"
    assert xla_shape.as_shape("(float32[2], int8[])") == "(f32[2], s8[])"
    assert xla_shape.as_shape(((), np.bool_)) == "pred[]"
    with pytest.raises(TypeError, match=r"2\.5 \(float\) is not one"):
        xla_shape.as_shape(((2.5, 3), "f32"))
    with pytest.raises(xla_shape.UnsupportedError, match="has no XLA element type"):
        xla_shape.as_shape(((2,), "float128x"))
    with pytest.raises(TypeError, match="not int"):
        xla_shape.byte_size(3)
    with pytest.raises(TypeError, match="a layout is"):
        xla_shape.as_shape(((2,), "f32", 7))


def test_floats_are_no_integers():
    with pytest.raises(TypeError, match=r"2\.9 \(float\) is not one"):
        xla_shape.view([2.9, 3.99])
    with pytest.raises(TypeError):
        xla_shape.linear_index("f32[4]", [1.0])
    with pytest.raises(TypeError):
        xla_shape.multi_index("f32[4]", 1.5)
    with pytest.raises(TypeError):
        xla_shape.broadcast("[4]", "[1,4]", dims=[0.5])


def test_errors_by_kind():
    assert issubclass(xla_shape.XlaShapeError, ValueError)
    kinds = [
        (xla_shape.ParseError, lambda: xla_shape.parse("f32[2")),
        (xla_shape.InvalidShapeError, lambda: xla_shape.validate("f32[2,3]{1,1}")),
        (xla_shape.ShardingError, lambda: xla_shape.shard("f32[8]", "{bogus}")),
        (xla_shape.ShardingError, lambda: xla_shape.shard("f32[8]", "{devices=[3,2]<=[6]}")),
        (xla_shape.HloError, lambda: xla_shape.hlo_memory("HloModule m\n")),
        (xla_shape.UnsupportedError, lambda: xla_shape.reshard("f32[8]", "{manual}", "{replicated}", devices=2)),
    ]
    for kind, call in kinds:
        with pytest.raises(kind) as error:
            call()
        assert isinstance(error.value, xla_shape.XlaShapeError)
    with pytest.raises(xla_shape.ShardingError, match="give devices=N$"):
        xla_shape.shard("f32[8]", "{replicated}")


def test_hlo_sharding_is_parsed_once_and_matches_xla():
    # From jaxlib 0.12's xla_client.HloSharding.from_string(text):
    # to_proto().SerializeToString().hex(), tile_assignment_devices().
    cases = [
        ("{devices=[2,2]<=[4] last_tile_dim_replicate}", "08031a02020230014a0104520100", [0, 1, 2, 3]),
        ("{devices=[2,4]<=[8]}", "08031a0202044a0108520100", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("{devices=[2,2]0,2,1,3}", "08031a020202220400020103", [0, 2, 1, 3]),
    ]
    for text, proto, devices in cases:
        s = xla_shape.HloSharding(text)
        assert str(s) == text and repr(s) == f"HloSharding('{text}')"
        assert s.to_proto().hex() == proto
        assert s.tile_assignment_devices == devices
        assert xla_shape.HloSharding.from_proto(bytes.fromhex(proto)) == s
        assert pickle.loads(pickle.dumps(s)) == s
    replicated = xla_shape.HloSharding("{replicated}")
    assert replicated.num_devices is None and replicated.tile_assignment_devices is None
    assert replicated.replication_groups(devices=4) == [[0, 1, 2, 3]]
    report = xla_shape.HloSharding("{devices=[2,1]<=[2]}").shard("f32[4,3]")
    assert report == xla_shape.shard("f32[4,3]", "{devices=[2,1]<=[2]}")


def test_shard_reports():
    report = xla_shape.shard("f32[7,9]", "{devices=[2,4]<=[8]}")
    assert report.shard_shape == "f32[4,3]"
    device = report.devices[3]
    assert (device.device, device.tile, device.offsets, device.limits, device.bytes) == (3, [0, 3], [0, 9], [4, 9], 0)
    assert report.devices[5].index == (slice(4, 7), slice(3, 6))
    assert report.empty_devices == [3, 7]
    assert report["devices"][3]["bytes"] == 0
    assert report.to_dict()["shard_shape"] == "f32[4,3]{1,0}"
    assert repr(report).startswith("ShardReport(shard_shape=Shape('f32[4,3]{1,0}'), devices=[DeviceShard(")
    assert "... 8 in all]" in repr(report)
    assert "<svg" in report._repr_svg_()


def test_jax_device_ids_are_carried(monkeypatch):
    from xla_shape import _jax

    # A permuted mesh: XLA's device number d is jax's device ids[d].
    ids = [3, 1, 0, 2]

    def sharding(obj, ndim):
        if obj is not MESH_SHARDING:
            return None
        assert ndim == 2
        return _jax.JaxSharding("{devices=[2,2]<=[4]}", ids, [("x", 2), ("y", 2)])

    monkeypatch.setattr(_jax, "sharding", sharding)
    s = xla_shape.as_sharding(MESH_SHARDING, "f32[4,6]")
    assert (s.devices, s.tile_assignment_devices) == (ids, [0, 1, 2, 3])
    assert s.replication_groups() == [[3], [1], [0], [2]]
    report = xla_shape.shard("f32[4,6]", MESH_SHARDING)
    assert [d.device for d in report.devices] == ids
    assert [d.position for d in report.devices] == [0, 1, 2, 3]
    assert report.devices[0].offsets == [0, 0] and report.devices[3].offsets == [2, 3]
    assert report.mesh_axes == [("x", 2), ("y", 2)]
    plan = xla_shape.reshard("f32[4,6]", MESH_SHARDING, "{devices=[2,2]<=[4]}")
    # Jax's device 3 holds XLA's device 0's block: it keeps it.
    assert [(p.from_, p.to) for p in plan.pieces] == [(3, 0), (1, 1), (0, 2), (2, 3)]
    with pytest.raises(TypeError, match="a sharding is"):
        xla_shape.shard("f32[4,6]", object())


def test_a_replicated_jax_sharding_counts_its_devices(monkeypatch):
    from xla_shape import _jax

    replicated = object()
    monkeypatch.setattr(
        _jax, "sharding", lambda obj, ndim: _jax.JaxSharding("{replicated}", [5, 2], None) if obj is replicated else None
    )
    report = xla_shape.shard("f32[4]", replicated)
    assert [(d.device, d.limits) for d in report.devices] == [(5, [4]), (2, [4])]
    assert report.replication_groups == [[5, 2]]


MESH_SHARDING = object()
"""Stands for a jax sharding over a permuted mesh."""


def test_reshard_plans_and_views():
    plan = xla_shape.reshard("f32[8]", "{devices=[2]<=[2]}", "{devices=[2]1,0}")
    assert [(p.from_, p.to, p.bytes) for p in plan.pieces] == [(1, 0, 16), (0, 1, 16)]
    assert plan.pieces[0]["from"] == 1 and plan.pieces[0].keys() == ["from", "to", "offsets", "limits", "bytes"]
    assert (plan.bytes_moved, plan.bytes_kept) == (32, 0)
    view = xla_shape.view([3, 4], ".T")
    assert (view.shape, view.strides, view.f_contiguous) == ([4, 3], [1, 4], True)
    assert "<svg" in view._repr_svg_()
    # A shape no picture shows: no picture, no error while displaying.
    assert xla_shape.explain("(f32[2], s8[])")._repr_svg_() is None


def test_explanations_and_memory_reports():
    facts = xla_shape.explain("bf16[10,200]{1,0:T(8,128)(2,1)}")
    assert (facts.byte_size, facts.buffer_size, facts.tiles) == (4000, 8192, [[8, 128], [2, 1]])
    assert "<svg" in facts._repr_svg_()
    text = "HloModule m\nENTRY e {\n  ROOT p = bf16[10,200]{1,0:T(8,128)(2,1)} parameter(0)\n}\n"
    report = xla_shape.hlo_memory(text)
    assert isinstance(report, xla_shape.MemoryReport)
    assert isinstance(report.instructions[0], xla_shape.InstructionBuffer)
    assert (report.module, report.instructions[0].padding_bytes) == ("m", 4192)


def test_package_surface():
    names = dir(xla_shape)
    assert names == sorted(xla_shape.__all__)
    assert not {"os", "json", "np", "annotations", "Any", "Dict", "Optional", "Union"} & set(names)
    assert all(hasattr(xla_shape, name) for name in xla_shape.__all__)
    assert "ShapeLike" in names and "validate" in names
    import pathlib
    import re

    pyproject = (pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert xla_shape.__version__ == re.search(r'^version = "(.*)"$', pyproject, re.M).group(1)


def test_panics_become_errors():
    from xla_shape import _guard

    class PanicException(BaseException):
        pass

    def panics():
        raise PanicException("index out of bounds")

    with pytest.raises(xla_shape.XlaShapeError, match="panics: internal error: index out of bounds"):
        _guard.call(panics)
    with pytest.raises(KeyboardInterrupt):
        _guard.call(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
