# SPDX-License-Identifier: Apache-2.0
"""The simulated device: one FPGA that lives as long as its host holds it.

The emitted ``direkt_bridge`` in a clock harness (:mod:`direkt_sim.harness`), its Read and Write
Data Movers, FPGA memory and the BSP's host descriptor controller, kept running inside one
simulator for a whole host session and driven over a link (:mod:`direkt_sim.link`): the host
maps PCIe ranges for the FPGA, writes CSR registers, and runs kernel and host descriptors; FPGA
memory and every register keep their contents from one request to the next, as on a board.
PCIe memory stays on the host (:class:`HostBus`): every byte a data mover moves to or from it is
a read or write request over the link.

The models are those of every bridge bench (:mod:`direkt_sim.mover`, :mod:`direkt_sim.kernel`,
:mod:`direkt_sim.host_controller`) in their woken form: they wake on the signal edges that
matter (a valid rising, a status due) rather than on every clock edge, and the clocks are made
by the simulator, so a mover busy for thousands of cycles costs the Python side almost nothing.
``python -m direkt_sim.device`` builds and starts the device; operations and messages:
``README.md`` next to this file. The pytest tests below run it through
:class:`~direkt_sim.device.DeviceClient` on the simulator ``SIM`` names.
"""

from __future__ import annotations

import bisect
import json
import os
import random
from typing import Callable

import cocotb
import pytest
from cocotb.triggers import Event, First, RisingEdge, Timer
from cocotb.utils import get_sim_time

from direkt_sim.channel import cldesc_fields
from direkt_sim.csr import Csr
from direkt_sim.device import DeviceClient
from direkt_sim.host_controller import HostController
from direkt_sim.jobs import (
    JobError, csr_address, host_descriptors, host_status_json, integer, issue_mode, kernel_issues, status_json,
)
from direkt_sim.kernel import KernelChannel
from direkt_sim.layout import load_manifest
from direkt_sim.link import PROTOCOL, DeviceError, Link, LinkClosed, expect
from direkt_sim.mover import DataMover
from direkt_sim.pcie import Memory
from direkt_sim.pins import DIRECTIONS, ClockCount, ModelError
from direkt_sim.reset import hold_in_reset, reset_bridge
from direkt_sim.rig import GPU_BUS, HOST_BUS

ENV_SOCKET = "DIREKT_DEVICE_SOCKET"
ENV_CLOCKS = "DIREKT_DEVICE_CLOCKS"
# Host descriptors the BSP's descriptor controller keeps outstanding per direction (as tb/bridge_replay).
HOST_OUTSTANDING = 8
DEFAULT_TIMEOUT_KERNEL_CYCLES = 2_000_000
# After a run's last status: long enough for a stray status to reach a model (which then fails).
SETTLE_DMA_CYCLES = 8


class Fatal(Exception):
    """The device cannot go on (a model saw an illegal access, a status never came): it reports why and stops."""


# --------------------------------------------------------------------------- PCIe, as the host maps it


class HostBus:
    """The PCIe ranges the host has mapped for the FPGA; their bytes stay on the host (every
    access is a request over the link). Same interface as :class:`direkt_sim.pcie.PcieSpace`."""

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
        self.movers: dict[str, DataMover] = {}
        self.hosts: dict[str, HostController] = {}

    def spawn(self, coro):
        """Starts a model's coroutine; an exception in it stops the device (reported to the host)."""
        async def guarded():
            try:
                await coro
            except Exception as e:  # a model's ModelError, a link failure inside a data move
                self.fail(f"{type(e).__name__}: {e}")
        return cocotb.start_soon(guarded())

    def fail(self, message: str) -> None:
        if not self.fatal:
            self.fatal = message
            self.dut._log.error("device: %s", message)
        self.changed.set()

    async def start(self) -> None:
        dut, m = self.dut, self.m
        hold_in_reset(dut, m)
        await reset_bridge(dut, m, max(self.kper, self.dper))
        await self.kclock.start()
        await self.dclock.start()
        # A host's run may give two descriptors one tag: a status goes to the first in flight with it.
        for t in DIRECTIONS:
            self.movers[t] = DataMover(dut, t, m, self.bus, self.fpga, latency=self.mover_latency,
                                       bytes_per_cycle=self.mover_bytes_per_cycle, woken=self.dclock,
                                       spawn=self.spawn, keep_log=False)
            self.chans[t] = KernelChannel(dut, t, m, max_outstanding=1, unique_tags=False, woken=self.kclock,
                                          spawn=self.spawn, keep_done=False, on_change=self.changed.set)
            self.hosts[t] = HostController(dut, t, m, max_outstanding=HOST_OUTSTANDING, woken=self.dclock,
                                           spawn=self.spawn, keep_log=False, on_change=self.changed.set)
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
            ch.max_outstanding = limit
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
                ch.add_job(it)
                await until(lambda: ch.idle, f"descriptor #{it.index}", [ch])
            else:
                if it.wait:
                    await until(lambda: all(c.idle for c in chans), f"barrier before descriptor #{it.index}", chans)
                ch.add_job(it)
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


WINDOW_BASE = GPU_BUS  # a 1 MB window over the GPU page below
GPU_PAGE = WINDOW_BASE + 0x4_0000


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
        dev.map(GPU_PAGE, gpu, "gpu page")
        refused = dev.run([_words(m, "wr", 0x10_0000, GPU_PAGE, 4096, tag=7)])["statuses"]
        assert refused[0]["error_name"] == "WINDOW" and refused[0]["fields"]["tag"] == 7, refused
        _open_window(dev, m)
        r = dev.run([_words(m, "wr", 0x10_0000 + 4096, GPU_PAGE, 8192, tag=8)])
        assert r["statuses"][0]["error_name"] == "OK", r
        assert gpu[:8192] == host_in[8 + 4096:8 + 4096 + 8192]
        assert r["cycles"]["dma"] >= 8192 // 64, r["cycles"]
        r = dev.run([_words(m, "rd", GPU_PAGE, 0x20_0000, 8192, tag=9)])
        dev.unmap(HOST_BUS)
        r = dev.run(host_descriptors=[{"direction": "wr", "src": 0x20_0000, "dst": HOST_BUS + 0x100_0000, "bytes": 8192}])
        assert host_out[:8192] == gpu[:8192]
        assert dev.csr_read("WIN0_BASE_HI") == WINDOW_BASE >> 32
    assert dev.process.returncode == 0, dev.ended()
    dev.remove()


def test_bad_requests_are_refused_and_the_device_goes_on():
    """Malformed requests (a host descriptor outside mapped memory or of no direction, a kernel
    descriptor of seven words, an overlapping map, an unknown register) are refused, each with a
    message naming it, and the device goes on to run the next request."""
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
        dev.run([_words(m, "rd", GPU_PAGE, 0, 4096, tag=1)])
    assert e.value.fatal
    assert dev.process.wait(timeout=60) == 1
    assert "stopped on an error" in dev.ended()
    with pytest.raises(DeviceError, match="the device is gone"):
        dev.csr_read("WIN0_CTRL")
    dev.link.close()
    dev.remove()
