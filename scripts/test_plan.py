#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make test-plan`: which test and proof runs in `make test` and which in `make regress`.

Read from the sources of truth, not kept by hand: pytest's collection of sim/tb with and without
`--smoke` (sim/direkt_sim/plan.py) and formal/run.py's `--list` and `--long --list`. Run with the
venv's Python (it needs pytest).

    scripts/test_plan.py            the listing
    scripts/test_plan.py --json     the same as JSON
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from stages import PIPELINES, fmt  # noqa: E402


def collect(*extra: str, regress: bool = False) -> list[str]:
    env = dict(os.environ)
    env.pop("DIREKT_REGRESS", None)
    if regress:  # the long form has parameter sets of its own (channel_port's every combination)
        env["DIREKT_REGRESS"] = "1"
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *extra, "tb"],
                         cwd=ROOT / "sim", capture_output=True, text=True, env=env)
    ids = [line for line in out.stdout.splitlines() if "::" in line]
    if out.returncode != 0 or not ids:
        raise SystemExit(f"test-plan: pytest could not collect sim/tb:\n{out.stdout}{out.stderr}")
    return ids


def proofs(*extra: str) -> list[str]:
    out = subprocess.run([sys.executable, str(ROOT / "formal" / "run.py"), "--list", *extra],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"test-plan: formal/run.py --list failed:\n{out.stdout}{out.stderr}")
    return [" ".join(line.split()) for line in out.stdout.splitlines() if line.strip()]


def main() -> int:
    in_test = set(collect())
    smoke = set(collect("--smoke"))
    benches = collect(regress=True)  # make regress-verilator-long
    missing = in_test - set(benches)
    if missing:
        raise SystemExit(f"test-plan: make regress's long form would not run {sorted(missing)}")
    icarus = set(in_test)  # make regress-icarus collects as make test does, without --smoke
    short, long_ = proofs(), proofs("--long")
    plan = {
        "cocotb": [{"test": t, "make_test": (["verilator"] if t in in_test else []) + (["icarus"] if t in smoke else []),
                    "make_regress": ["verilator long"] + (["icarus"] if t in icarus else [])} for t in benches],
        "formal": [{"proof": p, "where": "make test"} for p in short]
        + [{"proof": p, "where": "make regress"} for p in long_],
        "stages": {name: [{"stage": s.name, "targets": list(s.targets), "budget_s": s.budget_s}
                          for s in stages] for name, stages in PIPELINES.items()},
    }
    if sys.argv[1:] == ["--json"]:
        print(json.dumps(plan, indent=1))
        return 0
    print("make test: every stage below; make regress: its own stages (scripts/stages.py --budgets)")
    for name, stages in PIPELINES.items():
        print(f"\nmake {name} stages:")
        for s in stages:
            print(f"  {s.name:<18} {fmt(s.budget_s):>6}  {' + '.join(s.targets)}")
    print(f"\ncocotb benches: make test runs {len(in_test)} parameter sets on Verilator, {len(smoke)} of them on "
          f"Icarus too; make regress all {len(icarus)} on Icarus and the long form ({len(benches)} sets, ten times the "
          "stimulus) on Verilator")
    width = max(len(t) for t in benches)
    print(f"  {'test':<{width}}  {'make test':<18}  make regress")
    for row in plan["cocotb"]:
        print(f"  {row['test']:<{width}}  {' + '.join(row['make_test']) or '-':<18}  {' + '.join(row['make_regress'])}")
    print(f"\nformal proofs: {len(short)} in make test (make formal), {len(long_)} in make regress "
          f"(make formal-long)")
    for p in short:
        print(f"  make test     {p}")
    for p in long_:
        print(f"  make regress  {p}")
    print("\nJUnit (every module), lint, FuseSoC, SystemRDL, the dist tarball, the docs site and the importer's VM test "
          "run whole in make test.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
