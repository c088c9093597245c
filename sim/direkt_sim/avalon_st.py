# SPDX-License-Identifier: Apache-2.0
"""Avalon-ST source, sink and monitor: the one place the benches state the interface's rules.

An interface is ``<prefix>data``, ``<prefix>valid`` and ``<prefix>ready`` of the DUT (other
names through ``data=``, ``valid=``, ``ready=``), on a clock, with an optional reset (active
high unless ``reset_active_low``).

:class:`AvalonStMonitor` checks, every cycle it is given:

* valid is never X, nor is data while valid is high, nor ready outside reset;
* ready latency 0: the rising edge that ends a cycle with valid and ready high moves a word;
* ready latency n >= 1: every cycle with valid high moves a word, and valid may be high only in
  a cycle n cycles after one with ready high that was not a reset cycle (the edge that ends a
  reset cycle resets the sink as well, so its ready in that cycle promises nothing);
* the hold rule (ready latency 0, ``check=True``): once valid is high in a cycle without ready
  (outside reset), the next cycle has valid high and the same data. Avalon-ST itself lets a
  source change its data at any time; direkt's sources promise the hold rule, and a bench source
  may break it on purpose (``hold=False``) to show that a DUT's sink does not rely on it.

A reset cycle (the reset asserted while the cycle's values are sampled) moves no word, whatever
valid and ready show. A violation raises :class:`AvalonStError` (an ``AssertionError``) naming
the interface, the cycle and the simulation time.

:class:`AvalonStSource` (the bench offers words to a DUT's sink) and :class:`AvalonStSink` (the
bench takes words from a DUT's source) each drive their side with a per-cycle on/off pattern
(:func:`direkt_sim.stimulus.pattern` kinds, or any iterator of booleans) and feed a monitor of
their own, so a source that obeys the rules (``hold=True``, or ready latency 1) cannot break them
unnoticed either. ``Source.monitor`` / ``Sink.monitor`` hold the counts (``transfers``, ``stalls``).

Timing discipline: ``drive()`` right after a rising edge; ``sample()`` in the ReadOnly phase of
the same time step, which shows what the DUT sees at the next rising edge; ``sample()`` returns
the word that edge moves (or None). Nothing here starts a coroutine per cycle: a bench steps the
objects from its own cycle loop. :meth:`AvalonStMonitor.start` is there for a bench without one::

    src = AvalonStSource(dut, "s_", dut.clk, dut.rst, rng=rng, valid="random")
    snk = AvalonStSink(dut, "m_", dut.clk, dut.rst, rng=rng, ready="stall")
    src.add_random(100)
    for _ in range(cycles):               # each pass starts right after a rising edge
        src.drive()
        snk.drive()
        await ReadOnly()
        took = src.sample()               # the word the DUT accepts at the coming edge, or None
        got = snk.sample()                # the word the DUT delivers at the coming edge, or None
        await RisingEdge(dut.clk)

``drive()`` and ``sample()`` read the reset pin unless the bench, which drives it, passes
``in_reset`` (a value just written is not on the pin yet).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Iterable, Iterator, Optional, Union

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

from .stimulus import hexstr, pattern, value

Pattern = Union[str, Iterator[bool]]

__all__ = ["AvalonStBus", "AvalonStError", "AvalonStMonitor", "AvalonStSink", "AvalonStSource"]


class AvalonStError(AssertionError):
    """An Avalon-ST rule was broken on an interface."""


class AvalonStBus:
    """The handles of one interface: ``<prefix><data>``, ``<prefix><valid>``, ``<prefix><ready>``."""

    def __init__(self, dut, prefix: str, *, data: str = "data", valid: str = "valid", ready: str = "ready",
                 name: Optional[str] = None):
        self.data = getattr(dut, prefix + data)
        self.valid = getattr(dut, prefix + valid)
        self.ready = getattr(dut, prefix + ready)
        self.width = len(self.data)
        self.name = name or prefix.rstrip("_") or data


def _bus(dut, prefix: str, bus: Optional[AvalonStBus], names: dict) -> AvalonStBus:
    return bus if bus is not None else AvalonStBus(dut, prefix, **names)


class AvalonStMonitor:
    """Checks the rules on one interface (see the module docstring) and counts what moves.

    ``step(valid, data, ready, in_reset)`` takes one cycle's values as sampled in ReadOnly and
    returns whether the coming edge moves a word; ``sample()`` reads them from the pins. Counts:
    ``cycles`` (a failure names the cycle by this count, from 0), ``transfers``, ``stalls`` (valid without ready, outside reset: for ready latency 1
    a word arriving after ready fell). ``check=False`` only counts, for an interface whose source
    may withdraw an offer.
    """

    def __init__(self, dut=None, prefix: str = "", clock=None, reset=None, *, ready_latency: int = 0,
                 reset_active_low: bool = False, check: bool = True, bus: Optional[AvalonStBus] = None,
                 name: Optional[str] = None, **names):
        if not 0 <= ready_latency <= 8:
            raise ValueError(f"ready latency {ready_latency}: must be in 0..8")
        self.bus = _bus(dut, prefix, bus, names) if (dut is not None or bus is not None) else None
        self.name = name or (self.bus.name if self.bus else prefix.rstrip("_"))
        self.clock = clock
        self.reset = reset
        self._reset_level = 0 if reset_active_low else 1
        self.rl = ready_latency
        self.check = check
        self.cycles = 0
        self.transfers = 0
        self.stalls = 0
        # ready latency n: ready (outside reset) of the last n cycles, oldest first
        self._readies = deque([False] * max(1, ready_latency), maxlen=max(1, ready_latency))
        self._hold: Optional[tuple[Optional[int]]] = None  # (data,) the hold rule asks for now

    @property
    def granted(self) -> bool:
        """Ready latency n: the cycle about to be stepped may carry a word (ready was high, outside
        reset, n cycles before it)."""
        return self._readies[0]

    def in_reset(self) -> bool:
        """Whether the reset pin is asserted now (False without a reset)."""
        return self.reset is not None and self.reset.value == self._reset_level

    def _fail(self, what: str) -> None:
        raise AvalonStError(f"Avalon-ST {self.name}: {what} (cycle {self.cycles}, {get_sim_time('ns')} ns)")

    def step(self, valid: Optional[int], data: Optional[int], ready: Optional[int], in_reset: bool = False,
             *, waive: bool = False) -> bool:
        """One cycle. *waive*: the bench's source breaks the rules in this cycle on purpose (ready
        latency 1 ignored, or an offer dropped by a reset that acts at once)."""
        if valid is None or (valid and data is None) or (ready is None and not in_reset):
            self._fail(f"{'valid' if valid is None else 'ready' if ready is None else 'data'} is X")
        if self._hold is not None and not waive:
            if not valid:
                self._fail(f"valid dropped with {hexstr(self._hold[0])} not taken (hold rule)")
            if data != self._hold[0]:
                self._fail(f"data changed {hexstr(self._hold[0])} -> {hexstr(data)} without a transfer (hold rule)")
        if self.rl:
            if valid and not self.granted and self.check and not waive:
                self._fail(f"valid high although ready was low, or in reset, {self.rl} cycle(s) before (ready latency {self.rl})")
            self._readies.append(bool(ready) and not in_reset)
            moves = bool(valid) and not in_reset
        else:
            moves = bool(valid and ready) and not in_reset
            self._hold = (data,) if (self.check and valid and not ready and not in_reset) else None
        if valid and not ready and not in_reset:
            self.stalls += 1
        self.transfers += moves
        self.cycles += 1
        return moves

    def sample(self, in_reset: Optional[bool] = None) -> tuple[Optional[int], Optional[int], Optional[int], bool]:
        """In ReadOnly: read the pins (and the reset, unless *in_reset* is given) and :meth:`step`.
        Returns (valid, data, ready, moves); data is None while valid is low."""
        b = self.bus
        valid = value(b.valid)
        data = value(b.data) if valid else None
        ready = value(b.ready)
        rst = self.in_reset() if in_reset is None else in_reset
        return valid, data, ready, self.step(valid, data, ready, rst)

    def expect_idle(self) -> None:
        """In ReadOnly: valid must be 0 now (a source in reset offers nothing)."""
        v = value(self.bus.valid)
        if v != 0:
            self._fail(f"valid is {hexstr(v)} in reset, expected 0")

    def start(self):
        """Check every cycle of the clock from a coroutine of its own (for a bench without a cycle
        loop to step the monitor from); returns the task."""

        async def watch():
            while True:
                await RisingEdge(self.clock)
                await ReadOnly()
                self.sample()

        return cocotb.start_soon(watch())


class _Side:
    """What a source and a sink share: the bus, the per-cycle pattern, the monitor."""

    def __init__(self, dut, prefix: str, clock, reset, *, rng: random.Random, pattern: Pattern, ready_latency: int,
                 check: bool, reset_active_low: bool, stall_on: tuple[int, int], stall_off: tuple[int, int],
                 bus: Optional[AvalonStBus], name: Optional[str], names: dict):
        self.bus = _bus(dut, prefix, bus, names)
        self.width = self.bus.width
        self.rng = rng
        self._stall = (stall_on, stall_off)
        self.monitor = AvalonStMonitor(clock=clock, reset=reset, bus=self.bus, name=name, ready_latency=ready_latency,
                                       reset_active_low=reset_active_low, check=check)
        self.moved = False  # whether the coming edge moves the word on offer
        self.pattern = pattern

    @property
    def pattern(self) -> Iterator[bool]:
        """The per-cycle on/off pattern; assign a :func:`~direkt_sim.stimulus.pattern` kind or an
        iterator of booleans to change it."""
        return self._pattern

    @pattern.setter
    def pattern(self, kind: Pattern) -> None:
        self._pattern = pattern(kind, self.rng, *self._stall) if isinstance(kind, str) else kind


class AvalonStSource(_Side):
    """The bench as a source: offers the words of ``queue`` to the DUT's sink on *prefix*.

    Each cycle takes one value of the valid pattern (``pattern``: a kind or an iterator of
    booleans; assign it to change it): a new offer starts in a cycle where it is on and a word is
    queued. ``hold=True``: an offer then stays until taken (the hold rule); ``hold=False``: a
    word not taken may be withdrawn. Ready latency 1: valid only where the monitor says ready
    granted it. ``idle_in_reset``: valid low in reset cycles (a reset that acts at once, so a
    held offer ends there); else the offer goes on and repeats after the reset. Data is random
    (``junk``) while valid is low.
    """

    def __init__(self, dut, prefix: str = "s_", clock=None, reset=None, *, rng: random.Random,
                 valid: Pattern = "always", ready_latency: int = 0, hold: bool = False,
                 idle_in_reset: bool = False, junk: bool = True, reset_active_low: bool = False,
                 stall_on: tuple[int, int] = (1, 20), stall_off: tuple[int, int] = (10, 60),
                 bus: Optional[AvalonStBus] = None, name: Optional[str] = None, **names):
        super().__init__(dut, prefix, clock, reset, rng=rng, pattern=valid, ready_latency=ready_latency,
                         check=hold or ready_latency == 1, reset_active_low=reset_active_low, stall_on=stall_on,
                         stall_off=stall_off, bus=bus, name=name, names=names)
        self.hold = hold
        self.idle_in_reset = idle_in_reset
        self.junk = junk
        self.queue: deque[int] = deque()
        self.valid = 0  # as driven in this cycle
        self.data = 0
        self.ready: Optional[int] = None  # the DUT's ready, as sampled in this cycle
        self._offering = False
        self._break = False

    def send(self, words: Iterable[int]) -> None:
        self.queue.extend(words)

    def add_random(self, n: int) -> None:
        """Queue *n* random words of the data width."""
        self.queue.extend(self.rng.getrandbits(self.width) for _ in range(n))

    def _set(self, valid: int, data: int) -> None:
        self.valid, self.data = valid, data
        self.bus.valid.value = valid
        self.bus.data.value = data

    def idle(self, data: Optional[int] = None) -> None:
        """Valid low, without taking a value of the pattern (between runs, in reset)."""
        self._offering = False
        self._set(0, self.data if data is None else data)

    def drive(self, in_reset: Optional[bool] = None, *, gate: bool = True, break_latency: bool = False) -> int:
        """Right after an edge: this cycle's valid and data. *gate* False starts no new offer (a
        held one stays); *break_latency*: offer even where ready latency 1 forbids it. Returns valid."""
        if in_reset is None:
            in_reset = self.monitor.in_reset()
        on = next(self._pattern)
        if in_reset and self.idle_in_reset:
            valid = 0
        elif self._offering:
            valid = 1
        else:
            allowed = (self.monitor.granted or break_latency) if self.monitor.rl else True
            valid = int(bool(on and self.queue and gate and allowed))
        self._break = break_latency or (in_reset and self.idle_in_reset)
        self._set(valid, self.queue[0] if valid else self.rng.getrandbits(self.width) if self.junk else 0)
        return valid

    def sample(self, in_reset: Optional[bool] = None, ready: Optional[int] = None) -> Optional[int]:
        """In ReadOnly: read the DUT's ready (unless given); returns the word the coming edge moves
        (taken from the queue), or None."""
        if in_reset is None:
            in_reset = self.monitor.in_reset()
        self.ready = value(self.bus.ready) if ready is None else ready
        moves = self.monitor.step(self.valid, self.data, self.ready, in_reset, waive=self._break)
        self.moved = moves
        self._offering = self.hold and bool(self.valid) and not moves and not in_reset
        return self.queue.popleft() if moves else None


class AvalonStSink(_Side):
    """The bench as a sink: takes the words the DUT's source offers on *prefix*.

    ``ready`` follows the pattern (``pattern``: a kind or an iterator of booleans). The monitor
    checks the DUT's side of the rules (``check=False`` to only count)."""

    def __init__(self, dut, prefix: str = "m_", clock=None, reset=None, *, rng: random.Random,
                 ready: Pattern = "always", ready_latency: int = 0, check: bool = True,
                 reset_active_low: bool = False, stall_on: tuple[int, int] = (1, 20),
                 stall_off: tuple[int, int] = (10, 60), bus: Optional[AvalonStBus] = None,
                 name: Optional[str] = None, **names):
        super().__init__(dut, prefix, clock, reset, rng=rng, pattern=ready, ready_latency=ready_latency, check=check,
                         reset_active_low=reset_active_low, stall_on=stall_on, stall_off=stall_off, bus=bus,
                         name=name, names=names)
        self.ready = 0  # as driven in this cycle
        self.valid: Optional[int] = None  # the DUT's valid and data, as sampled in this cycle
        self.data: Optional[int] = None

    def set_ready(self, ready: int) -> None:
        self.ready = ready
        self.bus.ready.value = ready

    def drive(self) -> int:
        """Right after an edge: this cycle's ready, from the pattern. Returns it."""
        self.set_ready(int(bool(next(self._pattern))))
        return self.ready

    def sample(self, in_reset: Optional[bool] = None) -> Optional[int]:
        """In ReadOnly: read the DUT's valid and data; returns the word the coming edge moves, or None."""
        if in_reset is None:
            in_reset = self.monitor.in_reset()
        valid = self.valid = value(self.bus.valid)
        data = self.data = value(self.bus.data) if valid else None
        moves = self.moved = self.monitor.step(valid, data, self.ready, in_reset)
        return data if moves else None
