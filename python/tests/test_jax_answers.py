"""Answers a jax user acts on, checked against jax's own on 8 CPU devices:
the shardings XLA chose for values a lowered module leaves unspecified
(``compiled.output_shardings``, ``devices_indices_map``,
``memory_analysis()``), and the errors of arguments that do not fit."""

import os

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
).strip()

import numpy as np  # noqa: E402
import pytest  # noqa: E402

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import xla_shape  # noqa: E402

from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

if jax.device_count() < 8:
    pytest.skip(
        "jax was imported before XLA_FLAGS asked for 8 CPU devices", allow_module_level=True
    )

ORDERS = [list(range(8)), [3, 6, 0, 5, 7, 1, 4, 2]]


def jax_bytes(sharding, value, mesh):
    """What each device of ``mesh`` (in its order) holds of ``value``
    under ``sharding``, from jax's ``devices_indices_map``."""
    boxes = sharding.devices_indices_map(value.shape)
    out = []
    for device in mesh.devices.flat:
        elements = 1
        for k, s in enumerate(boxes[device]):
            elements *= len(range(*s.indices(value.shape[k])))
        out.append(elements * np.dtype(value.dtype).itemsize)
    return out


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("reduce", [True, False])
def test_a_result_left_to_propagation_takes_the_sharding_xla_chose(order, reduce):
    mesh = Mesh(np.array(jax.devices())[order].reshape(2, 4), ("data", "model"))
    w = jax.device_put(jnp.ones((256, 1024), jnp.float32), NamedSharding(mesh, P(None, "model")))
    x = jax.device_put(jnp.ones((8, 256), jnp.float32), NamedSharding(mesh, P("data")))

    def f(w, x):
        y = x @ w
        return y.sum(0) if reduce else y

    lowered = jax.jit(f).lower(w, x)
    report = xla_shape.lowered_shardings(lowered)
    result = report.entries[2]
    assert (result.kind, result.source, result.hlo, result.bytes) == ("result", "unspecified", None, None)
    assert report.result_bytes == [0] * 8
    compiled = lowered.compile()
    chosen = xla_shape.lowered_shardings(lowered, compiled=compiled)
    result = chosen.entries[2]
    out = jax.eval_shape(f, w, x)
    want = jax_bytes(compiled.output_shardings, out, mesh)
    assert result.source == "compiled"
    assert result.bytes == want
    assert chosen.result_bytes == want
    assert chosen.result_bytes[0] == compiled.memory_analysis().output_size_in_bytes
    # The arguments are the lowered module's own, as before.
    assert [e.source for e in chosen.entries[:2]] == ["lowered", "lowered"]
    assert chosen.argument_bytes == report.argument_bytes
    assert chosen.entries[0].bytes == jax_bytes(w.sharding, w, mesh)


def test_an_uncommitted_argument_is_unspecified_until_compiled():
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    x = jax.device_put(jnp.ones((8, 256), jnp.float32), NamedSharding(mesh, P("data")))
    w = np.ones((256, 1024), np.float32)
    lowered = jax.jit(lambda w, x: x @ w).lower(w, x)
    report = xla_shape.lowered_shardings(lowered)
    assert [e.source for e in report.entries] == ["unspecified", "lowered", "unspecified"]
    compiled = lowered.compile()
    chosen = xla_shape.lowered_shardings(lowered, compiled=compiled)
    assert [e.source for e in chosen.entries] == ["compiled", "lowered", "compiled"]
    in_w = compiled.input_shardings[0][0]
    assert chosen.entries[0].bytes == jax_bytes(in_w, w, mesh)
    assert chosen.argument_bytes[0] == compiled.memory_analysis().argument_size_in_bytes


def test_the_lowered_is_asked_for_and_the_compiled_must_be_a_compiled():
    x = jnp.ones(8)
    lowered = jax.jit(lambda a: a * 2).lower(x)
    compiled = lowered.compile()
    with pytest.raises(TypeError, match=r"reads jax's Lowered .*lowered_shardings\(lowered, compiled=compiled\)"):
        xla_shape.lowered_shardings(compiled)
    with pytest.raises(TypeError, match="compiled is jax's Compiled"):
        xla_shape.lowered_shardings(lowered, compiled=lowered)
    with pytest.raises(xla_shape.HloError, match="this is an HLO module, not a lowered one"):
        xla_shape.lowered_shardings(compiled.as_text())
    # One device: a value without a sharding is whole there.
    report = xla_shape.lowered_shardings(lowered, compiled=compiled)
    assert [e.source for e in report.entries] == ["lowered", "lowered"]
    assert report.result_bytes == [32]


def test_shard_of_a_jax_array_takes_its_own_sharding():
    mesh = Mesh(np.array(jax.devices())[ORDERS[1]].reshape(2, 4), ("data", "model"))
    x = jax.device_put(jnp.ones((8, 4), jnp.float32), NamedSharding(mesh, P("data", "model")))
    report = xla_shape.shard(x)
    assert report == xla_shape.shard(x, x.sharding)
    assert str(report.shard_shape) == "f32[4,1]{1,0}"
    held = {d.device: d.bytes for d in report.devices}
    assert held == {s.device.id: s.data.nbytes for s in x.addressable_shards}
    with pytest.raises(TypeError, match="shard\\(\\) needs a sharding"):
        xla_shape.shard("f32[8]")


def test_a_device_count_that_is_not_the_shardings_own_is_refused():
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    sharding = NamedSharding(mesh, P("data"))
    with pytest.raises(
        xla_shape.ShardingError,
        match=r"^\{devices=\[2,4\]<=\[8\] last_tile_dim_replicate\} has 8 devices, not the 4 given$",
    ):
        xla_shape.shard("f32[8]", sharding, devices=4)
    assert len(xla_shape.shard("f32[8]", sharding, devices=8).devices) == 8


def test_a_partition_spec_longer_than_the_rank_names_both():
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    with pytest.raises(
        xla_shape.XlaShapeError,
        match=r"^the PartitionSpec P\('data', 'model'\) has 2 entries, more than the 1 dimension"
        r" of the array \(rank 1\)$",
    ):
        xla_shape.shard("f32[8]", NamedSharding(mesh, P("data", "model")))
    with pytest.raises(xla_shape.XlaShapeError, match=r"has 3 entries, more than the 2 dimensions"):
        xla_shape.draw("f32[8,8]", sharding=NamedSharding(mesh, P("data", "model", None)))
    # As many entries as dimensions, or fewer (the rest replicated), fit.
    assert str(xla_shape.shard("f32[8,8]", NamedSharding(mesh, P("data"))).shard_shape) == "f32[4,8]{1,0}"


def test_peak_report_warnings_are_an_empty_list_when_there_are_none():
    compiled = jax.jit(lambda a: a * 2).lower(jnp.ones(8)).compile()
    report = xla_shape.peak_memory(compiled)
    assert report.warnings == []
    assert "warnings" not in report.keys()
