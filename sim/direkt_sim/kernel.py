# SPDX-License-Identifier: Apache-2.0
"""The OpenCL kernel's side of one kernel port: descriptors out, statuses in."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Optional

from cocotb.triggers import Event, First, ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from .avalon_st import AvalonStError, AvalonStMonitor
from .channel import KernelStatus, cldesc_fields, cldesc_word, decode_status, port_prefix
from .layout import Manifest
from .pins import ClockCount, Model, Pin, watch
from .reset import kernel_reset_pin
from .stimulus import pattern, value


@dataclass(eq=False)
class KernelJob:
    """One request on a kernel channel: its channel words (a cldesc is one word; a region request
    of several entries is several, with one status for all) and, once it came, its status.
    ``tag`` is the tag its status must carry (tagged status mode); ``fields``, ``src``, ``dst``,
    ``nbytes`` describe a cldesc job."""

    words: list[int]
    tag: Optional[int] = None
    fields: Optional[dict] = None
    src: int = 0
    dst: int = 0
    nbytes: int = 0
    issued_cycle: int = -1
    status: Optional[KernelStatus] = None
    on_status: Optional[Callable[["KernelJob"], None]] = field(default=None, repr=False)


class KernelChannel(Model):
    """The kernel's side of one kernel port (``<t>_desc_*`` and ``<t>_status_*``, port k > 0:
    ``<t>_p<k>_*``; kernel_clk): writes each job's channel words (ready latency 0, valid held until
    ready), keeps at most ``max_outstanding`` jobs in flight (default: the bridge's ``inflight``)
    and matches every status to a job in flight: by tag in tagged status mode (a tag nothing in
    flight carries fails: a duplicated or invented status), in order in cycles mode (the bridge's
    order is the mover's completion order, which the issue order is only where one is in flight).

    Jobs: :meth:`add` (a cldesc moving bytes; tagged mode: a fresh tag, paper ID mode: ID 128 +
    n % 128, unless given), :meth:`add_fields` (a cldesc as given), :meth:`add_words` (raw channel
    words: region requests), :meth:`add_job`; :meth:`transfer` and :meth:`issue` wait for that
    job's status and return it; :meth:`drain` waits until every job has its status.
    ``issued``, ``received``, ``failed`` count; ``done`` keeps the jobs whose status came
    (``keep_done``). ``unique_tags``: a job whose tag is already in flight fails (a host's replay
    job may repeat tags: off there, and a status goes to the first job in flight with its tag).

    Every edge (default): ``desc_monitor`` and ``status_monitor``
    (:class:`~direkt_sim.avalon_st.AvalonStMonitor`) check the Avalon-ST rules on both channels
    every cycle (ready latency 0; valid and data never X while valid; the hold rule: an offer not
    taken stays, unchanged, until it is, for the kernel's words and the bridge's statuses alike;
    a cycle with the kernel reset asserted moves nothing). ``valid`` is the pattern for offering a
    new job and ``status_ready`` the pattern for taking statuses
    (:func:`~direkt_sim.stimulus.pattern`; :meth:`set_status_ready` changes it); ``status_held``
    keeps status_ready low; ``enabled`` False is a kernel in reset
    (nothing offered, no status taken; :meth:`forget` drops its jobs). ``woken``: a
    :class:`~direkt_sim.pins.ClockCount` of kernel_clk: the channel wakes per cycle only while it
    has a word to write and when a status arrives (status ready held high; both patterns
    ``always``, no reset). ``on_change`` is called after each status; ``spawn`` starts its coroutines.
    """

    def __init__(self, dut, direction: str, manifest: Manifest, port: int = 0, status_ready: str = "always",
                 valid: str = "always", max_outstanding: Optional[int] = None, seed: int = 0,
                 unique_tags: bool = True, woken: Optional[ClockCount] = None, spawn=None,
                 keep_done: bool = True, on_change: Optional[Callable[[], None]] = None, start: bool = True):
        if woken is not None and (status_ready, valid) != ("always", "always"):
            raise ValueError("a woken kernel channel offers whenever it may and keeps status ready high")
        self.dut = dut
        self.t = direction
        self.name = port_prefix(direction, port)
        self.m = manifest
        self.rng = random.Random(f"kernel:{self.name}:{seed}")
        self._sr_pat = pattern(status_ready, self.rng)
        self._v_pat = pattern(valid, self.rng)
        self.max_outstanding = max_outstanding or int(manifest.bridge["inflight"])
        self.tagged = manifest.bridge["status_mode"] == "tagged"
        self.paper_ids = manifest.bridge["id_mode"] == "paper"
        self.kernel_ids = manifest.layout["ids"]["kernel"]
        self.unique_tags = unique_tags
        self.keep_done = keep_done
        self.on_change = on_change
        self.queue: deque[KernelJob] = deque()
        self.inflight: list[KernelJob] = []  # in the order they went out
        self.done: list[KernelJob] = []
        self.issued = 0
        self.received = 0
        self.failed = 0
        self.cycle = 0
        self.quiet = 0  # cycles reading with something to wait for and no status
        self.n = 0
        self.errors: list[str] = []
        self.enabled = True
        self.status_held = False
        self.offered: Optional[KernelJob] = None  # the job whose words are on the channel now
        # Awaited when a status does not come in time: what the DUT says about it, for the message.
        self.explain: Optional[Callable[[], Awaitable[str]]] = None
        self._drop_offer = False
        self._clk = dut.kernel_clk
        pre = self.name
        self._v = Pin(getattr(dut, f"{pre}_desc_valid"))
        self._d = Pin(getattr(dut, f"{pre}_desc_data"))
        self._ready = getattr(dut, f"{pre}_desc_ready")
        self._sv = getattr(dut, f"{pre}_status_valid")
        self._sd = getattr(dut, f"{pre}_status_data")
        self._sr = Pin(getattr(dut, f"{pre}_status_ready"), 0 if woken is None else 1)
        rst, level = kernel_reset_pin(dut, manifest)
        self.desc_monitor = AvalonStMonitor(dut, f"{pre}_desc_", self._clk, rst, reset_active_low=level == 0,
                                            name=f"{pre} descriptors")
        self.status_monitor = AvalonStMonitor(dut, f"{pre}_status_", self._clk, rst, reset_active_low=level == 0,
                                              name=f"{pre} statuses")
        self.what = f"{self.name} kernel"
        self.clock_name = "kernel"
        self.woken = woken
        self._wake = Event()
        self._changed = Event()
        if start:
            self.start(spawn)

    def _woken(self) -> list:
        return [self._send_woken(), watch(self._sv, self._clk, self._status_woken)]

    def set_status_ready(self, kind: str) -> None:
        self._sr_pat = pattern(kind, self.rng)

    # ----------------------------------------------------------------- jobs

    def fields(self, src: int, dst: int, nbytes: int, **extra) -> dict:
        """cldesc fields of the next job: a fresh tag (tagged mode) and kernel ID (paper ID mode) unless given."""
        self.n += 1
        if self.tagged and "tag" not in extra:
            extra["tag"] = (self.n & 0xFFFF_FFFF) or 1
        if self.paper_ids and "desc_id" not in extra and "id" not in extra:
            extra["desc_id"] = self.kernel_ids[0] + self.n % (self.kernel_ids[1] - self.kernel_ids[0] + 1)
        return cldesc_fields(self.m, src, dst, nbytes, **extra)

    def add(self, src: int, dst: int, nbytes: int, on_status=None, **extra) -> KernelJob:
        """Queue a cldesc moving *nbytes* from *src* to *dst* (fields as :meth:`fields` makes them)."""
        return self.add_fields(self.fields(src, dst, nbytes, **extra), on_status)

    def add_fields(self, fields: dict, on_status=None) -> KernelJob:
        """Queue a cldesc with *fields* as they are."""
        f = fields
        job = KernelJob([cldesc_word(self.m, **f)], f.get("tag", 0) if self.tagged else None, f,
                        src=f.get("src_hi", 0) << 32 | f.get("src_lo", 0), dst=f.get("dst_hi", 0) << 32 | f.get("dst_lo", 0),
                        nbytes=4 * f.get("dwords", 0), on_status=on_status)
        return self.add_job(job)

    def add_words(self, words: list[int], tag: Optional[int] = None, on_status=None) -> KernelJob:
        """Queue channel words as they are (one region request, say), written back to back; one status for them."""
        return self.add_job(KernelJob(list(words), tag if self.tagged else None, on_status=on_status))

    def add_job(self, job: KernelJob) -> KernelJob:
        self.queue.append(job)
        self._wake.set()
        return job

    async def issue(self, fields: dict, timeout_cycles: int = 200_000) -> KernelStatus:
        """Write a cldesc with *fields* as they are; its status."""
        return await self.wait(self.add_fields(fields), timeout_cycles)

    async def transfer(self, src: int, dst: int, nbytes: int, timeout_cycles: int = 200_000, **extra) -> KernelStatus:
        """Move *nbytes* from *src* to *dst* (fields as :meth:`fields` makes them); its status."""
        return await self.wait(self.add(src, dst, nbytes, **extra), timeout_cycles)

    async def wait(self, job: KernelJob, timeout_cycles: int = 200_000) -> KernelStatus:
        """*job*'s status, once it came; fails after *timeout_cycles* kernel cycles without it."""
        await self._until(lambda: job.status is not None, timeout_cycles,
                          lambda: f"no status within {timeout_cycles} kernel cycles for a job"
                                  + (f" with tag {job.tag}" if job.tag is not None else "")
                                  + f" ({self.outstanding} status(es) missing, {len(self.queue)} queued)")
        return job.status

    async def drain(self, timeout_cycles: int = 10_000_000, gap_cycles: Optional[int] = None) -> None:
        """Waits until every job has its status; fails after *timeout_cycles* kernel cycles, or
        after *gap_cycles* cycles of reading without a status while some are missing."""
        await self._until(lambda: self.idle, timeout_cycles,
                          lambda: f"drain: {self.outstanding} status(es) missing, {len(self.queue)} queued, "
                                  f"after {timeout_cycles} cycles; in flight (tags) {[j.tag for j in self.inflight][:8]}",
                          gap_cycles)

    @property
    def outstanding(self) -> int:
        return self.issued - self.received

    @property
    def idle(self) -> bool:
        return not self.queue and self.offered is None and self.outstanding == 0

    def forget(self) -> list[KernelJob]:
        """After a reset: every job in flight and queued is dropped (returned)."""
        lost = list(self.inflight) + list(self.queue)
        if self.offered is not None and self.offered not in self.inflight:
            lost.append(self.offered)
        self.inflight.clear()
        self.queue.clear()
        self.issued = self.received
        self.offered = None
        self._drop_offer = True
        return lost

    # ----------------------------------------------------------------- bookkeeping

    async def _until(self, done: Callable[[], bool], timeout_cycles: int, what: Callable[[], str],
                     gap_cycles: Optional[int] = None) -> None:
        if self.woken is None:
            start = self.cycle
            while not done():
                await RisingEdge(self._clk)
                if self.cycle - start > timeout_cycles:
                    await self._late(what())
                if gap_cycles is not None and self.quiet >= gap_cycles:
                    await self._late(f"no status for {gap_cycles} kernel cycles of reading ({self.received} received, "
                                     f"{self.outstanding} missing, {len(self.queue)} queued)")
            return
        deadline = get_sim_time("ps") + timeout_cycles * self.woken.period
        while not done():
            left = deadline - get_sim_time("ps")
            if left <= 0:
                self.cycle = self.woken.cycle()
                await self._late(what())
            self._changed.clear()
            await First(self._changed.wait(), Timer(left, "ps"))

    async def _late(self, msg: str) -> None:
        self._fail(msg + (await self.explain() if self.explain is not None else ""))

    def _accepted(self, job: KernelJob) -> None:
        """*job*'s first word was taken: it is in flight."""
        job.issued_cycle = self.cycle
        if self.tagged and self.unique_tags and any(j.tag == job.tag for j in self.inflight):
            self._fail(f"tag {job.tag} reused while in flight")
        self.inflight.append(job)
        self.issued += 1

    def _status(self, word: int) -> None:
        st = decode_status(self.m, word, self.cycle)
        if self.tagged:
            i = next((i for i, j in enumerate(self.inflight) if j.tag == st.tag), None)
            if i is None:
                self._fail(f"status with tag {st.tag} that is not in flight (duplicate or invented): {st}")
        else:
            if not self.inflight:
                self._fail(f"status while nothing is in flight (duplicate or invented): {st}")
            i = 0  # counted; which job it reports is not knowable
        job = self.inflight.pop(i)
        job.status = st
        self.received += 1
        self.failed += st.failed
        self.quiet = 0
        if self.keep_done:
            self.done.append(job)
        self._wake.set()
        self._changed.set()
        if job.on_status is not None:
            job.on_status(job)
        if self.on_change is not None:
            self.on_change()

    # ----------------------------------------------------------------- every edge

    async def _run(self) -> None:
        word = 0  # of the offered job
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            if self._drop_offer:
                self.offered, self._drop_offer = None, False
            if (self.offered is None and self.enabled and self.queue and self.outstanding < self.max_outstanding
                    and next(self._v_pat)):
                self.offered, word = self.queue.popleft(), 0
            offered = self.offered
            if offered is not None:
                self._d.set(offered.words[word])
                self._v.set(1)
            else:
                self._v.set(0)
            # A kernel in reset takes no status.
            reading = self.enabled and not self.status_held
            sr = 1 if reading and next(self._sr_pat) else 0
            self._sr.set(sr)
            await ReadOnly()
            in_reset = not self.enabled or self.desc_monitor.in_reset()
            ready = value(self._ready)
            valid = value(self._sv)
            status = value(self._sd) if valid else None
            try:
                taken = self.desc_monitor.step(self._v.v, self._d.v if self._v.v else None, ready, in_reset)
                got = self.status_monitor.step(valid, status, sr, in_reset)
            except AvalonStError as e:
                self._fail(str(e))
            if not self.enabled:
                # Reset came at this edge (after this cycle's pins were set): whatever the pins
                # did this cycle belongs to the kernel that was reset, and forget() dropped it.
                continue
            if taken:
                if word == 0:
                    self._accepted(offered)
                word += 1
                if word == len(offered.words):
                    self.offered = None
            if got:
                self._status(status)
            elif reading and not self.idle:
                self.quiet += 1

    # ----------------------------------------------------------------- woken

    def _can_offer(self) -> bool:
        return self.enabled and bool(self.queue) and self.outstanding < self.max_outstanding

    async def _send_woken(self) -> None:
        clk = self._clk
        while True:
            while not self._can_offer():
                await self._wake.wait()
                self._wake.clear()
            await RisingEdge(clk)
            while self._can_offer():
                job = self.offered = self.queue.popleft()
                for i, w in enumerate(job.words):
                    self._d.set(w)
                    self._v.set(1)
                    await ReadOnly()
                    while self._ready.value != 1:
                        await RisingEdge(clk)
                        await ReadOnly()
                    if i == 0:
                        self.cycle = self.woken.cycle()
                        self._accepted(job)
                    await RisingEdge(clk)
                self.offered = None
            self._v.set(0)

    def _status_woken(self) -> None:
        self.cycle = self.woken.cycle()
        self._status(self._sd.value.integer)
