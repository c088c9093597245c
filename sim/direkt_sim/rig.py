# SPDX-License-Identifier: Apache-2.0
"""The bridge rig: the emitted ``direkt_bridge`` with its models around it, as every bridge bench
(tb/bridge, tb/bridge_ports, tb/bridge_regions, the measurements in bench/) sets it up.

Inside a cocotb test::

    b = BridgeRig(dut, "my_test", gpu_pages=16, host_size=4 * MB)
    await b.start()                        # inputs at 0, clocks, movers and kernels, reset
    await b.open_gpu_window()              # or, regions addressing: await b.open_gpu_region(1)
    st = await b.kernels["rd"].transfer(*b.ends("rd", b.gpu.bus(0), b.fpga_base), 4096)

and on the pytest side :func:`run_bridge`. The addresses the benches place their memories at
are here, once: windows are naturally aligned power-of-two blocks, so the GPU BAR's span (a power
of two) sits at a multiple of it and host RAM at a multiple of its size.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Optional

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, Timer

from .channel import port_prefix, region_request, region_word
from .csr import Csr
from .kernel import KernelChannel, KernelJob
from .layout import load_manifest
from .mover import DataMover
from .pcie import GpuBar, HostRam, Memory, PcieSpace, aligned_block
from .pins import DIRECTIONS
from .reset import hold_in_reset, kernel_reset_pin, reset_bridge
from .runner import bench_params, regress_scale, run_bench

KB, MB = 1 << 10, 1 << 20
PAGE = 1 << 16  # a GPU page
GPU_BUS = 0x38_0000_0000  # the GPU BAR's span (pages scattered over a power-of-two span), aligned to 32 GB
HOST_BUS = 0x1_2000_0000  # host RAM, aligned to 512 MB: halves and 1 MB pieces of up to 8 MB of it are windows
REGRESS = regress_scale() > 1
# Kernel cycles a reading port may wait for its next status where every request moves at most a
# few pages: a status that does not come within this is lost.
STATUS_GAP = 100_000


def timeout(short_ms: int, regress_ms: int) -> dict:
    """``@cocotb.test`` arguments: a limit on simulated time, longer in the long form (DIREKT_REGRESS=1)."""
    return dict(timeout_time=regress_ms if REGRESS else short_ms, timeout_unit="ms")


def run_bridge(bench: str, module: str, params: dict, run_params: Optional[dict] = None, testcase=None):
    """pytest side: emit ``direkt_bridge`` with *params*, build it and run the cocotb tests of
    *module* (a bench file's path or its module name) in ``sim/build/<bench>/``."""
    return run_bench(bench=bench, example="bridge", module=Path(module).stem, params=params, run_params=run_params,
                     expected_top="direkt_bridge", testcase=testcase, emitter="generators")


async def start_clocks(dut, kernel_ps: int, dma_ps: int) -> None:
    """Both clocks, low first (the first rising edge comes after every input is in place); the
    dma clock a third of its period later (the clocks are not in phase)."""
    cocotb.start_soon(Clock(dut.kernel_clk, kernel_ps, "ps").start(start_high=False))
    await Timer(dma_ps // 3, "ps")
    cocotb.start_soon(Clock(dut.dma_clk, dma_ps, "ps").start(start_high=False))


def region_descriptors(gpu: GpuBar, offset: int, nbytes: int, max_pages: int) -> int:
    """Mover descriptors the region walker makes of GPU [offset, +nbytes): one per bus-contiguous
    run, split every *max_pages* pages."""
    span = max_pages * gpu.page_size
    return sum(-(-n // span) if n > span else 1 for _, n in gpu.segments(offset, nbytes))


class BridgeRig:
    """The bridge and its models for one cocotb test.

    ``gpu``: a :class:`~direkt_sim.pcie.GpuBar` of *gpu_pages* 64 KB pages at :data:`GPU_BUS`,
    random contents; ``host``: *host_size* bytes of host RAM at :data:`HOST_BUS` (none for 0),
    random contents; ``pcie`` both; ``fpga`` the FPGA memory (``fpga_base``: where tests place
    data, above 4 GB where there is room); ``csr``. :meth:`start` makes ``movers`` (one
    :class:`~direkt_sim.mover.DataMover` a direction, *mover_latency*, *bytes_per_cycle*) and
    ``kernels`` (one :class:`~direkt_sim.kernel.KernelChannel` a kernel port, keyed ``rd``,
    ``rd_p1``, ...: status ready and valid always); :meth:`kernel` / :meth:`mover` replace one.
    Run parameters ``kernel_ps`` / ``dma_ps`` (default 4000) are the clock periods.
    """

    started = False  # set once any test of this simulation has started the bridge

    def __init__(self, dut, name: str, gpu_pages: int = 16, mover_latency: int = 8, bytes_per_cycle: int = 64,
                 host_size: int = 0, mover_kw: Optional[dict] = None):
        self.dut = dut
        self.name = name
        self.p = bench_params()
        self.m = load_manifest()
        self.log = dut._log
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.kper = int(self.p.get("kernel_ps", 4000))
        self.dper = int(self.p.get("dma_ps", 4000))
        self.fpga_size = int(self.m.bridge["fpga_mem_bytes"])
        self.fpga = Memory("fpga", size=self.fpga_size)
        self.fpga_base = min(self.fpga_size // 2, 1 << 32) & ~0xFFFF
        self.gpu = GpuBar(GPU_BUS, gpu_pages, seed=self.rng.randrange(1 << 30))
        self.gpu.write(0, self.rng.randbytes(self.gpu.size))
        # The window over the GPU BAR: the aligned block (>= 1 MB) holding its span.
        self.gpu_window = aligned_block(self.gpu.bus_low, self.gpu.bus_high, int(self.m.csr["window_min_log2"]))
        self.host = None
        if host_size:
            assert HOST_BUS % host_size == 0 and host_size & (host_size - 1) == 0, "host RAM is an aligned block"
            self.host = HostRam(HOST_BUS, host_size)
            self.host.mem.write(0, self.rng.randbytes(host_size))
        self.pcie = PcieSpace([self.gpu] + ([self.host] if self.host else []))
        self.csr = Csr(dut, self.m)
        self.mover_latency = mover_latency
        self.bpc = bytes_per_cycle
        # further DataMover arguments of every mover the rig makes (a descriptor controller's
        # ready latency and DTS agents)
        self.mover_kw = dict(mover_kw or {})
        self.movers: dict[str, DataMover] = {}
        self.kernels: dict[str, KernelChannel] = {}
        self.tagged = self.m.bridge["status_mode"] == "tagged"
        self.paper_ids = self.m.bridge["id_mode"] == "paper"
        self.entries = int(self.m.bridge["window_entries"])
        self.ports = int(self.m.bridge.get("ports", 1))
        self.has_counters = self.m.has_counters
        self.tag = 0x1000
        self.log.info("test %s: %s, kernel_clk %d ps, dma_clk %d ps, seed %s", name,
                      {k: self.m.bridge.get(k) for k in ("inflight", "policy", "id_mode", "status_mode", "word_order",
                                                        "window_entries", "counters", "addressing", "ports")},
                      self.kper, self.dper, cocotb.RANDOM_SEED)

    # ----------------------------------------------------------------- start

    async def start_clocks(self) -> None:
        await start_clocks(self.dut, self.kper, self.dper)

    async def start(self, models: bool = True) -> None:
        """Inputs at 0 and resets asserted, clocks, the models (unless not *models*), both resets released."""
        BridgeRig.started = True
        hold_in_reset(self.dut, self.m)
        await self.start_clocks()
        if models:
            for t in DIRECTIONS:
                self.mover(t, seed=self.rng.randrange(1 << 30))
                for k in range(self.ports):
                    self.kernel(t, k)
        await reset_bridge(self.dut, self.m, max(self.kper, self.dper))
        await ClockCycles(self.dut.dma_clk, 4)

    def mover(self, t: str, **kw) -> DataMover:
        """A fresh data mover on direction *t* (replacing the one there), the rig's latency and
        bytes per cycle unless *kw* says otherwise."""
        kw.setdefault("latency", self.mover_latency)
        kw.setdefault("bytes_per_cycle", self.bpc)
        for k, v in self.mover_kw.items():
            kw.setdefault(k, v)
        if t in self.movers:
            self.movers[t].stop()
        self.movers[t] = DataMover(self.dut, t, self.m, self.pcie, self.fpga, **kw)
        return self.movers[t]

    def kernel(self, t: str, port: int = 0, **kw) -> KernelChannel:
        """A fresh kernel channel on port *port* of direction *t* (replacing the one there)."""
        name = port_prefix(t, port)
        if name in self.kernels:
            self.kernels[name].stop()
        k = self.kernels[name] = KernelChannel(self.dut, t, self.m, port=port, **kw)
        k.explain = lambda: self.explain(t)
        return k

    async def explain(self, t: str) -> str:
        """What the bridge says about direction *t* when a status is late: descriptors it counts
        outstanding, ALARMS (a status dropped at a full status FIFO shows as <t>_overflow) and,
        with counters, the statuses it dropped as spurious (a mover status with an ID nothing
        outstanding has)."""
        text = f"; bridge outstanding {await self.csr.outstanding(t)}; ALARMS {await self.csr.alarms()}"
        if self.has_counters:
            text += f"; spurious mover statuses {await self.csr.counter(t, 'spurious')}"
        return text

    async def kernel_reset(self, cycles: int) -> int:
        """The kernel reset alone for *cycles* kernel cycles, from a kernel_clk edge; every kernel
        channel is a kernel in reset meanwhile and forgets its jobs. Returns how many it forgot."""
        kr, kv = kernel_reset_pin(self.dut, self.m)
        await RisingEdge(self.dut.kernel_clk)
        lost = 0
        for k in self.kernels.values():
            k.enabled = False
            lost += len(k.forget())
        kr.value = kv
        await ClockCycles(self.dut.kernel_clk, cycles)
        kr.value = 1 - kv
        for k in self.kernels.values():
            k.enabled = True
        return lost

    # ----------------------------------------------------------------- the host's CSR work

    async def open_gpu_window(self, i: int = 0, rd=True, wr=True) -> None:
        await self.csr.open_window(i, *self.gpu_window, rd=rd, wr=wr)

    async def open_gpu_region(self, r: int = 1, first: int = 0, rd: bool = True, wr: bool = True) -> None:
        """Regions addressing: region *r* over every GPU page, in GPU order, from page table entry *first*."""
        await self.csr.write_pages(first, [self.gpu.bus(i * self.gpu.page_size) for i in range(self.gpu.pages)])
        await self.csr.write_region(r, self.gpu.size, first, rd, wr)

    async def counters(self, t: str) -> Optional[dict]:
        """The CSR counters of direction t, or None when the bridge has none (counters=false)."""
        return await self.csr.counters(t) if self.has_counters else None

    async def check_counters(self, t: str, what: str, **want: int) -> Optional[dict]:
        """With counters: each named counter of direction t has the value given (a failing
        assertion names them all). Without: nothing to read (the callers check the same events
        through the models)."""
        c = await self.counters(t)
        if c is not None:
            got = {k: c[k] for k in want}
            assert got == want, f"{what}: {t} counters {got}, expected {want} (all: {c})"
        return c

    async def check_no_alarms(self, what: str) -> None:
        al = await self.csr.alarms()
        assert not any(al.values()), f"{what}: ALARMS {al}"

    # ----------------------------------------------------------------- kernel requests

    def ends(self, t: str, pcie: int, fpga: int) -> tuple[int, int]:
        """(src, dst) of a direction-t descriptor between a PCIe and an FPGA address."""
        return (pcie, fpga) if t == "rd" else (fpga, pcie)

    def next_tag(self) -> int:
        self.tag += 1
        return self.tag

    def request(self, t: str, region: int, moves: list[tuple[int, int, int]], tag: int, port: int = 0) -> KernelJob:
        """Regions addressing: queue one request on port *port* of direction *t*, *moves* being
        (region offset, FPGA address, bytes) (:func:`~direkt_sim.channel.region_request`)."""
        return self.kernels[port_prefix(t, port)].add_words(region_request(self.m, region, moves, tag), tag)

    def request_entry(self, t: str, region: int, offset: int, nbytes: int, fpga: int, tag: int, **extra) -> KernelJob:
        """Regions addressing: queue one entry as it is (*extra*: ``more``, ``kind``, reserved bits, ...)."""
        return self.kernels[t].add_words([region_word(self.m, region, offset, nbytes, fpga, tag, **extra)], tag)

    async def drain(self, k: KernelChannel, timeout_cycles: int = 200_000) -> None:
        """Wait until k has every status; a status still missing after *timeout_cycles* kernel
        cycles fails the test, with what the bridge says about it (:meth:`explain`)."""
        await k.drain(timeout_cycles=timeout_cycles)

    async def statuses(self, jobs: list[KernelJob], timeout_cycles: int = 2_000_000) -> list:
        """The statuses of *jobs* (queued on the rig's kernels), once every kernel channel has drained."""
        for k in self.kernels.values():
            await self.drain(k, timeout_cycles)
        return [j.status for j in jobs]

    # ----------------------------------------------------------------- checks

    def pcie_writes(self) -> int:
        return self.gpu.mem.writes + (self.host.mem.writes if self.host else 0)

    def check_status_ok(self, st, what: str) -> None:
        assert not st.failed, f"{what}: status failed: {st}" + (
            f" ({self.m.error_name(st.error)})" if st.error is not None else "")

    def check_error(self, st, code_name: str, what: str) -> None:
        if self.tagged:
            assert st.error == self.m.error(code_name), (
                f"{what}: status error {st.error} ({self.m.error_name(st.error)}), expected {code_name}")
        else:
            assert st.failed, f"{what}: cycles status {st.raw:#x} does not mark a failure (expected {code_name})"

    def check_models(self) -> None:
        for model in [*self.movers.values(), *self.kernels.values()]:
            assert not model.errors, model.errors


# --------------------------------------------------------------------------- several kernel ports


def wait_bounds(m, n: int) -> list[Optional[int]]:
    """The most grants other ports get between port i's request and its grant (None: no bound)."""
    policy = m.bridge["port_policy"]
    if policy == "round_robin":
        return [n - 1] * n
    if policy == "weighted":
        w = [int(x) for x in m.bridge["port_weights"]]
        return [sum(w) - w[i] for i in range(n)]
    return [None] * n


async def port_fairness(b: BridgeRig, requests: int) -> dict:
    """Every rd port saturates the port arbiter with *requests* one-entry requests (statuses read
    at once), watched at the arbiter's pins (``u_rd.u_rd_ports``): each port's share of the grants
    while all still had requests to send, its longest wait in grants to other ports between its
    request and its grant, the policy's bound. Checks that every port got every status, on its
    own port, without an error."""
    dut = b.dut
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
            if min(served) == 0 or sum(served) < n * requests:
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
    chans = [b.kernel("rd", k, max_outstanding=1 << 30) for k in range(n)]
    for k, ch in enumerate(chans):
        for i in range(requests):
            ch.add_words([region_word(b.m, 1, b.rng.randrange(0, b.gpu.size // 4) * 4, 4,
                                      0x100_0000 + 64 * (k * requests + i), i)], i)
    # the share is taken while all still have requests to send
    shares = None
    while shares is None:
        await RisingEdge(dut.kernel_clk)
        if max(served) >= requests - 1 or all(ch.issued == requests for ch in chans):
            shares = list(grants)
    for ch in chans:
        await ch.drain(timeout_cycles=4_000_000, gap_cycles=STATUS_GAP)
    state["done"] = True
    await watcher
    for k, ch in enumerate(chans):
        assert sorted(j.status.tag for j in ch.done) == list(range(requests)), f"{ch.name}: statuses misrouted or lost"
        assert all(j.status.error == 0 for j in ch.done), f"{ch.name}: an error status"
    bounds = wait_bounds(b.m, n)
    total = sum(shares)
    return {
        "policy": b.m.bridge["port_policy"],
        "weights": b.m.bridge.get("port_weights", []),
        "ports": n,
        "requests_per_port": requests,
        "share": [round(s / total, 4) for s in shares],
        "grants_in_window": shares,
        "longest_wait_grants": longest,
        "bound_grants": bounds,
        "within_bound": [bd is None or lw <= bd for lw, bd in zip(longest, bounds)],
    }


def check_fairness(result: dict) -> None:
    """Every port whose policy bounds its wait stayed within the bound and was granted."""
    for k, (longest, bound, share) in enumerate(zip(result["longest_wait_grants"], result["bound_grants"],
                                                    result["grants_in_window"])):
        if bound is not None:
            assert longest <= bound, f"port {k} waited {longest} grants (bound {bound})"
            assert share > 0, f"port {k} was never granted while all {result['ports']} saturated"
