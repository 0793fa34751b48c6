"""The compiled module of docs/performance.md's peak benchmark: jax's
gradient of an MLP of `--layers` layers (`tanh(x @ w) * sigmoid(...) + x`
under `jax.named_scope`, unrolled), `compiled.as_text()` on CPU, written to
`--out`; and beside it (`--hidden`) the same text with its origins hidden:
each `metadata=` renamed to an attribute of the same length that nothing
reads and the stack-frame tables blanked, so that both files have the same
bytes to scan. Prints the layers, bytes, lines and compile seconds.
"""

import argparse
import time

import jax
import jax.numpy as jnp


def layer(w, x):
    with jax.named_scope("block"):
        h = jnp.tanh(x @ w)
        return h * jax.nn.sigmoid(h) + x


def loss(ws, x):
    for w in ws:
        x = layer(w, x)
    return jnp.sum(x * x)


def hidden(text):
    """`text` with its stack-frame tables blanked and its metadata unread."""
    start = text.index("\n%")
    lines = text[:start].split("\n")
    head = "\n".join([lines[0]] + [" " * len(line) for line in lines[1:]])
    return head + text[start:].replace(", metadata=", ", mxtadata=")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", type=int, default=1800)
    parser.add_argument("--out", required=True)
    parser.add_argument("--hidden", required=True)
    args = parser.parse_args()
    ws = [jnp.ones((32, 32), jnp.float32) * 0.01 for _ in range(args.layers)]
    x = jnp.ones((8, 32), jnp.float32)
    start = time.time()
    text = jax.jit(jax.grad(loss)).lower(ws, x).compile().as_text()
    seconds = time.time() - start
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(text)
    with open(args.hidden, "w", encoding="utf-8") as out:
        out.write(hidden(text))
    print(args.layers, len(text), text.count("\n"), round(seconds, 1))


if __name__ == "__main__":
    main()
