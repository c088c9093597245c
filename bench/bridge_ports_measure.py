# SPDX-License-Identifier: Apache-2.0
"""cocotb measurement of the bridge's kernel port arbiter, for bench/bridge.py (not a regression bench).

bench/bridge.py runs this module through the benches' harness (direkt_sim.run_bench) on
``preset=regions`` with ``ports=4`` and 16 credits a port (so that no port waits for its own
statuses), once per port policy, with ``DIREKT_BRIDGE_MEASURE=<dir>``; the test writes
``<dir>/ports_4_fairness_<policy>.json``. The rig and the procedure are those of the regression
test of the same name in sim/tb/bridge_ports (:func:`direkt_sim.rig.port_fairness`), with more requests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb

from direkt_sim.rig import BridgeRig, check_fairness, port_fairness

MEASURE_DIR = os.environ.get("DIREKT_BRIDGE_MEASURE", "").strip()
FAIR_REQUESTS = 2_000  # one-entry requests per port


@cocotb.test(timeout_time=2_000, timeout_unit="ms")
async def fairness(dut):
    """Each rd port's share of the grants while all four saturate the arbiter, its longest wait
    in grants to other ports, the policy's bound; every status back on its own port; the wait
    bounds held (round robin, weighted)."""
    b = BridgeRig(dut, "fairness", gpu_pages=16, mover_latency=16, bytes_per_cycle=256)
    await b.start()
    await b.open_gpu_region(1)
    result = await port_fairness(b, FAIR_REQUESTS)
    dut._log.info("ports fairness: %s", result)
    Path(MEASURE_DIR).mkdir(parents=True, exist_ok=True)
    (Path(MEASURE_DIR) / f"ports_4_fairness_{result['policy']}.json").write_text(json.dumps(result, indent=1) + "\n")
    check_fairness(result)
