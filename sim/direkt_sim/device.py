# SPDX-License-Identifier: Apache-2.0
"""Builds and starts the simulated device (``tb/bridge_device``) for a host listening on a Unix socket.

    .venv/bin/python -m direkt_sim.device --socket PATH --run-dir DIR [--params JSON] [--settings JSON]

(from ``sim/``). It emits the bridge with the generator parameters ``--params`` (a JSON object;
default ``{"preset": "default"}``), builds it in its clock harness (:mod:`direkt_sim.harness`)
under ``sim/build/bridge_device/<sim>/<params>/``, once per configuration and holding that
directory's lock only while building, then runs the simulator in ``--run-dir``: the device
connects to the socket and serves the host until the host closes the link. ``--settings``:
``{"kernel_ps", "dma_ps"}`` clock periods (default 4000 each) and ``"mover": {"latency",
"bytes_per_cycle"}`` (default 8, 64), none of which needs another build. ``SIM`` picks the
simulator (``verilator`` by default, or ``icarus``); ``WAVES=1`` dumps ``dump.fst`` in the run
directory.

Lines starting ``direkt-device:`` say what it is doing; the last one says how it ended. Exit
status 0: the host closed the device; 1: the device stopped on an error or its simulator ended
on its own; 2: the device could not be built.

:class:`DeviceClient` is the host's side in Python (the device's own tests use it; the host
runtime's is Java's ``org.direkt.runtime.sim.SimulatedDevice``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping, Optional, Sequence

from . import harness as _harness
from . import runner as _runner
from .emit import SIM_DIR, Emitted
from .link import PROTOCOL, DeviceError, Link, LinkClosed, LinkError, expect

BENCH = "bridge_device"
MODULE = "test_bridge_device"
HARNESS_TOP = "direkt_device_top"
TB_DIR = SIM_DIR / "tb" / BENCH
ENV_SOCKET = "DIREKT_DEVICE_SOCKET"
ENV_SETTINGS = "DIREKT_DEVICE_CLOCKS"
DEFAULT_PARAMS = {"preset": "default"}
DEFAULT_CLOCKS = {"kernel_ps": 4000, "dma_ps": 4000}


def say(text: str) -> None:
    print(f"direkt-device: {text}", flush=True)


def harness(emitted: Emitted, build_dir: Path, sim: str) -> tuple[str, list[Path], list[str]]:
    """The clock harness around the emitted bridge (a :data:`direkt_sim.runner.Harness`)."""
    manifest = json.loads((build_dir / "rtl" / "direkt-overlay.json").read_text())
    clocks = manifest["bridge"]["clocks"]
    top_v = next(p for p in emitted.sources if p.name == f"{emitted.top}.v")
    path = _harness.write_harness(top_v, emitted.top, HARNESS_TOP, [clocks["kernel"]["clock"], clocks["dma"]["clock"]],
                                  build_dir, _runner.TIMESCALE)
    return HARNESS_TOP, [path], list(_harness.VERILATOR_ARGS) if sim == "verilator" else []


def _ended(exc: SystemExit) -> str:
    """cocotb's runner says 'terminated with error -9' for a signal; name the signal."""
    text = str(exc)
    code = text.rsplit(" ", 1)[-1]
    if code.lstrip("-").isdigit() and int(code) < 0:
        try:
            text += f" (killed by {signal.Signals(-int(code)).name})"
        except ValueError:
            pass
    return text


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m direkt_sim.device", description=__doc__.split("\n\n")[0])
    ap.add_argument("--socket", required=True, help="the host's Unix socket")
    ap.add_argument("--run-dir", required=True, type=Path, help="where the simulator runs (its log and results)")
    ap.add_argument("--params", default=json.dumps(DEFAULT_PARAMS), help="generator parameters, a JSON object")
    ap.add_argument("--settings", default="{}", help='clocks and mover model: {"kernel_ps", "dma_ps", "mover"}')
    args = ap.parse_args(argv)
    # Started from a pytest test, the runner would take the test's name for its results file.
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    try:
        params = json.loads(args.params)
        settings = json.loads(args.settings)
        if not isinstance(params, dict) or not isinstance(settings, dict):
            raise ValueError("--params and --settings are JSON objects")
        clocks = {**DEFAULT_CLOCKS, **{k: settings[k] for k in DEFAULT_CLOCKS if k in settings}}
        plusargs = _harness.clock_plusargs(clocks)
    except (ValueError, _harness.HarnessError) as e:
        say(f"bad arguments: {e}")
        return 2

    t0 = time.monotonic()
    try:
        built = _runner.build_bench(bench=BENCH, example="bridge", params=params, expected_top="direkt_bridge",
                                    emitter="generators", harness=harness)
    except BaseException as e:  # runner._fail raises pytest's Failed, a BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        say(f"the device could not be built: {e}")
        return 2
    say(f"built {built.top} around {built.emitted_top} ({built.sim}, {time.monotonic() - t0:.1f} s) in {built.build_dir}")

    args.run_dir.mkdir(parents=True, exist_ok=True)
    if str(TB_DIR) not in sys.path:
        sys.path.insert(0, str(TB_DIR))  # the runner hands sys.path to the simulator's Python
    waves = _runner.waves_enabled()
    if waves and built.sim == "icarus":
        plusargs += ["+direkt_waves", "-fst"]
    try:
        results = built.runner.test(
            test_module=MODULE, hdl_toplevel=built.top, hdl_toplevel_lang="verilog", testcase="serve",
            plusargs=plusargs, waves=waves, build_dir=built.build_dir, test_dir=args.run_dir,
            extra_env={ENV_SOCKET: args.socket, ENV_SETTINGS: json.dumps({**clocks, "mover": settings.get("mover") or {}}),
                       "DIREKT_RTL_DIR": str(built.build_dir / "rtl"), "DIREKT_SIM": built.sim,
                       "DIREKT_PARAMS": json.dumps(params, sort_keys=True)},
        )
    except SystemExit as e:
        say(f"the simulator ended on its own: {_ended(e)}")
        return 1
    outcome = _runner.read_results(Path(results)) if Path(results).is_file() else []
    if not outcome:
        say(f"the simulator wrote no results ({results}): it ended before the device ran")
        return 1
    if any(r.status == "failed" for r in outcome):
        say("the device stopped on an error (the log above says which)")
        return 1
    say("closed by the host")
    return 0


class DeviceClient:
    """The host's side of the device, in Python: starts ``python -m direkt_sim.device``, keeps
    the PCIe memory it maps (``bytearray``s the device reads and writes through the link), and
    runs descriptors.

        with DeviceClient() as dev:
            host = bytearray(os.urandom(4096))
            dev.map(0x20_0000_0000, host)
            dev.run(host_descriptors=[{"direction": "rd", "src": 0x20_0000_0000, "dst": 0, "bytes": 4096}])
    """

    def __init__(self, params: Optional[Mapping] = None, settings: Optional[Mapping] = None, timeout_s: float = 600):
        self.dir = Path(tempfile.mkdtemp(prefix="direkt-device-"))
        self.log = self.dir / "device.log"
        self.timeout_s = timeout_s
        self.memory: dict[int, bytearray] = {}
        path = str(self.dir / "link.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)
        cmd = [sys.executable, "-m", "direkt_sim.device", "--socket", path, "--run-dir", str(self.dir / "run"),
               "--params", json.dumps(dict(params or DEFAULT_PARAMS)), "--settings", json.dumps(dict(settings or {}))]
        with open(self.log, "w") as out:
            self.process = subprocess.Popen(cmd, cwd=SIM_DIR, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            server.settimeout(0.2)
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    conn, _ = server.accept()
                    break
                except socket.timeout:
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        self.process.kill()
                        raise DeviceError(f"the device did not start: {self.ended()}", fatal=True)
        finally:
            server.close()
        conn.settimeout(timeout_s)
        self.link = Link(conn)
        self.hello, _ = expect(self.link, "hello", "start")
        if self.hello.get("protocol") != PROTOCOL:
            raise LinkError(f"the device speaks protocol {self.hello.get('protocol')}, this client {PROTOCOL}")

    def ended(self) -> str:
        """The launcher's last ``direkt-device:`` line (how it ended), and where its log is."""
        lines = [l for l in self.log.read_text().splitlines() if l.startswith("direkt-device:")] if self.log.is_file() else []
        return f"{lines[-1] if lines else 'no word from the device'} (log: {self.log})"

    def _call(self, req: dict, op: str) -> dict:
        try:
            self.link.send(req)
        except LinkClosed:
            raise self._gone(req["op"]) from None
        return self._answer(op, req["op"])

    def _gone(self, what: str) -> DeviceError:
        self.process.wait(timeout=30)
        return DeviceError(f"{what}: the device is gone: {self.ended()}", fatal=True)

    def _answer(self, op: str, what: str) -> dict:
        while True:
            try:
                header, data = self.link.recv()
            except LinkClosed:
                raise self._gone(what) from None
            if header["op"] == "read":
                self.link.send({"op": "data"}, self._read(header["bus"], header["bytes"]))
            elif header["op"] == "write":
                self._write(header["bus"], data)
            elif header["op"] == "error":
                raise DeviceError(header.get("message", "?"), bool(header.get("fatal")), what)
            elif header["op"] == op:
                return header
            else:
                raise LinkError(f"{what}: expected {op!r}, got {header['op']!r}")

    def _find(self, bus: int, n: int) -> tuple[bytearray, int]:
        for base, mem in self.memory.items():
            if base <= bus and bus + n <= base + len(mem):
                return mem, bus - base
        raise LinkError(f"the device asked for [{bus:#x}, +{n:#x}), which no one mapped range holds")

    def _read(self, bus: int, n: int) -> bytes:
        mem, off = self._find(bus, n)
        return bytes(mem[off:off + n])

    def _write(self, bus: int, data: bytes) -> None:
        mem, off = self._find(bus, len(data))
        mem[off:off + len(data)] = data

    def map(self, bus: int, memory: bytearray, name: str = "") -> None:
        self._call({"op": "map", "ranges": [{"bus": bus, "size": len(memory), "name": name or f"{bus:#x}"}]}, "mapped")
        self.memory[bus] = memory

    def unmap(self, bus: int) -> None:
        self._call({"op": "unmap", "buses": [bus]}, "unmapped")
        del self.memory[bus]

    def csr_write(self, name: str, value: int) -> None:
        self._call({"op": "csr_write", "name": name, "value": value}, "csr_written")

    def csr_read(self, name: str) -> int:
        return self._call({"op": "csr_read", "name": name}, "csr_value")["value"]

    def run(self, descriptors=(), host_descriptors=(), issue: Optional[Mapping] = None) -> dict:
        req = {"op": "run", "descriptors": list(descriptors), "host_descriptors": list(host_descriptors)}
        if issue is not None:
            req["issue"] = dict(issue)
        return self._call(req, "done")

    def close(self) -> int:
        """Closes the device; returns the launcher's exit status."""
        try:
            self._call({"op": "close"}, "closed")
        except (DeviceError, LinkClosed, OSError):
            pass
        self.link.close()
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "DeviceClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":
    sys.exit(main())
