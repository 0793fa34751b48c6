"""``PeakTable``: rows of a peak's groupings (bytes by source line, by
op_name, by pass...) or of a diff of two peaks, as a notebook shows them:
a ``list`` of ``dict`` rows (``pandas.DataFrame(table)`` takes it as it
is, pandas not being needed), printed as an aligned table, and as an HTML
table in Jupyter."""

from __future__ import annotations

import html as _html
from typing import Any, Dict, Iterable, List, Mapping

_NO_KEY = "(none)"
"""How a row without a key (buffers whose module records no origin: those
XLA inserted) is printed."""


class PeakTable(List[Dict[str, Any]]):
    """Rows, largest first, each a ``dict`` of the same ``columns``: the
    group (named by the grouping: ``source``, ``op``, ``pass``...) then its
    numbers. A group of ``None`` holds the buffers whose module records
    no origin."""

    def __init__(self, by: str, rows: Iterable[Mapping[str, Any]]) -> None:
        super().__init__({by if key == "key" else key: value for key, value in row.items()} for row in rows)
        self.by = by
        self.columns: List[str] = list(self[0]) if self else [by]

    def _cells(self) -> List[List[str]]:
        """Each row's cells as text."""

        def cell(key: str, value: Any) -> str:
            if value is None and key == self.by:
                return _NO_KEY
            if isinstance(value, float):
                return f"{value:.1f}"
            return str(value)

        return [[cell(k, row.get(k)) for k in self.columns] for row in self]

    def __str__(self) -> str:
        cells = [self.columns] + self._cells()
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        lines = []
        for row in cells:
            parts = [
                text.ljust(width) if i == 0 else text.rjust(width)
                for i, (text, width) in enumerate(zip(row, widths))
            ]
            lines.append("  ".join(parts).rstrip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"PeakTable(by={self.by!r}, {len(self)} rows)\n{self}"

    def _repr_html_(self) -> str:
        """An HTML table: the group left, the numbers right."""
        head = "".join(f"<th>{_html.escape(c)}</th>" for c in self.columns)
        body = []
        for cells in self._cells():
            tds = "".join(
                f'<td style="text-align:{"left" if i == 0 else "right"}">{_html.escape(c)}</td>'
                for i, c in enumerate(cells)
            )
            body.append(f"<tr>{tds}</tr>")
        return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"

    def to_dict(self) -> List[Dict[str, Any]]:
        """The rows as plain ``dict``s (a copy)."""
        return [dict(row) for row in self]
