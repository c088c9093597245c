# SPDX-License-Identifier: Apache-2.0
"""Stimulus and pin-reading helpers shared by the benches."""

from __future__ import annotations

import random
from typing import Awaitable, Callable, Iterable, Iterator, Optional

import cocotb

from .runner import regress_scale


def bench_rng(name: str) -> random.Random:
    """The generator of one cocotb test, seeded from the run's seed and the test's name, so that
    selecting a single test with TESTCASE reproduces its stimulus."""
    return random.Random(f"{cocotb.RANDOM_SEED}:{name}")


class RunSizes:
    """Stimulus per cocotb test: ``{test: (short form, long form)}``; calling it with a test's
    name gives the form of this run (the long one under ``make regress``, DIREKT_REGRESS=1)."""

    def __init__(self, table: dict[str, tuple[int, int]]):
        self.table = table
        self.long = regress_scale() > 1

    def __call__(self, test: str) -> int:
        return self.table[test][1 if self.long else 0]

    def long_total(self, **repeats: int) -> int:
        """The long form of every test together, a test counted as often as *repeats* says (a
        family of crossed tests, say)."""
        return sum(long * repeats.get(test, 1) for test, (_, long) in self.table.items())


class Resets:
    """Reset pulses of a bench's cycle loop: ``pulses`` maps a cycle to how many cycles the reset
    is held from there."""

    def __init__(self, pulses: Optional[dict[int, int]] = None):
        self.pulses: dict[int, int] = dict(pulses or {})
        self._left = 0

    def scatter(self, rng: random.Random, lo: int, hi: int, count: int, length: tuple[int, int] = (1, 3)) -> list[int]:
        """*count* pulses of *length* cycles at random cycles in [lo, hi); returns their cycles."""
        at = sorted(rng.sample(range(lo, hi), count))
        self.pulses = {c: rng.randint(*length) for c in at}
        return at

    def step(self, cycle: int) -> bool:
        """Whether the reset is high in *cycle* (called once per cycle, in order)."""
        if cycle in self.pulses:
            self._left = self.pulses[cycle]
        on = self._left > 0
        self._left = max(0, self._left - 1)
        return on

    def pending(self, cycle: int) -> bool:
        """A pulse is under way or starts at *cycle*."""
        return self._left > 0 or cycle in self.pulses


# Stall runs for a DUT that holds only a few words: long stalls would only idle it.
SHORT_STALLS = dict(stall_on=(1, 12), stall_off=(5, 30))


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


def crossed_tests(namespace: dict, body: Callable[..., Awaitable[None]], sources: Iterable[str],
                  sinks: Iterable[str], *, doc: str, name: str = "traffic_src_{src}_snk_{snk}", **test_kwargs) -> None:
    """One cocotb test per pair of source and sink patterns: ``body(dut, src, snk)``, named and
    documented by formatting *name* and *doc* with ``src`` and ``snk``, put into *namespace* (the
    bench module's ``globals()``, where cocotb looks for tests)."""
    for src in sources:
        for snk in sinks:
            test = _bound(body, src, snk)
            test.__name__ = test.__qualname__ = name.format(src=src, snk=snk)
            test.__module__ = body.__module__
            test.__doc__ = doc.format(src=src, snk=snk)
            namespace[test.__name__] = cocotb.test(**test_kwargs)(test)


def _bound(body, src: str, snk: str):
    async def test(dut):
        await body(dut, src, snk)

    return test


def value(handle) -> Optional[int]:
    """Current value of a signal, or None if it has X/Z bits."""
    v = handle.value
    return v.integer if v.is_resolvable else None


def hexstr(v: Optional[int]) -> str:
    return "X" if v is None else hex(v)
