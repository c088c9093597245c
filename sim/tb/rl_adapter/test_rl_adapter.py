# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's ready-latency adapter (generator ``rl_adapter``; tops
``direkt_rl_adapter_w<W>_0to1`` and ``direkt_rl_adapter_w<W>_1to0``).

Ports: ``clk``, ``rst`` (synchronous, active high), sink ``s_data/s_valid/s_ready``,
source ``m_data/m_valid/m_ready``; ``1to0`` also has ``fill`` and ``overflow``.

Avalon-ST ready latency (RL) as used here:

* RL0: a word moves on a rising edge where valid && ready.
* RL1: the source may assert valid in cycle t only if ready was high in cycle
  t-1, and every cycle with valid high is a transfer (the sink must take it).

Directions:

* ``rl0_to_rl1``: ``s`` is an RL0 sink, ``m`` an RL1 source. ``s_ready`` is
  ``m_ready`` registered, ``m_valid = s_valid && s_ready``, data passes through.
* ``rl1_to_rl0``: ``s`` is an RL1 sink, ``m`` an RL0 source. Words land in a
  4-word show-ahead buffer; ``s_ready`` is high while it holds fewer than 3 (room
  for the word that may still come), ``fill`` is its level, ``overflow`` flags a
  word arriving at a full buffer (dropped); with a protocol-abiding upstream it
  never rises.

Checked every cycle: a cycle-accurate model of the adapter (:class:`Model0to1`,
:class:`Model1to0`) predicts every output; independent protocol monitors check
the RL1 rule on the RL1 side (the DUT's on ``m`` for 0to1, the bench driver's on
``s`` for 1to0) and the RL0 hold rule on the DUT's RL0 source (1to0); a
scoreboard checks order, loss and duplication of the data words. Coverage
points (buffer at its high-water mark, words arriving after ready fell, ...)
are asserted per test.

Sampling discipline as in the skid buffer bench: inputs are driven right after
a rising edge and outputs sampled in the ReadOnly phase of that time step.
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path
from typing import Iterator, Optional

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import value as _int, hexstr as _hex, pattern as _pattern

CLK_PERIOD_NS = 10
RESET_CYCLES = 3
REGRESS = regress_scale() > 1  # `make regress` (DIREKT_REGRESS=1)
DEPTH = 4  # 1to0: words the buffer holds
READY_BELOW = 3  # 1to0: s_ready while fewer words than this are inside

# Words per cocotb test: (short form, long form); the long form moves at least
# 100,000 words per configuration (checked below).
PATTERNS = ("always", "random", "1in3", "stall")
WORDS = {
    "throughput": (500, 20_000),
    "traffic": (100, 5_000),  # per source/sink pattern pair (16 of them)
    "reset_mid_stream": (400, 5_000),
}
assert WORDS["throughput"][1] + 16 * WORDS["traffic"][1] + WORDS["reset_mid_stream"][1] >= 100_000


def words(test: str) -> int:
    short, long = WORDS[test]
    return long if REGRESS else short


# --------------------------------------------------------------------------- helpers


def pattern(kind: str, rng: random.Random) -> Iterator[bool]:
    """The shared patterns, with shorter stalls: these DUTs hold at most a few words."""
    return _pattern(kind, rng, stall_on=(1, 12), stall_off=(5, 30))


# --------------------------------------------------------------------------- models


class Model0to1:
    """rl0_to_rl1: one flop, ``ready_q`` = ``m_ready`` of the previous cycle (0 after a reset edge)."""

    def __init__(self):
        self.ready_q = 0

    def outputs(self, s_valid: int, s_data: int) -> dict:
        m_valid = s_valid & self.ready_q
        out = {"s_ready": self.ready_q, "m_valid": m_valid}
        if m_valid:
            out["m_data"] = s_data
        return out

    def edge(self, rst: int, s_valid: int, s_data: int, m_ready: int) -> None:
        self.ready_q = 0 if rst else m_ready


class Model1to0:
    """rl1_to_rl0: a 4-word show-ahead buffer; s_ready = fill < 3."""

    def __init__(self):
        self.buf: deque[int] = deque()

    def outputs(self, s_valid: int, s_data: int) -> dict:
        n = len(self.buf)
        out = {
            "s_ready": int(n < READY_BELOW),
            "m_valid": int(n > 0),
            "fill": n,
            "overflow": int(bool(s_valid) and n == DEPTH),
        }
        if n:
            out["m_data"] = self.buf[0]
        return out

    def edge(self, rst: int, s_valid: int, s_data: int, m_ready: int) -> None:
        if rst:
            self.buf.clear()
            return
        pop = bool(self.buf) and m_ready
        push = s_valid and len(self.buf) < DEPTH
        if pop:
            self.buf.popleft()
        if push:
            self.buf.append(s_data)


# --------------------------------------------------------------------------- bench


class AdapterBench:
    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        self.dut = dut
        self.name = name
        params = bench_params()
        self.width = int(params["width"])
        assert len(dut.s_data) == self.width and len(dut.m_data) == self.width, "data port widths"
        self.direction = params["direction"]
        assert self.direction in ("rl0_to_rl1", "rl1_to_rl0"), self.direction
        self.up = self.direction == "rl0_to_rl1"
        if not self.up:
            assert len(dut.fill) == 3 and len(dut.overflow) == 1, "fill/overflow port widths"
        self.model = Model0to1() if self.up else Model1to0()
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.log = dut._log
        self.src_on = pattern(src, self.rng)
        self.snk_on = pattern(snk, self.rng)
        self.to_send: deque[int] = deque()
        self.inflight: deque[int] = deque()  # accepted on s, not yet delivered on m
        self.cycle = 0
        self.resets: dict[int, int] = {}
        self._rst_left = 0
        self.offering = False  # 0to1: the RL0 source has an offer pending
        self.violate_at: set[int] = set()  # 1to0: cycles the driver sends against the protocol
        # previous cycle, for the protocol monitors
        self.prev: Optional[dict] = None
        # statistics and coverage
        self.accepted = 0
        self.delivered = 0
        self.lost_to_reset = 0
        self.dropped = 0  # 1to0: words sent against the protocol into a full buffer
        self.in_cycles: list[int] = []
        self.out_cycles: list[int] = []
        self.max_fill = 0
        self.late_beats = 0  # 1to0: words arriving in a cycle with s_ready low (allowed by RL1)
        self.ready_low = 0  # cycles with s_ready low outside reset
        self.refused_offers = 0  # 0to1: s_valid high while s_ready low
        self.overflows = 0
        self.both = 0  # cycles with a transfer on both sides
        self.m_stalls = 0  # 1to0: cycles with m_valid high and m_ready low
        self.log.info("test %s: %s width=%d src=%s snk=%s seed=%s", name, self.direction, self.width,
                      src, snk, cocotb.RANDOM_SEED)

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
            raise AssertionError(f"m_valid is {dut.m_valid.value} during reset, expected 0")
        await RisingEdge(dut.clk)
        self.model.edge(1, 0, 0, 0)
        self.prev = {"rst": 1, "s_ready": 0, "m_ready": 0}

    def add_words(self, n: int) -> None:
        self.to_send.extend(self.rng.getrandbits(self.width) for _ in range(n))

    def _fail(self, what: str) -> None:
        raise AssertionError(
            f"{self.name}: cycle {self.cycle} ({get_sim_time('ns')} ns): {what} "
            f"[in flight {[hex(w) for w in list(self.inflight)[:6]]}, accepted {self.accepted}, "
            f"delivered {self.delivered}, lost to reset {self.lost_to_reset}]"
        )

    async def run(self, max_cycles: int, until_drained: bool = True) -> None:
        dut, rng, m = self.dut, self.rng, self.model
        for _ in range(max_cycles):
            if until_drained and not self.to_send and not self.inflight and self._rst_left == 0 \
                    and self.cycle not in self.resets:
                return
            # ---- drive
            if self.cycle in self.resets:
                self._rst_left = self.resets[self.cycle]
            rst = int(self._rst_left > 0)
            self._rst_left = max(0, self._rst_left - 1)
            want = next(self.src_on) and bool(self.to_send) and not rst
            if self.up:
                # RL0 source: starts an offer when its pattern says so and holds it until it is taken
                s_valid = int((want or self.offering) and not rst)
            else:
                # RL1 source: only if s_ready was high in the previous cycle (or by a deliberate violation)
                allowed = self.prev["s_ready"] == 1 or self.cycle in self.violate_at
                s_valid = int(want and allowed)
            s_data = self.to_send[0] if s_valid else rng.getrandbits(self.width)  # idle data is junk
            m_ready = int(next(self.snk_on))
            dut.rst.value = rst
            dut.s_valid.value = s_valid
            dut.s_data.value = s_data
            dut.m_ready.value = m_ready
            # ---- sample and check
            await ReadOnly()
            got = {"s_ready": _int(dut.s_ready), "m_valid": _int(dut.m_valid)}
            if not self.up:
                got["fill"] = _int(dut.fill)
                got["overflow"] = _int(dut.overflow)
            want_out = m.outputs(s_valid, s_data)
            m_data = _int(dut.m_data)
            for k, v in got.items():
                if v != want_out[k]:
                    self._fail(f"{k}={v}, expected {want_out[k]} (s_valid={s_valid} m_ready={m_ready} rst={rst})")
            if "m_data" in want_out and m_data != want_out["m_data"]:
                self._fail(f"m_data={_hex(m_data)}, expected {want_out['m_data']:#x}")
            self._monitor(rst, s_valid, got, m_ready, m_data)
            # ---- the edge
            await RisingEdge(dut.clk)
            self.cycle += 1
            m.edge(rst, s_valid, s_data, m_ready)
            if rst:
                self.lost_to_reset += len(self.inflight)
                self.inflight.clear()
                self.offering = False
            else:
                self.offering = bool(s_valid and not got["s_ready"])
                self._scoreboard(s_valid, got, m_ready, m_data)
            self.prev = {"rst": rst, "s_ready": got["s_ready"], "m_ready": m_ready, "m_valid": got["m_valid"],
                         "m_data": m_data}
        if until_drained:
            raise AssertionError(f"{self.name}: not drained after {max_cycles} cycles: {len(self.to_send)} "
                                 f"word(s) unsent, {len(self.inflight)} in flight")

    def _monitor(self, rst: int, s_valid: int, got: dict, m_ready: int, m_data: Optional[int]) -> None:
        """Protocol rules, independent of the model."""
        prev = self.prev
        if rst:
            return
        if got["s_ready"] == 0:
            self.ready_low += 1
        if self.up:
            # The DUT is an RL1 source on m: valid only after a cycle with m_ready high.
            if got["m_valid"] and not prev["m_ready"]:
                self._fail("RL1 violated on m: m_valid high although m_ready was low in the previous cycle")
            if s_valid and not got["s_ready"]:
                self.refused_offers += 1
        else:
            # The bench is the RL1 source on s: valid only after a cycle with s_ready high.
            if s_valid and not prev["s_ready"] and self.cycle not in self.violate_at:
                self._fail("bench error: RL1 source sent although s_ready was low in the previous cycle")
            if s_valid and not got["s_ready"]:
                self.late_beats += 1
            # The DUT is an RL0 source on m: once valid, it holds valid and data until taken.
            if not prev["rst"] and prev.get("m_valid") and not prev["m_ready"]:
                if not got["m_valid"] or m_data != prev["m_data"]:
                    self._fail(f"RL0 hold rule violated on m: valid/data {prev['m_valid']}/{_hex(prev['m_data'])} "
                               f"-> {got['m_valid']}/{_hex(m_data)} without a transfer")
            if got["m_valid"] and not m_ready:
                self.m_stalls += 1
            if got["overflow"]:
                self.overflows += 1
                if self.cycle not in self.violate_at:
                    self._fail("overflow high with a protocol-abiding upstream")
            self.max_fill = max(self.max_fill, got["fill"])

    def _scoreboard(self, s_valid: int, got: dict, m_ready: int, m_data: Optional[int]) -> None:
        """Apply the transfers of the edge that just happened."""
        out = got["m_valid"] and (self.up or m_ready)  # RL1: every valid beat is a transfer
        if self.up:
            takes = s_valid and got["s_ready"]
        else:
            takes = s_valid and not got["overflow"]  # RL1: every beat is taken (unless it overflowed)
            if s_valid and got["overflow"]:
                self.dropped += 1
                self.to_send.popleft()
        if takes:
            self.inflight.append(self.to_send.popleft())
            self.accepted += 1
            self.in_cycles.append(self.cycle)
        if out:
            if not self.inflight:
                self._fail(f"delivered {_hex(m_data)} with no word in flight (duplicate or invented word)")
            w = self.inflight.popleft()
            if m_data != w:
                self._fail(f"delivered {_hex(m_data)}, expected {w:#x} (order/loss/corruption)")
            self.delivered += 1
            self.out_cycles.append(self.cycle)
        if takes and out:
            self.both += 1

    def finish(self) -> None:
        assert self.accepted == self.delivered + self.lost_to_reset + len(self.inflight), "bench bookkeeping"
        self.log.info(
            "%s: %d cycles, %d accepted, %d delivered, %d lost to reset, %d dropped; max fill %d, "
            "late beats %d, s_ready low %d cycles, refused offers %d, m stalled %d cycles, both sides moving %d cycles",
            self.name, self.cycle, self.accepted, self.delivered, self.lost_to_reset, self.dropped,
            self.max_fill, self.late_beats, self.ready_low, self.refused_offers, self.m_stalls, self.both,
        )


TIMEOUT = dict(timeout_time=500 if REGRESS else 50, timeout_unit="ms")  # simulated time


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Both sides always on: one word per cycle, no bubble after the first word."""
    tb = AdapterBench(dut, "throughput")
    await tb.start()
    n = words("throughput")
    tb.add_words(n)
    await tb.run(max_cycles=n + 20)
    tb.finish()
    assert tb.delivered == n
    first = tb.out_cycles[0]
    assert tb.out_cycles == list(range(first, first + n)), "output side had bubbles"
    assert tb.in_cycles == list(range(tb.in_cycles[0], tb.in_cycles[0] + n)), "input side had bubbles"
    # 0to1 passes words through in their cycle; 1to0 shows a word the cycle after it arrived.
    latency = 0 if tb.up else 1
    assert first - tb.in_cycles[0] == latency, f"latency {first - tb.in_cycles[0]} cycles, expected {latency}"
    assert tb.in_cycles[0] <= 2, f"first word accepted only on cycle {tb.in_cycles[0]} after reset"


@cocotb.test(**TIMEOUT)
async def backpressure(dut):
    """Sink stops for a while under full load: the adapter holds back, fills up, loses nothing."""
    tb = AdapterBench(dut, "backpressure")
    await tb.start()
    n = 200
    tb.add_words(n)
    stall = 40
    tb.snk_on = iter([True] * 10 + [False] * stall + [True, False] * 20 + [True] * 100_000)
    await tb.run(max_cycles=10 + stall, until_drained=False)
    if tb.up:
        # Nothing moves while m_ready is low (one cycle of ready_q aside); s_ready follows a cycle late.
        assert tb.ready_low >= stall - 1 and tb.refused_offers >= stall - 1, (
            f"s_ready low on {tb.ready_low} cycles, {tb.refused_offers} refused offers"
        )
    else:
        assert len(tb.inflight) == DEPTH, f"{len(tb.inflight)} words inside after a {stall}-cycle stall"
        assert tb.max_fill == DEPTH and tb.late_beats >= 1, "coverage: buffer not at its high-water mark"
    await tb.run(max_cycles=n * 4)
    tb.finish()
    assert tb.delivered == n


def _traffic_test(src: str, snk: str):
    async def test(dut):
        tb = AdapterBench(dut, f"traffic_src_{src}_snk_{snk}", src=src, snk=snk)
        await tb.start()
        n = words("traffic")
        tb.add_words(n)
        await tb.run(max_cycles=n * 200 + 200)
        tb.finish()
        assert tb.delivered == n
        if snk != "always" and (src, snk) != ("1in3", "1in3"):  # two 1-in-3 patterns may never collide
            stalls = tb.ready_low if tb.up else tb.m_stalls
            assert stalls > 0, "coverage: no back-pressure seen"
        if not tb.up and src == "always" and snk == "stall":
            assert tb.max_fill == DEPTH and tb.late_beats > 0, (
                f"coverage: buffer never at its high-water mark (max fill {tb.max_fill}, late beats {tb.late_beats})"
            )

    test.__name__ = test.__qualname__ = f"traffic_src_{src}_snk_{snk}"
    test.__doc__ = f"Random words; source valid {src}, sink ready {snk}."
    return cocotb.test(**TIMEOUT)(test)


for _src in PATTERNS:
    for _snk in PATTERNS:
        _t = _traffic_test(_src, _snk)
        globals()[_t.name] = _t
del _src, _snk, _t


@cocotb.test(**TIMEOUT)
async def never_ready(dut):
    """The sink never takes a word: the adapter accepts only what it can hold, nothing comes out wrongly."""
    tb = AdapterBench(dut, "never_ready", snk="never")
    await tb.start()
    tb.add_words(50)
    await tb.run(max_cycles=100, until_drained=False)
    assert tb.delivered == 0
    assert tb.accepted == (0 if tb.up else DEPTH), f"{tb.accepted} words accepted with the sink never ready"
    tb.snk_on = pattern("always", tb.rng)
    await tb.run(max_cycles=400)
    tb.finish()
    assert tb.delivered == 50


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """rst for 1..3 cycles while words flow: the adapter empties and the stream restarts in order."""
    tb = AdapterBench(dut, "reset_mid_stream", src="random", snk="random")
    n = words("reset_mid_stream")
    at = sorted(tb.rng.sample(range(20, n), max(4, n // 100)))  # n words take >= n cycles
    tb.resets = {c: tb.rng.randint(1, 3) for c in at}
    await tb.start()
    tb.add_words(n)
    await tb.run(max_cycles=n * 20)
    tb.finish()
    assert tb.cycle > at[-1], "traffic ended before the last reset"
    assert tb.delivered + tb.lost_to_reset == n


def _direction() -> Optional[str]:
    """The direction this run was built for (None outside the simulator, e.g. at pytest collection)."""
    try:
        return bench_params().get("direction")
    except RuntimeError:
        return None


@cocotb.test(skip=_direction() == "rl0_to_rl1", **TIMEOUT)
async def overflow_flagged(dut):
    """1to0 only: an upstream that ignores ready latency 1 overflows a full buffer; ``overflow`` says so."""
    tb = AdapterBench(dut, "overflow_flagged", snk="never")
    await tb.start()
    tb.add_words(20)
    await tb.run(max_cycles=10, until_drained=False)
    assert len(tb.inflight) == DEPTH
    # Three protocol violations against a full buffer: each is flagged and dropped.
    tb.violate_at = {tb.cycle + 2, tb.cycle + 3, tb.cycle + 7}
    await tb.run(max_cycles=10, until_drained=False)
    assert tb.overflows == 3 and tb.dropped == 3, f"{tb.overflows} overflow cycles, {tb.dropped} dropped"
    tb.violate_at = set()
    tb.snk_on = pattern("always", tb.rng)
    await tb.run(max_cycles=200)
    tb.finish()
    assert tb.delivered == 20 - 3


# --------------------------------------------------------------------------- pytest

DIRECTIONS = {"rl0_to_rl1": "0to1", "rl1_to_rl0": "1to0"}


@pytest.mark.parametrize("direction", list(DIRECTIONS), ids=list(DIRECTIONS.values()))
@pytest.mark.parametrize("width", [8, 160], ids=lambda w: f"width{w}")
def test_rl_adapter(width, direction):
    run_bench(
        bench="rl_adapter",
        example="rl_adapter",
        module=Path(__file__).stem,
        params={"width": width, "direction": direction},
        expected_top=f"direkt_rl_adapter_w{width}_{DIRECTIONS[direction]}",
        emitter="generators",
    )
