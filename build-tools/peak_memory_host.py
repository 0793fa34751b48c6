"""The programs of gen_peak_memory.py whose arguments or results live in
host memory (jax's `memory_kind="pinned_host"`, XLA's memory space `S(5)`
in the entry computation layout): what XLA's CPU client counts of them in
`memory_analysis()` (device or host bytes) is the truth for how the module
text's `S(5)` layouts are totalled. Kept in a file of its own so that adding
programs leaves the line numbers of the other sets' module texts as they are."""

from __future__ import annotations


def host_programs():
    """name -> (function, argument specs, jit keyword arguments)."""
    import jax
    import jax.numpy as jnp

    device = jax.devices()[0]
    host = jax.sharding.SingleDeviceSharding(device, memory_kind="pinned_host")
    on_device = jax.sharding.SingleDeviceSharding(device, memory_kind="device")

    def f32(*dims, sharding=None):
        return jax.ShapeDtypeStruct(dims, jnp.float32, sharding=sharding)

    def offload(x):
        return jax.device_put(jnp.sin(x), host), x * 2.0

    return {
        "host_argument": (lambda x: x * 2.0, [f32(256, sharding=host)],
                          {"in_shardings": (host,), "out_shardings": on_device}),
        "host_result": (lambda x: x * 2.0, [f32(256)], {"out_shardings": host}),
        "host_argument_and_result": (lambda x, y: (x + y, x * y), [f32(64, 8, sharding=host), f32(64, 8)],
                                     {"in_shardings": (host, on_device), "out_shardings": (host, on_device)}),
        "host_offload_in_body": (offload, [f32(32, 32)], {}),
    }
