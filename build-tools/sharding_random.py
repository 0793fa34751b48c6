"""Random tile assignments shared by the sharding generators
(`gen_sharding.py` writes them as sharding text, `gen_sharding_protos.py` as
`OpSharding` bytes): the same draws in the same order from the caller's
generator, so that each generator reproduces its golden files."""

from __future__ import annotations

import random


def factors(rng: random.Random, n: int) -> list[int]:
    """`n` as a product of factors above 1, each drawn among the divisors
    of what is left; `[]` for 1."""
    out = []
    rest = n
    while rest > 1:
        f = rng.choice([p for p in range(2, rest + 1) if rest % p == 0])
        out.append(f)
        rest //= f
    return out


def iota_reshape(rng: random.Random, factors: list[int]) -> tuple[list[int], list[int]]:
    """The reshape dimensions of an iota device list over `factors` (`[1]`
    for none; one time in five a 1 inserted somewhere) and a random
    transpose of them."""
    reshape = list(factors) or [1]
    if rng.random() < 0.2:
        reshape.insert(rng.randrange(len(reshape) + 1), 1)
    perm = list(range(len(reshape)))
    rng.shuffle(perm)
    return reshape, perm
