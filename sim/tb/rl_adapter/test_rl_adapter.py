# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's ready-latency adapter (generator ``rl_adapter``; tops
``direkt_rl_adapter_w<W>_0to1`` and ``direkt_rl_adapter_w<W>_1to0``).

Ports: ``clk``, ``rst`` (synchronous, active high), sink ``s_data/s_valid/s_ready``, source
``m_data/m_valid/m_ready``; ``1to0`` also has ``fill`` and ``overflow``. Directions:

* ``rl0_to_rl1``: ``s`` is a ready-latency-0 sink, ``m`` a ready-latency-1 source. ``s_ready``
  is ``m_ready`` registered, ``m_valid = s_valid && s_ready``, data passes through.
* ``rl1_to_rl0``: ``s`` is a ready-latency-1 sink, ``m`` a ready-latency-0 source. Words land in a
  4-word show-ahead buffer; ``s_ready`` is high while it holds fewer than 3 (room for the word
  that may still come), ``fill`` is its level, ``overflow`` flags a word arriving at a full buffer
  (dropped); with a protocol-abiding upstream it never rises.

The rig (:class:`AdapterBench` on :class:`direkt_sim.stream_bench.StreamBench`) drives ``s`` with
an Avalon-ST source of the sink's ready latency (holding its offers at latency 0), drains ``m``
with a sink of the source's; their monitors check both sides' rules every cycle, a cycle-accurate
model (:class:`Model0to1`, :class:`Model1to0`) predicts every output, and a scoreboard checks
order, loss and duplication.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Optional

import cocotb
import pytest

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import SHORT_STALLS, RunSizes, crossed_tests, hexstr as _hex, value as _int
from direkt_sim.stream_bench import StreamBench

REGRESS = regress_scale() > 1  # `make regress` (DIREKT_REGRESS=1)
DEPTH = 4  # 1to0: words the buffer holds
READY_BELOW = 3  # 1to0: s_ready while fewer words than this are inside

PATTERNS = ("always", "random", "1in3", "stall")
words = RunSizes({"throughput": (500, 20_000), "traffic": (100, 5_000), "reset_mid_stream": (400, 5_000)})
# The long form (`make regress`) moves at least 100,000 words per configuration.
assert words.long_total(traffic=len(PATTERNS) ** 2) >= 100_000


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


class AdapterBench(StreamBench):
    """Every cycle: each output equals the model's; 1to0: ``overflow`` never rises unless the
    bench broke ready latency 1 on purpose (``break_latency_at``), and such a word is dropped.

    Counts: ``ready_low`` (cycles with ``s_ready`` low outside reset), ``max_fill``, ``overflows``,
    ``dropped``, ``both`` (transfers on both sides in one cycle); the source's monitor stalls are
    refused offers (0to1) or words arriving after ready fell (1to0), the sink's are m stalls."""

    passes_through = True  # 0to1

    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        params = bench_params()
        self.direction = params["direction"]
        assert self.direction in ("rl0_to_rl1", "rl1_to_rl0"), self.direction
        self.up = self.direction == "rl0_to_rl1"
        super().__init__(dut, name, clock=dut.clk, reset=dut.rst, src=src, snk=snk, **SHORT_STALLS,
                         s_opts=dict(ready_latency=0 if self.up else 1, hold=True, idle_in_reset=True),
                         m_opts=dict(ready_latency=1 if self.up else 0))
        assert self.width == int(params["width"]) == len(dut.m_data), "data port widths"
        if not self.up:
            assert len(dut.fill) == 3 and len(dut.overflow) == 1, "fill/overflow port widths"
        self.model = Model0to1() if self.up else Model1to0()
        self.dropped = 0  # 1to0: words sent against the protocol into a full buffer
        self.max_fill = 0
        self.ready_low = 0
        self.overflows = 0
        self.both = 0
        self._overflow = 0
        self.log.info("test %s: %s width=%d src=%s snk=%s seed=%s", name, self.direction, self.width,
                      src, snk, cocotb.RANDOM_SEED)

    def check(self, rst: bool) -> None:
        src, snk = self.src, self.snk
        got = {"s_ready": src.ready, "m_valid": snk.valid}
        if not self.up:
            got["fill"] = _int(self.dut.fill)
            got["overflow"] = self._overflow = _int(self.dut.overflow)
        want = self.model.outputs(src.valid, src.data)
        for k, v in got.items():
            if v != want[k]:
                self.fail(f"{k}={v}, expected {want[k]} (s_valid={src.valid} m_ready={snk.ready} rst={int(rst)})")
        if "m_data" in want and snk.data != want["m_data"]:
            self.fail(f"m_data={_hex(snk.data)}, expected {want['m_data']:#x}")
        if rst:
            return
        self.ready_low += src.ready == 0
        if not self.up:
            if self._overflow:
                self.overflows += 1
                if self.cycle not in self.break_latency_at:
                    self.fail("overflow high with a protocol-abiding upstream")
            self.max_fill = max(self.max_fill, got["fill"])

    def on_reset(self) -> None:
        self.model.edge(1, 0, 0, 0)

    def on_edge(self, took, got) -> None:
        src = self.src
        self.model.edge(0, src.valid, src.data, self.snk.ready)
        self.both += took is not None and self.snk.moved
        if took is not None and self._overflow:
            self.dropped += 1
            took = None
        super().on_edge(took, got)

    def finish(self) -> None:
        super().finish()
        self.log.info("%s: %d dropped; max fill %d, s_ready low %d cycles, both sides moving %d cycles",
                      self.name, self.dropped, self.max_fill, self.ready_low, self.both)


TIMEOUT = dict(timeout_time=500 if REGRESS else 50, timeout_unit="ms")  # simulated time


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Both sides always on: one word per cycle in and out without a bubble, the first accepted by
    cycle 2 after reset; 0to1 passes a word through in its cycle, 1to0 shows it one cycle later."""
    tb = AdapterBench(dut, "throughput")
    await tb.start()
    n = words("throughput")
    await tb.pass_words(n, max_cycles=n + 20)
    first = tb.out_cycles[0]
    assert tb.out_cycles == list(range(first, first + n)), "output side had bubbles"
    assert tb.in_cycles == list(range(tb.in_cycles[0], tb.in_cycles[0] + n)), "input side had bubbles"
    latency = 0 if tb.up else 1
    assert first - tb.in_cycles[0] == latency, f"latency {first - tb.in_cycles[0]} cycles, expected {latency}"
    assert tb.in_cycles[0] <= 2, f"first word accepted only on cycle {tb.in_cycles[0]} after reset"


@cocotb.test(**TIMEOUT)
async def backpressure(dut):
    """The sink stops for 40 cycles under full load, then toggles: 0to1 holds s_ready low (a cycle
    late) and refuses the offers; 1to0 fills its buffer to the high-water mark (DEPTH words, a word
    arriving after ready fell); nothing is lost."""
    tb = AdapterBench(dut, "backpressure")
    await tb.start()
    n = 200
    tb.add_words(n)
    stall = 40
    tb.snk.pattern = iter([True] * 10 + [False] * stall + [True, False] * 20 + [True] * 100_000)
    await tb.run(max_cycles=10 + stall, until_drained=False)
    if tb.up:
        # Nothing moves while m_ready is low (one cycle of ready_q aside); s_ready follows a cycle late.
        assert tb.ready_low >= stall - 1 and tb.src.monitor.stalls >= stall - 1, (
            f"s_ready low on {tb.ready_low} cycles, {tb.src.monitor.stalls} refused offers"
        )
    else:
        assert len(tb.sb) == DEPTH, f"{len(tb.sb)} words inside after a {stall}-cycle stall"
        assert tb.max_fill == DEPTH and tb.src.monitor.stalls >= 1, "coverage: buffer not at its high-water mark"
    await tb.drain(n, max_cycles=n * 4)


async def _traffic(dut, src: str, snk: str) -> None:
    tb = AdapterBench(dut, f"traffic_src_{src}_snk_{snk}", src=src, snk=snk)
    await tb.start()
    n = words("traffic")
    await tb.pass_words(n, max_cycles=n * 200 + 200)
    if snk != "always" and (src, snk) != ("1in3", "1in3"):  # two 1-in-3 patterns may never collide
        stalls = tb.ready_low if tb.up else tb.snk.monitor.stalls
        assert stalls > 0, "coverage: no back-pressure seen"
    if not tb.up and src == "always" and snk == "stall":
        assert tb.max_fill == DEPTH and tb.src.monitor.stalls > 0, (
            f"coverage: buffer never at its high-water mark (max fill {tb.max_fill}, "
            f"late beats {tb.src.monitor.stalls})"
        )


crossed_tests(globals(), _traffic, PATTERNS, PATTERNS, **TIMEOUT, doc=(
    "Random words, source valid {src}, sink ready {snk}: the model matches every output every cycle, "
    "both sides keep their ready latency's rules, every word comes out once and in order; coverage: "
    "back-pressure seen (sink not always ready), 1to0's buffer at its high-water mark (always/stall)."))


@cocotb.test(**TIMEOUT)
async def never_ready(dut):
    """The sink never takes a word: the adapter accepts only what it can hold (0to1 nothing, 1to0
    DEPTH words) and delivers nothing; once the sink takes words all 50 come out in order."""
    tb = AdapterBench(dut, "never_ready", snk="never")
    await tb.start()
    tb.add_words(50)
    await tb.run(max_cycles=100, until_drained=False)
    assert tb.sb.delivered == 0
    assert tb.sb.accepted == (0 if tb.up else DEPTH), f"{tb.sb.accepted} words accepted with the sink never ready"
    tb.snk.pattern = "always"
    await tb.drain(50, max_cycles=400)


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """rst for 1..3 cycles at random points while words flow: the adapter empties (the model says
    so every cycle), the words inside are lost, and the stream restarts in order."""
    tb = AdapterBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    n = words("reset_mid_stream")
    await tb.pass_words_through_resets(n, pulses=max(4, n // 100), max_cycles=n * 20)


def _direction() -> Optional[str]:
    """The direction this run was built for (None outside the simulator, e.g. at pytest collection)."""
    try:
        return bench_params().get("direction")
    except RuntimeError:
        return None


@cocotb.test(skip=_direction() == "rl0_to_rl1", **TIMEOUT)
async def overflow_flagged(dut):
    """1to0 only: an upstream that ignores ready latency 1 against a full buffer (three words) gets
    ``overflow`` high in exactly those cycles and the words dropped; the other 17 come out in order."""
    tb = AdapterBench(dut, "overflow_flagged", snk="never")
    await tb.start()
    tb.add_words(20)
    await tb.run(max_cycles=10, until_drained=False)
    assert len(tb.sb) == DEPTH
    tb.break_latency_at = {tb.cycle + 2, tb.cycle + 3, tb.cycle + 7}
    await tb.run(max_cycles=10, until_drained=False)
    assert tb.overflows == 3 and tb.dropped == 3, f"{tb.overflows} overflow cycles, {tb.dropped} dropped"
    tb.break_latency_at = set()
    tb.snk.pattern = "always"
    await tb.drain(20 - 3, max_cycles=200)


# --------------------------------------------------------------------------- pytest

DIRECTIONS = {"rl0_to_rl1": "0to1", "rl1_to_rl0": "1to0"}


@pytest.mark.parametrize("direction", list(DIRECTIONS), ids=list(DIRECTIONS.values()))
@pytest.mark.parametrize("width", [8, 160], ids=lambda w: f"width{w}")
def test_rl_adapter(width, direction):
    """The ready-latency adapter emitted at this width and direction passes every cocotb test above."""
    run_bench(
        bench="rl_adapter",
        example="rl_adapter",
        module=Path(__file__).stem,
        params={"width": width, "direction": direction},
        expected_top=f"direkt_rl_adapter_w{width}_{DIRECTIONS[direction]}",
        emitter="generators",
    )
