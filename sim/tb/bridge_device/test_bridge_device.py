# SPDX-License-Identifier: Apache-2.0
"""The simulated device: one FPGA that lives as long as its host holds it.

The emitted ``direkt_bridge`` in a clock harness (:mod:`direkt_sim.harness`), its Read and Write
Data Movers, FPGA memory and the BSP's host descriptor controller, kept running inside one
simulator for a whole host session and driven over a link (:mod:`direkt_sim.link`): the host
maps PCIe ranges for the FPGA, writes CSR registers, and runs kernel and host descriptors; FPGA
memory and every register keep their contents from one request to the next, as on a board.

PCIe memory stays on the host: the host names the ranges it maps for the FPGA (GPU pages, pinned
host buffers), and every byte a data mover moves to or from them is a read or write request over
the link, answered from the host's own memory while the host waits for the run to end.

The models wake on the signal edges that matter (a valid rising, a status due) rather than on
every clock edge, and the clocks are made by the simulator, so a mover busy for thousands of
cycles costs the Python side almost nothing. Their timing is that of ``direkt_sim.bridge_models``
(inputs driven just after a rising edge, outputs sampled in that step's ReadOnly phase).

The host side is Java's ``org.direkt.runtime.sim.SimulatedDevice`` (a host session's device) or
:class:`direkt_sim.device.DeviceClient`; ``python -m direkt_sim.device`` builds and starts the
device. Operations and messages: ``README.md`` next to this file. The pytest tests below run the
device through :class:`~direkt_sim.device.DeviceClient` on the simulator ``SIM`` names.
"""

from __future__ import annotations

import bisect
import json
import os
import random
from collections import deque
from typing import Callable

import cocotb
from cocotb.triggers import Event, First, ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

import pytest

from direkt_sim.bridge_models import (
    DIRECTIONS, MOVER_FAULT, TLP_BOUNDARY, Csr, DataMover, HostController, Memory, ModelError, MoverDesc, _Pin,
    cldesc_fields, decode_status, dma_reset_pin, kernel_reset_pin, reset_bridge,
)
from direkt_sim.device import DeviceClient
from direkt_sim.jobs import (
    JobError, csr_address, host_descriptors, host_status_json, integer, issue_mode, kernel_issues, status_json,
)
from direkt_sim.layout import load_manifest
from direkt_sim.link import PROTOCOL, DeviceError, Link, LinkClosed, expect

ENV_SOCKET = "DIREKT_DEVICE_SOCKET"
ENV_CLOCKS = "DIREKT_DEVICE_CLOCKS"
# Host descriptors the BSP's descriptor controller keeps outstanding per direction (as tb/bridge_replay).
HOST_OUTSTANDING = 8
DEFAULT_TIMEOUT_KERNEL_CYCLES = 2_000_000
# After a run's last status: long enough for a stray status to reach a model (which then fails).
SETTLE_DMA_CYCLES = 8


class Fatal(Exception):
    """The device cannot go on (a model saw an illegal access, a status never came): it reports why and stops."""


class ClockCount:
    """Cycles of a harness clock, counted from sim time (no wake-up per edge): cycle 0 is the
    rising edge :meth:`start` waits for."""

    def __init__(self, clk, period_ps: int):
        self.clk = clk
        self.period = period_ps
        self.t0 = 0

    async def start(self) -> None:
        await RisingEdge(self.clk)
        self.t0 = int(get_sim_time("ps"))

    def cycle(self) -> int:
        return (int(get_sim_time("ps")) - self.t0) // self.period

    async def edge(self, k: int) -> None:
        """Waits for rising edge *k* (a later one), waking once before it and once at it."""
        target = self.t0 + k * self.period
        now = get_sim_time("ps")
        if target - now > 1:
            await Timer(target - now - 1, "ps")
        await RisingEdge(self.clk)


async def watch(sig, clk, on_high: Callable[[], None]) -> None:
    """Calls *on_high* in the ReadOnly phase of every rising edge of *clk* after which *sig* is
    1, without waking on the edges where it stays 0. Start it from a step that is not ReadOnly."""
    await ReadOnly()
    while True:
        if sig.value == 1:
            on_high()
            await RisingEdge(clk)
        else:
            await RisingEdge(sig)
        await ReadOnly()


# --------------------------------------------------------------------------- PCIe, as the host maps it


class HostBus:
    """The PCIe ranges the host has mapped for the FPGA; their bytes stay on the host (every
    access is a request over the link). Same interface as ``bridge_models.PcieSpace``."""

    def __init__(self, link: Link):
        self.link = link
        self._starts: list[int] = []
        self._ranges: dict[int, tuple[int, str]] = {}  # start -> (size, name)
        self.bytes_read = 0
        self.bytes_written = 0

    def map(self, bus: int, size: int, name: str) -> None:
        if bus + size > 1 << 64:
            raise JobError(f"map {name}: [{bus:#x}, +{size:#x}) runs past the 64-bit bus")
        i = bisect.bisect_right(self._starts, bus)
        for j in (i - 1, i):
            if 0 <= j < len(self._starts):
                s = self._starts[j]
                n, other = self._ranges[s]
                if bus < s + n and s < bus + size:
                    raise JobError(f"map {name}: [{bus:#x}, +{size:#x}) overlaps {other} [{s:#x}, +{n:#x})")
        self._starts.insert(i, bus)
        self._ranges[bus] = (size, name)

    def unmap(self, bus: int) -> None:
        if bus not in self._ranges:
            raise JobError(f"unmap {bus:#x}: no range is mapped at that bus address")
        del self._ranges[bus]
        self._starts.remove(bus)

    def is_mapped(self, bus: int) -> bool:
        """Whether a range starts at *bus*."""
        return bus in self._ranges

    @property
    def mapped(self) -> int:
        return len(self._starts)

    def contains(self, bus: int, n: int) -> bool:
        while n > 0:
            i = bisect.bisect_right(self._starts, bus) - 1
            if i < 0:
                return False
            s = self._starts[i]
            size = self._ranges[s][0]
            if bus >= s + size:
                return False
            take = min(n, s + size - bus)
            bus += take
            n -= take
        return True

    def _check(self, bus: int, n: int) -> None:
        if not self.contains(bus, n):
            raise ModelError(f"PCIe access [{bus:#x}, +{n:#x}) touches bus addresses the host has not mapped")

    def read(self, bus: int, n: int) -> bytes:
        self._check(bus, n)
        self.link.send({"op": "read", "bus": bus, "bytes": n})
        _, data = expect(self.link, "data", f"read of [{bus:#x}, +{n:#x})")
        if len(data) != n:
            raise ModelError(f"the host answered a read of {n} bytes at {bus:#x} with {len(data)}")
        self.bytes_read += n
        return data

    def write(self, bus: int, data: bytes) -> None:
        self._check(bus, len(data))
        self.link.send({"op": "write", "bus": bus}, data)
        self.bytes_written += len(data)


# --------------------------------------------------------------------------- models, woken by edges


class KernelChannel:
    """The kernel's side of one direction (as tb/bridge_replay's ``Channel``): offers cldesc
    words on ``<t>_desc_*`` with at most ``limit`` outstanding and matches statuses from
    ``<t>_status_*`` (ready always high) by tag (tagged status mode) or in order."""

    def __init__(self, dev: "Device", t: str):
        self.dev = dev
        self.t = t
        self.m = dev.m
        self.clock = dev.kclock
        self.limit = 1
        self.tagged = dev.m.bridge["status_mode"] == "tagged"
        self.queue: deque = deque()
        self.inflight: list = []
        self._wake = Event()
        dut = dev.dut
        self._v = _Pin(getattr(dut, f"{t}_desc_valid"))
        self._d = _Pin(getattr(dut, f"{t}_desc_data"))
        self._ready = getattr(dut, f"{t}_desc_ready")
        self._sv = getattr(dut, f"{t}_status_valid")
        self._sd = getattr(dut, f"{t}_status_data")
        self._sr = _Pin(getattr(dut, f"{t}_status_ready"), 1)

    def start(self) -> None:
        self.dev.spawn(self._send())
        self.dev.spawn(watch(self._sv, self.clock.clk, self._status))

    @property
    def idle(self) -> bool:
        return not self.queue and not self.inflight

    def submit(self, it) -> None:
        self.queue.append(it)
        self._wake.set()

    def _can_offer(self) -> bool:
        return bool(self.queue) and len(self.inflight) < self.limit

    async def _send(self) -> None:
        clk = self.clock.clk
        while True:
            while not self._can_offer():
                await self._wake.wait()
                self._wake.clear()
            await RisingEdge(clk)
            while self._can_offer():
                it = self.queue.popleft()
                self._d.set(it.word)
                self._v.set(1)
                await ReadOnly()
                while self._ready.value != 1:
                    await RisingEdge(clk)
                    await ReadOnly()
                it.issued_cycle = self.clock.cycle()
                self.inflight.append(it)
                await RisingEdge(clk)
            self._v.set(0)

    def _status(self) -> None:
        st = decode_status(self.m, self._sd.value.integer, self.clock.cycle())
        if self.tagged:
            it = next((j for j in self.inflight if j.tag == st.tag), None)
        else:
            it = self.inflight[0] if self.inflight else None
        if it is None:
            raise ModelError(f"{self.t} kernel, kernel cycle {st.cycle}: status {st.raw:#x} matches nothing in flight")
        self.inflight.remove(it)
        it.status = st
        self._wake.set()
        self.dev.changed.set()


class Mover(DataMover):
    """A data mover (``bridge_models.DataMover``'s checks, data movement and status words) that
    keeps ``desc_ready`` high, takes a descriptor when ``desc_valid`` rises and wakes again only
    when the head of its queue is due."""

    def __init__(self, dev: "Device", t: str):
        super().__init__(dev.dut, t, dev.m, dev.bus, dev.fpga, latency=dev.mover_latency,
                         bytes_per_cycle=dev.mover_bytes_per_cycle, start=False)
        self.dev = dev
        self.clock = dev.dclock
        self.descriptors = 0
        self._more = Event()

    def start(self) -> None:
        self._ready.set(1)
        self.dev.spawn(watch(self._valid, self._clk, self._take))
        self.dev.spawn(self._complete())

    def _move(self, d: MoverDesc) -> None:
        # One link request per descriptor rather than one per 4 KB piece: the bytes land together
        # at the descriptor's end either way (as in DataMover), and a round trip costs the same for 4 KB as for 1 MB.
        pcie, fpga = (d.src, d.dst) if self.t == "rd" else (d.dst, d.src)
        data = bytearray(self.pcie.read(pcie, d.nbytes) if self.t == "rd" else self.fpga.read(fpga, d.nbytes))
        if MOVER_FAULT:
            data[0] ^= 0x01  # DIREKT_SIM_FAULT=mover_data: a broken mover, as every DataMover has it
        if self.t == "rd":
            self.fpga.write(fpga, bytes(data))
        else:
            self.pcie.write(pcie, bytes(data))
        d.tlps = (pcie + d.nbytes - 1) // TLP_BOUNDARY - pcie // TLP_BOUNDARY + 1
        self.tlps += d.tlps
        self.bytes_moved += d.nbytes

    def _take(self) -> None:
        self.cycle = self.clock.cycle()
        d = MoverDesc.unpack(self.m, self._data.value.integer, self.cycle)
        self._check(d)
        start = max(self.cycle + self.latency, self._busy_until)
        moving = -(-d.nbytes // self.bytes_per_cycle)
        self._busy_until = start + moving
        self.busy_cycles += moving
        d.done_cycle = self._busy_until
        self.descriptors += 1
        self.pending.append(d)
        self._more.set()

    async def _complete(self) -> None:
        while True:
            while not self.pending:
                await self._more.wait()
                self._more.clear()
            await self.clock.edge(self.pending[0].done_cycle)
            while self.pending and self.pending[0].done_cycle <= self.clock.cycle():
                d = self.pending.popleft()
                self.cycle = self.clock.cycle()
                self.last_status = self._status(d)
                self._st_data.set(self.last_status)
                self._st_valid.set(1)
                self.statuses += 1
                self.kernel_statuses += d.kernel
                await RisingEdge(self._clk)
            self._st_valid.set(0)


class HostDma(HostController):
    """The BSP's descriptor controller (``bridge_models.HostController``'s IDs, ready latency 1
    and status checks) that wakes per cycle only while it has a descriptor it may send."""

    def __init__(self, dev: "Device", t: str):
        super().__init__(dev.dut, t, dev.m, max_outstanding=HOST_OUTSTANDING, start=False)
        self.dev = dev
        self.clock = dev.dclock
        self._wake = Event()

    def start(self) -> None:
        self.dev.spawn(self._send())
        self.dev.spawn(watch(self._sv, self._clk, self._status))

    def submit(self, src: int, dst: int, nbytes: int) -> MoverDesc:
        d = super().submit(src, dst, nbytes)
        self._wake.set()
        return d

    def _sendable(self) -> bool:
        return bool(self.queue) and bool(self.free_ids) and len(self.outstanding) < self.max_outstanding

    async def _send(self) -> None:
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
                if prev_ready and self._sendable():
                    d = self.queue.popleft()
                    d.id = self.free_ids.popleft()
                    d.cycle = self.clock.cycle()
                    self.outstanding[d.id] = d
                    self._d.set(d.pack(self.m))
                    self._v.set(1)
                    self.sent += 1
                else:
                    self._v.set(0)
                    if not self._sendable():
                        break
                await ReadOnly()
                prev_ready = self._ready.value == 1

    def _status(self) -> None:
        raw = self._sd.value.integer
        f = self._st.unpack(raw)
        self.cycle = self.clock.cycle()
        d = self.outstanding.pop(f["id"], None)
        if d is None:
            self._fail(f"host status for ID {f['id']} which is not outstanding (lost or duplicated routing): {f}")
        if not f["completed"]:
            self._fail(f"host status without completed: {f}")
        d.done_cycle = self.cycle
        d.status = raw
        self.free_ids.append(d.id)
        self.completed += 1
        self._wake.set()
        self.dev.changed.set()


# --------------------------------------------------------------------------- the device


class Device:
    """The bridge, its models and FPGA memory, serving one host over *link*."""

    def __init__(self, dut, link: Link, clocks: dict, mover: dict):
        self.dut = dut
        self.link = link
        self.m = load_manifest()
        self.kper = clocks["kernel_ps"]
        self.dper = clocks["dma_ps"]
        self.mover_latency = mover.get("latency", 8)
        self.mover_bytes_per_cycle = mover.get("bytes_per_cycle", 64)
        self.kclock = ClockCount(dut.kernel_clk, self.kper)
        self.dclock = ClockCount(dut.dma_clk, self.dper)
        self.fpga_size = int(self.m.bridge["fpga_mem_bytes"])
        self.fpga = Memory("fpga", size=self.fpga_size)
        self.bus = HostBus(link)
        self.csr = Csr(dut, self.m)
        self.changed = Event()
        self.fatal: str = ""
        self.runs = 0
        self.chans: dict[str, KernelChannel] = {}
        self.movers: dict[str, Mover] = {}
        self.hosts: dict[str, HostDma] = {}

    def spawn(self, coro) -> None:
        """Starts a model's coroutine; an exception in it stops the device (reported to the host)."""
        async def guarded():
            try:
                await coro
            except Exception as e:  # a model's ModelError, a link failure inside a data move
                self.fail(f"{type(e).__name__}: {e}")
        cocotb.start_soon(guarded())

    def fail(self, message: str) -> None:
        if not self.fatal:
            self.fatal = message
            self.dut._log.error("device: %s", message)
        self.changed.set()

    async def start(self) -> None:
        dut, m = self.dut, self.m
        for t in DIRECTIONS:
            for s in ("desc_valid", "desc_data", "status_ready", "host_desc_valid", "host_desc_data",
                      "dma_desc_ready", "dma_status_valid", "dma_status_data"):
                getattr(dut, f"{t}_{s}").value = 0
        for s in ("csr_address", "csr_read", "csr_write", "csr_writedata"):
            getattr(dut, s).value = 0
        kr, kv = kernel_reset_pin(dut, m)
        dr, dv = dma_reset_pin(dut, m)
        kr.value, dr.value = kv, dv
        await reset_bridge(dut, m, max(self.kper, self.dper))
        await self.kclock.start()
        await self.dclock.start()
        for t in DIRECTIONS:
            self.movers[t] = Mover(self, t)
            self.chans[t] = KernelChannel(self, t)
            self.hosts[t] = HostDma(self, t)
        for t in DIRECTIONS:
            self.movers[t].start()
            self.chans[t].start()
            self.hosts[t].start()
        await RisingEdge(dut.dma_clk)

    def hello(self) -> dict:
        b = self.m.bridge
        return {"op": "hello", "protocol": PROTOCOL, "pid": os.getpid(),
                "simulator": os.environ.get("DIREKT_SIM", cocotb.SIM_NAME), "manifest": str(self.m.path),
                "clocks": {"kernel_ps": self.kper, "dma_ps": self.dper},
                "mover": {"latency": self.mover_latency, "bytes_per_cycle": self.mover_bytes_per_cycle},
                "bridge": {k: b[k] for k in ("status_mode", "id_mode", "word_order", "inflight", "window_entries",
                                              "fpga_mem_bytes", "policy", "counters")}}

    async def serve(self) -> None:
        self.link.send(self.hello())
        handlers = {"map": self.on_map, "unmap": self.on_unmap, "csr_write": self.on_csr_write,
                    "csr_read": self.on_csr_read, "run": self.on_run}
        while True:
            if self.fatal:  # a model failed between requests (a stray status, say)
                self.link.send({"op": "error", "fatal": True, "message": self.fatal})
                raise Fatal(self.fatal)
            try:
                req, _ = self.link.recv()
            except LinkClosed:
                self.dut._log.warning("device: the host closed the link without a close request")
                return
            op = req["op"]
            if op == "close":
                self.link.send({"op": "closed", "runs": self.runs, "kernel_cycles": self.kclock.cycle()})
                return
            handler = handlers.get(op)
            try:
                if handler is None:
                    raise JobError(f"unknown op {op!r} (one of {sorted([*handlers, 'close'])})")
                reply = await handler(req)
            except JobError as e:
                self.link.send({"op": "error", "message": str(e), "request": op})
                continue
            except Fatal as e:
                self.fail(str(e))
            if self.fatal:
                self.link.send({"op": "error", "fatal": True, "message": self.fatal, "request": op})
                raise Fatal(self.fatal)
            self.link.send(reply)

    # ----------------------------------------------------------------- requests

    async def on_map(self, req: dict) -> dict:
        ranges = req.get("ranges")
        if not isinstance(ranges, list) or not ranges:
            raise JobError(f"map: ranges {ranges!r}: a list of {{bus, size, name}}")
        checked = []
        for i, r in enumerate(ranges):
            what = f"map ranges[{i}]"
            if not isinstance(r, dict):
                raise JobError(f"{what}: {r!r} is not an object")
            bus = integer(r.get("bus"), f"{what}.bus")
            size = integer(r.get("size"), f"{what}.size", 4, 1 << 48)
            if bus % 4 or size % 4:
                raise JobError(f"{what}: bus {bus:#x} and size {size:#x} must be multiples of 4 (the movers move dwords)")
            checked.append((bus, size, str(r.get("name", what))))
        done = []
        try:
            for bus, size, name in checked:
                self.bus.map(bus, size, name)
                done.append(bus)
        except JobError:
            for bus in done:
                self.bus.unmap(bus)
            raise
        return {"op": "mapped", "ranges": len(checked), "mapped": self.bus.mapped}

    async def on_unmap(self, req: dict) -> dict:
        buses = req.get("buses")
        if not isinstance(buses, list):
            raise JobError(f"unmap: buses {buses!r}: a list of bus addresses")
        for i, b in enumerate(buses):
            bus = integer(b, f"unmap buses[{i}]")
            if not self.bus.is_mapped(bus):
                raise JobError(f"unmap buses[{i}]: no range is mapped at {bus:#x}")
        for b in buses:
            self.bus.unmap(b)
        return {"op": "unmapped", "mapped": self.bus.mapped}

    async def on_csr_write(self, req: dict) -> dict:
        addr = csr_address(self.m, {k: req[k] for k in ("name", "offset") if k in req}, "csr_write")
        await self.csr.write(addr, integer(req.get("value"), "csr_write.value", 0, 0xFFFF_FFFF))
        return {"op": "csr_written", "offset": addr}

    async def on_csr_read(self, req: dict) -> dict:
        addr = csr_address(self.m, {k: req[k] for k in ("name", "offset") if k in req}, "csr_read")
        return {"op": "csr_value", "offset": addr, "value": await self.csr.read(addr)}

    async def on_run(self, req: dict) -> dict:
        m = self.m
        issue = req.get("issue") or {}
        mode, limit = issue_mode(issue, m)
        timeout = integer(issue.get("timeout_kernel_cycles", DEFAULT_TIMEOUT_KERNEL_CYCLES),
                          "issue.timeout_kernel_cycles", 1, 1 << 40)
        issues = kernel_issues(req.get("descriptors"), m, req.get("channel_word_order"))
        host = host_descriptors(req.get("host_descriptors"), m, self.bus, self.fpga_size)
        self.runs += 1
        t0, k0, d0 = get_sim_time("ps"), self.kclock.cycle(), self.dclock.cycle()
        moved0 = {t: (self.movers[t].descriptors, self.movers[t].bytes_moved) for t in DIRECTIONS}
        for ch in self.chans.values():
            ch.limit = limit
        sent = [self.hosts[t].submit(src, dst, n) for t, src, dst, n in host]

        def missing(chans, hosts) -> list[str]:
            out = [f"#{j.index} ({j.t})" for c in chans for j in [*c.inflight, *c.queue]]
            if hosts:
                out += [f"host #{k} ({t})" for k, ((t, *_), d) in enumerate(zip(host, sent)) if d.status < 0]
            return out[:8]

        async def until(done: Callable[[], bool], what: str, chans, hosts=()) -> None:
            deadline = get_sim_time("ps") + timeout * self.kper
            while not done():
                if self.fatal:
                    raise Fatal(self.fatal)
                left = deadline - get_sim_time("ps")
                if left <= 0:
                    raise Fatal(f"run {self.runs}, {what}: no status within {timeout} kernel cycles for "
                                f"{missing(chans, hosts)}")
                await First(self.changed.wait(), Timer(left, "ps"))
                self.changed.clear()

        chans = list(self.chans.values())
        hosts = list(self.hosts.values())
        for it in issues:
            ch = self.chans[it.t]
            if mode == "sequential":
                ch.submit(it)
                await until(lambda: ch.idle, f"descriptor #{it.index}", [ch])
            else:
                if it.wait:
                    await until(lambda: all(c.idle for c in chans), f"barrier before descriptor #{it.index}", chans)
                ch.submit(it)
        await until(lambda: all(c.idle for c in chans) and all(h.idle for h in hosts), "end of the run", chans, hosts)
        await Timer(SETTLE_DMA_CYCLES * self.dper, "ps")
        if self.fatal:
            raise Fatal(self.fatal)
        return {
            "op": "done",
            "run": self.runs,
            "issue": {"mode": mode, "inflight": limit},
            "statuses": [status_json(m, it) for it in issues],
            "host_statuses": [host_status_json(m, i, t, d) for i, ((t, *_), d) in enumerate(zip(host, sent))],
            "mover": {t: {"descriptors": self.movers[t].descriptors - moved0[t][0],
                          "bytes": self.movers[t].bytes_moved - moved0[t][1]} for t in DIRECTIONS},
            "cycles": {"kernel": self.kclock.cycle() - k0, "dma": self.dclock.cycle() - d0,
                       "sim_time_ps": int(get_sim_time("ps") - t0)},
        }


def _settings() -> tuple[dict, dict]:
    text = os.environ.get(ENV_CLOCKS, "")
    s = json.loads(text) if text else {}
    clocks = {"kernel_ps": int(s.get("kernel_ps", 4000)), "dma_ps": int(s.get("dma_ps", 4000))}
    return clocks, dict(s.get("mover") or {})


@cocotb.test()
async def serve(dut):
    """The device: serves the host at $DIREKT_DEVICE_SOCKET until it closes the link."""
    path = os.environ.get(ENV_SOCKET)
    if not path:
        raise RuntimeError(f"{ENV_SOCKET} is not set: start the device with python -m direkt_sim.device")
    link = Link.connect(path)
    clocks, mover = _settings()
    dev = Device(dut, link, clocks, mover)
    try:
        await dev.start()
        await dev.serve()
    finally:
        link.close()


# --------------------------------------------------------------------------- pytest: the device from a host


WINDOW_BASE = 0x38_0000_0000  # 1 MB window over the GPU pages below
GPU_BUS = WINDOW_BASE + 0x4_0000
HOST_BUS = 0x20_0000_0000


def _words(m, direction: str, src: int, dst: int, nbytes: int, tag: int) -> dict:
    value = m.word("cldesc").pack(**cldesc_fields(m, src, dst, nbytes, tag=tag))
    return {"direction": direction, "words": [(value >> (32 * i)) & 0xFFFF_FFFF for i in range(8)]}


def _open_window(dev: DeviceClient, m) -> None:
    regs = {"BASE_LO": WINDOW_BASE & 0xFFFF_FFFF, "BASE_HI": WINDOW_BASE >> 32,
            "SIZE": m.word("csr_window_size").pack(log2=20),
            "CTRL": m.word("csr_window_ctrl").pack(enable=1, allow_rd=1, allow_wr=1)}
    for reg, value in regs.items():
        dev.csr_write(f"WIN0_{reg}", value)


def test_fpga_memory_lasts_from_one_run_to_the_next():
    """Host descriptors and kernel descriptors in separate runs act on the same FPGA memory, and
    the registers keep what the host wrote."""
    rng = random.Random(1)
    with DeviceClient() as dev:
        m = load_manifest(dev.hello["manifest"])
        n = 65_536 + 8
        host_in = bytearray(rng.randbytes(n + 8))
        host_out = bytearray(n + 8)
        dev.map(HOST_BUS, host_in, "pinned in")
        dev.map(HOST_BUS + 0x100_0000, host_out, "pinned out")
        r = dev.run(host_descriptors=[{"direction": "rd", "src": HOST_BUS + 8, "dst": 0x10_0000, "bytes": n}])
        assert [s["completed"] for s in r["host_statuses"]] == [True], r
        r = dev.run(host_descriptors=[{"direction": "wr", "src": 0x10_0000, "dst": HOST_BUS + 0x100_0000, "bytes": n}])
        assert host_out[:n] == host_in[8:n + 8], "FPGA memory written by one run, read by the next"

        # The kernel path: no window yet, so the bridge refuses; then the window, kept across runs.
        gpu = bytearray(65_536)
        dev.map(GPU_BUS, gpu, "gpu page")
        refused = dev.run([_words(m, "wr", 0x10_0000, GPU_BUS, 4096, tag=7)])["statuses"]
        assert refused[0]["error_name"] == "WINDOW" and refused[0]["fields"]["tag"] == 7, refused
        _open_window(dev, m)
        r = dev.run([_words(m, "wr", 0x10_0000 + 4096, GPU_BUS, 8192, tag=8)])
        assert r["statuses"][0]["error_name"] == "OK", r
        assert gpu[:8192] == host_in[8 + 4096:8 + 4096 + 8192]
        assert r["cycles"]["dma"] >= 8192 // 64, r["cycles"]
        r = dev.run([_words(m, "rd", GPU_BUS, 0x20_0000, 8192, tag=9)])
        dev.unmap(HOST_BUS)
        r = dev.run(host_descriptors=[{"direction": "wr", "src": 0x20_0000, "dst": HOST_BUS + 0x100_0000, "bytes": 8192}])
        assert host_out[:8192] == gpu[:8192]
        assert dev.csr_read("WIN0_BASE_HI") == WINDOW_BASE >> 32
    assert dev.process.returncode == 0, dev.ended()
    dev.remove()


def test_bad_requests_are_refused_and_the_device_goes_on():
    with DeviceClient() as dev:
        host = bytearray(4096)
        dev.map(HOST_BUS, host)
        for req, expect_text in [
            ({"host_descriptors": [{"direction": "rd", "src": HOST_BUS + 0x1000, "dst": 0, "bytes": 64}]},
             "not inside mapped host or GPU memory"),
            ({"host_descriptors": [{"direction": "up", "src": HOST_BUS, "dst": 0, "bytes": 64}]}, "rd or wr"),
            ({"descriptors": [{"direction": "rd", "words": [0] * 7}]}, "32-bit words x0..x7 expected"),
        ]:
            with pytest.raises(DeviceError, match=expect_text) as e:
                dev.run(**req)
            assert not e.value.fatal
        with pytest.raises(DeviceError, match="overlaps"):
            dev.map(HOST_BUS + 2048, bytearray(4096))
        with pytest.raises(DeviceError, match="no CSR register 'NOPE'"):
            dev.csr_write("NOPE", 1)
        r = dev.run(host_descriptors=[{"direction": "wr", "src": 0, "dst": HOST_BUS, "bytes": 4096}])
        assert r["host_statuses"][0]["completed"]
    assert dev.process.returncode == 0, dev.ended()
    dev.remove()


def test_an_illegal_access_stops_the_device_and_says_why():
    """A kernel descriptor inside an open window but to memory nobody mapped: the bridge lets it
    through, the mover model refuses it, and the device stops, naming it."""
    dev = DeviceClient()
    m = load_manifest(dev.hello["manifest"])
    _open_window(dev, m)
    with pytest.raises(DeviceError, match="not inside mapped memory") as e:
        dev.run([_words(m, "rd", GPU_BUS, 0, 4096, tag=1)])
    assert e.value.fatal
    assert dev.process.wait(timeout=60) == 1
    assert "stopped on an error" in dev.ended()
    with pytest.raises(DeviceError, match="the device is gone"):
        dev.csr_read("WIN0_CTRL")
    dev.link.close()
    dev.remove()
