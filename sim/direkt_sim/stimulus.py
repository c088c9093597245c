# SPDX-License-Identifier: Apache-2.0
"""Stimulus and pin-reading helpers shared by the benches."""

from __future__ import annotations

import random
from typing import Iterator, Optional


def pattern(kind: str, rng: random.Random, stall_on: tuple[int, int] = (1, 20),
            stall_off: tuple[int, int] = (10, 60)) -> Iterator[bool]:
    """Per-cycle on/off pattern for a source's valid or a sink's ready.

    ``always``; ``never``; ``random`` (50 %); ``pNN`` (on with probability NN %); ``1inN`` (one
    cycle in N, random phase); ``stall`` (runs of on, *stall_on* cycles long, between long runs of
    off, *stall_off* cycles). ``never_stall`` yields always-on: a bench that uses it gates the
    source itself, offering a word only in cycles where the DUT will take it.
    """
    if kind in ("always", "never_stall"):
        while True:
            yield True
    elif kind == "never":
        while True:
            yield False
    elif kind == "random":
        while True:
            yield rng.random() < 0.5
    elif kind.startswith("p") and kind[1:].isdigit():
        prob = int(kind[1:]) / 100
        while True:
            yield rng.random() < prob
    elif kind.startswith("1in"):
        n = int(kind[3:])
        i = rng.randrange(n)
        while True:
            yield i % n == 0
            i += 1
    elif kind == "stall":
        while True:
            for _ in range(rng.randint(*stall_on)):
                yield True
            for _ in range(rng.randint(*stall_off)):
                yield False
    else:
        raise ValueError(f"unknown pattern {kind!r}")


def value(handle) -> Optional[int]:
    """Current value of a signal, or None if it has X/Z bits."""
    v = handle.value
    return v.integer if v.is_resolvable else None


def hexstr(v: Optional[int]) -> str:
    return "X" if v is None else hex(v)
