"""The sharding picture: every text inside its frame (as in the other
pictures), the mesh's axes named, the devices holding nothing listed,
errors in Python's words."""

import re
import xml.etree.ElementTree as ET

import pytest

import xla_shape
from xla_shape import XlaShapeError, _native

from conftest import GOLDEN

SVG = "{http://www.w3.org/2000/svg}"
# The widest a monospace font sets a character, in em (common ones: 0.6).
EM = 0.62


def texts(svg):
    root = ET.fromstring(svg)
    width = float(root.get("width"))
    return width, [
        (float(t.get("x")), float(t.get("font-size")), t.get("text-anchor"), t.text or "")
        for t in root.iter(SVG + "text")
    ]


def assert_fits(svg):
    """No text runs past either edge, at ``EM`` a character."""
    width, found = texts(svg)
    for x, size, anchor, words in found:
        extent = len(words) * size * EM
        left = {"start": x, "middle": x - extent / 2, "end": x - extent}[anchor]
        assert left >= 0 and left + extent <= width, (words, x, size, width)


PICTURES = [
    ("f32[6,8]", "{devices=[2,2,2]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}", None, None),
    ("f32[7]", "{devices=[8]<=[8]}", None, None),
    ("f32[3]", "{devices=[4,2]0,2,4,6,1,3,5,7 last_tile_dim_replicate}", None, None),
    ("bf16[4,64]", "{devices=[2,64]<=[128]}", None, None),
    ("f32[2,2]", "{replicated}", 1024, None),
    ("f32[16,5]", "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}", None,
     [("a_rather_long_data_axis_name", 2), ("and_another_long_model_axis_name", 4)]),
    ("f32[7,8]", "{mesh['x'=2,'y'=4], [{'y','x'}, {}]}", None, None),
]


@pytest.mark.parametrize("shape,sharding,devices,axes", PICTURES)
def test_every_text_fits_the_frame(shape, sharding, devices, axes):
    assert_fits(_native.draw_sharding_svg(shape, sharding, devices, axes))


def test_long_titles_wrap_and_fit():
    ids = ",".join(str(d) for d in reversed(range(256)))
    svg = _native.draw_sharding_svg("f32[256]", "{devices=[256]" + ids + "}", None, None)
    assert_fits(svg)
    _, found = texts(svg)
    title_lines = [words for _, size, _, words in found if size == 16]
    assert "".join(title_lines).replace(" ", "") == ("f32[256]{0} {devices=[256]" + ids + "}").replace(" ", "")
    assert len(title_lines) > 3


def notes(svg):
    return [words for _, size, _, words in texts(svg)[1] if size == 13]


def test_mesh_axes_are_named():
    svg = _native.draw_sharding_svg(
        "f32[8,4]", "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}", None, [("a", 2), ("b", 4)]
    )
    assert "mesh a=2 \u00b7 b=4" in notes(svg)
    named = _native.draw_sharding_svg("f32[8,4]", "{mesh['a'=2,'b'=4], [{'b'}, {}]}", None, None)
    assert "mesh a=2 \u00b7 b=4" in notes(named)
    assert "\u2193 rows: dim 0 \u00b7 size 8 \u00b7 shard 2 \u00b7 split by 'b'" in notes(named)


def test_devices_holding_nothing_are_listed():
    svg = _native.draw_sharding_svg("f32[7]", "{devices=[8]<=[8]}", None, None)
    assert "devices holding nothing: 7" in notes(svg)
    # The same device the shard report gives no box.
    report = xla_shape.shard("f32[7]", "{devices=[8]<=[8]}")
    assert [d["device"] for d in report["devices"] if d["bytes"] == 0] == [7]


def test_errors_name_the_python_keyword_and_the_mesh():
    with pytest.raises(XlaShapeError, match=re.escape("{replicated} names no device count: give devices=N")):
        _native.draw_sharding_svg("f32[8]", "{replicated}", None, None)
    with pytest.raises(XlaShapeError, match="the mesh axes a=2 \u00b7 b=2 hold 4 devices, the sharding 8"):
        _native.draw_sharding_svg("f32[8]", "{devices=[8]<=[8]}", None, [("a", 2), ("b", 2)])




@pytest.mark.parametrize(
    "picture",
    [
        lambda: xla_shape.draw("f32[2,3]{0,1:PAD(3,5)PV(zero)}"),
        lambda: xla_shape.draw("bf16[10,200]{1,0:T(8,128)(2,1)}"),
        lambda: xla_shape.draw("f32[2,3,4,5,6]{0,1,2,3,4:T(2,2)}"),
        lambda: xla_shape.memory_timeline(
            str(GOLDEN / "peak_memory" / "scan_layers_grad" / "buffer-assignment.txt")
        ),
    ],
    ids=["padded", "tiled", "rank 5", "timeline"],
)
def test_other_pictures_fit_their_frame(picture):
    assert_fits(str(picture()))
