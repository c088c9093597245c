#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make fault-check`: a broken mover beside the bridge fails the benches `make test` runs.

For each kind of DIREKT_SIM_FAULT (sim/direkt_sim/mover.py: a corrupted byte, a dropped status, a
status with a wrong ID) this runs the bridge bench's parameter set that `make test` runs on both
simulators, on Verilator, with that fault, and requires it to FAIL with the failure the fault must
cause (named below); then the same run without a fault, which must pass. Exit 0 only when every
fault was caught and the clean run passed. Run with the venv's Python.

    scripts/fault_check.py                 every kind
    scripts/fault_check.py status_drop     one kind
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = "tb/bridge/test_bridge.py::test_bridge[small-k7d5]"
# cocotb tests that carry kernel traffic through both movers: enough for each fault to show
TESTS = "byte_exact,pipelined"

# What each fault must make the bench say: a regular expression over the assertion messages of
# the cocotb log (cocotb's results file carries none).
EXPECT = {
    "mover_data": r"differs at|, GPU has 0x",
    "status_drop": r"status\(es\) missing",
    "wrong_id": r"spurious mover statuses [1-9]",
}


def run(fault: str | None) -> tuple[int, str, float]:
    env = dict(os.environ, SIM="verilator", TESTCASE=TESTS)
    env.pop("DIREKT_SIM_FAULT", None)
    if fault:
        env["DIREKT_SIM_FAULT"] = fault
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", NODE],
                       cwd=ROOT / "sim", env=env, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def failing_tests(out: str) -> list[str]:
    """The cocotb tests the runner reported failed."""
    return [line.strip() for line in out.splitlines() if re.fullmatch(r"\s+(byte_exact|pipelined)", line)]


def assertions(out: str) -> list[str]:
    """The assertion messages in the cocotb log (ModelError is an AssertionError)."""
    return [m.group(1).strip() for m in re.finditer(r"(?:AssertionError|ModelError|AvalonStError): (.*)", out)]


def main(argv: list[str]) -> int:
    kinds = argv or list(EXPECT)
    unknown = [k for k in kinds if k not in EXPECT]
    if unknown:
        print(f"fault-check: unknown fault {', '.join(unknown)} (known: {', '.join(EXPECT)})")
        return 2
    bad = []
    for kind in kinds:
        rc, out, dt = run(kind)
        fails = failing_tests(out)
        said = [a for a in assertions(out) if re.search(EXPECT[kind], a)]
        caught = rc != 0 and bool(fails) and bool(said)
        print(f"fault-check: DIREKT_SIM_FAULT={kind}: {'caught' if caught else 'NOT CAUGHT'} ({dt:.0f} s); "
              f"failed: {', '.join(fails) or 'none'}")
        for a in said[:2]:
            print(f"    {a[:300]}")
        if not caught:
            bad.append(kind)
            print("\n".join(out.splitlines()[-40:]))
    rc, out, dt = run(None)
    print(f"fault-check: no fault: {'passed' if rc == 0 else 'FAILED'} ({dt:.0f} s)")
    if rc != 0:
        bad.append("clean run")
        print("\n".join(out.splitlines()[-40:]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
