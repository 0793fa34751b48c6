"""The README's Python example runs as written, and the pictures it saves are
the README's pictures, byte for byte."""

import doctest
import os
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example(tmp_path):
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.S)
    assert blocks, "no ```pycon block in README.md"
    (tmp_path / "docs" / "images").mkdir(parents=True)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        parser = doctest.DocTestParser()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        for i, block in enumerate(blocks):
            test = parser.get_doctest(block, {}, f"README.md pycon block {i}", str(README), 0)
            runner.run(test)
        result = runner.summarize(verbose=False)
    finally:
        os.chdir(cwd)
    assert result.attempted >= 10
    assert result.failed == 0
    for picture in ["draw-tiled.svg", "draw-sharding.svg"]:
        saved = (tmp_path / "docs" / "images" / picture).read_bytes()
        assert saved == (README.parent / "docs" / "images" / picture).read_bytes()
