"""HLO modules' buffers against real XLA's (`tests/golden/hlo/`, written by
`build-tools/gen_hlo_memory.py` with jax/jaxlib 0.12.0.1)."""

import pytest

import xla_shape
from conftest import GOLDEN, golden

HLO = GOLDEN / "hlo"


def instructions(report):
    keys = ("computation", "name", "opcode", "shape", "bytes", "allocated_bytes")
    return sorted(tuple(i[k] for k in keys) for i in report["instructions"])


@pytest.mark.parametrize("row", golden("hlo/memory"), ids=lambda r: r["module"])
def test_parameter_and_output_bytes_are_xlas_memory_stats(row):
    text = (HLO / f"{row['module']}.txt").read_text(encoding="utf-8")
    report = xla_shape.hlo_memory(text)
    want = (row["argument_size_in_bytes"], row["output_size_in_bytes"])
    assert (report["parameter_bytes"], report["output_bytes"]) == want
    assert report["instruction_count"] == len(report["instructions"])
    # The serialized module XLA wrote beside the text: the same buffers.
    serialized = xla_shape.hlo_memory((HLO / f"{row['module']}.pb").read_bytes())
    assert (serialized["parameter_bytes"], serialized["output_bytes"]) == want
    assert instructions(serialized) == instructions(report)
    sizes = [i["allocated_bytes"] for i in report["instructions"]]
    assert sizes == sorted(sizes, reverse=True)


def test_tiled_buffers_have_the_sizes_xla_allocates():
    for row in golden("hlo/tiled"):
        report = xla_shape.hlo_memory((HLO / f"{row['module']}.txt").read_text(encoding="utf-8"))
        checked = 0
        for i in report["instructions"]:
            want = row["sizes"].get(i["shape"].replace("S(1)", ""))
            if want is not None:
                assert i["allocated_bytes"] == want, i["shape"]
                assert i["padding_bytes"] == want - i["bytes"]
                checked += 1
        assert checked > len(row["sizes"])


def test_bytes_like_inputs_and_errors():
    data = (HLO / "dot.pb").read_bytes()
    assert xla_shape.hlo_memory(bytearray(data)) == xla_shape.hlo_memory(memoryview(data))
    with pytest.raises(
        xla_shape.HloError, match="^HloModuleProto: at byte 0: field 3 claims 5 bytes but only 2 remain$"
    ):
        xla_shape.hlo_memory(b"\x1a\x05\x12\x09")
    with pytest.raises(xla_shape.XlaShapeError, match=r"^line 1, column 1: expected `HloModule` first"):
        xla_shape.hlo_memory("\x01 not a module")
    with pytest.raises(TypeError):
        xla_shape.hlo_memory(42)


def test_each_buffer_has_its_origin_from_the_text_and_the_serialized_module():
    report = xla_shape.hlo_memory((HLO / "dot.txt").read_text(encoding="utf-8"))
    serialized = xla_shape.hlo_memory((HLO / "dot.pb").read_bytes())
    fusion = next(i for i in report.instructions if i.name == "ynn_fusion")
    assert fusion.op_name == "jit(<lambda>)/dot_general"
    assert fusion.source == "gen_hlo_memory.py:83"
    assert isinstance(fusion.stack[0], xla_shape.Frame)
    assert (fusion.stack[0].function, fusion.stack[0].column, fusion.stack[-1].function) == (
        "programs.<locals>.<lambda>",
        29,
        "<module>",
    )
    parameter = next(i for i in report.instructions if i.name == "a.1")
    assert (parameter.op_name, parameter.stack, parameter.source) == ("a", [], None)

    def origins(r):
        return sorted((i.computation, i.name, i.op_name, repr(i.to_dict()["stack"])) for i in r.instructions)

    assert origins(serialized) == origins(report)
