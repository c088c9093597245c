# SPDX-License-Identifier: Apache-2.0
"""cocotb measurements of the direkt bridge, for bench/bridge.py (not a regression bench).

bench/bridge.py runs this module through the benches' harness (direkt_sim.run_bench) with
``DIREKT_BRIDGE_MEASURE=<dir>``; each cocotb test below writes
``<dir>/<test>@<kernel_ps>-<dma_ps>.json``. Run parameters (``DIREKT_PARAMS``): ``kernel_ps`` and
``dma_ps`` (clock periods in ps, multiples of 4) and the knobs read with ``P.get`` below.
Kernel-clock edges fall on even picoseconds and dma-clock edges on odd ones, so the two never
coincide. Bit positions, pin names of the channels and the clocks come from the manifest the
emitter wrote (direkt_sim.layout); the tests use the GPU->FPGA (``rd``) direction.

The rig is direkt_sim.rig.BridgeRig with clocks of its own; its models drive the pins (a
KernelChannel on the kernel channel, DataMover on ``rd_dma_*``, HostController on ``rd_host_*``,
Csr for the window). The GPU BAR model's span is a power of two (2 MB) at a bus address aligned to
it, so the one window the host opens (an aligned power-of-two block, as the bridge's windows are)
covers it exactly. This module only watches: a monitor per clock samples the pins in the ReadOnly
phase just after an edge (what the registers take at the next edge) and counts edges, so an event
is placed on an exact edge of either clock.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Optional

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from direkt_sim.host_controller import HostController
from direkt_sim.kernel import KernelChannel
from direkt_sim.rig import HOST_BUS, BridgeRig
from direkt_sim.stimulus import value as _int

MEASURE_DIR = os.environ.get("DIREKT_BRIDGE_MEASURE", "").strip()
D = "rd"  # the direction measured
FPGA_AT = 0x1000_0000  # where data lands in FPGA memory


def _now() -> int:
    return int(get_sim_time("ps"))


class Rig(BridgeRig):
    """The bridge rig with clocks of its own (their low phase stretchable), 1 MB of host RAM, and
    one monitor per clock; the models are made by each test, after the reset."""

    def __init__(self, dut, name: str):
        super().__init__(dut, name, gpu_pages=16, host_size=1 << 20)  # GPU span: 32 slots of 64 KB, 2 MB
        self.kernel_ps = self.kper
        self.dma_ps = self.dper
        assert self.kernel_ps % 4 == 0 and self.dma_ps % 4 == 0, "periods must be multiples of 4 ps"
        b = self.m.bridge
        self.S = int(b["sync_stages"])
        ck = b["clocks"]
        self.k_clk = getattr(dut, ck["kernel"]["clock"])
        self.d_clk = getattr(dut, ck["dma"]["clock"])
        pin = lambda n: getattr(dut, n)  # noqa: E731
        dp, sp = self.m.channel(D, "desc")["port"], self.m.channel(D, "status")["port"]
        self.desc_valid, self.desc_ready = pin(f"{dp}_valid"), pin(f"{dp}_ready")
        self.st_valid, self.st_ready, self.st_data = pin(f"{sp}_valid"), pin(f"{sp}_ready"), pin(f"{sp}_data")
        self.md_valid, self.md_data = pin(f"{D}_dma_desc_valid"), pin(f"{D}_dma_desc_data")
        self.ms_valid, self.ms_data = pin(f"{D}_dma_status_valid"), pin(f"{D}_dma_status_data")
        self.mdesc = self.m.word("mover_desc")
        self.mstatus = self.m.word("mover_status")
        self.stretch = {"k": 0, "d": 0}
        # Edges of each clock so far; what the monitors saw, as (edge count of own clock, ...).
        self.kcount = 0
        self.dcount = 0
        self.on_accept: Callable[[], None] = lambda: None  # kernel edge accepting a cldesc
        self.on_kstatus: Callable[[int], None] = lambda word: None  # kernel edge taking a status
        self.on_mover: Callable[[int], None] = lambda word: None  # dma edge: descriptor to the mover
        self.on_mstatus: Callable[[int], None] = lambda word: None  # dma edge: mover status

    # -- clocks --------------------------------------------------------------

    async def _clock(self, sig, period: int, first: int, which: str) -> None:
        sig.value = 0
        await Timer(first, units="ps")
        half = period // 2
        while True:
            sig.value = 1
            await Timer(half, units="ps")
            sig.value = 0
            extra, self.stretch[which] = self.stretch[which], 0
            await Timer(half + extra, units="ps")

    def stretch_random(self) -> None:
        """Lengthen the next low phase of each clock by a random even time (< its period): what
        comes next meets the two clocks at a random relative phase."""
        self.stretch["k"] = 2 * self.rng.randrange(self.kernel_ps // 2)
        self.stretch["d"] = 2 * self.rng.randrange(self.dma_ps // 2)

    async def start_clocks(self) -> None:
        now = _now()
        k_first = 1000 + now % 2  # kernel edges on even ps
        d_first = 1001 + 2 * self.rng.randrange(self.dma_ps // 2) - now % 2  # dma edges on odd ps
        cocotb.start_soon(self._clock(self.k_clk, self.kernel_ps, k_first, "k"))
        cocotb.start_soon(self._clock(self.d_clk, self.dma_ps, d_first, "d"))

    async def start(self) -> None:
        await super().start(models=False)
        cocotb.start_soon(self._kernel_monitor())
        cocotb.start_soon(self._dma_monitor())
        for _ in range(self.S + 4):
            await RisingEdge(self.k_clk)
            await RisingEdge(self.d_clk)
        # The span is an aligned power-of-two block of at least 1 MB: open_window refuses anything else.
        await self.open_gpu_window(0, rd=D == "rd", wr=D == "wr")

    # -- monitors ------------------------------------------------------------

    async def _kernel_monitor(self) -> None:
        accept, status = False, None
        while True:
            await RisingEdge(self.k_clk)
            self.kcount += 1
            if accept:
                self.on_accept()
            if status is not None:
                self.on_kstatus(status)
            await ReadOnly()
            accept = _int(self.desc_valid) == 1 and _int(self.desc_ready) == 1
            status = _int(self.st_data) if _int(self.st_valid) == 1 and _int(self.st_ready) == 1 else None

    async def _dma_monitor(self) -> None:
        desc, status = None, None
        while True:
            await RisingEdge(self.d_clk)
            self.dcount += 1
            if desc is not None:
                self.on_mover(desc)
            if status is not None:
                self.on_mstatus(status)
            await ReadOnly()
            desc = _int(self.md_data) if _int(self.md_valid) == 1 else None
            status = _int(self.ms_data) if _int(self.ms_valid) == 1 else None

    # -- helpers -------------------------------------------------------------

    def add(self, kernel: KernelChannel, i: int, nbytes: int) -> None:
        """Queue the i-th transfer: nbytes of the GPU BAR (rd: source) to FPGA memory (or back)."""
        off = (i * nbytes) % (self.gpu.size - self.gpu.size % nbytes)
        kernel.add(*self.ends(D, self.gpu.bus(off), FPGA_AT + off), nbytes)

    async def wait_statuses(self, kernel: KernelChannel, what: str, cycles: int) -> None:
        mover = self.movers[D]
        for _ in range(cycles):
            if kernel.idle:
                return
            await RisingEdge(self.k_clk)
        raise AssertionError(f"{self.name}: {what}: {kernel.outstanding} status(es) missing, "
                             f"{len(kernel.queue)} queued after {cycles} kernel cycles; mover: "
                             f"{len(mover.log)} taken, {mover.statuses} statuses, pending "
                             f"{list(mover.pending)[:4]}, mover cycle {mover.cycle}; kernel in flight "
                             f"{kernel.inflight[:4]}; bridge outstanding "
                             f"{_probe(self.dut, f'u_{D}.outstanding')}")

    def check_failed(self, kernel: KernelChannel) -> None:
        bad = [j.status for j in kernel.done if j.status.failed]
        assert not bad, f"{self.name}: {len(bad)} kernel statuses report an error, first {bad[0]}"

    def write(self, test: str, result: dict) -> None:
        result.update(test=test, kernel_ps=self.kernel_ps, dma_ps=self.dma_ps, sync_stages=self.S,
                      simulator=os.environ.get("DIREKT_SIM", "?"))
        Path(MEASURE_DIR).mkdir(parents=True, exist_ok=True)
        (Path(MEASURE_DIR) / f"{test}@{self.kernel_ps}-{self.dma_ps}.json").write_text(json.dumps(result, indent=2))
        self.log.info("measurement %s: %s", test, json.dumps(result)[:3000])


def _probe(dut, path: str) -> Optional[int]:
    """An internal signal (the Verilator build is --public-flat-rw), or None if not reachable."""
    h = dut
    try:
        for part in path.split("."):
            h = getattr(h, part)
        return _int(h)
    except AttributeError:
        return None


def _hist(values: list[int]) -> dict[str, int]:
    return {str(v): values.count(v) for v in sorted(set(values))}


if MEASURE_DIR:

    @cocotb.test(timeout_time=100, timeout_unit="ms")
    async def latency(dut):
        """Single descriptors (64 B) into an idle bridge, the kernel keeping one in flight, at
        random phase (both clocks' low phase stretched by a random time < a period while the bridge
        is idle) and random gaps. Descriptor latency: dma_clk edges from the kernel_clk edge that
        accepts the cldesc (rd_desc_valid && rd_desc_ready) to the first dma_clk edge that samples
        rd_dma_desc_valid high (the mover holds rd_dma_desc_ready high: a valid at ready latency 1
        is a transfer). The mover answers after a random 0..6-cycle latency. Status latency:
        kernel_clk edges from the dma_clk edge that samples rd_dma_status_valid high to the first
        kernel_clk edge that samples rd_status_valid high (rd_status_ready held high)."""
        rig = Rig(dut, "latency")
        await rig.start()
        mover = rig.mover(D, latency=0, bytes_per_cycle=64)
        kernel = rig.kernel(D, max_outstanding=1)
        samples = int(rig.p.get("latency_samples", 200))
        state: dict[str, int] = {}
        desc_lat: list[int] = []
        status_lat: list[int] = []

        # Where the descriptor's dma cycles go: for each stage output, the dma edge (counted from
        # the accept) at which the next stage first samples it high.
        stage_probes = {"crossing_fifo_m_valid (sampled by the checks)": f"u_{D}.u_desc_fifo_m_valid",
                        "checks_q_valid (sampled by admission)": f"u_{D}.u_checks_q_valid",
                        "mover_queue_d_valid (to the arbiter / RL 0->1 adapter)": f"u_{D}.u_issue_d_valid",
                        "rd_dma_desc_valid (sampled by the mover)": f"{D}_dma_desc_valid"}
        seen: dict[str, int] = {}
        stages: dict[str, list[int]] = {k: [] for k in stage_probes}

        async def watch_stages():
            while True:
                await RisingEdge(rig.d_clk)
                await ReadOnly()  # values after edge dcount: sampled at edge dcount + 1
                if "accept_dcount" in state:
                    for k, path in stage_probes.items():
                        if k not in seen and _probe(dut, path) == 1:
                            seen[k] = rig.dcount + 1 - state["accept_dcount"]

        cocotb.start_soon(watch_stages())

        def on_accept():
            state["accept_dcount"] = rig.dcount  # dma edges before this kernel edge
            seen.clear()

        def on_mover(word):
            desc_lat.append(rig.dcount - state.pop("accept_dcount"))
            for k in stage_probes:
                stages[k].append(seen.get(k, -1))

        def on_mstatus(word):
            state["status_kcount"] = rig.kcount  # kernel edges before this dma edge

        def on_kstatus(word):
            status_lat.append(rig.kcount - state.pop("status_kcount"))

        rig.on_accept, rig.on_mover, rig.on_mstatus, rig.on_kstatus = on_accept, on_mover, on_mstatus, on_kstatus
        for i in range(samples):
            mover.latency = rig.rng.randint(0, 6)
            rig.stretch_random()
            for _ in range(2 + rig.rng.randint(0, 5)):
                await RisingEdge(rig.k_clk)
            rig.add(kernel, i, 64)
            await rig.wait_statuses(kernel, f"latency sample {i}", 1000)
            for _ in range(3):  # let the monitors see the last edge
                await RisingEdge(rig.k_clk)
        rig.check_failed(kernel)
        assert len(desc_lat) == len(status_lat) == samples, (len(desc_lat), len(status_lat), samples)
        rig.write("latency", {
            "desc_min": min(desc_lat), "desc_max": max(desc_lat), "desc_samples": len(desc_lat),
            "desc_histogram": _hist(desc_lat),
            "desc_stages_sampled_at_dma_edge": {k: _hist(v) for k, v in stages.items()},
            "status_min": min(status_lat), "status_max": max(status_lat), "status_samples": len(status_lat),
            "status_histogram": _hist(status_lat),
        })

    async def _issue(dut, test: str, host_load: bool) -> None:
        rig = Rig(dut, test)
        await rig.start()
        total = int(rig.p.get("issue_descriptors", 2000))
        lo, hi = total // 10, total - total // 10
        mover = rig.mover(D, latency=2, bytes_per_cycle=64)
        kernel = rig.kernel(D, max_outstanding=1 << 30)  # only the bridge's credits limit
        host = None
        if host_load:
            lo_id, hi_id = rig.m.layout["ids"]["host"]
            host = HostController(dut, D, rig.m, max_outstanding=hi_id - lo_id + 1, valid="always")
            for i in range(2 * total):
                off = (i * 64) % rig.host.size
                host.submit(*rig.ends(D, HOST_BUS + off, FPGA_AT + off), 64)
        kernel_ids = rig.m.layout["ids"]["kernel"]
        at_mover: list[tuple[int, bool]] = []  # (dma edge, is a kernel descriptor)
        kernel_edges: list[int] = []

        def on_mover(word):
            ident = rig.mdesc.get(word, "id")
            is_kernel = kernel_ids[0] <= ident <= kernel_ids[1]
            at_mover.append((rig.dcount, is_kernel))
            if is_kernel:
                kernel_edges.append(rig.dcount)

        rig.on_mover = on_mover
        # Why the admission stage's mover queue did not hand a descriptor over, per dma cycle of the window.
        u = f"u_{D}.u_issue"
        probes = {"q_valid": f"{u}.q_valid", "credit_ok": f"{u}.u_credits_ok", "reject": f"{u}.reject_valid",
                  "d_valid": f"{u}.d_valid", "d_ready": f"{u}.d_ready"}
        why = {"handed_over": 0, "queue_empty_no_checked_word": 0, "queue_empty_no_credit": 0,
               "queue_empty_rejection_pending": 0, "queue_empty_other": 0,
               "queue_word_not_granted_or_mover_not_ready": 0, "unprobed": 0}

        async def diagnose():
            while True:
                await ReadOnly()
                v = {k: _probe(dut, p) for k, p in probes.items()}
                await RisingEdge(rig.d_clk)
                if not lo <= len(kernel_edges) < hi:
                    continue
                if None in v.values():
                    why["unprobed"] += 1
                elif v["d_valid"] and v["d_ready"]:
                    why["handed_over"] += 1
                elif v["d_valid"]:
                    why["queue_word_not_granted_or_mover_not_ready"] += 1
                elif not v["q_valid"]:
                    why["queue_empty_no_checked_word"] += 1
                elif not v["credit_ok"]:
                    why["queue_empty_no_credit"] += 1
                elif v["reject"]:
                    why["queue_empty_rejection_pending"] += 1
                else:
                    why["queue_empty_other"] += 1

        cocotb.start_soon(diagnose())
        for i in range(total):
            rig.add(kernel, i, 64)
        await rig.wait_statuses(kernel, f"{total} kernel descriptors", 50 * total)
        rig.check_failed(kernel)
        d0, d1 = kernel_edges[lo], kernel_edges[hi]
        kern = sum(1 for c, k in at_mover if d0 < c <= d1 and k)
        hst = sum(1 for c, k in at_mover if d0 < c <= d1 and not k)
        res = {
            "kernel_rate": kern / (d1 - d0), "host_rate": hst / (d1 - d0), "window_dma_cycles": d1 - d0,
            "window": f"kernel descriptors {lo}..{hi} of {total} at the mover",
            "kernel_in_window": kern, "host_in_window": hst, "mover_latency_cycles": mover.latency,
            "mover_statuses": mover.statuses, "kernel_statuses": kernel.received,
            "kernel_stage_per_dma_cycle": why,
        }
        if host is not None:
            res["host_sent"] = host.sent
            res["host_completed"] = host.completed
        rig.write(test, res)

    @cocotb.test(timeout_time=100, timeout_unit="ms")
    async def issue(dut):
        """Kernel channel always valid (the kernel itself never limits what is in flight), no host
        load, mover ready always, 64 B descriptors done 2 dma cycles after they arrive (one status
        per cycle): kernel descriptors per dma_clk cycle at the mover, over descriptors 200..1800 of
        2,000. Also counts, per dma cycle of that window, why the admission stage's mover queue did
        not hand one over (internal signals of u_rd.u_issue; "unprobed" where the build does not
        expose them)."""
        await _issue(dut, "issue", host_load=False)

    @cocotb.test(timeout_time=100, timeout_unit="ms")
    async def issue_host(dut):
        """As ``issue`` while the host controller also offers a descriptor in every cycle it may
        (ready latency 1): kernel and host descriptors per dma_clk cycle."""
        await _issue(dut, "issue_host", host_load=True)

    @cocotb.test(timeout_time=500, timeout_unit="ms")
    async def bandwidth(dut):
        """4 KB descriptors through a DataMover of ``mover_latency`` cycles and
        ``mover_bytes_per_cycle`` (a descriptor taken in cycle c starts at max(c + latency, end of
        the previous one): the latency of successive descriptors overlaps, as a read mover keeps
        many reads outstanding), the kernel keeping k = 1, 2, 4, 8, 16 descriptors in flight.
        Steady state: bytes completed between the mover's completion of descriptor w and of the
        last, over the dma cycles between, as a fraction of bytes_per_cycle."""
        rig = Rig(dut, "bandwidth")
        await rig.start()
        lat = int(rig.p.get("mover_latency", 250))
        bpc = int(rig.p.get("mover_bytes_per_cycle", 32))
        nbytes = int(rig.p.get("transfer_bytes", 4096))
        mover = rig.mover(D, latency=lat, bytes_per_cycle=bpc)
        kernel = rig.kernel(D, max_outstanding=1)
        per_k = {}
        n = 0
        for k in (1, 2, 4, 8, 16):
            kernel.max_outstanding = k
            count = max(12, 5 * k)  # descriptors in this run
            warm = max(2, k)  # completions skipped while the pipeline fills
            first = len(mover.log)
            for _ in range(count):
                rig.add(kernel, n, nbytes)
                n += 1
            await rig.wait_statuses(kernel, f"bandwidth k={k}", 4 * count * (lat + nbytes // bpc) + 2000)
            descs = mover.log[first:]
            assert len(descs) == count, (k, len(descs), count)
            done = [d.done_cycle for d in descs]
            steady = (count - 1 - warm) * nbytes / ((done[-1] - done[warm]) * bpc)
            per_k[str(k)] = {
                "fraction_of_peak": steady,
                # every descriptor of the run, from the first one's arrival at the mover to the last completion
                "fraction_of_peak_incl_fill": count * nbytes / ((done[-1] - descs[0].cycle) * bpc),
                "descriptors": count, "skipped_while_filling": warm,
                "window_dma_cycles": done[-1] - done[warm],
                "mean_mover_gap_cycles": (descs[-1].cycle - descs[0].cycle) / (count - 1),
            }
            for _ in range(10):
                await RisingEdge(rig.k_clk)
        rig.check_failed(kernel)
        rig.write("bandwidth", {"mover_latency_cycles": lat, "mover_bytes_per_cycle": bpc, "transfer_bytes": nbytes,
                                "per_inflight": per_k, "mover_bytes_moved": mover.bytes_moved})
