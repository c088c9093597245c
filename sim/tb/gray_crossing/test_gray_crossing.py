# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's Gray-code counter crossing (example ``gray_crossing``,
top ``direkt_gray_crossing_w<width>``).

Domain a: ``a_count`` is a registered binary counter, +1 on every ``a_clk`` edge with ``a_inc``
high. A register Gray-codes it; domain b passes that through a 2-flop synchroniser (or
``sync_stages``), converts back to binary and registers it as ``b_count``. Resets
``a_rst``/``b_rst`` are synchronous, active high.

The rig (:class:`GrayBench`) drives ``a_inc`` in domain a and watches ``b_count`` at every b edge
from a coroutine of its own. Clock periods come from the pytest side (``a_period_ns``,
``b_period_ns`` in ``DIREKT_PARAMS``); the phase of ``b_clk`` against ``a_clk`` is random per
test (seeded), and one test aligns the edges on purpose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import bench_rng, pattern, value as _int

RESET_CYCLES = 3
# Synchroniser flops unless the emitter parameter sync_stages says otherwise.
# b_count shows what the first of them sampled sync_stages b edges later
# (the remaining flops, then the binary output register).
DEFAULT_SYNC_STAGES = 2
SLACK_PS = 1
SCALE = regress_scale()  # 10 under `make regress` (DIREKT_REGRESS=1), else 1
BURSTS = dict(stall_on=(1, 20), stall_off=(1, 40))  # "stall": bursts of increments between idle gaps


def _now() -> int:
    return int(get_sim_time("ps"))


class GrayBench:
    """Checked (RTL simulation has no metastability, so every b sample is a value the a side
    really held): ``a_count`` follows a model of the counter on every a cycle; on every b cycle,
    ``b_count`` is the value ``a_count`` held at some instant of the window
    ``[t - S*Tb - Ta, t - S*Tb]`` (``t`` = this b edge, ``S`` synchroniser flops): the synchroniser
    sampled at the b edge S edges ago, and the Gray register may lag ``a_count`` by up to one a
    cycle. That value must not be older than the one ``b_count`` showed before: so ``b_count``
    only takes values of the a history, in order, may skip some (b slower), never goes back, and
    can neither arrive earlier (missing synchroniser stage) nor later than that. Once ``a_inc``
    stops, ``b_count == a_count`` within ``Ta + (S+1)*Tb``."""

    def __init__(self, dut, name: str):
        self.dut = dut
        self.name = name
        self.width = len(dut.a_count)
        params = bench_params()
        assert params["width"] == self.width, f"DIREKT_PARAMS width {params['width']} != port width {self.width}"
        assert len(dut.b_count) == self.width
        self.mask = (1 << self.width) - 1
        self.ta = int(params["a_period_ns"]) * 1000  # ps
        self.tb = int(params["b_period_ns"]) * 1000
        self.b_edges_after_sample = int(params.get("sync_stages", DEFAULT_SYNC_STAGES))
        self.rng = bench_rng(name)
        self.log = dut._log
        # a_count history: (value, time in ps it became current); the value
        # held until the next entry's time. The reset value holds "forever" back.
        self.history: list[tuple[int, float]] = [(0, float("-inf"))]
        self.b_index = 0  # history entry b_count last showed
        self.b_samples = 0
        self.b_changes = 0
        self.a_cycles = 0
        self.increments = 0
        self.log.info(
            "test %s: width=%d a_clk %d ps, b_clk %d ps, seed=%s",
            name, self.width, self.ta, self.tb, cocotb.RANDOM_SEED,
        )

    async def start(self, phase_ps: Optional[int] = None) -> None:
        """Start both clocks (b_clk shifted by *phase_ps*, default random), reset both domains."""
        dut = self.dut
        dut.a_rst.value = 1
        dut.b_rst.value = 1
        dut.a_inc.value = 0
        if phase_ps is None:
            phase_ps = self.rng.randrange(self.tb)
        self.log.info("b_clk starts %d ps after a_clk", phase_ps)
        cocotb.start_soon(Clock(dut.a_clk, self.ta, units="ps").start())
        if phase_ps:
            await Timer(phase_ps, units="ps")
        cocotb.start_soon(Clock(dut.b_clk, self.tb, units="ps").start())

        async def hold(clk, rst):
            for _ in range(RESET_CYCLES):
                await RisingEdge(clk)
            rst.value = 0

        ha = cocotb.start_soon(hold(dut.a_clk, dut.a_rst))
        hb = cocotb.start_soon(hold(dut.b_clk, dut.b_rst))
        await ha
        await hb
        await RisingEdge(dut.a_clk)
        await ReadOnly()
        a, b = _int(dut.a_count), _int(dut.b_count)
        assert (a, b) == (0, 0), f"after reset a_count={a} b_count={b}, expected 0 and 0"
        await RisingEdge(dut.a_clk)  # leave ReadOnly at an a edge, ready to drive
        cocotb.start_soon(self.watch_b())

    # -- domain a ------------------------------------------------------------

    async def drive_a(self, kind: str, cycles: int) -> None:
        """Drive a_inc per *kind* for *cycles* a cycles (then 0); check a_count each cycle.

        Must be called right after a rising a_clk edge.
        """
        dut = self.dut
        incs = pattern(kind, self.rng, **BURSTS)
        model = self.history[-1][0]
        for i in range(cycles + 1):
            inc = next(incs) if i < cycles else False
            dut.a_inc.value = int(inc)
            await ReadOnly()
            self._observe_a(model)
            await RisingEdge(dut.a_clk)
            self.a_cycles += 1
            if inc:
                model = (model + 1) & self.mask
                self.increments += 1
        await ReadOnly()
        self._observe_a(model)

    def _observe_a(self, model: int) -> None:
        t = _now()
        a = _int(self.dut.a_count)
        if a != model:
            raise AssertionError(f"{t} ps: a_count={a}, expected {model} (binary counter of a_inc)")
        if a != self.history[-1][0]:
            self.history.append((a, t))

    # -- domain b ------------------------------------------------------------

    async def watch_b(self) -> None:
        dut = self.dut
        while True:
            await RisingEdge(dut.b_clk)
            await ReadOnly()
            self._check_b(_int(dut.b_count), _now())

    def _check_b(self, b: Optional[int], t: int) -> None:
        self.b_samples += 1
        hi = t - self.b_edges_after_sample * self.tb + SLACK_PS
        lo = hi - self.ta - 2 * SLACK_PS
        window = []  # history indices (not before b's last value) current at some time in [lo, hi]
        j = self.b_index
        while j < len(self.history) and self.history[j][1] <= hi:
            end = self.history[j + 1][1] if j + 1 < len(self.history) else float("inf")
            if end >= lo:
                window.append(j)
            j += 1
        for j in window:
            if self.history[j][0] == b:
                if j != self.b_index:
                    self.b_changes += 1
                self.b_index = j
                return
        shown = self.history[self.b_index]
        raise AssertionError(
            f"{t} ps: b_count={b}, but a_count held only {[self.history[j][0] for j in window]} during "
            f"[{lo}, {hi}] ps (the synchroniser's sampling window); b_count last showed {shown[0]} "
            f"(a value from {shown[1]} ps). b_count must follow a_count forwards, through "
            f"{self.b_edges_after_sample} b flops and a register; recent a history: {self.history[-8:]}"
        )

    # -- end -----------------------------------------------------------------

    async def settle(self) -> None:
        """a_inc is 0: within Ta + (stages+1)*Tb of a_count's last change, b_count must equal it."""
        dut = self.dut
        last_change = self.history[-1][1]
        bound = self.ta + (self.b_edges_after_sample + 1) * self.tb
        deadline = max(last_change, 0) + bound + SLACK_PS
        wait = int(max(deadline - _now(), 0)) + 1
        await Timer(wait, units="ps")
        await ReadOnly()
        a, b = _int(dut.a_count), _int(dut.b_count)
        assert a == self.history[-1][0], f"a_count moved to {a} with a_inc low"
        assert b == a, f"{_now()} ps: b_count={b} != a_count={a} {bound} ps after a_count's last change"

    def finish(self) -> None:
        assert self.b_samples > 0, "b_count was never sampled"
        assert self.increments == 0 or self.b_changes > 0, "b_count never moved"
        assert (self.increments & self.mask) == self.history[-1][0]
        self.log.info(
            "%s: %d increments over %d a cycles; b sampled %d times, moved %d times (a changed %d times)",
            self.name, self.increments, self.a_cycles, self.b_samples, self.b_changes, len(self.history) - 1,
        )


TIMEOUT = dict(timeout_time=5 * SCALE, timeout_unit="ms")  # simulated time


def _count_test(name: str, kind: str, cycles: int, doc: str, phase_ps: Optional[int] = None):
    async def test(dut):
        tb = GrayBench(dut, name)
        await tb.start(phase_ps)
        await tb.drive_a(kind, cycles * SCALE)
        await tb.settle()
        tb.finish()

    test.__name__ = test.__qualname__ = name
    test.__doc__ = doc + " a_count follows the counter model; b_count follows it forwards through the synchroniser's window and equals it once a_inc stops."
    return cocotb.test(**TIMEOUT)(test)


# name, a_inc pattern, a cycles, what it adds, b_clk phase (None: random)
for _t in (
    _count_test("idle", "never", 40, "a_inc never set: both counters stay 0;"),
    _count_test("count_every_cycle", "always", 300, "a_inc high every a cycle: the counter wraps many times, "
                "b skips values where it is slower;"),
    _count_test("count_random", "random", 300, "a_inc random (50 %);"),
    _count_test("count_bursts", "stall", 400, "Bursts of 1..20 increments between idle gaps of 1..40 cycles;"),
    _count_test("count_aligned_clocks", "random", 300, "Both clocks start together, so edges coincide (every "
                "edge at 1:1), a_inc random;", phase_ps=0),
):
    globals()[_t.name] = _t
del _t


# --------------------------------------------------------------------------- pytest

# (a_clk period, b_clk period) in ns: 1:1, b slower, b faster, 4:1 both ways.
CLOCKS = [(10, 10), (7, 11), (11, 7), (20, 5), (5, 20)]


@pytest.mark.parametrize("a_ns,b_ns", CLOCKS, ids=[f"a{a}ns-b{b}ns" for a, b in CLOCKS])
@pytest.mark.parametrize("width", [3, 4], ids=lambda w: f"width{w}")
def test_gray_crossing(width, a_ns, b_ns):
    """The Gray crossing emitted at this width passes every cocotb test above at these two clocks."""
    run_bench(
        bench="gray_crossing",
        example="gray_crossing",
        module=Path(__file__).stem,
        params={"width": width},
        run_params={"a_period_ns": a_ns, "b_period_ns": b_ns},
        expected_top=f"direkt_gray_crossing_w{width}",
    )
