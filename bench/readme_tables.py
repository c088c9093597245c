#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Render the measured tables of README.md and the documentation pages (docs/*.md) from the benchmark
results, so no figure is typed by hand.

    python3 bench/readme_tables.py --write     # rewrite the marked tables where they are
    python3 bench/readme_tables.py --check     # exit 1 when a table differs from the results

Each table sits between `<!-- NAME: generated ... -->` and `<!-- /NAME -->` markers, in whichever of
those files holds them (exactly one must; moving a table to another page moves its markers with it):

    bridge-latency   bench/results/bridge.json: latency, issue rate and bandwidth with their bounds
    bridge-area      bench/results/bridge.json "area_by_preset" against the published extension, in
                     ALUTs, with the ALUT-per-ALM assumption stated
    timing           bench/results/timing.json: Fmax per clock and the ratio to the reference FIFO
    bounce           bench/results/bounce-*.json (one per GPU, from a GPU machine): the bounce path's
                     CUDA half (pinned copies) against the published direct path; until a GPU
                     machine has written one, the published rows and a line saying how to measure
    session          bench/results/session.json: a Session on its simulated FPGA, session start and
                     copies per size, direction and path, against the bounds it is held to
    aperture         bench/results/aperture.json: the GPU-master aperture under a GPU copy-engine
                     model, throughput per request size and outstanding count, and its area

`make test` runs --check; `make bench-bridge`, `make bench-timing`, `make bench-bounce` and
`make bench-session` run --write after measuring.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"

# The published extension (Kobayashi et al., 2018), Quartus on an Arria 10.
PUBLISHED_ALMS = 1709
PUBLISHED_REGISTERS = 4512
PUBLISHED_M20K = 8
# Quartus packs about 1.5 ALUTs into an ALM (an ALM holds two ALUTs that share inputs).
ALUTS_PER_ALM = 1.5
# The published direct path and CPU bounce path (Kobayashi et al., 2018; P100 + Arria 10, Gen3):
# 4-byte latency in us and the highest bandwidth over 4 B .. 1 MB in GB/s, per direction.
PUBLISHED_DIRECT = {"gpu_to_fpga": (1.08, 4.1), "fpga_to_gpu": (0.24, 6.9)}
PUBLISHED_BOUNCE = {"gpu_to_fpga": (17.0, 3.1), "fpga_to_gpu": (20.0, 3.1)}
# The limits each preset is held to, in ALUTs (bench/bridge.py checks the same numbers).
LIMITS = {"paper": 1709, "default": 2560, "lean": 1280, "regions": 2560}


def _load(name: str) -> dict:
    path = RESULTS / name
    if not path.is_file():
        raise SystemExit(f"readme_tables: {path.relative_to(REPO)} is missing: run the bench that writes it")
    return json.loads(path.read_text())


def bridge_latency(b: dict) -> str:
    s = b["sync_stages"]
    exp = b["expectations"]
    lines = ["| measure | result | bound | met |", "|---|---|---|---|"]

    def row(what: str, value: str, key: str) -> None:
        e = exp[key]
        lines.append(f"| {what} | {value} | {e['bound']} | {'yes' if e['pass'] else 'NO'} |")

    ratios = ", ".join(n.replace("kernel ", "").replace(" / dma ", ":") for n in b["latency_desc"]["per_ratio"])
    row(f"kernel channel write accepted -> mover descriptor valid (dma_clk cycles; clocks {ratios})",
        f"{b['latency_desc']['min']}..{b['latency_desc_cycles']}", "latency_desc_cycles")
    row("mover status valid -> kernel status valid (kernel_clk cycles)",
        f"{b['latency_status']['min']}..{b['latency_status_cycles']}", "latency_status_cycles")
    rates = b.get("kernel_issue_rate_by_preset") or {b["simulated_preset"]: b["kernel_issue_rate"]}
    for preset, rate in rates.items():
        row(f"kernel descriptors per dma_clk cycle, no host load (`preset={preset}`)", f"{rate:.2f}",
            f"kernel_issue_rate (preset={preset})")
    load = b["issue_rate_with_host_load"]
    lines.append(f"| same, host saturating too | kernel {load['kernel']:.2f}, host {load['host']:.2f} | | |")
    row("4 KB transfers, fraction of the mover model's peak, 16 in flight (1 in flight: "
        f"{b['bw_4k_inflight_1']:.2f})", f"{b['bw_4k_inflight_16']:.2f}", "bw_4k_inflight_16")
    return f"sync_stages = {s}.\n\n" + "\n".join(lines)


def bridge_area(b: dict) -> str:
    area = b["area_by_preset"]
    like = b.get("like_with_like") or {}
    controllers = [p for p in area if p.startswith("controller")]
    lines = ["| configuration | ALUTs (arithmetic) | limit | FFs | RAM bits |", "|---|---|---|---|---|"]
    cost = b.get("bringup_cost")
    for preset in sorted(area, key=lambda p: (p in controllers, p != "paper", p != "default", p)):
        a = area[preset]
        if preset in controllers and cost:
            w, add = cost["without"], cost["added"]
            lines.append(f"| `preset={cost['preset']} bringup=false` (the bring-up registers' cost: {add['luts']:+,} ALUTs, "
                         f"{add['ffs']:+,} FFs, {add['ram_bits']:+,} RAM bits) | {w['luts']:,} | | {w['ffs']:,} | {w['ram_bits']:,} |")
            cost = None
        if preset in controllers:
            bridge = b["area"][preset]["config"]["preset"]
            label = f"`host_desc_controller preset={bridge}` (the descriptor controller, the {bridge} bridge inside)"
            c = like.get(preset)
            held = f"area_luts_{preset}" in b.get("expectations", {})
            if not c:
                verdict = ""
            elif held:
                verdict = (f"like with like, <= {like['published_aluts']:,} (the published extension, its controller "
                           f"included): " + ("met" if c["met"] else f"MISSED ({c['over']:+,})"))
            else:
                verdict = f"reported ({c['over']:+,} against the published {like['published_aluts']:,})"
        else:
            limit = LIMITS.get(preset)
            label = f"`preset={preset}`"
            verdict = "" if not limit else f"<= {limit:,}: " + ("met" if a["luts"] <= limit else "MISSED")
        lines.append(f"| {label} | {a['luts']:,} ({a['luts_arith']:,}) | {verdict} | {a['ffs']:,} | {a['ram_bits']:,} |")
    if cost:
        w, add = cost["without"], cost["added"]
        lines.append(f"| `preset={cost['preset']} bringup=false` (the bring-up registers' cost: {add['luts']:+,} ALUTs, "
                     f"{add['ffs']:+,} FFs, {add['ram_bits']:+,} RAM bits) | {w['luts']:,} | | {w['ffs']:,} | {w['ram_bits']:,} |")
    lines.append(f"| published extension, Quartus on Arria 10 (its descriptor controller included) | +{PUBLISHED_ALMS:,} ALMs, "
                 f"about {round(PUBLISHED_ALMS * ALUTS_PER_ALM):,} ALUTs | | +{PUBLISHED_REGISTERS:,} registers | "
                 f"+{PUBLISHED_M20K} M20K ({PUBLISHED_M20K * 20480:,} bits) |")
    parts = ""
    for preset in controllers:
        alone = b["area"][preset].get("submodules_alone", {})
        front = alone.get("direkt_host_desc_front_e128")
        sides = [alone.get(f"direkt_host_desc_{t}_e128_f{i}") for t, i in (("rd", 254), ("wr", 255))]
        bridge = alone.get("direkt_bridge_f2")
        if not (front and bridge and all(sides)):
            continue
        rest = front["luts"] - sum(x["luts"] for x in sides)
        parts += (f"\nWhere `host_desc_controller preset={b['area'][preset]['config']['preset']}`'s ALUTs go, each part "
                  f"synthesised alone: the bridge `direkt_bridge_f2` {bridge['luts']:,} ({bridge['luts_arith']:,} arithmetic); "
                  f"the host-protocol front `direkt_host_desc_front_e128` {front['luts']:,} ({front['luts_arith']:,}): its "
                  f"rd side {sides[0]['luts']:,} and wr side {sides[1]['luts']:,} (the registers, the table fetch's and the "
                  f"flags' address sums, the DTS agent and entry RAM, the hand-over, completion and flag logic), the rest "
                  f"{rest:,} (the registers' read-back with its copies, the Read Data Mover's descriptor multiplexer, the "
                  f"flag host, the status routing).\n")
    return ("ALUTs are Yosys `synth_intel_alm -family cyclonev` LUT cells; the published figure is in\n"
            f"Quartus ALMs, converted at {ALUTS_PER_ALM} ALUTs per ALM (an ALM holds two ALUTs that share\n"
            "inputs, and Quartus fills about three of every four). Limits: `paper` no more than the\n"
            "published ALM count in ALUTs (about two thirds of it), `default` no more than the published\n"
            "figure, `lean` half of it, `regions` the default's (its RAM bits include both page tables,\n"
            "which the limit excepts). The published extension's figure includes the descriptor controller\n"
            "it moved out of the hard IP, so like with like it is the descriptor controller and bridge\n"
            "together (`host_desc_controller`) that compares with it; a bridge preset alone is the part\n"
            "that the published FIFOs, priority encoder and asynchronous FIFO were.\n\n" + "\n".join(lines) + "\n" + parts)


def timing(t: dict) -> str:
    lines = ["| top | Fmax per clock (MHz) | ratio to the FIFO | critical path (slowest clock) | LUTs | FFs |",
             "|---|---|---|---|---|---|"]
    for name, top in t["tops"].items():
        fmax = ", ".join(f"{c} {f:.1f}" for c, f in sorted(top["fmax_mhz"].items()))
        verdict = {True: " (meets)", False: " (MISSES)"}.get(top["meets_target"], "")
        lines.append(f"| `{name}` | {fmax} | {top['ratio_to_fifo']:.2f}{verdict} | `{top['critical_path']}` | "
                     f"{top['luts']:,} | {top['ffs']:,} |")
    return (f"Target: every bridge clock >= {t['target_ratio']} x the reference's slowest clock; "
            f"met: {'yes' if t['meets_target'] else 'NO'}.\n\n" + "\n".join(lines))


def _size(n: int) -> str:
    for unit, k in (("MB", 20), ("KB", 10)):
        if n >= 1 << k and n % (1 << k) == 0:
            return f"{n >> k} {unit}"
    return f"{n} B"


def bounce(results: list[dict]) -> str:
    """The bounce path's CUDA half per measured GPU against the published direct and bounce paths.

    GPU -> FPGA on the bounce path starts with a GPU -> host copy (d2h), FPGA -> GPU ends with a
    host -> GPU copy (h2d); the FPGA's host DMA comes on top of either."""
    d, b = PUBLISHED_DIRECT, PUBLISHED_BOUNCE
    lines = ["| path | GPU -> FPGA, 4 B | GPU -> FPGA, bandwidth | FPGA -> GPU, 4 B | FPGA -> GPU, bandwidth |",
             "|---|---|---|---|---|",
             f"| direct (published: P100 + Arria 10, Gen3 x8) | {d['gpu_to_fpga'][0]:.2f} us | up to {d['gpu_to_fpga'][1]:.1f} GB/s | "
             f"{d['fpga_to_gpu'][0]:.2f} us | up to {d['fpga_to_gpu'][1]:.1f} GB/s |",
             f"| bounce, the whole (published, same machine) | {b['gpu_to_fpga'][0]:.0f} us | {b['gpu_to_fpga'][1]:.1f} GB/s | "
             f"{b['fpga_to_gpu'][0]:.0f} us | {b['fpga_to_gpu'][1]:.1f} GB/s |"]
    if not results:
        lines.append("| bounce, the CUDA half alone (measured) | not measured yet | | | |")
        return ("No `bench/results/bounce-<device>.json` yet: it comes from a GPU machine (`make bench-bounce`, or\n"
                "`bash build/gpu/run.sh bounce` from the GPU bundle, then the JSON copied into `bench/results/`);\n"
                "`python3 bench/readme_tables.py --write` then fills in the measured rows.\n\n" + "\n".join(lines))
    detail = []
    for r in results:
        sizes = r["sizes"]
        small, large = sizes[0], sizes[-1]
        lines.append(f"| bounce, the CUDA half alone (measured on {r['device_slug'].upper()}: pinned copy, median; bandwidth at "
                     f"{_size(large['bytes'])}) | {small['d2h']['median_us']:.2f} us "
                     f"({small['d2h']['median_us'] / d['gpu_to_fpga'][0]:.1f} x direct) | {large['d2h']['gb_per_s']:.1f} GB/s | "
                     f"{small['h2d']['median_us']:.2f} us ({small['h2d']['median_us'] / d['fpga_to_gpu'][0]:.1f} x direct) | "
                     f"{large['h2d']['gb_per_s']:.1f} GB/s |")
        detail.append(f"`bench/results/bounce-{r['device_slug']}.json`: {r['device']} ({r['pci']}), driver {r['driver']}; "
                      f"median (99th percentile) of {large['samples']:,} to {small['samples']:,} copies per size.")
        detail.append("")
        detail.append("| size | GPU -> pinned host | GB/s | pinned host -> GPU | GB/s |")
        detail.append("|---|---|---|---|---|")
        for row in sizes:
            dn, up = row["d2h"], row["h2d"]
            detail.append(f"| {_size(row['bytes'])} | {dn['median_us']:.2f} us ({dn['p99_us']:.2f}) | {dn['gb_per_s']:.3g} | "
                          f"{up['median_us']:.2f} us ({up['p99_us']:.2f}) | {up['gb_per_s']:.3g} |")
        detail.append("")
    return "\n".join(lines) + "\n\n" + "\n".join(detail).rstrip("\n")


REFERENCE_IP = [("direkt_async_fifo_w160_d16_r", "registered output"),
                ("direkt_async_fifo_w160_d16_r_sr", "the same, either side reset alone"),
                ("direkt_sync_fifo_w160_d16", None),
                ("direkt_arbiter_rr_n3", None)]


def reference_ip(area: dict, fifo: dict) -> str:
    """The reference IP's size (area.json) and the FIFOs' rate and latency (fifo.json)."""
    lines = ["| reference IP | ALUTs (of them arithmetic) | FFs | RAM bits | logic levels |",
             "|---|---|---|---|---|"]
    for name, note in REFERENCE_IP:
        a = area[name]
        label = f"`{name}`" + (f" ({note})" if note else "")
        lines.append(f"| {label} | {a['luts']} ({a['luts_arith']}) | {a['ffs']} | {a['ram_bits']} | {a['logic_levels']} |")
    fifos = fifo["fifos"]
    rates = sorted({min(v["throughput_in"], v["throughput_out"]) for v in fifos.values()})
    asyncs = [v for v in fifos.values() if v.get("kind") != "sync"]
    lat = sorted({v["latency_max"] for v in asyncs})
    bound = sorted({v["latency_max_expected_at_most"] for v in asyncs})
    return ("\n".join(lines) + "\n\n"
            f"`bench/results/fifo.json` ({fifo['simulator']}): every FIFO measured sustains "
            f"{', '.join(f'{r:.2f}' for r in rates)} word per cycle in and out; the asynchronous ones make a word readable "
            f"{', '.join(map(str, lat))} read-clock cycles after the write edge (bound {', '.join(map(str, bound))}).")


def runtime(r: dict) -> str:
    """The host runtime's table and split figures (runtime.json, the last run)."""
    run = r["runs"][-1]
    t, sp = run["table_build_1gb"], run["split_1gb"]
    return (f"`bench/results/runtime.json` (`RuntimeBench`, {run['machine']['cpus']} cores, Java "
            f"{run['machine']['java_version']}): building the address table of 1 GB in 64 KB pages takes "
            f"{t['contiguous']['median_us']:.0f} us contiguous and {t['fragmented_0.5']['median_us']:.0f} us with half the "
            f"pages scattered; splitting all of it into mover-legal descriptors {sp['contiguous']['median_us']:.0f} us and "
            f"{sp['fragmented_0.5']['median_us']:.0f} us; a pin-cache hit {run['pin_cache_hit']['single_thread_ns']:.0f} ns "
            "(medians).")


def gpu(results: list[dict]) -> str:
    """Java runtime against the C reference, per size and per step, for every measured GPU."""
    out = []
    for r in results:
        out.append(f"`bench/results/{r['file']}`: {r['device']} ({r['pci']}), driver {r['driver']}; target Java/C <= "
                   f"{r['target_ratio']} at every size; met at every size: {'yes' if r['meets_target'] else 'NO'}.")
        out.append("")
        out.append("| size | Java (us) | C (us) | Java/C | meets | C in the JVM (us) | Java alloc / sync / export / table (us) | "
                   "C alloc / sync / export / table (us) | C in the JVM, by step (us) |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for row in r["sizes"]:
            js, cs = row.get("java_steps_median_us") or {}, row.get("c_steps_median_us") or {}
            ij = row.get("c_in_jvm_steps_median_us") or {}
            steps = lambda d: " / ".join(f"{d[k]:.1f}" for k in ("alloc", "sync_memops", "export", "table")) if d else "-"
            in_jvm = f"{row['c_in_jvm_median_us']:.1f}" if "c_in_jvm_median_us" in row else "-"
            out.append(f"| {_size(row['bytes'])} | {row['java_median_us']:.1f} | {row['c_median_us']:.1f} | "
                       f"{row['ratio']:.2f} | {'yes' if row['meets_target'] else 'NO'} | {in_jvm} | {steps(js)} | {steps(cs)} | "
                       f"{steps(ij)} |")
        out.append("")
    return "\n".join(out).rstrip("\n") if out else "No `bench/results/gpu-<device>.json` yet."


def gpu_pinning(files: list[dict]) -> str:
    """The same GPU benchmark with only the sampling thread pinned and with the whole process pinned."""
    runs = {r["pinned"]: r for r in files}
    if set(runs) != {"thread", "process"}:
        return "No side-by-side pinning runs in `bench/results/pinning/` yet."
    t, p = runs["thread"], runs["process"]
    sizes = [row["bytes"] for row in t["sizes"]]
    out = [f"`bench/results/pinning/` ({t['device']}, one session, {t['forks']} processes per side each): Java/C with only the "
           "sampling thread pinned, then with every thread of each process pinned.", "",
           "| pinned | " + " | ".join(_size(b) for b in sizes) + " | every size <= " + f"{t['target_ratio']} |",
           "|---|" + "---|" * (len(sizes) + 1)]
    for name, r in (("thread", t), ("process", p)):
        out.append(f"| {name} | " + " | ".join(f"{row['ratio']:.2f}" for row in r["sizes"]) + " | "
                   + ("yes" if r["meets_target"] else "NO") + " |")
    return "\n".join(out)


def _pinning_results() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((RESULTS / "pinning").glob("gpu-*.json"))]


def _gpu_results() -> list[dict]:
    res = []
    for p in sorted(RESULTS.glob("gpu-*.json")):
        r = json.loads(p.read_text())
        r["file"] = p.name
        res.append(r)
    return res


def _bounce_results() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(RESULTS.glob("bounce-*.json"))]


def session(r: dict) -> str:
    b = r["bounds"]
    m = r["machine"]
    opens = {p["opens"] for p in r["paths"].values()}
    lines = [f"`bench/results/session.json`: {r['simulator']}, {m['cpus']} CPUs, Java {m['java_version']}; wall time, "
             f"median (max) of {'/'.join(map(str, sorted(opens)))} session starts and {r['reps']} copies.", "",
             "| path | session start (build cached) | size | GPU -> FPGA | FPGA -> GPU | simulated (dma_clk cycles) |",
             "|---|---|---|---|---|---|"]
    for name, p in r["paths"].items():
        start = f"{p['open_s']['median']:.2f} s ({p['open_s']['max']:.2f})"
        for i, c in enumerate(p["copies"]):
            gf, fg = c["gpu_to_fpga"], c["fpga_to_gpu"]

            def ms(w: dict) -> str:
                return f"{w['median'] * 1e3:.1f} ms ({w['max'] * 1e3:.1f})"

            lines.append(f"| {name if i == 0 else ''} | {start if i == 0 else ''} | {_size(c['bytes'])} | {ms(gf['wall_s'])} "
                         f"| {ms(fg['wall_s'])} | {gf['dma_cycles']:,}, {fg['dma_cycles']:,} |")
    met = "met" if b["met"] else "NOT met"
    lines += ["", f"Bounds: a session starts within {b['open_s']:g} s and a 256 KB copy takes at most {b['copy_256k_s']:g} s, "
              f"each direction, every run: {met}."]
    return "\n".join(lines)


def regions(r: dict, t: dict) -> str:
    f = r["region_64mb_fragmented"]
    mv = r["mover"]
    lines = ["| figure | measured |", "|---|---|",
             f"| one request of {_size(f['bytes'])} over {f['pages']:,} pages in random order | {f['pieces']:,} mover descriptors, "
             f"{f['statuses']} status, byte-exact: {'yes' if f['byte_exact'] else 'NO'} |",
             f"| descriptors per cycle while the mover could take one | {f['desc_per_cycle_when_mover_can_take']:.3f} |",
             f"| fraction of the mover model's peak ({mv['bytes_per_cycle']} B/cycle, latency {mv['latency_cycles']}) | "
             f"{f['fraction_of_mover_peak']:.3f} ({f['cycles_request_to_status']:,} cycles from request to status) |"]
    for top, a in r["area"].items():
        lines.append(f"| `{top}` (Cyclone V) | {a['luts']:,} ALUTs, {a['ffs']:,} FFs, {a['ram_bits']:,} RAM bits |")
    for name, top in t["tops"].items():
        if name == t["reference"]:
            continue
        fmax = ", ".join(f"{c} {v:.1f}" for c, v in sorted(top["fmax_mhz"].items()))
        d = top.get("critical_path_detail") or {}
        lines.append(f"| `{name}` on ECP5 | {fmax} MHz, {top['ratio_to_fifo']:.2f} x the FIFO "
                     f"({'meets' if top['meets_target'] else 'misses'} 0.8); critical path `{top['critical_path']}`, "
                     f"{d.get('delay_ns', 0):.2f} ns of which routing {d.get('routing_ns', 0):.2f} ns |")
    bad = [k for k, v in r["expectations"].items() if not v["pass"]]
    return "\n".join(lines) + ("\n\nEvery expectation of bench/regions.py met." if not bad
                               else "\n\nUnmet: " + ", ".join(bad) + ".")


def aperture(a: dict) -> str:
    """bench/results/aperture.json: GPU-master throughput per aperture, request size and outstanding count."""
    link = a["link_gbps"]
    lines = [f"Modelled link: PCIe Gen3 x8, {a['link_raw_gbps']:.2f} GB/s raw, {link:.2f} GB/s of 256-byte TLP payload; "
             f"{a['round_trip_ns']} ns round trip outside the FPGA. Published (2013): GPU -> FPGA "
             f"{a['published']['bittner_2013_gpu_to_fpga_gbps']} GB/s, FPGA -> GPU {a['published']['bittner_2013_fpga_to_gpu_gbps']} GB/s.",
             "", "| aperture | posted writes GB/s (x link) | request | reads GB/s by requests outstanding | outstanding needed for 0.8 x link |",
             "|---|---|---|---|---|"]
    for label, ap in a["apertures"].items():
        first = True
        for req in sorted({r["request_bytes"] for r in ap["reads"]}):
            pts = [r for r in ap["reads"] if r["request_bytes"] == req]
            reads = ", ".join(f"{r['outstanding']}: {r['gbps']:.2f}" for r in pts)
            need = ap["reads_needed_for_target"].get(str(req))
            write = f"{ap['write']['gbps']:.2f} ({ap['write']['ratio_to_link']:.2f})" if first else ""
            n = ap["outstanding_reads"]
            name = f"{label}, {n} read burst{'' if n == 1 else 's'} outstanding" if first else ""
            lines.append(f"| {name} | {write} | {req} B | {reads} | {need if need is not None else 'not reached'} |")
            first = False
    ar = a["area"]
    lines.append("")
    lines.append(f"Area of the default aperture (Yosys, synth_intel_alm): {ar['luts']:,} ALUTs, {ar['ffs']:,} flip-flops, "
                 f"{ar['ram_bits']:,} RAM bits (bounds {ar['bounds']['luts']:,} / {ar['bounds']['ffs']:,} / {ar['bounds']['ram_bits']:,}). "
                 f"Targets met: {'yes' if a['meets_target'] else 'NO: ' + '; '.join(a['unmet'])}.")
    return "\n".join(lines)


TABLES = {"bridge-latency": lambda: bridge_latency(_load("bridge.json")),
          "bridge-area": lambda: bridge_area(_load("bridge.json")),
          "timing": lambda: timing(_load("timing.json")),
          "regions": lambda: regions(_load("regions.json"), _load("timing-regions.json")),
          "bounce": lambda: bounce(_bounce_results()),
          "gpu": lambda: gpu(_gpu_results()),
          "gpu-pinning": lambda: gpu_pinning(_pinning_results()),
          "reference-ip": lambda: reference_ip(_load("area.json"), _load("fifo.json")),
          "runtime": lambda: runtime(_load("runtime.json")),
          "session": lambda: session(_load("session.json")),
          "aperture": lambda: aperture(_load("aperture.json"))}


def documents() -> list[Path]:
    """The files that may hold a marked table: README.md and the documentation site's pages."""
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def render(texts: dict[Path, str]) -> dict[Path, str]:
    """Every marked table rendered anew in the one file that holds its markers."""
    out = dict(texts)
    for name, make in TABLES.items():
        start = f"<!-- {name}: generated by bench/readme_tables.py from bench/results; do not edit -->"
        end = f"<!-- /{name} -->"
        holders = [p for p, t in out.items() if start in t or end in t]
        files = ", ".join(str(p.relative_to(REPO)) for p in out)
        if len(holders) != 1:
            raise SystemExit(f"readme_tables: the markers {start} ... {end} must be in exactly one of {files}; "
                             + (f"they are in {', '.join(str(p.relative_to(REPO)) for p in holders)}" if holders
                                else "none holds them"))
        path = holders[0]
        text = out[path]
        if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
            raise SystemExit(f"readme_tables: {path.relative_to(REPO)} must hold {start} once, then {end} once")
        a = text.index(start) + len(start)
        b = text.index(end)
        out[path] = text[:a] + "\n" + make() + "\n" + text[b:]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the tables where they differ")
    mode.add_argument("--check", action="store_true", help="fail when a table differs from the results")
    args = ap.parse_args()
    old = {p: p.read_text() for p in documents()}
    new = render(old)
    changed = [p for p in old if new[p] != old[p]]
    names = ", ".join(str(p.relative_to(REPO)) for p in changed)
    if args.check:
        if changed:
            print(f"readme_tables: the measured tables in {names} differ from bench/results; run "
                  "python3 bench/readme_tables.py --write", file=sys.stderr)
            return 1
        print(f"readme_tables: the {len(TABLES)} measured tables in README.md and docs/ match bench/results")
        return 0
    for p in changed:
        tmp = p.with_suffix(".md.tmp")
        tmp.write_text(new[p])
        tmp.replace(p)
    if changed:
        print(f"readme_tables: {names} updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
