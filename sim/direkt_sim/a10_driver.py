# SPDX-License-Identifier: Apache-2.0
"""The host software of an a10_ref-derived BSP, as it drives the hard IP's descriptor controller
(and so direkt's :class:`HostDescController` in its place): the MMD's ``ACL_PCIE_DMA`` (its
``update()`` / ``send_dma_desc()`` / ``wait_finish()``), with the register offsets and values of
the BSP's ``hw_pcie_constants.h``.

One :class:`A10DmaSide` per side: ``rd`` (the host writes the FPGA: the Read Data Mover; the MMD's
``m_read == 0``) at BAR0 0x000, ``wr`` (the host reads the FPGA) at 0x100. For a list of
descriptors it runs the driver's batches:

1. at the start of a transfer it reads LAST_PTR (0xFF after reset) and takes the next ID after it
   (``check_last_id``: 256 and 128 become 0);
2. a batch is as many descriptors as fit before the table's end (ID 127), at most ``max_batch``:
   entry ``i`` of the batch is written to the host table's entry ``i`` (the MMD's
   ``descriptors[i]``) with the ID ``first + i`` in its control word (``ctl_dma_len | id << 18``);
3. ``send_dma_desc``: RC table base low and high, EP FIFO base low and high, TABLE_SIZE (127),
   INT_CONTROL, then (after a barrier) LAST_PTR = the batch's last ID;
4. ``wait_finish``: it polls the last ID's status word in the table header (every ``poll``
   dma_clk cycles), then clears all 128 status words (``set_desc_table_header``).

``place="id"`` models host software that leaves the EP base alone after the first batch and puts
each entry at the table index of its ID (where a controller that keeps reading on after the last
batch finds it). The table lives in host RAM (``table_bus``: 512 B of status words, 128 entries of
32 B from +0x200). Everything the controller writes there comes through :meth:`flag_written`
(the bench's ``txs`` agent calls it), which checks that a flag is 1, lands on a status word of a
batch's ID, and is written exactly once per batch, in ID order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from cocotb.triggers import ClockCycles

from .avalon_mm import RegisterHost
from .pcie import HostRam
from .pins import ModelError

# hw_pcie_constants.h (a10_ref): the descriptor controller's registers on BAR0, per side
SIDE_BASE = {"rd": 0x000, "wr": 0x100}
RC_DESC_BASE_LOW = 0x00
RC_DESC_BASE_HIGH = 0x04
EP_FIFO_BASE_LOW = 0x08
EP_FIFO_BASE_HIGH = 0x0C
LAST_PTR = 0x10
TABLE_SIZE_REG = 0x14
CONTROL = 0x18
INT_CONTROL = 0x1C
# direkt's HostDescController adds, per side
DIAG = 0x20
LAST_HOST_STATUS = 0x24
# the DTS agents as the EP FIFO base values name them (ACL_PCIE_DMA_ONCHIP_RD/WR_FIFO_BASE)
ONCHIP_FIFO_BASE = {"rd": 0x0000_7FFF_FFFF_0000, "wr": 0x0000_7FFF_FFFF_2000}
DTS_SPAN = 0x2000
TABLE_ENTRIES = 128  # ACL_PCIE_DMA_TABLE_SIZE
RESET_ID = 255  # ACL_PCIE_DMA_RESET_ID
ENABLE_INT = 1  # ACL_PCIE_DMA_ENABLE_INT
HEADER_BYTES = 4 * TABLE_ENTRIES  # the status words (flags) before the entries
ENTRY_BYTES = 32
TABLE_BYTES = HEADER_BYTES + TABLE_ENTRIES * ENTRY_BYTES


@dataclass
class Batch:
    """One LAST_PTR write: its IDs in order and the flags written for them."""

    ids: list[int]
    descs: list[tuple[int, int, int]]
    flags: list[int] = field(default_factory=list)


class A10DmaSide:
    """One side of the MMD's DMA on the controller's ``regs`` agent (see the module docstring)."""

    def __init__(self, dut, side: str, regs: RegisterHost, host: HostRam, table_bus: int, poll: int = 40,
                 place: str = "start", max_batch: int = TABLE_ENTRIES, log=None):
        assert side in SIDE_BASE and place in ("start", "id")
        assert host.bus_base <= table_bus and table_bus + TABLE_BYTES <= host.bus_base + host.size and table_bus % 32 == 0
        self.dut = dut
        self.side = side
        self.base = SIDE_BASE[side]
        self.regs = regs
        self.host = host
        self.table_bus = table_bus
        self.poll = poll
        self.place = place
        self.max_batch = max_batch
        self.log = log
        self.batches: list[Batch] = []
        self.current: Optional[Batch] = None
        self.flags = 0  # flag writes seen
        self.ep_written = False
        self.timeout_cycles = 2_000_000
        # a test's changes to an entry as host software got it wrong: ID -> f(words) -> words
        self.tamper: dict[int, Callable[[list[int]], list[int]]] = {}

    # ----------------------------------------------------------------- the host table

    def _mem_off(self, bus: int) -> int:
        return bus - self.host.bus_base

    def flag_addr(self, ident: int) -> int:
        return self.table_bus + 4 * ident

    def owns(self, addr: int) -> bool:
        return self.table_bus <= addr < self.table_bus + HEADER_BYTES

    def flag(self, ident: int) -> int:
        return int.from_bytes(self.host.mem.read(self._mem_off(self.flag_addr(ident)), 4), "little")

    def _clear_flags(self) -> None:
        self.host.mem.write(self._mem_off(self.table_bus), bytes(HEADER_BYTES))

    def _write_entry(self, index: int, ident: int, src: int, dst: int, nbytes: int) -> None:
        words = [src & 0xFFFF_FFFF, src >> 32, dst & 0xFFFF_FFFF, dst >> 32, (nbytes // 4) | (ident << 18), 0, 0, 0]
        if ident in self.tamper:
            words = self.tamper[ident](list(words))
        raw = b"".join(w.to_bytes(4, "little") for w in words)
        self.host.mem.write(self._mem_off(self.table_bus + HEADER_BYTES + ENTRY_BYTES * index), raw)

    def flag_written(self, addr: int, data: int) -> None:
        """The controller wrote *data* at *addr* in this side's status words (the txs agent says so)."""
        ident = (addr - self.table_bus) // 4
        b = self.current
        if addr % 4 or data != 1:
            raise ModelError(f"{self.side}: flag write {data:#x} at {addr:#x} (a status word takes 1, at a word address)")
        if b is None or ident not in b.ids:
            raise ModelError(f"{self.side}: flag for ID {ident}, which no batch in flight has (batch {b.ids if b else None})")
        if ident in b.flags:
            raise ModelError(f"{self.side}: flag for ID {ident} written twice in one batch")
        want = b.ids[len(b.flags)]
        if ident != want:
            raise ModelError(f"{self.side}: flag for ID {ident} before ID {want} (LAST_PTR order)")
        b.flags.append(ident)
        self.flags += 1
        self.host.mem.write(self._mem_off(addr), data.to_bytes(4, "little"))

    # ----------------------------------------------------------------- registers

    async def write(self, reg: int, value: int) -> None:
        await self.regs.write(self.base + reg, value)

    async def read(self, reg: int) -> int:
        return await self.regs.read(self.base + reg)

    # ----------------------------------------------------------------- the MMD's transfer

    async def run(self, descs: list[tuple[int, int, int]], on_batch=None) -> int:
        """Moves *descs* ((src, dst, bytes) each: host bus -> FPGA on rd, FPGA -> host bus on wr) in
        the driver's batches; *on_batch(batch)* after each completes. Returns the batches run."""
        last = await self.read(LAST_PTR)
        next_id = last + 1
        done = 0
        count = 0
        while done < len(descs):
            if next_id in (RESET_ID + 1, TABLE_ENTRIES):
                next_id = 0
            n = min(len(descs) - done, TABLE_ENTRIES - next_id, self.max_batch)
            batch = Batch(ids=list(range(next_id, next_id + n)), descs=descs[done:done + n])
            for i, (src, dst, nbytes) in enumerate(batch.descs):
                self._write_entry(i if self.place == "start" else next_id + i, next_id + i, src, dst, nbytes)
            next_id += n
            self.current = batch
            self.batches.append(batch)
            await self._send(batch.ids[-1])
            await self._wait(batch)
            if on_batch is not None:
                on_batch(batch)
            self._clear_flags()
            self.current = None
            done += n
            count += 1
        return count

    async def _send(self, last_id: int) -> None:
        tb = self.table_bus
        await self.write(RC_DESC_BASE_LOW, tb & 0xFFFF_FFFF)
        await self.write(RC_DESC_BASE_HIGH, tb >> 32)
        if self.place == "start" or not self.ep_written:
            fifo = ONCHIP_FIFO_BASE[self.side]
            await self.write(EP_FIFO_BASE_LOW, fifo & 0xFFFF_FFFF)
            await self.write(EP_FIFO_BASE_HIGH, fifo >> 32)
            self.ep_written = True
        await self.write(TABLE_SIZE_REG, TABLE_ENTRIES - 1)
        await self.write(INT_CONTROL, ENABLE_INT)
        await self.write(LAST_PTR, last_id)

    async def _wait(self, batch: Batch) -> None:
        last = batch.ids[-1]
        waited = 0
        while self.flag(last) != 1:
            if waited > self.timeout_cycles:
                diag = await self.read(DIAG)
                raise ModelError(f"{self.side}: no flag for ID {last} within {waited} dma cycles (batch {batch.ids[0]}..{last}, "
                                 f"flags so far {batch.flags}); DIAG {diag:#x}, LAST_PTR {await self.read(LAST_PTR):#x}")
            await ClockCycles(self.dut.dma_clk, self.poll)
            waited += self.poll
        if batch.flags != batch.ids:
            raise ModelError(f"{self.side}: batch {batch.ids[0]}..{last} done with flags {batch.flags}")
