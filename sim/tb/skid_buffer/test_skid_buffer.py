# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's skid buffer (example ``skid_buffer``, top ``direkt_skid_buffer_w<width>``).

The DUT is a full-throughput Avalon-ST register slice (ready latency 0) of at most 2 words:
``s_ready``, ``m_valid`` and ``m_data`` come from flops; ``rst`` is synchronous, active high and
clears ``m_valid``. The rig (:class:`SkidBench` on :class:`direkt_sim.stream_bench.StreamBench`)
feeds ``s_*`` from an Avalon-ST source, drains ``m_*`` with a sink whose monitor checks the hold
rule, and compares the pins every cycle with a model: the words inside the slice.
"""

from __future__ import annotations

from pathlib import Path

import cocotb
import pytest

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import RunSizes, crossed_tests, hexstr as _hex
from direkt_sim.stream_bench import StreamBench

CAPACITY = 2  # words the register slice holds (output register + skid register)
SCALE = regress_scale()  # 10 under `make regress` (DIREKT_REGRESS=1), else 1

# Source and sink patterns, crossed in the traffic tests: on every cycle, long
# stalls, one cycle in N, random. (Never-on sources and sinks have their own tests.)
SRC_PATTERNS = ("always", "random", "1in4", "stall")
SNK_PATTERNS = ("always", "random", "1in3", "stall")

words = RunSizes({
    "outputs_registered": (100, 1_000),
    "throughput": (200, 20_000),
    "backpressure": (300, 3_000),
    "traffic": (100, 5_000),  # per source/sink pattern pair
    "reset_mid_stream": (600, 6_000),
})
# The long form (`make regress`) moves at least 100,000 words per width.
assert words.long_total(traffic=len(SRC_PATTERNS) * len(SNK_PATTERNS)) >= 100_000


class SkidBench(StreamBench):
    """The model is the scoreboard's outstanding words (those inside the slice, oldest first):
    every cycle outside reset ``m_valid == (words > 0)``, ``m_data`` is the oldest word and
    ``s_ready == (words < CAPACITY)``; in the cycle right after a reset edge only ``m_valid == 0``
    is checked (``s_ready`` may still hold its reset value)."""

    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        super().__init__(dut, name, clock=dut.clk, reset=dut.rst, src=src, snk=snk)
        params = bench_params()
        assert params["width"] == self.width, f"DIREKT_PARAMS width {params['width']} != port width {self.width}"
        self.prev_rst = True  # the last edge was a reset edge
        self.ready_low_cycles = 0  # cycles (outside reset) in which s_ready was 0
        self.full_cycles = 0  # cycles (outside reset) with CAPACITY words inside
        self.both = 0  # edges with a transfer on both sides
        self.log.info("test %s: width=%d seed=%s src=%s snk=%s", name, self.width, cocotb.RANDOM_SEED, src, snk)

    def on_reset(self) -> None:
        self.prev_rst = True

    def check(self, rst: bool) -> None:
        inside = self.sb.expected
        m_valid, s_ready = self.snk.valid, self.src.ready
        if self.prev_rst:
            if m_valid != 0:
                self.fail(f"m_valid={m_valid} right after a reset edge, expected 0")
            return
        want_valid = int(bool(inside))
        if m_valid != want_valid:
            self.fail(f"m_valid={m_valid}, expected {want_valid}")
        if inside and self.snk.data != inside[0][1]:
            self.fail(f"m_data={_hex(self.snk.data)}, expected {inside[0][1]:#x}")
        self.ready_low_cycles += s_ready == 0
        self.full_cycles += len(inside) == CAPACITY
        want_ready = int(len(inside) < CAPACITY)
        if s_ready != want_ready:
            self.fail(f"s_ready={s_ready}, expected {want_ready} with {len(inside)} word(s) inside")

    def on_edge(self, took, got) -> None:
        self.prev_rst = False
        self.both += took is not None and self.snk.moved
        super().on_edge(took, got)
        if len(self.sb) > CAPACITY:
            self.fail(f"DUT accepted a word while holding {CAPACITY} (capacity exceeded)")

    def finish(self) -> None:
        super().finish()
        self.log.info("%s: full %d cycles, s_ready low %d cycles, both sides moving %d cycles",
                      self.name, self.full_cycles, self.ready_low_cycles, self.both)


TIMEOUT = dict(timeout_time=20 * SCALE, timeout_unit="ms")  # simulated time


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def reset_state(dut):
    """During and right after reset m_valid is 0; then, with nothing offered and a random sink,
    s_ready stays 1 and m_valid 0: the slice is empty."""
    tb = SkidBench(dut, "reset_state", snk="random")
    await tb.start()
    await tb.run(max_cycles=20, until_drained=False)
    tb.finish()


@cocotb.test(**TIMEOUT)
async def outputs_registered(dut):
    """s_ready, m_valid and m_data come from flops: flipping every input mid-cycle moves none of
    them within the time step (random source and sink, model checked as everywhere)."""
    tb = SkidBench(dut, "outputs_registered", src="random", snk="random")
    await tb.start()
    tb.wiggle = True
    tb.add_words(words("outputs_registered"))
    await tb.run(max_cycles=20 * words("outputs_registered"))
    tb.finish()


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Source always valid, sink always ready: a word in on every cycle, the first one out on the
    next edge (latency 1), then one out per cycle without a bubble."""
    tb = SkidBench(dut, "throughput")
    await tb.start()
    n = words("throughput")
    await tb.pass_words(n, max_cycles=n + 10)
    assert tb.in_cycles == list(range(tb.in_cycles[0], tb.in_cycles[0] + n)), "input side stalled"
    assert tb.out_cycles[0] == tb.in_cycles[0] + 1, (
        f"first word out on cycle {tb.out_cycles[0]}, in on {tb.in_cycles[0]}: latency must be 1"
    )
    span = tb.out_cycles[-1] - tb.out_cycles[0] + 1
    assert span == n, f"{n} words took {span} cycles after the first word: bubbles"


@cocotb.test(**TIMEOUT)
async def backpressure(dut):
    """The sink stops for 50 cycles under full load: exactly CAPACITY words go in, s_ready stays
    low for the rest of the stall (the model enforces s_ready == words < CAPACITY every cycle),
    and every word comes out once the sink is back."""
    tb = SkidBench(dut, "backpressure")
    await tb.start()
    n = words("backpressure")
    tb.add_words(n)
    stall = 50
    tb.snk.pattern = iter([True] * 20 + [False] * stall + [True] * 10_000)
    await tb.run(max_cycles=20 + stall, until_drained=False)
    assert len(tb.sb) == CAPACITY, f"{len(tb.sb)} words inside after a {stall}-cycle stall"
    assert tb.ready_low_cycles >= stall - CAPACITY, f"s_ready low on only {tb.ready_low_cycles} cycles"
    await tb.drain(n, max_cycles=n * 4)


async def _traffic(dut, src: str, snk: str) -> None:
    tb = SkidBench(dut, f"traffic_src_{src}_snk_{snk}", src=src, snk=snk)
    await tb.start()
    n = words("traffic")
    await tb.pass_words(n, max_cycles=n * 150 + 200)
    if snk != "always":
        assert tb.snk.monitor.stalls > 0, "coverage: the sink never stalled a valid word"
    if src == "always" and snk != "always":
        assert tb.full_cycles > 0 and tb.ready_low_cycles > 0, "coverage: the slice never filled up"
    if src == "always" and snk in ("always", "random"):
        assert tb.both > 0, "coverage: never a transfer on both sides in one cycle"


crossed_tests(globals(), _traffic, SRC_PATTERNS, SNK_PATTERNS, **TIMEOUT, doc=(
    "Random words, source valid {src}, sink ready {snk}: the model matches every cycle, every word comes "
    "out once and in order, the hold rule holds on m; coverage: the sink stalls a valid word (sink not "
    "always ready), the slice fills (source always valid), words move on both sides in one cycle."))


@cocotb.test(**TIMEOUT)
async def source_never_valid(dut):
    """A source that never offers: nothing is accepted, m_valid stays 0 and s_ready 1 whatever the
    sink does."""
    tb = SkidBench(dut, "source_never_valid", src="never", snk="random")
    await tb.start()
    tb.add_words(10)  # queued, but never offered
    await tb.run(max_cycles=200, until_drained=False)
    tb.finish()
    assert tb.sb.accepted == 0 and tb.ready_low_cycles == 0


@cocotb.test(**TIMEOUT)
async def sink_never_ready(dut):
    """A sink that never takes a word: exactly CAPACITY words go in, then s_ready stays low and
    m_valid/m_data hold for 250+ cycles; once the sink takes words all 50 come out in order."""
    tb = SkidBench(dut, "sink_never_ready", src="random", snk="never")
    await tb.start()
    tb.add_words(50)
    await tb.run(max_cycles=300, until_drained=False)
    assert tb.sb.accepted == CAPACITY and tb.sb.delivered == 0
    assert tb.full_cycles > 250 and tb.snk.monitor.stalls > 250, "the slice did not stay full"
    tb.snk.pattern = "always"
    await tb.drain(50, max_cycles=500)


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """rst for 1..3 cycles at random points while words flow: m_valid is 0 right after it, the
    words inside are lost (counted), and the stream restarts in order."""
    tb = SkidBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    n = words("reset_mid_stream")
    await tb.pass_words_through_resets(n, pulses=max(4, n // 150), max_cycles=n * 40)


# --------------------------------------------------------------------------- pytest


@pytest.mark.parametrize("width", [1, 8, 64, 160, 256], ids=lambda w: f"width{w}")
def test_skid_buffer(width):
    """The skid buffer emitted at this width passes every cocotb test above."""
    run_bench(
        bench="skid_buffer",
        example="skid_buffer",
        module=Path(__file__).stem,
        params={"width": width},
        expected_top=f"direkt_skid_buffer_w{width}",
    )
