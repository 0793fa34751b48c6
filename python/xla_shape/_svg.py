"""``Svg``: a picture that Jupyter shows inline."""

from __future__ import annotations

import os as _os
from typing import Union


class Svg:
    """An SVG picture; Jupyter shows it inline (``_repr_svg_``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_svg_(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Svg, {len(self.text)} characters>"

    def save(self, path: Union[str, "_os.PathLike[str]"]) -> None:
        """Writes the SVG (UTF-8, ending in a newline) to ``path``: the
        bytes ``xla-shape draw -o PATH`` writes."""
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.text + "\n")
