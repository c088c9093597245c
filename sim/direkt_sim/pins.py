# SPDX-License-Identifier: Apache-2.0
"""What every model of :mod:`direkt_sim` shares at the pins.

Timing discipline of every model: inputs are driven just after a rising edge of the model's
clock; outputs are sampled in the ReadOnly phase of that time step (what the DUT presents at the
next rising edge, so ``valid && ready`` seen there is a transfer on that edge).

A model either wakes on every edge of its clock (random valid/ready patterns, per-cycle
counters) or, given a :class:`ClockCount`, only on the edges that matter (a valid rising, a
status due), counting cycles from the simulation time. The second is what keeps the simulated
device fast: with the clocks made by the simulator (:mod:`direkt_sim.harness`) a mover busy for
thousands of cycles costs the Python side nothing.
"""

from __future__ import annotations

from typing import Callable

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

DIRECTIONS = ("rd", "wr")


class ModelError(AssertionError):
    """A model saw something the DUT must never do (illegal descriptor, protocol violation, ...)."""


class Model:
    """What the models share: their coroutines and how they fail.

    :meth:`start` starts ``_run()`` (the model woken on every edge of its clock) or, with
    ``woken`` set (a :class:`ClockCount`), the coroutines of ``_woken()``; ``spawn`` starts each
    (default :func:`cocotb.start_soon`). A failure raises :class:`ModelError` naming the model and
    its clock's cycle, and is kept in ``errors``.
    """

    what = "model"  # e.g. "rd mover"
    clock_name = "dma"
    woken: "ClockCount | None" = None
    cycle = 0

    def start(self, spawn=None) -> None:
        spawn = spawn or cocotb.start_soon
        self.tasks = [spawn(c) for c in (self._woken() if self.woken is not None else [self._run()])]

    @property
    def task(self):
        """The first coroutine (the one of ``_run``), for ``kill()``."""
        return self.tasks[0] if getattr(self, "tasks", None) else None

    def stop(self) -> None:
        for task in getattr(self, "tasks", ()):
            if task is not None:
                task.kill()

    def _fail(self, msg: str) -> None:
        msg = f"{self.what}, {self.clock_name} cycle {self.cycle}: {msg}"
        self.errors.append(msg)
        raise ModelError(msg)

    async def _run(self) -> None:
        raise NotImplementedError

    def _woken(self) -> list:
        raise NotImplementedError


class Pin:
    """Write-on-change wrapper around a DUT input (saves simulator calls)."""

    __slots__ = ("h", "v")

    def __init__(self, handle, value: int = 0):
        self.h = handle
        self.v = None
        self.set(value)

    def set(self, value: int) -> None:
        if value != self.v:
            self.h.value = value
            self.v = value


class ClockCount:
    """Cycles of a clock of known period, counted from sim time (no wake-up per edge): cycle 0 is
    the rising edge :meth:`start` waits for."""

    def __init__(self, clk, period_ps: int):
        self.clk = clk
        self.period = period_ps
        self.t0 = 0

    async def start(self) -> None:
        await RisingEdge(self.clk)
        self.t0 = int(get_sim_time("ps"))

    def cycle(self) -> int:
        return (int(get_sim_time("ps")) - self.t0) // self.period

    async def edge(self, k: int) -> None:
        """Waits for rising edge *k* (a later one), waking once before it and once at it."""
        target = self.t0 + k * self.period
        now = get_sim_time("ps")
        if target - now > 1:
            await Timer(target - now - 1, "ps")
        await RisingEdge(self.clk)


async def watch(sig, clk, on_high: Callable[[], None]) -> None:
    """Calls *on_high* in the ReadOnly phase of every rising edge of *clk* after which *sig* is
    1, without waking on the edges where it stays 0. Start it from a step that is not ReadOnly."""
    await ReadOnly()
    while True:
        if sig.value == 1:
            on_high()
            await RisingEdge(clk)
        else:
            await RisingEdge(sig)
        await ReadOnly()
