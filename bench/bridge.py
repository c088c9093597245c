#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measure direkt's bridge (direkt_bridge): latency, issue rate, bandwidth, area.

    .venv/bin/python bench/bridge.py [--out bench/results/bridge.json] [--plot bench/results/bridge.png]

Run from the repository root after `make build`. It emits the bridge (preset=default), builds it
with Verilator and runs the cocotb tests of bench/bridge_measure.py through the benches' own
harness (direkt_sim.run_bench; the pins are driven by the models of direkt_sim.rig.BridgeRig: DataMover,
KernelChannel, HostController and Csr) at three clock ratios, and synthesises the bridge with
Yosys (bench/area.py's measure: synth_intel_alm -family cyclonev) in every preset the generators
list (`Emit --list-presets`: default, paper, lean). Timing on the GPU->FPGA (rd) direction;
sync_stages from the emitted manifest.

JSON (bench/results/bridge.json), every number measured:

    latency_desc_cycles     max over all samples and ratios (detail under latency_desc): dma_clk
                            edges from the kernel_clk edge accepting a cldesc to the first dma_clk
                            edge sampling rd_dma_desc_valid (mover ready held high)
    latency_status_cycles   max (detail under latency_status): kernel_clk edges from the dma_clk
                            edge sampling rd_dma_status_valid to the first kernel_clk edge sampling
                            rd_status_valid (status ready held high)
    sync_stages             from the manifest
    kernel_issue_rate       kernel descriptors per dma_clk cycle at the mover, channel always
                            valid, no host load, 1:1 clocks (detail under issue)
    kernel_issue_rate_by_preset   the same for every preset (its own descriptor FIFO depth)
    issue_rate_with_host_load   {"kernel": x, "host": y} with the host saturating rd_host_desc
    bw_4k_inflight_1/_16    steady-state fraction of the mover model's peak for 4 KB descriptors
                            with 1 / 16 in flight (model and k = 1..16 under bandwidth)
    area                    {"<preset>": ...} for every preset: the whole direkt_bridge top (both
                            directions and the CSR block) synthesised as one, plus each submodule
                            on its own (direkt_bridge_rd_h*, direkt_bridge_wr_h*, the CSR) for reference
    area_by_preset          {"<preset>": {"luts", "luts_arith", "ffs", "ram_bits"}}: the whole top's
                            figures from area, side by side; "controller" and "controller lean": the
                            descriptor controller with the default / lean preset's bridge inside
                            (direkt_bridge_ctrl; area["controller"], area["controller lean"]: where its
                            ALUTs go, each part synthesised alone: the bridge direkt_bridge_f2, the
                            host-protocol front direkt_host_desc_front_e128 and its two sides)
    like_with_like          the controller-and-bridge tops against the published extension, whose
                            +1,709 ALMs include the descriptor controller it moved out of the hard IP:
                            {"published_aluts", "aluts_per_alm", "<controller key>": {"luts", "over",
                            "met"}} (reported; the LUT bounds below are the bridge presets')
    bringup_cost            {"preset", "with", "without", "added"}: the bring-up registers' cost, the
                            default preset measured with and without them (area["default bringup=false"])
    region_64mb_fragmented  preset=regions, GPU->FPGA, 1:1 clocks, the bandwidth runs' mover model: one kernel
                            request of 64 MB through a region of 1,024 pages at bus addresses in random order
                            (bench/bridge_regions_measure.py, test region_64mb_fragmented): pieces (mover descriptors),
                            statuses, byte_exact, desc_per_cycle_when_mover_can_take (pieces handed over / dma
                            cycles in which the walker held work, the arbiter offered it the mover and a piece
                            ID was free), cycles_request_to_status, status_elapsed_cycles,
                            fraction_of_mover_peak (bytes / (cycles x bytes per cycle)), mover_busy_fraction
    strided_4k_rows         the same run and figures for one strided request (test strided_4k_rows): 1,024 rows of
                            4 KB, every other 4 KB of the region, packed in FPGA memory, written as the header's
                            builder writes it (a check entry, then one entry a row)
    ports_4_fairness        {"<policy>": ...} for round_robin, weighted (4,2,1,1) and fixed_priority: preset=regions
                            with ports=4 and port_credits=16 (no port waits for its own statuses), the four rd ports saturating the port arbiter with one-entry requests
                            (bench/bridge_ports_measure.py, test fairness): each port's share of the grants while all four
                            had requests left (share, grants_in_window), each port's longest wait in grants to
                            other ports between its request and its grant (longest_wait_grants) and the policy's
                            bound (bound_grants: round robin 3, weighted the sum of the other weights, fixed
                            priority none), every status back on its own port
    expectations            {name: {"pass": bool, "value": x, "bound": ...}}

Expected: latency_desc_cycles <= sync_stages + 5; latency_status_cycles <= sync_stages + 3;
kernel_issue_rate >= 0.95 for every preset; region_64mb_fragmented: >= 0.95 descriptors per cycle while the
mover can take one, >= 0.9 of the mover's peak, one status, byte exact; strided_4k_rows: one status, byte
exact (its rates are reported); ports_4_fairness: for round robin and weighted, every port's longest wait
within its bound and every port granted (fixed priority is reported: it has no bound); bw_4k_inflight_16 >= 2 * bw_4k_inflight_1; whole-top luts <= 1709
(paper), 2560 (default and regions), 1280 (lean), and the lean controller's luts <= the published figure
(1,709 ALMs at 1.5 ALUTs each, 2,564: like with like, its controller included); every preset's and both
controllers' ffs <= 4512 and ram_bits <= 163840. An unmet
expectation is printed on stderr and the script exits 1 (after writing the JSON and the plot).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
SIM = REPO / "sim"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(SIM))

import area  # noqa: E402  (bench/area.py: Yosys measure)
from fifo import output_to  # noqa: E402  (bench/fifo.py: sends the simulator's output to a log)

SIM_PRESET = "default"
# Latency bounds, cycles of the receiving clock beyond the synchroniser stages.
DESC_BOUND_EXTRA = 5    # latency_desc_cycles <= sync_stages + 5
STATUS_BOUND_EXTRA = 3  # latency_status_cycles <= sync_stages + 3
# Area bounds of the whole direkt_bridge top per preset (Yosys Cyclone V cells). The published extension
# took 1,709 ALMs, 4,512 registers and 8 M20K blocks (8 x 20,480 bits) on an Arria 10: paper's LUTs and
# every preset's FFs and RAM bits are held to those; default and lean have their own LUT budgets.
LUT_BOUNDS = {"paper": 1709, "default": 2560, "lean": 1280, "regions": 2560}
# The descriptor controller around a preset's bridge (what an overlay for a hard IP running its internal
# descriptor controller generates), around the default preset's (CONTROLLER) and the lean one's: held to
# every preset's FF and RAM bit bounds. The published extension's +1,709 ALMs include the descriptor
# controller it moved out of the hard IP, so its LUTs are compared like with like, controller and bridge
# together against the published figure (like_with_like), and where they go is measured part by part.
CONTROLLER = "controller"
CONTROLLERS = {CONTROLLER: "default", "controller lean": "lean"}
# The one held to the published figure like with like: the lean bridge, the published design's features (the
# paper preset's without its counters) and direkt's checks; the default one adds managed IDs, tagged status,
# round robin, four windows, counters and bring-up registers, and is reported.
CONTROLLER_HELD = "controller lean"
CONTROLLER_PARTS = ("direkt_bridge_f2", "direkt_host_desc_front_e128", "direkt_host_desc_rd_e128_f254",
                    "direkt_host_desc_wr_e128_f255")
# The published extension in ALUTs, at bench/readme_tables.py's 1.5 ALUTs per ALM.
PUBLISHED_ALMS = 1709
ALUTS_PER_ALM = 1.5
# Presets whose kernels write region requests: no raw kernel issue rate for them.
REGION_PRESETS = {"regions"}
FF_BOUND = 4512
RAM_BITS_BOUND = 163840
# Clock ratios kernel:dma as periods in ps; the first (1:1) also runs issue rate and bandwidth.
RATIOS = {
    "kernel 4 ns / dma 4 ns": dict(kernel_ps=4000, dma_ps=4000),
    "kernel 3.3 ns / dma 4 ns": dict(kernel_ps=3300, dma_ps=4000),
    "kernel 5 ns / dma 4 ns": dict(kernel_ps=5000, dma_ps=4000),
}
ONE_TO_ONE = "kernel 4 ns / dma 4 ns"
# The mover model for the bandwidth runs: 32 B per dma cycle peak (8 GB/s at 250 MHz), 250 cycles
# from descriptor to first data (a PCIe read round trip of about 1 us at 250 MHz).
MOVER = dict(mover_latency=250, mover_bytes_per_cycle=32, transfer_bytes=4096)
LATENCY_SAMPLES = 200
ISSUE_DESCRIPTORS = 2000
CLASS_RETRIES = 6  # ClassNotFoundException while the Java classes are being rebuilt: wait 30 s, retry


def _class_missing(text: str) -> bool:
    return "ClassNotFoundException" in text or "NoClassDefFoundError" in text


def emit_bridge(preset: str, out: Path, **extra: str):
    from direkt_sim import emit as _emit

    for attempt in range(CLASS_RETRIES):
        try:
            return _emit.emit("bridge", {"preset": preset, **extra}, out, "generators")
        except _emit.EmitError as exc:
            if not _class_missing(str(exc)) or attempt == CLASS_RETRIES - 1:
                raise
            print("bridge: emitter classes missing (being rebuilt?); retrying in 30 s", file=sys.stderr, flush=True)
            time.sleep(30)


def list_presets() -> list[str]:
    """The bridge presets, as the generators list them (`Emit --list-presets`, one per line)."""
    from direkt_sim import emit as _emit

    for attempt in range(CLASS_RETRIES):
        proc = subprocess.run(_emit.emitter_command("generators") + ["--list-presets"], capture_output=True,
                              text=True, timeout=_emit.EMIT_TIMEOUT_S)
        if proc.returncode == 0:
            presets = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
            if presets:
                return presets
            raise RuntimeError("Emit --list-presets printed no preset")
        if not _class_missing(proc.stdout + proc.stderr) or attempt == CLASS_RETRIES - 1:
            first = (proc.stderr.strip().splitlines() or [""])[0]
            raise RuntimeError(f"Emit --list-presets exited {proc.returncode}: {first} (run make build)")
        print("bridge: emitter classes missing (being rebuilt?); retrying in 30 s", file=sys.stderr, flush=True)
        time.sleep(30)
    raise AssertionError("unreachable")


# What the bring-up registers cost: the preset that has them, measured again without them.
BRINGUP_PRESET = "default"
BRINGUP_OFF = f"{BRINGUP_PRESET} bringup=false"


def measure_controller(work: Path, preset: str) -> dict:
    """Yosys on the descriptor controller around a preset's bridge and on each of CONTROLLER_PARTS alone."""
    from direkt_sim import emit as _emit

    rtl = work / f"rtl-controller-{preset}"
    emitted = _emit.emit("host_desc_controller", {"preset": preset}, rtl, "generators")
    logs = work / f"yosys-controller-{preset}"
    logs.mkdir(parents=True, exist_ok=True)
    whole = area.measure(rtl, emitted.top, logs)
    return {"luts": whole["luts"], "luts_arith": whole["luts_arith"], "ffs": whole["ffs"], "ram_bits": whole["ram_bits"],
            "top": emitted.top, "whole_top": whole,
            "submodules_alone": {part: area.measure(rtl, part, logs) for part in CONTROLLER_PARTS},
            "config": {"preset": preset, "desc_ready_latency": 1}}


def measure_area(work: Path) -> dict:
    """Yosys on the whole direkt_bridge top and on each of its submodules, per preset, the bring-up
    preset once more without its bring-up registers (key BRINGUP_OFF), and the descriptor controller
    around the default and the lean preset (the keys of CONTROLLERS)."""
    result = {}
    for preset in list_presets() + [BRINGUP_OFF]:
        name, _, extra = preset.partition(" ")
        rtl = work / f"rtl-{preset.replace(' ', '-').replace('=', '-')}"
        emitted = emit_bridge(name, rtl, **dict(kv.split("=", 1) for kv in extra.split()))
        logs = work / f"yosys-{preset.replace(' ', '-').replace('=', '-')}"
        logs.mkdir(parents=True, exist_ok=True)
        manifest = json.loads((rtl / "direkt-overlay.json").read_text())
        whole = area.measure(rtl, emitted.top, logs)
        parts = {}
        # The direction paths and the CSR block: their names end in a hash of their parameters.
        for pattern in ("direkt_bridge_rd_h*.v", "direkt_bridge_wr_h*.v", "direkt_bridge_csr*.v"):
            found = sorted(f.stem for f in rtl.glob(pattern))
            if not found:
                raise SystemExit(f"bench-bridge: {rtl} has no {pattern}: the generator's module names changed")
            for top in found:
                parts[top] = area.measure(rtl, top, logs)
        b = manifest.get("bridge", {})
        result[preset] = {
            "luts": whole["luts"], "luts_arith": whole["luts_arith"], "ffs": whole["ffs"],
            "ram_bits": whole["ram_bits"],
            "top": emitted.top, "whole_top": whole,
            "submodules_alone": parts,
            "config": {k: b.get(k) for k in ("id_mode", "status_mode", "inflight", "policy", "window_entries",
                                             "sync_stages", "desc_fifo_depth", "status_fifo_depth")},
        }
    for key, preset in CONTROLLERS.items():
        result[key] = measure_controller(work, preset)
    return result


def simulate(what: str, bench: str, module: str, params: dict, run_params: dict, testcase: list[str],
             measure_dir: Path, log: Optional[Path]) -> list[str]:
    """Runs the cocotb tests *testcase* of the measurement module *module* (bench/, on sys.path for
    the simulator's Python) on the bridge emitted with *params*, in sim/build/<bench>/; they write
    their results into *measure_dir*. Returns [] or the failure; retries while the emitter's classes
    are missing (being rebuilt)."""
    import pytest
    from direkt_sim.rig import run_bridge

    os.environ["DIREKT_BRIDGE_MEASURE"] = str(measure_dir)
    print(f"bridge: simulating {what}: {', '.join(testcase)}", flush=True)
    for attempt in range(CLASS_RETRIES):
        try:
            with output_to(log):
                run_bridge(bench, module, params, run_params, testcase)
            return []
        except pytest.fail.Exception as exc:
            text = str(exc) + (log.read_text() if log is not None and log.is_file() else "")
            if _class_missing(text) and attempt < CLASS_RETRIES - 1:
                print("bridge: emitter classes missing (being rebuilt?); retrying in 30 s", file=sys.stderr, flush=True)
                time.sleep(30)
                continue
            print(f"bridge: simulation of {what} failed:\n{exc}", file=sys.stderr)
            return [f"simulation of {what} failed: {str(exc).splitlines()[0] if str(exc) else exc}"
                    + (f" (log: {log})" if log else "")]
    return []


def run_sims(measure_dir: Path, logs: Path, verbose: bool) -> list[str]:
    failures = []
    for name, r in RATIOS.items():
        tests = ["latency"] + (["issue", "issue_host", "bandwidth"] if name == ONE_TO_ONE else [])
        run_params = {**r, "latency_samples": LATENCY_SAMPLES, "issue_descriptors": ISSUE_DESCRIPTORS, **MOVER}
        log = None if verbose else logs / (name.replace(" ", "_").replace("/", "-") + ".log")
        failures += simulate(f"preset {SIM_PRESET} at {name}", "bridge", "bridge_measure", {"preset": SIM_PRESET},
                             run_params, tests, measure_dir, log)
    # Every other preset's issue rate at 1:1 clocks (its own descriptor FIFO depth and checks), into
    # its own directory: the tests name their results by test and clocks only.
    for preset in list_presets():
        # (regions: kernels write region requests, not raw descriptors; run_region_sim measures that path)
        if preset == SIM_PRESET or preset in REGION_PRESETS:
            continue
        log = None if verbose else logs / f"issue-{preset}.log"
        failures += simulate(f"preset {preset} at {ONE_TO_ONE}", "bridge", "bridge_measure", {"preset": preset},
                             {**RATIOS[ONE_TO_ONE], "latency_samples": LATENCY_SAMPLES,
                              "issue_descriptors": ISSUE_DESCRIPTORS, **MOVER}, ["issue"], measure_dir / preset, log)
    return failures


REGION_DIR = "region_64mb"  # under the measure directory: not a preset's issue-rate directory


def run_region_sim(measure_dir: Path, logs: Path, verbose: bool) -> list[str]:
    """The regions preset: one 64 MB request through fragmented pages, and a strided one (bench/bridge_regions_measure.py)."""
    return simulate(f"preset regions at {ONE_TO_ONE}", "bridge_regions", "bridge_regions_measure", {"preset": "regions"},
                    {**RATIOS[ONE_TO_ONE], **MOVER}, ["region_64mb_fragmented", "strided_4k_rows"],
                    measure_dir / REGION_DIR, None if verbose else logs / "region_64mb.log")


PORTS_DIR = "ports"  # under the measure directory
PORT_POLICIES = {"round_robin": {}, "weighted": {"port_weights": "4,2,1,1"}, "fixed_priority": {}}
# Credits enough that no port ever waits for its own statuses: the bridge's request stream is then what
# every port waits for, and the arbiter alone decides who goes next (with 4 credits each port's own
# statuses pace it and every policy shares evenly).
PORT_CREDITS = 16


def run_ports_sim(measure_dir: Path, logs: Path, verbose: bool) -> list[str]:
    """Four kernel ports per direction, one build per port policy (bench/bridge_ports_measure.py)."""
    failures = []
    for policy, extra in PORT_POLICIES.items():
        failures += simulate(f"preset regions ports=4 port_policy={policy} at {ONE_TO_ONE}", "bridge_ports",
                             "bridge_ports_measure",
                             {"preset": "regions", "ports": 4, "port_credits": PORT_CREDITS, "port_policy": policy, **extra},
                             RATIOS[ONE_TO_ONE], ["fairness"], measure_dir / PORTS_DIR,
                             None if verbose else logs / f"ports_{policy}.log")
    return failures


def _load(measure_dir: Path, test: str, r: dict) -> Optional[dict]:
    f = measure_dir / f"{test}@{r['kernel_ps']}-{r['dma_ps']}.json"
    return json.loads(f.read_text()) if f.is_file() else None


def collect(measure_dir: Path, area_result: Optional[dict], failures: list[str]) -> tuple[dict, list[str]]:
    unmet = list(failures)
    res: dict = {"generated_by": "bench/bridge.py", "simulator": "verilator", "direction": "rd (GPU->FPGA)",
                 "simulated_preset": SIM_PRESET}
    lat = {n: _load(measure_dir, "latency", r) for n, r in RATIOS.items()}
    lat = {n: v for n, v in lat.items() if v is not None}
    S = next(iter(lat.values()))["sync_stages"] if lat else None
    if S is None:
        for v in (area_result or {}).values():
            S = (v.get("config") or {}).get("sync_stages")
            if S is not None:
                break
    res["sync_stages"] = S
    for kind, unit in (("desc", "dma_clk edges from the kernel_clk edge accepting the cldesc to the first dma_clk "
                                "edge sampling rd_dma_desc_valid (rd_dma_desc_ready held high)"),
                       ("status", "kernel_clk edges from the dma_clk edge sampling rd_dma_status_valid to the "
                                  "first kernel_clk edge sampling rd_status_valid (rd_status_ready held high)")):
        per = {n: {"kernel_ps": RATIOS[n]["kernel_ps"], "dma_ps": RATIOS[n]["dma_ps"],
                   "min": v[f"{kind}_min"], "max": v[f"{kind}_max"], "samples": v[f"{kind}_samples"],
                   "histogram": v[f"{kind}_histogram"]} for n, v in lat.items()}
        res[f"latency_{kind}_cycles"] = max((p["max"] for p in per.values()), default=None)
        res[f"latency_{kind}"] = {"headline": "max", "unit": unit,
                                  "min": min((p["min"] for p in per.values()), default=None),
                                  "max": res[f"latency_{kind}_cycles"], "per_ratio": per,
                                  "stimulus": "single 64 B descriptors into an idle bridge, both clocks' low phase "
                                              "stretched by a random time < one period before each, random gaps; "
                                              "mover latency 0..6 dma cycles"}
        if kind == "desc":
            stages: dict[str, set] = {}
            for n, v in lat.items():
                per[n]["stages_sampled_at_dma_edge"] = v.get("desc_stages_sampled_at_dma_edge", {})
                for st, h in per[n]["stages_sampled_at_dma_edge"].items():
                    stages.setdefault(st, set()).update(int(e) for e in h)
            if stages:
                # Only what was measured: the stage names are whatever bench/bridge_measure.py probes.
                res["latency_desc"]["where_the_cycles_go"] = (
                    "dma_clk edge (counted from the accepting kernel edge) at which each probed stage's output "
                    "is first sampled high, every value seen over all samples and ratios (-1: not seen before "
                    "the mover took the descriptor): "
                    + "; ".join(f"{st}: {'/'.join(str(e) for e in sorted(es))}" for st, es in stages.items())
                    + f" (sync_stages = {S})")
        missing = [n for n in RATIOS if n not in lat]
        if missing:
            unmet.append(f"latency_{kind}: no measurement at {missing}")

    one = RATIOS[ONE_TO_ONE]
    iss = _load(measure_dir, "issue", one)
    issh = _load(measure_dir, "issue_host", one)
    res["kernel_issue_rate"] = iss["kernel_rate"] if iss else None
    res["issue"] = iss
    res["issue_rate_with_host_load"] = {"kernel": issh["kernel_rate"], "host": issh["host_rate"],
                                        "total": issh["kernel_rate"] + issh["host_rate"]} if issh else None
    res["issue_with_host_load"] = issh
    if iss is None:
        unmet.append("kernel_issue_rate: no measurement")
    by_preset = {SIM_PRESET: res["kernel_issue_rate"]}
    for sub in sorted(d for d in measure_dir.iterdir() if d.is_dir() and d.name not in (REGION_DIR, PORTS_DIR)) if measure_dir.is_dir() else []:
        got = _load(sub, "issue", one)
        by_preset[sub.name] = got["kernel_rate"] if got else None
    res["kernel_issue_rate_by_preset"] = by_preset
    if issh is None:
        unmet.append("issue_rate_with_host_load: no measurement")

    bw = _load(measure_dir, "bandwidth", one)
    res["bandwidth"] = bw
    res["bw_4k_inflight_1"] = bw["per_inflight"]["1"]["fraction_of_peak"] if bw else None
    res["bw_4k_inflight_16"] = bw["per_inflight"]["16"]["fraction_of_peak"] if bw else None
    if bw:
        res["bandwidth_model"] = {
            "mover": "direkt_sim.mover.DataMover: a descriptor taken in dma cycle c starts moving at "
                     "max(c + latency, end of the previous one) and takes ceil(bytes / bytes_per_cycle) cycles "
                     "(latencies of successive descriptors overlap); status one cycle at its end",
            "latency_dma_cycles": bw["mover_latency_cycles"], "peak_bytes_per_dma_cycle": bw["mover_bytes_per_cycle"],
            "transfer_bytes": bw["transfer_bytes"], "clocks": ONE_TO_ONE,
            "kernel": "direkt_sim.kernel.KernelChannel, status ready always, a new cldesc whenever fewer "
                      "than k statuses are outstanding",
            "measure": "steady state: bytes completed between the completion of descriptor w (w = max(2, k)) and "
                       "of the last, over the dma cycles between, / peak",
        }
    else:
        unmet.append("bandwidth: no measurement")

    res["area"] = {"tool": "yosys synth_intel_alm -family cyclonev (bench/area.py measure)",
                   "what": "the whole direkt_bridge top (rd and wr directions and the CSR block) synthesised "
                           "as one; submodules_alone: each synthesised on its own, for reference",
                   **(area_result or {})}
    if not area_result:
        unmet.append("area: no measurement")
    res["area_by_preset"] = {p: {k: a[k] for k in ("luts", "luts_arith", "ffs", "ram_bits")}
                             for p, a in (area_result or {}).items() if p != BRINGUP_OFF}
    on, off = (area_result or {}).get(BRINGUP_PRESET), (area_result or {}).get(BRINGUP_OFF)
    res["bringup_cost"] = None if not (on and off) else {
        "preset": BRINGUP_PRESET, "with": {k: on[k] for k in ("luts", "ffs", "ram_bits")},
        "without": {k: off[k] for k in ("luts", "ffs", "ram_bits")},
        "added": {k: on[k] - off[k] for k in ("luts", "ffs", "ram_bits")}}
    if res["bringup_cost"] is None:
        unmet.append("bringup_cost: no measurement")
    published = round(PUBLISHED_ALMS * ALUTS_PER_ALM)
    res["like_with_like"] = {
        "published_aluts": published, "aluts_per_alm": ALUTS_PER_ALM,
        "what": f"controller and bridge together against the published extension's +{PUBLISHED_ALMS:,} ALMs, "
                "which include the descriptor controller it moved out of the hard IP",
        **{key: {"luts": a["luts"], "over": a["luts"] - published, "met": a["luts"] <= published}
           for key in CONTROLLERS if (a := res["area_by_preset"].get(key))}}

    rf = measure_dir / REGION_DIR / "region_64mb_fragmented.json"
    res["region_64mb_fragmented"] = json.loads(rf.read_text()) if rf.is_file() else None
    sf = measure_dir / REGION_DIR / "strided_4k_rows.json"
    res["strided_4k_rows"] = json.loads(sf.read_text()) if sf.is_file() else None

    res["ports_4_fairness"] = {}
    for policy in PORT_POLICIES:
        pf = measure_dir / PORTS_DIR / f"ports_4_fairness_{policy}.json"
        res["ports_4_fairness"][policy] = json.loads(pf.read_text()) if pf.is_file() else None

    exp = {}

    def expect(name: str, value, bound, ok: Optional[bool], what: str):
        exp[name] = {"pass": ok, "value": value, "bound": bound, "what": what}
        if ok is not True:
            unmet.append(f"{name}: {what}: value {value}, bound {bound}" + (" (not measured)" if ok is None else ""))

    for kind, extra in (("desc", DESC_BOUND_EXTRA), ("status", STATUS_BOUND_EXTRA)):
        v = res[f"latency_{kind}_cycles"]
        expect(f"latency_{kind}_cycles", v, f"<= sync_stages + {extra} = {S + extra if S is not None else None}",
               None if v is None or S is None else v <= S + extra, f"latency_{kind}_cycles <= sync_stages + {extra}")
    for preset, v in res["kernel_issue_rate_by_preset"].items():
        expect(f"kernel_issue_rate (preset={preset})", v, ">= 0.95", None if v is None else v >= 0.95,
               "kernel_issue_rate >= 0.95")
    r64 = res["region_64mb_fragmented"] or {}
    v = r64.get("desc_per_cycle_when_mover_can_take")
    expect("region_64mb_fragmented desc_per_cycle", v, ">= 0.95", None if v is None else v >= 0.95,
           "regions preset, 64 MB over random pages: mover descriptors per cycle while the mover can take one >= 0.95")
    v = r64.get("fraction_of_mover_peak")
    expect("region_64mb_fragmented fraction_of_mover_peak", v, ">= 0.9", None if v is None else v >= 0.9,
           "regions preset, 64 MB over random pages: fraction of the mover model's peak >= 0.9")
    v = r64.get("statuses")
    expect("region_64mb_fragmented statuses", v, "== 1 and byte exact", None if v is None else v == 1 and r64.get("byte_exact") is True,
           "regions preset, 64 MB: one request, one status, every byte as in GPU memory")
    s4k = res["strided_4k_rows"] or {}
    v = s4k.get("statuses")
    expect("strided_4k_rows statuses", v, "== 1 and byte exact", None if v is None else v == 1 and s4k.get("byte_exact") is True,
           "regions preset, 1,024 rows of 4 KB: one strided request, one status, every byte as in GPU memory")
    for policy in ("round_robin", "weighted"):
        pr = res["ports_4_fairness"].get(policy) or {}
        for k in range(4):
            lw = pr["longest_wait_grants"][k] if pr else None
            bound = pr["bound_grants"][k] if pr else None
            expect(f"ports_4_fairness {policy} port {k} wait", lw, f"<= {bound}",
                   None if lw is None else lw <= bound and pr["grants_in_window"][k] > 0,
                   f"4 ports saturating, {policy}: port {k} granted, within its bound of grants to other ports")
    b1, b16 = res["bw_4k_inflight_1"], res["bw_4k_inflight_16"]
    expect("bw_4k_inflight_16", b16, f">= 2 * bw_4k_inflight_1 = {2 * b1 if b1 is not None else None}",
           None if b1 is None or b16 is None else b16 >= 2 * b1, "bw_4k_inflight_16 >= 2 * bw_4k_inflight_1")
    presets = list(res["area_by_preset"])
    for p in list(LUT_BOUNDS) + [p for p in presets if p not in LUT_BOUNDS]:
        a = res["area_by_preset"].get(p)
        checks = [("ffs", FF_BOUND), ("ram_bits", RAM_BITS_BOUND)]
        if p in LUT_BOUNDS:
            checks.insert(0, ("luts", LUT_BOUNDS[p]))
        elif p == CONTROLLER_HELD:
            checks.insert(0, ("luts", round(PUBLISHED_ALMS * ALUTS_PER_ALM)))
        for key, bound in checks:
            v = a[key] if a else None
            what = f"the descriptor controller with the {CONTROLLERS[p]} preset's bridge inside" if p in CONTROLLERS \
                else f"whole direkt_bridge top, preset={p}"
            expect(f"area_{key}_{p}", v, f"<= {bound}", None if v is None else v <= bound, f"{what}: {key} <= {bound}")
    res["expectations"] = exp
    res["unmet"] = unmet
    return res, unmet


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_lat, ax_bw, ax_rg, ax_pt) = plt.subplots(1, 4, figsize=(22, 4.6))
    S = res.get("sync_stages")
    names = list(RATIOS)
    for j, (kind, label, color) in enumerate((("desc", "descriptor -> mover (dma_clk)", "C0"),
                                              ("status", "mover status -> kernel (kernel_clk)", "C1"))):
        per = (res.get(f"latency_{kind}") or {}).get("per_ratio", {})
        xs = [i + (j - 0.5) * 0.38 for i, n in enumerate(names) if n in per]
        lo = [per[n]["min"] for n in names if n in per]
        hi = [per[n]["max"] for n in names if n in per]
        ax_lat.bar(xs, hi, 0.36, color=color, alpha=0.45, label=f"{label}: max")
        ax_lat.bar(xs, lo, 0.36, color=color, alpha=1.0, label=f"{label}: min")
        for x, a, b in zip(xs, lo, hi):
            ax_lat.text(x, b + 0.1, f"{a}..{b}" if a != b else str(b), ha="center", fontsize=8)
    if S is not None:
        ax_lat.axhline(S + DESC_BOUND_EXTRA, color="C0", linestyle="--", linewidth=1,
                       label=f"descriptor bound sync_stages + {DESC_BOUND_EXTRA} = {S + DESC_BOUND_EXTRA}")
        ax_lat.axhline(S + STATUS_BOUND_EXTRA, color="C1", linestyle=":", linewidth=1.2,
                       label=f"status bound sync_stages + {STATUS_BOUND_EXTRA} = {S + STATUS_BOUND_EXTRA}")
    ax_lat.set_xticks(range(len(names)), [n.replace(" / ", "\n") for n in names], fontsize=8)
    ax_lat.set_ylabel("cycles (of the receiving clock)")
    ax_lat.set_ylim(0, (S + max(DESC_BOUND_EXTRA, STATUS_BOUND_EXTRA) + 3) if S is not None else None)
    ax_lat.set_title("Bridge latency (rd), single descriptors, random phase", fontsize=10)
    ax_lat.legend(fontsize=7, loc="upper left")
    ax_lat.grid(axis="y", alpha=0.3)

    bw = res.get("bandwidth") or {}
    per = bw.get("per_inflight", {})
    ks = sorted(int(k) for k in per)
    ax_bw.plot(ks, [per[str(k)]["fraction_of_peak"] for k in ks], "o-", label="steady state")
    ax_bw.plot(ks, [per[str(k)]["fraction_of_peak_incl_fill"] for k in ks], "s--", alpha=0.6,
               label="incl. pipeline fill")
    for k in ks:
        ax_bw.text(k, per[str(k)]["fraction_of_peak"] + 0.03, f"{per[str(k)]['fraction_of_peak']:.2f}",
                   ha="center", fontsize=8)
    ax_bw.set_xscale("log", base=2)
    ax_bw.set_xticks(ks, [str(k) for k in ks])
    ax_bw.set_ylim(0, 1.1)
    ax_bw.set_xlabel("kernel descriptors in flight")
    ax_bw.set_ylabel("fraction of the mover's peak")
    if bw:
        ax_bw.set_title(f"4 KB transfers, mover {bw['mover_bytes_per_cycle']} B/cycle, "
                        f"latency {bw['mover_latency_cycles']} dma cycles", fontsize=10)
    ax_bw.legend(fontsize=8, loc="lower right")
    ax_bw.grid(alpha=0.3)

    runs = [(n, res.get(n)) for n in ("region_64mb_fragmented", "strided_4k_rows") if res.get(n)]
    metrics = (("desc_per_cycle_when_mover_can_take", "descriptors / cycle\nwhile the mover can take one"),
               ("fraction_of_mover_peak", "fraction of the\nmover's peak"))
    for j, (name, r) in enumerate(runs):
        xs = [i + (j - (len(runs) - 1) / 2) * 0.38 for i in range(len(metrics))]
        vals = [r[k] for k, _ in metrics]
        ax_rg.bar(xs, vals, 0.36, color=f"C{j + 2}", label=f"{name}: {r['pieces']} descriptors, 1 status")
        for x, v in zip(xs, vals):
            ax_rg.text(x, v + 0.02, f"{v:.3f}", ha="center", fontsize=8)
    ax_rg.axhline(0.95, color="C2", linestyle="--", linewidth=1, label="region_64mb_fragmented bound 0.95 (descriptors)")
    ax_rg.axhline(0.9, color="C2", linestyle=":", linewidth=1.2, label="region_64mb_fragmented bound 0.9 (peak)")
    ax_rg.set_xticks(range(len(metrics)), [t for _, t in metrics], fontsize=8)
    ax_rg.set_ylim(0, 1.55)
    ax_rg.set_title("Regions preset: one request each (GPU->FPGA)", fontsize=10)
    ax_rg.legend(fontsize=7, loc="upper right")
    ax_rg.grid(axis="y", alpha=0.3)

    fair = {p: r for p, r in (res.get("ports_4_fairness") or {}).items() if r}
    for j, (policy, r) in enumerate(fair.items()):
        xs = [k + (j - (len(fair) - 1) / 2) * 0.27 for k in range(r["ports"])]
        label = policy + (f" {','.join(str(w) for w in r['weights'])}" if r["weights"] else "")
        ax_pt.bar(xs, r["share"], 0.25, color=f"C{j + 4}", label=f"{label} (longest waits {r['longest_wait_grants']})")
        for x, v in zip(xs, r["share"]):
            ax_pt.text(x, v + 0.01, f"{v:.2f}", ha="center", fontsize=7)
    ax_pt.set_xticks(range(4), [f"port {k}" for k in range(4)], fontsize=8)
    ax_pt.set_ylabel("share of the grants")
    ax_pt.set_ylim(0, 1.1)
    ax_pt.set_title("4 kernel ports saturating (rd), per port policy", fontsize=10)
    ax_pt.legend(fontsize=7, loc="upper right")
    ax_pt.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "bridge.json")
    ap.add_argument("--plot", type=Path, default=REPO / "bench" / "results" / "bridge.png")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the simulator output instead of logging it")
    args = ap.parse_args()
    t0 = time.monotonic()

    for mod in ("contract", "hdl-dsl", "generators"):
        if not (REPO / mod / "target" / "classes").is_dir():
            print(f"bridge: {mod}/target/classes is missing: run `make build` first", file=sys.stderr)
            return 2

    os.environ["SIM"] = "verilator"
    os.environ.pop("TESTCASE", None)
    os.environ.pop("DIREKT_REGRESS", None)
    work = Path(tempfile.mkdtemp(prefix="direkt-bridge-measure-"))
    measure_dir = work / "measure"
    os.environ["DIREKT_BRIDGE_MEASURE"] = str(measure_dir)
    logs = work / "logs"
    logs.mkdir()

    # Yosys runs beside the simulations (its own processes); the simulations run here.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        area_job = pool.submit(measure_area, work / "area")
        failures = run_sims(measure_dir, logs, args.verbose)
        failures += run_region_sim(measure_dir, logs, args.verbose)
        failures += run_ports_sim(measure_dir, logs, args.verbose)
        print("bridge: waiting for Yosys", flush=True)
        try:
            area_result = area_job.result()
        except (Exception, SystemExit) as exc:
            failures.append(f"area measurement failed: {exc}")
            area_result = None

    res, unmet = collect(measure_dir, area_result, failures)
    res["runtime_s"] = round(time.monotonic() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    print(f"bridge: wrote {args.out}")
    plot(res, args.plot)
    print(f"bridge: wrote {args.plot}")
    print(f"  latency desc -> mover {res['latency_desc']['min']}..{res['latency_desc_cycles']} dma cycles, "
          f"status -> kernel {res['latency_status']['min']}..{res['latency_status_cycles']} kernel cycles "
          f"(sync_stages {res['sync_stages']})")
    print(f"  kernel issue rate {res['kernel_issue_rate']}, with host load {res['issue_rate_with_host_load']}")
    print(f"  bandwidth 4 KB: 1 in flight {res['bw_4k_inflight_1']}, 16 in flight {res['bw_4k_inflight_16']}")
    r64 = res["region_64mb_fragmented"]
    if r64:
        print(f"  region_64mb_fragmented: {r64['pieces']} descriptors, {r64['statuses']} status, "
              f"{r64['desc_per_cycle_when_mover_can_take']:.3f} desc/cycle while the mover could take one, "
              f"{r64['fraction_of_mover_peak']:.3f} of the mover's peak ({r64['cycles_request_to_status']} cycles request to status)")
    s4k = res["strided_4k_rows"]
    if s4k:
        print(f"  strided_4k_rows: {s4k['rows']} rows, {s4k['pieces']} descriptors, {s4k['statuses']} status, "
              f"{s4k['desc_per_cycle_when_mover_can_take']:.3f} desc/cycle while the mover could take one, "
              f"{s4k['fraction_of_mover_peak']:.3f} of the mover's peak ({s4k['cycles_request_to_status']} cycles request to status)")
    for policy, r in res["ports_4_fairness"].items():
        if r:
            print(f"  ports_4_fairness {policy}: shares {r['share']}, longest waits {r['longest_wait_grants']} grants "
                  f"(bounds {r['bound_grants']})")
    for p, a in (area_result or {}).items():
        print(f"  area {p}: luts {a['luts']} ffs {a['ffs']} ram_bits {a['ram_bits']}")
    print(f"  runtime {res['runtime_s']} s")
    if unmet:
        for u in unmet:
            print(f"bridge: UNMET: {u}", file=sys.stderr)
        print(f"bridge: raw measurements and logs kept in {work}", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
