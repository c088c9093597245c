# SPDX-License-Identifier: Apache-2.0
"""cocotb measurements of the region walker inside the bridge, for bench/bridge.py (not a regression bench).

bench/bridge.py runs this module through the benches' harness (direkt_sim.run_bench) on
``preset=regions`` at 1:1 clocks with its mover model (run parameters ``mover_latency``,
``mover_bytes_per_cycle``) and ``DIREKT_BRIDGE_MEASURE=<dir>``; each test writes ``<dir>/<test>.json``.
The rig is the regression bench's (:class:`direkt_sim.rig.BridgeRig`: a GPU of 1,024 pages at bus
addresses in random order, both data movers, a kernel channel a direction); a request goes GPU->FPGA
(``rd``) and is measured at the walker's pins (``u_rd.u_walker``): dma_clk cycles from the one in
which the walker takes its first entry to its status's hand-over; "can": the walker holds work
(walking) and the mover side could take a piece (the arbiter's ready and a free piece ID); "fire":
a piece handed over then.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from direkt_sim import bench_params
from direkt_sim.rig import KB, BridgeRig, region_descriptors

MEASURE_DIR = os.environ.get("DIREKT_BRIDGE_MEASURE", "").strip()
TIMEOUT = dict(timeout_time=2_000, timeout_unit="ms")
STRIDED_ROWS = 1024
STRIDED_ROW_BYTES = 4 * KB
STRIDED_REGION_STRIDE = 8 * KB


async def measure_request(b: BridgeRig, name: str, moves: list[tuple[int, int, int]], expected_pieces: int,
                          extra: dict) -> dict:
    """Runs one GPU->FPGA request of *moves* (region 2) measured at the walker; writes <MEASURE_DIR>/<name>.json."""
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
    (st,) = await b.statuses([b.request("rd", 2, moves, tag)], 8_000_000)
    state["done"] = True
    assert st.tag == tag and st.error == 0, f"{name}: status {st}"
    b.check_models()
    n = sum(nbytes for _, _, nbytes in moves)
    res = {
        "bytes": n, "pieces": len(mv.log) - log_before, "statuses": 1, "byte_exact": True,
        "desc_per_cycle_when_mover_can_take": counts["fire"] / max(1, counts["can"]),
        "cycles_request_to_status": counts["cycles"], "status_elapsed_cycles": st.elapsed,
        "mover_latency_cycles": b.mover_latency, "mover_bytes_per_cycle": b.bpc,
        "fraction_of_mover_peak": n / (counts["cycles"] * b.bpc),
        "mover_busy_fraction": mv.busy_cycles / max(1, counts["cycles"]),
        "preset": "regions", "direction": "rd (GPU->FPGA)", **extra,
    }
    dut._log.info("%s: %s", name, res)
    assert res["pieces"] == expected_pieces, f"{name}: {res['pieces']} mover descriptors, {expected_pieces} expected"
    Path(MEASURE_DIR).mkdir(parents=True, exist_ok=True)
    (Path(MEASURE_DIR) / f"{name}.json").write_text(json.dumps(res, indent=2) + "\n")
    return res


async def measure_rig(dut, name: str) -> BridgeRig:
    """The bridge with 1,024 GPU pages in region 2, the mover model of the run parameters."""
    p = bench_params()
    b = BridgeRig(dut, name, gpu_pages=1024, bytes_per_cycle=int(p.get("mover_bytes_per_cycle", 32)),
                  mover_latency=int(p.get("mover_latency", 250)))
    await b.start()
    await b.open_gpu_region(2)
    return b


@cocotb.test(**TIMEOUT)
async def region_64mb_fragmented(dut):
    """One 64 MB request (GPU->FPGA) over 1,024 randomly ordered pages: descriptors per cycle
    while the walker held work and the mover could take a piece, cycles from request to status,
    fraction of the mover's peak; one mover descriptor per bus-contiguous run, byte-exact."""
    b = await measure_rig(dut, "region_64mb_fragmented")
    n = b.gpu.size
    source = b.gpu.read(0, n)
    await measure_request(b, "region_64mb_fragmented", [(0, 0, n)], region_descriptors(b.gpu, 0, n, 15),
                          {"pages": b.gpu.pages})
    assert b.fpga.read(0, n) == source, "64 MB not byte-exact"


@cocotb.test(**TIMEOUT)
async def strided_4k_rows(dut):
    """One strided request (GPU->FPGA): 1,024 rows of 4 KB, every other 4 KB of a region of 1,024
    randomly ordered pages, packed densely into FPGA memory; its check entry and rows written as
    the header's builder writes them; the same figures; one mover descriptor a row, byte-exact."""
    b = await measure_rig(dut, "strided_4k_rows")
    rows, rb, rs = STRIDED_ROWS, STRIDED_ROW_BYTES, STRIDED_REGION_STRIDE
    moves = [(r * rs, r * rb, rb) for r in range(rows)]
    want = b"".join(b.gpu.read(o, n) for o, _, n in moves)
    # a 4 KB row at a multiple of 8 KB never crosses a page: one mover descriptor a row
    await measure_request(b, "strided_4k_rows", moves, rows,
                          {"rows": rows, "row_bytes": rb, "region_stride": rs, "fpga_stride": rb, "entries": rows + 1})
    assert b.fpga.read(0, rows * rb) == want, "strided rows not byte-exact"
