# SPDX-License-Identifier: Apache-2.0
"""Several kernel ports per direction (``ports=4``): each port is a descriptor and a status channel
of its own (``rd``, ``rd_p1``, ``rd_p2``, ``rd_p3``; the same for ``wr``), with its own credits and
tags; the ports share the direction's region walker through the generated arbiter. The rig
(:class:`direkt_sim.rig.BridgeRig`) puts a kernel channel on every port, the data movers and a GPU
BAR of scattered pages around it. bench/bridge_ports_measure.py measures the arbiter's fairness.
"""

from __future__ import annotations

import random

import cocotb
import pytest
from cocotb.triggers import ClockCycles

from direkt_sim.layout import load_manifest
from direkt_sim.pins import DIRECTIONS
from direkt_sim.rig import KB, PAGE, REGRESS, STATUS_GAP, BridgeRig, check_fairness, port_fairness, run_bridge, timeout

TIMEOUT = timeout(2_000, 4_000)
VERILATOR = "verilator" in str(cocotb.SIM_NAME).lower()
# requests per port and direction in ``traffic``
REQUESTS = 400 if REGRESS else 40 if VERILATOR else 12
# one-entry requests per port in ``fairness``
FAIR_REQUESTS = 2_000 if REGRESS else 300 if VERILATOR else 60


def ports_rig(dut, name: str, gpu_pages: int) -> BridgeRig:
    return BridgeRig(dut, name, gpu_pages=gpu_pages, mover_latency=16, bytes_per_cycle=256)


@cocotb.test(**TIMEOUT)
async def traffic(dut):
    """Four ports per direction, both directions at once, send region requests (single entries and
    requests of several entries: a check entry, then the moves, ``more`` set on all but the last)
    with the same tags on every port; every port reads its statuses under random back-pressure,
    and port 3 reads none until ports 0..2 have all of theirs. Every port gets exactly one status
    per request, with its own tag and no error (a status sent to the wrong port shows as a tag
    missing on one port and doubled on another); ports 0..2 finish while port 3 is stalled; every
    destination byte-exact; afterwards no port shows another status."""
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
    b = ports_rig(dut, "traffic", gpu_pages=wr_pages + rd_pages)
    await b.start()
    await b.open_gpu_region(1)
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

    # Only the bridge's credits limit what a port has in flight.
    chans = {key: b.kernel(*key, status_ready="p60", max_outstanding=1 << 30, seed=b.rng.randrange(1 << 30))
             for key in plans}
    for (t, k), reqs in plans.items():
        chans[(t, k)].status_held = k == n_ports - 1
        for moves, tag in reqs:
            b.request(t, 1, moves, tag, port=k)
    for t in DIRECTIONS:
        for k in range(n_ports - 1):
            await chans[(t, k)].drain(timeout_cycles=4_000_000, gap_cycles=STATUS_GAP)
        # ports 0..n-2 have every status while port n-1 has read none
        stalled = chans[(t, n_ports - 1)]
        assert stalled.received == 0, f"{stalled.name}: the stalled port read a status early"
        stalled.status_held = False
    for ch in chans.values():
        await ch.drain(timeout_cycles=4_000_000, gap_cycles=STATUS_GAP)
    for (t, k), reqs in plans.items():
        ch = chans[(t, k)]
        tags = sorted(j.status.tag for j in ch.done)
        assert tags == [tag for _, tag in reqs], f"{ch.name}: tags {tags[:12]}...: one status per request expected"
        bad = [j.status for j in ch.done if j.status.error != 0]
        assert not bad, f"{ch.name}: {bad[0]} ({b.m.error_name(bad[0].error)})"
    for t, k, dst, at, want in wants:
        assert dst.read(at, len(want)) == want, f"{chans[(t, k)].name}: {len(want)} B at {at:#x} differ"
    # nothing more arrives on any port (a status now is one nothing is in flight for: the channel fails)
    for ch in chans.values():
        ch.set_status_ready("always")
    await ClockCycles(dut.kernel_clk, 300)
    b.check_models()


@cocotb.test(**TIMEOUT)
async def fairness(dut):
    """The four rd ports saturate the arbiter with one-entry requests, statuses read at once: at
    the arbiter (its pins in ``u_rd.u_rd_ports``) the grants to other ports between a port's
    request and its grant never exceed the policy's bound (round robin: 3; weighted: the sum of the
    other ports' weights), and every port is granted; every status comes back on its own port."""
    b = ports_rig(dut, "fairness", gpu_pages=16)
    await b.start()
    await b.open_gpu_region(1)
    result = await port_fairness(b, FAIR_REQUESTS)
    dut._log.info("ports fairness: %s", result)
    check_fairness(result)


CONFIGS = {
    "ports_rr": ({"preset": "regions", "ports": 4}, {"kernel_ps": 4000, "dma_ps": 4000}),
    "ports_weighted": ({"preset": "regions", "ports": 4, "port_policy": "weighted", "port_weights": "4,2,1,1",
                        "port_credits": 2, "word_order": "x0_high"}, {"kernel_ps": 5000, "dma_ps": 4000}),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_bridge_ports(name):
    """The bridge with several kernel ports under this arbitration passes every cocotb test above."""
    params, ratio = CONFIGS[name]
    run_bridge("bridge_ports", __file__, params, ratio)
