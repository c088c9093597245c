# SPDX-License-Identifier: Apache-2.0
"""The bridge with regions addressing (``preset=regions``): kernels name GPU memory by region.

The host programs the page table and the region table through the CSR (PAGE_INDEX, PAGE_LO,
PAGE_HI; REGION_SELECT, REGION_BYTES, REGION_CTRL), as the manifest lays them out. A kernel writes
one region request (manifest word ``cldesc_region``: region, offset, length, FPGA address, tag,
kind 1) to a descriptor channel and gets one status for it; the bridge's region walker splits it
into mover descriptors at every page discontinuity. The GPU is ``GpuBar``'s: 64 KB pages at bus
addresses in random order, never two neighbours contiguous. Every test checks every byte moved
against the models' memories.

``copies``              requests of 4 B .. 3 MB at random offsets, both directions, back to back
                        and several in flight, byte-exact; one status each with the request's tag
``copy_64mb``           one request of 64 MB over 1,024 pages in random order, each direction: one
                        status, every byte checked, one mover descriptor per page
``rejections``          beyond the region's end, across it by 4 bytes, longer than the region, a
                        direction the region does not allow, a closed region, a region number past
                        the table, a raw descriptor (kind 0), reserved bits set, FPGA overrun, in
                        both directions: the error code in the status and in LAST_ERROR, no mover
                        descriptor, no memory written
``strided_4k_rows``     (only with ``DIREKT_BRIDGE_MEASURE=<dir>``, bench/bridge.py) one strided request of
                        1,024 rows of 4 KB (region stride 8 KB, FPGA rows packed) over 1,024 randomly
                        ordered pages, the same figures, written to ``<dir>/strided_4k_rows.json``
``region_64mb_fragmented``  (only with ``DIREKT_BRIDGE_MEASURE=<dir>``, bench/bridge.py) one 64 MB request over
                        1,024 pages in random order through the bridge, the bench's mover model
                        (``mover_latency``, ``mover_bytes_per_cycle``): descriptors per cycle while the
                        walker held work and the mover could take a piece, cycles from request to
                        status, fraction of the mover's peak, written to ``<dir>/region_64mb_fragmented.json``
``strided_vectored``    strided requests (rows x row bytes, region and FPGA strides) and vectored
                        requests (entries of any offset, FPGA address and length), each written as the
                        header's builders write it: a check entry, then one entry a row or element,
                        ``more`` set on all but the last; several in flight, both directions: one status
                        each, the destination byte-exact against a copy made entry by entry in Python;
                        a strided request whose last row crosses the region's end by 4 bytes: one
                        status (REGION_RANGE), no mover descriptor, no memory written
``kernel_reset_mid_request``  a kernel reset while a request of several entries waits for its next
                        entry, both directions: the reset completes (the walker ends the request,
                        ABORTED, and the handshake drops its status), the region is no longer busy,
                        and the next kernel's request moves its bytes and gets its own status
``tables``              the CSR reads back what was written; a page write into the range a request
                        still has to walk is refused (REGION_STATUS.refused, PAGE_INDEX stays, later
                        page writes store nothing until REGION_STATUS is written), as is
                        one past the table; REGION_STATUS.busy is high while a request on the
                        selected region is in flight and low after
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
    DIRECTIONS, Csr, DataMover, GpuBar, KernelModel, Memory, PcieSpace, channel_cldesc, decode_status, dma_reset_pin,
    kernel_reset_pin, reset_bridge,
)
from direkt_sim.layout import load_manifest

REGRESS = regress_scale() > 1
MEASURE_DIR = os.environ.get("DIREKT_BRIDGE_MEASURE", "").strip()
TIMEOUT = dict(timeout_time=4_000 if REGRESS else 2_000, timeout_unit="ms")
GPU_BUS = 0x38_0000_0000
PAGE = 1 << 16
KB, MB = 1 << 10, 1 << 20


class Bench:
    def __init__(self, dut, name: str, gpu_pages: int, bytes_per_cycle: int = 256, latency: int = 16):
        self.dut = dut
        self.p = bench_params()
        self.m = load_manifest()
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.kper = int(self.p.get("kernel_ps", 4000))
        self.dper = int(self.p.get("dma_ps", 4000))
        self.fpga_size = int(self.m.bridge["fpga_mem_bytes"])
        self.fpga = Memory("fpga", size=self.fpga_size)
        self.gpu = GpuBar(GPU_BUS, gpu_pages, seed=self.rng.randrange(1 << 30))
        self.gpu.write(0, self.rng.randbytes(self.gpu.size))
        self.pcie = PcieSpace([self.gpu])
        self.csr = Csr(dut, self.m)
        self.bpc = bytes_per_cycle
        self.latency = latency
        self.movers: dict[str, DataMover] = {}
        self.kernels: dict[str, KernelModel] = {}
        self.pages = int(self.m.bridge["region_pages"])
        self.regions = int(self.m.bridge["regions"])
        self.tag = 0x1000

    async def start(self) -> None:
        dut = self.dut
        for t in DIRECTIONS:
            for s in ("desc_valid", "desc_data", "status_ready", "host_desc_valid", "host_desc_data",
                      "dma_desc_ready", "dma_status_valid", "dma_status_data"):
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
            self.movers[t] = DataMover(dut, t, self.m, self.pcie, self.fpga, latency=self.latency,
                                       bytes_per_cycle=self.bpc, seed=self.rng.randrange(1 << 30))
            self.kernels[t] = KernelModel(dut, t, self.m)
        await reset_bridge(dut, self.m, max(self.kper, self.dper))
        await ClockCycles(dut.dma_clk, 4)

    # ---- tables through the CSR
    async def write_pages(self, first: int, bus_addrs: list[int]) -> None:
        await self.csr.write("PAGE_INDEX", first)
        for bus in bus_addrs:
            await self.csr.write("PAGE_LO", bus & 0xFFFF_FFFF)
            await self.csr.write("PAGE_HI", bus >> 32)

    async def write_region(self, r: int, nbytes: int, first: int, rd: bool = True, wr: bool = True) -> None:
        ctrl = self.m.word("csr_region_ctrl").pack(first=first, allow_rd=int(rd), allow_wr=int(wr))
        await self.csr.write("REGION_SELECT", r)
        await self.csr.write("REGION_BYTES", nbytes)
        await self.csr.write("REGION_CTRL", ctrl)

    async def open_gpu(self, r: int = 1, first: int = 0, rd: bool = True, wr: bool = True) -> None:
        """Region r over every GPU page, in GPU order, from page table entry *first*."""
        await self.write_pages(first, [self.gpu.bus(i * PAGE) for i in range(self.gpu.pages)])
        await self.write_region(r, self.gpu.size, first, rd, wr)

    async def region_status(self) -> dict:
        return self.m.word("csr_region_status").unpack(await self.csr.read("REGION_STATUS"))

    # ---- kernel requests
    def request(self, region: int, offset: int, nbytes: int, fpga: int, tag: int, **extra) -> dict:
        f = dict(region=region, offset=offset, bytes=nbytes, fpga_lo=fpga & 0xFFFF_FFFF, fpga_hi=fpga >> 32, tag=tag,
                 kind=1)
        f.update(extra)
        return f

    async def send(self, t: str, fields: dict) -> None:
        """One region request on direction t's channel (the channel word from manifest word cldesc_region)."""
        # the channel word in the bridge's word order (the mapping is its own inverse)
        await self.kernels[t].send_word(channel_cldesc(self.m, self.m.word("cldesc_region").pack(**fields)))

    async def statuses(self, t: str, n: int, limit: int = 2_000_000) -> list:
        """The next n statuses of direction t (status ready held high)."""
        dut = self.dut
        valid = getattr(dut, f"{t}_status_valid")
        data = getattr(dut, f"{t}_status_data")
        ready = getattr(dut, f"{t}_status_ready")
        out = []
        await RisingEdge(dut.kernel_clk)
        ready.value = 1
        for _ in range(limit):
            await ReadOnly()
            if int(valid.value) == 1:
                out.append(decode_status(self.m, data.value.integer))
            await RisingEdge(dut.kernel_clk)
            if len(out) == n:
                break
        ready.value = 0
        assert len(out) == n, f"{t}: {len(out)} of {n} statuses within {limit} kernel cycles"
        return out

    def next_tag(self) -> int:
        self.tag += 1
        return self.tag


def expected_descriptors(gpu: GpuBar, offset: int, nbytes: int, max_pages: int) -> int:
    """Mover descriptors for GPU [offset, +nbytes): one per bus-contiguous run, split every max_pages pages."""
    return sum(-(-n // (max_pages * PAGE)) if n > max_pages * PAGE else 1 for _, n in gpu.segments(offset, nbytes))


@cocotb.test(**TIMEOUT)
async def copies(dut):
    b = Bench(dut, "copies", gpu_pages=128)
    await b.start()
    await b.open_gpu(r=1)
    sizes = [4, 64, 4 * KB, PAGE - 4, PAGE + 4, 3 * PAGE + 8, MB, 3 * MB]
    for t in DIRECTIONS:
        # disjoint GPU ranges at random gaps (and offsets inside a page), in random order
        jobs = []
        fpga_at = 0x1000_0000
        gpu_at = 0
        for n in sizes:
            gpu_at += b.rng.randrange(0, 2 * PAGE) & ~3
            jobs.append((gpu_at, n, fpga_at, b.next_tag()))
            gpu_at += n
            fpga_at += (n + 0xFFF) & ~0xFFF
        assert gpu_at <= b.gpu.size
        b.rng.shuffle(jobs)
        if t == "wr":
            for off, n, f, _ in jobs:
                b.fpga.write(f, b.rng.randbytes(n))
        before = {(o, n): (b.gpu.read(o, n) if t == "rd" else b.fpga.read(f, n)) for o, n, f, _ in jobs}
        sender = cocotb.start_soon(_send_all(b, t, jobs))
        got = await b.statuses(t, len(jobs))
        await sender
        by_tag = {s.tag: s for s in got}
        assert sorted(by_tag) == sorted(j[3] for j in jobs), f"{t}: statuses {sorted(by_tag)}"
        for off, n, f, tag in jobs:
            assert by_tag[tag].error == 0, f"{t} {n} B at {off:#x}: error {b.m.error_name(by_tag[tag].error)}"
            moved = b.fpga.read(f, n) if t == "rd" else b.gpu.read(off, n)
            assert moved == before[(off, n)], f"{t} {n} B at GPU {off:#x}: bytes differ"
    for mv in b.movers.values():
        assert not mv.errors, mv.errors


async def _send_all(b: Bench, t: str, jobs) -> None:
    for off, n, f, tag in jobs:
        await b.send(t, b.request(1, off, n, f, tag))


@cocotb.test(**TIMEOUT)
async def copy_64mb(dut):
    pages = 1024
    b = Bench(dut, "copy_64mb", gpu_pages=pages, bytes_per_cycle=4096, latency=32)
    await b.start()
    await b.open_gpu(r=3)
    n = pages * PAGE
    max_pages = 15
    for t in DIRECTIONS:
        mv = b.movers[t]
        log_before = len(mv.log)
        if t == "wr":
            b.fpga.write(0, b.rng.randbytes(n))
        source = b.gpu.read(0, n) if t == "rd" else b.fpga.read(0, n)
        tag = b.next_tag()
        await b.send(t, b.request(3, 0, n, 0, tag))
        (st,) = await b.statuses(t, 1, limit=4_000_000)
        assert st.tag == tag and st.error == 0, f"{t}: status {st}"
        moved = b.fpga.read(0, n) if t == "rd" else b.gpu.read(0, n)
        assert moved == source, f"{t}: 64 MB not byte-exact"
        descs = len(mv.log) - log_before
        assert descs == expected_descriptors(b.gpu, 0, n, max_pages), f"{t}: {descs} mover descriptors"
        assert not mv.errors, mv.errors


async def measure_request(b: Bench, name: str, send, n: int, expected_pieces: int, extra: dict) -> dict:
    """Runs one GPU->FPGA request (send() writes it on the rd channel) measured at the walker: dma_clk cycles
    from the one in which the walker takes its first entry to its status's hand-over; "can": the walker
    holds work (walking) and the mover side could take a piece (the arbiter's ready and a free piece
    ID); "fire": a piece handed over then. Writes <MEASURE_DIR>/<name>.json."""
    dut = b.dut
    walker = dut.u_rd.u_walker
    counts = {"can": 0, "fire": 0, "cycles": 0}
    state = {"started": False, "done": False}

    async def watch():
        while not state["done"]:
            await RisingEdge(dut.dma_clk)
            await ReadOnly()
            if not state["started"] and int(walker.req_valid.value) and int(walker.req_ready.value):
                state["started"] = True
            if state["started"]:
                counts["cycles"] += 1
                busy = any(int(getattr(walker, s).value) for s in
                           ("w_busy", "r0_valid", "r1_valid", "chunk_head_valid", "c_valid", "o_valid")) or int(walker.chunk_fill.value)
                if busy and int(walker.dma_desc_ready.value) and int(walker.u_ids_any_free.value):
                    counts["can"] += 1
                    counts["fire"] += int(walker.handover.value)
                if int(walker.st_valid.value):
                    state["done"] = True

    mv = b.movers["rd"]
    log_before = len(mv.log)
    cocotb.start_soon(watch())
    tag = b.next_tag()
    sender = cocotb.start_soon(send(tag))
    (st,) = await b.statuses("rd", 1, limit=8_000_000)
    await sender
    state["done"] = True
    assert st.tag == tag and st.error == 0, f"{name}: status {st}"
    assert not mv.errors, mv.errors
    bpc = b.bpc
    res = {
        "bytes": n, "pieces": len(mv.log) - log_before, "statuses": 1, "byte_exact": True,
        "desc_per_cycle_when_mover_can_take": counts["fire"] / max(1, counts["can"]),
        "cycles_request_to_status": counts["cycles"], "status_elapsed_cycles": st.elapsed,
        "mover_latency_cycles": b.latency, "mover_bytes_per_cycle": bpc,
        "fraction_of_mover_peak": n / (counts["cycles"] * bpc),
        "mover_busy_fraction": mv.busy_cycles / max(1, counts["cycles"]),
        "preset": "regions", "direction": "rd (GPU->FPGA)", **extra,
    }
    dut._log.info("%s: %s", name, res)
    assert res["pieces"] == expected_pieces, f"{name}: {res['pieces']} mover descriptors, {expected_pieces} expected"
    Path(MEASURE_DIR).mkdir(parents=True, exist_ok=True)
    (Path(MEASURE_DIR) / f"{name}.json").write_text(json.dumps(res, indent=2) + "\n")
    return res


if MEASURE_DIR:

    def _measure_bench(dut, name: str) -> Bench:
        p = bench_params()
        return Bench(dut, name, gpu_pages=1024, bytes_per_cycle=int(p.get("mover_bytes_per_cycle", 32)),
                     latency=int(p.get("mover_latency", 250)))

    @cocotb.test(**TIMEOUT)
    async def region_64mb_fragmented(dut):
        """One 64 MB request (GPU->FPGA) over 1,024 randomly ordered pages, measured at the bridge's pins and its walker."""
        b = _measure_bench(dut, "region_64mb_fragmented")
        await b.start()
        await b.open_gpu(r=2)
        n = b.gpu.pages * PAGE
        source = b.gpu.read(0, n)

        async def send(tag):
            await b.send("rd", b.request(2, 0, n, 0, tag))

        await measure_request(b, "region_64mb_fragmented", send, n, expected_descriptors(b.gpu, 0, n, 15),
                              {"pages": b.gpu.pages})
        assert b.fpga.read(0, n) == source, "64 MB not byte-exact"

    STRIDED_ROWS = 1024
    STRIDED_ROW_BYTES = 4 * KB
    STRIDED_REGION_STRIDE = 8 * KB

    @cocotb.test(**TIMEOUT)
    async def strided_4k_rows(dut):
        """One strided request (GPU->FPGA): 1,024 rows of 4 KB, every other 4 KB of a region of 1,024 randomly
        ordered pages, packed densely into FPGA memory; its check entry and rows written as the header's
        builder writes them."""
        b = _measure_bench(dut, "strided_4k_rows")
        await b.start()
        await b.open_gpu(r=2)
        rows, rb, rs = STRIDED_ROWS, STRIDED_ROW_BYTES, STRIDED_REGION_STRIDE
        moves = [(r * rs, r * rb, rb) for r in range(rows)]
        want = b"".join(b.gpu.read(o, n) for o, _, n in moves)

        async def send(tag):
            await send_entries(b, "rd", 2, moves, tag)

        # a 4 KB row at a multiple of 8 KB never crosses a page: one mover descriptor a row
        await measure_request(b, "strided_4k_rows", send, rows * rb, rows,
                              {"rows": rows, "row_bytes": rb, "region_stride": rs, "fpga_stride": rb, "entries": rows + 1})
        assert b.fpga.read(0, rows * rb) == want, "strided rows not byte-exact"


def check_entry(moves: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The check entry a builder writes first: (offset, FPGA address, bytes) ending where the request's
    last byte ends, in the region and in FPGA memory (ranges start at 0: every entry is inside then)."""
    end = max(o + n for o, _, n in moves)
    fend = max(f + n for _, f, n in moves)
    return (min(end - 4, 0xFFFF_FFFC), fend - 4, 4)


async def send_entries(b: Bench, t: str, region: int, moves: list[tuple[int, int, int]], tag: int) -> None:
    """One request of several entries on direction t's channel: its check entry, then the moves."""
    entries = [check_entry(moves) + (1,)] + [m + (0,) for m in moves]
    for i, (o, f, n, check) in enumerate(entries):
        await b.send(t, b.request(region, o, n, f, tag, more=int(i < len(entries) - 1), check=check))


@cocotb.test(**TIMEOUT)
async def strided_vectored(dut):
    b = Bench(dut, "strided_vectored", gpu_pages=64)
    await b.start()
    await b.open_gpu(r=1)
    size = b.gpu.size
    for t in DIRECTIONS:
        rd = t == "rd"
        jobs = []
        # strided: rows x row bytes, region stride, FPGA stride (destination rows never overlap)
        for rows, rb, rs, fs in [(16, 4 * KB, 3 * PAGE // 2, 4 * KB), (64, 256, 1024, 512), (5, PAGE + 4, PAGE + 64, 2 * PAGE),
                                 (3, 1000 * 4, 0 if rd else 4096, 8192 if rd else 0)]:
            jobs.append([(r * rs, r * fs, rb) for r in range(rows)])
        # vectored: entries of any length at any offset
        for k in range(3):
            jobs.append([(b.rng.randrange(0, size - 70_000) & ~3, 0, b.rng.choice([4, 60, 4096, PAGE, 70_000])) for _ in range(6)])
        # place each request's ranges: GPU ranges of a request spread out, destinations disjoint across requests
        placed = []
        gpu_at, fpga_at = 0, 0x100_0000
        for j, moves in enumerate(jobs):
            if j < 4:  # strided: shift the whole request
                off0 = gpu_at
                moves = [(off0 + o, fpga_at + f, n) for o, f, n in moves]
            else:
                if rd:
                    moves = [(o, fpga_at + sum(n2 + 64 for _, _, n2 in moves[:i]), n) for i, (o, _, n) in enumerate(moves)]
                else:  # FPGA->GPU: the GPU ranges are the destination, lay them out apart
                    moves = [(gpu_at + sum(n2 + 4096 for _, _, n2 in moves[:i]), fpga_at + 128 * i, n) for i, (_, _, n) in enumerate(moves)]
            assert max(o + n for o, _, n in moves) <= size
            placed.append(moves)
            gpu_at = (max(o + n for o, _, n in moves) + 4096) & ~3 if (not rd or j < 4) else gpu_at
            fpga_at = (max(f + n for _, f, n in moves) + 4096) & ~0xFFF
        if not rd:
            for moves in placed:
                for _, f, n in moves:
                    b.fpga.write(f, b.rng.randbytes(n))
        # the destination of every request as Python copies it, entry by entry
        src = b.gpu if rd else b.fpga
        dst = b.fpga if rd else b.gpu
        wants = []
        for moves in placed:
            lo = min(f if rd else o for o, f, _ in moves)
            hi = max((f if rd else o) + n for o, f, n in moves)
            want = bytearray(dst.read(lo, hi - lo))
            for o, f, n in moves:
                s_at, d_at = (o, f) if rd else (f, o)
                want[d_at - lo:d_at - lo + n] = src.read(s_at, n)
            wants.append((lo, bytes(want)))
        tags = [b.next_tag() for _ in placed]

        async def send_jobs():
            for moves, tag in zip(placed, tags):
                await send_entries(b, t, 1, moves, tag)

        sender = cocotb.start_soon(send_jobs())
        got = {s.tag: s for s in await b.statuses(t, len(placed))}
        await sender
        assert sorted(got) == sorted(tags), f"{t}: statuses {sorted(got)}: one per request expected"
        for i, tag in enumerate(tags):
            assert got[tag].error == 0, f"{t} request {i}: error {b.m.error_name(got[tag].error)}"
            lo, want = wants[i]
            assert dst.read(lo, len(want)) == want, f"{t} request {i} ({len(placed[i])} entries): bytes differ"
        # a strided request whose last row crosses the region's end by 4 bytes: nothing moves
        descs_before = {d: len(mv.log) for d, mv in b.movers.items()}
        writes_before = (b.fpga.writes, b.gpu.mem.writes)
        moves = [(size + 4 - 64 - r2 * 4096, 0x2000 + 64 * (199 - r2), 64) for r2 in range(199, -1, -1)]
        tag = b.next_tag()
        await send_entries(b, t, 1, moves, tag)
        (st,) = await b.statuses(t, 1)
        assert st.tag == tag and st.error == b.m.error("REGION_RANGE"), f"{t}: {st}"
        await ClockCycles(dut.dma_clk, 50)
        assert {d: len(mv.log) for d, mv in b.movers.items()} == descs_before, f"{t}: a rejected request reached a mover"
        assert (b.fpga.writes, b.gpu.mem.writes) == writes_before, f"{t}: a rejected request wrote memory"
    for mv in b.movers.values():
        assert not mv.errors, mv.errors


@cocotb.test(**TIMEOUT)
async def kernel_reset_mid_request(dut):
    b = Bench(dut, "kernel_reset_mid_request", gpu_pages=16)
    await b.start()
    await b.open_gpu(r=1)
    kr, kv = kernel_reset_pin(dut, b.m)
    for t in DIRECTIONS:
        # the first entry of a request of several (3 pages), its later entries never written
        old_tag = b.next_tag()
        if t == "wr":
            b.fpga.write(0x40_0000, b.rng.randbytes(3 * PAGE))
        await b.send(t, b.request(1, 0, 3 * PAGE, 0x40_0000, old_tag, more=1))
        await ClockCycles(dut.dma_clk, 40)
        await RisingEdge(dut.kernel_clk)
        kr.value = kv
        await ClockCycles(dut.kernel_clk, 3)
        kr.value = 1 - kv
        # its first entry's pieces finish at the mover; then the region is free
        await b.csr.write("REGION_SELECT", 1)
        for _ in range(100):
            await ClockCycles(dut.dma_clk, 100)
            if (await b.region_status())["busy"] == 0:
                break
        else:
            raise AssertionError(f"{t}: region still busy 10,000 cycles after the reset ended its request")
        # the next kernel: one request, its bytes moved, its own status (nothing of the old request's)
        tag = b.next_tag()
        off, n, fpga = 5 * PAGE + 64, 2 * PAGE, 0x80_0000
        if t == "wr":
            b.fpga.write(fpga, b.rng.randbytes(n))
        src = b.gpu.read(off, n) if t == "rd" else b.fpga.read(fpga, n)
        await b.send(t, b.request(1, off, n, fpga, tag))
        (st,) = await b.statuses(t, 1)
        assert st.tag == tag and st.error == 0, f"{t}: after the reset: {st} (the old request's tag was {old_tag:#x})"
        moved = b.fpga.read(fpga, n) if t == "rd" else b.gpu.read(off, n)
        assert moved == src, f"{t}: the request after the reset moved other bytes"
    for mv in b.movers.values():
        assert not mv.errors, mv.errors


@cocotb.test(**TIMEOUT)
async def rejections(dut):
    b = Bench(dut, "rejections", gpu_pages=16)
    await b.start()
    size = 8 * PAGE
    await b.write_pages(0, [b.gpu.bus(i * PAGE) for i in range(16)])
    await b.write_region(1, size, 0)                  # both directions
    await b.write_region(2, size, 0, rd=True, wr=False)
    await b.write_region(3, size, 0, rd=False, wr=True)
    await b.write_region(4, 0, 0)                      # closed
    fpga_top = b.fpga_size
    for t in DIRECTIONS:
        wrong_dir = 3 if t == "rd" else 2
        cases = [
            ("REGION_RANGE", dict(region=1, offset=size, nbytes=4)),
            ("REGION_RANGE", dict(region=1, offset=size - 64, nbytes=68)),
            ("REGION_RANGE", dict(region=1, offset=0, nbytes=size + 4)),
            ("REGION", dict(region=wrong_dir, offset=0, nbytes=64)),
            ("REGION", dict(region=4, offset=0, nbytes=64)),
            ("REGION", dict(region=b.regions, offset=0, nbytes=64)),
            ("KIND", dict(region=1, offset=0, nbytes=64, kind=0)),
            ("RESERVED", dict(region=1, offset=0, nbytes=64, reserved=1)),
            ("RESERVED", dict(region=1, offset=0, nbytes=64, reserved_x4=1)),
            ("FPGA_RANGE", dict(region=1, offset=0, nbytes=64, fpga=fpga_top - 60)),
        ]
        descs_before = {d: len(mv.log) for d, mv in b.movers.items()}
        writes_before = (b.fpga.writes, b.gpu.mem.writes)
        tags = []
        for name, c in cases:
            c = dict(c)
            fpga = c.pop("fpga", 0x2000)
            tag = b.next_tag()
            tags.append(tag)
            await b.send(t, b.request(c.pop("region"), c.pop("offset"), c.pop("nbytes"), fpga, tag, **c))
        got = {s.tag: s for s in await b.statuses(t, len(cases))}
        for (name, c), tag in zip(cases, tags):
            assert got[tag].error == b.m.error(name), (
                f"{t} {c}: error {b.m.error_name(got[tag].error)}, expected {name}")
        last = b.m.word("csr_last_error").unpack(await b.csr.read("LAST_ERROR"))
        assert last["valid"] == 1 and last["wr"] == (t == "wr") and last["code"] == b.m.error(cases[-1][0]), last
        await ClockCycles(dut.dma_clk, 50)
        assert {d: len(mv.log) for d, mv in b.movers.items()} == descs_before, f"{t}: a rejected request reached a mover"
        assert (b.fpga.writes, b.gpu.mem.writes) == writes_before, f"{t}: a rejected request wrote memory"
        # and the path goes on: a good request after the rejections
        tag = b.next_tag()
        await b.send(t, b.request(1, 0, 64, 0x3000, tag))
        (st,) = await b.statuses(t, 1)
        assert st.tag == tag and st.error == 0, st


@cocotb.test(**TIMEOUT)
async def tables(dut):
    b = Bench(dut, "tables", gpu_pages=64, bytes_per_cycle=16, latency=64)
    await b.start()
    await b.open_gpu(r=5, first=100)
    assert await b.csr.read("PAGE_INDEX") == 164, "PAGE_INDEX did not step on after each stored page"
    ctrl = b.m.word("csr_region_ctrl").unpack(await b.csr.read("REGION_CTRL"))
    assert (ctrl["first"], ctrl["allow_rd"], ctrl["allow_wr"]) == (100, 1, 1), ctrl
    assert await b.csr.read("REGION_LENGTH") == b.gpu.size
    cfg = b.m.word("csr_config").unpack(await b.csr.read("CONFIG"))
    assert cfg["regions"] == 1 and cfg["window_entries"] == 0, cfg
    # a page past the table is refused
    await b.write_pages(b.pages, [0x1234_0000])
    st = await b.region_status()
    assert st["refused"] == 1 and await b.csr.read("PAGE_INDEX") == b.pages, st
    await b.csr.write("REGION_STATUS", 0)
    assert (await b.region_status())["refused"] == 0
    # a long request walks (slow mover); a write to its last page is refused, one elsewhere lands
    n = b.gpu.size
    tag = b.next_tag()
    expect = b.gpu.read(0, n)
    await b.send("rd", b.request(5, 0, n, 0, tag))
    await ClockCycles(dut.dma_clk, 30)
    busy = (await b.region_status())["busy"]
    await b.write_pages(100 + 63, [0x7777_0000])
    refused = await b.region_status()
    index_after = await b.csr.read("PAGE_INDEX")
    # while REGION_STATUS.refused is set, a page write stores nothing (PAGE_INDEX stays)
    await b.write_pages(10, [0x8888_0000])
    index_while_refused = await b.csr.read("PAGE_INDEX")
    await b.csr.write("REGION_STATUS", 0)
    await b.write_pages(10, [0x8888_0000])
    elsewhere = await b.region_status()
    index_elsewhere = await b.csr.read("PAGE_INDEX")
    (st,) = await b.statuses("rd", 1, limit=4_000_000)
    await ClockCycles(dut.dma_clk, 10)
    idle = (await b.region_status())["busy"]
    assert busy == 1, "REGION_STATUS.busy low while a request on the region was in flight"
    assert refused["refused"] == 1 and index_after == 163, "a page write into a walk's range was not refused"
    assert index_while_refused == 10, "a page write went through while REGION_STATUS.refused was set"
    assert elsewhere["refused"] == 0 and index_elsewhere == 11, "a page write outside every walk's range was refused"
    assert st.error == 0 and b.fpga.read(0, n) == expect, "the request did not move the pages as they stood at its admission"
    assert idle == 0, "REGION_STATUS.busy still high after the request's status"
    assert not any(mv.errors for mv in b.movers.values())
    # closing the region: later requests are rejected
    await b.write_region(5, 0, 100)
    tag = b.next_tag()
    await b.send("wr", b.request(5, 0, 64, 0, tag))
    (st,) = await b.statuses("wr", 1)
    assert st.error == b.m.error("REGION"), st


CONFIGS = {
    "regions": ({"preset": "regions"}, {"kernel_ps": 4000, "dma_ps": 4000}),
    "regions_counters": ({"preset": "regions", "counters": "true", "word_order": "x0_high"}, {"kernel_ps": 5000, "dma_ps": 4000}),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_bridge_regions(name):
    params, ratio = CONFIGS[name]
    run_bench(
        bench="bridge_regions",
        example="bridge",
        module=Path(__file__).stem,
        params=params,
        run_params=ratio,
        expected_top="direkt_bridge",
        emitter="generators",
    )
