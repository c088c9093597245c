# SPDX-License-Identifier: Apache-2.0
"""Reusable models around direkt's bridge (``direkt_bridge``): memories, the PCIe address space
with a GPU BAR of scattered 64 KB pages, the PCIe hard IP's Read/Write Data Movers, the host's
descriptor controller, the CSR agent and the OpenCL kernel's view of the I/O channels.

Every bit position, error code, CSR offset and ID range comes from the manifest
(``direkt-overlay.json``, see :mod:`direkt_sim.layout`); nothing is restated here.

Timing discipline of every model: inputs are driven just after a rising edge of the model's
clock; outputs are sampled in the ReadOnly phase of that time step (what the DUT presents at the
next rising edge, so ``valid && ready`` seen there is a transfer on that edge).

Direction names are the manifest's: ``rd`` = GPU->FPGA through the Read Data Mover (source is a
PCIe address, destination an FPGA memory address); ``wr`` = FPGA->GPU through the Write Data Mover
(source FPGA, destination PCIe).

Typical use (inside a cocotb test)::

    m = load_manifest()
    fpga = Memory("fpga", size=m.bridge["fpga_mem_bytes"])
    gpu = GpuBar(bus_base=0x38_0000_0000, pages=16, seed=1)   # span: 2 MB, aligned
    pcie = PcieSpace([gpu])
    movers = {t: DataMover(dut, t, m, pcie, fpga) for t in ("rd", "wr")}
    csr = Csr(dut, m)
    await csr.open_window(0, gpu.bus_low, gpu.bus_high)        # an aligned power-of-two block >= 1 MB
    k = KernelModel(dut, "rd", m)
    st = await k.transfer(src=gpu.bus(0), dst=0x1000, nbytes=4096)
"""

from __future__ import annotations

import bisect
import os
import random
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional

import cocotb
from cocotb.triggers import Event, Lock, ReadOnly, RisingEdge, Timer

from .layout import Manifest
from .stimulus import pattern

DIRECTIONS = ("rd", "wr")
# DIREKT_SIM_FAULT=mover_data makes every data mover flip one bit of each descriptor's first byte:
# a deliberately broken simulation (the demo uses it to show that a failing step stops it).
MOVER_FAULT = os.environ.get("DIREKT_SIM_FAULT", "") == "mover_data"
TLP_BOUNDARY = 4096  # a PCIe request never crosses a 4 KB boundary


class ModelError(AssertionError):
    """A model saw something the bridge must never do (illegal descriptor, protocol violation, ...)."""


def window_log2(base: int, last: int, min_log2: int = 20, max_log2: int = 63) -> int:
    """log2 of the size of the window [*base*, *last*] (inclusive), which must be a naturally
    aligned power-of-two block of 2^min_log2 .. 2^max_log2 bytes (the manifest's
    ``window_min_log2`` / ``window_max_log2``); anything else raises :class:`ValueError` saying why."""
    what = f"window [{base:#x}, {last:#x}]"
    if not 0 <= base <= last < 1 << 64:
        raise ValueError(f"{what}: base and last must be 64-bit bus addresses with base <= last")
    size = last - base + 1
    if size & (size - 1):
        raise ValueError(f"{what}: {size:#x} bytes is not a power of two (a window is an aligned power-of-two block)")
    k = size.bit_length() - 1
    if k < min_log2:
        raise ValueError(f"{what}: {size:#x} bytes is smaller than the smallest window, 2^{min_log2} bytes")
    if k > max_log2:
        raise ValueError(f"{what}: {size:#x} bytes is larger than the largest window, 2^{max_log2} bytes")
    if base % size:
        raise ValueError(f"{what}: base is not a multiple of the window's size {size:#x} (windows are naturally aligned)")
    return k


def aligned_block(low: int, high: int, min_log2: int = 20) -> tuple[int, int]:
    """(base, last) of the smallest naturally aligned power-of-two block of at least 2^min_log2
    bytes that holds every address in [*low*, *high*]: the window to open over that span."""
    k = min_log2
    while (low >> k) != (high >> k):
        k += 1
    return (low >> k) << k, ((low >> k) << k) + (1 << k) - 1


# --------------------------------------------------------------------------- memories


class Memory:
    """Sparse byte-addressed memory (64 KB chunks allocated on first write).

    Unwritten bytes read as ``fill``. ``size`` (optional) bounds the addresses: an access past it
    raises :class:`ModelError`. ``writes`` / ``bytes_written`` count every write, so a test can
    show that nothing touched the memory.
    """

    CHUNK = 1 << 16

    def __init__(self, name: str = "mem", size: Optional[int] = None, fill: int = 0):
        self.name = name
        self.size = size
        self.fill = fill
        self._chunks: dict[int, bytearray] = {}
        self.writes = 0
        self.bytes_written = 0

    def _check(self, addr: int, n: int) -> None:
        if addr < 0 or n < 0 or (self.size is not None and addr + n > self.size):
            raise ModelError(f"{self.name}: access [{addr:#x}, +{n:#x}) outside 0..{self.size:#x}")

    def read(self, addr: int, n: int) -> bytes:
        self._check(addr, n)
        out = bytearray()
        while n > 0:
            base, off = divmod(addr, self.CHUNK)
            take = min(n, self.CHUNK - off)
            chunk = self._chunks.get(base)
            out += chunk[off:off + take] if chunk is not None else bytes([self.fill]) * take
            addr += take
            n -= take
        return bytes(out)

    def write(self, addr: int, data: bytes) -> None:
        self._check(addr, len(data))
        self.writes += 1
        self.bytes_written += len(data)
        pos = 0
        while pos < len(data):
            base, off = divmod(addr + pos, self.CHUNK)
            take = min(len(data) - pos, self.CHUNK - off)
            chunk = self._chunks.get(base)
            if chunk is None:
                chunk = self._chunks[base] = bytearray([self.fill]) * self.CHUNK
            chunk[off:off + take] = data[pos:pos + take]
            pos += take


class HostRam:
    """Host memory on the PCIe bus: ``size`` bytes at bus address ``bus_base``."""

    def __init__(self, bus_base: int, size: int, name: str = "host"):
        self.name = name
        self.bus_base = bus_base
        self.size = size
        self.mem = Memory(name, size)

    def mappings(self) -> Iterator[tuple[int, int, Memory, int]]:
        """(bus address, length, memory, offset in that memory) per contiguous mapping."""
        yield self.bus_base, self.size, self.mem, 0


class GpuBar:
    """A GPU's memory as seen through its BAR: ``pages`` pages of ``page_size`` bytes.

    GPU offset ``o`` lives in page ``o // page_size``; the page table maps each page to a bus
    address ``bus_base + slot * page_size`` with slots drawn at random (``seed``) from
    ``range(span_pages)``, ``span_pages`` the smallest power of two >= ``2 * pages``: consecutive
    pages are neither contiguous nor in order on the bus and at least half the span is unmapped.
    The span (``bus_low`` .. ``bus_high``) is a power of two, so with ``bus_base`` a multiple of it
    (and the span at least 1 MB) it is exactly one of the bridge's aligned windows.
    ``read``/``write`` take GPU offsets; :meth:`segments` gives the bus pieces of a GPU range,
    split where the bus address is discontinuous.
    """

    def __init__(self, bus_base: int, pages: int, page_size: int = 65536, seed: int = 0, name: str = "gpu"):
        self.name = name
        self.bus_base = bus_base
        self.pages = pages
        self.page_size = page_size
        rng = random.Random(seed)
        self.span_pages = 1 << (2 * pages - 1).bit_length()
        slots = list(range(self.span_pages))
        rng.shuffle(slots)
        # Keep at least one discontinuity between every pair of neighbours (a shuffle could put
        # page i+1 right after page i by chance): re-draw such slots from the unused ones.
        table = slots[:pages]
        spare = slots[pages:]
        for i in range(1, pages):
            if table[i] == table[i - 1] + 1:
                table[i], spare[0] = spare[0], table[i]
                spare.append(spare.pop(0))
        self.page_table = table
        self.size = pages * page_size
        self.mem = Memory(name, self.size)

    @property
    def bus_low(self) -> int:
        """Lowest bus address of the BAR's span (a window covering the span covers every page)."""
        return self.bus_base

    @property
    def bus_high(self) -> int:
        """Last bus byte of the span (inclusive); the span is a power of two."""
        return self.bus_base + self.span_pages * self.page_size - 1

    def bus(self, offset: int) -> int:
        """Bus address of GPU offset *offset*."""
        if not 0 <= offset < self.size:
            raise ModelError(f"{self.name}: GPU offset {offset:#x} outside 0..{self.size:#x}")
        page, off = divmod(offset, self.page_size)
        return self.bus_base + self.page_table[page] * self.page_size + off

    def segments(self, offset: int, length: int) -> list[tuple[int, int]]:
        """[(bus address, length)] covering GPU [offset, offset+length), split at discontinuities."""
        if length <= 0 or offset < 0 or offset + length > self.size:
            raise ModelError(f"{self.name}: GPU range [{offset:#x}, +{length:#x}) outside the BAR")
        out: list[tuple[int, int]] = []
        while length > 0:
            take = min(length, self.page_size - offset % self.page_size)
            bus = self.bus(offset)
            if out and out[-1][0] + out[-1][1] == bus:
                out[-1] = (out[-1][0], out[-1][1] + take)
            else:
                out.append((bus, take))
            offset += take
            length -= take
        return out

    def read(self, offset: int, n: int) -> bytes:
        return self.mem.read(offset, n)

    def write(self, offset: int, data: bytes) -> None:
        self.mem.write(offset, data)

    def mappings(self) -> Iterator[tuple[int, int, Memory, int]]:
        for page, slot in enumerate(self.page_table):
            yield self.bus_base + slot * self.page_size, self.page_size, self.mem, page * self.page_size


class PcieSpace:
    """The PCIe bus as the data movers see it: host RAM regions and GPU BAR pages.

    An access that is not entirely inside mapped memory raises :class:`ModelError` (the test
    fails on it). An access may span several mappings that happen to be adjacent on the bus.
    """

    def __init__(self, regions: Iterable = ()):
        self._maps: list[tuple[int, int, Memory, int]] = []
        self._starts: list[int] = []
        for r in regions:
            self.add(r)

    def add(self, region) -> None:
        self._maps.extend(region.mappings())
        self._maps.sort(key=lambda m: m[0])
        self._starts = [m[0] for m in self._maps]

    def _find(self, bus: int) -> Optional[tuple[int, int, Memory, int]]:
        # the mapping starting last at or below bus (mappings do not overlap)
        i = bisect.bisect_right(self._starts, bus) - 1
        if i >= 0 and bus < self._maps[i][0] + self._maps[i][1]:
            return self._maps[i]
        return None

    def _pieces(self, bus: int, n: int) -> list[tuple[Memory, int, int]]:
        out = []
        start, left = bus, n
        while left > 0:
            m = self._find(bus)
            if m is None:
                raise ModelError(f"PCIe access [{start:#x}, +{n:#x}) touches unmapped bus address {bus:#x}")
            take = min(left, m[0] + m[1] - bus)
            out.append((m[2], m[3] + bus - m[0], take))
            bus += take
            left -= take
        return out

    def contains(self, bus: int, n: int) -> bool:
        try:
            self._pieces(bus, n)
            return True
        except ModelError:
            return False

    def read(self, bus: int, n: int) -> bytes:
        return b"".join(mem.read(off, take) for mem, off, take in self._pieces(bus, n))

    def write(self, bus: int, data: bytes) -> None:
        pos = 0
        for mem, off, take in self._pieces(bus, len(data)):
            mem.write(off, data[pos:pos + take])
            pos += take


# --------------------------------------------------------------------------- descriptors


WORD_ORDERS = ("x0_low", "x0_high")


def _in_order(m: Manifest, value: int, order: str) -> int:
    """*value* (a cldesc, x0 at bits [31:0]) with its 32-bit words in *order*; the same mapping
    turns a channel word in *order* back into the cldesc (reversing twice is the identity)."""
    if order not in WORD_ORDERS:
        raise ValueError(f"word order {order!r}: one of {WORD_ORDERS}")
    if order == "x0_low":
        return value
    n = int(m.layout["cldesc_words"])
    out = 0
    for i in range(n):
        out |= ((value >> (32 * i)) & 0xFFFF_FFFF) << (32 * (n - 1 - i))
    return out


def cldesc_word(m: Manifest, order: Optional[str] = None, **fields: int) -> int:
    """The 256-bit channel word of a cldesc with *fields* (manifest word ``cldesc``), in the
    bridge's configured word order (``x0_low``: x_i at bits [32i+31:32i]; ``x0_high``: reversed),
    or in *order* (a kernel toolchain that lays the struct out otherwise than the bridge expects)."""
    return _in_order(m, m.word("cldesc").pack(**fields), order or m.bridge["word_order"])


def channel_cldesc(m: Manifest, word: int) -> int:
    """The cldesc the bridge reads from channel word *word*: its words taken in the bridge's order."""
    return _in_order(m, word, m.bridge["word_order"])


def cldesc_fields(m: Manifest, src: int, dst: int, nbytes: int, tag: int = 0, desc_id: int = 0,
                  **extra: int) -> dict[str, int]:
    """Fields of a cldesc moving *nbytes* (a multiple of 4, < 1 MB) from *src* to *dst*.

    ``tag`` goes to x5 (tagged status mode only); ``desc_id`` to x4's ID field (paper ID mode);
    *extra* sets any other field raw (``len_overflow``, ``flags``, ``reserved``, or overrides).
    """
    f = dict(src_lo=src & 0xFFFF_FFFF, src_hi=(src >> 32) & 0xFFFF_FFFF,
             dst_lo=dst & 0xFFFF_FFFF, dst_hi=(dst >> 32) & 0xFFFF_FFFF,
             dwords=(nbytes // 4) & m.word("cldesc")["dwords"].mask)
    if tag:
        f["tag"] = tag
    if desc_id:
        f["id"] = desc_id
    f.update(extra)
    return f


@dataclass
class MoverDesc:
    """A descriptor as the data mover received it (or as the host sends it)."""

    src: int
    dst: int
    dwords: int
    id: int
    reserved: int = 0
    cycle: int = 0  # dma_clk cycle the mover took it
    done_cycle: int = 0
    tlps: int = 0  # 4 KB-bounded pieces it was moved in
    status: int = -1  # the mover status word a host descriptor got back (HostController)

    @property
    def nbytes(self) -> int:
        return self.dwords * 4

    @property
    def kernel(self) -> bool:
        return self.id >= 128

    @classmethod
    def unpack(cls, m: Manifest, word: int, cycle: int = 0) -> "MoverDesc":
        f = m.word("mover_desc").unpack(word)
        return cls(src=f["src"], dst=f["dst"], dwords=f["dwords"], id=f["id"], reserved=f["reserved"], cycle=cycle)

    def pack(self, m: Manifest) -> int:
        return m.word("mover_desc").pack(src=self.src, dst=self.dst, dwords=self.dwords, id=self.id)


def split_transfer(nbytes: int, max_bytes: int, gpu: Optional[GpuBar] = None, gpu_offset: int = 0,
                   fpga_addr: int = 0) -> list[tuple[int, int, int]]:
    """Legal descriptor pieces of a GPU<->FPGA transfer: [(bus address, fpga address, bytes)].

    Each piece is at most *max_bytes* (use ``max_dwords * 4`` from the manifest, i.e. 1 MB - 4 B)
    and never crosses a discontinuity of the GPU's bus addresses. Without *gpu*, *gpu_offset* is
    taken as a contiguous bus address. *nbytes* must be a positive multiple of 4.
    """
    if nbytes <= 0 or nbytes % 4:
        raise ValueError(f"transfer of {nbytes} bytes: must be a positive multiple of 4")
    max_bytes -= max_bytes % 4
    segs = gpu.segments(gpu_offset, nbytes) if gpu is not None else [(gpu_offset, nbytes)]
    out = []
    for bus, length in segs:
        while length > 0:
            take = min(length, max_bytes)
            out.append((bus, fpga_addr, take))
            bus += take
            fpga_addr += take
            length -= take
    return out


def max_bytes(m: Manifest) -> int:
    """Largest legal descriptor in bytes (the manifest's max_dwords * 4)."""
    return int(m.layout["max_dwords"]) * 4


# --------------------------------------------------------------------------- pin helpers


class _Pin:
    """Write-on-change wrapper around a DUT input (saves simulator calls)."""

    __slots__ = ("h", "v")

    def __init__(self, handle, value: int = 0):
        self.h = handle
        self.v = None
        self.set(value)

    def set(self, value: int) -> None:
        if value != self.v:
            self.h.value = value
            self.v = value


def _int(handle) -> int:
    v = handle.value
    return v.integer if v.is_resolvable else -1


def dma_reset_pin(dut, m: Manifest):
    """(handle, asserted value) of the dma_clk reset as the manifest names it."""
    c = m.bridge["clocks"]["dma"]
    return getattr(dut, c["reset"]), (0 if c["reset_active_low"] else 1)


def kernel_reset_pin(dut, m: Manifest):
    c = m.bridge["clocks"]["kernel"]
    return getattr(dut, c["reset"]), (0 if c["reset_active_low"] else 1)


# --------------------------------------------------------------------------- data mover


class DataMover:
    """The PCIe hard IP's Read (``rd``) or Write (``wr``) Data Mover on ``<t>_dma_*``.

    Drives ``<t>_dma_desc_ready`` (pattern ``ready``: ``always``, ``random``, ``pNN``, ...) and
    takes a descriptor in any cycle ``<t>_dma_desc_valid`` is high (ready latency 1: that is only
    legal in a cycle after one with ready high, checked). Each descriptor is checked (``dwords``
    1..max_dwords, dword-aligned addresses, reserved bits 0, both ranges inside mapped memory,
    and ``forbidden(desc)`` false), then moved: the read mover copies PCIe -> FPGA, the write mover
    FPGA -> PCIe, in pieces that never cross a 4 KB boundary. Timing: a descriptor taken in cycle
    c starts moving at ``max(c + latency, end of the previous one)`` and takes
    ``ceil(bytes / bytes_per_cycle)`` cycles; at its end the bytes land and one status word
    (manifest ``mover_status``: id, completed=1; or aborted=1 when ``abort(desc)`` / its id is in
    ``abort_ids``; or flushed=1 for ids in ``flush_ids``) is on ``<t>_dma_status_*`` for exactly one
    cycle (one status per cycle at most; later ones wait).

    ``clock`` and ``prefix`` name the clock and the ports (``<prefix>_desc_*``, ``<prefix>_status_*``)
    for a unit other than the bridge (default ``dma_clk`` and ``<t>_dma``).
    ``hold_status``: statuses wait (they are still produced in order afterwards).
    ``log``: every descriptor taken (:class:`MoverDesc` with cycles); ``bytes_moved``,
    ``statuses``, ``cycle``, ``busy_cycles`` let a benchmark compute bandwidth against
    ``bytes_per_cycle``. Violations raise :class:`ModelError` inside the model's coroutine (which
    fails the cocotb test) and are kept in ``errors``.
    """

    def __init__(self, dut, direction: str, manifest: Manifest, pcie: PcieSpace, fpga: Memory,
                 latency: int = 8, bytes_per_cycle: int = 64, ready: str = "always",
                 abort_ids: Optional[set] = None, seed: int = 0, start: bool = True, clock=None,
                 prefix: Optional[str] = None):
        assert direction in DIRECTIONS
        self.dut = dut
        self.t = direction
        self.m = manifest
        self.pcie = pcie
        self.fpga = fpga
        self.latency = latency
        self.bytes_per_cycle = bytes_per_cycle
        self.rng = random.Random(f"mover:{direction}:{seed}")
        self.ready_kind = ready
        self._ready_pat = pattern(ready, self.rng)
        self.abort_ids: set = set(abort_ids or ())
        self.flush_ids: set = set()
        self.abort: Optional[Callable[[MoverDesc], bool]] = None
        self.flush: Optional[Callable[[MoverDesc], bool]] = None
        self.forbidden: Optional[Callable[[MoverDesc], bool]] = None
        self.on_desc: Optional[Callable[[MoverDesc], None]] = None
        self.hold_status = False
        # Put into every status's reserved field (bits the bridge must ignore); the last status
        # word driven, raw (what the bridge's bring-up register must show).
        self.status_reserved = 0
        self.last_status: Optional[int] = None
        self.max_dwords = int(manifest.layout["max_dwords"])
        self.fpga_size = int(manifest.bridge["fpga_mem_bytes"])
        self.log: list[MoverDesc] = []
        self.errors: list[str] = []
        self.pending: deque[MoverDesc] = deque()  # taken, status not yet sent
        self.statuses = 0
        self.kernel_statuses = 0
        self.bytes_moved = 0
        self.tlps = 0
        self.cycle = 0
        self.busy_cycles = 0
        self._busy_until = 0
        # The bridge's ports by default; a unit of its own names its clock and port prefix.
        self._clk = dut.dma_clk if clock is None else clock
        pre = f"{direction}_dma" if prefix is None else prefix
        self._ready = _Pin(getattr(dut, f"{pre}_desc_ready"))
        self._valid = getattr(dut, f"{pre}_desc_valid")
        self._data = getattr(dut, f"{pre}_desc_data")
        self._st_valid = _Pin(getattr(dut, f"{pre}_status_valid"))
        self._st_data = _Pin(getattr(dut, f"{pre}_status_data"))
        self._st = manifest.word("mover_status")
        self.task = cocotb.start_soon(self._run()) if start else None

    def set_ready(self, kind: str) -> None:
        self.ready_kind = kind
        self._ready_pat = pattern(kind, self.rng)

    @property
    def idle(self) -> bool:
        return not self.pending

    def _fail(self, msg: str) -> None:
        msg = f"{self.t} mover, dma cycle {self.cycle}: {msg}"
        self.errors.append(msg)
        raise ModelError(msg)

    def _check(self, d: MoverDesc) -> None:
        if self.forbidden is not None and self.forbidden(d):
            self._fail(f"got a forbidden descriptor {d} (the bridge should have rejected it)")
        if not 1 <= d.dwords <= self.max_dwords:
            self._fail(f"descriptor with {d.dwords} dwords: {d}")
        if d.src % 4 or d.dst % 4:
            self._fail(f"unaligned descriptor {d}")
        if d.reserved:
            self._fail(f"reserved bits set: {d}")
        pcie, fpga = (d.src, d.dst) if self.t == "rd" else (d.dst, d.src)
        if not self.pcie.contains(pcie, d.nbytes):
            self._fail(f"PCIe range [{pcie:#x}, +{d.nbytes:#x}) not inside mapped memory: {d}")
        if fpga + d.nbytes > self.fpga_size:
            self._fail(f"FPGA range [{fpga:#x}, +{d.nbytes:#x}) beyond {self.fpga_size:#x}: {d}")

    def _move(self, d: MoverDesc) -> None:
        pcie, fpga = (d.src, d.dst) if self.t == "rd" else (d.dst, d.src)
        done = 0
        while done < d.nbytes:
            # a piece ends at the next 4 KB boundary of the PCIe address (a TLP's limit)
            take = min(d.nbytes - done, TLP_BOUNDARY - (pcie + done) % TLP_BOUNDARY)
            data = bytearray(self.pcie.read(pcie + done, take) if self.t == "rd" else self.fpga.read(fpga + done, take))
            if done == 0 and MOVER_FAULT:
                data[0] ^= 0x01  # DIREKT_SIM_FAULT=mover_data: a broken mover, for checking that checks fail
            if self.t == "rd":
                self.fpga.write(fpga + done, bytes(data))
            else:
                self.pcie.write(pcie + done, bytes(data))
            done += take
            d.tlps += 1
        self.tlps += d.tlps
        self.bytes_moved += d.nbytes

    def _status(self, d: MoverDesc) -> int:
        r = {"reserved": self.status_reserved} if self.status_reserved else {}
        if d.id in self.flush_ids or (self.flush is not None and self.flush(d)):
            return self._st.pack(id=d.id, flushed=1, flush_count=1, **r)
        if d.id in self.abort_ids or (self.abort is not None and self.abort(d)):
            return self._st.pack(id=d.id, aborted=1, **r)
        self._move(d)
        return self._st.pack(id=d.id, completed=1, **r)

    async def _run(self) -> None:
        prev_ready = 0
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            ready = 1 if next(self._ready_pat) else 0
            self._ready.set(ready)
            head = self.pending[0] if self.pending else None
            if head is not None and head.done_cycle <= self.cycle and not self.hold_status:
                self.pending.popleft()
                self.last_status = self._status(head)
                self._st_data.set(self.last_status)
                self._st_valid.set(1)
                self.statuses += 1
                self.kernel_statuses += head.kernel
            else:
                self._st_valid.set(0)
            if self._busy_until > self.cycle:
                self.busy_cycles += 1
            await ReadOnly()
            if self._valid.value == 1:
                if not prev_ready:
                    self._fail("desc_valid high although desc_ready was low in the previous cycle (ready latency 1)")
                d = MoverDesc.unpack(self.m, self._data.value.integer, self.cycle)
                self._check(d)
                start = max(self.cycle + self.latency, self._busy_until)
                self._busy_until = start + -(-d.nbytes // self.bytes_per_cycle)
                d.done_cycle = self._busy_until
                self.log.append(d)
                self.pending.append(d)
                if self.on_desc is not None:
                    self.on_desc(d)
            prev_ready = ready


# --------------------------------------------------------------------------- host descriptor controller


class HostController:
    """The BSP's descriptor controller on ``<t>_host_desc_*`` (ready latency 1) and
    ``<t>_host_status_*``.

    :meth:`submit` queues a descriptor (src, dst, bytes); it goes out with a free host ID
    (manifest ``ids.host``, at most ``max_outstanding`` at once), in a cycle after one where
    ``host_desc_ready`` was high, on cycles chosen by ``valid`` (a :func:`pattern` kind). Each host
    status must carry an outstanding host ID and come back exactly once (checked, with
    ``completed`` set); ``done`` lists completed descriptors, ``sent``/``completed`` count them.
    ``grants`` records the dma cycle each descriptor left.

    ``obey_ready=False`` makes a broken controller that ignores ready latency 1: it sends whenever
    it has a descriptor (and ``valid`` allows), whatever ``host_desc_ready`` was, so the bridge's
    host buffer overflows once the mover stops taking descriptors (the ALARMS register flags it).
    """

    def __init__(self, dut, direction: str, manifest: Manifest, max_outstanding: int = 8,
                 valid: str = "always", seed: int = 0, start: bool = True, obey_ready: bool = True):
        self.dut = dut
        self.t = direction
        self.m = manifest
        lo, hi = manifest.layout["ids"]["host"]
        self.free_ids = deque(range(lo, hi + 1))
        self.max_outstanding = max_outstanding
        self.obey_ready = obey_ready
        self.sent_log: list[MoverDesc] = []
        self.rng = random.Random(f"host:{direction}:{seed}")
        self._valid_pat = pattern(valid, self.rng)
        self.queue: deque[MoverDesc] = deque()
        self.outstanding: dict[int, MoverDesc] = {}
        self.done: list[MoverDesc] = []
        self.sent = 0
        self.completed = 0
        self.cycle = 0
        self.errors: list[str] = []
        self._st = manifest.word("mover_status")
        self._clk = dut.dma_clk
        self._v = _Pin(getattr(dut, f"{direction}_host_desc_valid"))
        self._d = _Pin(getattr(dut, f"{direction}_host_desc_data"))
        self._ready = getattr(dut, f"{direction}_host_desc_ready")
        self._sv = getattr(dut, f"{direction}_host_status_valid")
        self._sd = getattr(dut, f"{direction}_host_status_data")
        self._idle = Event()
        self.task = cocotb.start_soon(self._run()) if start else None

    def submit(self, src: int, dst: int, nbytes: int) -> MoverDesc:
        """Queues a descriptor; the one returned gets its ID, cycles and ``status`` as it goes."""
        d = MoverDesc(src=src, dst=dst, dwords=nbytes // 4, id=-1)
        self.queue.append(d)
        return d

    @property
    def idle(self) -> bool:
        return not self.queue and not self.outstanding

    def forget(self) -> None:
        """After a reset: drop what was queued; outstanding IDs stay expected (their statuses
        still come back from the mover, straight through the bridge)."""
        self.queue.clear()

    def _fail(self, msg: str) -> None:
        msg = f"{self.t} host controller, dma cycle {self.cycle}: {msg}"
        self.errors.append(msg)
        raise ModelError(msg)

    async def _run(self) -> None:
        prev_ready = 0
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            send = ((prev_ready or not self.obey_ready) and self.queue and self.free_ids
                    and len(self.outstanding) < self.max_outstanding and next(self._valid_pat))
            if send:
                d = self.queue.popleft()
                d.id = self.free_ids.popleft()
                d.cycle = self.cycle
                self.outstanding[d.id] = d
                self.sent_log.append(d)
                self._d.set(d.pack(self.m))
                self._v.set(1)
                self.sent += 1
            else:
                self._v.set(0)
            await ReadOnly()
            prev_ready = self._ready.value == 1
            if self._sv.value == 1:
                f = self._st.unpack(self._sd.value.integer)
                d = self.outstanding.pop(f["id"], None)
                if d is None:
                    self._fail(f"host status for ID {f['id']} which is not outstanding (lost or duplicated routing): {f}")
                if not f["completed"]:
                    self._fail(f"host status without completed: {f}")
                d.done_cycle = self.cycle
                d.status = self._sd.value.integer
                self.done.append(d)
                self.free_ids.append(d.id)
                self.completed += 1


# --------------------------------------------------------------------------- CSR


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
        self._addr = _Pin(dut.csr_address)
        self._read = _Pin(dut.csr_read)
        self._write = _Pin(dut.csr_write)
        self._wdata = _Pin(dut.csr_writedata)
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

    async def clear_counters(self) -> None:
        """CONTROL bit 0 (KeyError when the bridge has no counters, and so no CONTROL register)."""
        await self.write("CONTROL", 1)


# --------------------------------------------------------------------------- kernel side


@dataclass
class KernelStatus:
    """A decoded kernel status. ``error`` is the manifest error code (tagged mode); in cycles
    mode it is None and ``failed`` tells whether the word marks a failure (see :func:`decode_status`)."""

    raw: int
    tag: Optional[int]
    error: Optional[int]
    elapsed: int
    failed: bool
    cycle: int = 0


def decode_status(m: Manifest, word: int, cycle: int = 0) -> KernelStatus:
    """Cycles mode, by the manifest's ``kernel_status_cycles``: with a ``failed`` field, the word
    failed when that field is not 0; with ``cycles`` alone, when it is all ones."""
    ks = m.kernel_status
    f = ks.unpack(word)
    if m.bridge["status_mode"] == "tagged":
        return KernelStatus(word, f["tag"], f["error"], f["elapsed"], f["error"] != 0, cycle)
    failed = f["failed"] != 0 if "failed" in ks.fields else f["cycles"] == ks["cycles"].mask
    return KernelStatus(word, None, None, f["cycles"], failed, cycle)


class KernelModel:
    """The published kernel's way of using one direction: write one cldesc into
    ``<t>_desc_*`` (ready latency 0, kernel_clk), then wait for its status on ``<t>_status_*``.

    :meth:`issue` (raw fields) and :meth:`transfer` (addresses and size) return the
    :class:`KernelStatus`. ``tag`` counts up per call in tagged mode; in paper ID mode the ID is
    ``128 + n % 128`` unless given.
    """

    def __init__(self, dut, direction: str, manifest: Manifest):
        self.dut = dut
        self.t = direction
        self.m = manifest
        self._clk = dut.kernel_clk
        self._v = _Pin(getattr(dut, f"{direction}_desc_valid"))
        self._d = _Pin(getattr(dut, f"{direction}_desc_data"))
        self._ready = getattr(dut, f"{direction}_desc_ready")
        self._sv = getattr(dut, f"{direction}_status_valid")
        self._sd = getattr(dut, f"{direction}_status_data")
        self._sr = _Pin(getattr(dut, f"{direction}_status_ready"))
        self.tagged = manifest.bridge["status_mode"] == "tagged"
        self.paper_ids = manifest.bridge["id_mode"] == "paper"
        self.kernel_ids = manifest.layout["ids"]["kernel"]
        self.n = 0
        self.cycle = 0

    def fields(self, src: int, dst: int, nbytes: int, **extra) -> dict:
        self.n += 1
        if self.tagged and "tag" not in extra:
            extra["tag"] = self.n & 0xFFFF_FFFF
        if self.paper_ids and "desc_id" not in extra and "id" not in extra:
            extra["desc_id"] = self.kernel_ids[0] + self.n % (self.kernel_ids[1] - self.kernel_ids[0] + 1)
        return cldesc_fields(self.m, src, dst, nbytes, **extra)

    async def send(self, fields: dict) -> None:
        await self.send_word(cldesc_word(self.m, **fields))

    async def send_word(self, word: int) -> None:
        """Write one channel word as it is (a region request, say): valid until ready is seen."""
        await RisingEdge(self._clk)
        self._d.set(word)
        self._v.set(1)
        while True:
            await ReadOnly()
            if self._ready.value == 1:
                break
            await RisingEdge(self._clk)
        await RisingEdge(self._clk)
        self._v.set(0)

    async def receive(self, timeout_cycles: int = 1_000_000) -> KernelStatus:
        self._sr.set(1)
        for _ in range(timeout_cycles):
            await ReadOnly()
            if self._sv.value == 1:
                word = self._sd.value.integer
                await RisingEdge(self._clk)
                self._sr.set(0)
                return decode_status(self.m, word)
            await RisingEdge(self._clk)
        raise ModelError(f"{self.t} kernel: no status within {timeout_cycles} kernel cycles")

    async def issue(self, fields: dict, timeout_cycles: int = 1_000_000) -> KernelStatus:
        await self.send(fields)
        return await self.receive(timeout_cycles)

    async def transfer(self, src: int, dst: int, nbytes: int, **extra) -> KernelStatus:
        return await self.issue(self.fields(src, dst, nbytes, **extra))

    async def expect_no_status(self, cycles: int) -> None:
        """Hold status_ready high for *cycles* kernel cycles; fail if a status shows."""
        await RisingEdge(self._clk)
        self._sr.set(1)
        for _ in range(cycles):
            await RisingEdge(self._clk)
            await ReadOnly()
            if self._sv.value == 1:
                raise ModelError(f"{self.t} kernel: unexpected status {self._sd.value.integer:#x}")
        await RisingEdge(self._clk)
        self._sr.set(0)


@dataclass
class KernelJob:
    """One descriptor of a :class:`PipelinedKernel`."""

    fields: dict
    nbytes: int
    src: int
    dst: int
    tag: Optional[int] = None
    issued_cycle: int = -1
    status: Optional[KernelStatus] = None
    on_status: Optional[Callable[["KernelJob"], None]] = None


class PipelinedKernel:
    """A kernel that keeps up to ``max_outstanding`` (default: the bridge's ``inflight``)
    descriptors in flight on one direction, with ``status_ready`` following the pattern
    ``status_ready`` (random back-pressure by default) and ``valid`` the pattern for offering
    descriptors. In tagged mode statuses are matched to jobs by tag (each tag unique among those
    in flight; an unknown or repeated tag fails); in cycles mode they are counted (the bridge's
    order is the mover's completion order, not the issue order).

    :meth:`add` queues a job; :meth:`drain` waits until every job has its status. ``issued``,
    ``received``, ``failed`` count; ``unmatched`` must stay 0.
    """

    def __init__(self, dut, direction: str, manifest: Manifest, status_ready: str = "random",
                 valid: str = "always", max_outstanding: Optional[int] = None, seed: int = 0, start: bool = True):
        self.dut = dut
        self.t = direction
        self.m = manifest
        self.rng = random.Random(f"kernel:{direction}:{seed}")
        self._sr_pat = pattern(status_ready, self.rng)
        self._v_pat = pattern(valid, self.rng)
        self.max_outstanding = max_outstanding or int(manifest.bridge["inflight"])
        self.tagged = manifest.bridge["status_mode"] == "tagged"
        self.paper_ids = manifest.bridge["id_mode"] == "paper"
        self.queue: deque[KernelJob] = deque()
        self.inflight: dict[int, KernelJob] = {}  # tag -> job (tagged); seq -> job (cycles)
        self._order: deque[KernelJob] = deque()
        self.done: list[KernelJob] = []
        self.issued = 0
        self.received = 0
        self.failed = 0
        self.cycle = 0
        self._tag = 0
        self._seq = 0
        self.errors: list[str] = []
        self._clk = dut.kernel_clk
        self._v = _Pin(getattr(dut, f"{direction}_desc_valid"))
        self._d = _Pin(getattr(dut, f"{direction}_desc_data"))
        self._ready = getattr(dut, f"{direction}_desc_ready")
        self._sv = getattr(dut, f"{direction}_status_valid")
        self._sd = getattr(dut, f"{direction}_status_data")
        self._sr = _Pin(getattr(dut, f"{direction}_status_ready"))
        self._changed = Event()
        self.enabled = True
        self._drop_offer = False
        self.task = cocotb.start_soon(self._run()) if start else None

    def add(self, src: int, dst: int, nbytes: int, on_status=None, **extra) -> KernelJob:
        """Queue a transfer. Tagged mode: a fresh tag; paper ID mode: ID 128 + n % 128."""
        self._seq += 1
        tag = None
        if self.tagged:
            self._tag = (self._tag + 1) & 0xFFFF_FFFF or 1
            tag = self._tag
            extra.setdefault("tag", tag)
        if self.paper_ids:
            extra.setdefault("desc_id", 128 + self._seq % 128)
        job = KernelJob(cldesc_fields(self.m, src, dst, nbytes, **extra), nbytes, src, dst, tag, on_status=on_status)
        self.queue.append(job)
        return job

    @property
    def outstanding(self) -> int:
        return self.issued - self.received

    @property
    def idle(self) -> bool:
        return not self.queue and self.outstanding == 0

    def forget(self) -> list[KernelJob]:
        """After a reset: every job in flight and queued is dropped (returned)."""
        lost = list(self.inflight.values()) + list(self._order) + list(self.queue)
        self.inflight.clear()
        self._order.clear()
        self.queue.clear()
        self.issued = self.received
        self._drop_offer = True
        return lost

    def _fail(self, msg: str) -> None:
        msg = f"{self.t} kernel, kernel cycle {self.cycle}: {msg}"
        self.errors.append(msg)
        raise ModelError(msg)

    async def drain(self, timeout_cycles: int = 10_000_000) -> None:
        start = self.cycle
        while not self.idle:
            await RisingEdge(self._clk)
            if self.cycle - start > timeout_cycles:
                self._fail(f"drain: {self.outstanding} status(es) missing, {len(self.queue)} queued, "
                           f"after {timeout_cycles} cycles")

    async def _run(self) -> None:
        offered: Optional[KernelJob] = None
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            if self._drop_offer:
                offered, self._drop_offer = None, False
            if offered is None:
                if self.enabled and self.queue and self.outstanding < self.max_outstanding and next(self._v_pat):
                    offered = self.queue.popleft()
                    self._d.set(cldesc_word(self.m, **offered.fields))
                    self._v.set(1)
                else:
                    self._v.set(0)
            # A kernel in reset takes no status.
            sr = 1 if next(self._sr_pat) and self.enabled else 0
            self._sr.set(sr)
            await ReadOnly()
            if not self.enabled:
                # Reset came at this edge (after this cycle's pins were set): whatever the pins
                # did this cycle belongs to the kernel that was reset, and forget() dropped it.
                continue
            if offered is not None and self._ready.value == 1:
                offered.issued_cycle = self.cycle
                if self.tagged:
                    if offered.tag in self.inflight:
                        self._fail(f"tag {offered.tag} reused while in flight")
                    self.inflight[offered.tag] = offered
                else:
                    self._order.append(offered)
                self.issued += 1
                offered = None
            if sr and self._sv.value == 1:
                st = decode_status(self.m, self._sd.value.integer, self.cycle)
                if self.tagged:
                    job = self.inflight.pop(st.tag, None)
                    if job is None:
                        self._fail(f"status with tag {st.tag} that is not in flight (duplicate or invented): {st}")
                else:
                    if not self._order:
                        self._fail(f"status while nothing is in flight (duplicate or invented): {st}")
                    job = self._order.popleft()  # counted; which job it reports is not knowable
                job.status = st
                self.received += 1
                self.failed += st.failed
                self.done.append(job)
                if job.on_status is not None:
                    job.on_status(job)


# --------------------------------------------------------------------------- reset


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
