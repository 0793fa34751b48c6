"""The Python examples of docs/python.md run as written."""

import doctest
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_python_doc_examples():
    blocks = re.findall(r"```pycon\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 4, "the ```pycon blocks of docs/python.md"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs = {}
    for i, block in enumerate(blocks):
        # Each block goes on from the names the ones before it defined.
        test = parser.get_doctest(block, globs, f"docs/python.md pycon block {i}", str(DOC), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs
    result = runner.summarize(verbose=False)
    assert result.attempted > 10
    assert result.failed == 0
