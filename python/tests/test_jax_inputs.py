"""jax's objects at the package's entry points, against jax's own answers
(run where jax is installed, on 8 CPU devices)."""

import os

import numpy as np
import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import xla_shape  # noqa: E402

from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

PERMUTATION = [3, 1, 2, 0, 6, 7, 4, 5]


@pytest.fixture
def mesh():
    if len(jax.devices()) < 8:
        pytest.skip("needs 8 devices (XLA_FLAGS=--xla_force_host_platform_device_count=8)")
    mesh = Mesh(np.array(jax.devices())[PERMUTATION].reshape(2, 4), ("data", "model"))
    from xla_shape import _jax

    if _jax.sharding(NamedSharding(mesh, P()), 1) is None:
        pytest.skip("this build reads none of jax's objects (xla_shape._jax)")
    return mesh


def test_shards_of_a_named_sharding_are_jaxs_indices(mesh):
    for spec in [P("model", None), P("data", "model"), P(None, ("model", "data")), P()]:
        named = NamedSharding(mesh, spec)
        report = xla_shape.shard(((8, 16), jnp.float32), named)
        want = named.devices_indices_map((8, 16))
        assert sorted(d.device for d in report.devices) == list(range(8))
        for entry in report.devices:
            index = want[jax.devices()[entry.device]]
            box = [s.indices(n)[:2] for s, n in zip(index, (8, 16))]
            assert [(lo, hi) for lo, hi in zip(entry.offsets, entry.limits)] == box, (spec, entry)


def test_shards_of_a_placed_array_are_its_addressable_shards(mesh):
    named = NamedSharding(mesh, P("data", "model"))
    array = jax.device_put(jnp.arange(96, dtype=jnp.float32).reshape(8, 12), named)
    report = xla_shape.shard(array, array.sharding)
    by_device = {d.device: d for d in report.devices}
    for shard in array.addressable_shards:
        entry = by_device[shard.device.id]
        assert entry.bytes == shard.data.nbytes
        assert np.array_equal(np.asarray(array)[entry.index], np.asarray(shard.data))


def test_compiled_and_lowered_modules(mesh):
    def step(w, x):
        return jnp.tanh(x @ w).sum()

    w, x = jnp.ones((64, 32)), jnp.ones((16, 64))
    lowered = jax.jit(step).lower(w, x)
    compiled = lowered.compile()
    stats = compiled.memory_analysis()
    for module in [compiled, lowered]:
        report = xla_shape.hlo_memory(module)
        assert report.parameter_bytes == stats.argument_size_in_bytes
        assert report.output_bytes == stats.output_size_in_bytes
    assert xla_shape.peak_memory(compiled).device.argument_bytes == stats.argument_size_in_bytes


def test_jax_arrays_and_dtypes_are_shapes():
    a = jnp.zeros((16, 5), jnp.bfloat16)
    assert xla_shape.as_shape(a) == "bf16[16,5]{1,0}"
    assert xla_shape.as_shape((a.shape, a.dtype)) == "bf16[16,5]"
    assert xla_shape.as_shape(((4,), jnp.int4)) == "s4[4]"
    assert xla_shape.byte_size(a) == a.nbytes


def test_relayout_of_a_jax_array():
    a = jnp.arange(24, dtype=jnp.bfloat16).reshape(4, 6)
    out = xla_shape.relayout(a, "bf16[4,6]", "bf16[4,6]{0,1}")
    assert isinstance(out, np.ndarray) and out.flags.f_contiguous
    assert np.array_equal(out, np.asarray(a))
    with pytest.raises(xla_shape.XlaShapeError, match="data is bfloat16"):
        xla_shape.relayout(a, "f32[4,6]", "f32[4,6]{0,1}")
