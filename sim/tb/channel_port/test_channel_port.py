# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's OpenCL I/O channel port (generator ``channel_port``; top
``direkt_chan_<chan_id>_w<width>_h<hash>``, ``_r`` before the hash when registered).

The module is the BSP end of one OpenCL I/O channel (board_spec.xml
``<channels><interface port=... type=... width=... chan_id=.../>``):

* the kernel-facing Avalon-ST port carries exactly the names the OpenCL kernel
  system gives the channel: ``<port>_data``, ``<port>_valid``, ``<port>_ready``
  (ready latency 0); with ``type=streamsink`` the kernel writes it (the module
  is the sink there), with ``type=streamsource`` the kernel reads it;
* the other port, ``core_data/_valid/_ready``, faces the bridge;
* clock ``kernel_clk``, reset ``kernel_resetn`` (active LOW, synchronous);
* ``registered=false``: wires; ``registered=true``: a 2-word register slice
  (skid buffer) with registered ``valid``/``data``/``ready`` outputs.

Checked: the exact port list, directions and widths (pytest side, from the
emitted Verilog, plus the handles inside the simulator); a cycle-accurate
model of the wires or the slice on every cycle; a scoreboard (order, loss,
duplication) from the upstream to the downstream side; the RL0 hold rule on
the registered source side; back-pressure reaching the upstream; the reset
polarity. Source/sink patterns: always, random, 1-in-N, stall, crossed.
"""

from __future__ import annotations

import random
import re
from collections import deque
from pathlib import Path
from typing import Iterator, Optional

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import value as _int, hexstr as _hex, pattern as _pattern

CLK_PERIOD_NS = 10
RESET_CYCLES = 3
CAPACITY = 2  # registered: words the slice holds
REGRESS = regress_scale() > 1  # `make regress` (DIREKT_REGRESS=1)

PATTERNS = ("always", "random", "1in4", "stall")
# Words per cocotb test: (short form, long form); the long form moves at least
# 100,000 words per configuration (checked below).
WORDS = {
    "throughput": (300, 10_000),
    "traffic": (80, 5_500),  # per source/sink pattern pair (16 of them)
    "reset_mid_stream": (300, 3_000),
}
assert WORDS["throughput"][1] + 16 * WORDS["traffic"][1] + WORDS["reset_mid_stream"][1] >= 100_000


def words(test: str) -> int:
    short, long = WORDS[test]
    return long if REGRESS else short


def expected_ports(port: str, kind: str, width: int, registered: bool) -> dict[str, tuple[str, int]]:
    """name -> (direction, width) of the top module, as the OpenCL kernel system names them.

    An unregistered port is a plain connection: it has no clock or reset pins at all.
    """
    sink = kind == "streamsink"  # the kernel writes: its port is an input stream here
    k_in, k_out = ("input", "output") if sink else ("output", "input")
    clocking = {"kernel_clk": ("input", 1), "kernel_resetn": ("input", 1)} if registered else {}
    return {
        **clocking,
        f"{port}_data": (k_in, width),
        f"{port}_valid": (k_in, 1),
        f"{port}_ready": (k_out, 1),
        "core_data": (k_out, width),
        "core_valid": (k_out, 1),
        "core_ready": (k_in, 1),
    }


# --------------------------------------------------------------------------- bench


def pattern(kind: str, rng: random.Random) -> Iterator[bool]:
    """The shared patterns, with shorter stalls: these DUTs hold at most a few words."""
    return _pattern(kind, rng, stall_on=(1, 12), stall_off=(5, 30))


class ChannelBench:
    """Upstream (``up``): the side words enter; downstream (``dn``): the side they leave."""

    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        self.dut = dut
        self.name = name
        p = bench_params()
        self.port, self.kind, self.width = p["port"], p["type"], int(p["width"])
        self.registered = bool(p["registered"])
        for pname, (_, w) in expected_ports(self.port, self.kind, self.width, self.registered).items():
            h = getattr(dut, pname)  # raises if the port is missing
            assert len(h) == w, f"port {pname} is {len(h)} bits wide, expected {w}"
        k = self.port
        if self.kind == "streamsink":
            up, dn = k, "core"
        else:
            up, dn = "core", k
        self.up_name, self.dn_name = up, dn
        self.up_data, self.up_valid, self.up_ready = (getattr(dut, f"{up}_{s}") for s in ("data", "valid", "ready"))
        self.dn_data, self.dn_valid, self.dn_ready = (getattr(dut, f"{dn}_{s}") for s in ("data", "valid", "ready"))
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:{name}")
        self.log = dut._log
        self.src_on = pattern(src, self.rng)
        self.snk_on = pattern(snk, self.rng)
        self.to_send: deque[int] = deque()
        self.inside: deque[int] = deque()  # registered: the words in the slice
        self.offering = False
        self.cycle = 0
        self.resets: dict[int, int] = {}
        self._rst_left = 0
        self.prev: Optional[tuple] = None  # (in reset, dn_valid, dn_ready, dn_data) of the previous cycle
        self.accepted = 0
        self.delivered = 0
        self.lost_to_reset = 0
        self.in_cycles: list[int] = []
        self.out_cycles: list[int] = []
        self.dn_stalls = 0  # downstream valid && !ready
        self.up_stalls = 0  # upstream valid && !ready: back-pressure reached the source
        self.full = 0  # registered: cycles with the slice full
        self.log.info("test %s: %s port %s (%s -> %s) width=%d registered=%s src=%s snk=%s seed=%s",
                      name, self.kind, self.port, up, dn, self.width, self.registered, src, snk,
                      cocotb.RANDOM_SEED)

    async def edge(self) -> None:
        """One cycle: the kernel clock's rising edge, or for a clockless connection a bench period."""
        if self.registered:
            await RisingEdge(self.dut.kernel_clk)
        else:
            await Timer(CLK_PERIOD_NS, units="ns")

    async def start(self) -> None:
        dut = self.dut
        if self.registered:
            cocotb.start_soon(Clock(dut.kernel_clk, CLK_PERIOD_NS, units="ns").start())
            dut.kernel_resetn.value = 0
        self.up_valid.value = 0
        self.up_data.value = 0
        self.dn_ready.value = 0
        for _ in range(RESET_CYCLES):
            await self.edge()
        await ReadOnly()
        if _int(self.dn_valid) != 0:
            raise AssertionError(f"{self.dn_name}_valid is {self.dn_valid.value} during reset (kernel_resetn low)")
        await self.edge()
        self.prev = (True, 0, 0, 0)

    def add_words(self, n: int) -> None:
        self.to_send.extend(self.rng.getrandbits(self.width) for _ in range(n))

    def _fail(self, what: str) -> None:
        raise AssertionError(
            f"{self.name}: cycle {self.cycle} ({get_sim_time('ns')} ns): {what} "
            f"[inside {[hex(w) for w in self.inside]}, accepted {self.accepted}, delivered {self.delivered}]"
        )

    async def run(self, max_cycles: int, until_drained: bool = True) -> None:
        dut, rng = self.dut, self.rng
        for _ in range(max_cycles):
            if until_drained and not self.to_send and not self.inside and self._rst_left == 0 \
                    and self.cycle not in self.resets:
                return
            # ---- drive
            if self.cycle in self.resets:
                self._rst_left = self.resets[self.cycle]
            rst = self._rst_left > 0
            self._rst_left = max(0, self._rst_left - 1)
            up_valid = int((self.offering or next(self.src_on)) and bool(self.to_send))
            up_data = self.to_send[0] if up_valid else rng.getrandbits(self.width)
            dn_ready = int(next(self.snk_on))
            if self.registered:
                dut.kernel_resetn.value = int(not rst)
            self.up_valid.value = up_valid
            self.up_data.value = up_data
            self.dn_ready.value = dn_ready
            # ---- sample, model, protocol
            await ReadOnly()
            up_ready, dn_valid, dn_data = _int(self.up_ready), _int(self.dn_valid), _int(self.dn_data)
            if self.registered:
                want_valid = int(bool(self.inside))
                want_ready = int(len(self.inside) < CAPACITY)
                want_data = self.inside[0] if self.inside else None
            else:
                want_valid, want_ready = up_valid, dn_ready
                want_data = up_data if up_valid else None
            if dn_valid != want_valid:
                self._fail(f"{self.dn_name}_valid={dn_valid}, expected {want_valid}")
            if want_data is not None and dn_data != want_data:
                self._fail(f"{self.dn_name}_data={_hex(dn_data)}, expected {want_data:#x}")
            if up_ready != want_ready:
                self._fail(f"{self.up_name}_ready={up_ready}, expected {want_ready}")
            prev_rst, p_valid, p_ready, p_data = self.prev
            if self.registered and not prev_rst and p_valid and not p_ready:
                if not dn_valid or dn_data != p_data:
                    self._fail(f"RL0 hold rule violated on {self.dn_name}: valid/data {p_valid}/{_hex(p_data)} -> "
                               f"{dn_valid}/{_hex(dn_data)} without a transfer")
            if not rst:
                self.dn_stalls += bool(dn_valid and not dn_ready)
                self.up_stalls += bool(up_valid and not up_ready)
                self.full += len(self.inside) == CAPACITY
            # ---- the edge
            await self.edge()
            self.cycle += 1
            self.prev = (rst, dn_valid, dn_ready, dn_data)
            takes = bool(up_valid and up_ready)
            gives = bool(dn_valid and dn_ready)
            self.offering = up_valid and not takes
            if rst and self.registered:
                self.lost_to_reset += len(self.inside)
                self.inside.clear()
                self.offering = False
                continue
            if gives:
                if not self.inside and self.registered:
                    self._fail(f"delivered {_hex(dn_data)} with no word inside (duplicate or invented word)")
                want = self.inside.popleft() if self.registered else up_data
                if dn_data != want:
                    self._fail(f"delivered {_hex(dn_data)}, expected {want:#x} (order/loss/corruption)")
                self.delivered += 1
                self.out_cycles.append(self.cycle)
            if takes:
                w = self.to_send.popleft()
                self.accepted += 1
                self.in_cycles.append(self.cycle)
                if self.registered:
                    self.inside.append(w)
                    if len(self.inside) > CAPACITY:
                        self._fail("accepted a word with the slice full")
                elif not gives:
                    self._fail("unregistered port took a word without passing it on")
        if until_drained:
            raise AssertionError(f"{self.name}: not drained after {max_cycles} cycles: {len(self.to_send)} unsent, "
                                 f"{len(self.inside)} inside")

    def finish(self) -> None:
        assert self.accepted == self.delivered + self.lost_to_reset + len(self.inside), "bench bookkeeping"
        self.log.info("%s: %d cycles, %d accepted, %d delivered, %d lost to reset; downstream stalled %d, "
                      "upstream stalled %d, slice full %d cycles", self.name, self.cycle, self.accepted,
                      self.delivered, self.lost_to_reset, self.dn_stalls, self.up_stalls, self.full)


TIMEOUT = dict(timeout_time=500 if REGRESS else 50, timeout_unit="ms")  # simulated time


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Both sides always on: one word per cycle (latency 1 registered, 0 unregistered)."""
    tb = ChannelBench(dut, "throughput")
    await tb.start()
    n = words("throughput")
    tb.add_words(n)
    await tb.run(max_cycles=n + 10)
    tb.finish()
    assert tb.delivered == n
    assert tb.out_cycles == list(range(tb.out_cycles[0], tb.out_cycles[0] + n)), "bubbles on the output"
    latency = 1 if tb.registered else 0
    assert tb.out_cycles[0] - tb.in_cycles[0] == latency


@cocotb.test(**TIMEOUT)
async def backpressure(dut):
    """Downstream never ready for a while: upstream sees ready low, nothing is lost."""
    tb = ChannelBench(dut, "backpressure")
    await tb.start()
    tb.add_words(100)
    stall = 30
    tb.snk_on = iter([True] * 5 + [False] * stall + [True] * 10_000)
    await tb.run(max_cycles=5 + stall, until_drained=False)
    assert tb.up_stalls >= stall - CAPACITY, f"upstream stalled on only {tb.up_stalls} cycles"
    if tb.registered:
        assert len(tb.inside) == CAPACITY and tb.full > 0
    await tb.run(max_cycles=1000)
    tb.finish()
    assert tb.delivered == 100


def _traffic_test(src: str, snk: str):
    async def test(dut):
        tb = ChannelBench(dut, f"traffic_src_{src}_snk_{snk}", src=src, snk=snk)
        await tb.start()
        n = words("traffic")
        tb.add_words(n)
        await tb.run(max_cycles=n * 200 + 200)
        tb.finish()
        assert tb.delivered == n
        if snk != "always" and (src, snk) != ("1in4", "1in4"):  # two 1-in-4 patterns may never collide
            assert tb.dn_stalls > 0, "coverage: no back-pressure seen downstream"
        if snk in ("stall", "1in4") and src == "always":
            assert tb.up_stalls > 0, "coverage: back-pressure never reached the upstream"

    test.__name__ = test.__qualname__ = f"traffic_src_{src}_snk_{snk}"
    test.__doc__ = f"Random words; source valid {src}, sink ready {snk}."
    return cocotb.test(**TIMEOUT)(test)


for _src in PATTERNS:
    for _snk in PATTERNS:
        _t = _traffic_test(_src, _snk)
        globals()[_t.name] = _t
del _src, _snk, _t


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """kernel_resetn low for 1..3 cycles while words flow: the slice empties (wires: nothing to lose)."""
    tb = ChannelBench(dut, "reset_mid_stream", src="random", snk="random")
    n = words("reset_mid_stream")
    at = sorted(tb.rng.sample(range(20, n), max(4, n // 100)))  # n words take >= n cycles
    tb.resets = {c: tb.rng.randint(1, 3) for c in at}
    await tb.start()
    tb.add_words(n)
    await tb.run(max_cycles=n * 20)
    tb.finish()
    assert tb.cycle > at[-1], "traffic ended before the last reset"
    assert tb.delivered + tb.lost_to_reset == n


# --------------------------------------------------------------------------- pytest


NAMES = {  # type -> (port, chan_id), after the board_spec.xml example in Intel's Custom Platform Toolkit guide
    "streamsink": ("udp0_in", "eth0_out"),
    "streamsource": ("udp0_out", "eth0_in"),
}

# (type, width, registered). The short form runs a pairwise cover (each type at every width, each width
# registered and not, each type registered and not); the long form runs the full cross.
ALL_CONFIGS = [(kind, width, registered) for kind in NAMES for registered in (True, False) for width in (8, 64, 256)]
PAIRWISE = [
    ("streamsink", 8, True), ("streamsink", 64, False), ("streamsink", 256, True),
    ("streamsource", 8, False), ("streamsource", 64, True), ("streamsource", 256, False),
]
CONFIGS = ALL_CONFIGS if REGRESS else PAIRWISE


def _id(cfg) -> str:
    kind, width, registered = cfg
    return f"{kind.removeprefix('stream')}-w{width}-{'reg' if registered else 'wire'}"


_PORT_RE = re.compile(r"^\s*(input|output)\s+wire\s+(?:\[(\d+):0\]\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*,?", re.M)


def verilog_ports(path: Path, top: str) -> dict[str, tuple[str, int]]:
    """The port list of *top* in *path*: name -> (direction, width)."""
    text = path.read_text()
    m = re.search(rf"\bmodule\s+{re.escape(top)}\s*\((.*?)\);", text, re.S)
    assert m, f"module {top} not found in {path}"
    header = re.sub(r"//[^\n]*", "", m.group(1))
    return {name: (d, int(msb) + 1 if msb else 1) for d, msb, name in _PORT_RE.findall(header)}


@pytest.mark.parametrize("cfg", CONFIGS, ids=[_id(c) for c in CONFIGS])
def test_channel_port(cfg):
    kind, width, registered = cfg
    port, chan_id = NAMES[kind]
    params = {"port": port, "type": kind, "width": width, "chan_id": chan_id, "registered": registered}
    # The readable part of the name, then a hash of the parameters the contents depend on.
    name = re.compile(rf"direkt_chan_{chan_id}_w{width}" + ("_r" if registered else "") + r"_h[0-9a-f]{8}")
    run = run_bench(
        bench="channel_port",
        example="channel_port",
        module=Path(__file__).stem,
        params=params,
        emitter="generators",
    )
    top = run.top
    assert name.fullmatch(top), f"top {top!r} is not named {name.pattern}"
    # The port list, exactly (names, directions, widths), from the emitted Verilog.
    got = verilog_ports(run.build_dir / "rtl" / f"{top}.v", top)
    want = expected_ports(port, kind, width, registered)
    assert got == want, f"ports of {top}: {got}, expected {want}"
