# SPDX-License-Identifier: Apache-2.0
"""Avalon-MM models around the descriptor controller (:mod:`direkt_sim.a10_driver` uses them):

* :class:`RegisterHost`: the hard IP's ``rxm_bar0`` on an agent of 32-bit words with a fixed read
  latency and no waitrequest (``<prefix>address`` word addressed, ``read``, ``write``,
  ``writedata``, ``readdata``). Byte addresses in, as host software names its registers.
* :class:`BurstWriter`: a bursting write-only host (the Read Data Mover's ``dma_rd_master``) on an
  always-ready agent (``<prefix>write``, ``address`` word addressed, ``burstcount``, ``writedata``):
  beats go out in bursts of up to ``max_burst``, with idle cycles between beats and bursts where
  its pattern says so; the address is driven on a burst's first beat only (junk after, as a bursting
  host may).
* :class:`WriteAgent`: a write-only agent (the hard IP's ``txs``) taking a host's writes
  (``<prefix>address`` byte addressed, ``write``, ``writedata``) with ``waitrequest`` from a
  pattern; each write it takes goes to ``on_write(address, data)``.

Each steps once per rising edge of its clock (drive right after the edge, sample in ReadOnly), as
every model of :mod:`direkt_sim` does, and fails (:class:`~direkt_sim.pins.ModelError`) on X or on
a rule broken.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Callable, Optional

from cocotb.triggers import Lock, ReadOnly, RisingEdge

from .pins import Model, Pin
from .stimulus import pattern, value


class RegisterHost:
    """``rxm_bar0``: one 32-bit read or write at a time on a fixed-latency agent."""

    def __init__(self, dut, prefix: str, clock, read_latency: int, word_bytes: int = 4):
        self.dut = dut
        self._clk = clock
        self.latency = read_latency
        self.word_bytes = word_bytes
        self._lock = Lock()
        self._addr = Pin(getattr(dut, prefix + "address"))
        self._read = Pin(getattr(dut, prefix + "read"))
        self._write = Pin(getattr(dut, prefix + "write"))
        self._wdata = Pin(getattr(dut, prefix + "writedata"))
        self._rdata = getattr(dut, prefix + "readdata")
        self.reads = 0
        self.writes = 0

    async def write(self, byte_addr: int, v: int) -> None:
        async with self._lock:
            await RisingEdge(self._clk)
            self._addr.set(byte_addr // self.word_bytes)
            self._wdata.set(v & 0xFFFF_FFFF)
            self._write.set(1)
            await RisingEdge(self._clk)
            self._write.set(0)
            self.writes += 1

    async def read(self, byte_addr: int) -> int:
        async with self._lock:
            await RisingEdge(self._clk)
            self._addr.set(byte_addr // self.word_bytes)
            self._read.set(1)
            for _ in range(self.latency):
                await RisingEdge(self._clk)
                self._read.set(0)
            await ReadOnly()
            v = value(self._rdata)
            if v is None:
                raise AssertionError(f"register read of {byte_addr:#x}: readdata is X {self.latency} cycle(s) after the read")
            self.reads += 1
            return v


class BurstWriter(Model):
    """Writes queued beats (word address, data) into an always-ready agent in bursts.

    :meth:`send` queues the beats of one write of consecutive words (as a data mover writes one
    descriptor's bytes); bursts never run past the end of a send. ``valid`` (a
    :func:`~direkt_sim.stimulus.pattern` kind) decides each cycle whether a beat goes out.
    ``beats`` counts the beats written."""

    def __init__(self, dut, prefix: str, clock, max_burst: int = 16, valid: str = "always", seed: int = 0,
                 name: Optional[str] = None):
        self.dut = dut
        self._clk = clock
        self.max_burst = max_burst
        self.rng = random.Random(f"burst:{prefix}:{seed}")
        self._pat = pattern(valid, self.rng)
        self._write = Pin(getattr(dut, prefix + "write"))
        self._addr = Pin(getattr(dut, prefix + "address"))
        self._count = Pin(getattr(dut, prefix + "burstcount"))
        self._data = Pin(getattr(dut, prefix + "writedata"))
        self._addr_bits = len(getattr(dut, prefix + "address"))
        self.queue: deque[tuple[int, list[int]]] = deque()  # (first word, beats) per send
        self.beats = 0
        self.errors: list[str] = []
        self.what = name or f"{prefix.rstrip('_')} writer"
        self.start()

    def send(self, word: int, beats: list[int]) -> None:
        self.queue.append((word, list(beats)))

    @property
    def idle(self) -> bool:
        return not self.queue

    async def _run(self) -> None:
        left = 0  # beats left in the burst under way
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            if not self.queue or not next(self._pat):
                self._write.set(0)
                continue
            word, beats = self.queue[0]
            if left == 0:
                left = min(self.max_burst, len(beats), self.rng.choice((1, 2, 4, self.max_burst, self.max_burst)))
                self._addr.set(word & ((1 << self._addr_bits) - 1))
                self._count.set(left)
            else:
                self._addr.set(self.rng.getrandbits(self._addr_bits))  # only a burst's first address counts
            self._data.set(beats.pop(0))
            self._write.set(1)
            left -= 1
            self.beats += 1
            if beats:
                self.queue[0] = (word + 1, beats)
            else:
                self.queue.popleft()
                left = 0


class WriteAgent(Model):
    """The ``txs`` agent: takes writes (``waitrequest`` from the ``waitrequest`` pattern: on = wait)
    and hands each to ``on_write(address, data)``. ``log`` keeps (cycle, address, data)."""

    def __init__(self, dut, prefix: str, clock, on_write: Callable[[int, int], None], waitrequest: str = "never",
                 seed: int = 0, name: Optional[str] = None):
        self.dut = dut
        self._clk = clock
        self.rng = random.Random(f"agent:{prefix}:{seed}")
        self._pat = pattern(waitrequest, self.rng)
        self.on_write = on_write
        self._wait = Pin(getattr(dut, prefix + "waitrequest"), 1)
        self._write = getattr(dut, prefix + "write")
        self._addr = getattr(dut, prefix + "address")
        self._data = getattr(dut, prefix + "writedata")
        self.log: list[tuple[int, int, int]] = []
        self.errors: list[str] = []
        self.what = name or f"{prefix.rstrip('_')} agent"
        self._held: Optional[tuple[int, int]] = None
        self.start()

    def set_waitrequest(self, kind: str) -> None:
        self._pat = pattern(kind, self.rng)

    async def _run(self) -> None:
        while True:
            await RisingEdge(self._clk)
            self.cycle += 1
            wait = 1 if next(self._pat) else 0
            self._wait.set(wait)
            await ReadOnly()
            w = value(self._write)
            if w is None:
                self._fail("write is X")
            if not w:
                if self._held is not None:
                    self._fail(f"write withdrawn while waitrequest held it ({self._held[0]:#x})")
                continue
            addr, data = value(self._addr), value(self._data)
            if addr is None or data is None:
                self._fail("address or writedata X during a write")
            if self._held is not None and self._held != (addr, data):
                self._fail(f"write changed from {self._held[0]:#x} to {addr:#x} while waitrequest held it")
            if wait:
                self._held = (addr, data)
                continue
            self._held = None
            self.log.append((self.cycle, addr, data))
            self.on_write(addr, data)
