"""The second set of programs of gen_peak_memory.py: written apart from the
first, with other shapes, dtypes and constructs, to check on programs it was
not developed against that the peak from the module text alone follows
general rules. Kept in a file of its own so that adding programs here leaves
the line numbers of gen_peak_memory.py, which the first set's module texts
record, unchanged."""

from __future__ import annotations


def heldout_programs():
    """The second set, name -> (function, argument specs, jit keyword
    arguments): programs written apart from the first set to check that the
    peak from the module text alone follows general rules."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def spec(dtype):
        return lambda *d: jax.ShapeDtypeStruct(d, dtype)  # noqa: E731

    f32, i32, bf16, f16 = spec(jnp.float32), spec(jnp.int32), spec(jnp.bfloat16), spec(jnp.float16)
    u8, pred = spec(jnp.uint8), spec(jnp.bool_)
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)

    def norm(x):
        m = x.mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-6)

    def residual_stack(x, ws):
        for i in range(3):
            x = x + jax.nn.softmax(norm(x) @ ws[i], axis=-1)
        return x

    def block(p, x):
        h = norm(x)
        q, k, v = h @ p["q"], h @ p["k"], h @ p["v"]
        a = jax.nn.softmax(jnp.einsum("td,sd->ts", q, k) / 4.0, axis=-1) @ v
        x = x + a @ p["o"]
        return x + jax.nn.gelu(norm(x) @ p["up"]) @ p["down"]

    d = 16
    block_params = {"q": f32(d, d), "k": f32(d, d), "v": f32(d, d), "o": f32(d, d), "up": f32(d, 4 * d),
                    "down": f32(4 * d, d)}

    def multi_carry(x, y, n):
        def body(i, c):
            a, b, s, k = c
            return a * 0.5 + b[:4].sum(), jnp.roll(b, 1, axis=0) + i, s + a.sum(), k + 1

        return lax.fori_loop(0, 7, body, (x, y, 0.0, n))

    def nested_while(x):
        def inner(c):
            return lax.while_loop(lambda t: t[1] < 3, lambda t: (t[0] * 1.1 + 0.1, t[1] + 1), (c, 0))[0]

        return lax.while_loop(lambda t: t[1] < 4, lambda t: (inner(t[0]) @ t[0].T * 0.01, t[1] + 1), (x, 0))[0]

    def cond_in_scan(xs):
        def step(c, x):
            c = lax.cond(x.sum() > 0, lambda v: v + x, lambda v: (v * x)[::-1], c)
            return c, c.max()

        return lax.scan(step, jnp.zeros(xs.shape[1:]), xs)

    def vmap_loop(x):
        return jax.vmap(lambda r: lax.fori_loop(0, 5, lambda i, c: jnp.sin(c) + r, r))(x)

    def ds_loop(x, starts):
        def body(i, acc):
            return acc + lax.dynamic_slice(x, (starts[i], 0), (8, x.shape[1]))

        return lax.fori_loop(0, starts.shape[0], body, jnp.zeros((8, x.shape[1])))

    def mlp3(ws, x):
        for w in ws:
            x = jnp.tanh(x @ w)
        return jnp.sum(x ** 2)

    def remat_policy(ws, x):
        f = jax.checkpoint(mlp3, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
        return jax.grad(f)(ws, x)

    def remat_nothing(ws, x):
        return jax.grad(jax.checkpoint(mlp3, policy=jax.checkpoint_policies.nothing_saveable))(ws, x)

    def block_grad(p, x):
        return jax.grad(lambda p: jnp.sum(block(p, x) ** 2))(p)

    def two_keys(k1, k2):
        a = jax.random.uniform(k1, (16, 32))
        b = jax.random.bernoulli(k2, 0.3, (16, 32))
        return jnp.where(b, a, -a), b

    def conv_grouped(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", rhs_dilation=(2, 2), feature_group_count=2,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def conv_strided(x, k):
        return lax.conv_general_dilated(x, k, (2, 2), ((1, 2), (0, 1)), lhs_dilation=(1, 1),
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def variadic_argmax(x):
        return jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), jnp.max(x, axis=1)

    return {
        "residual_softmax_stack": (residual_stack, [f32(32, 32), f32(3, 32, 32)], {}),
        "transformer_block": (block, [block_params, f32(24, d)], {}),
        "transformer_block_grad": (block_grad, [block_params, f32(24, d)], {}),
        "fori_multi_carry": (multi_carry, [f32(8, 8), f32(12, 4), i32()], {}),
        "nested_while": (nested_while, [f32(8, 8)], {}),
        "cond_in_scan": (cond_in_scan, [f32(6, 16)], {}),
        "lax_map": (lambda x: lax.map(lambda r: jnp.outer(r, r).sum(0), x), [f32(10, 24)], {}),
        "vmap_fori": (vmap_loop, [f32(6, 20)], {}),
        "qr_complete": (lambda a: jnp.linalg.qr(a, mode="complete"), [f32(20, 12)], {}),
        "svd_full": (lambda a: jnp.linalg.svd(a, full_matrices=True), [f32(12, 20)], {}),
        "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [f32(32, 32)], {}),
        "eigh_batched": (jnp.linalg.eigh, [f32(3, 12, 12)], {}),
        "cholesky_solve": (lambda a, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(
            a @ a.T + 8.0 * jnp.eye(a.shape[0])), b), [f32(12, 12), f32(12, 3)], {}),
        "solve_batched": (jnp.linalg.solve, [f32(4, 8, 8), f32(4, 8, 2)], {}),
        "inv_det": (lambda a: (jnp.linalg.inv(a), jnp.linalg.det(a)), [f32(10, 10)], {}),
        "fft2_complex": (lambda x: jnp.abs(jnp.fft.ifft2(jnp.fft.fft2(x) * 2.0)), [f32(16, 24)], {}),
        "rfft_axis0": (lambda x: jnp.fft.rfft(x, axis=0), [f32(32, 6)], {}),
        "cumprod_axes": (lambda x: (jnp.cumprod(x, axis=1), jnp.cumsum(x[::-1], axis=0)), [f32(24, 16)], {}),
        "cummax_int": (lambda x: lax.cummax(x, axis=0) + jnp.cumsum(x, axis=1), [i32(20, 12)], {}),
        "argsort_axes": (lambda x: (jnp.argsort(x, axis=0), jnp.argsort(x, axis=1), jnp.sort(x, axis=None)),
                         [f32(12, 10)], {}),
        "top_k_axis0": (lambda x: lax.top_k(x.T, 3), [f32(40, 6)], {}),
        "scatter_many": (lambda x, i, u: x.at[i].add(u).at[i[::2]].max(u[::2]),
                         [f32(64, 8), i32(200), f32(200, 8)], {}),
        "scatter_2d_set": (lambda x, r, c, v: x.at[r, c].set(v), [f32(32, 32), i32(50), i32(50), f32(50)], {}),
        "dynamic_slice_loop": (ds_loop, [f32(64, 16), i32(9)], {}),
        "remat_dots_saveable": (remat_policy, [[f32(16, 16)] * 3, f32(8, 16)], {}),
        "remat_nothing_saveable": (remat_nothing, [[f32(16, 16)] * 3, f32(8, 16)], {}),
        "donate_several": (lambda a, b, c: (a * 2.0, c + b, b - a),
                           [f32(128), f32(128), f32(128)], {"donate_argnums": (0, 1, 2)}),
        "donate_unused_shape": (lambda a, b: (a[:64] + b, a.sum()), [f32(128), f32(64)], {"donate_argnums": (0, 1)}),
        "alias_passthrough": (lambda a, b: (a, b, a, b + 1.0), [f32(32), f32(16)], {}),
        "repeated_outputs": (lambda x: (x * 2.0,) * 3 + (jnp.sin(x),) * 2, [f32(40)], {}),
        "int_bool_mix": (lambda a, b: (a & 7) * (b > 3) + jnp.where(a > b, a, b), [i32(33, 7), i32(33, 7)], {}),
        "bf16_matmul": (lambda a, b: (a @ b).astype(jnp.float32).sum(0), [bf16(32, 48), bf16(48, 16)], {}),
        "f16_softmax": (lambda x: jax.nn.softmax(x, axis=0), [f16(50, 9)], {}),
        "uint8_hist": (lambda x: jnp.zeros(256, jnp.int32).at[x.reshape(-1)].add(1), [u8(16, 16)], {}),
        "bool_logic": (lambda a, b: (a ^ b, jnp.any(a & b, axis=0), jnp.all(a | b)), [pred(30, 5), pred(30, 5)],
                       {}),
        "tiny_scalars": (lambda a, b: (a * b, a + b, jnp.maximum(a, b)), [f32(), f32()], {}),
        "large_vector": (lambda x: jnp.tanh(x) * 2.0 + x[::-1], [f32(1 << 16)], {}),
        "variadic_argmax": (variadic_argmax, [f32(17, 23)], {}),
        "random_two_keys": (two_keys, [key, key], {}),
        "einsum_three": (lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c), [f32(8, 30), f32(30, 40), f32(40, 6)],
                         {}),
        "einsum_batch_trace": (lambda a, b: jnp.einsum("bii,bjk->bjk", a, b), [f32(4, 6, 6), f32(4, 5, 7)], {}),
        "conv_grouped_dilated": (conv_grouped, [f32(2, 12, 12, 4), f32(3, 3, 2, 6)], {}),
        "conv_strided_grad": (jax.grad(lambda x, k: jnp.sum(conv_strided(x, k) ** 2), argnums=(0, 1)),
                              [f32(1, 2, 11, 11), f32(3, 2, 3, 3)], {}),
        "pad_negative_interior": (lambda x: lax.pad(x, 0.0, ((-1, 2, 1), (3, -2, 0))), [f32(10, 10)], {}),
        "concat_many": (lambda a, b, c: jnp.concatenate([a, b, c, a], axis=1), [f32(6, 3), f32(6, 5), f32(6, 1)], {}),
        "iota_select_clamp": (lambda x: jnp.clip(jnp.where(jnp.arange(x.shape[0])[:, None] % 2 == 0, x, -x), -1.0,
                                                 lax.iota(jnp.float32, x.shape[1])), [f32(20, 9)], {}),
        # Adam's bias corrections: two scalar temporaries live at once, each at an aligned offset.
        "bias_correction": (lambda x, t: x / (1 - 0.9 ** (t + 1)) + jnp.sqrt(x / (1 - 0.999 ** (t + 1))),
                            [f32(256, 256), i32()], {}),
        # An Adam step of an MLP, and scans: the temporaries of loops packed with the tuples' tables.
        "adam_mlp": (_adam_step, [[f32(64, 128), f32(128, 128), f32(128, 16)]] * 3 + [f32(32, 64), i32()], {}),
        "scan_remat_grad_carry": (jax.grad(_scan_remat), [f32(12, 64, 64), f32(16, 64)], {}),
        "nested_scan": (_nested_scan, [f32(16)], {}),
    }


def _adam_step(p, m, v, x, t):
    """One Adam step of a tanh MLP's squared output."""
    import jax
    import jax.numpy as jnp

    def loss(p):
        h = x
        for w in p:
            h = jnp.tanh(h @ w)
        return jnp.sum(h ** 2)

    g = jax.grad(loss)(p)
    m = [0.9 * a + 0.1 * b for a, b in zip(m, g)]
    v = [0.999 * a + 0.001 * b * b for a, b in zip(v, g)]
    p = [w - 1e-3 * (a / (1 - 0.9 ** (t + 1))) / (jnp.sqrt(b / (1 - 0.999 ** (t + 1))) + 1e-8)
         for w, a, b in zip(p, m, v)]
    return p, m, v


def _scan_remat(ws, x):
    """A scan of rematerialized tanh layers."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def body(h, w):
        return jax.checkpoint(lambda h: jnp.tanh(h @ w))(h), None

    return jnp.sum(lax.scan(body, x, ws)[0])


def _nested_scan(x):
    """A scan whose body is a scan."""
    import jax.numpy as jnp
    from jax import lax

    def inner(d, _):
        return d * 2 + 1, None

    return lax.scan(lambda c, _: (lax.scan(inner, c, None, length=3)[0], jnp.sum(c)), x, None, length=4)
