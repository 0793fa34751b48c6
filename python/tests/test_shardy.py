"""Shardy text from Python: conversions checked against jax 0.12's golden
rows (tests/golden/shardy/, written by build-tools/gen_shardy.py)."""

import json
import os

import pytest

import xla_shape
from xla_shape import HloSharding, ShardingError, lowered_shardings, sharding_to_shardy


def sharding_from_shardy(sharding, mesh=None):
    return str(HloSharding.from_shardy(sharding, mesh))

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden", "shardy")


def rows(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_every_jax_golden_sharding_converts_to_xla_text():
    for row in rows("jax.jsonl"):
        assert sharding_from_shardy(row["sharding"], row["mesh"]) == row["hlo"], row


def test_hand_made_shardings_convert_or_fail_as_xla():
    for row in rows("export.jsonl"):
        mesh = "sdy.mesh @mesh = " + row["mesh"]
        if "hlo" in row:
            assert sharding_from_shardy(row["sharding"], mesh) == row["hlo"], row
        elif "doesn't match tensor rank" not in row["error"]:
            with pytest.raises(ShardingError, match=None) as e:
                sharding_from_shardy(row["sharding"], mesh)
            assert str(e.value) == row["error"], row


def test_a_replicated_shardy_sharding_takes_its_mesh_device_count():
    checked = 0
    for row in rows("replicated.jsonl"):
        if not row["mesh"].split("=", 1)[1].strip().startswith("<[]"):
            s = HloSharding.from_shardy(row["sharding"], row["mesh"])
            assert str(s) == row["hlo"], row
            shape = "f32[%s]" % ",".join(map(str, row["shape"]))
            report = xla_shape.shard(shape, s)
            assert len(report.devices) == row["devices"], row
            for device, box in zip(report.devices, row["indices"]):
                assert [[o, l] for o, l in zip(device.offsets, device.limits)] == box, row
            checked += 1
    assert checked >= 30


def test_xla_text_goes_back_to_shardy():
    row = rows("jax.jsonl")[2]
    back = sharding_to_shardy(row["hlo"], row["mesh"], len(row["shape"]))
    assert back is not None
    assert sharding_from_shardy(back, row["mesh"]) == row["hlo"]
    assert sharding_to_shardy("{devices=[3]<=[3]}", '<["a"=2, "b"=4]>', 1) is None


def test_lowered_mlp_bytes_match_jax_indices():
    with open(os.path.join(GOLDEN, "mlp.mlir"), encoding="utf-8") as f:
        report = lowered_shardings(f.read())
    expected = rows("mlp.jsonl")
    assert report.devices == 8
    assert [e.kind for e in report.entries] == [r["kind"] for r in expected]
    for entry, row in zip(report["entries"], expected):
        itemsize = {"float32": 4, "bfloat16": 2}[row["dtype"]]
        for device, box in enumerate(row["indices"]):
            elements = 1
            for start, stop in box:
                elements *= stop - start
            assert entry.bytes[device] == elements * itemsize


def test_lowered_reads_an_object_with_as_text():
    class Lowered:
        def as_text(self):
            return 'module {\n  func.func public @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n    return %arg0 : tensor<4xi8>\n  }\n}'

    report = lowered_shardings(Lowered())
    assert report.devices == 1
    assert report.entries[0].shape == "s8[4]"
    assert report.entries[0].hlo == "{replicated}"


def test_malformed_text_raises():
    with pytest.raises(ShardingError, match="expected"):
        sharding_from_shardy("#sdy.sharding<@mesh, [{", '<["a"=2]>')
    with pytest.raises(ShardingError, match="unknown mesh: @mesh"):
        sharding_from_shardy('#sdy.sharding<@mesh, [{"a"}]>')
    assert "lowered_shardings" in xla_shape.__all__


def test_a_shardy_sharding_carries_its_mesh_axes_into_shard_reports_and_pictures():
    s = HloSharding.from_shardy('#sdy.sharding<@mesh, [{"b"}, {"a"}]>', 'sdy.mesh @mesh = <["a"=2, "b"=4]>')
    assert str(s) == "{devices=[4,2]<=[2,4]T(1,0)}"
    assert s.mesh_axes == [("a", 2), ("b", 4)]
    report = xla_shape.shard("f32[8,4]", s)
    assert report.mesh_axes == [("a", 2), ("b", 4)]
    boxes = {d.device: d.offsets for d in report.devices}
    assert boxes[4] == [0, 2] and boxes[1] == [2, 0]
    assert "mesh a=2 \u00b7 b=4" in xla_shape.draw("f32[8,4]", sharding=s)._repr_svg_()


def test_shardy_text_over_an_inline_mesh_is_a_sharding_argument():
    report = xla_shape.shard("f32[8]", '#sdy.sharding<mesh<["x"=4]>, [{"x"}]>')
    assert [d.offsets for d in report.devices] == [[0], [2], [4], [6]]
    with pytest.raises(ShardingError, match="unknown mesh: @mesh"):
        xla_shape.shard("f32[8]", '#sdy.sharding<@mesh, [{"x"}]>')


def test_a_lowered_module_that_is_not_one_is_an_hlo_error():
    with pytest.raises(xla_shape.HloError):
        lowered_shardings("HloModule m")
    with pytest.raises(TypeError):
        lowered_shardings(3)


def test_values_left_to_propagation_are_unspecified_and_take_what_xla_chose(rows):
    # tests/golden/shardy/propagated.jsonl: jax's lowered modules without
    # out_shardings (one with an uncommitted argument), and per value the
    # sharding jax's Compiled gives it with each device's bytes.
    from xla_shape import _native

    cases = rows("shardy/propagated")
    assert len(cases) == 5
    for case in cases:
        report = lowered_shardings(case["mlir"])
        values = case["values"]
        assert [e.kind for e in report.entries] == [v["kind"] for v in values]
        for entry, value in zip(report.entries, values):
            if value["lowered"]:
                assert (entry.source, entry.bytes) == ("lowered", value["bytes"]), case["name"]
            else:
                assert (entry.source, entry.hlo, entry.shard_shape, entry.bytes) == (
                    "unspecified",
                    None,
                    None,
                    None,
                ), case["name"]
        chosen = xla_shape.LoweredShardings(
            _native.lowered_shardings(case["mlir"], [v["hlo"] for v in values])
        )
        assert [e.bytes for e in chosen.entries] == [v["bytes"] for v in values], case["name"]
        assert chosen.result_bytes[0] == case["output_size_in_bytes"], case["name"]
