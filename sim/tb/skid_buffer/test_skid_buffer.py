# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's skid buffer (example ``skid_buffer``, top ``direkt_skid_buffer_w<width>``).

The DUT is a full-throughput Avalon-ST register slice (ready latency 0): a word
moves on a rising ``clk`` edge where valid && ready; ``s_ready``, ``m_valid``
and ``m_data`` come straight from flops; it holds at most 2 words; ``rst`` is
synchronous and active high and clears ``m_valid``.

This file holds both halves of the bench:

* the cocotb tests, run inside the simulator, with a cycle-accurate reference
  model (:class:`SkidModel`: a queue of the words inside the DUT, which fixes
  ``m_valid``, ``m_data`` and ``s_ready`` for every cycle) and an independent
  Avalon-ST hold-rule checker on the output (:class:`AvalonStHoldChecker`);
* the pytest function that emits the Verilog for each width and runs them.

Widths 1, 8, 64, 160, 256. Source valid and sink ready follow the patterns
always / random / one-in-N / stall (long off runs), crossed in the traffic
tests; a source that never offers and a sink that never takes have tests of
their own. Coverage points (slice full, sink stalling a valid word, transfers
on both sides in one cycle) are asserted where the patterns guarantee them.

Sampling discipline: inputs are driven just after a rising edge; everything is
sampled in the ReadOnly phase of that same time step, which shows exactly the
values the DUT will see at the next rising edge (identical on Icarus and
Verilator).
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path
from typing import Iterator, Optional

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import value as _int, hexstr as _hex, pattern

CLK_PERIOD_NS = 10
CAPACITY = 2  # words the register slice holds (output register + skid register)
RESET_CYCLES = 3
SCALE = regress_scale()  # 10 under `make regress` (DIREKT_REGRESS=1), else 1

# Source and sink patterns, crossed in the traffic tests: on every cycle, long
# stalls, one cycle in N, random. (Never-on sources and sinks have their own tests.)
SRC_PATTERNS = ("always", "random", "1in4", "stall")
SNK_PATTERNS = ("always", "random", "1in3", "stall")

# Words per test: (short form, long form). The long form (`make regress`) moves
# at least 100,000 words per width (checked below).
WORDS = {
    "outputs_registered": (100, 1_000),
    "throughput": (200, 20_000),
    "backpressure": (300, 3_000),
    "traffic": (100, 5_000),  # per source/sink pattern pair
    "reset_mid_stream": (600, 6_000),
}
assert (sum(long for k, (_, long) in WORDS.items() if k != "traffic")
        + len(SRC_PATTERNS) * len(SNK_PATTERNS) * WORDS["traffic"][1]) >= 100_000


def words(test: str) -> int:
    short, long = WORDS[test]
    return long if SCALE > 1 else short


# --------------------------------------------------------------------------- helpers


class Sample:
    """All DUT ports as seen in one ReadOnly phase (valid until the next edge)."""

    __slots__ = ("t", "rst", "s_valid", "s_ready", "s_data", "m_valid", "m_ready", "m_data")

    def __init__(self, dut):
        self.t = get_sim_time("ns")
        self.rst = _int(dut.rst)
        self.s_valid = _int(dut.s_valid)
        self.s_ready = _int(dut.s_ready)
        self.s_data = _int(dut.s_data)
        self.m_valid = _int(dut.m_valid)
        self.m_ready = _int(dut.m_ready)
        self.m_data = _int(dut.m_data)


# --------------------------------------------------------------------------- checker


class AvalonStHoldChecker:
    """Avalon-ST (ready latency 0) rule on the DUT's output: once ``m_valid`` is
    high, ``m_valid`` and ``m_data`` stay unchanged until a cycle with ``m_ready``.

    Independent of the reference model; looks only at the pins. Cycles in reset
    (and the cycle an edge with ``rst`` high produced) are exempt.
    """

    def __init__(self, dut):
        self.dut = dut
        self.violations: list[str] = []
        self.cycles = 0

    async def run(self) -> None:
        dut = self.dut
        prev: Optional[Sample] = None
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            cur = Sample(dut)
            self.cycles += 1
            if prev is not None and prev.rst == 0 and prev.m_valid == 1 and prev.m_ready == 0:
                if cur.m_valid != 1:
                    self._violation(cur, f"m_valid dropped to {cur.m_valid} without a transfer")
                elif cur.m_data != prev.m_data:
                    self._violation(cur, f"m_data changed {_hex(prev.m_data)} -> {_hex(cur.m_data)} without a transfer")
            prev = cur

    def _violation(self, s: Sample, what: str) -> None:
        msg = f"Avalon-ST hold rule violated at {s.t} ns: {what}"
        self.violations.append(msg)
        raise AssertionError(msg)


# --------------------------------------------------------------------------- model + stimulus


class SkidModel:
    """Reference model: the words inside the DUT, oldest first.

    From it follow, every cycle outside reset: ``m_valid == (words > 0)``,
    ``m_data == oldest word``, ``s_ready == (words < CAPACITY)`` (the last one is
    not checked on the first cycle after reset, where ``s_ready`` still holds
    its reset value). A reset edge empties it; those words count as lost.
    """

    def __init__(self):
        self.words: deque[int] = deque()
        self.accepted = 0
        self.delivered = 0
        self.lost_to_reset = 0

    def reset(self) -> None:
        self.lost_to_reset += len(self.words)
        self.words.clear()


class SkidBench:
    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        self.dut = dut
        self.name = name
        self.width = len(dut.s_data)
        params = bench_params()
        assert params["width"] == self.width, f"DIREKT_PARAMS width {params['width']} != port width {self.width}"
        self.mask = (1 << self.width) - 1
        # One generator per test, seeded from the run's seed and the test name,
        # so selecting a single test with TESTCASE reproduces its stimulus.
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.log = dut._log
        self.model = SkidModel()
        self.src_on = pattern(src, self.rng)
        self.snk_on = pattern(snk, self.rng)
        self.to_send: deque[int] = deque()
        self.cycle = 0
        self.resets: dict[int, int] = {}  # cycle -> number of cycles rst is held
        self._rst_left = 0
        self.prev_rst = True  # the last edge was a reset edge
        self.in_cycles: list[int] = []  # cycles (edge numbers) of input transfers
        self.out_cycles: list[int] = []  # ... and of output transfers
        self.checker = AvalonStHoldChecker(dut)
        self.wiggle = False  # also check that outputs do not follow inputs within a cycle
        self.ready_low_cycles = 0  # cycles (outside reset) in which s_ready was 0
        self.full_cycles = 0  # cycles (outside reset) with CAPACITY words inside
        self.m_stalls = 0  # cycles (outside reset) with m_valid high and m_ready low
        self.both = 0  # edges with a transfer on both sides
        self._driven_for = -1  # cycle whose inputs _drive() has already set
        self.log.info("test %s: width=%d seed=%s src=%s snk=%s", name, self.width, cocotb.RANDOM_SEED, src, snk)

    # -- setup ---------------------------------------------------------------

    async def start(self) -> None:
        dut = self.dut
        cocotb.start_soon(Clock(dut.clk, CLK_PERIOD_NS, units="ns").start())
        dut.rst.value = 1
        dut.s_valid.value = 0
        dut.s_data.value = 0
        dut.m_ready.value = 0
        for _ in range(RESET_CYCLES):
            await RisingEdge(dut.clk)
        await ReadOnly()
        if _int(dut.m_valid) != 0:
            raise AssertionError(f"m_valid is {_int(dut.m_valid)} during reset, expected 0")
        await RisingEdge(dut.clk)
        dut.rst.value = 0
        cocotb.start_soon(self.checker.run())

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
        dut.rst.value = rst
        src = next(self.src_on) and bool(self.to_send)
        dut.s_valid.value = int(src)
        # Unaccepted offers may be withdrawn; idle data is junk on purpose.
        dut.s_data.value = self.to_send[0] if src else self.rng.getrandbits(self.width)
        dut.m_ready.value = int(next(self.snk_on))

    def _fail(self, s: Sample, what: str) -> None:
        raise AssertionError(
            f"cycle {self.cycle} ({s.t} ns): {what} "
            f"[model holds {[hex(w) for w in self.model.words]}, accepted {self.model.accepted}, "
            f"delivered {self.model.delivered}, lost to reset {self.model.lost_to_reset}]"
        )

    def _check_state(self, s: Sample) -> None:
        words = self.model.words
        if self.prev_rst:
            if s.m_valid != 0:
                self._fail(s, f"m_valid={s.m_valid} right after a reset edge, expected 0")
            return
        want_valid = int(bool(words))
        if s.m_valid != want_valid:
            self._fail(s, f"m_valid={s.m_valid}, expected {want_valid}")
        if words and s.m_data != words[0]:
            self._fail(s, f"m_data={_hex(s.m_data)}, expected {words[0]:#x}")
        if s.s_ready == 0:
            self.ready_low_cycles += 1
        if len(words) == CAPACITY:
            self.full_cycles += 1
        if s.m_valid and not s.m_ready:
            self.m_stalls += 1
        want_ready = int(len(words) < CAPACITY)
        if s.s_ready != want_ready:
            self._fail(s, f"s_ready={s.s_ready}, expected {want_ready} with {len(words)} word(s) inside")

    def _edge(self, s: Sample) -> None:
        """Apply the transfers of the rising edge that just used sample *s*."""
        m = self.model
        if s.rst is None or s.s_valid is None or s.m_ready is None:
            self._fail(s, "X on an input")
        if s.rst:
            m.reset()
            self.prev_rst = True
            return
        self.prev_rst = False
        if s.m_valid and s.m_ready:
            if not m.words:
                self._fail(s, f"DUT delivered {_hex(s.m_data)} but holds no word (duplicate or invented word)")
            want = m.words.popleft()
            if s.m_data != want:
                self._fail(s, f"delivered {_hex(s.m_data)} but expected {want:#x} (order/loss/corruption)")
            m.delivered += 1
            self.out_cycles.append(self.cycle)
        if s.s_valid and s.s_ready:
            if s.s_data != self.to_send[0]:
                self._fail(s, "bench error: accepted data is not the head of to_send")
            m.words.append(self.to_send.popleft())
            m.accepted += 1
            self.in_cycles.append(self.cycle)
            if s.m_valid and s.m_ready:
                self.both += 1
            if len(m.words) > CAPACITY:
                self._fail(s, f"DUT accepted a word while holding {CAPACITY} (capacity exceeded)")

    async def _wiggle_inputs(self, s: Sample) -> None:
        """Mid-cycle: flip every input, check no output moves, then restore."""
        dut = self.dut
        await Timer(CLK_PERIOD_NS * 2 // 10, units="ns")
        saved = (_int(dut.s_valid), _int(dut.s_data), _int(dut.m_ready))
        dut.s_valid.value = 1 - saved[0]
        dut.s_data.value = (~saved[1]) & self.mask
        dut.m_ready.value = 1 - saved[2]
        await Timer(CLK_PERIOD_NS // 10, units="ns")
        now = (_int(dut.s_ready), _int(dut.m_valid), _int(dut.m_data))
        if now != (s.s_ready, s.m_valid, s.m_data):
            self._fail(
                s,
                "outputs changed combinationally with the inputs "
                f"(s_ready, m_valid, m_data) {(s.s_ready, s.m_valid, s.m_data)} -> {now}",
            )
        dut.s_valid.value, dut.s_data.value, dut.m_ready.value = saved
        await Timer(CLK_PERIOD_NS // 10, units="ns")

    async def run(self, max_cycles: int, until_drained: bool = True) -> None:
        """Run cycles until everything queued was delivered (or *max_cycles*)."""
        dut = self.dut
        if self._driven_for != self.cycle:  # must be called right after a rising edge
            self._drive()
        for _ in range(max_cycles):
            await ReadOnly()
            s = Sample(dut)
            self._check_state(s)
            if self.wiggle:
                await self._wiggle_inputs(s)
            await RisingEdge(dut.clk)
            self.cycle += 1
            self._edge(s)
            if until_drained and not self.to_send and not self.model.words and self._rst_left == 0:
                dut.s_valid.value = 0
                return
            self._drive()
        if until_drained:
            raise AssertionError(
                f"not drained after {max_cycles} cycles: {len(self.to_send)} word(s) unsent, "
                f"{len(self.model.words)} inside the DUT"
            )

    def finish(self) -> None:
        m = self.model
        assert not self.checker.violations, self.checker.violations
        assert self.checker.cycles > 0, "protocol checker never ran"
        assert m.accepted == m.delivered + m.lost_to_reset + len(m.words), "bench bookkeeping"
        self.log.info(
            "%s: %d accepted, %d delivered, %d lost to reset, %d cycles; full %d cycles, "
            "s_ready low %d cycles, m stalled %d cycles, both sides moving %d cycles",
            self.name, m.accepted, m.delivered, m.lost_to_reset, self.cycle,
            self.full_cycles, self.ready_low_cycles, self.m_stalls, self.both,
        )


TIMEOUT = dict(timeout_time=20 * SCALE, timeout_unit="ms")  # simulated time


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def reset_state(dut):
    """During and right after reset m_valid is 0; then s_ready is 1 and the slice is empty."""
    tb = SkidBench(dut, "reset_state", snk="random")
    await tb.start()
    await tb.run(max_cycles=20, until_drained=False)  # no words: m_valid must stay 0, s_ready 1
    tb.finish()


@cocotb.test(**TIMEOUT)
async def outputs_registered(dut):
    """s_ready, m_valid, m_data come from flops: flipping inputs mid-cycle moves none of them."""
    tb = SkidBench(dut, "outputs_registered", src="random", snk="random")
    await tb.start()
    tb.wiggle = True
    tb.add_words(words("outputs_registered"))
    await tb.run(max_cycles=20 * words("outputs_registered"))
    tb.finish()


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Source always valid, sink always ready: 1 word per cycle after a 1-cycle latency."""
    tb = SkidBench(dut, "throughput")
    await tb.start()
    n = words("throughput")
    tb.add_words(n)
    await tb.run(max_cycles=n + 10)
    tb.finish()
    assert tb.model.delivered == n
    assert tb.in_cycles == list(range(tb.in_cycles[0], tb.in_cycles[0] + n)), "input side stalled"
    assert tb.out_cycles[0] == tb.in_cycles[0] + 1, (
        f"first word out on cycle {tb.out_cycles[0]}, in on {tb.in_cycles[0]}: latency must be 1"
    )
    span = tb.out_cycles[-1] - tb.out_cycles[0] + 1
    assert span == n, f"{n} words took {span} cycles after the first word: bubbles"


@cocotb.test(**TIMEOUT)
async def backpressure(dut):
    """Sink never ready for a while: exactly CAPACITY words go in, s_ready drops, nothing is lost."""
    tb = SkidBench(dut, "backpressure")
    await tb.start()
    n = words("backpressure")
    tb.add_words(n)
    stall = 50
    tb.snk_on = iter([True] * 20 + [False] * stall + [True] * 10_000)
    await tb.run(max_cycles=20 + stall, until_drained=False)
    # The model check has enforced s_ready == (words < CAPACITY) on every cycle.
    assert len(tb.model.words) == CAPACITY, f"{len(tb.model.words)} words inside after a {stall}-cycle stall"
    assert tb.ready_low_cycles >= stall - CAPACITY, f"s_ready low on only {tb.ready_low_cycles} cycles"
    await tb.run(max_cycles=n * 4)
    tb.finish()
    assert tb.model.delivered == n


def _traffic_test(src: str, snk: str):
    async def test(dut):
        tb = SkidBench(dut, f"traffic_src_{src}_snk_{snk}", src=src, snk=snk)
        await tb.start()
        n = words("traffic")
        tb.add_words(n)
        await tb.run(max_cycles=n * 150 + 200)
        tb.finish()
        assert tb.model.delivered == n
        # coverage
        if snk != "always":
            assert tb.m_stalls > 0, "coverage: the sink never stalled a valid word"
        if src == "always" and snk != "always":
            assert tb.full_cycles > 0 and tb.ready_low_cycles > 0, "coverage: the slice never filled up"
        if src == "always" and snk in ("always", "random"):
            assert tb.both > 0, "coverage: never a transfer on both sides in one cycle"

    test.__name__ = test.__qualname__ = f"traffic_src_{src}_snk_{snk}"
    test.__doc__ = f"Random words; source valid {src}, sink ready {snk}."
    return cocotb.test(**TIMEOUT)(test)


for _src in SRC_PATTERNS:
    for _snk in SNK_PATTERNS:
        _t = _traffic_test(_src, _snk)
        globals()[_t.name] = _t
del _src, _snk, _t


@cocotb.test(**TIMEOUT)
async def source_never_valid(dut):
    """A source that never offers: m_valid stays 0 and s_ready 1 whatever the sink does."""
    tb = SkidBench(dut, "source_never_valid", src="never", snk="random")
    await tb.start()
    tb.add_words(10)  # queued, but never offered
    await tb.run(max_cycles=200, until_drained=False)
    tb.finish()
    assert tb.model.accepted == 0 and tb.ready_low_cycles == 0


@cocotb.test(**TIMEOUT)
async def sink_never_ready(dut):
    """A sink that never takes a word: exactly CAPACITY words go in, then s_ready stays low, m_data holds."""
    tb = SkidBench(dut, "sink_never_ready", src="random", snk="never")
    await tb.start()
    tb.add_words(50)
    await tb.run(max_cycles=300, until_drained=False)
    assert tb.model.accepted == CAPACITY and tb.model.delivered == 0
    assert tb.full_cycles > 250 and tb.m_stalls > 250, "the slice did not stay full"
    tb.snk_on = pattern("always", tb.rng)
    await tb.run(max_cycles=500)
    tb.finish()
    assert tb.model.delivered == 50


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """rst for 1..3 cycles while words flow: m_valid is 0 after it, the stream restarts in order."""
    tb = SkidBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    n = words("reset_mid_stream")
    tb.add_words(n)
    at = sorted(tb.rng.sample(range(20, n), max(4, n // 150)))  # n words take >= n cycles
    tb.resets = {c: tb.rng.randint(1, 3) for c in at}
    await tb.run(max_cycles=n * 40)
    tb.finish()
    assert tb.cycle > at[-1], "traffic ended before the last reset; make the stream longer"
    m = tb.model
    assert m.delivered + m.lost_to_reset == n
    tb.log.info("resets at cycles %s lost %d word(s)", tb.resets, m.lost_to_reset)


# --------------------------------------------------------------------------- pytest


@pytest.mark.parametrize("width", [1, 8, 64, 160, 256], ids=lambda w: f"width{w}")
def test_skid_buffer(width):
    run_bench(
        bench="skid_buffer",
        example="skid_buffer",
        module=Path(__file__).stem,
        params={"width": width},
        expected_top=f"direkt_skid_buffer_w{width}",
    )
