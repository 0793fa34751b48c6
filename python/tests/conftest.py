"""Shared helpers: the repository's golden files (from real XLA and numpy)."""

import json
import pathlib

import pytest

GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "tests" / "golden"


def golden(name):
    """The rows of ``tests/golden/<name>.jsonl``."""
    with open(GOLDEN / f"{name}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture
def rows():
    return golden
