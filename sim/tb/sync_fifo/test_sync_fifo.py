# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's single-clock FIFO (generator ``sync_fifo``).

Top ``direkt_sync_fifo_w<width>_d<depth>`` plus ``_r`` (registered output),
``_rl1`` (show_ahead=false) and ``_af<N>`` (almost_full != depth). Ports: clk,
rst (synchronous, active high), sink s_* (ready latency 0), source m_* (ready
latency 0 when show-ahead, 1 when show_ahead=false), ``fill`` (words held) and
``almost_full`` (``fill >= almost_full``).

Three output modes, one cycle-accurate reference model (:class:`FifoModel`):

``sa``   show-ahead, unregistered: ``m_data`` is the RAM head; a word accepted
         on edge e is on ``m_valid`` in the cycle after e (latency 1).
``reg``  show-ahead, registered: the head sits in an output register that
         loads when it is empty or its word leaves; latency 2; ``fill`` counts
         the register.
``rl1``  ready latency 1: a cycle with ``m_ready`` high and ``fill > 0`` reads
         the head (``fill`` drops on that edge); the word is on ``m_valid`` /
         ``m_data`` in the next cycle and that beat is a transfer whatever
         ``m_ready`` is then.

What is checked, every cycle outside the initial reset:

* the model: ``fill``, ``almost_full``, ``s_ready == (fill != depth)``,
  ``m_valid`` and ``m_data`` equal the model's;
* a scoreboard (:class:`Scoreboard`), fed only from the pins: every accepted
  word comes out once, in order (order, loss, duplication, corruption), and
  after the final drain nothing is left;
* an output protocol checker (:class:`OutputProtocolChecker`), pins only:
  RL0: ``m_valid && !m_ready`` holds ``m_valid`` and ``m_data`` to the next
  cycle; RL1: ``m_valid`` only in a cycle after one with ``m_ready`` high; no X
  on outputs; never ``s_ready`` when ``fill == depth``, never ``m_valid``
  (show-ahead) with ``fill == 0``;
* one test flips every input mid-cycle: ``s_ready``, ``m_valid``, ``m_data``,
  ``fill`` and ``almost_full`` must not move (no combinational path);
* throughput: source always valid, sink always ready: exactly 1.00 word per
  cycle in and out, counted over a window after the pipeline has filled;
* coverage (:class:`Coverage`, summed over the tests of one simulator run and
  asserted by the last test, ``coverage_reached``): full; empty after traffic;
  push and pop in one cycle while the FIFO holds depth-1 words and while it
  holds exactly 1 word (the design never accepts when full nor emits when
  empty, so these are the "at full/at empty" cases); almost_full rising and
  falling. A "pop" is the event that lowers ``fill``: the output transfer for
  show-ahead, the read (``m_ready`` with ``fill > 0``) for RL1.

Reset in mid-stream (``reset_mid_stream``): ``rst`` is raised for 1..3 cycles
at random points while words flow. A cycle with ``rst`` high carries no
transfer on either side, even where ``s_valid && s_ready`` or ``m_valid &&
m_ready`` (or an RL1 beat) shows on the pins: the source keeps offering
during reset and offers the same word again afterwards; the words inside the
FIFO at the reset edge are lost (counted). Expected after the reset edge: the
FIFO is empty (``fill == 0``, ``m_valid == 0``, ``s_ready == 1``,
``almost_full == 0``) and the stream restarts cleanly: the words accepted
after the reset come out in order and nothing from before it reappears.

Sampling discipline (as in the skid buffer bench): inputs are driven just after
a rising edge; outputs are sampled in the ReadOnly phase of the same time step,
which shows what the DUT presents at the next rising edge.

Run sizes: the 16 traffic tests together push 2,000 words per configuration in
the short form and 100,000 under ``make regress`` (DIREKT_REGRESS=1); the other
tests add their own words on top.

``bench/fifo.py`` sets ``DIREKT_FIFO_MEASURE=<dir>``: then this module also has
a ``measure`` test (and the pytest side is not involved) that writes the
throughput and latency it measures to ``<dir>/<top>.json``.
"""

from __future__ import annotations

import json
import os
import random
from collections import deque
from pathlib import Path
from typing import Iterator, Optional

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.scoreboard import Scoreboard
from direkt_sim.stimulus import value as _int, hexstr as _hex, pattern

CLK_NS = 10
RESET_CYCLES = 3
REGRESS = regress_scale() > 1
# Words through the 16 traffic tests of one configuration, together.
TRAFFIC_WORDS = 100_000 if REGRESS else 2_000
SCALE = 10 if REGRESS else 1  # for the other tests
SRC_KINDS = ("always", "never_stall", "1in4", "random")
SNK_KINDS = ("always", "1in3", "random", "stall")
MEASURE_DIR = os.environ.get("DIREKT_FIFO_MEASURE", "").strip()
TIMEOUT = dict(timeout_time=200 * SCALE, timeout_unit="ms")  # simulated; the cycle bounds come first


# --------------------------------------------------------------------------- helpers


class Sample:
    """The DUT's pins in one cycle: inputs as driven, outputs as seen in ReadOnly."""

    __slots__ = ("cycle", "rst", "s_valid", "s_data", "m_ready", "s_ready", "m_valid", "m_data", "fill", "af")

    def __init__(self, cycle, rst, s_valid, s_data, m_ready, dut):
        self.cycle = cycle
        self.rst = rst
        self.s_valid = s_valid
        self.s_data = s_data
        self.m_ready = m_ready
        self.s_ready = _int(dut.s_ready)
        self.m_valid = _int(dut.m_valid)
        self.m_data = _int(dut.m_data) if self.m_valid else None
        self.fill = _int(dut.fill)
        self.af = _int(dut.almost_full)


# --------------------------------------------------------------------------- model, scoreboard, checkers


class FifoModel:
    """Cycle-accurate reference: what the FIFO holds and presents.

    ``ram``: words in the FIFO's memory, oldest first. ``out``: ``reg``: the
    output register's word (None = empty); ``rl1``: the word on the output in
    this cycle (the beat of the read one cycle earlier).
    """

    def __init__(self, mode: str, depth: int):
        self.mode = mode
        self.depth = depth
        self.ram: deque[int] = deque()
        self.out: Optional[int] = None

    def reset(self) -> None:
        self.ram.clear()
        self.out = None

    @property
    def fill(self) -> int:
        return len(self.ram) + (1 if self.mode == "reg" and self.out is not None else 0)

    @property
    def m_valid(self) -> int:
        return int(bool(self.ram)) if self.mode == "sa" else int(self.out is not None)

    @property
    def m_data(self) -> Optional[int]:
        if self.mode == "sa":
            return self.ram[0] if self.ram else None
        return self.out

    @property
    def s_ready(self) -> int:
        return int(self.fill != self.depth)

    def step(self, push_word: Optional[int], m_ready: bool) -> None:
        """One rising edge without reset."""
        if self.mode == "sa":
            if m_ready and self.ram:
                self.ram.popleft()
        elif self.mode == "reg":
            if self.out is None or m_ready:
                self.out = self.ram.popleft() if self.ram else None
        else:
            self.out = self.ram.popleft() if (m_ready and self.ram) else None
        if push_word is not None:
            self.ram.append(push_word)


class OutputProtocolChecker:
    """Avalon-ST rules on the pins, independent of the model.

    RL0: once ``m_valid`` is high without ``m_ready``, ``m_valid`` and
    ``m_data`` stay unchanged into the next cycle. RL1: ``m_valid`` in cycle t
    only if ``m_ready`` was high in t-1 (and t-1 was no reset cycle). Both: no
    X on the outputs; ``s_ready == 0`` exactly when ``fill == depth`` (never
    accepts when full); show-ahead: ``m_valid`` only with ``fill > 0``.
    """

    def __init__(self, mode: str, depth: int):
        self.rl = 1 if mode == "rl1" else 0
        self.depth = depth
        self.prev: Optional[Sample] = None
        self.cycles = 0

    def check(self, s: Sample) -> None:
        self.cycles += 1
        p = self.prev
        self.prev = s
        for name in ("s_ready", "m_valid", "fill", "af"):
            if getattr(s, name) is None:
                raise AssertionError(f"{name} is X")
        if s.m_valid and s.m_data is None:
            raise AssertionError("m_data is X while m_valid")
        if s.s_ready != int(s.fill != self.depth):
            raise AssertionError(f"s_ready={s.s_ready} with fill={s.fill} of depth {self.depth}")
        if self.rl == 0:
            if s.m_valid and s.fill == 0:
                raise AssertionError("m_valid high with fill 0 (emits when empty)")
            if p is not None and not p.rst and p.m_valid and not p.m_ready:
                if not s.m_valid:
                    raise AssertionError("Avalon-ST: m_valid dropped without a transfer")
                if s.m_data != p.m_data:
                    raise AssertionError(
                        f"Avalon-ST: m_data changed {_hex(p.m_data)} -> {_hex(s.m_data)} without a transfer"
                    )
        elif s.m_valid and (p is None or p.rst or not p.m_ready):
            raise AssertionError("Avalon-ST RL1: m_valid high although m_ready was low (or rst high) one cycle before")


class Coverage:
    POINTS = (
        "full",
        "empty_after_traffic",
        "push_pop_at_depth_minus_1",
        "push_pop_at_1",
        "almost_full_rise",
        "almost_full_fall",
    )

    def __init__(self):
        self.hits = dict.fromkeys(self.POINTS, 0)

    def missing(self) -> list[str]:
        return [p for p, n in self.hits.items() if n == 0]


COVERAGE = Coverage()  # summed over the tests of this simulator run
CONTRIBUTED: set[str] = set()  # tests that ran to their end and fed COVERAGE


# --------------------------------------------------------------------------- bench


class SyncFifoBench:
    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        self.dut = dut
        self.name = name
        p = bench_params()
        self.width = int(p["width"])
        self.depth = int(p["depth"])
        self.show_ahead = bool(p.get("show_ahead", True))
        self.registered = bool(p.get("registered", False))
        self.af_level = int(p.get("almost_full", self.depth))
        self.mode = "rl1" if not self.show_ahead else ("reg" if self.registered else "sa")
        assert len(dut.s_data) == self.width and len(dut.m_data) == self.width, "port width != DIREKT_PARAMS width"
        assert len(dut.fill) == self.depth.bit_length(), f"fill has {len(dut.fill)} bits for depth {self.depth}"
        self.mask = (1 << self.width) - 1
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.log = dut._log
        self.model = FifoModel(self.mode, self.depth)
        self.sb = Scoreboard()
        self.checker = OutputProtocolChecker(self.mode, self.depth)
        self.cov = COVERAGE
        self.src_kind = src
        self.src_on = pattern(src, self.rng)
        self.snk_on = pattern(snk, self.rng)
        self.to_send: deque[int] = deque()
        self.cycle = 0
        self.resets: dict[int, int] = {}  # cycle -> cycles rst stays high
        self._rst_left = 0
        self.prev_rst = True
        self.in_cycles: list[int] = []
        self.out_cycles: list[int] = []
        self.in_seq_cycle: list[int] = []  # per accepted word: its accept edge (cycle number)
        self.latencies: list[int] = []  # edges from accept to the transfer edge, per delivered word
        self._drv = (1, 0, 0, 0)  # rst, s_valid, s_data, m_ready as driven for the current cycle
        self._driven_for = -1
        self.wiggle = False
        self.seen_traffic = False  # a word was delivered since the last reset (for empty coverage)
        self.prev_sample: Optional[Sample] = None
        self.log.info(
            "test %s: width=%d depth=%d mode=%s almost_full=%d seed=%s src=%s snk=%s",
            name, self.width, self.depth, self.mode, self.af_level, cocotb.RANDOM_SEED, src, snk,
        )

    # -- setup ---------------------------------------------------------------

    async def start(self) -> None:
        dut = self.dut
        cocotb.start_soon(Clock(dut.clk, CLK_NS, units="ns").start())
        dut.rst.value = 1
        dut.s_valid.value = 0
        dut.s_data.value = 0
        dut.m_ready.value = 0
        for _ in range(RESET_CYCLES):
            await RisingEdge(dut.clk)
        self.prev_rst = True
        # Leave right after an edge; the first run() cycle has rst low.

    def add_words(self, n: int) -> None:
        self.to_send.extend(self.rng.getrandbits(self.width) for _ in range(n))

    # -- one cycle -----------------------------------------------------------

    def _drive(self) -> None:
        dut = self.dut
        self._driven_for = self.cycle
        if self.cycle in self.resets:
            self._rst_left = self.resets[self.cycle]
        rst = 1 if self._rst_left > 0 else 0
        self._rst_left = max(0, self._rst_left - 1)
        on = next(self.src_on) and bool(self.to_send)
        if self.src_kind == "never_stall":
            on = on and bool(self.model.s_ready)
        data = self.to_send[0] if on else self.rng.getrandbits(self.width)  # idle data is junk on purpose
        ready = int(next(self.snk_on))
        dut.rst.value = rst
        dut.s_valid.value = int(on)
        dut.s_data.value = data
        dut.m_ready.value = ready
        self._drv = (rst, int(on), data, ready)

    def _fail(self, s: Sample, what: str) -> None:
        m = self.model
        raise AssertionError(
            f"{self.name}: cycle {s.cycle} ({s.cycle * CLK_NS} ns after start): {what} "
            f"[model fill {m.fill}, ram {[hex(w) for w in list(m.ram)[:6]]}{'...' if len(m.ram) > 6 else ''}, "
            f"out {'-' if m.out is None else hex(m.out)}; accepted {self.sb.accepted}, delivered {self.sb.delivered}, "
            f"lost to reset {self.sb.lost_to_reset}]"
        )

    def _check_state(self, s: Sample) -> None:
        try:
            self.checker.check(s)
        except AssertionError as exc:
            self._fail(s, str(exc))
        m = self.model
        if self.prev_rst and (s.fill, s.m_valid, s.s_ready, s.af) != (0, 0, 1, 0):
            self._fail(s, f"after a reset edge: fill={s.fill} m_valid={s.m_valid} s_ready={s.s_ready} "
                          f"almost_full={s.af}, expected an empty FIFO (0, 0, 1, 0)")
        if s.fill != m.fill:
            self._fail(s, f"fill={s.fill}, expected {m.fill}")
        if s.af != int(m.fill >= self.af_level):
            self._fail(s, f"almost_full={s.af} with fill {m.fill}, threshold {self.af_level}")
        if s.s_ready != m.s_ready:
            self._fail(s, f"s_ready={s.s_ready}, expected {m.s_ready}")
        if s.m_valid != m.m_valid:
            self._fail(s, f"m_valid={s.m_valid}, expected {m.m_valid}")
        if s.m_valid and s.m_data != m.m_data:
            self._fail(s, f"m_data={_hex(s.m_data)}, expected {_hex(m.m_data)}")

    def _coverage(self, s: Sample, push: bool, pop: bool, prev: Optional[Sample]) -> None:
        hits = self.cov.hits
        if s.fill == self.depth:
            hits["full"] += 1
        if s.fill == 0 and not s.m_valid and self.seen_traffic:
            hits["empty_after_traffic"] += 1
            self.seen_traffic = False
        if push and pop:
            if s.fill == self.depth - 1:
                hits["push_pop_at_depth_minus_1"] += 1
            if s.fill == 1:
                hits["push_pop_at_1"] += 1
        if prev is not None and not prev.rst:
            if s.af and not prev.af:
                hits["almost_full_rise"] += 1
            if prev.af and not s.af:
                hits["almost_full_fall"] += 1

    def _edge(self, s: Sample, prev: Optional[Sample]) -> None:
        """Apply the rising edge that ended the cycle of sample *s*."""
        if s.rst:
            self.sb.reset()
            self.model.reset()
            self.prev_rst = True
            self.seen_traffic = False
            return
        self.prev_rst = False
        push = bool(s.s_valid and s.s_ready)
        if self.mode == "rl1":
            pop = bool(s.m_ready and s.fill)
            delivered = bool(s.m_valid)
        else:
            pop = delivered = bool(s.m_valid and s.m_ready)
        self._coverage(s, push, pop, prev)
        if delivered:
            try:
                seq = self.sb.got(s.m_data)
            except AssertionError as exc:
                self._fail(s, str(exc))
            self.out_cycles.append(self.cycle)
            self.latencies.append(self.cycle - self.in_seq_cycle[seq])
            self.seen_traffic = True
        if push:
            if s.s_data != self.to_send[0]:
                self._fail(s, "bench error: accepted data is not the head of to_send")
            self.sb.put(self.to_send.popleft())
            self.in_cycles.append(self.cycle)
            self.in_seq_cycle.append(self.cycle)
        if s.s_valid and not s.s_ready and self.src_kind == "never_stall":
            self._fail(s, "bench error: the never-stalling source offered a word the FIFO did not take")
        self.model.step(s.s_data if push else None, bool(s.m_ready))

    async def _wiggle_inputs(self, s: Sample) -> None:
        """Mid-cycle: flip every input (rst aside), check no output moves, then restore."""
        dut = self.dut
        await Timer(CLK_NS * 2 // 10, units="ns")
        dut.s_valid.value = 1 - s.s_valid
        dut.s_data.value = (~s.s_data) & self.mask
        dut.m_ready.value = 1 - s.m_ready
        await Timer(CLK_NS // 10, units="ns")
        now = (_int(dut.s_ready), _int(dut.m_valid), _int(dut.m_data) if s.m_valid else None,
               _int(dut.fill), _int(dut.almost_full))
        before = (s.s_ready, s.m_valid, s.m_data, s.fill, s.af)
        dut.s_valid.value, dut.s_data.value, dut.m_ready.value = s.s_valid, s.s_data, s.m_ready
        if now != before:
            self._fail(s, "outputs changed combinationally with the inputs "
                          f"(s_ready, m_valid, m_data, fill, almost_full) {before} -> {now}")
        await Timer(CLK_NS // 10, units="ns")

    async def run(self, max_cycles: int, until_drained: bool = True) -> None:
        """Run cycles until everything queued was delivered (or *max_cycles*)."""
        dut = self.dut
        clk = dut.clk
        if self._driven_for != self.cycle:  # must be called right after a rising edge
            self._drive()
        for _ in range(max_cycles):
            await ReadOnly()
            rst, s_valid, s_data, m_ready = self._drv
            s = Sample(self.cycle, rst, s_valid, s_data, m_ready, dut)
            self._check_state(s)
            if self.wiggle and not rst:
                await self._wiggle_inputs(s)
            await RisingEdge(clk)
            self.cycle += 1
            self._edge(s, self.prev_sample)
            self.prev_sample = s
            if until_drained and not self.to_send and not self.model.fill and self.model.out is None \
                    and self._rst_left == 0 and self.cycle not in self.resets:
                dut.s_valid.value = 0
                self._drv = (0, 0, self._drv[2], self._drv[3])
                self._driven_for = -1
                return
            self._drive()
        if until_drained:
            raise AssertionError(
                f"{self.name}: not drained after {max_cycles} cycles: {len(self.to_send)} word(s) unsent, "
                f"{self.model.fill} inside the FIFO"
            )

    def finish(self, contributes: bool = True) -> None:
        self.sb.check_drained()
        assert self.checker.cycles > 0, "protocol checker never ran"
        if contributes:
            CONTRIBUTED.add(self.name)
        self.log.info(
            "%s: %d accepted, %d delivered, %d lost to reset, %d cycles; coverage so far %s",
            self.name, self.sb.accepted, self.sb.delivered, self.sb.lost_to_reset, self.cycle, self.cov.hits,
        )

    # -- measurements --------------------------------------------------------

    def window_rate(self, cycles: list[int], skip: int, window: int) -> float:
        """Transfers per cycle in [first + skip, first + skip + window)."""
        lo = cycles[0] + skip
        n = sum(1 for c in cycles if lo <= c < lo + window)
        return n / window


def expected_throughput(mode: str, depth: int) -> float:
    """Sustained words/cycle with source always valid and sink always ready: 1.00 in every mode.

    (A registered show-ahead FIFO holds two words in steady state, the RAM head and the output
    register; SyncFifo therefore refuses depth 2 with a registered output.)
    """
    return 1.0


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def reset_state(dut):
    """After reset the FIFO is empty: fill 0, m_valid 0, s_ready 1, almost_full 0, and stays so without input."""
    tb = SyncFifoBench(dut, "reset_state", snk="random")
    await tb.start()
    await tb.run(max_cycles=20, until_drained=False)
    tb.finish(contributes=False)


@cocotb.test(**TIMEOUT)
async def outputs_registered(dut):
    """s_ready, m_valid, m_data, fill, almost_full do not follow the inputs within a cycle."""
    tb = SyncFifoBench(dut, "outputs_registered", src="random", snk="random")
    await tb.start()
    tb.wiggle = True
    tb.add_words(max(100, 2 * tb.depth) if not REGRESS else 2_000)
    await tb.run(max_cycles=100_000)
    tb.finish(contributes=False)


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Source always valid, sink always ready: 1.00 word/cycle in and out after the pipeline fills."""
    tb = SyncFifoBench(dut, "throughput")
    await tb.start()
    n = 1_000 * SCALE
    tb.add_words(n)
    await tb.run(max_cycles=3 * n + 100)
    tb.finish()
    skip, window = 30, n - 60  # 60 = 2 * skip keeps the window inside the stream for any rate >= 1/2
    window -= window % 3
    want = expected_throughput(tb.mode, tb.depth)
    t_in = tb.window_rate(tb.in_cycles, skip, window)
    t_out = tb.window_rate(tb.out_cycles, skip, window)
    tb.log.info("throughput over %d cycles: in %.4f, out %.4f words/cycle (expected %.4f)", window, t_in, t_out, want)
    assert t_in == pytest.approx(want, abs=1e-9), f"input throughput {t_in:.4f} words/cycle, expected {want:.4f}"
    assert t_out == pytest.approx(want, abs=1e-9), f"output throughput {t_out:.4f} words/cycle, expected {want:.4f}"
    lat = {"sa": 1, "reg": 2, "rl1": 2}[tb.mode]
    assert tb.latencies[0] == lat, f"first word took {tb.latencies[0]} cycle(s) from accept to transfer, expected {lat}"


def _traffic_test(src: str, snk: str, words: int):
    async def test(dut):
        tb = SyncFifoBench(dut, f"traffic_{src}_{snk}", src=src, snk=snk)
        await tb.start()
        tb.add_words(words)
        await tb.run(max_cycles=words * 100 + 10 * tb.depth + 500)
        tb.finish()
        assert tb.sb.delivered == words

    test.__name__ = test.__qualname__ = f"traffic_{src}_{snk}"
    test.__doc__ = f"{words} random words; source {src}, sink ready {snk}."
    return cocotb.test(**TIMEOUT)(test)


for _src in SRC_KINDS:
    for _snk in SNK_KINDS:
        _t = _traffic_test(_src, _snk, words=TRAFFIC_WORDS // (len(SRC_KINDS) * len(SNK_KINDS)))
        globals()[_t.name] = _t
del _src, _snk, _t


@cocotb.test(**TIMEOUT)
async def fill_and_drain(dut):
    """Random traffic steered through the fill levels: fill up (sink stalled), hover at full
    (random in and out), drain, hover at empty (sparse source, random sink), drain."""
    tb = SyncFifoBench(dut, "fill_and_drain")
    await tb.start()
    rng = tb.rng
    d = tb.depth
    for _ in range(SCALE):
        tb.add_words(3 * d + 400)
        tb.src_on = pattern("always", rng)
        tb.snk_on = pattern("1in8", rng)
        await tb.run(max_cycles=2 * d + 20, until_drained=False)   # reaches full: in 1/cycle, out 1/8
        tb.src_on = pattern("random", rng)
        tb.snk_on = pattern("random", rng)
        await tb.run(max_cycles=200, until_drained=False)          # random walk around full
        tb.src_on = pattern("never", rng)
        tb.snk_on = pattern("always", rng)
        await tb.run(max_cycles=d + 5, until_drained=False)        # drain
        tb.src_on = pattern("1in3", rng)
        tb.snk_on = pattern("random", rng)
        await tb.run(max_cycles=200, until_drained=False)          # random walk around empty
        tb.src_on = pattern("always", rng)
        tb.snk_on = pattern("always", rng)
        await tb.run(max_cycles=20 * d + 1000)
    tb.finish()


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """rst for 1..3 cycles at random points of random traffic: the FIFO is empty right after it,
    the words inside are lost, and the stream restarts in order."""
    tb = SyncFifoBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    words = 1_000 * SCALE
    tb.add_words(words)
    at = sorted(tb.rng.sample(range(20, words), 6 * SCALE))
    tb.resets = {c: tb.rng.randint(1, 3) for c in at}
    await tb.run(max_cycles=words * 20)
    tb.finish()
    assert tb.cycle > at[-1], "traffic ended before the last reset; make the stream longer"
    assert tb.sb.delivered + tb.sb.lost_to_reset == words
    tb.log.info("resets at cycles %s lost %d word(s)", tb.resets, tb.sb.lost_to_reset)


@cocotb.test(timeout_time=1, timeout_unit="ms")
async def coverage_reached(dut):
    """Every coverage point was hit by the traffic of this run; every test that feeds it must have run to its end."""
    feeders = {f"traffic_{s}_{k}" for s in SRC_KINDS for k in SNK_KINDS} | {"throughput", "fill_and_drain", "reset_mid_stream"}
    ran = feeders & CONTRIBUTED
    dut._log.info("coverage %s (from %d of %d tests)", COVERAGE.hits, len(ran), len(feeders))
    # Coverage is a property of the whole traffic: a feeder that did not run to its end (it failed, or
    # TESTCASE left it out) leaves it unproved, and that is a failure, not a pass.
    assert ran == feeders, f"coverage cannot be checked: tests {sorted(feeders - ran)} did not run to their end"
    missing = COVERAGE.missing()
    assert not missing, f"coverage points never reached: {missing} (hits {COVERAGE.hits})"


if MEASURE_DIR:

    @cocotb.test(timeout_time=100, timeout_unit="ms")
    async def measure(dut):
        """bench/fifo.py: sustained throughput (both sides always on) and latency into an empty FIFO."""
        tb = SyncFifoBench(dut, "measure")
        await tb.start()
        n = 4_000
        tb.add_words(n)
        await tb.run(max_cycles=3 * n + 100)
        skip, window = 100, 3_000
        t_in = tb.window_rate(tb.in_cycles, skip, window)
        t_out = tb.window_rate(tb.out_cycles, skip, window)
        # Latency into an empty FIFO: single words at random gaps, sink always ready.
        lat = []
        for _ in range(200):
            tb.src_on = iter([False] * tb.rng.randint(0, 5) + [True] + [False] * 1000)
            tb.add_words(1)
            await tb.run(max_cycles=1000)
            lat.append(tb.latencies[-1])
        tb.finish(contributes=False)
        result = {
            "kind": "sync",
            "top": dut._name,
            "width": tb.width,
            "depth": tb.depth,
            "show_ahead": tb.show_ahead,
            "registered": tb.registered,
            "throughput_in": t_in,
            "throughput_out": t_out,
            "throughput_window_cycles": window,
            "latency_min": min(lat),
            "latency_max": max(lat),
            "latency_unit": "clk cycles from the accepting edge to the edge that transfers the word out",
            "simulator": os.environ.get("DIREKT_SIM", "?"),
        }
        Path(MEASURE_DIR).mkdir(parents=True, exist_ok=True)
        (Path(MEASURE_DIR) / f"{dut._name}.json").write_text(json.dumps(result, indent=2))
        dut._log.info("measurement: %s", result)


# --------------------------------------------------------------------------- pytest

# (width, depth, show_ahead, registered, almost_full): every width and every depth at least once,
# each output mode, almost_full below and at depth, and the shipped 160x16. Each entry is a
# Verilator build (several seconds): keep the list short for `make test`.
CONFIGS = [
    (160, 16, True, False, 16),    # shipped: direkt_sync_fifo_w160_d16
    (1, 2, True, False, 1),
    (64, 4, True, True, 3),
    (8, 2, False, True, 2),        # read-request mode at the smallest depth
    (256, 512, True, True, 500),
    (8, 4, False, True, 4),
]


def _config_id(c) -> str:
    w, d, sa, r, af = c
    return f"w{w}-d{d}-" + ("rl1" if not sa else "reg" if r else "sa") + f"-af{af}"


def sync_params(width: int, depth: int, show_ahead: bool, registered: bool, almost_full: int) -> dict:
    return {"width": width, "depth": depth, "show_ahead": show_ahead, "registered": registered,
            "almost_full": almost_full}


def sync_top(width: int, depth: int, show_ahead: bool, registered: bool, almost_full: int) -> str:
    return (f"direkt_sync_fifo_w{width}_d{depth}" + ("_rl1" if not show_ahead else "_r" if registered else "")
            + ("" if almost_full == depth else f"_af{almost_full}"))


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_sync_fifo(config):
    run_bench(
        bench="sync_fifo",
        example="sync_fifo",
        module=Path(__file__).stem,
        params=sync_params(*config),
        expected_top=sync_top(*config),
        emitter="generators",
    )
