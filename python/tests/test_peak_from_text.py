"""Peak memory and the memory timeline from a module's text alone
(`compiled.txt` of the golden programs: jax's `compiled.as_text()` on
jaxlib 0.12 CPU), against the expected peaks of XLA's algorithm replayed on
XLA's dumped assignment."""

import pytest

import xla_shape
from conftest import GOLDEN, golden

PEAK = GOLDEN / "peak_memory"


class Compiled:
    """Stands for a jax ``Compiled``: only ``as_text()`` is used."""

    def __init__(self, text):
        self.text = text

    def as_text(self):
        return self.text


def compiled_text(name):
    return (PEAK / name / "compiled.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("row", golden("peak_memory"), ids=lambda r: r["name"])
def test_the_peak_from_the_text_is_xlas(row):
    text = compiled_text(row["name"])
    report = xla_shape.peak_memory(text)
    assert report["peak_bytes"] == row["expected"]["peak_bytes"]
    assert report["static_bytes"] == row["expected"]["static_bytes"]
    assert report["peak_is_estimate"] is False
    assert sum(b["bytes"] for b in report["live_at_peak"]) == report["peak_bytes"]
    assert xla_shape.peak_memory(Compiled(text)) == report
    if report["peak_at"] is not None:
        assert report["peak_at"]["unit"] == "schedule_step"
        assert 0 <= report["peak_at"]["step"] < report["steps"]
    for buffer in report["buffers"]:
        # Thread-local values (and constants of applied computations) live
        # inside one instruction: no steps of their own.
        if buffer["first_step"] is None:
            assert buffer["last_step"] is None
            assert buffer["kind"] in ("thread_local", "constant")
        else:
            assert buffer["first_step"] <= buffer["last_step"] <= report["steps"]


def test_the_timeline_of_a_compiled_module():
    picture = xla_shape.memory_timeline(Compiled(compiled_text("attention")))
    svg = picture._repr_svg_()
    assert svg.startswith("<?xml") and "<title>memory timeline</title>" in svg
    assert "peak 96 KiB (98304 bytes)" in svg
    assert "flattened schedule" in svg
    assert str(xla_shape.memory_timeline(compiled_text("attention"))) == svg


def test_hlo_memory_takes_a_compiled_module():
    text = compiled_text("mlp")
    assert xla_shape.hlo_memory(Compiled(text)) == xla_shape.hlo_memory(text)


def test_an_unscheduled_module_is_an_estimate():
    text = compiled_text("mlp").replace("is_scheduled=true, ", "", 1)
    assert xla_shape.peak_memory(text)["peak_is_estimate"] is True


def test_stablehlo_and_bad_text_are_refused():
    stablehlo = Compiled("module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n}\n")
    with pytest.raises(xla_shape.XlaShapeError, match=r"pass compiled\.as_text\(\)"):
        xla_shape.peak_memory(stablehlo)
    with pytest.raises(xla_shape.XlaShapeError, match=r"pass compiled\.as_text\(\)"):
        xla_shape.memory_timeline(stablehlo)
    bad = "HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %a = f32[] add(%x, %x)\n}\n"
    with pytest.raises(xla_shape.HloError, match="^line 4, column 23: instruction does not exist: x$"):
        xla_shape.peak_memory(bad)


UNKNOWN_OPCODE = """HloModule m, is_scheduled=true

ENTRY %main (p: f32[256]) -> f32[256] {
  %p = f32[256]{0} parameter(0)
  %f = f32[1024]{0} frobnicate(%p, %p, %p, %p), dimensions={0}
  %r = f32[256]{0} frobnicate(%f), slice={[0:256]}
  ROOT %s = f32[256]{0} add(%r, %p)
}
"""


def test_an_unknown_opcode_is_a_warning_and_its_buffers_count():
    warning = "line 5, column 21: unknown opcode `frobnicate`, read as an instruction of its shape"
    report = xla_shape.peak_memory(UNKNOWN_OPCODE)
    assert report.warnings == [warning]
    assert report["warnings"] == [warning]
    assert xla_shape.hlo_memory(UNKNOWN_OPCODE).warnings == [warning]
    assert f"warnings=['{warning}']" in repr(report)
    # The parameter and the output (1 KiB each) are static; `f` (4 KiB) is
    # the heap's one temporary at the peak.
    assert (report.peak_bytes, report.static_bytes, report.heap_peak_bytes) == (6144, 2048, 4096)
    assert [(b.name, b.bytes, b.kind) for b in report.live_at_peak] == [
        ("f", 4096, "temporary"),
        ("p", 1024, "parameter"),
        ("r", 1024, "output"),
    ]
    known = UNKNOWN_OPCODE.replace("frobnicate", "concatenate", 1).replace("frobnicate", "slice", 1)
    without = xla_shape.peak_memory(known)
    assert "warnings" not in without.keys()
    assert without.peak_bytes == 6144


def test_each_live_buffer_has_its_op_name_stack_and_source():
    row = next(r for r in golden("peak_memory") if r["name"] == "origins_two_files")
    report = xla_shape.peak_memory(compiled_text("origins_two_files"))
    expected = row["expected"]["live_at_peak"]
    assert [b.name for b in report.live_at_peak] == [b["name"] for b in expected]
    for ours, xla in zip(report.live_at_peak, expected):
        assert ours.op_name == xla["op_name"]
        assert [[f.file, f.function, f.line] for f in ours.stack] == [s[:3] for s in xla["stack"]]
        assert ours.source == ("%s:%d" % (xla["stack"][0][0], xla["stack"][0][2]) if xla["stack"] else None)
    assert any(b.source and b.source.startswith("peak_origins_layers.py:") for b in report.live_at_peak)
    parameter = next(b for b in report.live_at_peak if b.kind == "parameter")
    assert parameter.op_name.startswith("args[") and parameter.stack == [] and parameter.source is None
    sourced = next(b for b in report.live_at_peak if b.stack)
    assert isinstance(sourced.stack[0], xla_shape.Frame) and sourced.stack[0].column is not None


@pytest.mark.parametrize("name", ["scan_cumulative", "fori_loop", "host_result"])
def test_a_file_of_module_text_is_read_as_its_text(name, tmp_path):
    # compiled.as_text() saved to a file, and the same path as a pathlib.Path
    path = GOLDEN / "peak_memory" / name / "compiled.txt"
    from_text = xla_shape.peak_memory(path.read_text())
    for given in (str(path), path):
        report = xla_shape.peak_memory(given)
        assert report.peak_bytes == from_text.peak_bytes
        assert [b.name for b in report.live_at_peak] == [b.name for b in from_text.live_at_peak]
    assert "<svg" in xla_shape.memory_timeline(path)._repr_svg_()
    stablehlo = tmp_path / "lowered.mlir"
    stablehlo.write_text("module @jit_f {\n}\n")
    with pytest.raises(xla_shape.HloError, match="StableHLO"):
        xla_shape.peak_memory(stablehlo)


def test_xlas_text_dump_of_a_loop_is_read_from_its_path():
    # XLA's *after_optimizations.txt (--xla_dump_to) of a scan on an H100
    path = GOLDEN / "peak_memory_h100" / "big_scan_layers_remat" / "after_optimizations.txt"
    expected = {r["name"]: r for r in golden("peak_memory_h100/memory_analysis")}
    report = xla_shape.peak_memory(path)
    assert report.peak_bytes == expected["big_scan_layers_remat"]["memory_analysis"]["peak_memory_in_bytes"]
