"""Shardy text from Python: conversions checked against jax 0.12's golden
rows (tests/golden/shardy/, written by build-tools/gen_shardy.py)."""

import json
import os

import pytest

import xla_shape
from xla_shape import XlaShapeError, lowered_shardings, sharding_from_shardy, sharding_to_shardy

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
            with pytest.raises(XlaShapeError, match=None) as e:
                sharding_from_shardy(row["sharding"], mesh)
            assert str(e.value) == row["error"], row


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
    assert report["devices"] == 8
    assert [e["kind"] for e in report["entries"]] == [r["kind"] for r in expected]
    for entry, row in zip(report["entries"], expected):
        itemsize = {"float32": 4, "bfloat16": 2}[row["dtype"]]
        for device, box in enumerate(row["indices"]):
            elements = 1
            for start, stop in box:
                elements *= stop - start
            assert entry["bytes"][device] == elements * itemsize


def test_lowered_reads_an_object_with_as_text():
    class Lowered:
        def as_text(self):
            return 'module {\n  func.func public @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n    return %arg0 : tensor<4xi8>\n  }\n}'

    report = lowered_shardings(Lowered())
    assert report["devices"] == 1
    assert report["entries"][0]["shape"] == "s8[4]"
    assert report["entries"][0]["hlo"] == "{replicated}"


def test_malformed_text_raises():
    with pytest.raises(XlaShapeError, match="expected"):
        sharding_from_shardy("#sdy.sharding<@mesh, [{", '<["a"=2]>')
    with pytest.raises(XlaShapeError, match="unknown mesh: @mesh"):
        sharding_from_shardy('#sdy.sharding<@mesh, [{"a"}]>')
    assert "lowered_shardings" in xla_shape.__all__
