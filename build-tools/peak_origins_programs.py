"""The third set of programs of gen_peak_memory.py: programs whose buffers
at the peak come from many places of the user's code (name scopes,
`jax.checkpoint` with a policy, functions in two files, pytrees of
parameters, `vmap`, `scan` over layers), to check that each buffer's op_name
and stack are those of XLA's dump. Kept in a file of its own, as
peak_memory_heldout.py is, so that the line numbers gen_peak_memory.py's
module texts record stay as they are."""

from __future__ import annotations


def origin_programs():
    """name -> (function, argument specs, jit keyword arguments)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    import peak_origins_layers as layers

    f32 = lambda *d: jax.ShapeDtypeStruct(d, jnp.float32)  # noqa: E731

    def scoped(p, x):
        with jax.named_scope("encoder"):
            h = layers.dense(p["enc"], x)
            with jax.named_scope("attention"):
                h = layers.attention(h, h, h)
        with jax.named_scope("head"):
            return jnp.sum(h @ p["head"])

    scoped_params = {"enc": {"w": f32(32, 64), "b": f32(64)}, "head": f32(64, 8)}

    def loss_policy(ps, x):
        block = jax.checkpoint(layers.mlp_block, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
        return jnp.sum(block(ps, x) ** 2)

    stack_params = [{"w": f32(48, 48), "b": f32(48)} for _ in range(3)]

    def two_files(ps, q, x):
        h = layers.mlp_block(ps, x)
        return jnp.sum(layers.attention(h, q, h) ** 2)

    def pytree(p, x):
        h = x
        for layer in p["enc"]:
            h = layers.dense(layer, h)
        return jnp.mean((h @ p["dec"]["w"]) ** 2)

    pytree_params = {"enc": [{"w": f32(24, 40), "b": f32(40)}, {"w": f32(40, 40), "b": f32(40)}],
                     "dec": {"w": f32(40, 12)}}

    def per_example(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    def scan_loss(stacked, x):
        h, _ = lax.scan(layers.scan_layer, x, stacked)
        return jnp.sum(h ** 2)

    scan_params = {"w": f32(5, 32, 32), "b": f32(5, 32)}

    return {
        "origins_named_scope": (jax.grad(scoped), [scoped_params, f32(16, 32)], {}),
        "origins_checkpoint_policy": (jax.grad(loss_policy), [stack_params, f32(16, 48)], {}),
        "origins_two_files": (jax.value_and_grad(two_files, argnums=(0, 1)),
                              [stack_params[:2], f32(24, 48), f32(24, 48)], {}),
        "origins_pytree_params": (jax.value_and_grad(pytree), [pytree_params, f32(20, 24)], {}),
        "origins_vmap": (jax.vmap(jax.grad(per_example), in_axes=(None, 0)), [f32(16, 16), f32(12, 8, 16)], {}),
        "origins_scan_layers": (jax.grad(scan_loss), [scan_params, f32(8, 32)], {}),
    }
