# SPDX-License-Identifier: Apache-2.0
"""The bridge with regions addressing (``preset=regions``): kernels name GPU memory by region.

The host programs the page table and the region table through the CSR (PAGE_INDEX, PAGE_LO,
PAGE_HI; REGION_SELECT, REGION_BYTES, REGION_CTRL), as the manifest lays them out. A kernel writes
one region request (manifest word ``cldesc_region``: region, offset, length, FPGA address, tag,
kind 1; a request of several entries sets ``more`` on all but the last) to a descriptor channel
and gets one status for it; the bridge's region walker splits it into mover descriptors at every
page discontinuity. The rig (:class:`direkt_sim.rig.BridgeRig`): a GPU of 64 KB pages at bus
addresses in random order (never two neighbours contiguous), both data movers, a kernel channel
a direction. Every test checks every byte moved against the models' memories.
bench/bridge_regions_measure.py measures the walker's rate through the bridge.
"""

from __future__ import annotations

import cocotb
import pytest
from cocotb.triggers import ClockCycles

from direkt_sim.pins import DIRECTIONS
from direkt_sim.rig import KB, MB, PAGE, BridgeRig, region_descriptors, run_bridge, timeout

TIMEOUT = timeout(2_000, 4_000)


def regions_rig(dut, name: str, gpu_pages: int, bytes_per_cycle: int = 256, latency: int = 16) -> BridgeRig:
    return BridgeRig(dut, name, gpu_pages=gpu_pages, mover_latency=latency, bytes_per_cycle=bytes_per_cycle)


@cocotb.test(**TIMEOUT)
async def copies(dut):
    """Requests of 4 B .. 3 MB at random offsets, both directions, queued back to back and several
    in flight: byte-exact, one status each with the request's tag and no error."""
    b = regions_rig(dut, "copies", gpu_pages=128)
    await b.start()
    await b.open_gpu_region(1)
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
        got = await b.statuses([b.request(t, 1, [(off, f, n)], tag) for off, n, f, tag in jobs])
        by_tag = {s.tag: s for s in got}
        assert sorted(by_tag) == sorted(j[3] for j in jobs), f"{t}: statuses {sorted(by_tag)}"
        for off, n, f, tag in jobs:
            assert by_tag[tag].error == 0, f"{t} {n} B at {off:#x}: error {b.m.error_name(by_tag[tag].error)}"
            moved = b.fpga.read(f, n) if t == "rd" else b.gpu.read(off, n)
            assert moved == before[(off, n)], f"{t} {n} B at GPU {off:#x}: bytes differ"
    b.check_models()


@cocotb.test(**TIMEOUT)
async def copy_64mb(dut):
    """One request of 64 MB over 1,024 pages in random order, each direction: one status, every
    byte checked, one mover descriptor per bus-contiguous run of at most 15 pages."""
    pages = 1024
    b = regions_rig(dut, "copy_64mb", gpu_pages=pages, bytes_per_cycle=4096, latency=32)
    await b.start()
    await b.open_gpu_region(3)
    n = pages * PAGE
    max_pages = 15
    for t in DIRECTIONS:
        mv = b.movers[t]
        log_before = len(mv.log)
        if t == "wr":
            b.fpga.write(0, b.rng.randbytes(n))
        source = b.gpu.read(0, n) if t == "rd" else b.fpga.read(0, n)
        tag = b.next_tag()
        (st,) = await b.statuses([b.request(t, 3, [(0, 0, n)], tag)], 4_000_000)
        assert st.tag == tag and st.error == 0, f"{t}: status {st}"
        moved = b.fpga.read(0, n) if t == "rd" else b.gpu.read(0, n)
        assert moved == source, f"{t}: 64 MB not byte-exact"
        descs = len(mv.log) - log_before
        assert descs == region_descriptors(b.gpu, 0, n, max_pages), f"{t}: {descs} mover descriptors"
    b.check_models()


@cocotb.test(**TIMEOUT)
async def strided_vectored(dut):
    """Strided requests (rows x row bytes, region and FPGA strides) and vectored requests (entries
    of any offset, FPGA address and length), each written as the header's builders write it: a
    check entry, then one entry a row or element, ``more`` set on all but the last; several in
    flight, both directions: one status each, the destination byte-exact against a copy made
    entry by entry in Python. A strided request whose last row crosses the region's end by 4
    bytes: one status (REGION_RANGE), no mover descriptor, no memory written."""
    b = regions_rig(dut, "strided_vectored", gpu_pages=64)
    await b.start()
    await b.open_gpu_region(1)
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
        got = {s.tag: s for s in await b.statuses([b.request(t, 1, moves, tag) for moves, tag in zip(placed, tags)])}
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
        (st,) = await b.statuses([b.request(t, 1, moves, tag)])
        assert st.tag == tag and st.error == b.m.error("REGION_RANGE"), f"{t}: {st}"
        await ClockCycles(dut.dma_clk, 50)
        assert {d: len(mv.log) for d, mv in b.movers.items()} == descs_before, f"{t}: a rejected request reached a mover"
        assert (b.fpga.writes, b.gpu.mem.writes) == writes_before, f"{t}: a rejected request wrote memory"
    b.check_models()


@cocotb.test(**TIMEOUT)
async def kernel_reset_mid_request(dut):
    """A kernel reset while a request of several entries waits for its next entry, both
    directions: the reset completes (the walker ends the request, ABORTED, and the handshake drops
    its status), the region is no longer busy, and the next kernel's request moves its bytes and
    gets its own status (nothing of the old request's)."""
    b = regions_rig(dut, "kernel_reset_mid_request", gpu_pages=16)
    await b.start()
    await b.open_gpu_region(1)
    for t in DIRECTIONS:
        # the first entry of a request of several (3 pages), its later entries never written
        old_tag = b.next_tag()
        if t == "wr":
            b.fpga.write(0x40_0000, b.rng.randbytes(3 * PAGE))
        old = b.request_entry(t, 1, 0, 3 * PAGE, 0x40_0000, old_tag, more=1)
        await ClockCycles(dut.dma_clk, 40)
        assert old.issued_cycle >= 0, f"{t}: the bridge did not take the request's first entry"
        await b.kernel_reset(3)
        # its first entry's pieces finish at the mover; then the region is free
        await b.csr.write("REGION_SELECT", 1)
        for _ in range(100):
            await ClockCycles(dut.dma_clk, 100)
            if (await b.csr.region_status())["busy"] == 0:
                break
        else:
            raise AssertionError(f"{t}: region still busy 10,000 cycles after the reset ended its request")
        # the next kernel: one request, its bytes moved, its own status (a status with the old
        # request's tag would be one nothing is in flight for: the kernel channel fails on it)
        tag = b.next_tag()
        off, n, fpga = 5 * PAGE + 64, 2 * PAGE, 0x80_0000
        if t == "wr":
            b.fpga.write(fpga, b.rng.randbytes(n))
        src = b.gpu.read(off, n) if t == "rd" else b.fpga.read(fpga, n)
        (st,) = await b.statuses([b.request(t, 1, [(off, fpga, n)], tag)])
        assert st.tag == tag and st.error == 0, f"{t}: after the reset: {st} (the old request's tag was {old_tag:#x})"
        moved = b.fpga.read(fpga, n) if t == "rd" else b.gpu.read(off, n)
        assert moved == src, f"{t}: the request after the reset moved other bytes"
    b.check_models()


@cocotb.test(**TIMEOUT)
async def rejections(dut):
    """Beyond the region's end, across it by 4 bytes, longer than the region, a direction the
    region does not allow, a closed region, a region number past the table, a raw descriptor
    (kind 0), reserved bits set, FPGA overrun, in both directions: the error code in the status and
    in LAST_ERROR, no mover descriptor, no memory written; a good request after them goes through."""
    b = regions_rig(dut, "rejections", gpu_pages=16)
    await b.start()
    size = 8 * PAGE
    await b.csr.write_pages(0, [b.gpu.bus(i * PAGE) for i in range(16)])
    await b.csr.write_region(1, size, 0)                  # both directions
    await b.csr.write_region(2, size, 0, rd=True, wr=False)
    await b.csr.write_region(3, size, 0, rd=False, wr=True)
    await b.csr.write_region(4, 0, 0)                      # closed
    fpga_top = b.fpga_size
    regions = int(b.m.bridge["regions"])
    for t in DIRECTIONS:
        wrong_dir = 3 if t == "rd" else 2
        cases = [
            ("REGION_RANGE", dict(region=1, offset=size, nbytes=4)),
            ("REGION_RANGE", dict(region=1, offset=size - 64, nbytes=68)),
            ("REGION_RANGE", dict(region=1, offset=0, nbytes=size + 4)),
            ("REGION", dict(region=wrong_dir, offset=0, nbytes=64)),
            ("REGION", dict(region=4, offset=0, nbytes=64)),
            ("REGION", dict(region=regions, offset=0, nbytes=64)),
            ("KIND", dict(region=1, offset=0, nbytes=64, kind=0)),
            ("RESERVED", dict(region=1, offset=0, nbytes=64, reserved=1)),
            ("RESERVED", dict(region=1, offset=0, nbytes=64, reserved_x4=1)),
            ("FPGA_RANGE", dict(region=1, offset=0, nbytes=64, fpga=fpga_top - 60)),
        ]
        descs_before = {d: len(mv.log) for d, mv in b.movers.items()}
        writes_before = (b.fpga.writes, b.gpu.mem.writes)
        jobs = []
        for name, c in cases:
            c = dict(c)
            fpga = c.pop("fpga", 0x2000)
            jobs.append(b.request_entry(t, c.pop("region"), c.pop("offset"), c.pop("nbytes"), fpga, b.next_tag(), **c))
        got = {s.tag: s for s in await b.statuses(jobs)}
        for (name, c), job in zip(cases, jobs):
            assert got[job.tag].error == b.m.error(name), (
                f"{t} {c}: error {b.m.error_name(got[job.tag].error)}, expected {name}")
        last = await b.csr.last_error()
        assert last["valid"] == 1 and last["wr"] == (t == "wr") and last["code"] == b.m.error(cases[-1][0]), last
        await ClockCycles(dut.dma_clk, 50)
        assert {d: len(mv.log) for d, mv in b.movers.items()} == descs_before, f"{t}: a rejected request reached a mover"
        assert (b.fpga.writes, b.gpu.mem.writes) == writes_before, f"{t}: a rejected request wrote memory"
        # and the path goes on: a good request after the rejections
        tag = b.next_tag()
        (st,) = await b.statuses([b.request(t, 1, [(0, 0x3000, 64)], tag)])
        assert st.tag == tag and st.error == 0, st


@cocotb.test(**TIMEOUT)
async def tables(dut):
    """The CSR reads back what was written; a page write into the range a request still has to
    walk is refused (REGION_STATUS.refused, PAGE_INDEX stays, later page writes store nothing until
    REGION_STATUS is written), as is one past the table; a page write elsewhere lands; the request
    moves the pages as they stood at its admission; REGION_STATUS.busy is high while a request on
    the selected region is in flight and low after; a closed region rejects (REGION)."""
    b = regions_rig(dut, "tables", gpu_pages=64, bytes_per_cycle=16, latency=64)
    await b.start()
    await b.open_gpu_region(5, first=100)
    table = int(b.m.bridge["region_pages"])
    assert await b.csr.read("PAGE_INDEX") == 164, "PAGE_INDEX did not step on after each stored page"
    ctrl = b.m.word("csr_region_ctrl").unpack(await b.csr.read("REGION_CTRL"))
    assert (ctrl["first"], ctrl["allow_rd"], ctrl["allow_wr"]) == (100, 1, 1), ctrl
    assert await b.csr.read("REGION_LENGTH") == b.gpu.size
    cfg = b.m.word("csr_config").unpack(await b.csr.read("CONFIG"))
    assert cfg["regions"] == 1 and cfg["window_entries"] == 0, cfg
    # a page past the table is refused
    await b.csr.write_pages(table, [0x1234_0000])
    st = await b.csr.region_status()
    assert st["refused"] == 1 and await b.csr.read("PAGE_INDEX") == table, st
    await b.csr.write("REGION_STATUS", 0)
    assert (await b.csr.region_status())["refused"] == 0
    # a long request walks (slow mover); a write to its last page is refused, one elsewhere lands
    n = b.gpu.size
    tag = b.next_tag()
    expect = b.gpu.read(0, n)
    job = b.request("rd", 5, [(0, 0, n)], tag)
    await ClockCycles(dut.dma_clk, 30)
    assert job.issued_cycle >= 0, "the bridge did not take the request"
    busy = (await b.csr.region_status())["busy"]
    await b.csr.write_pages(100 + 63, [0x7777_0000])
    refused = await b.csr.region_status()
    index_after = await b.csr.read("PAGE_INDEX")
    # while REGION_STATUS.refused is set, a page write stores nothing (PAGE_INDEX stays)
    await b.csr.write_pages(10, [0x8888_0000])
    index_while_refused = await b.csr.read("PAGE_INDEX")
    await b.csr.write("REGION_STATUS", 0)
    await b.csr.write_pages(10, [0x8888_0000])
    elsewhere = await b.csr.region_status()
    index_elsewhere = await b.csr.read("PAGE_INDEX")
    (st,) = await b.statuses([job], 4_000_000)
    await ClockCycles(dut.dma_clk, 10)
    idle = (await b.csr.region_status())["busy"]
    assert busy == 1, "REGION_STATUS.busy low while a request on the region was in flight"
    assert refused["refused"] == 1 and index_after == 163, "a page write into a walk's range was not refused"
    assert index_while_refused == 10, "a page write went through while REGION_STATUS.refused was set"
    assert elsewhere["refused"] == 0 and index_elsewhere == 11, "a page write outside every walk's range was refused"
    assert st.error == 0 and b.fpga.read(0, n) == expect, "the request did not move the pages as they stood at its admission"
    assert idle == 0, "REGION_STATUS.busy still high after the request's status"
    b.check_models()
    # closing the region: later requests are rejected
    await b.csr.write_region(5, 0, 100)
    (st,) = await b.statuses([b.request("wr", 5, [(0, 0, 64)], b.next_tag())])
    assert st.error == b.m.error("REGION"), st


CONFIGS = {
    "regions": ({"preset": "regions"}, {"kernel_ps": 4000, "dma_ps": 4000}),
    "regions_counters": ({"preset": "regions", "counters": "true", "word_order": "x0_high"}, {"kernel_ps": 5000, "dma_ps": 4000}),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_bridge_regions(name):
    """The bridge of the regions preset (with or without counters) passes every cocotb test above."""
    params, ratio = CONFIGS[name]
    run_bridge("bridge_regions", __file__, params, ratio)
