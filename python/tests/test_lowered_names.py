"""``lowered_shardings`` of a jax ``Lowered`` names its arguments by their
pytree paths, as jax names the compiled module's parameters."""

import re

import pytest

import xla_shape

jax = pytest.importorskip("jax")
jnp = jax.numpy


def step(params, x, unused, *, scale):
    return params["w"] @ x + params["b"][0] * scale


def lowered():
    params = {"w": jnp.ones((4, 4)), "b": [jnp.ones(4)]}
    return jax.jit(step).lower(params, jnp.ones(4), jnp.ones(3), scale=jnp.ones(()))


def test_arguments_are_named_as_the_compiled_parameters_op_names():
    low = lowered()
    entries = xla_shape.lowered_shardings(low).entries
    names = [e.name for e in entries if e.kind == "argument"]
    # The unused argument is pruned from the module, and from the names.
    assert len(names) == 4
    text = low.compile().as_text()
    op_names = re.findall(r'parameter\(\d+\), metadata=\{op_name="([^"]*)"', text)
    assert sorted(names) == sorted(n.replace("\\'", "'") for n in op_names)
    assert names[0] == "params['b'][0]"
    assert [e.name for e in entries if e.kind == "result"] == ["result"]


def test_without_jax_s_own_names_the_args_info_paths():
    class Bare:
        """Only the public parts of a ``Lowered``."""

        def __init__(self, low):
            self.args_info = low.args_info
            self.as_text = low.as_text

    def used(params, x):
        return params["w"] @ x

    low = jax.jit(used).lower({"w": jnp.ones((4, 4))}, jnp.ones(4))
    names = [e.name for e in xla_shape.lowered_shardings(Bare(low)).entries if e.kind == "argument"]
    assert names == ["args[0]['w']", "args[1]"]
    # A text has no pytree: MLIR's names.
    text_names = [e.name for e in xla_shape.lowered_shardings(low.as_text()).entries]
    assert text_names[:2] == ["%arg0", "%arg1"]
