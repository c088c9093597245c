# SPDX-License-Identifier: Apache-2.0
"""The rig of a single-clock bench around a DUT that moves words from an Avalon-ST sink (``s``,
fed by an :class:`~direkt_sim.avalon_st.AvalonStSource`) to an Avalon-ST source (``m``, drained by
an :class:`~direkt_sim.avalon_st.AvalonStSink`): clock and reset, the cycle loop, reset pulses,
an in-order scoreboard and the probe for outputs that follow inputs within a cycle.

A bench subclasses :class:`StreamBench` with its model of the DUT: :meth:`check` compares the
outputs with it every cycle (in ReadOnly), :meth:`on_edge` and :meth:`on_reset` move it at the
rising edge. Timing as in :mod:`direkt_sim.avalon_st`: inputs are driven right after a rising
edge and sampled in the ReadOnly phase of that time step.
"""

from __future__ import annotations

from typing import Optional

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from .avalon_st import AvalonStError, AvalonStSink, AvalonStSource
from .scoreboard import Scoreboard
from .stimulus import Resets, bench_rng, value


class StreamBench:
    """*src* / *snk*: the valid and ready patterns; the ``s_*`` / ``m_*`` options go to the source
    and the sink. Without a *clock* a cycle is ``period_ns`` of simulated time (a DUT of wires);
    without a *reset* the reset pulses only pause the end of :meth:`run`.

    Counts: ``cycle``; ``in_cycles`` / ``out_cycles`` (the edge of each transfer; ``in_cycles[n]``
    is word n's); ``latencies`` (edges from a word's acceptance to its delivery); the source's
    and the sink's ``monitor.stalls``.
    """

    period_ns = 10
    reset_cycles = 3
    passes_through = False  # a word may leave on the edge that accepts it

    def __init__(self, dut, name: str, *, clock=None, reset=None, reset_active_low: bool = False,
                 src="always", snk="always", s: str = "s_", m: str = "m_", s_opts: Optional[dict] = None,
                 m_opts: Optional[dict] = None, stall_on: tuple[int, int] = (1, 20),
                 stall_off: tuple[int, int] = (10, 60)):
        self.dut = dut
        self.name = name
        self.clock = clock
        self.reset = reset
        self._reset_on = 0 if reset_active_low else 1
        self.rng = bench_rng(name)
        self.log = dut._log
        common = dict(clock=clock, reset=reset, rng=self.rng, reset_active_low=reset_active_low,
                      stall_on=stall_on, stall_off=stall_off)
        self.src = AvalonStSource(dut, s, valid=src, **common, **(s_opts or {}))
        self.snk = AvalonStSink(dut, m, ready=snk, **common, **(m_opts or {}))
        self.width = self.src.width
        self.mask = (1 << self.width) - 1
        self.sb = Scoreboard()
        self.resets = Resets()
        self.cycle = 0
        self.in_cycles: list[int] = []
        self.out_cycles: list[int] = []
        self.latencies: list[int] = []
        self.wiggle = False  # also probe, every cycle outside reset, that no output follows an input
        self.break_latency_at: set[int] = set()  # cycles the source breaks ready latency 1 on purpose

    # -- hooks -----------------------------------------------------------------

    def check(self, rst: bool) -> None:
        """In ReadOnly, after the source and the sink have sampled: the outputs against the model."""

    def on_edge(self, took: Optional[int], got: Optional[int]) -> None:
        """The rising edge (outside reset) accepted *took* and delivered *got* (None: nothing)."""
        if self.passes_through and took is not None:
            self.put(took)
        if self.snk.moved:
            self.deliver(got)
        if took is not None and not self.passes_through:
            self.put(took)

    def on_reset(self) -> None:
        """A rising edge in reset: the words inside are lost (the scoreboard counts them)."""

    def gate(self) -> bool:
        """Whether the source may start an offer in this cycle."""
        return True

    def outputs(self) -> tuple:
        """The outputs whose values must not follow the inputs within a cycle."""
        return value(self.src.bus.ready), value(self.snk.bus.valid), value(self.snk.bus.data)

    def state(self) -> str:
        """What a failure message adds about the model."""
        return ""

    # -- running -----------------------------------------------------------------

    def fail(self, what: str) -> None:
        sb = self.sb
        raise AssertionError(
            f"{self.name}: cycle {self.cycle} ({get_sim_time('ns')} ns): {what} [{self.state()}accepted {sb.accepted}, "
            f"delivered {sb.delivered}, lost to reset {sb.lost_to_reset}, inside {[hex(w) for _, w in list(sb.expected)[:6]]}]"
        )

    async def tick(self) -> None:
        if self.clock is not None:
            await RisingEdge(self.clock)
        else:
            await Timer(self.period_ns, units="ns")

    def _drive_reset(self, rst: bool) -> None:
        if self.reset is not None:
            self.reset.value = self._reset_on if rst else 1 - self._reset_on

    async def start(self) -> None:
        """Start the clock and hold the reset for ``reset_cycles`` cycles plus one; the sink's
        valid must be low during it. Returns right after the last reset edge."""
        if self.clock is not None:
            cocotb.start_soon(Clock(self.clock, self.period_ns, units="ns").start())
        self._drive_reset(True)
        self.src.idle(0)
        self.snk.set_ready(0)
        for _ in range(self.reset_cycles):
            await self.tick()
        await ReadOnly()
        self.snk.monitor.expect_idle()
        await self.tick()
        self.on_reset()

    def add_words(self, n: int) -> None:
        self.src.add_random(n)

    def drained(self) -> bool:
        return not self.src.queue and not self.sb.expected and not self.resets.pending(self.cycle)

    async def run(self, max_cycles: int, until_drained: bool = True) -> None:
        """Run cycles until every queued word was delivered (or for *max_cycles*). Call right after
        a rising edge."""
        src, snk = self.src, self.snk
        for _ in range(max_cycles):
            if until_drained and self.drained():
                src.idle()
                return
            rst = self.resets.step(self.cycle) and self.reset is not None
            self._drive_reset(rst)
            src.drive(rst, gate=self.gate(), break_latency=self.cycle in self.break_latency_at)
            snk.drive()
            await ReadOnly()
            try:
                took = src.sample(rst)
                got = snk.sample(rst)
            except AvalonStError as exc:
                self.fail(str(exc))
            self.check(rst)
            if self.wiggle and not rst:
                await self._wiggle_inputs()
            await self.tick()
            self.cycle += 1
            if rst:
                self.sb.reset()
                self.on_reset()
            else:
                self.on_edge(took, got)
        if until_drained:
            raise AssertionError(f"{self.name}: not drained after {max_cycles} cycles: {len(self.src.queue)} word(s) "
                                 f"unsent, {len(self.sb)} inside")

    async def drain(self, n: int, max_cycles: int) -> None:
        """Run until every queued word is out (at most *max_cycles*), :meth:`finish`, and check that
        the test's *n* words were all delivered."""
        await self.run(max_cycles)
        self.finish()
        assert self.sb.delivered == n, f"{self.sb.delivered} of {n} words delivered"

    async def pass_words(self, n: int, max_cycles: int) -> None:
        """Queue *n* random words and :meth:`drain`."""
        self.add_words(n)
        await self.drain(n, max_cycles)

    async def pass_words_through_resets(self, n: int, pulses: int, max_cycles: int) -> None:
        """:meth:`pass_words` with the reset high for 1..3 cycles at *pulses* random cycles in
        [20, n) (the *n* words take at least n cycles): each word is delivered or lost to a reset."""
        self.add_words(n)
        at = self.resets.scatter(self.rng, 20, n, pulses)
        await self.run(max_cycles)
        self.finish()
        assert self.cycle > at[-1], "traffic ended before the last reset; make the stream longer"
        assert self.sb.delivered + self.sb.lost_to_reset == n
        self.log.info("resets at cycles %s lost %d word(s)", self.resets.pulses, self.sb.lost_to_reset)

    def put(self, word: int) -> None:
        self.sb.put(word)
        self.in_cycles.append(self.cycle)

    def deliver(self, word: Optional[int]) -> None:
        try:
            seq = self.sb.got(word)
        except AssertionError as exc:
            self.fail(str(exc))
        self.out_cycles.append(self.cycle)
        self.latencies.append(self.cycle - self.in_cycles[seq])

    async def _wiggle_inputs(self) -> None:
        """Mid-cycle: flip every input but the reset, check that no output moves, then restore."""
        src, snk = self.src, self.snk
        before = self.outputs()
        await Timer(self.period_ns * 2 // 10, units="ns")
        src.bus.valid.value = 1 - src.valid
        src.bus.data.value = ~src.data & self.mask
        snk.bus.ready.value = 1 - snk.ready
        await Timer(self.period_ns // 10, units="ns")
        now = self.outputs()
        src.bus.valid.value, src.bus.data.value, snk.bus.ready.value = src.valid, src.data, snk.ready
        if now != before:
            self.fail(f"outputs changed combinationally with the inputs: {before} -> {now}")
        await Timer(self.period_ns // 10, units="ns")

    def finish(self) -> None:
        """Nothing accepted is missing; the monitors ran."""
        self.sb.check_drained()
        assert self.snk.monitor.cycles > 0, "protocol monitor never ran"
        self.log.info("%s: %d cycles, %d accepted, %d delivered, %d lost to reset; stalls: source %d, sink %d",
                      self.name, self.cycle, self.sb.accepted, self.sb.delivered, self.sb.lost_to_reset,
                      self.src.monitor.stalls, self.snk.monitor.stalls)
