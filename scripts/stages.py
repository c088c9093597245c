#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs `make test` (or `make regress`) as a list of timed stages and ends with their table.

    scripts/stages.py test          every stage of `make test`, then the table
    scripts/stages.py regress       the long forms, then the table
    scripts/stages.py --budgets     the stages of both with their budgets (docs/testing.md's table)

Each stage is one or more make targets. `setup` and `build` run first; every later stage runs with
`make -o setup -o build`, so they run once. A stage whose targets are listed together runs them side
by side (the machine has two cores and each is mostly one process); their output goes to
build/stages/<target>.log and is shown when the stage ends, so lines do not interleave.

The table (and build/stages/<pipeline>.json) gives each stage's wall time against its budget. A
stage over its budget is marked, never failed: machines are noisy, the budget is kept by looking.
A failing stage stops the run; the table still comes, with the stages not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "build" / "stages"


@dataclass(frozen=True)
class Stage:
    name: str
    targets: tuple[str, ...]  # run side by side when more than one
    budget_s: int
    what: str


# The budgets add up to 26:15 for `make test` on a clean 2-core machine (CI's limit is 30 minutes).
TEST = (
    Stage("setup", ("setup",), 240, "Debian packages, the venv, Maven dependencies (only what is missing)"),
    Stage("build", ("build",), 45, "mvn package, no tests"),
    Stage("checks", ("readme-check", "bench-check", "licence-check", "repeat-check"), 15,
          "README's and docs/' tables against bench/results, the netlist pass's self-test, SPDX lines, "
          "no repeated runs of lines in sim/ and formal/"),
    Stage("docs", ("docs-check",), 15, "the documentation site by MkDocs, strict (links, anchors), and README's links"),
    Stage("junit + formal", ("test-java", "formal"), 330,
          "JUnit of every module beside the short formal proofs (formal/run.py)"),
    Stage("lint", ("lint",), 75, "every emitted Verilog file: verilator -Wall, iverilog, yosys"),
    Stage("fusesoc + rdl", ("fusesoc-check", "rdl-check"), 45, "FuseSoC lint of every core, SystemRDL of the register map"),
    Stage("dist", ("test-dist",), 45, "the jlinked tarball run without Java on PATH"),
    Stage("importer", ("driver", "test-importer"), 165, "the kernel module built with -Werror, then proven under QEMU"),
    Stage("cocotb verilator", ("test-sim-verilator",), 420, "every cocotb bench on Verilator, two at a time"),
    Stage("cocotb icarus", ("test-sim-icarus",), 180, "the smoke set on Icarus (X propagation)"),
)

REGRESS = (
    Stage("setup", ("setup",), 240, "as in make test"),
    Stage("build", ("build",), 60, "as in make test"),
    Stage("icarus, every set", ("regress-icarus",), 1200, "every cocotb parameter set on Icarus (make test: the smoke set)"),
    Stage("verilator, long", ("regress-verilator-long",), 3600, "every bench on Verilator, ten times the stimulus"),
    Stage("long proofs", ("formal-long",), 1800, "the proofs make test leaves out (formal/run.py --long)"),
)

PIPELINES = {"test": TEST, "regress": REGRESS}


def fmt(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}:{s:02d}"


def run_stage(stage: Stage, done: set[str]) -> tuple[bool, str]:
    """Runs a stage's targets (setup and build not again where *done* has them); returns (ok, the
    failing target or "")."""
    make = ["make", "--no-print-directory"] + [a for t in ("setup", "build") if t in done for a in ("-o", t)]
    if len(stage.targets) == 1:
        rc = subprocess.call(make + [stage.targets[0]], cwd=ROOT)
        return rc == 0, "" if rc == 0 else stage.targets[0]
    LOGS.mkdir(parents=True, exist_ok=True)
    results: dict[str, tuple[int, float]] = {}

    def go(target: str) -> None:
        t0 = time.monotonic()
        with open(LOGS / f"{target}.log", "w") as log:
            rc = subprocess.call(make + [target], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        results[target] = (rc, time.monotonic() - t0)

    threads = [threading.Thread(target=go, args=(t,)) for t in stage.targets]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    failed = ""
    for target in stage.targets:
        rc, dt = results[target]
        text = (LOGS / f"{target}.log").read_text(errors="replace")
        print(f"-- {target} ({fmt(dt)}, {'ok' if rc == 0 else 'FAILED'}; log build/stages/{target}.log)")
        # a failing target shows its whole log; a passing one its last lines (its summary)
        lines = text.rstrip("\n").splitlines()
        shown = lines if rc != 0 else lines[-15:]
        if rc == 0 and len(lines) > len(shown):
            print(f"   ... {len(lines) - len(shown)} lines above in the log")
        for line in shown:
            print(line)
        if rc != 0 and not failed:
            failed = target
    sys.stdout.flush()
    return failed == "", failed


def table(pipeline: str, rows: list[tuple[Stage, str, float]], total: float) -> str:
    out = [f"== make {pipeline}: stage wall times (budgets in docs/testing.md, 'Where the time goes')",
           f"   {'stage':<18} {'wall':>7} {'budget':>7}  result"]
    budget_sum = 0
    for stage, result, dt in rows:
        budget_sum += stage.budget_s
        mark = result
        if result == "ok" and dt > stage.budget_s:
            mark = f"ok, {fmt(dt - stage.budget_s)} over budget"
        wall = fmt(dt) if result != "not run" else "-"
        out.append(f"   {stage.name:<18} {wall:>7} {fmt(stage.budget_s):>7}  {mark}")
    out.append(f"   {'total':<18} {fmt(total):>7} {fmt(budget_sum):>7}")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if argv == ["--budgets"]:
        for name, stages in PIPELINES.items():
            print(f"make {name}:")
            for s in stages:
                print(f"  {s.name:<18} {fmt(s.budget_s):>6}  {' + '.join(s.targets)}: {s.what}")
        return 0
    if len(argv) != 1 or argv[0] not in PIPELINES:
        print(f"usage: {sys.argv[0]} {{{'|'.join(PIPELINES)}}} | --budgets", file=sys.stderr)
        return 2
    pipeline = argv[0]
    stages = PIPELINES[pipeline]
    rows: list[tuple[Stage, str, float]] = []
    t_all = time.monotonic()
    ok = True
    done: set[str] = set()
    for stage in stages:
        if not ok:
            rows.append((stage, "not run", 0.0))
            continue
        print(f"== stage {stage.name}: {' + '.join(stage.targets)} (budget {fmt(stage.budget_s)})", flush=True)
        t0 = time.monotonic()
        ok, failed = run_stage(stage, done)
        done.update(stage.targets)
        dt = time.monotonic() - t0
        rows.append((stage, "ok" if ok else f"FAILED ({failed})", dt))
    total = time.monotonic() - t_all
    text = table(pipeline, rows, total)
    print(text, flush=True)
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / f"{pipeline}.json").write_text(json.dumps(
        {"pipeline": pipeline, "total_s": round(total, 1),
         "stages": [{"stage": s.name, "targets": list(s.targets), "wall_s": round(dt, 1),
                     "budget_s": s.budget_s, "result": r} for s, r, dt in rows]}, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
