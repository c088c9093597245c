# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's single-clock FIFO (generator ``sync_fifo``).

Top ``direkt_sync_fifo_w<width>_d<depth>`` plus ``_r`` (registered output), ``_rl1``
(show_ahead=false) and ``_af<N>`` (almost_full != depth). Ports: clk, rst (synchronous, active
high), sink s_* (ready latency 0), source m_* (ready latency 0 when show-ahead, 1 when
show_ahead=false), ``fill`` (words held) and ``almost_full`` (``fill >= almost_full``).

The rig (:class:`SyncFifoBench` on :class:`direkt_sim.stream_bench.StreamBench`) feeds s_* from
an Avalon-ST source, drains m_* with a sink whose monitor checks the hold rule (or ready latency
1), keeps a scoreboard fed only from the pins, and compares every pin every cycle with a
cycle-accurate model (:class:`FifoModel`) in one of three output modes:

``sa``   show-ahead, unregistered: ``m_data`` is the RAM head; a word accepted on edge e is on
         ``m_valid`` in the cycle after e (latency 1).
``reg``  show-ahead, registered: the head sits in an output register that loads when it is empty
         or its word leaves; latency 2; ``fill`` counts the register.
``rl1``  ready latency 1: a cycle with ``m_ready`` high and ``fill > 0`` reads the head (``fill``
         drops on that edge); the word is on ``m_valid`` / ``m_data`` in the next cycle and that
         beat is a transfer whatever ``m_ready`` is then.

A cycle with ``rst`` high carries no transfer on either side, even where the pins show one; the
source keeps offering during reset and offers the same word again afterwards. Coverage points are
summed over the tests of one simulator run and asserted by the last test, ``coverage_reached``.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Optional

import cocotb
import pytest

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.scoreboard import Coverage
from direkt_sim.stimulus import crossed_tests, hexstr as _hex, value as _int
from direkt_sim.stream_bench import StreamBench

REGRESS = regress_scale() > 1
# Words through the 16 traffic tests of one configuration, together: 100,000 under `make regress`.
TRAFFIC_WORDS = 100_000 if REGRESS else 2_000
SCALE = 10 if REGRESS else 1  # for the other tests
SRC_KINDS = ("always", "never_stall", "1in4", "random")
SNK_KINDS = ("always", "1in3", "random", "stall")
TIMEOUT = dict(timeout_time=200 * SCALE, timeout_unit="ms")  # simulated; the cycle bounds come first

# A "pop" is the event that lowers ``fill``: the output transfer for show-ahead, the read
# (``m_ready`` with ``fill > 0``) for ready latency 1. The design never accepts when full nor
# emits when empty, so push and pop in one cycle at depth-1 and at 1 word stand for "at full" and
# "at empty".
COVERAGE = Coverage(("full", "empty_after_traffic", "push_pop_at_depth_minus_1", "push_pop_at_1",
                     "almost_full_rise", "almost_full_fall"))


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


class SyncFifoBench(StreamBench):
    """Every cycle outside the initial reset: ``fill``, ``almost_full``, ``s_ready``, ``m_valid``
    and ``m_data`` equal the model's; model-free, ``s_ready == (fill != depth)``, show-ahead
    ``m_valid`` only with ``fill > 0``, no X on the outputs; right after a reset edge the FIFO is
    empty (``fill`` 0, ``m_valid`` 0, ``s_ready`` 1, ``almost_full`` 0).

    ``never_stall`` (a source kind) offers a word only where the model says the FIFO takes it."""

    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        p = bench_params()
        self.depth = int(p["depth"])
        self.show_ahead = bool(p.get("show_ahead", True))
        self.registered = bool(p.get("registered", False))
        self.af_level = int(p.get("almost_full", self.depth))
        self.mode = "rl1" if not self.show_ahead else ("reg" if self.registered else "sa")
        super().__init__(dut, name, clock=dut.clk, reset=dut.rst, src=src, snk=snk,
                         m_opts={"ready_latency": int(self.mode == "rl1")})
        assert self.width == int(p["width"]) == len(dut.m_data), "port width != DIREKT_PARAMS width"
        assert len(dut.fill) == self.depth.bit_length(), f"fill has {len(dut.fill)} bits for depth {self.depth}"
        self.model = FifoModel(self.mode, self.depth)
        self.cov = COVERAGE
        self.src_kind = src
        self.prev_rst = True
        self.seen_traffic = False  # a word was delivered since the last reset (for empty coverage)
        self.fill: Optional[int] = None  # as sampled in this cycle
        self.af: Optional[int] = None
        self._prev: Optional[tuple[bool, Optional[int]]] = None  # (rst, almost_full) of the cycle before
        self.log.info("test %s: width=%d depth=%d mode=%s almost_full=%d seed=%s src=%s snk=%s",
                      name, self.width, self.depth, self.mode, self.af_level, cocotb.RANDOM_SEED, src, snk)

    def gate(self) -> bool:
        return self.src_kind != "never_stall" or bool(self.model.s_ready)

    def state(self) -> str:
        m = self.model
        return (f"model fill {m.fill}, ram {[hex(w) for w in list(m.ram)[:6]]}{'...' if len(m.ram) > 6 else ''}, "
                f"out {'-' if m.out is None else hex(m.out)}; ")

    def outputs(self) -> tuple:
        valid = _int(self.dut.m_valid)
        return (_int(self.dut.s_ready), valid, _int(self.dut.m_data) if valid else None, _int(self.dut.fill),
                _int(self.dut.almost_full))

    def check(self, rst: bool) -> None:
        dut, m = self.dut, self.model
        s_ready, m_valid, m_data = self.src.ready, self.snk.valid, self.snk.data
        fill = self.fill = _int(dut.fill)
        af = self.af = _int(dut.almost_full)
        for name, v in (("s_ready", s_ready), ("fill", fill), ("almost_full", af)):
            if v is None:
                self.fail(f"{name} is X")
        if s_ready != int(fill != self.depth):
            self.fail(f"s_ready={s_ready} with fill={fill} of depth {self.depth}")
        if self.mode != "rl1" and m_valid and fill == 0:
            self.fail("m_valid high with fill 0 (emits when empty)")
        if self.prev_rst and (fill, m_valid, s_ready, af) != (0, 0, 1, 0):
            self.fail(f"after a reset edge: fill={fill} m_valid={m_valid} s_ready={s_ready} almost_full={af}, "
                      "expected an empty FIFO (0, 0, 1, 0)")
        if fill != m.fill:
            self.fail(f"fill={fill}, expected {m.fill}")
        if af != int(m.fill >= self.af_level):
            self.fail(f"almost_full={af} with fill {m.fill}, threshold {self.af_level}")
        if s_ready != m.s_ready:
            self.fail(f"s_ready={s_ready}, expected {m.s_ready}")
        if m_valid != m.m_valid:
            self.fail(f"m_valid={m_valid}, expected {m.m_valid}")
        if m_valid and m_data != m.m_data:
            self.fail(f"m_data={_hex(m_data)}, expected {_hex(m.m_data)}")
        if self.src.valid and not s_ready and self.src_kind == "never_stall":
            self.fail("bench error: the never-stalling source offered a word the FIFO did not take")
        if not rst and self._prev is not None and not self._prev[0]:
            self.cov.hits["almost_full_rise"] += bool(af and not self._prev[1])
            self.cov.hits["almost_full_fall"] += bool(self._prev[1] and not af)
        self._prev = (rst, af)

    def on_reset(self) -> None:
        self.model.reset()
        self.prev_rst = True
        self.seen_traffic = False

    def on_edge(self, took, got) -> None:
        self.prev_rst = False
        m_ready = self.snk.ready
        push = took is not None
        pop = bool(m_ready and self.fill) if self.mode == "rl1" else self.snk.moved
        hits = self.cov.hits
        hits["full"] += self.fill == self.depth
        if self.fill == 0 and not self.snk.valid and self.seen_traffic:
            hits["empty_after_traffic"] += 1
            self.seen_traffic = False
        if push and pop:
            hits["push_pop_at_depth_minus_1"] += self.fill == self.depth - 1
            hits["push_pop_at_1"] += self.fill == 1
        super().on_edge(took, got)
        self.seen_traffic |= self.snk.moved
        self.model.step(took, bool(m_ready))

    def finish(self, contributes: bool = True) -> None:
        super().finish()
        if contributes:
            self.cov.contributed.add(self.name)
        self.log.info("%s: coverage so far %s", self.name, self.cov.hits)

    def window_rate(self, cycles: list[int], skip: int, window: int) -> float:
        """Transfers per cycle in [first + skip, first + skip + window)."""
        lo = cycles[0] + skip
        return sum(1 for c in cycles if lo <= c < lo + window) / window


def expected_throughput(mode: str, depth: int) -> float:
    """Sustained words/cycle with source always valid and sink always ready: 1.00 in every mode.

    (A registered show-ahead FIFO holds two words in steady state, the RAM head and the output
    register; SyncFifo therefore refuses depth 2 with a registered output.)
    """
    return 1.0


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def reset_state(dut):
    """During reset m_valid is 0; after it the FIFO is empty (fill 0, m_valid 0, s_ready 1,
    almost_full 0) and stays so for 20 cycles without input, with a random sink."""
    tb = SyncFifoBench(dut, "reset_state", snk="random")
    await tb.start()
    await tb.run(max_cycles=20, until_drained=False)
    tb.finish(contributes=False)


@cocotb.test(**TIMEOUT)
async def outputs_registered(dut):
    """No combinational path: flipping every input mid-cycle (random traffic) moves none of
    s_ready, m_valid, m_data, fill and almost_full within the time step."""
    tb = SyncFifoBench(dut, "outputs_registered", src="random", snk="random")
    await tb.start()
    tb.wiggle = True
    tb.add_words(max(100, 2 * tb.depth) if not REGRESS else 2_000)
    await tb.run(max_cycles=100_000)
    tb.finish(contributes=False)


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Source always valid, sink always ready: exactly 1.00 word per cycle in and out over a window
    after the pipeline has filled; the first word leaves 1 (sa) or 2 (reg, rl1) edges after it
    was accepted."""
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


async def _traffic(dut, src: str, snk: str) -> None:
    words = TRAFFIC_WORDS // (len(SRC_KINDS) * len(SNK_KINDS))
    tb = SyncFifoBench(dut, f"traffic_{src}_{snk}", src=src, snk=snk)
    await tb.start()
    await tb.pass_words(words, max_cycles=words * 100 + 10 * tb.depth + 500)


crossed_tests(globals(), _traffic, SRC_KINDS, SNK_KINDS, name="traffic_{src}_{snk}", **TIMEOUT, doc=(
    f"{TRAFFIC_WORDS // (len(SRC_KINDS) * len(SNK_KINDS))} random words, source {{src}}, sink ready "
    "{snk}: the model matches every pin every cycle, every word comes out once and in order, the "
    "output keeps the Avalon-ST rules; feeds the coverage points."))


@cocotb.test(**TIMEOUT)
async def fill_and_drain(dut):
    """Random traffic steered through the fill levels: fill up (sink stalled), hover at full
    (random in and out), drain, hover at empty (sparse source, random sink), drain; the model
    and the scoreboard hold throughout (feeds the full, empty and almost_full coverage)."""
    tb = SyncFifoBench(dut, "fill_and_drain")
    await tb.start()
    d = tb.depth
    for _ in range(SCALE):
        tb.add_words(3 * d + 400)
        tb.src.pattern, tb.snk.pattern = "always", "1in8"
        await tb.run(max_cycles=2 * d + 20, until_drained=False)   # reaches full: in 1/cycle, out 1/8
        tb.src.pattern, tb.snk.pattern = "random", "random"
        await tb.run(max_cycles=200, until_drained=False)          # random walk around full
        tb.src.pattern, tb.snk.pattern = "never", "always"
        await tb.run(max_cycles=d + 5, until_drained=False)        # drain
        tb.src.pattern, tb.snk.pattern = "1in3", "random"
        await tb.run(max_cycles=200, until_drained=False)          # random walk around empty
        tb.src.pattern, tb.snk.pattern = "always", "always"
        await tb.run(max_cycles=20 * d + 1000)
    tb.finish()


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """rst for 1..3 cycles at random points of random traffic: the FIFO is empty right after it
    (fill 0, m_valid 0, s_ready 1, almost_full 0), the words inside are lost (counted), and the
    words accepted afterwards come out in order with nothing from before reappearing."""
    tb = SyncFifoBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    words = 1_000 * SCALE
    await tb.pass_words_through_resets(words, pulses=6 * SCALE, max_cycles=words * 20)


@cocotb.test(timeout_time=1, timeout_unit="ms")
async def coverage_reached(dut):
    """Every coverage point (full; empty after traffic; push and pop in one cycle at depth-1 and at
    1 word; almost_full rising and falling) was hit by this run, in which every test feeding it
    ran to its end."""
    COVERAGE.check({f"traffic_{s}_{k}" for s in SRC_KINDS for k in SNK_KINDS}
                   | {"throughput", "fill_and_drain", "reset_mid_stream"}, dut._log)


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
    """The FIFO emitted in this configuration passes every cocotb test above."""
    run_bench(
        bench="sync_fifo",
        example="sync_fifo",
        module=Path(__file__).stem,
        params=sync_params(*config),
        expected_top=sync_top(*config),
        emitter="generators",
    )
