# SPDX-License-Identifier: Apache-2.0
"""Bench for direkt's OpenCL I/O channel port (generator ``channel_port``; top
``direkt_chan_<chan_id>_w<width>_h<hash>``, ``_r`` before the hash when registered).

The module is the BSP end of one OpenCL I/O channel (board_spec.xml
``<channels><interface port=... type=... width=... chan_id=.../>``):

* the kernel-facing Avalon-ST port carries exactly the names the OpenCL kernel system gives the
  channel: ``<port>_data``, ``<port>_valid``, ``<port>_ready`` (ready latency 0); with
  ``type=streamsink`` the kernel writes it (the module is the sink there), with
  ``type=streamsource`` the kernel reads it;
* the other port, ``core_data/_valid/_ready``, faces the bridge;
* clock ``kernel_clk``, reset ``kernel_resetn`` (active LOW, synchronous);
* ``registered=false``: wires; ``registered=true``: a 2-word register slice (skid buffer) with
  registered ``valid``/``data``/``ready`` outputs.

The rig (:class:`ChannelBench` on :class:`direkt_sim.stream_bench.StreamBench`) feeds the
upstream side (where words enter) from an Avalon-ST source that holds its offers, drains the
downstream side with a sink whose monitor checks the hold rule, and models the wires or the slice
every cycle; the pytest side checks the exact port list of the emitted Verilog.
"""

from __future__ import annotations

import re
from pathlib import Path

import cocotb
import pytest

from direkt_sim import bench_params, regress_scale, run_bench
from direkt_sim.stimulus import SHORT_STALLS, RunSizes, crossed_tests, hexstr as _hex
from direkt_sim.stream_bench import StreamBench

CAPACITY = 2  # registered: words the slice holds
REGRESS = regress_scale() > 1  # `make regress` (DIREKT_REGRESS=1)

PATTERNS = ("always", "random", "1in4", "stall")
words = RunSizes({"throughput": (300, 10_000), "traffic": (80, 5_500), "reset_mid_stream": (300, 3_000)})
assert words.long_total(traffic=len(PATTERNS) ** 2) >= 100_000  # per configuration under `make regress`


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


class ChannelBench(StreamBench):
    """Upstream (``up``): the side words enter; downstream (``dn``): the side they leave.

    Every cycle: registered, ``dn_valid == (words inside > 0)``, ``dn_data`` the oldest,
    ``up_ready == (words inside < CAPACITY)``; wires, ``dn_valid``/``dn_data`` are
    ``up_valid``/``up_data`` and ``up_ready`` is ``dn_ready``, and a word taken leaves in the same
    cycle. Without a clock a cycle is a bench period and the reset pulses do nothing."""

    def __init__(self, dut, name: str, src: str = "always", snk: str = "always"):
        p = bench_params()
        self.port, self.kind, width = p["port"], p["type"], int(p["width"])
        self.registered = bool(p["registered"])
        for pname, (_, w) in expected_ports(self.port, self.kind, width, self.registered).items():
            h = getattr(dut, pname)  # raises if the port is missing
            assert len(h) == w, f"port {pname} is {len(h)} bits wide, expected {w}"
        up, dn = (self.port, "core") if self.kind == "streamsink" else ("core", self.port)
        self.up_name, self.dn_name = up, dn
        self.passes_through = not self.registered
        clocking = dict(clock=dut.kernel_clk, reset=dut.kernel_resetn, reset_active_low=True) if self.registered else {}
        super().__init__(dut, name, src=src, snk=snk, s=f"{up}_", m=f"{dn}_", s_opts=dict(hold=True),
                         **SHORT_STALLS, **clocking)
        self.full = 0  # registered: cycles with the slice full
        self.log.info("test %s: %s port %s (%s -> %s) width=%d registered=%s src=%s snk=%s seed=%s",
                      name, self.kind, self.port, up, dn, width, self.registered, src, snk, cocotb.RANDOM_SEED)

    def check(self, rst: bool) -> None:
        src, snk, inside = self.src, self.snk, self.sb.expected
        if self.registered:
            want_valid = int(bool(inside))
            want_ready = int(len(inside) < CAPACITY)
            want_data = inside[0][1] if inside else None
        else:
            want_valid, want_ready = src.valid, snk.ready
            want_data = src.data if src.valid else None
        if snk.valid != want_valid:
            self.fail(f"{self.dn_name}_valid={snk.valid}, expected {want_valid}")
        if want_data is not None and snk.data != want_data:
            self.fail(f"{self.dn_name}_data={_hex(snk.data)}, expected {want_data:#x}")
        if src.ready != want_ready:
            self.fail(f"{self.up_name}_ready={src.ready}, expected {want_ready}")
        self.full += not rst and len(inside) == CAPACITY

    def on_edge(self, took, got) -> None:
        super().on_edge(took, got)
        if self.registered and len(self.sb) > CAPACITY:
            self.fail("accepted a word with the slice full")
        if not self.registered and took is not None and not self.snk.moved:
            self.fail("unregistered port took a word without passing it on")

    def finish(self) -> None:
        super().finish()
        self.log.info("%s: slice full %d cycles", self.name, self.full)


TIMEOUT = dict(timeout_time=500 if REGRESS else 50, timeout_unit="ms")  # simulated time


# --------------------------------------------------------------------------- cocotb tests


@cocotb.test(**TIMEOUT)
async def throughput(dut):
    """Both sides always on: one word per cycle out without a bubble, latency 1 registered, 0 as
    wires."""
    tb = ChannelBench(dut, "throughput")
    await tb.start()
    n = words("throughput")
    await tb.pass_words(n, max_cycles=n + 10)
    assert tb.out_cycles == list(range(tb.out_cycles[0], tb.out_cycles[0] + n)), "bubbles on the output"
    latency = 1 if tb.registered else 0
    assert tb.out_cycles[0] - tb.in_cycles[0] == latency


@cocotb.test(**TIMEOUT)
async def backpressure(dut):
    """Downstream not ready for 30 cycles: the upstream sees ready low for (nearly) all of them,
    the slice holds CAPACITY words, and all 100 words arrive once downstream is back."""
    tb = ChannelBench(dut, "backpressure")
    await tb.start()
    tb.add_words(100)
    stall = 30
    tb.snk.pattern = iter([True] * 5 + [False] * stall + [True] * 10_000)
    await tb.run(max_cycles=5 + stall, until_drained=False)
    assert tb.src.monitor.stalls >= stall - CAPACITY, f"upstream stalled on only {tb.src.monitor.stalls} cycles"
    if tb.registered:
        assert len(tb.sb) == CAPACITY and tb.full > 0
    await tb.drain(100, max_cycles=1000)


async def _traffic(dut, src: str, snk: str) -> None:
    tb = ChannelBench(dut, f"traffic_src_{src}_snk_{snk}", src=src, snk=snk)
    await tb.start()
    n = words("traffic")
    await tb.pass_words(n, max_cycles=n * 200 + 200)
    if snk != "always" and (src, snk) != ("1in4", "1in4"):  # two 1-in-4 patterns may never collide
        assert tb.snk.monitor.stalls > 0, "coverage: no back-pressure seen downstream"
    if snk in ("stall", "1in4") and src == "always":
        assert tb.src.monitor.stalls > 0, "coverage: back-pressure never reached the upstream"


crossed_tests(globals(), _traffic, PATTERNS, PATTERNS, **TIMEOUT, doc=(
    "Random words, source valid {src}, sink ready {snk}: the wires or the slice match the model every "
    "cycle, the hold rule holds downstream, every word comes out once and in order; coverage: "
    "back-pressure downstream, and reaching the upstream (source always valid, sink stall or 1in4)."))


@cocotb.test(**TIMEOUT)
async def reset_mid_stream(dut):
    """kernel_resetn low for 1..3 cycles at random points while words flow: the slice empties (its
    words are lost), the stream restarts in order; wires have nothing to lose."""
    tb = ChannelBench(dut, "reset_mid_stream", src="random", snk="random")
    await tb.start()
    n = words("reset_mid_stream")
    await tb.pass_words_through_resets(n, pulses=max(4, n // 100), max_cycles=n * 20)


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
    """The channel port emitted as this kind, width and register choice has the ports the board's
    channel names and passes every cocotb test above."""
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
