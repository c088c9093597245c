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

# What each fault must make the bench say (a regular expression over its output).
EXPECT = {
    "mover_data": r"differ|mismatch|byte",
    "status_drop": r"status|timed out|timeout",
    "wrong_id": r"status|spurious|tag|ID",
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
    """The cocotb tests the runner reported failed, with their messages."""
    return [line.strip() for line in out.splitlines()
            if re.match(r"\s+(byte_exact|pipelined)\b", line)]


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
        caught = rc != 0 and fails and any(re.search(EXPECT[kind], f) for f in fails)
        print(f"fault-check: DIREKT_SIM_FAULT={kind}: {'caught' if caught else 'NOT CAUGHT'} ({dt:.0f} s)")
        for f in fails:
            print(f"    {f[:300]}")
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
