"""Peak memory and the memory timeline from XLA's dumps
(`tests/golden/peak_memory/`: jaxlib 0.12 on CPU, with the expected peak of
XLA's algorithm replayed on XLA's dumped assignment)."""

import pytest

import xla_shape
from conftest import GOLDEN, golden

PEAK = GOLDEN / "peak_memory"


@pytest.mark.parametrize("row", golden("peak_memory"), ids=lambda r: r["name"])
def test_the_peak_is_xlas_from_either_dump(row):
    program = PEAK / row["name"]
    proto = xla_shape.peak_memory(program / "after_optimizations.hlo.pb")
    text = xla_shape.peak_memory(str(program / "buffer-assignment.txt"))
    assert proto["peak_bytes"] == text["peak_bytes"] == row["expected"]["peak_bytes"]
    assert sum(b["bytes"] for b in proto["live_at_peak"]) == proto["peak_bytes"]
    assert proto == xla_shape.peak_memory((program / "after_optimizations.hlo.pb").read_bytes())
    if proto["peak_at"] is not None:
        assert proto["peak_at"]["unit"] == "heap_event"
        assert text["peak_at"]["unit"] == "schedule_step"


def test_the_timeline_is_a_picture():
    dump = PEAK / "attention" / "after_optimizations.hlo.pb"
    picture = xla_shape.memory_timeline(dump)
    svg = picture._repr_svg_()
    assert svg.startswith("<?xml") and "memory timeline of after_optimizations.hlo.pb" in svg
    assert "peak 96 KiB (98304 bytes)" in svg
    plain = xla_shape.memory_timeline(bytearray(dump.read_bytes()))
    assert "<title>memory timeline</title>" in str(plain)


def test_what_is_no_dump_is_refused(tmp_path):
    # A file that is neither a dump nor a module's text (which is read as
    # the module: test_peak_from_text.py).
    other = tmp_path / "notes.json"
    other.write_text('{"peak": 1}')
    with pytest.raises(xla_shape.XlaShapeError, match="not one of XLA's dumps"):
        xla_shape.peak_memory(other)
    with pytest.raises(xla_shape.XlaShapeError, match="HloProto"):
        xla_shape.peak_memory(b"\x0a\x05\x12")
    with pytest.raises(TypeError):
        xla_shape.peak_memory(3)
