# SPDX-License-Identifier: Apache-2.0
"""The PCIe hard IP's Read (``rd``: PCIe -> FPGA) and Write (``wr``: FPGA -> PCIe) Data Movers,
their descriptors, and how a transfer is cut into legal descriptors.

Deliberately broken movers, for showing that the checks around them fail (``DIREKT_SIM_FAULT``,
read when a mover is made; every :class:`DataMover` of the simulation has the fault):

``mover_data``   every descriptor's first byte arrives with its lowest bit flipped.
``status_drop``  the status of the 3rd kernel descriptor a mover completes is never returned (its
                 bytes still move): the kernel waits for it until its timeout.
``wrong_id``     the status of the 3rd kernel descriptor a mover completes carries another ID (its
                 ID with bit 0 flipped): with managed IDs the bridge routes it to another
                 descriptor's tag, or counts it as spurious, and the kernel waits for the real one.
                 (With paper IDs and cycles statuses, presets paper and lean, the bridge passes statuses on
                 in order and reads the ID only for the elapsed count: nothing there can tell.)
"""

from __future__ import annotations

import os
import random
from collections import deque
from dataclasses import dataclass
from typing import Callable, Optional

from cocotb.triggers import Event, ReadOnly, RisingEdge

from .avalon_st import AvalonStError, AvalonStMonitor
from .layout import Manifest
from .pcie import TLP_BOUNDARY, GpuBar, Memory, PcieSpace
from .pins import DIRECTIONS, ClockCount, Model, ModelError, Pin, watch
from .stimulus import pattern, value

FAULTS = ("mover_data", "status_drop", "wrong_id")
FAULT_ENV = "DIREKT_SIM_FAULT"
FAULT_AT = 3  # status_drop / wrong_id: the kernel descriptor (counted from 1, per mover) whose status they spoil


def fault() -> str:
    """The fault ``DIREKT_SIM_FAULT`` names ("" for none; anything else not in :data:`FAULTS` is refused)."""
    kind = os.environ.get(FAULT_ENV, "").strip()
    if kind and kind not in FAULTS:
        raise ModelError(f"{FAULT_ENV}={kind!r}: one of {', '.join(FAULTS)}")
    return kind


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
    tlps: int = 0  # 4 KB-bounded pieces (PCIe requests) it is moved in
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

    Each piece is at most *max_bytes* (use :func:`max_bytes`, i.e. 1 MB - 4 B) and never crosses a
    discontinuity of the GPU's bus addresses. Without *gpu*, *gpu_offset* is taken as a
    contiguous bus address. *nbytes* must be a positive multiple of 4.
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


class DataMover(Model):
    """The Read (``rd``) or Write (``wr``) Data Mover on ``<t>_dma_*``.

    Drives ``<t>_dma_desc_ready`` (pattern ``ready``: ``always``, ``random``, ``pNN``, ...) and
    takes a descriptor in any cycle ``<t>_dma_desc_valid`` is high (ready latency 1: that is only
    legal in a cycle after one with ready high, and valid is never X; ``desc_monitor``, an
    :class:`~direkt_sim.avalon_st.AvalonStMonitor`, checks it every cycle). Each descriptor is checked (``dwords``
    1..max_dwords, dword-aligned addresses, reserved bits 0, both ranges inside mapped memory,
    and ``forbidden(desc)`` false), then moved: the read mover copies PCIe -> FPGA, the write mover
    FPGA -> PCIe. Timing: a descriptor taken in cycle c starts moving at ``max(c + latency, end of
    the previous one)`` and takes ``ceil(bytes / bytes_per_cycle)`` cycles; at its end the bytes
    land (``tlps`` counts the 4 KB-bounded PCIe requests they make) and one status word (manifest
    ``mover_status``: id, completed=1; or aborted=1 when ``abort(desc)`` / its id is in
    ``abort_ids``; or flushed=1 for ids in ``flush_ids`` / ``flush(desc)``) is on
    ``<t>_dma_status_*`` for exactly one cycle (one status per cycle at most; later ones wait).

    ``clock`` and ``prefix`` name the clock and the ports (``<prefix>_desc_*``, ``<prefix>_status_*``)
    for a unit other than the bridge (default ``dma_clk`` and ``<t>_dma``). ``pcie`` is anything
    with ``contains``/``read``/``write`` by bus address (:class:`~direkt_sim.pcie.PcieSpace`).
    ``hold_status``: statuses wait (they are still produced in order afterwards).
    ``log`` (``keep_log``): every descriptor taken (:class:`MoverDesc` with cycles); ``descriptors``,
    ``bytes_moved``, ``statuses``, ``cycle``, ``busy_cycles`` let a benchmark compute bandwidth
    against ``bytes_per_cycle``. Violations raise :class:`ModelError` inside the model's coroutine
    (which fails the cocotb test) and are kept in ``errors``.

    ``woken``: a :class:`~direkt_sim.pins.ClockCount` of the mover's clock. The mover then keeps
    ready high, takes a descriptor when ``desc_valid`` is high and wakes again only when the head
    of its queue is due (``ready`` must be ``always``; no ``hold_status``). ``spawn`` starts its
    coroutines (default :func:`cocotb.start_soon`).
    """

    def __init__(self, dut, direction: str, manifest: Manifest, pcie: PcieSpace, fpga: Memory,
                 latency: int = 8, bytes_per_cycle: int = 64, ready: str = "always",
                 abort_ids: Optional[set] = None, seed: int = 0, start: bool = True, clock=None,
                 prefix: Optional[str] = None, woken: Optional[ClockCount] = None, spawn=None,
                 keep_log: bool = True, ready_latency: int = 1, agents: Optional[list] = None):
        assert direction in DIRECTIONS
        if woken is not None and ready != "always":
            raise ValueError(f"a woken mover keeps ready high (ready={ready!r})")
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
        self.fault = fault()
        # Put into every status's reserved field (bits the bridge must ignore); the last status
        # word driven, raw (what the bridge's bring-up register must show).
        self.status_reserved = 0
        self.last_status: Optional[int] = None
        self.max_dwords = int(manifest.layout["max_dwords"])
        self.fpga_size = int(manifest.bridge["fpga_mem_bytes"])
        self.keep_log = keep_log
        # Avalon-MM agents the read mover writes through rather than into FPGA memory:
        # (base, size, writer) with writer.send(first word, 256-bit beats) (a descriptor
        # controller's DTS agents, :class:`~direkt_sim.avalon_mm.BurstWriter`).
        self.agents: list = list(agents or ())
        self.log: list[MoverDesc] = []
        self.errors: list[str] = []
        self.pending: deque[MoverDesc] = deque()  # taken, status not yet sent
        self.descriptors = 0
        self.statuses = 0
        self.kernel_statuses = 0
        self.kernel_completed = 0
        self.bytes_moved = 0
        self.tlps = 0
        self.cycle = 0
        self.busy_cycles = 0
        self._busy_until = 0
        # The bridge's ports by default; a unit of its own names its clock and port prefix.
        self._clk = dut.dma_clk if clock is None else clock
        pre = f"{direction}_dma" if prefix is None else prefix
        self._ready = Pin(getattr(dut, f"{pre}_desc_ready"))
        self._valid = getattr(dut, f"{pre}_desc_valid")
        self._data = getattr(dut, f"{pre}_desc_data")
        self._st_valid = Pin(getattr(dut, f"{pre}_status_valid"))
        self._st_data = Pin(getattr(dut, f"{pre}_status_data"))
        self._st = manifest.word("mover_status")
        # The descriptor interface's rules, checked every cycle (not in the woken form, whose ready
        # is always high: every valid cycle is a legal transfer there).
        self.desc_monitor = AvalonStMonitor(dut, f"{pre}_desc_", self._clk, ready_latency=ready_latency,
                                            name=f"{direction} mover descriptors")
        self.what = f"{direction} mover"
        self.woken = woken
        self._more = Event()
        if woken is not None:
            self._ready.set(1)
        if start:
            self.start(spawn)

    def _woken(self) -> list:
        return [watch(self._valid, self._clk, self._take_woken), self._complete_woken()]

    def set_ready(self, kind: str) -> None:
        self.ready_kind = kind
        self._ready_pat = pattern(kind, self.rng)

    @property
    def idle(self) -> bool:
        return not self.pending

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
        agent = self._agent(fpga, d.nbytes)
        if agent is not None:
            if self.t != "rd" or fpga % 32 or d.nbytes % 32:
                self._fail(f"descriptor into agent at {agent[0]:#x} is not a read of whole 32-byte words: {d}")
        elif fpga + d.nbytes > self.fpga_size:
            self._fail(f"FPGA range [{fpga:#x}, +{d.nbytes:#x}) beyond {self.fpga_size:#x}: {d}")

    def _take(self, word: int) -> None:
        """The descriptor on the pins this cycle: checked, scheduled, logged."""
        d = MoverDesc.unpack(self.m, word, self.cycle)
        self._check(d)
        start = max(self.cycle + self.latency, self._busy_until)
        end = start + -(-d.nbytes // self.bytes_per_cycle)
        # Cycles from the one after this up to the end with the mover working or waiting on latency.
        self.busy_cycles += end - max(self.cycle + 1, self._busy_until)
        self._busy_until = d.done_cycle = end
        self.descriptors += 1
        if self.keep_log:
            self.log.append(d)
        self.pending.append(d)
        if self.on_desc is not None:
            self.on_desc(d)

    def _agent(self, addr: int, n: int):
        """The agent (base, size, writer) whose window holds [addr, +n), or None."""
        for a in self.agents:
            if a[0] <= addr and addr + n <= a[0] + a[1]:
                return a
        return None

    def _move(self, d: MoverDesc) -> None:
        # All of a descriptor's bytes land at its end: one read and one write (a link round trip
        # for the simulated device costs the same for 4 KB as for 1 MB). Into an agent, the bytes
        # leave as 256-bit beats from then on, while the status goes out at once (the Avalon-MM
        # writes a mover issued may still be on their way when its status is).
        pcie, fpga = (d.src, d.dst) if self.t == "rd" else (d.dst, d.src)
        data = bytearray(self.pcie.read(pcie, d.nbytes) if self.t == "rd" else self.fpga.read(fpga, d.nbytes))
        if self.fault == "mover_data":
            data[0] ^= 0x01
        agent = self._agent(fpga, d.nbytes) if self.t == "rd" else None
        if agent is not None:
            beats = [int.from_bytes(data[i:i + 32], "little") for i in range(0, len(data), 32)]
            agent[2].send((fpga - agent[0]) // 32, beats)
        elif self.t == "rd":
            self.fpga.write(fpga, bytes(data))
        else:
            self.pcie.write(pcie, bytes(data))
        d.tlps = (pcie + d.nbytes - 1) // TLP_BOUNDARY - pcie // TLP_BOUNDARY + 1
        self.tlps += d.tlps
        self.bytes_moved += d.nbytes

    def _complete(self, d: MoverDesc) -> Optional[int]:
        """The status word for *d* at its end (moving its bytes unless it is aborted or flushed),
        or None where the fault drops it."""
        r = {"reserved": self.status_reserved} if self.status_reserved else {}
        ident = d.id
        if d.kernel:
            self.kernel_completed += 1
            if self.kernel_completed == FAULT_AT and self.fault == "status_drop":
                self._move(d)
                return None
            if self.kernel_completed == FAULT_AT and self.fault == "wrong_id":
                ident ^= 1
        if d.id in self.flush_ids or (self.flush is not None and self.flush(d)):
            word = self._st.pack(id=ident, flushed=1, flush_count=1, **r)
        elif d.id in self.abort_ids or (self.abort is not None and self.abort(d)):
            word = self._st.pack(id=ident, aborted=1, **r)
        else:
            self._move(d)
            word = self._st.pack(id=ident, completed=1, **r)
        self.last_status = word
        self.statuses += 1
        self.kernel_statuses += d.kernel
        return word

    # ----------------------------------------------------------------- every edge

    async def _run(self) -> None:
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            ready = 1 if next(self._ready_pat) else 0
            self._ready.set(ready)
            head = self.pending[0] if self.pending else None
            word = None
            if head is not None and head.done_cycle <= self.cycle and not self.hold_status:
                word = self._complete(self.pending.popleft())
            if word is not None:
                self._st_data.set(word)
                self._st_valid.set(1)
            else:
                self._st_valid.set(0)
            await ReadOnly()
            valid = value(self._valid)
            data = value(self._data) if valid else None
            try:
                moves = self.desc_monitor.step(valid, data, ready)
            except AvalonStError as e:
                self._fail(str(e))
            if moves:
                self._take(data)

    # ----------------------------------------------------------------- woken

    def _take_woken(self) -> None:
        self.cycle = self.woken.cycle()
        self._take(self._data.value.integer)
        self._more.set()

    async def _complete_woken(self) -> None:
        clock = self.woken
        while True:
            while not self.pending:
                await self._more.wait()
                self._more.clear()
            await clock.edge(self.pending[0].done_cycle)
            while self.pending and self.pending[0].done_cycle <= clock.cycle():
                self.cycle = clock.cycle()
                word = self._complete(self.pending.popleft())
                if word is None:
                    continue
                self._st_data.set(word)
                self._st_valid.set(1)
                await RisingEdge(self._clk)
            self._st_valid.set(0)
