# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's dual-clock FIFO (generator ``async_fifo``).

Top ``direkt_async_fifo_w<width>_d<depth>`` plus ``_s<N>`` (sync_stages != 2) and ``_r``
(registered output). Write domain: wr_clk, wr_rst, sink s_*; read domain: rd_clk, rd_rst, source
m_* (both ready latency 0). Resets are synchronous, active high. The design (Cummings-style):
binary + Gray pointers per domain, each Gray pointer crossing through ``sync_stages`` flops, full
and empty computed from the other side's synchronised (late) pointer.

The rig (:class:`AsyncFifoBench`): a coroutine per domain drives its side (an Avalon-ST source on
s_*, a sink on m_* whose monitor checks the hold rule) and checks it every cycle against an exact,
time-based model of the flags; a scoreboard fed from the pins checks order, loss and duplication.
Clocks come from the pytest side (``wr_ps``, ``rd_ps``: nominal periods in ps; ``jitter``: percent
by which each half period varies); write edges fall on even picoseconds and read edges on odd
ones, so the two never coincide (RTL simulation has no metastability; a coincident edge would
only test the simulator's ordering). Coverage points are summed over the tests of one simulator
run and asserted by the last test, ``coverage_reached``.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import Optional

import cocotb
import pytest
from cocotb.triggers import Event, First, ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.avalon_st import AvalonStError, AvalonStSink, AvalonStSource
from direkt_sim.scoreboard import Coverage, Scoreboard
from direkt_sim.stimulus import bench_rng, crossed_tests, hexstr as _hex, value as _int

REGRESS = regress_scale() > 1
TRAFFIC_WORDS = 100_000 if REGRESS else 2_000  # through the 16 traffic tests of one run, together
SCALE = 10 if REGRESS else 1
SRC_KINDS = ("always", "never_stall", "1in4", "random")
SNK_KINDS = ("always", "1in3", "random", "stall")
RESET_HOLD_EXTRA = 3  # reset overlap: sync_stages + this many cycles of each clock
TIMEOUT = dict(timeout_time=500 * SCALE, timeout_unit="ms")  # simulated; the per-test bounds come first


def _now() -> int:
    return int(get_sim_time("ps"))


# The design never accepts when full nor emits when empty, so push and pop in one write cycle
# while the FIFO held depth-1 words, or 1 word, at the start of that cycle stand for "at full" and
# "at empty". pessimistic_full: write cycles with s_ready low although fewer than depth words were
# held (reported, not asserted).
COVERAGE = Coverage(("full", "empty_after_traffic", "push_pop_at_depth_minus_1", "push_pop_at_1"),
                    info=("pessimistic_full",))


def full_rate_depth(sync_stages: int, registered: bool) -> int:
    """Smallest depth that sustains 1 word per cycle (both sides always on, 1:1 clocks).

    The write side sees a read S+1 write edges late, and a word needs S+2 (S+1
    unregistered) read edges to come out: about 2S+3 words are in flight, so
    the next power of two above that is safe.
    """
    need = 2 * sync_stages + 3 + (1 if registered else 0)
    d = 2
    while d <= need:
        d *= 2
    return d


# --------------------------------------------------------------------------- bench


class AsyncFifoBench:
    """The flag model (``_expect_s_ready`` / ``_expect_m_valid``), exact rather than bounded: with
    ``S = sync_stages`` and ``W_n``/``R_n`` the n-th write/read clock edge, counts since the last
    reset,

    * the read pointer the write side sees after ``W_n`` is the number of pops before
      ``W_{n-S+1}`` (0 if one of ``W_{n-S+1..n}`` was a reset edge), so ``s_ready`` after ``W_n``
      is ``pushes(<= W_n) - that != depth``;
    * the write pointer the read side sees after ``R_n`` is the number of pushes before
      ``R_{n-S+1}`` (same reset rule); unregistered output: ``m_valid`` after ``R_n`` is
      ``pops(<= R_n) != that``; registered output: ``m_valid`` is a flop loaded at ``R_n`` from
      the pointer seen after ``R_{n-1}``.

    So a word written into an empty FIFO is transferred out on the (S+2)-th read edge after the
    write edge (registered; S+1 unregistered), whatever the clock ratio: the generator's bound "at
    most sync_stages + 2 read-clock cycles".

    Checked every cycle in each domain outside the reset window: ``s_ready`` and ``m_valid`` equal
    the model (no more pessimism than the synchronisers imply, and never optimism), right after a
    domain's reset edge the FIFO is empty on its side, and while ``m_valid`` is high ``m_data`` is
    the oldest outstanding word; the FIFO never holds more than ``depth`` words.
    """

    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        self.dut = dut
        self.name = name
        p = bench_params()
        self.width = int(p["width"])
        self.depth = int(p["depth"])
        self.S = int(p.get("sync_stages", 2))
        self.registered = bool(p.get("registered", True))
        self.wr_ps = int(p["wr_ps"])
        self.rd_ps = int(p["rd_ps"])
        self.jitter = int(p.get("jitter", 0))
        assert self.wr_ps % 2 == 0 and self.rd_ps % 2 == 0, "periods must be even ps"
        assert len(dut.s_data) == self.width and len(dut.m_data) == self.width, "port width != DIREKT_PARAMS width"
        self.mask = (1 << self.width) - 1
        self.rng = bench_rng(name)
        self.log = dut._log
        self.sb = Scoreboard()
        self.cov = COVERAGE
        self.src_kind = src
        self.src = AvalonStSource(dut, "s_", dut.wr_clk, dut.wr_rst, rng=self.rng, valid=src, idle_in_reset=True)
        self.snk = AvalonStSink(dut, "m_", dut.rd_clk, dut.rd_rst, rng=self.rng, ready=snk)
        self._pushing = False  # the write side took a word that the next write edge puts in
        # Edges (ps) and whether each was a reset edge (the domain's reset was high in the cycle it ended).
        self.wr_t: list[int] = []
        self.wr_r: list[bool] = []
        self.rd_t: list[int] = []
        self.rd_r: list[bool] = []
        # Transfers since the start of the current reset epoch (both domains reset).
        self.push_t: list[int] = []
        self.pop_t: list[int] = []
        self.accept_time: dict[int, int] = {}  # sequence number -> accepting write edge (ps)
        self.latencies: list[int] = []  # read edges from the accepting write edge to the transfer edge
        # Reset episode: rst_req drives both resets; epoch = time both had a reset edge (None: inside the window).
        self.rst_req = True
        self.first_rst = {"wr": None, "rd": None}
        self.epoch: Optional[int] = None
        self.epoch_event = Event()
        self.drained = Event()
        self.wiggle = False
        self.seen_traffic = False
        self.log.info(
            "test %s: width=%d depth=%d sync_stages=%d registered=%s wr %d ps rd %d ps jitter %d%% seed=%s src=%s snk=%s",
            name, self.width, self.depth, self.S, self.registered, self.wr_ps, self.rd_ps, self.jitter,
            cocotb.RANDOM_SEED, src, snk,
        )

    def idle(self) -> bool:
        """Every queued word is out (none queued, held, or being taken)."""
        return not self.src.queue and not self.sb.expected and not self._pushing

    # -- clocks and reset ----------------------------------------------------

    def _half(self, period: int, which: str):
        """Half-period generator (even ps): each half period uniform in half * (1 +- jitter%)."""
        half = period // 2
        lo = max(2, half * (100 - self.jitter) // 100)
        hi = half * (100 + self.jitter) // 100
        rng = random.Random(f"{cocotb.RANDOM_SEED}:{self.name}:{which}_clk")
        return lambda: 2 * (rng.randint(lo, hi) // 2)

    async def _clock(self, sig, period: int, first_edge_in: int, which: str) -> None:
        sig.value = 0
        await Timer(first_edge_in, units="ps")
        half = self._half(period, which)
        if not self.jitter:
            t = Timer(period // 2, units="ps")
            while True:
                sig.value = 1
                await t
                sig.value = 0
                await t
        while True:
            sig.value = 1
            await Timer(half(), units="ps")
            sig.value = 0
            await Timer(half(), units="ps")

    def min_half(self, period: int) -> int:
        """Shortest half period the clock can have (even ps)."""
        return 2 * (max(2, (period // 2) * (100 - self.jitter) // 100) // 2)

    async def start(self) -> None:
        """Start both clocks (write edges on even ps, read edges on odd ps), both domains, reset."""
        dut = self.dut
        dut.wr_rst.value = 1
        dut.rd_rst.value = 1
        self.src.idle(0)
        self.snk.set_ready(0)
        now = _now()
        wr_first = 1000 + (now % 2)  # now + wr_first is even
        rd_first = 1000 + 2 * self.rng.randrange(self.rd_ps // 2) + (1 - (now % 2))  # odd
        cocotb.start_soon(self._clock(dut.wr_clk, self.wr_ps, wr_first, "wr"))
        cocotb.start_soon(self._clock(dut.rd_clk, self.rd_ps, rd_first, "rd"))
        cocotb.start_soon(self._writer())
        cocotb.start_soon(self._reader())
        await self.reset()

    async def reset(self) -> None:
        """The generator's reset rule, with margin: both resets high together (each from its next
        edge), overlapping S+3 cycles of each clock after both took effect (the rule asks S+1 of the
        slower clock); s_valid is low meanwhile. The words inside are lost (counted), transfers in a
        domain's reset cycles do not count. Returns once both domains are out of reset."""
        self.rst_req = True
        self.first_rst = {"wr": None, "rd": None}
        self.epoch = None
        self.epoch_event.clear()
        await self.epoch_event.wait()
        hold = self.S + RESET_HOLD_EXTRA
        for _ in range(hold):
            await RisingEdge(self.dut.wr_clk)
        for _ in range(hold):
            await RisingEdge(self.dut.rd_clk)
        self.rst_req = False
        await RisingEdge(self.dut.wr_clk)
        await RisingEdge(self.dut.rd_clk)
        await RisingEdge(self.dut.wr_clk)

    def _reset_edge(self, domain: str, t: int) -> None:
        if self.epoch is None and self.first_rst[domain] is None:
            self.first_rst[domain] = t
            if self.first_rst["wr"] is not None and self.first_rst["rd"] is not None:
                # Both pointers are 0 now: a new epoch. What was inside is lost.
                self.epoch = t
                self.sb.reset()
                self.push_t.clear()
                self.pop_t.clear()
                self.seen_traffic = False
                self.epoch_event.set()
                if self.idle():
                    self.drained.set()

    # -- the flag model ------------------------------------------------------

    def _seen_count(self, edges_t, edges_r, n: int, events: list[int]) -> int:
        """Pointer (as a count this epoch) at the output of the S-flop synchroniser after edge n."""
        S = self.S
        if n - S + 1 < 0 or any(edges_r[n - S + 1:n + 1]):
            return 0
        return bisect_left(events, edges_t[n - S + 1])

    def _expect_s_ready(self) -> int:
        n = len(self.wr_t) - 1
        view = len(self.push_t) - self._seen_count(self.wr_t, self.wr_r, n, self.pop_t)
        return int(view != self.depth)

    def _expect_m_valid(self) -> int:
        n = len(self.rd_t) - 1
        if self.rd_r[n]:
            return 0
        pops = len(self.pop_t)
        if self.registered:
            return int(self._seen_count(self.rd_t, self.rd_r, n - 1, self.push_t) != pops)
        return int(self._seen_count(self.rd_t, self.rd_r, n, self.push_t) != pops)

    def _checking(self, edges_t) -> bool:
        """Model checks apply in a cycle that began at or after the epoch's start."""
        return self.epoch is not None and bool(edges_t) and edges_t[-1] >= self.epoch

    def _fail(self, domain: str, what: str) -> None:
        raise AssertionError(
            f"{self.name}: {domain} cycle at {_now()} ps: {what} "
            f"[accepted {self.sb.accepted}, delivered {self.sb.delivered}, lost to reset {self.sb.lost_to_reset}, "
            f"held {len(self.sb.expected)}; this epoch {len(self.push_t)} pushes, {len(self.pop_t)} pops]"
        )

    # -- write domain --------------------------------------------------------

    async def _writer(self) -> None:
        dut, src = self.dut, self.src
        await RisingEdge(dut.wr_clk)
        while True:
            rst = self.rst_req
            checking = self._checking(self.wr_t)
            predicted = self._expect_s_ready() if checking else None
            dut.wr_rst.value = int(rst)
            src.drive(rst, gate=self.src_kind != "never_stall" or predicted == 1)
            if self.wiggle and not rst:
                await self._wiggle("write", self.wr_ps)
            await ReadOnly()
            took = src.sample(rst)
            self._pushing = took is not None
            s_ready = src.ready
            if checking:
                if s_ready is None:
                    self._fail("write", "s_ready is X")
                if self.wr_r[-1] and s_ready != 1:
                    self._fail("write", "s_ready low right after a write-side reset edge (FIFO should be empty)")
                if s_ready != predicted:
                    self._fail("write", f"s_ready={s_ready}, expected {predicted} "
                                        f"({'full' if predicted == 0 else 'not full'} as the write side sees it)")
                if not s_ready and len(self.sb.expected) < self.depth:
                    self.cov.info["pessimistic_full"] += 1
            await RisingEdge(dut.wr_clk)
            t = _now()
            self.wr_t.append(t)
            self.wr_r.append(rst)
            if rst:
                self._reset_edge("wr", t)
            elif took is not None:
                self._push(t, took)
            self._pushing = False

    def _push(self, t: int, word: int) -> None:
        seq = self.sb.put(word)
        self.accept_time[seq] = t
        self.push_t.append(t)
        held = len(self.sb.expected)
        if held > self.depth:
            self._fail("write", f"accepted a word while holding {self.depth} (capacity exceeded)")
        if held == self.depth:
            self.cov.hits["full"] += 1
        if len(self.wr_t) >= 2 and self.epoch is not None:
            tp = self.wr_t[-2]
            if tp >= self.epoch:
                held_then = bisect_right(self.push_t, tp) - bisect_right(self.pop_t, tp)
                popped_in_cycle = bisect_right(self.pop_t, t) > bisect_right(self.pop_t, tp)
                if popped_in_cycle and held_then == self.depth - 1:
                    self.cov.hits["push_pop_at_depth_minus_1"] += 1
                if popped_in_cycle and held_then == 1:
                    self.cov.hits["push_pop_at_1"] += 1

    async def _wiggle(self, domain: str, period: int) -> None:
        """Mid-cycle of *domain* (no edge of either clock in this time step): flip its inputs
        (s_valid and s_data, or m_ready); nothing may move within the time step."""
        dut, src, snk = self.dut, self.src, self.snk
        await Timer(self.min_half(period) // 2 // 2 * 2, units="ps")
        before = (_int(dut.s_ready), _int(dut.m_valid), _int(dut.m_data))
        if domain == "write":
            dut.s_valid.value = 1 - src.valid
            dut.s_data.value = ~src.data & self.mask
        else:
            dut.m_ready.value = 1 - snk.ready
        await ReadOnly()
        after = (_int(dut.s_ready), _int(dut.m_valid), _int(dut.m_data))
        if after[:2] != before[:2] or (before[1] and after[2] != before[2]):
            self._fail(domain, f"outputs (s_ready, m_valid, m_data) followed its inputs combinationally: {before} -> {after}")
        await Timer(2, units="ps")
        if domain == "write":
            dut.s_valid.value, dut.s_data.value = src.valid, src.data
        else:
            dut.m_ready.value = snk.ready

    # -- read domain ---------------------------------------------------------

    async def _reader(self) -> None:
        dut, snk = self.dut, self.snk
        await RisingEdge(dut.rd_clk)
        while True:
            rst = self.rst_req
            dut.rd_rst.value = int(rst)
            snk.drive()
            checking = self._checking(self.rd_t)
            if self.wiggle and not rst:
                await self._wiggle("read", self.rd_ps)
            await ReadOnly()
            try:
                snk.sample(rst)
            except AvalonStError as exc:
                self._fail("read", str(exc))
            m_valid, m_data = snk.valid, snk.data
            if checking:
                if self.rd_r[-1] and m_valid:
                    self._fail("read", "m_valid high right after a read-side reset edge (FIFO should be empty)")
                want = self._expect_m_valid()
                if m_valid != want:
                    self._fail("read", f"m_valid={m_valid}, expected {want}: "
                                       + ("a word is readable but not shown" if want else
                                          "nothing readable yet (the write pointer has not passed the synchroniser, "
                                          "or the FIFO is empty)"))
                if m_valid:
                    head = self.sb.head()
                    if m_data != head:
                        self._fail("read", f"m_data={_hex(m_data)} but the oldest outstanding word is {_hex(head)}")
                elif not self.sb.expected and self.seen_traffic:
                    self.cov.hits["empty_after_traffic"] += 1
                    self.seen_traffic = False
            await RisingEdge(dut.rd_clk)
            t = _now()
            self.rd_t.append(t)
            self.rd_r.append(rst)
            if rst:
                self._reset_edge("rd", t)
            elif snk.moved:
                try:
                    seq = self.sb.got(m_data)
                except AssertionError as exc:
                    self._fail("read", str(exc))
                self.pop_t.append(t)
                ta = self.accept_time.pop(seq)
                self.latencies.append(len(self.rd_t) - bisect_right(self.rd_t, ta))
                self.seen_traffic = True
                if self.idle():
                    self.drained.set()

    # -- test helpers --------------------------------------------------------

    def add_words(self, n: int) -> None:
        self.drained.clear()
        self.src.add_random(n)

    def slow_ps(self) -> int:
        return max(self.wr_ps, self.rd_ps) * (100 + self.jitter) // 100

    async def wait_drained(self, max_words_time: int) -> None:
        """Wait until every queued word came out; fail after *max_words_time* slow-clock periods."""
        if self.idle():
            return
        limit = Timer(max_words_time * self.slow_ps(), units="ps")
        fired = await First(self.drained.wait(), limit)
        if fired is limit:
            raise AssertionError(
                f"{self.name}: not drained after {max_words_time} slow-clock cycles: {len(self.src.queue)} word(s) unsent, "
                f"{len(self.sb.expected)} inside the FIFO"
            )

    async def run_for(self, slow_cycles: int) -> None:
        await Timer(slow_cycles * self.slow_ps(), units="ps")

    def finish(self, contributes: bool = True) -> None:
        self.sb.check_drained()
        assert self.snk.monitor.cycles > 0, "protocol monitor never ran"
        if contributes:
            self.cov.contributed.add(self.name)
        self.log.info(
            "%s: %d accepted, %d delivered, %d lost to reset; %d write / %d read cycles; latency %s..%s; coverage %s",
            self.name, self.sb.accepted, self.sb.delivered, self.sb.lost_to_reset, len(self.wr_t), len(self.rd_t),
            min(self.latencies, default="-"), max(self.latencies, default="-"), self.cov.hits,
        )

    def rates(self, t0: int, t1: int) -> tuple[float, float, int, int]:
        """(pushes per write edge, pops per read edge, write edges, read edges) for edges in [t0, t1)."""
        nw = bisect_left(self.wr_t, t1) - bisect_left(self.wr_t, t0)
        nr = bisect_left(self.rd_t, t1) - bisect_left(self.rd_t, t0)
        pushes = bisect_left(self.push_t, t1) - bisect_left(self.push_t, t0)
        pops = bisect_left(self.pop_t, t1) - bisect_left(self.pop_t, t0)
        return pushes / nw, pops / nr, nw, nr

    def expected_latency(self) -> int:
        return self.S + (2 if self.registered else 1)

    async def sustained_rates(self, n: int) -> tuple[float, float, int, int]:
        """Both sides always on for *n* words: :meth:`rates` over a window after the pipeline filled."""
        self.src.pattern, self.snk.pattern = "always", "always"
        self.add_words(n)
        t_start = _now()
        await self.wait_drained(4 * n + 200)
        slow = self.slow_ps()
        t0 = t_start + 50 * slow  # pipeline filled (and, where one side is faster, the FIFO settled full or empty)
        t1 = self.push_t[-1] - 5 * slow  # the source still had words
        assert t1 - t0 > 100 * slow, "throughput window too short"
        return self.rates(t0, t1)

    async def single_words(self, n: int) -> None:
        """*n* words one at a time into the empty FIFO, each after 0..7 idle write cycles, at a random
        read-clock phase (``latencies`` gets theirs)."""
        for _ in range(n):
            self.src.pattern = iter([False] * self.rng.randint(0, 7) + [True] + [False] * 10_000)
            self.add_words(1)
            await self.wait_drained(100)
            await Timer(self.rng.randrange(1, 2 * self.rd_ps), units="ps")


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def reset_state(dut):
    """After reset m_valid is low and s_ready high, and for 50 slow cycles without input (random
    sink) nothing appears."""
    tb = AsyncFifoBench(dut, "reset_state", snk="random")
    await tb.start()
    await tb.run_for(50)
    tb.finish(contributes=False)


@cocotb.test(**TIMEOUT)
async def outputs_registered(dut):
    """No combinational path: flipping the inputs mid-cycle in either domain (random traffic) moves
    none of s_ready, m_valid and m_data within the time step."""
    tb = AsyncFifoBench(dut, "outputs_registered", src="random", snk="random")
    tb.wiggle = True
    await tb.start()
    tb.add_words(200 if not REGRESS else 2_000)
    await tb.wait_drained(100_000)
    tb.finish(contributes=False)


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Both sides always on: where the depth covers the pointer round trip (``full_rate_depth``)
    and the clocks do not jitter, the slower clock's side moves exactly 1.00 word per cycle in a
    window after the pipeline fills, the faster one the period ratio."""
    tb = AsyncFifoBench(dut, "throughput")
    await tb.start()
    t_in, t_out, nw, nr = await tb.sustained_rates(1_000 * SCALE)
    tb.finish()
    tb.log.info("throughput over %d write / %d read cycles: in %.4f words/wr cycle, out %.4f words/rd cycle",
                nw, nr, t_in, t_out)
    if tb.depth < full_rate_depth(tb.S, tb.registered) or tb.jitter:
        tb.log.info("no rate asserted (depth %d below %d, or jittered clocks)", tb.depth,
                    full_rate_depth(tb.S, tb.registered))
        return
    if tb.wr_ps >= tb.rd_ps:
        assert t_in == 1.0, f"write side {t_in:.4f} words/cycle with the slower (or equal) clock, expected 1.00"
        want_out = tb.rd_ps / tb.wr_ps
        assert abs(t_out - want_out) <= 2 / nr, f"read side {t_out:.4f} words/cycle, expected {want_out:.4f}"
    if tb.rd_ps >= tb.wr_ps:
        assert t_out == 1.0, f"read side {t_out:.4f} words/cycle with the slower (or equal) clock, expected 1.00"
        want_in = tb.wr_ps / tb.rd_ps
        assert abs(t_in - want_in) <= 2 / nw, f"write side {t_in:.4f} words/cycle, expected {want_in:.4f}"


@cocotb.test(**TIMEOUT)
async def latency(dut):
    """Single words into an empty FIFO at random phases, sink always ready: each leaves exactly S+2
    read edges (S+1 unregistered) after the write edge that accepted it."""
    tb = AsyncFifoBench(dut, "latency", snk="always")
    await tb.start()
    await tb.single_words(50 * SCALE)
    tb.finish()
    want = tb.expected_latency()
    assert set(tb.latencies) == {want}, f"latencies {sorted(set(tb.latencies))} read edges, expected all {want}"


async def _traffic(dut, src: str, snk: str) -> None:
    words = TRAFFIC_WORDS // (len(SRC_KINDS) * len(SNK_KINDS))
    tb = AsyncFifoBench(dut, f"traffic_{src}_{snk}", src=src, snk=snk)
    await tb.start()
    tb.add_words(words)
    await tb.wait_drained(words * 100 + 10 * tb.depth + 500)
    tb.finish()
    assert tb.sb.delivered == words


crossed_tests(globals(), _traffic, SRC_KINDS, SNK_KINDS, name="traffic_{src}_{snk}", **TIMEOUT, doc=(
    f"{TRAFFIC_WORDS // (len(SRC_KINDS) * len(SNK_KINDS))} random words, source {{src}}, sink ready "
    "{snk}: both flags match the model every cycle of their domain, every word comes out once and in "
    "order, the hold rule holds on m; feeds the coverage points."))


@cocotb.test(**TIMEOUT)
async def fill_and_drain(dut):
    """Random traffic steered through the fill levels, in phases measured in cycles of the slower
    clock: fill (sink off), hover just below full, drain, hover just above empty, drain; the flag
    model and the scoreboard hold throughout (feeds the full, empty and push-and-pop coverage)."""
    tb = AsyncFifoBench(dut, "fill_and_drain")
    await tb.start()
    d = tb.depth
    # Rates per slower-clock cycle differ by the period ratio; size the phases for the worst case (4x).
    ratio = max(tb.wr_ps, tb.rd_ps) / min(tb.wr_ps, tb.rd_ps)
    # Hovering just below full / just above empty. "Push and pop in one write cycle at depth-1 words"
    # needs a pause of the sink long enough for the write side to see the FIFO at depth-1 (S+1 write
    # cycles), "... at 1 word" a pause of the source longer than a word's way through (S+2 read cycles).
    # So that side's on-probability is 1 / (that pause in its own cycles + 1); the other side, which
    # keeps the level up (or down), is on about once per cycle of the slower clock, so that the
    # level also rests at depth-1 (or 1) until the next transfer of the pausing side. Each phase
    # lasts hover_events such pauses.
    see_pop_rd = (tb.S + 1) * tb.wr_ps / tb.rd_ps   # read cycles until the write side sees a pop
    pass_wr = tb.expected_latency() * tb.rd_ps / tb.wr_ps  # write cycles until a word can leave
    hover_events = 500

    def p(prob: float) -> str:
        return f"p{min(100, max(1, round(100 * prob)))}"

    for _ in range(SCALE):
        tb.add_words(4 * d + 2 * hover_events + 200)
        tb.src.pattern, tb.snk.pattern = "always", "never"
        await tb.run_for(d + 20)                                   # fill: sink off
        tb.src.pattern = p(1 / (max(1.0, tb.rd_ps / tb.wr_ps) + 1))
        tb.snk.pattern = p(1 / (see_pop_rd + 1))
        await Timer(int(hover_events * (see_pop_rd + 1) * tb.rd_ps), units="ps")  # hover just below full
        tb.src.pattern, tb.snk.pattern = "never", "always"
        await tb.run_for(int(d * ratio) + 40)                      # drain
        tb.src.pattern = p(1 / (pass_wr + 1))
        tb.snk.pattern = p(1 / (max(1.0, tb.wr_ps / tb.rd_ps) + 1))
        await Timer(int(hover_events * (pass_wr + 1) * tb.wr_ps), units="ps")     # hover just above empty
        tb.src.pattern, tb.snk.pattern = "always", "always"
        await tb.wait_drained(40 * d + 4000)
    tb.finish()


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """Both resets (per the generator's rule, see ``AsyncFifoBench.reset``) at random points of
    random traffic, at least 3 times: after each domain leaves reset the FIFO is empty (m_valid low,
    s_ready high), the words inside are lost (counted), and the stream restarts in order with
    nothing from before the reset reappearing."""
    tb = AsyncFifoBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    words = 1_000 * SCALE
    tb.add_words(words)
    resets = 0
    for _ in range(6 * SCALE):
        await tb.run_for(tb.rng.randint(10, 150))
        if tb.idle():
            break
        await tb.reset()
        resets += 1
    await tb.wait_drained(words * 20)
    tb.finish()
    assert resets >= 3, f"traffic ended after {resets} reset(s); make the stream longer"
    assert tb.sb.delivered + tb.sb.lost_to_reset == words
    tb.log.info("%d resets lost %d word(s)", resets, tb.sb.lost_to_reset)


@cocotb.test(timeout_time=1, timeout_unit="ms")
async def coverage_reached(dut):
    """Every coverage point (full; empty after traffic; push and pop in one write cycle at depth-1
    and at 1 word) was hit by this run, in which every test feeding it ran to its end."""
    COVERAGE.check({f"traffic_{s}_{k}" for s in SRC_KINDS for k in SNK_KINDS}
                   | {"throughput", "latency", "fill_and_drain", "reset_mid_stream"}, dut._log)


# --------------------------------------------------------------------------- pytest

# Clock ratios write:read as nominal periods in ps (+ jitter in percent of each half period).
RATIOS = {
    "1to1": dict(wr_ps=10_000, rd_ps=10_000, jitter=0),
    "7to11": dict(wr_ps=7_000, rd_ps=11_000, jitter=0),
    "11to7": dict(wr_ps=11_000, rd_ps=7_000, jitter=0),
    "4to1": dict(wr_ps=20_000, rd_ps=5_000, jitter=0),
    "1to4": dict(wr_ps=5_000, rd_ps=20_000, jitter=0),
    "jitter": dict(wr_ps=10_000, rd_ps=10_000, jitter=30),
}

# (width, depth, sync_stages, registered, [ratios]): every width, every depth, every ratio at least once;
# the shipped 160x16, 256x16, 64x16 (registered, 2 stages); one unregistered FIFO with 3 stages.
# Each (width, depth, stages, registered) is one Verilator build; the ratios of one share it.
CONFIGS = [
    (160, 16, 2, True, list(RATIOS)),              # shipped
    (256, 16, 2, True, ["7to11"]),                 # shipped
    (64, 16, 2, True, ["11to7"]),                  # shipped
    (1, 2, 2, True, ["4to1"]),
    (8, 4, 3, False, ["1to4"]),
    (8, 512, 2, True, ["1to1"]),
]


def async_params(width: int, depth: int, sync_stages: int, registered: bool) -> dict:
    return {"width": width, "depth": depth, "sync_stages": sync_stages, "registered": registered}


def async_top(width: int, depth: int, sync_stages: int, registered: bool) -> str:
    return (f"direkt_async_fifo_w{width}_d{depth}" + ("" if sync_stages == 2 else f"_s{sync_stages}")
            + ("_r" if registered else ""))


CASES = [(c[:4], r) for c in CONFIGS for r in c[4]]


@pytest.mark.parametrize(
    "config,ratio", CASES,
    ids=[f"w{c[0]}-d{c[1]}-s{c[2]}-{'r' if c[3] else 'u'}-{r}" for c, r in CASES],
)
def test_async_fifo(config, ratio):
    """The FIFO emitted at this width, depth and synchroniser length passes every cocotb test above at
    this clock ratio."""
    run_bench(
        bench="async_fifo",
        example="async_fifo",
        module=Path(__file__).stem,
        params=async_params(*config),
        run_params=RATIOS[ratio],
        expected_top=async_top(*config),
        emitter="generators",
    )
