# SPDX-License-Identifier: Apache-2.0
"""The host's CSR master: reads and writes the bridge's Avalon-MM CSR agent by register name."""

from __future__ import annotations

from cocotb.triggers import Lock, ReadOnly, RisingEdge

from .layout import Manifest
from .pcie import window_log2
from .pins import DIRECTIONS, ModelError, Pin


class Csr:
    """The bridge's Avalon-MM CSR agent (dma_clk; no waitrequest; the manifest's ``read_latency``:
    ``readdatavalid`` rises exactly that many cycles after the cycle ``csr_read`` is sampled).

    Offsets, window layout, counter events and field positions come from the manifest. Accesses
    from concurrent coroutines are serialised.

    Windows: entry i is BASE_LO, BASE_HI, SIZE (field ``log2``), CTRL at ``window_offset +
    window_stride * i``; the window is the naturally aligned block of 2^SIZE bytes that holds BASE.
    :meth:`open_window` / :meth:`set_window` take the block as [base, last] (inclusive) and refuse
    (``ValueError``) anything that is not an aligned power-of-two block of 2^window_min_log2 ..
    2^window_max_log2 bytes. Counters exist only when the manifest lists events
    (:attr:`has_counters`); ALARMS is always there.
    """

    def __init__(self, dut, manifest: Manifest):
        self.dut = dut
        self.m = manifest
        self.csr = manifest.csr
        self._clk = dut.dma_clk
        self._lock = Lock()
        self._addr = Pin(dut.csr_address)
        self._read = Pin(dut.csr_read)
        self._write = Pin(dut.csr_write)
        self._wdata = Pin(dut.csr_writedata)
        self.reads = 0
        self.writes = 0

    def offset(self, name: str) -> int:
        return self.m.csr_offset(name)

    def window_offset(self, i: int, reg: str) -> int:
        return int(self.csr["window_offset"]) + int(self.csr["window_stride"]) * i + self.csr["window_regs"].index(reg)

    @property
    def min_log2(self) -> int:
        return int(self.csr["window_min_log2"])

    @property
    def max_log2(self) -> int:
        return int(self.csr["window_max_log2"])

    @property
    def has_counters(self) -> bool:
        return self.m.has_counters

    def window_log2(self, base: int, last: int) -> int:
        """log2 of the window [base, last]; ``ValueError`` unless it is an aligned power-of-two block
        the bridge can hold."""
        return window_log2(base, last, self.min_log2, self.max_log2)

    async def write(self, addr, value: int) -> None:
        addr = self.offset(addr) if isinstance(addr, str) else addr
        async with self._lock:
            await RisingEdge(self._clk)
            self._addr.set(addr)
            self._wdata.set(value & 0xFFFF_FFFF)
            self._write.set(1)
            await RisingEdge(self._clk)
            self._write.set(0)
            self.writes += 1

    async def read(self, addr) -> int:
        addr = self.offset(addr) if isinstance(addr, str) else addr
        latency = int(self.csr["read_latency"])
        async with self._lock:
            await RisingEdge(self._clk)
            self._addr.set(addr)
            self._read.set(1)
            for cycle in range(1, latency + 1):
                await RisingEdge(self._clk)
                if cycle == 1:
                    self._read.set(0)
                await ReadOnly()
                valid = self.dut.csr_readdatavalid.value
                if cycle < latency and valid != 0:
                    raise ModelError(f"CSR read of {addr:#x}: readdatavalid high {cycle} cycle(s) after csr_read, "
                                     f"the manifest's read_latency is {latency}")
                if cycle == latency and valid != 1:
                    raise ModelError(f"CSR read of {addr:#x}: readdatavalid not high {latency} cycle(s) after csr_read "
                                     f"(the manifest's read_latency)")
            self.reads += 1
            return self.dut.csr_readdata.value.integer

    async def set_window(self, i: int, base: int, last: int, enable=True, rd=True, wr=True) -> None:
        """Program window *i* to the aligned block [base, last] (inclusive): BASE_LO, BASE_HI, SIZE,
        then CTRL. ``ValueError`` (before any write) unless [base, last] is such a block."""
        k = self.window_log2(base, last)
        entries = int(self.m.bridge["window_entries"])
        if not 0 <= i < entries:
            raise ValueError(f"window entry {i}: the bridge has {entries} (0..{entries - 1})")
        await self.write(self.window_offset(i, "BASE_LO"), base & 0xFFFF_FFFF)
        await self.write(self.window_offset(i, "BASE_HI"), (base >> 32) & 0xFFFF_FFFF)
        await self.write(self.window_offset(i, "SIZE"), self.m.word("csr_window_size").pack(log2=k))
        await self.write(self.window_offset(i, "CTRL"),
                         self.m.word("csr_window_ctrl").pack(enable=int(enable), allow_rd=int(rd), allow_wr=int(wr)))

    async def open_window(self, i: int, base: int, last: int, rd: bool = True, wr: bool = True) -> None:
        """Open window *i* on the aligned power-of-two block [base, last] (inclusive, >= 1 MB)."""
        await self.set_window(i, base, last, True, rd, wr)

    async def close_window(self, i: int) -> None:
        await self.write(self.window_offset(i, "CTRL"), 0)

    def effective_log2(self, size_log2: int) -> int:
        """The window size a SIZE value acts as: clamped to window_min_log2 .. window_max_log2."""
        return min(max(size_log2, self.min_log2), self.max_log2)

    async def read_window(self, i: int) -> dict:
        """Window *i* as the registers hold it: ``base``/``last`` of the aligned block that holds
        BASE, ``log2`` its size (SIZE as it acts, clamped to the manifest's window_min_log2 ..
        window_max_log2), ``size_reg`` (SIZE's log2 field as read back), ``base_reg`` (BASE as read
        back) and the CTRL fields."""
        r = {reg: await self.read(self.window_offset(i, reg)) for reg in self.csr["window_regs"]}
        base_reg = r["BASE_HI"] << 32 | r["BASE_LO"]
        size_reg = self.m.word("csr_window_size").get(r["SIZE"], "log2")
        k = self.effective_log2(size_reg)
        base = base_reg >> k << k
        return {"base": base, "last": base + (1 << k) - 1, "log2": k, "size_reg": size_reg, "base_reg": base_reg,
                **self.m.word("csr_window_ctrl").unpack(r["CTRL"])}

    async def counter(self, direction: str, event: str) -> int:
        return await self.read(self.m.counter_offset(direction, event))

    async def counters(self, direction: str) -> dict[str, int]:
        """Every event counter of *direction* (an empty dict when the bridge has no counters)."""
        return {ev: await self.counter(direction, ev) for ev in self.csr["events"]}

    async def alarms(self) -> dict[str, int]:
        """The sticky ALARMS fields (``rd_overflow``, ``rd_host_overflow``, ``wr_overflow``, ...)."""
        return self.m.word("csr_alarms").unpack(await self.read("ALARMS"))

    async def clear_alarms(self) -> None:
        await self.write("ALARMS", 0)

    async def outstanding(self, direction: str) -> int:
        return await self.read(int(self.csr["counters_offset"]) + int(self.csr["counters_stride"]) * DIRECTIONS.index(direction)
                               + int(self.csr["outstanding_index"]))

    @property
    def has_bringup(self) -> bool:
        return bool(self.csr.get("bringup"))

    async def last_desc(self, direction: str) -> int:
        """Bring-up: the last descriptor channel word of *direction*, from its eight registers
        (register i holds channel bits [32i+31:32i])."""
        d = direction.upper()
        names = sorted((r["name"] for r in self.csr["registers"] if r["name"].startswith(f"{d}_LAST_DESC_")),
                       key=lambda n: int(n.rsplit("_", 1)[1]))
        word = 0
        for i, name in enumerate(names):
            word |= await self.read(name) << (32 * i)
        return word

    async def last_mover_status(self, direction: str) -> int:
        """Bring-up: the last mover status word of *direction*, raw."""
        return await self.read(f"{direction.upper()}_LAST_MOVER_STATUS")

    async def last_error(self) -> dict[str, int]:
        return self.m.word("csr_last_error").unpack(await self.read("LAST_ERROR"))

    async def clear_last_error(self) -> None:
        await self.write("LAST_ERROR", 0)

    async def write_pages(self, first: int, bus_addrs: list[int]) -> None:
        """Regions addressing: page table entries *first*, *first* + 1, ... to the pages at *bus_addrs*
        (PAGE_INDEX once, then PAGE_LO and PAGE_HI a page; the bridge steps PAGE_INDEX on)."""
        await self.write("PAGE_INDEX", first)
        for bus in bus_addrs:
            await self.write("PAGE_LO", bus & 0xFFFF_FFFF)
            await self.write("PAGE_HI", bus >> 32)

    async def write_region(self, r: int, nbytes: int, first: int, rd: bool = True, wr: bool = True) -> None:
        """Regions addressing: region *r* is *nbytes* over the pages from table entry *first*
        (0 bytes: closed), in the directions allowed."""
        ctrl = self.m.word("csr_region_ctrl").pack(first=first, allow_rd=int(rd), allow_wr=int(wr))
        await self.write("REGION_SELECT", r)
        await self.write("REGION_BYTES", nbytes)
        await self.write("REGION_CTRL", ctrl)

    async def region_status(self) -> dict:
        """REGION_STATUS's fields (``busy`` for the selected region, sticky ``refused``)."""
        return self.m.word("csr_region_status").unpack(await self.read("REGION_STATUS"))

    async def clear_counters(self) -> None:
        """CONTROL bit 0 (KeyError when the bridge has no counters, and so no CONTROL register)."""
        await self.write("CONTROL", 1)
