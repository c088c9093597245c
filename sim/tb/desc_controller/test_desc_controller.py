# SPDX-License-Identifier: Apache-2.0
"""System bench for direkt's descriptor controller (generator ``host_desc_controller``, top
``<instance>_ctrl``): the hard IP's descriptor controller registers in front of the bridge, driven
the way an a10_ref BSP's host software drives them (:mod:`direkt_sim.a10_driver`), while kernels
issue descriptors of their own on the bridge's channels.

Around the top: the bridge rig (:class:`direkt_sim.rig.BridgeRig`: GPU BAR, host RAM, FPGA memory,
both data movers at the controller's descriptor ready latency, the kernel channels, the bridge's
CSR), the Read Data Mover writing table fetches into the DTS agents through a bursting writer
(:class:`direkt_sim.avalon_mm.BurstWriter`, its status out before the last beat), the ``txs``
agent taking the completion flags into host RAM with random waitrequest
(:class:`direkt_sim.avalon_mm.WriteAgent`), and ``rxm_bar0`` on the register agent
(:class:`direkt_sim.avalon_mm.RegisterHost`). Every ID range, register and word comes from the
manifest the emitter wrote.
"""

from __future__ import annotations

import cocotb
import pytest
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from direkt_sim.a10_driver import (CONTROL, DIAG, DTS_SPAN, EP_FIFO_BASE_HIGH, EP_FIFO_BASE_LOW, INT_CONTROL,
                                   LAST_HOST_STATUS, LAST_PTR, ONCHIP_FIFO_BASE, RC_DESC_BASE_HIGH, RC_DESC_BASE_LOW,
                                   SIDE_BASE, TABLE_BYTES, TABLE_ENTRIES, TABLE_SIZE_REG, A10DmaSide)
from direkt_sim.avalon_mm import BurstWriter, RegisterHost, WriteAgent
from direkt_sim.layout import load_manifest
from direkt_sim.pins import DIRECTIONS, ModelError
from direkt_sim.rig import HOST_BUS, KB, MB, REGRESS, BridgeRig, timeout
from direkt_sim.runner import run_bench

TIMEOUT = timeout(500, 5_000)
# host RAM: a quarter for each side's buffers, most of the other half for table_at_id_positions,
# the two tables at the top
HOST_SIZE = (64 if REGRESS else 8) * MB
# host descriptors per side in `host_and_kernels` (several transfers, so the IDs wrap past 127)
HOST_DESCS = 2_000 if REGRESS else 300
KERNEL_DESCS = 2_000 if REGRESS else 300  # per direction, at the same time
DIAG_STICKY = 0xFF  # DIAG bits 7..0 (HostDescSide.DIAG); bit 16 is live (busy)


class Controller:
    """The controller's models: the rig, the DTS writers, the flag agent, the register host and one
    driver per side. Tables at the top of host RAM (8 KB apart), host buffers below."""

    def __init__(self, dut, name: str, dts_valid: str = "p70", dcm_wait: str = "p30", place: str = "start",
                 max_batch: int = TABLE_ENTRIES, **rig):
        m = load_manifest()
        c = m.controller
        assert c is not None, "the manifest has no controller section: emit host_desc_controller"
        self.c = c
        self.writers = {t: BurstWriter(dut, f"{t}_dts_", dut.dma_clk, valid=dts_valid, seed=i + 1)
                        for i, t in enumerate(DIRECTIONS)}
        agents = [(ONCHIP_FIFO_BASE[t], DTS_SPAN, self.writers[t]) for t in DIRECTIONS]
        self.b = BridgeRig(dut, name, host_size=HOST_SIZE,
                           mover_kw=dict(ready_latency=int(c["desc_ready_latency"]), agents=agents), **rig)
        self.dut = dut
        self.dcm_wait = dcm_wait
        self.place = place
        self.max_batch = max_batch
        self.regs = RegisterHost(dut, "regs_", dut.dma_clk, int(c["regs_read_latency"]))
        self.table = {t: HOST_BUS + HOST_SIZE - (2 - i) * 8 * KB for i, t in enumerate(DIRECTIONS)}
        self.sides: dict[str, A10DmaSide] = {}
        self.dcm = None

    async def start(self) -> None:
        await self.b.start()
        for t in DIRECTIONS:
            self.sides[t] = A10DmaSide(self.dut, t, self.regs, self.b.host, self.table[t], place=self.place,
                                       max_batch=self.max_batch)
        self.dcm = WriteAgent(self.dut, "dcm_", self.dut.dma_clk, self.flag, waitrequest=self.dcm_wait,
                              seed=self.b.rng.randrange(1 << 30))

    def flag(self, addr: int, data: int) -> None:
        for s in self.sides.values():
            if s.owns(addr):
                s.flag_written(addr, data)
                return
        raise ModelError(f"dcm write {data:#x} at {addr:#x}: no status word of either table")

    async def diag(self, t: str) -> int:
        return await self.regs.read(SIDE_BASE[t] + DIAG)

    async def check_diag_clean(self, what: str) -> None:
        for t in DIRECTIONS:
            d = await self.diag(t)
            assert d & DIAG_STICKY == 0, f"{what}: {t} DIAG {d:#x} (HostDescSide.DIAG names the bits)"

    def check_models(self) -> None:
        self.b.check_models()
        for model in [*self.writers.values(), self.dcm]:
            assert not model.errors, model.errors


def host_plan(ctl: Controller, t: str, n: int, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """*n* host descriptors of side *t*, 4 B .. 8 KB each, host buffers one after the other in
    [lo, hi) of host RAM, FPGA at the rig's base + 64 MB (rd) or + 96 MB (wr) on; sources filled at
    random. No two descriptors share a byte, so every one can be checked when its batch ends."""
    b = ctl.b
    descs = []
    host_at, fpga_at = HOST_BUS + lo, b.fpga_base + (64 if t == "rd" else 96) * MB
    for _ in range(n):
        nbytes = 4 * b.rng.randint(1, 2 * KB)
        assert host_at + nbytes <= HOST_BUS + hi, f"host_plan: {n} descriptors do not fit [{lo:#x}, {hi:#x})"
        data = b.rng.randbytes(nbytes)
        if t == "rd":
            b.host.mem.write(host_at - HOST_BUS, data)
            descs.append((host_at, fpga_at, nbytes))
        else:
            b.fpga.write(fpga_at, data)
            descs.append((fpga_at, host_at, nbytes))
        host_at += nbytes + 4 * b.rng.randint(0, 16)
        fpga_at += nbytes
    return descs


def check_batch(ctl: Controller, t: str, batch) -> None:
    """Each descriptor of a finished batch moved its bytes exactly (its source is still as filled:
    sources and destinations never overlap)."""
    b = ctl.b
    for src, dst, nbytes in batch.descs:
        if t == "rd":
            got, want = b.fpga.read(dst, nbytes), b.host.mem.read(src - HOST_BUS, nbytes)
        else:
            got, want = b.host.mem.read(dst - HOST_BUS, nbytes), b.fpga.read(src, nbytes)
        assert got == want, f"{t} batch {batch.ids[0]}..{batch.ids[-1]}: {nbytes} bytes {src:#x} -> {dst:#x} differ"


async def run_host(ctl: Controller, t: str, descs: list, transfers: int) -> int:
    """Side *t*'s descriptors as *transfers* driver transfers; returns the batches they took."""
    per = -(-len(descs) // transfers)
    batches = 0
    for i in range(0, len(descs), per):
        batches += await ctl.sides[t].run(descs[i:i + per], on_batch=lambda bt, t=t: check_batch(ctl, t, bt))
    return batches


# --------------------------------------------------------------------------- tests


@cocotb.test(**TIMEOUT)
async def registers(dut):
    """The registers as host software finds them: LAST_PTR 0xFF and TABLE_SIZE 127 after reset, the
    rest 0; every register the hard IP has reads back what was written (TABLE_SIZE its 7 bits); a
    LAST_PTR beyond TABLE_SIZE is ignored and flagged in DIAG, any write clears DIAG; a DTS beat no
    fetch expects is dropped and flagged; words past a side's registers read 0. One side's writes
    leave the other's registers alone."""
    ctl = Controller(dut, "registers")
    await ctl.start()
    b = ctl.b
    regs = ctl.regs
    for t in DIRECTIONS:
        base = SIDE_BASE[t]
        assert await regs.read(base + LAST_PTR) == 0xFF, f"{t} LAST_PTR after reset"
        assert await regs.read(base + TABLE_SIZE_REG) == TABLE_ENTRIES - 1, f"{t} TABLE_SIZE after reset"
        for reg in (RC_DESC_BASE_LOW, RC_DESC_BASE_HIGH, EP_FIFO_BASE_LOW, EP_FIFO_BASE_HIGH, CONTROL, INT_CONTROL, DIAG,
                    LAST_HOST_STATUS):
            assert await regs.read(base + reg) == 0, f"{t} {reg:#x} after reset"
    values = {}
    for t in DIRECTIONS:
        for reg in (RC_DESC_BASE_LOW, RC_DESC_BASE_HIGH, EP_FIFO_BASE_LOW, EP_FIFO_BASE_HIGH, CONTROL, INT_CONTROL):
            values[(t, reg)] = b.rng.getrandbits(32)
            await regs.write(SIDE_BASE[t] + reg, values[(t, reg)])
    for (t, reg), v in values.items():
        got = await regs.read(SIDE_BASE[t] + reg)
        assert got == v, f"{t} register {reg:#x} reads {got:#x}, {v:#x} was written"
    await regs.write(SIDE_BASE["wr"] + TABLE_SIZE_REG, 0xFFF)
    assert await regs.read(SIDE_BASE["wr"] + TABLE_SIZE_REG) == 0x7F
    assert await regs.read(SIDE_BASE["rd"] + TABLE_SIZE_REG) == 0x7F
    await regs.write(SIDE_BASE["rd"] + TABLE_SIZE_REG, 15)
    await regs.write(SIDE_BASE["rd"] + LAST_PTR, 16)
    assert await regs.read(SIDE_BASE["rd"] + LAST_PTR) == 0xFF, "a LAST_PTR beyond TABLE_SIZE must be ignored"
    assert await ctl.diag("rd") & 0xFF == 0x01, "DIAG.bad_last_ptr"
    assert await ctl.diag("wr") & 0xFF == 0, "the other side's DIAG"
    await regs.write(SIDE_BASE["rd"] + DIAG, 0)
    assert await ctl.diag("rd") == 0, "a write clears DIAG"
    await regs.write(SIDE_BASE["rd"] + TABLE_SIZE_REG, TABLE_ENTRIES - 1)
    # a DTS beat while nothing is fetched: dropped, flagged, nothing reaches a mover
    ctl.writers["wr"].send(3, [b.rng.getrandbits(256), b.rng.getrandbits(256)])
    await ClockCycles(dut.dma_clk, 40)
    assert await ctl.diag("wr") & 0xFF == 0x02, "DIAG.stray_dts"
    assert not any(mv.log for mv in b.movers.values()), "a stray DTS beat reached a mover"
    for word in list(range(10, 64)) + list(range(64 + 10, 128)):
        assert await regs.read(4 * word) == 0, f"byte address {4 * word:#x} reads non-zero"
    ctl.check_models()


@cocotb.test(**TIMEOUT)
async def host_and_kernels(dut):
    """Both sides of the host's DMA (the a10 driver's batches, the IDs wrapping past 127 across
    transfers) while kernels stream descriptors of their own in both directions: every host byte
    lands exactly, every host ID's status word is written exactly once per batch and in ID order,
    every kernel status comes back without error, the table fetches never reach a kernel or the
    host's flags (IDs by range), the bridge counts every host descriptor and fetch and no spurious
    status, DIAG stays clean, and with round-robin arbitration neither requester gets two grants
    in a row while the other waits."""
    ctl = Controller(dut, "host_and_kernels", mover_latency=6, bytes_per_cycle=64)
    await ctl.start()
    b = ctl.b
    await b.open_gpu_window()
    for mv in b.movers.values():
        mv.set_ready("p25")  # descriptors queue at the arbiter, so host and kernel contend
    quarter = HOST_SIZE // 4
    plans = {t: host_plan(ctl, t, HOST_DESCS, i * quarter, (i + 1) * quarter) for i, t in enumerate(DIRECTIONS)}
    kernels = {t: b.kernel(t, status_ready="random", seed=b.rng.randrange(1 << 30)) for t in DIRECTIONS}
    added = {t: 0 for t in DIRECTIONS}
    slots = 64  # kernel jobs in flight per direction at most (each its own 1 KB slot): a finished one makes room

    def add_kernel_job(t: str) -> None:
        slot = added[t] % slots
        n = 4 * b.rng.randint(1, 256)
        gpu = (0 if t == "rd" else b.gpu.size // 2) + slot * KB
        fpga = b.fpga_base + (0 if t == "rd" else 8 * MB) + slot * KB
        data = b.rng.randbytes(n)
        if t == "rd":
            b.gpu.write(gpu, data)
        else:
            b.fpga.write(fpga, data)
        src, dst = b.ends(t, b.gpu.bus(gpu), fpga)
        added[t] += 1
        kernels[t].add(src, dst, n, on_status=lambda j, t=t, dst=dst, data=data: kernel_done(t, j, dst, data))

    def kernel_done(t, job, dst, data):
        assert not job.status.failed, f"{t} kernel status failed: {job.status}"
        if b.tagged:  # the status names its job: its bytes are in place now
            got = b.fpga.read(dst, len(data)) if t == "rd" else b.pcie.read(dst, len(data))
            assert got == data, f"{t} kernel job to {dst:#x}: bytes differ at its status"
        if added[t] < KERNEL_DESCS:
            add_kernel_job(t)

    for t in DIRECTIONS:
        for _ in range(min(slots, KERNEL_DESCS)):
            add_kernel_job(t)

    stats = {t: {"host_run": 0, "kernel_run": 0, "max_host_while_kernel_waits": 0, "max_kernel_while_host_waits": 0,
                 "both_waiting": 0} for t in DIRECTIONS}

    async def watch(t):
        p, s = getattr(dut.u_bridge, f"u_{t}"), stats[t]
        while True:
            await RisingEdge(dut.dma_clk)
            await ReadOnly()
            req = p.u_arb_req.value.integer
            s["both_waiting"] += req == 3
            if p.u_arb_grant_valid.value == 1 and p.u_mover_rl_s_ready.value == 1:
                host = p.u_arb_grant_id.value == 0
                mine, other = ("host_run", "kernel_run") if host else ("kernel_run", "host_run")
                s[other] = 0
                s[mine] = s[mine] + 1 if req == 3 else 0
                key = "max_host_while_kernel_waits" if host else "max_kernel_while_host_waits"
                s[key] = max(s[key], s[mine])

    watchers = [cocotb.start_soon(watch(t)) for t in DIRECTIONS]
    hosts = {t: cocotb.start_soon(run_host(ctl, t, plans[t], 3)) for t in DIRECTIONS}
    batches = {t: await hosts[t] for t in DIRECTIONS}
    for t in DIRECTIONS:
        await b.drain(kernels[t], 200 * KERNEL_DESCS + 100_000)
    for w in watchers:
        w.kill()

    fetches = {t: batches[t] for t in DIRECTIONS}
    for t in DIRECTIONS:
        side = ctl.sides[t]
        assert side.flags == HOST_DESCS, f"{t}: {side.flags} flags for {HOST_DESCS} host descriptors"
        assert kernels[t].received == KERNEL_DESCS and kernels[t].failed == 0
        host_descs = [d for d in b.movers[t].log if d.id < 128]
        assert len(host_descs) == HOST_DESCS, f"{t} mover took {len(host_descs)} host descriptors"
        fetch_ids = [d.id for d in b.movers[t].log if d.id >= int(b.m.layout["ids"]["table_fetch"][0])]
        if t == "rd":
            assert sorted(fetch_ids) == sorted([254] * fetches["rd"] + [255] * fetches["wr"]), \
                f"rd mover table fetches {len(fetch_ids)} for {fetches} batches"
        else:
            assert not fetch_ids, f"table fetches on the wr mover: {fetch_ids}"
        # LAST_HOST_STATUS: the status of the last host descriptor the mover took (it completes in order)
        last_host = host_descs[-1].id
        got = await ctl.regs.read(SIDE_BASE[t] + LAST_HOST_STATUS)
        assert got & 0xFF == last_host and (got >> 8) & 1 == 1, \
            f"{t} LAST_HOST_STATUS {got:#010x}: the last host descriptor was ID {last_host}, completed"
        issued = HOST_DESCS + (fetches["rd"] + fetches["wr"] if t == "rd" else 0)
        await b.check_counters(t, "host_and_kernels", host_issued=issued, host_completed=HOST_DESCS,
                               kernel_issued=KERNEL_DESCS, completed=KERNEL_DESCS, spurious=0)
        s = stats[t]
        b.log.info("%s: %d host descriptors in %d batches (IDs wrapped %d times), %d kernel descriptors; arbiter %s",
                   t, HOST_DESCS, batches[t], HOST_DESCS // TABLE_ENTRIES, KERNEL_DESCS, s)
        assert s["both_waiting"] >= 50, f"{t}: host and kernel rarely contended ({s}); the bound is not measured"
        if b.m.bridge["policy"] == "round_robin":
            assert s["max_host_while_kernel_waits"] <= 1 and s["max_kernel_while_host_waits"] <= 1, \
                f"{t}: round robin let one side go twice while the other waited: {s}"
    await ctl.check_diag_clean("host_and_kernels")
    await b.check_no_alarms("host_and_kernels")
    ctl.check_models()


@cocotb.test(**TIMEOUT)
async def table_at_id_positions(dut):
    """Host software that writes the EP base once and puts each entry at its ID's table position
    (the controller reads on from where the last batch ended, back to the table's start after
    TABLE_SIZE): small batches of 1..9, the IDs wrapping several times, bytes exact, flags once."""
    ctl = Controller(dut, "table_at_id_positions", place="id", max_batch=9, dts_valid="random", dcm_wait="stall")
    await ctl.start()
    n = 6 * TABLE_ENTRIES // 5 if not REGRESS else 10 * TABLE_ENTRIES
    for t in DIRECTIONS:
        descs = host_plan(ctl, t, n, HOST_SIZE // 2, HOST_SIZE - MB)
        await run_host(ctl, t, descs, 2)
        assert ctl.sides[t].flags == n
    await ctl.check_diag_clean("table_at_id_positions")
    ctl.check_models()


@cocotb.test(**TIMEOUT)
async def table_fetch_ids_are_not_the_kernels(dut):
    """With the kernel's own IDs (paper ID mode) a kernel descriptor naming a table-fetch ID (the
    manifest's ``ids.table_fetch``) is refused (BAD_ID) and never reaches a mover; the last
    kernel ID still works. With managed IDs the kernel range simply ends below them."""
    ctl = Controller(dut, "table_fetch_ids_are_not_the_kernels")
    await ctl.start()
    b = ctl.b
    ids = b.m.layout["ids"]
    lo, hi = ids["table_fetch"]
    assert ids["kernel"][1] == lo - 1, ids
    if not b.paper_ids:
        b.log.info("managed IDs: kernel IDs %s, table fetches %s", ids["kernel"], ids["table_fetch"])
        return
    await b.open_gpu_window()
    for t in DIRECTIONS:
        k = b.kernels[t]
        for ident in range(lo, hi + 1):
            b.movers[t].forbidden = lambda d: True
            st = await k.transfer(*b.ends(t, b.gpu.bus(0), b.fpga_base), 64, desc_id=ident)
            b.movers[t].forbidden = None
            b.check_error(st, "BAD_ID", f"{t} kernel descriptor with table-fetch ID {ident}")
        b.check_status_ok(await k.transfer(*b.ends(t, b.gpu.bus(0), b.fpga_base), 64, desc_id=lo - 1), f"{t} ID {lo - 1}")
    await ctl.check_diag_clean("table_fetch_ids_are_not_the_kernels")
    ctl.check_models()


@cocotb.test(**TIMEOUT)
async def malformed_entries(dut):
    """Entries host software got wrong still move their bytes, with the controller's own IDs and
    flags, and DIAG says what was wrong: an entry whose ID field is not its ID sets entry_id (bit 2)
    as it goes to the mover; one with a reserved bit set (a reserved dword, or control [31:25])
    sets entry_reserved (bit 3) as it arrives. Each alone, then the other side's DIAG clean, a write
    clearing it, and a well-formed batch after leaving it clean."""
    ctl = Controller(dut, "malformed_entries")
    await ctl.start()
    side = ctl.sides["rd"]
    wrong_id = {1: lambda w: w[:4] + [(w[4] & 0x3FFFF) | (9 << 18)] + w[5:]}
    reserved = {5: lambda w: w[:6] + [1 << 17] + w[7:], 6: lambda w: w[:4] + [w[4] | 1 << 25] + w[5:]}
    for what, tamper, bit in (("entry_id", wrong_id, 0x04), ("entry_reserved", reserved, 0x08)):
        side.tamper = tamper
        await run_host(ctl, "rd", host_plan(ctl, "rd", 4, 0, HOST_SIZE // 4), 1)
        side.tamper = {}
        assert await ctl.diag("rd") & DIAG_STICKY == bit, f"DIAG.{what} after a batch with {sorted(tamper)} wrong"
        assert await ctl.diag("wr") & DIAG_STICKY == 0, "the other side's DIAG"
        await side.write(DIAG, 0)
    await run_host(ctl, "rd", host_plan(ctl, "rd", 4, 0, HOST_SIZE // 4), 1)
    await ctl.check_diag_clean("malformed_entries, then a batch well formed")
    ctl.check_models()


# --------------------------------------------------------------------------- pytest

# One emitted configuration each (one Verilator build).
CONFIGS = {
    "default": {"preset": "default", "desc_ready_latency": 1},
    "paper_rl3": {"preset": "paper", "desc_ready_latency": 3},
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_desc_controller(config):
    """The controller around the bridge emitted with this configuration passes every cocotb test above."""
    params = CONFIGS[config]
    run_bench(bench="desc_controller", example="host_desc_controller", module="test_desc_controller", params=params,
              expected_top="direkt_bridge_ctrl", emitter="generators")
