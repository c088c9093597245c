# SPDX-License-Identifier: Apache-2.0
"""Several kernel ports per direction (``ports=4``): each port is a descriptor and a status channel of
its own (``rd``, ``rd_p1``, ``rd_p2``, ``rd_p3``; the same for ``wr``), with its own credits and tags;
the ports share the direction's region walker through the generated arbiter.

``traffic``     four ports per direction, both directions at once, send region requests (single entries
                and requests of several entries: a check entry, then the moves, ``more`` set on all but
                the last) with the same tags on every port; every port reads its statuses under random
                back-pressure, and port 3 reads none until ports 0..2 have all of theirs. Every port
                gets exactly one status per request, with its own tag and no error (a status sent to
                the wrong port shows as a tag missing on one port and doubled on another); ports 0..2
                finish while port 3 is stalled; every destination byte-exact; afterwards no port
                shows another status
``fairness``    the four rd ports saturate the arbiter with one-entry requests, statuses read at once:
                at the arbiter (its pins in ``u_rd.u_rd_ports``) the grants to other ports between a port's
                request and its grant never exceed the policy's bound (round robin: 3; weighted: the
                sum of the other ports' weights), and every port is granted. With
                ``DIREKT_BRIDGE_MEASURE=<dir>`` (bench/bridge.py, every policy, fixed priority
                included, 16 credits a port so that no port waits for its own statuses) it writes
                each port's share of the grants and its longest wait to
                ``<dir>/ports_4_fairness_<policy>.json``
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, Timer

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.bridge_models import (
    DIRECTIONS, Csr, DataMover, GpuBar, Memory, PcieSpace, channel_cldesc, decode_status, dma_reset_pin, kernel_reset_pin,
    reset_bridge,
)
from direkt_sim.layout import load_manifest

REGRESS = regress_scale() > 1
MEASURE_DIR = os.environ.get("DIREKT_BRIDGE_MEASURE", "").strip()
# Kernel cycles a reading port may wait for its next status: every request here moves at most a few
# pages, so a status that does not come within this is lost.
STATUS_GAP = 100_000
TIMEOUT = dict(timeout_time=4_000 if REGRESS else 2_000, timeout_unit="ms")
GPU_BUS = 0x38_0000_0000
PAGE = 1 << 16
KB = 1 << 10
VERILATOR = "verilator" in str(cocotb.SIM_NAME).lower()
# requests per port and direction in ``traffic``
REQUESTS = 400 if REGRESS else 40 if VERILATOR else 12
# one-entry requests per port in ``fairness`` (and in the bench)
FAIR_REQUESTS = 2_000 if MEASURE_DIR or REGRESS else 300 if VERILATOR else 60


def prefix(t: str, k: int) -> str:
    return t if k == 0 else f"{t}_p{k}"


class Bench:
    def __init__(self, dut, name: str, gpu_pages: int):
        self.dut = dut
        self.p = bench_params()
        self.m = load_manifest()
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.kper = int(self.p.get("kernel_ps", 4000))
        self.dper = int(self.p.get("dma_ps", 4000))
        self.ports = int(self.m.bridge["ports"])
        self.fpga = Memory("fpga", size=int(self.m.bridge["fpga_mem_bytes"]))
        self.gpu = GpuBar(GPU_BUS, gpu_pages, seed=self.rng.randrange(1 << 30))
        self.gpu.write(0, self.rng.randbytes(self.gpu.size))
        self.pcie = PcieSpace([self.gpu])
        self.csr = Csr(dut, self.m)
        self.movers: dict[str, DataMover] = {}

    def pin(self, t: str, k: int, name: str):
        return getattr(self.dut, f"{prefix(t, k)}_{name}")

    async def start(self) -> None:
        dut = self.dut
        for t in DIRECTIONS:
            for k in range(self.ports):
                for s in ("desc_valid", "desc_data", "status_ready"):
                    self.pin(t, k, s).value = 0
            for s in ("host_desc_valid", "host_desc_data", "dma_desc_ready", "dma_status_valid", "dma_status_data"):
                getattr(dut, f"{t}_{s}").value = 0
        for s in ("csr_address", "csr_read", "csr_write", "csr_writedata"):
            getattr(dut, s).value = 0
        kr, kv = kernel_reset_pin(dut, self.m)
        dr, dv = dma_reset_pin(dut, self.m)
        kr.value, dr.value = kv, dv
        cocotb.start_soon(Clock(dut.kernel_clk, self.kper, "ps").start(start_high=False))
        await Timer(self.dper // 3, "ps")
        cocotb.start_soon(Clock(dut.dma_clk, self.dper, "ps").start(start_high=False))
        for t in DIRECTIONS:
            self.movers[t] = DataMover(dut, t, self.m, self.pcie, self.fpga, latency=16, bytes_per_cycle=256,
                                       seed=self.rng.randrange(1 << 30))
        await reset_bridge(dut, self.m, max(self.kper, self.dper))
        await ClockCycles(dut.dma_clk, 4)

    async def open_gpu(self, r: int) -> None:
        """Region r over every GPU page, in GPU order, from page table entry 0, both directions allowed."""
        await self.csr.write("PAGE_INDEX", 0)
        for i in range(self.gpu.pages):
            bus = self.gpu.bus(i * PAGE)
            await self.csr.write("PAGE_LO", bus & 0xFFFF_FFFF)
            await self.csr.write("PAGE_HI", bus >> 32)
        await self.csr.write("REGION_SELECT", r)
        await self.csr.write("REGION_BYTES", self.gpu.size)
        await self.csr.write("REGION_CTRL", self.m.word("csr_region_ctrl").pack(first=0, allow_rd=1, allow_wr=1))

    def word(self, region: int, offset: int, nbytes: int, fpga: int, tag: int, more: int = 0, check: int = 0) -> int:
        f = dict(region=region, offset=offset, bytes=nbytes, fpga_lo=fpga & 0xFFFF_FFFF, fpga_hi=fpga >> 32, tag=tag,
                 kind=1, more=more, check=check)
        return channel_cldesc(self.m, self.m.word("cldesc_region").pack(**f))

    def request_words(self, region: int, moves: list[tuple[int, int, int]], tag: int) -> list[int]:
        """One request's channel words: a single move as one entry; several as the header's builders
        write them, a check entry ending where the last byte ends, then the moves, more on all but the last."""
        if len(moves) == 1:
            o, f, n = moves[0]
            return [self.word(region, o, n, f, tag)]
        end = max(o + n for o, _, n in moves)
        fend = max(f + n for _, f, n in moves)
        entries = [(end - 4, fend - 4, 4, 1)] + [m + (0,) for m in moves]
        return [self.word(region, o, n, f, tag, more=int(i < len(entries) - 1), check=c)
                for i, (o, f, n, c) in enumerate(entries)]

    async def drive(self, t: str, k: int, words: list[int]) -> None:
        """Port k's descriptor channel: the words back to back, valid held until each is taken."""
        clk = self.dut.kernel_clk
        valid, data, ready = self.pin(t, k, "desc_valid"), self.pin(t, k, "desc_data"), self.pin(t, k, "desc_ready")
        await RisingEdge(clk)
        for w in words:
            data.value = w
            valid.value = 1
            while True:
                await ReadOnly()
                taken = int(ready.value) == 1
                await RisingEdge(clk)
                if taken:
                    break
        valid.value = 0

    async def collect(self, t: str, k: int, n: int, out: list, ready_p: float = 1.0, hold_until=None,
                      limit: int = 4_000_000, gap: int = STATUS_GAP) -> None:
        """Port k's status channel: n statuses into out, ready high with probability ready_p each
        cycle, low until hold_until() is true (if given). Fails when no status comes for gap cycles
        once the port reads (a status lost, or a port stuck), or when n have not come within limit."""
        clk = self.dut.kernel_clk
        valid, data, ready = self.pin(t, k, "status_valid"), self.pin(t, k, "status_data"), self.pin(t, k, "status_ready")
        rng = random.Random(self.rng.random())
        quiet = 0
        for _ in range(limit):
            if len(out) == n:
                break
            reading = hold_until is None or hold_until()
            r = reading and rng.random() < ready_p
            ready.value = int(r)
            await ReadOnly()
            if r and int(valid.value) == 1:
                out.append(decode_status(self.m, data.value.integer))
                quiet = 0
            elif reading:
                quiet += 1
                assert quiet < gap, f"{prefix(t, k)}: no status for {gap} kernel cycles after {len(out)} of {n}"
            await RisingEdge(clk)
        ready.value = 0
        assert len(out) == n, f"{prefix(t, k)}: {len(out)} of {n} statuses within {limit} kernel cycles"


@cocotb.test(**TIMEOUT)
async def traffic(dut):
    # Per direction and port: requests whose destinations never overlap (rd: FPGA memory; wr: the
    # port's own slice of GPU memory), tags 1..REQUESTS on every port. rd reads GPU memory above the
    # wr slices, so the two directions run at once without a race.
    n_ports = int(load_manifest().bridge["ports"])
    plan_rng = random.Random(f"{cocotb.RANDOM_SEED}:traffic-plan")
    plans = {}
    rd_pages = 64
    spans = []
    for t in ("wr", "rd"):
        rd = t == "rd"
        for k in range(n_ports):
            reqs = []
            gpu_at = 0  # wr: from the port's slice start, placed below
            fpga_at = (1 + k + 4 * (t == "wr")) << 26
            for i in range(REQUESTS):
                moves = []
                for _ in range(plan_rng.choice([1, 1, 2, 3])):
                    n = plan_rng.choice([4, 64, 1000, 4 * KB, 9 * KB, PAGE + 12] + ([PAGE - 4] if rd else []))
                    if rd:
                        moves.append((plan_rng.randrange(0, rd_pages * PAGE - n) & ~3, fpga_at, n))
                    else:
                        gpu_at += plan_rng.randrange(0, 256) & ~3
                        moves.append((gpu_at, fpga_at, n))
                        gpu_at += n
                    fpga_at += (n + 63) & ~63
                reqs.append((moves, i + 1))
            plans[(t, k)] = reqs
            if not rd:
                spans.append(gpu_at)
    slice_pages = -(-max(spans) // PAGE)
    wr_pages = n_ports * slice_pages
    b = Bench(dut, "traffic", gpu_pages=wr_pages + rd_pages)
    await b.start()
    await b.open_gpu(r=1)
    for (t, k), reqs in plans.items():
        base = k * slice_pages * PAGE if t == "wr" else wr_pages * PAGE
        plans[(t, k)] = [([(o + base, f, n) for o, f, n in moves], tag) for moves, tag in reqs]
    for (t, k), reqs in plans.items():
        if t == "wr":
            for moves, _ in reqs:
                for _, f, n in moves:
                    b.fpga.write(f, b.rng.randbytes(n))
    # what every destination must hold afterwards, copied move by move in Python
    wants = []
    for (t, k), reqs in plans.items():
        src, dst = (b.gpu, b.fpga) if t == "rd" else (b.fpga, b.gpu)
        for moves, _ in reqs:
            for o, f, n in moves:
                s_at, d_at = (o, f) if t == "rd" else (f, o)
                wants.append((t, k, dst, d_at, src.read(s_at, n)))

    got = {key: [] for key in plans}
    others_done = {t: False for t in DIRECTIONS}

    def others_finished(t):
        return lambda: others_done[t]

    tasks = []
    for (t, k), reqs in plans.items():
        words = [w for moves, tag in reqs for w in b.request_words(1, moves, tag)]
        tasks.append(cocotb.start_soon(b.drive(t, k, words)))
    readers = {}
    for (t, k), reqs in plans.items():
        stalled = k == n_ports - 1
        readers[(t, k)] = cocotb.start_soon(b.collect(t, k, len(reqs), got[(t, k)], ready_p=0.6,
                                                      hold_until=others_finished(t) if stalled else None))
    for t in DIRECTIONS:
        for k in range(n_ports - 1):
            await readers[(t, k)]
        # ports 0..n-2 have every status while port n-1 has read none
        assert not got[(t, n_ports - 1)], f"{t}: the stalled port read a status early"
        others_done[t] = True
    for key in plans:
        await readers[key]
    for task in tasks:
        await task
    for (t, k), reqs in plans.items():
        tags = sorted(s.tag for s in got[(t, k)])
        assert tags == [tag for _, tag in reqs], f"{prefix(t, k)}: tags {tags[:12]}...: one status per request expected"
        bad = [s for s in got[(t, k)] if s.error != 0]
        assert not bad, f"{prefix(t, k)}: {bad[0]} ({b.m.error_name(bad[0].error)})"
    for t, k, dst, at, want in wants:
        assert dst.read(at, len(want)) == want, f"{prefix(t, k)}: {len(want)} B at {at:#x} differ"
    # nothing more arrives on any port
    for t in DIRECTIONS:
        for k in range(n_ports):
            b.pin(t, k, "status_ready").value = 1
    for _ in range(300):
        await RisingEdge(dut.kernel_clk)
        await ReadOnly()
        for t in DIRECTIONS:
            for k in range(n_ports):
                assert int(b.pin(t, k, "status_valid").value) == 0, f"{prefix(t, k)}: a status nobody asked for"
    for mv in b.movers.values():
        assert not mv.errors, mv.errors


def wait_bounds(m, n: int) -> list[int | None]:
    """The most grants other ports get between port i's request and its grant (None: no bound)."""
    policy = m.bridge["port_policy"]
    if policy == "round_robin":
        return [n - 1] * n
    if policy == "weighted":
        w = [int(x) for x in m.bridge["port_weights"]]
        return [sum(w) - w[i] for i in range(n)]
    return [None] * n


@cocotb.test(**TIMEOUT)
async def fairness(dut):
    b = Bench(dut, "fairness", gpu_pages=16)
    await b.start()
    await b.open_gpu(r=1)
    n = b.ports
    mux = dut.u_rd.u_rd_ports  # the arbiter's pins as the port unit wires them (the simulator may inline the arbiter)
    grants = [0] * n
    waits = [0] * n        # grants to others since port i's request rose (while it waits)
    longest = [0] * n
    served = [0] * n       # one-entry requests, so one grant is one request
    state = {"done": False, "cycles": 0}

    async def watch():
        while not state["done"]:
            await RisingEdge(dut.kernel_clk)
            await ReadOnly()
            if min(served) == 0 or sum(served) < n * FAIR_REQUESTS:
                state["cycles"] += 1
            req = int(mux.u_arb_req.value)
            if int(mux.u_arb_grant_valid.value) and int(mux.u_arb_done.value):
                g = int(mux.u_arb_grant_id.value)
                grants[g] += 1
                served[g] += 1
                longest[g] = max(longest[g], waits[g])
                waits[g] = 0
                for i in range(n):
                    if i != g and req >> i & 1:
                        waits[i] += 1

    watcher = cocotb.start_soon(watch())
    tasks, got = [], [[] for _ in range(n)]
    for k in range(n):
        words = [b.word(1, b.rng.randrange(0, b.gpu.size // 4) * 4 - 0, 4, 0x100_0000 + 64 * (k * FAIR_REQUESTS + i), i)
                 for i in range(FAIR_REQUESTS)]
        tasks.append(cocotb.start_soon(b.drive("rd", k, words)))
    readers = [cocotb.start_soon(b.collect("rd", k, FAIR_REQUESTS, got[k])) for k in range(n)]
    # the share is taken while all four still have requests to send
    shares = None
    while shares is None:
        await RisingEdge(dut.kernel_clk)
        if max(served) >= FAIR_REQUESTS - 1 or all(task.done() for task in tasks):
            shares = list(grants)
    for r in readers:
        await r
    state["done"] = True
    await watcher
    bounds = wait_bounds(b.m, n)
    for k in range(n):
        assert sorted(s.tag for s in got[k]) == list(range(FAIR_REQUESTS)), f"rd_p{k}: statuses misrouted or lost"
        assert all(s.error == 0 for s in got[k]), f"rd port {k}: an error status"
    total = sum(shares)
    result = {
        "policy": b.m.bridge["port_policy"],
        "weights": b.m.bridge.get("port_weights", []),
        "ports": n,
        "requests_per_port": FAIR_REQUESTS,
        "share": [round(s / total, 4) for s in shares],
        "grants_in_window": shares,
        "longest_wait_grants": longest,
        "bound_grants": bounds,
        "within_bound": [bd is None or lw <= bd for lw, bd in zip(longest, bounds)],
    }
    dut._log.info("ports fairness: %s", result)
    if MEASURE_DIR:
        path = Path(MEASURE_DIR) / f"ports_4_fairness_{result['policy']}.json"
        path.write_text(json.dumps(result, indent=1) + "\n")
    for k in range(n):
        if bounds[k] is not None:
            assert longest[k] <= bounds[k], f"port {k} waited {longest[k]} grants (bound {bounds[k]})"
            assert shares[k] > 0, f"port {k} was never granted while all four saturated"


CONFIGS = {
    "ports_rr": ({"preset": "regions", "ports": 4}, {"kernel_ps": 4000, "dma_ps": 4000}),
    "ports_weighted": ({"preset": "regions", "ports": 4, "port_policy": "weighted", "port_weights": "4,2,1,1",
                        "port_credits": 2, "word_order": "x0_high"}, {"kernel_ps": 5000, "dma_ps": 4000}),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_bridge_ports(name):
    params, ratio = CONFIGS[name]
    run_bench(
        bench="bridge_ports",
        example="bridge",
        module=Path(__file__).stem,
        params=params,
        run_params=ratio,
        expected_top="direkt_bridge",
        emitter="generators",
    )
