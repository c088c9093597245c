# SPDX-License-Identifier: Apache-2.0
"""Replay bench: runs a job's kernel and host DMA descriptors through the simulated bridge.

The "simulated back end" of direkt's Java host runtime (``org.direkt.runtime.sim.SimulatedBridge``):
the host side builds a job (memory contents, windows, the exact cldesc words a kernel would write,
the descriptors the host writes to the BSP's descriptor controller), this bench runs it against the
emitted ``direkt_bridge`` with the models of :mod:`direkt_sim` standing in for the GPU BAR, pinned
host memory, FPGA memory (:mod:`~direkt_sim.pcie`), the data movers (:mod:`~direkt_sim.mover`), the
host's descriptor controller, CSR master and kernel (:mod:`~direkt_sim.kernel`, a channel a
direction), and writes a result (statuses, final memory contents, mover log counts, cycles).
The job and result formats are specified in ``README.md`` next to this file.

    DIREKT_REPLAY_JOB=/tmp/job.json DIREKT_REPLAY_RESULT=/tmp/result.json \\
        ../.venv/bin/pytest -q tb/bridge_replay          # from sim/

Without ``DIREKT_REPLAY_JOB`` the pytest test is skipped (so ``make test-sim`` passes over it).
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from direkt_sim.csr import Csr
from direkt_sim.host_controller import HostController
from direkt_sim.jobs import (
    JobError, b64, csr_address, host_descriptors, host_status_json, integer, issue_mode, kernel_issues, status_json,
)
from direkt_sim.kernel import KernelChannel
from direkt_sim.layout import load_manifest
from direkt_sim.mover import DataMover
from direkt_sim.pcie import HostRam, Memory, PcieSpace
from direkt_sim.pins import DIRECTIONS, ModelError
from direkt_sim.reset import hold_in_reset, reset_bridge
from direkt_sim.rig import run_bridge, start_clocks

JOB_VERSION = 2
RESULT_VERSION = 2
ENV_JOB = "DIREKT_REPLAY_JOB"
ENV_RESULT = "DIREKT_REPLAY_RESULT"
DEFAULT_PAGE = 65536
DEFAULT_CLOCKS = {"kernel_ps": 4000, "dma_ps": 4000}
# Host descriptors the BSP's descriptor controller keeps outstanding per direction.
HOST_OUTSTANDING = 8


# --------------------------------------------------------------------------- job



def result_path(job_path: str) -> Path:
    out = os.environ.get(ENV_RESULT, "").strip()
    return Path(out) if out else Path(job_path).with_suffix(".result.json")


def load_job(path: str) -> dict:
    try:
        job = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise JobError(f"{ENV_JOB}={path}: no such file") from None
    except json.JSONDecodeError as e:
        raise JobError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    if not isinstance(job, dict) or job.get("version") != JOB_VERSION:
        raise JobError(f"{path}: job version {job.get('version') if isinstance(job, dict) else None!r}; "
                       f"this bench understands {JOB_VERSION}")
    return job


def bench_config(job: dict) -> tuple[dict, dict]:
    """(generator params, run params) of a job: they pick the Verilator build and run directory."""
    params = {"preset": job.get("preset", "default")}
    params.update(job.get("bridge_params") or {})
    clocks = dict(DEFAULT_CLOCKS)
    clocks.update(job.get("clocks") or {})
    return params, {k: integer(clocks[k], f"clocks.{k}", 1, 10**9) for k in ("kernel_ps", "dma_ps")}


class PageRegion:
    """GPU BAR pages, each its own sparse memory, mapped at the bus addresses the job gives."""

    def __init__(self, pages: list[tuple[int, int, Memory]]):
        self.pages = sorted(pages, key=lambda p: p[0])
        for (a, n, _), (b, _, _) in zip(self.pages, self.pages[1:]):
            if a + n > b:
                raise JobError(f"gpu_pages overlap: page at {a:#x} (+{n:#x}) and page at {b:#x}")

    def mappings(self):
        for bus, size, mem in self.pages:
            yield bus, size, mem, 0

    @property
    def writes(self) -> int:
        return sum(m.writes for _, _, m in self.pages)


def host_regions(job: dict, gpu: PageRegion) -> list[HostRam]:
    """The job's ``host_memory``: pinned host buffers the FPGA driver mapped, each its own bus range,
    overlapping neither another region nor a GPU page."""
    out: list[HostRam] = []
    for i, h in enumerate(job.get("host_memory") or []):
        what = f"host_memory[{i}]"
        bus = integer(h.get("bus"), f"{what}.bus")
        size = integer(h.get("size"), f"{what}.size", 4, 1 << 40)
        if bus % 4 or size % 4:
            raise JobError(f"{what}: bus {bus:#x} and size {size:#x} must be multiples of 4 (the movers move dwords)")
        data = b64(h, what)
        if len(data) > size:
            raise JobError(f"{what}: {len(data)} bytes of data for a {size}-byte region")
        for other in out:
            if bus < other.bus_base + other.size and other.bus_base < bus + size:
                raise JobError(f"{what}: [{bus:#x}, +{size:#x}) overlaps {other.name} [{other.bus_base:#x}, +{other.size:#x})")
        for pbus, psize, _ in gpu.pages:
            if bus < pbus + psize and pbus < bus + size:
                raise JobError(f"{what}: [{bus:#x}, +{size:#x}) overlaps the GPU page at {pbus:#x} (+{psize:#x})")
        r = HostRam(bus, size, name=what)
        if data:
            r.mem.write(0, data)
        r.mem.writes = r.mem.bytes_written = 0
        out.append(r)
    return out


# --------------------------------------------------------------------------- the replay


@cocotb.test(timeout_time=int(os.environ.get("DIREKT_REPLAY_TIMEOUT_MS", "2000")), timeout_unit="ms")
async def replay(dut):
    """Run the job in $DIREKT_REPLAY_JOB; write the result to $DIREKT_REPLAY_RESULT."""
    wall0 = time.monotonic()
    job_path = os.environ[ENV_JOB]
    job = load_job(job_path)
    m = load_manifest()
    log = dut._log
    _, clocks = bench_config(job)
    kper, dper = clocks["kernel_ps"], clocks["dma_ps"]

    # memories
    page_size = integer(job.get("gpu_page_size", DEFAULT_PAGE), "gpu_page_size", 4, 1 << 40)
    pages = []
    for i, p in enumerate(job.get("gpu_pages") or []):
        what = f"gpu_pages[{i}]"
        bus = integer(p.get("bus"), f"{what}.bus")
        size = integer(p.get("size", page_size), f"{what}.size", 1, 1 << 40)
        mem = Memory(f"gpu page {i} @ {bus:#x}", size=size, fill=integer(p.get("fill", 0), f"{what}.fill", 0, 255))
        data = b64(p, what)
        if len(data) > size:
            raise JobError(f"{what}: {len(data)} bytes of data for a {size}-byte page")
        if data:
            mem.write(0, data)
        mem.writes = mem.bytes_written = 0
        pages.append((bus, size, mem))
    gpu = PageRegion(pages)
    host = host_regions(job, gpu)
    fpga_size = int(m.bridge["fpga_mem_bytes"])
    fpga = Memory("fpga", size=fpga_size, fill=integer(job.get("fpga_fill", 0), "fpga_fill", 0, 255))
    for i, f in enumerate(job.get("fpga") or []):
        addr = integer(f.get("addr"), f"fpga[{i}].addr", 0, fpga_size)
        data = b64(f, f"fpga[{i}]")
        if addr + len(data) > fpga_size:
            raise JobError(f"fpga[{i}]: [{addr:#x}, +{len(data):#x}) beyond the FPGA memory ({fpga_size:#x} bytes)")
        fpga.write(addr, data)
    fpga.writes = fpga.bytes_written = 0
    pcie = PcieSpace([gpu, *host])

    # descriptors
    mode, limit = issue_mode(job.get("issue"), m)
    chan_order = job.get("channel_word_order", m.bridge["word_order"])
    reads = [csr_address(m, r, f"csr_reads[{i}]") for i, r in enumerate(job.get("csr_reads") or [])]
    issues = kernel_issues(job.get("descriptors"), m, chan_order)
    host_descs = host_descriptors(job.get("host_descriptors"), m, pcie, fpga_size)

    # clocks, reset, models
    hold_in_reset(dut, m)
    await start_clocks(dut, kper, dper)
    mv_cfg = job.get("mover") or {}
    movers = {t: DataMover(dut, t, m, pcie, fpga, latency=integer(mv_cfg.get("latency", 8), "mover.latency", 1, 1 << 20),
                           bytes_per_cycle=integer(mv_cfg.get("bytes_per_cycle", 64), "mover.bytes_per_cycle", 1, 1 << 20))
              for t in DIRECTIONS}
    await reset_bridge(dut, m, max(kper, dper))
    await ClockCycles(dut.dma_clk, 4)
    t0_ps = get_sim_time("ps")
    mover_c0 = {t: movers[t].cycle for t in DIRECTIONS}

    csr = Csr(dut, m)
    entries = int(m.bridge["window_entries"])
    for i, w in enumerate(job.get("windows") or []):
        idx = integer(w.get("index", i), f"windows[{i}].index", 0, entries - 1)
        base, last = integer(w.get("base"), f"windows[{i}].base"), integer(w.get("last"), f"windows[{i}].last")
        try:
            csr.window_log2(base, last)
        except ValueError as e:
            raise JobError(f"windows[{i}]: {e}") from None
        await csr.set_window(idx, base, last, enable=bool(w.get("enable", True)), rd=bool(w.get("rd", True)),
                             wr=bool(w.get("wr", True)))
    for i, cw in enumerate(job.get("csr_writes") or []):
        what = f"csr_writes[{i}]"
        addr = csr_address(m, cw, what)
        await csr.write(addr, integer(cw.get("value"), f"{what}.value", 0, 0xFFFF_FFFF))

    # A host's job may give two descriptors one tag: a status goes to the first in flight with it.
    chans = {t: KernelChannel(dut, t, m, max_outstanding=limit, unique_tags=False) for t in DIRECTIONS}
    # A controller only for a direction with host descriptors: an idle model still costs a
    # coroutine step per cycle.
    hosts = {t: HostController(dut, t, m, max_outstanding=HOST_OUTSTANDING)
             for t in DIRECTIONS if any(h[0] == t for h in host_descs)}
    host_sent = [hosts[t].submit(src, dst, n) for t, src, dst, n in host_descs]
    per_status_cycles = integer((job.get("issue") or {}).get("timeout_kernel_cycles", 2_000_000),
                             "issue.timeout_kernel_cycles", 1, 1 << 40)

    async def wait_idle(what: str, chs, hcs=()) -> None:
        start = {t: c.cycle for t, c in chans.items()}
        while not all(c.idle for c in chs) or not all(h.idle for h in hcs):
            await RisingEdge(dut.kernel_clk)
            if any(chans[t].cycle - start[t] > per_status_cycles for t in chans):
                missing = [f"#{j.index} ({j.t})" for c in chs for j in list(c.inflight) + list(c.queue)]
                missing += [f"host #{k} ({h.t})" for h in hcs for d in list(h.outstanding.values()) + list(h.queue)
                            for k, x in enumerate(host_sent) if x is d]
                raise ModelError(f"{what}: no status within {per_status_cycles} kernel cycles for {missing[:8]}")

    for it in issues:
        if mode == "sequential":
            chans[it.t].add_job(it)
            await wait_idle(f"descriptor #{it.index}", [chans[it.t]])
        else:
            if it.wait:
                await wait_idle(f"barrier before descriptor #{it.index}", chans.values())
            chans[it.t].add_job(it)
    await wait_idle("end of job", chans.values(), hosts.values())
    await ClockCycles(dut.dma_clk, 8)  # a stray status would show in the counters
    for mv in [*movers.values(), *hosts.values(), *chans.values()]:
        if mv.errors:
            raise ModelError(mv.errors[0])

    counters = {t: await csr.counters(t) for t in DIRECTIONS}  # {} per direction without counters
    alarms = await csr.alarms()
    last_error = await csr.last_error()
    csr_values = []
    for entry, addr in zip(job.get("csr_reads") or [], reads):
        csr_values.append({"name": entry.get("name"), "offset": addr, "value": await csr.read(addr)})
    sim_ps = int(get_sim_time("ps") - t0_ps)

    # read back
    rb = job.get("read_back") or {}
    mem_out = {"gpu": [], "fpga": [], "host": []}
    for i, r in enumerate(rb.get("gpu") or []):
        bus, n = integer(r[0], f"read_back.gpu[{i}][0]"), integer(r[1], f"read_back.gpu[{i}][1]", 0, 1 << 32)
        try:
            data = pcie.read(bus, n)
        except ModelError as e:
            raise JobError(f"read_back.gpu[{i}]: {e}") from None
        mem_out["gpu"].append({"bus": bus, "len": n, "data_b64": base64.b64encode(data).decode()})
    for i, r in enumerate(rb.get("fpga") or []):
        addr, n = integer(r[0], f"read_back.fpga[{i}][0]"), integer(r[1], f"read_back.fpga[{i}][1]", 0, 1 << 32)
        mem_out["fpga"].append({"addr": addr, "len": n, "data_b64": base64.b64encode(fpga.read(addr, n)).decode()})
    for i, r in enumerate(rb.get("host") or []):
        bus, n = integer(r[0], f"read_back.host[{i}][0]"), integer(r[1], f"read_back.host[{i}][1]", 0, 1 << 32)
        if not any(h.bus_base <= bus and bus + n <= h.bus_base + h.size for h in host):
            raise JobError(f"read_back.host[{i}]: [{bus:#x}, +{n:#x}) is not inside one host_memory region")
        mem_out["host"].append({"bus": bus, "len": n, "data_b64": base64.b64encode(pcie.read(bus, n)).decode()})

    result = {
        "version": RESULT_VERSION,
        "job": str(job_path),
        "bridge": {k: m.bridge[k] for k in ("status_mode", "id_mode", "word_order", "inflight", "window_entries",
                                             "fpga_mem_bytes", "policy", "counters")},
        "issue": {"mode": mode, "inflight": limit, "channel_word_order": chan_order},
        "statuses": [status_json(m, it) for it in issues],
        "host_statuses": [host_status_json(m, i, t, d) for i, ((t, *_), d) in enumerate(zip(host_descs, host_sent))],
        "memory": mem_out,
        "mover": {t: {"descriptors": len(movers[t].log), "kernel_descriptors": sum(d.kernel for d in movers[t].log),
                      "bytes": movers[t].bytes_moved, "tlps": movers[t].tlps, "busy_cycles": movers[t].busy_cycles}
                  for t in DIRECTIONS},
        "writes": {"gpu_bytes": sum(p[2].bytes_written for p in gpu.pages), "fpga_bytes": fpga.bytes_written,
                   "host_bytes": sum(h.mem.bytes_written for h in host)},
        "counters": counters,
        "alarms": alarms,
        "last_error": last_error,
        "csr_reads": csr_values,
        "cycles": {"kernel": chans["rd"].cycle,
                   "dma": max(movers[t].cycle - mover_c0[t] for t in DIRECTIONS), "sim_time_ps": sim_ps},
        "wall_s": round(time.monotonic() - wall0, 3),
    }
    out = result_path(job_path)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=1))
    tmp.replace(out)
    failed = sum(1 for it in issues if it.status.failed)
    log.info("replay: %d descriptor(s) (%s), %d host descriptor(s), %d failed status(es), %d kernel cycles, "
             "%.1f us simulated; result %s", len(issues), mode, len(host_descs), failed, result["cycles"]["kernel"],
             sim_ps / 1e6, out)


# --------------------------------------------------------------------------- pytest


def test_replay():
    """The job the host runtime wrote (``DIREKT_REPLAY_JOB``) replays through the bridge and its result
    is written; skipped without a job."""
    job_path = os.environ.get(ENV_JOB, "").strip()
    if not job_path:
        pytest.skip(f"{ENV_JOB} is not set (the replay bench runs a job the host runtime wrote)")
    try:
        job = load_job(job_path)
        params, clocks = bench_config(job)
    except JobError as e:
        pytest.fail(str(e), pytrace=False)
    os.environ[ENV_JOB] = str(Path(job_path).resolve())  # the simulator runs in another directory
    out = result_path(job_path).resolve()
    os.environ[ENV_RESULT] = str(out)
    out.unlink(missing_ok=True)
    run_bridge("bridge_replay", __file__, params, clocks)
    if not out.is_file():
        pytest.fail(f"the replay passed but wrote no result to {out}", pytrace=False)
