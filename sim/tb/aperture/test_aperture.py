# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's GPU-master aperture (generator ``aperture``, top ``direkt_aperture``).

The aperture puts part of FPGA memory on a flat BAR: agent ``s_*`` (the BAR's bursting RX master,
``pcie_clk``) reaches master ``m_*`` (FPGA memory, ``mem_clk``) at ``fpga_base`` + the BAR offset.
The rig drives ``s_*`` as the hard IP's RX master does (Avalon-MM bursts; reads pipelined, read
data never held back) and answers ``m_*`` with a memory model (:class:`Memory`: a read latency,
one beat a cycle, bursts in order). Everything the bench checks it reads at the pins.

Tests:

``byte_exact``  write bursts of every length with random byte enables, read everything back (bursts
                of random lengths, many outstanding), compare with a shadow copy; the memory model
                holds the same bytes at ``fpga_base`` + offset and nothing outside the window;
                ``overrun`` stays 0 and ``reserved_beats`` within the response buffer.
``measure``     (``bench/aperture.py``) the GPU-master model below, its throughput for each
                requester size and outstanding count, written to ``$DIREKT_APERTURE_MEASURE``.

The GPU-master model (:class:`GpuMaster`): the GPU's copy engine on a PCIe Gen3 x8 link. Writes are
posted: each beat waits for link credit (the link's payload rate, 256-byte TLPs) and nothing else.
Reads are non-posted: the GPU keeps ``outstanding`` requests of ``request_bytes`` in flight; a
request reaches the aperture half a round trip after it was sent, its completion data leaves at the
link's payload rate and reaches the GPU half a round trip later; a request slot frees when its last
byte has arrived.
"""

from __future__ import annotations

import heapq
import json
import os
import random
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer

from direkt_sim import bench_params, regress_scale, run_bench

PCIE_PS = 4_000   # the hard IP's 250 MHz application clock
MEM_PS = 3_750    # a DDR4-2133 controller's 266 MHz user clock

# PCIe Gen3 x8: 8 GT/s a lane, 128b/130b; a TLP of 256 payload bytes carries 24 more (header, sequence
# number, LCRC, framing).
LINK_RAW_GBPS = 8 * 8e9 * 128 / 130 / 8 / 1e9
TLP_PAYLOAD = 256
TLP_OVERHEAD = 24
LINK_GBPS = LINK_RAW_GBPS * TLP_PAYLOAD / (TLP_PAYLOAD + TLP_OVERHEAD)
ROUND_TRIP_NS = 800  # request to the FPGA and completion back through a root complex, without the FPGA's own time


class Memory:
    """FPGA memory on ``m_*``: never waits, a read burst's beats one a cycle ``latency`` cycles after its command."""

    def __init__(self, dut, size: int, latency: int):
        self.dut = dut
        self.data = bytearray(size)
        self.latency = latency
        self.reads: deque = deque()  # [ready_cycle, address, beats_left]
        self.write_left = 0
        self.write_address = 0
        self.cycle = 0
        self.beat = len(dut.m_writedata) // 8
        self.writes_seen = 0

    async def run(self):
        d = self.dut
        d.m_waitrequest.value = 0
        d.m_readdatavalid.value = 0
        d.m_readdata.value = 0
        while True:
            await RisingEdge(d.mem_clk)
            self.cycle += 1
            # read data for this cycle
            if self.reads and self.reads[0][0] <= self.cycle:
                r = self.reads[0]
                d.m_readdata.value = int.from_bytes(self.data[r[1]:r[1] + self.beat], "little")
                d.m_readdatavalid.value = 1
                r[1] += self.beat
                r[2] -= 1
                if r[2] == 0:
                    self.reads.popleft()
            else:
                d.m_readdatavalid.value = 0
            await ReadOnly()
            if int(d.mem_rst.value):
                self.reads.clear()
                self.write_left = 0
                continue
            if int(d.m_read.value):
                n = int(d.m_burstcount.value) or 1
                start = max(self.cycle + self.latency, self.reads[-1][0] if self.reads else 0)
                self.reads.append([start, int(d.m_address.value), n])
            if int(d.m_write.value):
                if self.write_left == 0:
                    self.write_address = int(d.m_address.value)
                    self.write_left = int(d.m_burstcount.value) or 1
                data = int(d.m_writedata.value).to_bytes(self.beat, "little")
                be = int(d.m_byteenable.value)
                for i in range(self.beat):
                    if be >> i & 1:
                        self.data[self.write_address + i] = data[i]
                self.write_address += self.beat
                self.write_left -= 1
                self.writes_seen += 1


class RxMaster:
    """The BAR's bursting RX master on ``s_*``: bursts from a queue, in order; reads pipelined, their
    data collected as it comes (never held back). ``gate`` (a cycle -> bool) holds the next write
    beat back (link credit); a read waits for its arrival cycle."""

    def __init__(self, dut):
        self.dut = dut
        self.beat = len(dut.s_writedata) // 8
        self.ops: deque = deque()        # ("w", addr, [(data, be)...]) | ("r", addr, beats, arrival, tag)
        self.reads: deque = deque()      # [tag, beats_left, bytes]
        self.done: list = []             # (tag, bytes, cycle)
        self.cycle = 0
        self.beat_index = 0
        self.gate = None
        self.on_beat = None              # called for each read beat: (tag, cycle)
        self.write_beats = 0
        self.first_write_cycle = None
        self.last_write_cycle = None

    def idle(self) -> bool:
        return not self.ops and not self.reads

    async def run(self):
        d = self.dut
        for s in (d.s_read, d.s_write, d.s_address, d.s_burstcount, d.s_writedata, d.s_byteenable):
            s.value = 0
        while True:
            await RisingEdge(d.pcie_clk)
            self.cycle += 1
            op = self.ops[0] if self.ops else None
            rd = wr = 0
            if op is not None and op[0] == "w" and (self.gate is None or self.gate(self.cycle)):
                data, be = op[2][self.beat_index]
                wr = 1
                d.s_address.value = op[1]
                d.s_burstcount.value = len(op[2]) % (1 << len(d.s_burstcount))
                d.s_writedata.value = data
                d.s_byteenable.value = be
            elif op is not None and op[0] == "r" and op[3] <= self.cycle:
                rd = 1
                d.s_address.value = op[1]
                d.s_burstcount.value = op[2] % (1 << len(d.s_burstcount))
            d.s_read.value = rd
            d.s_write.value = wr
            await ReadOnly()
            if int(d.pcie_rst.value):
                continue
            if int(d.s_readdatavalid.value):
                r = self.reads[0]
                r[2] += int(d.s_readdata.value).to_bytes(self.beat, "little")
                r[1] -= 1
                if self.on_beat is not None:
                    self.on_beat(r[0], self.cycle)
                if r[1] == 0:
                    self.done.append((r[0], bytes(r[2]), self.cycle))
                    self.reads.popleft()
            if (rd or wr) and not int(d.s_waitrequest.value):
                if wr:
                    self.write_beats += 1
                    self.first_write_cycle = self.first_write_cycle or self.cycle
                    self.last_write_cycle = self.cycle
                    self.beat_index += 1
                    if self.beat_index == len(op[2]):
                        self.beat_index = 0
                        self.ops.popleft()
                else:
                    self.reads.append([op[4], op[2], bytearray()])
                    self.ops.popleft()


class Rig:
    def __init__(self, dut):
        self.dut = dut
        p = bench_params()
        self.bar = int(p["bar_bytes"])
        self.base = int(p["fpga_base"])
        self.mem_bytes = 1 << int(p["mem_address_bits"])
        self.max_burst = int(p["max_burst"])
        self.response_beats = int(p["response_beats"])
        self.lag = int(p.get("lag_beats", 16))
        self.mem = Memory(dut, self.mem_bytes, int(p.get("mem_latency", 24)))
        self.rx = RxMaster(dut)
        self.beat = self.rx.beat

    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.pcie_clk, PCIE_PS, units="ps").start())
        cocotb.start_soon(Clock(d.mem_clk, MEM_PS, units="ps").start())
        d.pcie_rst.value = 1
        d.mem_rst.value = 1
        cocotb.start_soon(self.mem.run())
        cocotb.start_soon(self.rx.run())
        await Timer(40 * PCIE_PS, units="ps")
        await RisingEdge(d.pcie_clk)
        d.pcie_rst.value = 0
        await RisingEdge(d.mem_clk)
        d.mem_rst.value = 0
        for _ in range(10):
            await RisingEdge(d.pcie_clk)

    async def drain(self, limit: int = 1_000_000):
        for _ in range(limit):
            await RisingEdge(self.dut.pcie_clk)
            self.check()
            if self.rx.idle():
                return
        raise AssertionError(f"the aperture did not finish its bursts within {limit} cycles "
                             f"({len(self.rx.ops)} bursts waiting, {len(self.rx.reads)} reads unanswered)")

    def check(self):
        d = self.dut
        if int(d.overrun.value):
            raise AssertionError("overrun: the memory's read data found the response buffer full")
        reserved = int(d.reserved_beats.value)
        if reserved > self.response_beats - self.lag:
            raise AssertionError(f"reserved_beats {reserved} > {self.response_beats - self.lag}")


def bursts(rng: random.Random, start: int, length: int, beat: int, max_burst: int):
    """(address, beats) bursts covering [start, start + length), none crossing a longest burst's span."""
    a, end = start, start + length
    while a < end:
        span = max_burst * beat
        room = (span - a % span) // beat
        n = min(rng.randint(1, max_burst), room, (end - a) // beat)
        yield a, n
        a += n * beat


@cocotb.test(timeout_time=200, timeout_unit="ms")
async def byte_exact(dut):
    """Write bursts with random byte enables, read back with reads outstanding, byte for byte."""
    rig = Rig(dut)
    await rig.start()
    rng = random.Random(int(os.environ.get("DIREKT_SEED", "1")))
    beat = rig.beat
    shadow = bytearray(rig.bar)
    rounds = 3 * regress_scale()
    for r in range(rounds):
        length = min(rig.bar, 64 * 1024)
        start = rng.randrange(0, rig.bar - length + 1, beat)
        for a, n in bursts(rng, start, length, beat, rig.max_burst):
            beats = []
            for i in range(n):
                data = rng.getrandbits(8 * beat)
                be = (1 << beat) - 1 if rng.random() < 0.7 else rng.getrandbits(beat)
                raw = data.to_bytes(beat, "little")
                for j in range(beat):
                    if be >> j & 1:
                        shadow[a + i * beat + j] = raw[j]
                beats.append((data, be))
            rig.rx.ops.append(("w", a, beats))
        tag = 0
        expect = {}
        for a, n in bursts(rng, start, length, beat, rig.max_burst):
            rig.rx.ops.append(("r", a, n, 0, tag))
            expect[tag] = (a, n)
            tag += 1
        rig.rx.done.clear()
        await rig.drain()
        assert len(rig.rx.done) == len(expect), f"round {r}: {len(rig.rx.done)} reads answered of {len(expect)}"
        for t, data, _ in rig.rx.done:
            a, n = expect[t]
            want = bytes(shadow[a:a + n * beat])
            assert data == want, f"round {r}: read of {n} beats at BAR offset 0x{a:x} returned other bytes"
    # the memory: the window at fpga_base holds the shadow, nothing outside it was written
    assert bytes(rig.mem.data[rig.base:rig.base + rig.bar]) == bytes(shadow), "FPGA memory differs from what was written"
    outside = rig.mem.data[:rig.base] + rig.mem.data[rig.base + rig.bar:]
    assert not any(outside), "a write landed outside the aperture's window"
    dut._log.info("byte_exact: %d rounds, %d write beats, every read byte-exact", rounds, rig.rx.write_beats)


class GpuMaster:
    """The GPU's copy engine on the link (see the module docstring), in pcie_clk cycles."""

    def __init__(self, rig: Rig):
        self.rig = rig
        self.cycle_ns = PCIE_PS / 1000
        self.beats_per_cycle = LINK_GBPS * self.cycle_ns / rig.beat  # link payload rate, in beats a cycle
        self.half_trip = round(ROUND_TRIP_NS / 2 / self.cycle_ns)

    async def write(self, offset: int, length: int) -> dict:
        rig = self.rig
        rx = rig.rx
        credit = {"v": 0.0, "cycle": rx.cycle}

        def gate(cycle):
            # link credit accrues at the payload rate; a beat spends one (no more than a TLP's worth banked)
            if cycle != credit["cycle"]:
                credit["v"] = min(credit["v"] + self.beats_per_cycle * (cycle - credit["cycle"]), TLP_PAYLOAD // rig.beat)
                credit["cycle"] = cycle
            if credit["v"] >= 1:
                credit["v"] -= 1
                return True
            return False

        rx.gate = gate
        rx.write_beats = 0
        rx.first_write_cycle = None
        seen0 = rig.mem.writes_seen
        per = TLP_PAYLOAD // rig.beat
        for a in range(offset, offset + length, TLP_PAYLOAD):
            rx.ops.append(("w", a, [(a + i, (1 << rig.beat) - 1) for i in range(per)]))
        start = rx.cycle
        await rig.drain()
        beats = length // rig.beat
        # until the last beat is in FPGA memory
        while rig.mem.writes_seen - seen0 < beats:
            await RisingEdge(rig.dut.pcie_clk)
        rx.gate = None
        cycles = rx.cycle - start
        return {"bytes": length, "cycles": cycles, "gbps": length / (cycles * self.cycle_ns)}

    async def read(self, offset: int, length: int, request_bytes: int, outstanding: int) -> dict:
        rig = self.rig
        rx = rig.rx
        beats = request_bytes // rig.beat
        pending: list = []            # heap of (arrival at the GPU, tag)
        link_free = [0.0]             # when the link back is free, in cycles
        last_beat_of: dict = {}
        arrival_of: dict = {}

        def on_beat(tag, cycle):
            depart = max(float(cycle), link_free[0]) + 1 / self.beats_per_cycle
            link_free[0] = depart
            last_beat_of[tag] = last_beat_of.get(tag, 0) + 1
            if last_beat_of[tag] == beats:
                arrival_of[tag] = depart + self.half_trip

        rx.on_beat = on_beat
        addrs = list(range(offset, offset + length, request_bytes))
        issued = 0
        in_flight = 0
        done = 0
        start = rx.cycle
        last = start
        while done < len(addrs):
            # requests whose data has all arrived free their slots
            for t, when in list(arrival_of.items()):
                if when <= rx.cycle:
                    del arrival_of[t]
                    heapq.heappush(pending, (when, t))
            while pending:
                when, _ = heapq.heappop(pending)
                in_flight -= 1
                done += 1
                last = max(last, when)
            while in_flight < outstanding and issued < len(addrs):
                rx.ops.append(("r", addrs[issued], beats, rx.cycle + self.half_trip, issued))
                issued += 1
                in_flight += 1
            await RisingEdge(rig.dut.pcie_clk)
            rig.check()
        rx.on_beat = None
        rx.done.clear()
        cycles = last - start
        return {"bytes": length, "cycles": round(cycles, 1), "gbps": length / (cycles * self.cycle_ns)}


@cocotb.test(timeout_time=60_000, timeout_unit="ms")
async def measure(dut):
    """GPU-master throughput: posted writes at the link's rate, and reads for each request size
    and outstanding count (``$DIREKT_APERTURE_MEASURE`` names where the JSON goes)."""
    rig = Rig(dut)
    await rig.start()
    p = bench_params()
    gpu = GpuMaster(rig)
    length = int(p.get("transfer_bytes", 256 * 1024))
    result = {
        "top": dut._name, "bar_bytes": rig.bar, "response_beats": rig.response_beats, "max_burst": rig.max_burst,
        "outstanding_reads": (rig.response_beats - rig.lag) // rig.max_burst,
        "mem_latency_cycles": rig.mem.latency, "pcie_clk_ns": PCIE_PS / 1000, "mem_clk_ns": MEM_PS / 1000,
        "link_gbps": round(LINK_GBPS, 3), "link_raw_gbps": round(LINK_RAW_GBPS, 3), "round_trip_ns": ROUND_TRIP_NS,
        "transfer_bytes": length,
    }
    result["write"] = await gpu.write(0, length)
    reads = []
    for req in [int(x) for x in str(p.get("request_sizes", "128,256,512")).split(",")]:
        for n in [int(x) for x in str(p.get("outstanding", "1,2,4,8,16,32")).split(",")]:
            r = await gpu.read(0, length, req, n)
            r.update(request_bytes=req, outstanding=n)
            reads.append(r)
            dut._log.info("read %d B x %d outstanding: %.3f GB/s", req, n, r["gbps"])
    result["reads"] = reads
    out = Path(os.environ["DIREKT_APERTURE_MEASURE"])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{p.get('label', dut._name)}.json").write_text(json.dumps(result, indent=2))
    dut._log.info("write: %.3f GB/s (link %.3f)", result["write"]["gbps"], LINK_GBPS)


# A 1 MiB BAR at 3 MiB in a 16 MiB FPGA memory: small enough to simulate, large enough for every burst.
CONFIG = dict(bar_bytes=1 << 20, fpga_base=3 << 20, mem_address_bits=24, data_bits=256, max_burst=16, response_beats=256)


def test_aperture():
    """The aperture moves every byte a GPU-master writes and reads, in its window only."""
    run_bench(bench="aperture", example="aperture", module=Path(__file__).stem, params=CONFIG,
              testcase=["byte_exact"], expected_top="direkt_aperture", emitter="generators")
