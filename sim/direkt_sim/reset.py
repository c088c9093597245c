# SPDX-License-Identifier: Apache-2.0
"""The bridge's two resets (names and polarity from the manifest) and its inputs at power-up."""

from __future__ import annotations

from typing import Optional

from cocotb.triggers import RisingEdge, Timer

from .channel import port_prefix
from .layout import Manifest
from .pins import DIRECTIONS


def dma_reset_pin(dut, m: Manifest):
    """(handle, asserted value) of the dma_clk reset as the manifest names it."""
    c = m.bridge["clocks"]["dma"]
    return getattr(dut, c["reset"]), (0 if c["reset_active_low"] else 1)


def kernel_reset_pin(dut, m: Manifest):
    """(handle, asserted value) of the kernel_clk reset as the manifest names it."""
    c = m.bridge["clocks"]["kernel"]
    return getattr(dut, c["reset"]), (0 if c["reset_active_low"] else 1)


def hold_in_reset(dut, m: Manifest) -> None:
    """Every input of the bridge at 0 (every kernel port, host, mover and CSR pins; a descriptor
    controller's register, DTS and flag pins) and both
    resets asserted: what the bridge sees before its clocks' first rising edge (the crossing
    FIFOs' pointers have no reset, only a power-up value, and must never take an undefined input)."""
    for t in DIRECTIONS:
        for k in range(int(m.bridge.get("ports", 1))):
            for s in ("desc_valid", "desc_data", "status_ready"):
                getattr(dut, f"{port_prefix(t, k)}_{s}").value = 0
        # with a descriptor controller around the bridge (manifest "controller") its DTS agents
        # take the host's part; the bridge's host ports are inside
        host = ("dts_write", "dts_address", "dts_burstcount", "dts_writedata") if m.controller else ("host_desc_valid", "host_desc_data")
        for s in host + ("dma_desc_ready", "dma_status_valid", "dma_status_data"):
            getattr(dut, f"{t}_{s}").value = 0
    pins = ("csr_address", "csr_read", "csr_write", "csr_writedata")
    if m.controller:
        pins += ("regs_address", "regs_read", "regs_write", "regs_writedata", "dcm_waitrequest")
    for s in pins:
        getattr(dut, s).value = 0
    for pin, asserted in (kernel_reset_pin(dut, m), dma_reset_pin(dut, m)):
        pin.value = asserted


async def reset_bridge(dut, m: Manifest, slow_period_ps: int, cycles: Optional[int] = None) -> None:
    """Assert both resets together for *cycles* (default sync_stages + 2, plus 2 for margin)
    periods of the slower clock, then release them both."""
    cycles = cycles if cycles is not None else int(m.bridge["sync_stages"]) + 4
    kr, kv = kernel_reset_pin(dut, m)
    dr, dv = dma_reset_pin(dut, m)
    kr.value = kv
    dr.value = dv
    await Timer(cycles * slow_period_ps, "ps")
    await RisingEdge(dut.dma_clk)
    kr.value = 1 - kv
    dr.value = 1 - dv
