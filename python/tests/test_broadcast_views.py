"""Broadcasting (XLA's and numpy's) and strided views against real XLA and
numpy."""

import pytest

import xla_shape
from conftest import golden


def _outcome(call):
    try:
        return ("ok", call())
    except xla_shape.XlaShapeError as error:
        return ("error", str(error))


def _expected(row, result):
    return ("error", row["error"]) if "error" in row else ("ok", result(row["result"]))


ROWS = golden("broadcast")


@pytest.mark.parametrize(
    "row", [r for r in ROWS if r["kind"] == "xla_binary" and r["op"] == "add"]
)
def test_xla_binary_broadcast(row):
    got = _outcome(lambda: xla_shape.broadcast(row["lhs"], row["rhs"]))
    # The CLI prints shapes without layouts.
    want = _expected(row, lambda result: result.split("{")[0])
    assert got == want


@pytest.mark.parametrize("row", [r for r in ROWS if r["kind"] == "xla_broadcast_in_dim"])
def test_xla_broadcast_in_dim(row):
    got = _outcome(
        lambda: xla_shape.broadcast(
            row["operand"], row["output"], dims=row["broadcast_dimensions"], in_dim=True
        )
    )
    if "error" in row:
        # StableHLO's words for the error differ from XLA's (the Rust
        # conformance test matches them by kind): rejected is the check.
        assert got[0] == "error"
    else:
        assert got == ("ok", row["result"].split("{")[0])


@pytest.mark.parametrize("row", [r for r in ROWS if r["kind"] == "numpy"])
def test_numpy_broadcast(row):
    shapes = ["[" + ",".join(map(str, s)) + "]" for s in row["shapes"]]
    got = _outcome(lambda: xla_shape.broadcast(*shapes, numpy=True).dimensions)
    want = _expected(row, list)
    if got[0] == "error" and got[1].startswith('in "['):
        # A bare list the CLI (and so this package) refuses as an XLA shape
        # (negative or too large) before numpy's rules see it.
        assert want[0] == "error"
    else:
        assert got == want


def _tuple(values):
    return "(" + ",".join(map(str, values)) + ("," if len(values) == 1 else "") + ")"


def _op_text(step):
    """The step as the CLI's view syntax, or None where it has none."""
    op = step["op"]
    if op == "index":
        return step["expression"]
    if op in ("reshape", "reshape_f"):
        order = ", order='F'" if op == "reshape_f" else ""
        return f".reshape({_tuple(step['target'])}{order})"
    if op == "transpose":
        return ".T" if step.get("axes") is None else f".transpose({_tuple(step['axes'])})"
    if op == "swapaxes":
        return f".swapaxes({step['axis1']},{step['axis2']})"
    if op == "moveaxis" and len(step["source"]) == len(step["destination"]) == 1:
        return f".moveaxis({step['source'][0]},{step['destination'][0]})"
    if op == "expand_dims":
        return f".expand_dims({_tuple(step['axes'])})"
    if op == "squeeze":
        return ".squeeze()" if step.get("axes") is None else f".squeeze({_tuple(step['axes'])})"
    if op == "broadcast_to":
        return f".broadcast_to({_tuple(step['target'])})"
    if op == "flip":
        axes = step.get("axes")
        if axes is None:
            return ".flip()"
        if len(axes) == 1:
            return f".flip({axes[0]})"
    return None


VIEW_CHAINS = [r for r in golden("views") if "shape" in r["start"]]


@pytest.mark.parametrize("chain", VIEW_CHAINS)
def test_views_follow_numpy(chain):
    dims = chain["start"]["shape"]
    ops = []
    for step in chain["steps"]:
        text = _op_text(step)
        if text is None:
            break
        ops.append(text)
        if "error" in step:
            with pytest.raises(xla_shape.XlaShapeError):
                xla_shape.view(dims, *ops)
            break
        got = xla_shape.view(dims, *ops)
        for key in ("shape", "strides", "offset", "c_contiguous", "f_contiguous"):
            assert got[key] == step[key], (ops, key)


def test_xla_broadcast_takes_two_shapes():
    with pytest.raises(xla_shape.XlaShapeError, match="XLA broadcasting takes two shapes, got 3"):
        xla_shape.broadcast("[1]", "[2]", "[3]")
