# SPDX-License-Identifier: Apache-2.0
"""The FIFO measurements of ``bench/fifo.py``, as cocotb tests on the FIFO benches' rigs.

``bench/fifo.py`` runs this module in the simulator through ``direkt_sim.run_bench`` (cocotb
imports it by name from the ``sys.path`` of the process that starts the simulator, to which
``bench/fifo.py`` adds ``bench/``, ``sim/`` and the two FIFO bench directories) with
``DIREKT_FIFO_MEASURE=<dir>``; each test writes what it measured to a JSON file there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb

from test_async_fifo import AsyncFifoBench
from test_sync_fifo import SyncFifoBench


def _write(dut, name: str, result: dict) -> None:
    out = Path(os.environ["DIREKT_FIFO_MEASURE"])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps({**result, "simulator": os.environ.get("DIREKT_SIM", "?")}, indent=2))
    dut._log.info("measurement: %s", result)


@cocotb.test(timeout_time=100, timeout_unit="ms")
async def measure_sync(dut):
    """Sustained throughput, both sides always on (cycles 100..3100 of a 4,000-word stream), and
    latency into an empty FIFO (200 single words at random gaps, sink always ready), written to
    ``<top>.json``."""
    tb = SyncFifoBench(dut, "measure")
    await tb.start()
    n = 4_000
    tb.add_words(n)
    await tb.run(max_cycles=3 * n + 100)
    skip, window = 100, 3_000
    t_in = tb.window_rate(tb.in_cycles, skip, window)
    t_out = tb.window_rate(tb.out_cycles, skip, window)
    lat = []
    for _ in range(200):
        tb.src.pattern = iter([False] * tb.rng.randint(0, 5) + [True] + [False] * 1000)
        tb.add_words(1)
        await tb.run(max_cycles=1000)
        lat.append(tb.latencies[-1])
    tb.finish(contributes=False)
    _write(dut, dut._name, {
        "kind": "sync",
        "top": dut._name,
        "width": tb.width,
        "depth": tb.depth,
        "show_ahead": tb.show_ahead,
        "registered": tb.registered,
        "throughput_in": t_in,
        "throughput_out": t_out,
        "throughput_window_cycles": window,
        "latency_min": min(lat),
        "latency_max": max(lat),
        "latency_unit": "clk cycles from the accepting edge to the edge that transfers the word out",
    })


@cocotb.test(timeout_time=1000, timeout_unit="ms")
async def measure_async(dut):
    """Throughput at the run's clock ratio, both sides always on (about 4,000 words), and latency
    (300 single words into an empty FIFO at random phases), written to
    ``<top>@<wr_ps>-<rd_ps>-j<jitter>.json``."""
    tb = AsyncFifoBench(dut, "measure")
    await tb.start()
    t_in, t_out, nw, nr = await tb.sustained_rates(4_000)
    first_lat = len(tb.latencies)
    await tb.single_words(300)
    tb.finish(contributes=False)
    lat = tb.latencies[first_lat:]
    _write(dut, f"{dut._name}@{tb.wr_ps}-{tb.rd_ps}-j{tb.jitter}", {
        "kind": "async",
        "top": dut._name,
        "width": tb.width,
        "depth": tb.depth,
        "sync_stages": tb.S,
        "registered": tb.registered,
        "wr_ps": tb.wr_ps,
        "rd_ps": tb.rd_ps,
        "jitter_pct": tb.jitter,
        "throughput_in": t_in,
        "throughput_out": t_out,
        "throughput_window_wr_cycles": nw,
        "throughput_window_rd_cycles": nr,
        "latency_min": min(lat),
        "latency_max": max(lat),
        "latency_samples": len(lat),
    })
