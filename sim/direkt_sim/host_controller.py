# SPDX-License-Identifier: Apache-2.0
"""The BSP's descriptor controller: the host's own DMA descriptors into the bridge."""

from __future__ import annotations

import random
from collections import deque
from typing import Callable, Optional

from cocotb.triggers import Event, ReadOnly, RisingEdge

from .layout import Manifest
from .mover import MoverDesc
from .pins import ClockCount, Model, Pin, watch
from .stimulus import pattern


class HostController(Model):
    """The BSP's descriptor controller on ``<t>_host_desc_*`` (ready latency 1) and
    ``<t>_host_status_*``.

    :meth:`submit` queues a descriptor (src, dst, bytes); it goes out with a free host ID
    (manifest ``ids.host``, at most ``max_outstanding`` at once), in a cycle after one where
    ``host_desc_ready`` was high, on cycles chosen by ``valid`` (a :func:`pattern` kind). Each host
    status must carry an outstanding host ID and come back exactly once (checked, with
    ``completed`` set); ``done`` lists completed descriptors, ``sent``/``completed`` count them.
    ``sent_log`` holds every descriptor as it left (``keep_log``), its ``cycle`` the dma cycle.

    ``obey_ready=False`` makes a broken controller that ignores ready latency 1: it sends whenever
    it has a descriptor (and ``valid`` allows), whatever ``host_desc_ready`` was, so the bridge's
    host buffer overflows once the mover stops taking descriptors (the ALARMS register flags it).

    ``woken``: a :class:`~direkt_sim.pins.ClockCount` of dma_clk. The controller then wakes per
    cycle only while it has a descriptor it may send, and on a status (``valid`` must be
    ``always``). ``on_change`` is called after each status; ``spawn`` starts its coroutines.
    """

    def __init__(self, dut, direction: str, manifest: Manifest, max_outstanding: int = 8,
                 valid: str = "always", seed: int = 0, start: bool = True, obey_ready: bool = True,
                 woken: Optional[ClockCount] = None, spawn=None, keep_log: bool = True,
                 on_change: Optional[Callable[[], None]] = None):
        if woken is not None and (valid != "always" or not obey_ready):
            raise ValueError("a woken host controller sends whenever it may (valid always, ready latency 1 obeyed)")
        self.dut = dut
        self.t = direction
        self.m = manifest
        lo, hi = manifest.layout["ids"]["host"]
        self.free_ids = deque(range(lo, hi + 1))
        self.max_outstanding = max_outstanding
        self.obey_ready = obey_ready
        self.keep_log = keep_log
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
        self.on_change = on_change
        self._st = manifest.word("mover_status")
        self._clk = dut.dma_clk
        self._v = Pin(getattr(dut, f"{direction}_host_desc_valid"))
        self._d = Pin(getattr(dut, f"{direction}_host_desc_data"))
        self._ready = getattr(dut, f"{direction}_host_desc_ready")
        self._sv = getattr(dut, f"{direction}_host_status_valid")
        self._sd = getattr(dut, f"{direction}_host_status_data")
        self.what = f"{direction} host controller"
        self.woken = woken
        self._wake = Event()
        if start:
            self.start(spawn)

    def _woken(self) -> list:
        return [self._send_woken(), watch(self._sv, self._clk, self._status_woken)]

    def submit(self, src: int, dst: int, nbytes: int) -> MoverDesc:
        """Queues a descriptor; the one returned gets its ID, cycles and ``status`` as it goes."""
        d = MoverDesc(src=src, dst=dst, dwords=nbytes // 4, id=-1)
        self.queue.append(d)
        self._wake.set()
        return d

    @property
    def idle(self) -> bool:
        return not self.queue and not self.outstanding

    def forget(self) -> None:
        """After a reset: drop what was queued; outstanding IDs stay expected (their statuses
        still come back from the mover, straight through the bridge)."""
        self.queue.clear()

    def _sendable(self) -> bool:
        return bool(self.queue) and bool(self.free_ids) and len(self.outstanding) < self.max_outstanding

    def _send(self) -> None:
        """The next queued descriptor onto the pins, with a free ID (this cycle's valid)."""
        d = self.queue.popleft()
        d.id = self.free_ids.popleft()
        d.cycle = self.cycle
        self.outstanding[d.id] = d
        if self.keep_log:
            self.sent_log.append(d)
        self._d.set(d.pack(self.m))
        self._v.set(1)
        self.sent += 1

    def _status(self, raw: int) -> None:
        f = self._st.unpack(raw)
        d = self.outstanding.pop(f["id"], None)
        if d is None:
            self._fail(f"host status for ID {f['id']} which is not outstanding (lost or duplicated routing): {f}")
        if not f["completed"]:
            self._fail(f"host status without completed: {f}")
        d.done_cycle = self.cycle
        d.status = raw
        if self.keep_log:
            self.done.append(d)
        self.free_ids.append(d.id)
        self.completed += 1
        self._wake.set()
        if self.on_change is not None:
            self.on_change()

    # ----------------------------------------------------------------- every edge

    async def _run(self) -> None:
        prev_ready = 0
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            if (prev_ready or not self.obey_ready) and self._sendable() and next(self._valid_pat):
                self._send()
            else:
                self._v.set(0)
            await ReadOnly()
            prev_ready = self._ready.value == 1
            if self._sv.value == 1:
                self._status(self._sd.value.integer)

    # ----------------------------------------------------------------- woken

    async def _send_woken(self) -> None:
        clk = self._clk
        while True:
            while not self._sendable():
                await self._wake.wait()
                self._wake.clear()
            await RisingEdge(clk)
            await ReadOnly()
            prev_ready = self._ready.value == 1
            while True:
                await RisingEdge(clk)
                self.cycle = self.woken.cycle()
                if prev_ready and self._sendable():
                    self._send()
                else:
                    self._v.set(0)
                    if not self._sendable():
                        break
                await ReadOnly()
                prev_ready = self._ready.value == 1

    def _status_woken(self) -> None:
        self.cycle = self.woken.cycle()
        self._status(self._sd.value.integer)
