# SPDX-License-Identifier: Apache-2.0
"""The PCIe side of the bridge, as its data movers see it: sparse memories, host RAM, a GPU's BAR
of scattered 64 KB pages, the bus that routes addresses to them, and the rule of the bridge's
windows (naturally aligned power-of-two blocks).

    gpu = GpuBar(bus_base=GPU_BUS, pages=16, seed=1)     # span: 2 MB, aligned
    pcie = PcieSpace([gpu, HostRam(HOST_BUS, 4 << 20)])
    base, last = aligned_block(gpu.bus_low, gpu.bus_high)  # the window to open over it
"""

from __future__ import annotations

import bisect
import random
from typing import Iterable, Iterator, Optional

from .pins import ModelError

TLP_BOUNDARY = 4096  # a PCIe request never crosses a 4 KB boundary


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
