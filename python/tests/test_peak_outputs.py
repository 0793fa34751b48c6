"""The peak by source line, op and pass, its flame graph, pprof profile
and diff, from the golden programs' text (jax's ``compiled.as_text()`` on
jaxlib 0.12 CPU) and XLA's dump of the same program."""

import gzip
from collections import defaultdict

import pytest

import xla_shape
from conftest import GOLDEN

PEAK = GOLDEN / "peak_memory"
PROGRAMS = ["transformer_block_grad", "scan_layers_remat_grad", "mlp_grad", "donated"]


def report(name, dump=False):
    if dump:
        return xla_shape.peak_memory(str(PEAK / name / "after_optimizations.hlo.pb"))
    return xla_shape.peak_memory((PEAK / name / "compiled.txt").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("dump", [False, True], ids=["text", "dump"])
def test_bytes_by_source_line_add_the_live_buffers_up(name, dump):
    peak = report(name, dump)
    expected = defaultdict(lambda: [0, 0])
    for b in peak.live_at_peak:
        expected[b.source][0] += b.bytes
        expected[b.source][1] += 1
    rows = peak.by_source()
    assert rows.columns == ["source", "bytes", "buffers", "percent"]
    assert {r["source"]: [r["bytes"], r["buffers"]] for r in rows} == dict(expected)
    assert sum(r["bytes"] for r in rows) == peak.peak_bytes
    assert [r["bytes"] for r in rows] == sorted((r["bytes"] for r in rows), reverse=True)
    assert sum(r["percent"] for r in rows) == pytest.approx(100.0)
    for by, column in [(peak.by_op, "op"), (peak.by_pass, "pass"), (peak.by_function, "function")]:
        table = by()
        assert table.columns[0] == column
        assert sum(r["bytes"] for r in table) == peak.peak_bytes


def test_buffers_carry_their_op_name_stack_and_source_line():
    peak = report("transformer_block_grad")
    stacked = [b for b in peak.live_at_peak if b.stack]
    assert stacked
    for b in stacked:
        inner = b.stack[0]
        assert b.source == f"{inner.file}:{inner.line}"
        assert isinstance(inner.function, str) and inner.line > 0
        assert list(inner.keys()) == ["file", "line", "function", "end_line", "column", "end_column"]
        assert b.op_name.startswith("jit(transformer_block_grad)/")
    arguments = [b for b in peak.live_at_peak if b.kind == "parameter"]
    assert arguments and all(b.source is None and b.stack == [] for b in arguments)
    # The text and the dump name the same lines.
    dump = report("transformer_block_grad", dump=True)
    assert dump.by_source() == peak.by_source()


def test_a_table_prints_and_shows_as_html_and_feeds_pandas_as_dicts():
    rows = report("mlp_grad").by_pass()
    text = str(rows)
    assert text.splitlines()[0].split() == ["pass", "bytes", "buffers", "percent"]
    assert "backward" in text
    html = rows._repr_html_()
    assert html.startswith("<table><thead><tr><th>pass</th>")
    assert html.count("<tr>") == len(rows) + 1
    assert all(isinstance(r, dict) for r in rows.to_dict())
    with pytest.raises(ValueError, match="no grouping `line`"):
        report("mlp_grad").group("line")


def _fields(data):
    """The (field number, value) pairs of a protobuf message: varints and
    length-delimited bytes (all a pprof profile uses)."""
    at, out = 0, []

    def varint():
        nonlocal at
        shift = value = 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while at < len(data):
        key = varint()
        if key & 7 == 0:
            out.append((key >> 3, varint()))
        else:
            assert key & 7 == 2
            n = varint()
            out.append((key >> 3, data[at : at + n]))
            at += n
    return out


def _packed(data):
    """The varints of a packed repeated field."""
    values, shift, value = [], 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            values.append(value)
            shift = value = 0
    return values


def test_the_pprof_profile_has_a_sample_per_buffer_adding_up_to_the_peak(tmp_path):
    peak = report("transformer_block_grad")
    path = tmp_path / "peak.pb.gz"
    peak.to_pprof(path)
    profile = _fields(gzip.decompress(path.read_bytes()))
    strings = [bytes(v).decode() for f, v in profile if f == 6]
    assert strings[0] == ""
    samples = [_fields(v) for f, v in profile if f == 2]
    assert len(samples) == len(peak.live_at_peak)
    total = 0
    for sample in samples:
        # The values, packed: allocations (count) then space (bytes).
        values = [v for f, v in sample if f == 2][0]
        count, space = _packed(bytes(values))
        assert count == 1
        total += space
    assert total == peak.peak_bytes
    assert "space" in strings and "bytes" in strings and "gen_peak_memory.py" in strings


def test_the_flame_graph_and_the_diff():
    a, b = report("transformer_block_grad"), report("mlp_grad")
    svg = a.flame()
    assert svg.text.startswith("<?xml") and "all: peak " in svg.text
    assert "[arguments: no Python source]" in svg.text
    diff = a.diff(b)
    assert diff.peak_bytes_delta == b.peak_bytes - a.peak_bytes
    assert diff.by_source.columns == ["source", "a_bytes", "b_bytes", "delta_bytes"]
    assert sum(r["a_bytes"] for r in diff.by_source) == a.peak_bytes
    assert sum(r["b_bytes"] for r in diff.by_op) == b.peak_bytes
    deltas = [abs(r["delta_bytes"]) for r in diff.by_source]
    assert deltas == sorted(deltas, reverse=True)
    assert diff._repr_html_().count("<table>") == 2
