#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measure direkt's FIFOs in simulation (Verilator) and record throughput and latency.

    .venv/bin/python bench/fifo.py [--out bench/results/fifo.json] [--plot bench/results/fifo.png]
                                   [--only TOP[@RATIO] ...]

Run from the repository root after `make build`. For each FIFO configuration below it emits the
Verilog, builds it with Verilator and runs the cocotb test ``measure_sync`` or ``measure_async``
of bench/fifo_measure.py, which measures on the FIFO benches' rigs (sim/tb/sync_fifo,
sim/tb/async_fifo), through the benches' own harness (direkt_sim.run_bench; builds are shared
with `make test`). Each run writes one JSON file into the directory DIREKT_FIFO_MEASURE names,
which this script collects into

    {"fifos": {"<top module>": {"kind": "sync"|"async", "width": N, "depth": N, ...,
                                "throughput_in": x, "throughput_out": x,
                                "latency_min": n, "latency_max": n,
                                # async only:
                                "sync_stages": n, "per_ratio": {"<wr>:<rd> ns": {...}, ...}}}}

throughput_in / throughput_out: words per cycle of the write / read clock, sustained, with the
source always valid and the sink always ready, counted over a window that starts once the
pipeline has filled (sync: cycles 100..3100 of a 4,000-word stream; async: from 50 cycles of the
slower clock after the start to 5 slower cycles before the last word went in, about 4,000 words).
For the async FIFOs the headline numbers are those at 1:1 clocks; per_ratio holds every ratio.

latency: single words into an empty FIFO, sink always ready, at random gaps (so at varying clock
phase where the clocks differ), counted in clock edges of the reading side: from the write edge
that accepts a word to the first read edge that sees it on m_valid/m_data with m_ready high (the
edge that transfers it out). Async: latency_min/latency_max are taken over all clock ratios.

Expected (the generators' documentation): throughput 1.00 in and out; async latency_max <=
sync_stages + 2. A configuration that misses its expectation is listed under "unmet" in the JSON
and on stderr, and the script exits 1 (after writing the JSON and the plot).

``--only`` measures the named FIFOs alone (an async one at one clock ratio with ``@<ratio>``, a
key of RATIOS such as ``@1:1``); its JSON and plot stay in the measurement directory unless
``--out`` / ``--plot`` name files.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

REPO = Path(__file__).resolve().parent.parent
SIM = REPO / "sim"

# Write:read clock periods (ps) and jitter (percent of each half period), as in the async bench.
RATIOS = {
    "1:1": dict(wr_ps=10_000, rd_ps=10_000, jitter=0),
    "7:11": dict(wr_ps=7_000, rd_ps=11_000, jitter=0),
    "11:7": dict(wr_ps=11_000, rd_ps=7_000, jitter=0),
    "4:1": dict(wr_ps=20_000, rd_ps=5_000, jitter=0),
    "1:4": dict(wr_ps=5_000, rd_ps=20_000, jitter=0),
    "jitter 10:10 +-30%": dict(wr_ps=10_000, rd_ps=10_000, jitter=30),
}

# The shipped configurations (ip/): sync 160x16 and 160x4 (almost_full 3), async 160/256/64 x16.
SYNC = [
    dict(width=160, depth=16, show_ahead=True, registered=False, almost_full=16),
    dict(width=160, depth=4, show_ahead=True, registered=False, almost_full=3),
]
ASYNC = [
    dict(width=160, depth=16, sync_stages=2, registered=True),
    dict(width=256, depth=16, sync_stages=2, registered=True),
    dict(width=64, depth=16, sync_stages=2, registered=True),
]


def sync_top(p: dict) -> str:
    return (f"direkt_sync_fifo_w{p['width']}_d{p['depth']}"
            + ("_rl1" if not p["show_ahead"] else "_r" if p["registered"] else "")
            + ("" if p["almost_full"] == p["depth"] else f"_af{p['almost_full']}"))


def async_top(p: dict) -> str:
    return (f"direkt_async_fifo_w{p['width']}_d{p['depth']}"
            + ("" if p["sync_stages"] == 2 else f"_s{p['sync_stages']}") + ("_r" if p["registered"] else ""))


@contextmanager
def output_to(log: Optional[Path]) -> Iterator[None]:
    """Send this process's stdout/stderr (and the simulator's, which inherits them) to *log*."""
    if log is None:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log, "w") as fh:
        os.dup2(fh.fileno(), 1)
        os.dup2(fh.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def run_measure(run_bench, failed_exc, log: Optional[Path], *, bench: str, params: dict,
                run_params=None, top: str) -> bool:
    try:
        with output_to(log):
            run_bench(bench=bench, example=bench, module="fifo_measure", params=params, run_params=run_params,
                      expected_top=top, testcase="measure_" + bench.removesuffix("_fifo"), emitter="generators")
        return True
    except failed_exc as exc:
        print(f"fifo: measurement run of {top} {run_params or ''} failed:\n{exc}", file=sys.stderr)
        if log is not None:
            print(f"fifo: its log: {log}", file=sys.stderr)
        return False


def wanted(only: Optional[list[str]], top: str, ratio: Optional[str] = None) -> bool:
    """Whether ``--only`` (None: everything) names *top*, or *top* at *ratio*."""
    return only is None or top in only or (ratio is not None and f"{top}@{ratio}" in only)


def collect(measure_dir: Path, only: Optional[list[str]] = None) -> tuple[dict, list[str]]:
    fifos: dict[str, dict] = {}
    unmet: list[str] = []
    for p in SYNC:
        top = sync_top(p)
        if not wanted(only, top):
            continue
        f = measure_dir / f"{top}.json"
        if not f.is_file():
            unmet.append(f"{top}: no measurement (its run failed)")
            continue
        m = json.loads(f.read_text())
        fifos[top] = {
            "kind": "sync", **p,
            "throughput_in": round(m["throughput_in"], 4),
            "throughput_out": round(m["throughput_out"], 4),
            "throughput_window_cycles": m["throughput_window_cycles"],
            "latency_min": m["latency_min"],
            "latency_max": m["latency_max"],
        }
        for side in ("in", "out"):
            if m[f"throughput_{side}"] != 1.0:
                unmet.append(f"{top}: throughput_{side} = {m[f'throughput_{side}']:.4f} words/cycle, expected 1.00")
    for p in ASYNC:
        top = async_top(p)
        per_ratio = {}
        for name, r in RATIOS.items():
            if not wanted(only, top, name):
                continue
            f = measure_dir / f"{top}@{r['wr_ps']}-{r['rd_ps']}-j{r['jitter']}.json"
            if not f.is_file():
                unmet.append(f"{top} at {name}: no measurement (its run failed)")
                continue
            m = json.loads(f.read_text())
            per_ratio[name] = {
                "wr_period_ns": r["wr_ps"] / 1000,
                "rd_period_ns": r["rd_ps"] / 1000,
                "jitter_pct": r["jitter"],
                "throughput_in": round(m["throughput_in"], 4),
                "throughput_out": round(m["throughput_out"], 4),
                "latency_min": m["latency_min"],
                "latency_max": m["latency_max"],
                "latency_samples": m["latency_samples"],
            }
        if not per_ratio:
            continue
        base = per_ratio.get("1:1", {})
        entry = {
            "kind": "async", **p,
            "throughput_in": base.get("throughput_in"),
            "throughput_out": base.get("throughput_out"),
            "throughput_clock_ratio": "1:1",
            "latency_min": min(v["latency_min"] for v in per_ratio.values()),
            "latency_max": max(v["latency_max"] for v in per_ratio.values()),
            "latency_max_expected_at_most": p["sync_stages"] + 2,
            "per_ratio": per_ratio,
        }
        fifos[top] = entry
        for side in ("in", "out"):
            if base and base[f"throughput_{side}"] != 1.0:
                unmet.append(f"{top}: throughput_{side} at 1:1 = {base[f'throughput_{side}']:.4f} words/cycle, expected 1.00")
        for name, v in per_ratio.items():
            # The slower side of every fixed ratio must move a word per cycle.
            r = RATIOS[name]
            if r["jitter"]:
                continue
            if r["wr_ps"] >= r["rd_ps"] and v["throughput_in"] != 1.0:
                unmet.append(f"{top} at {name}: write side (the slower) {v['throughput_in']:.4f} words/cycle, expected 1.00")
            if r["rd_ps"] >= r["wr_ps"] and v["throughput_out"] != 1.0:
                unmet.append(f"{top} at {name}: read side (the slower) {v['throughput_out']:.4f} words/cycle, expected 1.00")
        if entry["latency_max"] > p["sync_stages"] + 2:
            worst = {n: v["latency_max"] for n, v in per_ratio.items() if v["latency_max"] > p["sync_stages"] + 2}
            unmet.append(f"{top}: latency_max {entry['latency_max']} read cycles > sync_stages + 2 = "
                         f"{p['sync_stages'] + 2} (at {worst})")
    return fifos, unmet


def plot(fifos: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    asyncs = {k: v for k, v in fifos.items() if v["kind"] == "async"}
    ratios = list(RATIOS)
    fig, (ax_lat, ax_thr, ax_rat) = plt.subplots(3, 1, figsize=(11, 13))

    # Latency min..max per ratio per async FIFO: a vertical bar from min to max, markers at both ends.
    n = max(1, len(asyncs))
    step = 0.6 / n
    for i, (top, v) in enumerate(asyncs.items()):
        xs, lo, hi = [], [], []
        for j, r in enumerate(ratios):
            if r in v["per_ratio"]:
                xs.append(j - 0.3 + step * (i + 0.5))
                lo.append(v["per_ratio"][r]["latency_min"])
                hi.append(v["per_ratio"][r]["latency_max"])
        line = ax_lat.vlines(xs, lo, hi, linewidth=6, alpha=0.6, color=f"C{i}")
        ax_lat.scatter(xs, hi, marker="^", color=f"C{i}", zorder=3, label=f"{top} max")
        ax_lat.scatter(xs, lo, marker="v", color=f"C{i}", zorder=3, label=f"{top} min")
        del line
        for x, a, b in zip(xs, lo, hi):
            ax_lat.text(x, b + 0.15, str(b) if a == b else f"{a}..{b}", ha="center", fontsize=7)
    stages = {v["sync_stages"] for v in asyncs.values()}
    for s in sorted(stages):
        ax_lat.axhline(s + 2, color="red", linestyle="--", linewidth=1, label=f"bound sync_stages + 2 = {s + 2}")
    ax_lat.set_xticks(range(len(ratios)), [f"wr:rd {r}" for r in ratios])
    ax_lat.set_ylabel("read-clock cycles")
    ax_lat.set_ylim(0, max([s + 3 for s in stages] + [v["latency_max"] + 1 for v in asyncs.values()] + [1]))
    ax_lat.set_title("Async FIFO write-to-read latency (single words into an empty FIFO; bar = min..max)")
    ax_lat.legend(fontsize=8, loc="lower right")
    ax_lat.grid(axis="y", alpha=0.3)

    # Throughput in/out per FIFO (async at 1:1).
    names = list(fifos)
    xs = range(len(names))
    t_in = [fifos[k]["throughput_in"] or 0 for k in names]
    t_out = [fifos[k]["throughput_out"] or 0 for k in names]
    ax_thr.bar([x - 0.2 for x in xs], t_in, 0.4, label="throughput_in (words / write-clock cycle)")
    ax_thr.bar([x + 0.2 for x in xs], t_out, 0.4, label="throughput_out (words / read-clock cycle)")
    for x, a, b in zip(xs, t_in, t_out):
        ax_thr.text(x - 0.2, a + 0.01, f"{a:.2f}", ha="center", fontsize=8)
        ax_thr.text(x + 0.2, b + 0.01, f"{b:.2f}", ha="center", fontsize=8)
    ax_thr.set_xticks(list(xs), [k.replace("direkt_", "") + ("\n(1:1 clocks)" if fifos[k]["kind"] == "async" else "")
                                 for k in names], fontsize=8)
    ax_thr.set_ylim(0, 1.15)
    ax_thr.axhline(1.0, color="red", linestyle="--", linewidth=1)
    ax_thr.set_ylabel("words per cycle")
    ax_thr.set_title("Sustained throughput, source always valid, sink always ready")
    ax_thr.legend(fontsize=8, loc="lower right")
    ax_thr.grid(axis="y", alpha=0.3)

    # Async throughput per ratio (each side in its own clock); FIFOs side by side within a ratio.
    step = 0.8 / max(1, 2 * len(asyncs))
    for i, (top, v) in enumerate(asyncs.items()):
        idx = [j for j, r in enumerate(ratios) if r in v["per_ratio"]]
        for k, side in enumerate(("in", "out")):
            xs_r = [j - 0.4 + step * (2 * i + k + 0.5) for j in idx]
            ax_rat.bar(xs_r, [v["per_ratio"][ratios[j]][f"throughput_{side}"] for j in idx], step * 0.9,
                       color=f"C{i}", alpha=1.0 if side == "in" else 0.45,
                       label=f"{top} {side} ({'write' if side == 'in' else 'read'} clock)")
    ax_rat.set_xticks(range(len(ratios)), [f"wr:rd {r}" for r in ratios])
    ax_rat.set_ylim(0, 1.45)
    ax_rat.set_ylabel("words per cycle of that side's clock")
    ax_rat.set_title("Async FIFO throughput per clock ratio (the slower side should be at 1.00)")
    ax_rat.legend(fontsize=7, ncol=3, loc="upper center")
    ax_rat.grid(axis="y", alpha=0.3)

    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="the JSON (default bench/results/fifo.json)")
    ap.add_argument("--plot", type=Path, help="the plot (default bench/results/fifo.png)")
    ap.add_argument("--only", action="append", metavar="TOP[@RATIO]",
                    help="measure only this FIFO (an async one at one ratio with @<ratio>, e.g. @1:1); repeatable")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the simulator output instead of logging it")
    args = ap.parse_args()
    known = {sync_top(p) for p in SYNC} | {async_top(p) for p in ASYNC}
    for name in args.only or ():
        top, _, ratio = name.partition("@")
        if top not in known or (ratio and ratio not in RATIOS):
            ap.error(f"--only {name}: not one of {sorted(known)} (with @<ratio> of {list(RATIOS)} for an async FIFO)")

    for mod in ("contract", "hdl-dsl", "generators"):
        if not (REPO / mod / "target" / "classes").is_dir():
            print(f"fifo: {mod}/target/classes is missing: run `make build` first", file=sys.stderr)
            return 2

    os.environ["SIM"] = "verilator"
    os.environ.pop("TESTCASE", None)
    os.environ.pop("DIREKT_REGRESS", None)
    measure_dir = Path(tempfile.mkdtemp(prefix="direkt-fifo-measure-"))
    os.environ["DIREKT_FIFO_MEASURE"] = str(measure_dir)
    # The simulator's Python imports fifo_measure, and through it the bench modules, by name:
    # cocotb's runner hands it this process's sys.path as PYTHONPATH.
    for p in (SIM / "tb" / "async_fifo", SIM / "tb" / "sync_fifo", SIM, REPO / "bench"):
        sys.path.insert(0, str(p))
    import pytest
    from direkt_sim import run_bench

    logs = measure_dir / "logs"
    logs.mkdir()

    def log_for(name: str) -> Optional[Path]:
        return None if args.verbose else logs / (name.replace(":", "-").replace(" ", "_") + ".log")

    ok = True
    for p in SYNC:
        if not wanted(args.only, sync_top(p)):
            continue
        print(f"fifo: measuring {sync_top(p)}", flush=True)
        ok &= run_measure(run_bench, pytest.fail.Exception, log_for(sync_top(p)), bench="sync_fifo",
                          params=p, top=sync_top(p))
    for p in ASYNC:
        for name, r in RATIOS.items():
            if not wanted(args.only, async_top(p), name):
                continue
            print(f"fifo: measuring {async_top(p)} at wr:rd {name}", flush=True)
            ok &= run_measure(run_bench, pytest.fail.Exception, log_for(f"{async_top(p)}@{name}"),
                              bench="async_fifo", params=p, run_params=r, top=async_top(p))

    results = measure_dir if args.only else REPO / "bench" / "results"
    args.out = args.out or results / "fifo.json"
    args.plot = args.plot or results / "fifo.png"
    fifos, unmet = collect(measure_dir, args.only)
    result = {
        "generated_by": "bench/fifo.py",
        "simulator": "verilator",
        "throughput_unit": "words per cycle of the side's own clock; source always valid, sink always ready; "
                           "window after the pipeline filled",
        "latency_unit": "read-clock edges from the write edge that accepts a word to the first read edge that "
                        "transfers it (m_valid and m_ready high); single words into an empty FIFO",
        "fifos": fifos,
        "unmet": unmet,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"fifo: wrote {args.out}")
    plot(fifos, args.plot)
    print(f"fifo: wrote {args.plot}")
    for top, v in fifos.items():
        print(f"  {top}: throughput in {v['throughput_in']} out {v['throughput_out']}, "
              f"latency {v['latency_min']}..{v['latency_max']}")
    if unmet or not ok:
        for u in unmet:
            print(f"fifo: UNMET: {u}", file=sys.stderr)
        print(f"fifo: raw measurements and logs kept in {measure_dir}", file=sys.stderr)
        return 1
    if not args.only:
        shutil.rmtree(measure_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
