"""Pictures: what `xla-shape draw` draws."""

import xla_shape


def test_svg_shows_in_notebooks_and_saves(tmp_path):
    picture = xla_shape.draw(xla_shape.parse("f32[3,5]{1,0:T(2,2)}"))
    svg = picture._repr_svg_()
    assert "<svg" in svg and "<title>f32[3,5]{1,0:T(2,2)}</title>" in svg
    path = tmp_path / "tiles.svg"
    picture.save(path)
    assert path.read_text(encoding="utf-8") == svg + "\n"
    assert str(picture) == svg


def test_draw_errors_raise():
    import pytest

    with pytest.raises(xla_shape.XlaShapeError):
        xla_shape.draw("(f32[2], s8[])")
