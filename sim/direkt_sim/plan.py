# SPDX-License-Identifier: Apache-2.0
"""Which bench runs where, and in what order.

``make test`` runs every parameter set of every bench on Verilator, and on Icarus the smoke set
below: one parameter set a bench, enough for Icarus' part (X propagation: an output that reads X
where Verilator's two-state model shows 0 or 1 fails there). ``make regress`` runs every parameter
set on both simulators with ten times the stimulus. ``make test-plan`` prints the lot.

An entry that names no collected test is an error, so a renamed parameter set cannot silently leave
the smoke set.
"""

from __future__ import annotations

# The Icarus smoke set: pytest node ids (relative to sim/).
SMOKE = (
    "tb/arbiter/test_arbiter.py::test_arbiter[wrr-n3-w4_2_1]",
    "tb/async_fifo/test_async_fifo.py::test_async_fifo[w160-d16-s2-r-7to11]",
    "tb/bridge/test_bridge.py::test_bridge[small-k7d5]",
    "tb/bridge_device/test_bridge_device.py::test_bad_requests_are_refused_and_the_device_goes_on",
    "tb/bridge_ports/test_bridge_ports.py::test_bridge_ports[ports_rr]",
    "tb/bridge_regions/test_bridge_regions.py::test_bridge_regions[regions]",
    "tb/channel_port/test_channel_port.py::test_channel_port[source-w64-reg]",
    "tb/desc_controller/test_desc_controller.py::test_desc_controller[paper_rl3]",
    "tb/gray_crossing/test_gray_crossing.py::test_gray_crossing[width3-a7ns-b11ns]",
    "tb/region_walker/test_region_walker.py::test_region_walker[rd]",
    "tb/rl_adapter/test_rl_adapter.py::test_rl_adapter[width160-1to0]",
    "tb/skid_buffer/test_skid_buffer.py::test_skid_buffer[width8]",
    "tb/sync_fifo/test_sync_fifo.py::test_sync_fifo[w64-d4-reg-af3]",
)

# Benches in the order their tests start under `pytest -n`: the longest first, so that the two
# workers finish together (the last to start are the shortest). Measured on Verilator; a bench not
# named here starts after these.
SLOWEST_FIRST = (
    "tb/bridge/",
    "tb/bridge_regions/",
    "tb/region_walker/",
    "tb/bridge_ports/",
    "tb/async_fifo/",
    "tb/bridge_device/",
    "tb/desc_controller/",
    "tb/sync_fifo/",
    "tb/arbiter/",
    "tb/channel_port/",
    "tb/rl_adapter/",
    "tb/skid_buffer/",
    "tb/gray_crossing/",
    "tb/bridge_replay/",
)


def rank(nodeid: str) -> int:
    for i, prefix in enumerate(SLOWEST_FIRST):
        if nodeid.startswith(prefix):
            return i
    return len(SLOWEST_FIRST)


def smoke_missing(nodeids: list[str]) -> list[str]:
    """The smoke entries that name no collected test."""
    have = set(nodeids)
    return [s for s in SMOKE if s not in have]
