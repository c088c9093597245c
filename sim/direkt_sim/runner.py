# SPDX-License-Identifier: Apache-2.0
"""Build and run one cocotb bench against emitter-generated Verilog.

A pytest function in ``sim/tb/<bench>/test_<bench>.py`` calls :func:`run_bench`,
which

1. runs the Java emitter into ``sim/build/<bench>/<sim>/<params>/rtl/``
   (``<params>`` is e.g. ``width=8``; see :mod:`direkt_sim.emit`),
2. builds that Verilog with ``cocotb.runner.get_runner(<sim>)`` (cocotb 1.8.1)
   in ``sim/build/<bench>/<sim>/<params>/``,
3. runs the cocotb tests of the bench module in the simulator, and
4. reads cocotb's JUnit XML and fails the pytest test if any cocotb test failed
   or none ran.

Environment knobs (all optional):

``SIM``        ``verilator`` (default) or ``icarus``.
``WAVES``      ``1`` to dump an FST waveform; its path is printed and listed at
               the end of the pytest run.
``SEED``       integer random seed for every bench run; default: a fixed seed
               derived from the pytest test name, so runs are reproducible.
``TESTCASE``   cocotb's own: run only the named cocotb test(s) (comma list).
``DIREKT_REGRESS``  ``1`` for the long form (``make regress``): benches scale
               their stimulus by :func:`regress_scale`.
``DIREKT_BUILD_JOBS``  parallel C++ compile jobs for Verilator (default: CPUs).
``OBJCACHE``   the compiler wrapper of Verilator's builds (default ``ccache`` where installed;
               set it empty to compile without).

Parameters reach the bench module (inside the simulator) as JSON in the
environment variable ``DIREKT_PARAMS``; see :func:`bench_params`.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping, Optional, Sequence
from xml.etree import ElementTree as ET

from . import emit as _emit

SIM_DIR = _emit.SIM_DIR
BUILD_ROOT = SIM_DIR / "build"

SIMULATORS = ("verilator", "icarus")
DEFAULT_SIM = "verilator"

# cocotb's Makefile flow passes a default timescale; its 1.8.1 Python runner
# does not. The emitted Verilog carries `timescale 1ns / 1ps, but the
# benches' own files and the simulators' defaults must agree with it: Icarus
# (a +timescale command file) and Verilator (--timescale) get the same value.
TIMESCALE = "1ns/1ps"

VERILATOR_ARGS = (
    # Full lint. The emitted Verilog is required to be clean: no waivers here,
    # and Verilator's warnings stay fatal.
    "-Wall",
    "--timescale",
    TIMESCALE,
)
VERILATOR_WAVE_ARGS = ("--trace-fst", "--trace-structs")

ICARUS_ARGS = ("-Wall",)
# Icarus waveforms: a tiny extra top-level module that starts dumping when the
# simulation is given the +direkt_waves plusarg (vvp's -fst picks the format).
# Always compiled in, so switching WAVES on or off needs no rebuild.
ICARUS_WAVES_MODULE = "direkt_sim_waves"

WAVES_FILE = "dump.fst"  # both simulators write it into the run directory

_current_item = None  # the running pytest item; set by sim/conftest.py


def set_current_item(item) -> None:
    """Called by ``sim/conftest.py`` around each test (records properties on it)."""
    global _current_item
    _current_item = item


# --------------------------------------------------------------------------- knobs


def selected_sim() -> str:
    sim = os.environ.get("SIM", "").strip().lower() or DEFAULT_SIM
    if sim not in SIMULATORS:
        _fail(f"SIM={sim!r} is not supported; use one of: {', '.join(SIMULATORS)}")
    return sim


def waves_enabled() -> bool:
    return os.environ.get("WAVES", "").strip().lower() in ("1", "true", "yes", "on")


def current_nodeid() -> str:
    """pytest node id of the running test (relative to sim/), or ``""``."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    # e.g. "tb/skid_buffer/test_skid_buffer.py::test_skid_buffer[width8] (call)"
    return re.sub(r" \((setup|call|teardown)\)$", "", current)


def current_test_name() -> str:
    """``<file>::<test>[<id>]`` of the running pytest test (no directory), or ``""``."""
    return current_nodeid().rsplit("/", 1)[-1]


def choose_seed(test_name: str) -> tuple[int, str]:
    """``(seed, where it came from)``: env ``SEED`` or a stable per-test default."""
    text = os.environ.get("SEED", "").strip()
    if text:
        try:
            return int(text, 0), "from env SEED"
        except ValueError:
            _fail(f"SEED={text!r} is not an integer")
    return zlib.crc32(test_name.encode()) & 0x7FFFFFFF, f"default for {test_name}"


def regress_scale() -> int:
    """How much longer benches run: 10 with ``DIREKT_REGRESS=1``, else 1."""
    return 10 if os.environ.get("DIREKT_REGRESS", "").strip() in ("1", "true", "yes") else 1


def bench_params() -> dict:
    """Inside the simulator: the parameters the pytest side passed to this run."""
    text = os.environ.get("DIREKT_PARAMS")
    if text is None:
        raise RuntimeError(
            "DIREKT_PARAMS is not set: run the bench through pytest (direkt_sim.run_bench)"
        )
    return json.loads(text)


# --------------------------------------------------------------------------- running


@dataclass
class CocotbResult:
    name: str
    status: str  # "passed" | "failed" | "skipped"
    message: str = ""


@dataclass
class BenchRun:
    sim: str
    top: str
    build_dir: Path
    test_dir: Path
    results_xml: Path
    seed: int
    waves: Optional[Path]
    results: list[CocotbResult] = field(default_factory=list)


def run_bench(
    *,
    bench: str,
    example: str,
    module: str,
    params: Mapping[str, object],
    run_params: Optional[Mapping[str, object]] = None,
    expected_top: Optional[str] = None,
    testcase: Optional[str | Sequence[str]] = None,
    emitter: str = "examples",
) -> BenchRun:
    """Emit, build and simulate; fail the calling pytest test on any failure.

    Args:
        bench: directory name under ``sim/build`` (usually the tb directory).
        example: emitter example name (``skid_buffer``, ``gray_crossing``, ...).
        module: Python module holding the cocotb tests (the bench file's basename).
        params: emitter parameters; they select the build directory.
        run_params: run-time-only parameters (clock periods, ...): they do not
            change the Verilog, so runs that differ only here share one build and
            get their own run directory below it.
        expected_top: if given, the top module name the emitter must report.
        testcase: restrict to these cocotb tests (default: all in *module*).
        emitter: ``examples`` (the HDL core's example designs) or ``generators``.
    """
    sim = selected_sim()
    waves = waves_enabled()
    test_name = current_test_name() or f"{module}::{bench}"
    seed, seed_origin = choose_seed(test_name)
    print(f"direkt-sim: SEED={seed} ({seed_origin})", flush=True)
    _record("sim", sim)
    _record("seed", seed)

    build_dir = BUILD_ROOT / bench / sim / _emit.describe(params)
    run_params = dict(run_params or {})
    test_dir = build_dir / ("run-" + _emit.describe(run_params)) if run_params else build_dir
    build_dir.mkdir(parents=True, exist_ok=True)

    # Two runs of one build (two workers of `pytest -n`, or `make demo` while a bench runs) would
    # otherwise emit, verilate and make in the same directory at once. A Verilator run only reads the
    # build, so runs at other run-time parameters go on side by side once it is built; Icarus writes
    # its sim.vvp anew on every build, so its runs keep the build's lock.
    def go(built: Built) -> BenchRun:
        return _run(built, waves=waves, seed=seed, test_name=test_name, module=module, params=params,
                    run_params=run_params, testcase=testcase, test_dir=test_dir)

    with _locked(build_dir):
        built = _build(sim=sim, waves=waves, example=example, params=params, expected_top=expected_top,
                       build_dir=build_dir, emitter=emitter)
        if sim != "verilator":
            return go(built)
    test_dir.mkdir(parents=True, exist_ok=True)
    with _locked(test_dir):
        return go(built)


@dataclass
class Built:
    """An emitted and built bench: what :func:`run_bench` (or a caller running the simulator
    itself, like the simulated device) needs to run it."""

    sim: str
    top: str  # the simulated top: the harness's when there is one, else the emitted top
    emitted_top: str
    build_dir: Path
    runner: object  # cocotb.runner.Simulator


# A harness wraps the emitted top for simulation: given the emitted design and the build
# directory, it returns (its top module, extra Verilog sources, extra build arguments).
Harness = Callable[[_emit.Emitted, Path, str], tuple[str, Sequence[Path], Sequence[str]]]


def build_bench(
    *,
    bench: str,
    example: str,
    params: Mapping[str, object],
    expected_top: Optional[str] = None,
    emitter: str = "examples",
    harness: Optional[Harness] = None,
) -> Built:
    """Emit and build (the first half of :func:`run_bench`) under the build directory's lock,
    which is released on return: a long-lived simulation started from the build does not keep
    other runs of the same build waiting. Fails like :func:`run_bench`."""
    sim = selected_sim()
    build_dir = BUILD_ROOT / bench / sim / _emit.describe(params)
    build_dir.mkdir(parents=True, exist_ok=True)
    with _locked(build_dir):
        return _build(sim=sim, waves=waves_enabled(), example=example, params=params, expected_top=expected_top,
                      build_dir=build_dir, emitter=emitter, harness=harness)


def _build(*, sim, waves, example, params, expected_top, build_dir: Path, emitter: str,
           harness: Optional[Harness] = None) -> Built:
    try:
        emitted = _emit.emit(example, params, build_dir / "rtl", emitter)
    except _emit.EmitError as exc:
        _fail(str(exc))
    if expected_top is not None and emitted.top != expected_top:
        _fail(f"emitter reported top {emitted.top!r}, bench expects {expected_top!r}")

    runner = _get_runner(sim)
    sources = list(emitted.sources)
    top, extra_args = emitted.top, []
    if harness is not None:
        top, more, extra_args = harness(emitted, build_dir, sim)
        sources += list(more)
        extra_args = list(extra_args)
    if sim == "verilator":
        build_args = list(VERILATOR_ARGS) + (list(VERILATOR_WAVE_ARGS) if waves else [])
    else:
        sources.append(_icarus_support_files(build_dir, top))
        build_args = list(ICARUS_ARGS) + [
            "-f", str(build_dir / "icarus_cmds.f"),
            "-s", top,
            "-s", ICARUS_WAVES_MODULE,
        ]
    build_args += extra_args

    print(f"direkt-sim: building {top} with {sim} in {build_dir}", flush=True)
    try:
        with _make_jobs():
            runner.build(
                verilog_sources=sources,
                hdl_toplevel=top,
                build_args=build_args,
                build_dir=build_dir,
                # Icarus: the runner only checks source timestamps, not options;
                # iverilog takes well under a second, so always rebuild.
                # (Verilator re-verilates itself when its options change.)
                always=(sim == "icarus"),
            )
    except SystemExit as exc:
        if sim == "verilator":
            # A make that died half-way can leave an archive newer than its
            # objects, which later makes would trust: start the next one afresh.
            _scrub_verilator_build(build_dir, top)
        _fail(f"{sim} build of {top} failed: {exc}\n(the tool output is in the captured stdout/stderr)")
    return Built(sim=sim, top=top, emitted_top=emitted.top, build_dir=build_dir, runner=runner)


def _run(built: Built, *, waves, seed, test_name, module, params, run_params, testcase,
         test_dir: Path) -> BenchRun:
    sim, build_dir = built.sim, built.build_dir
    runner, top = built.runner, built.top

    plusargs: list[str] = []
    if waves and sim == "icarus":
        plusargs += ["+direkt_waves", "-fst"]
    wave_file = test_dir / WAVES_FILE
    if waves:
        wave_file.parent.mkdir(parents=True, exist_ok=True)
        wave_file.unlink(missing_ok=True)

    extra_env = {
        "DIREKT_PARAMS": json.dumps({**dict(params), **run_params}, sort_keys=True),
        "DIREKT_SIM": sim,
        # Where the emitted files are: generators that write a manifest leave it here.
        "DIREKT_RTL_DIR": str(build_dir / "rtl"),
    }
    sim_error = None
    results_xml = None
    try:
        results_xml = runner.test(
            test_module=module,
            hdl_toplevel=top,
            hdl_toplevel_lang="verilog",
            testcase=testcase,
            seed=seed,
            plusargs=plusargs,
            extra_env=extra_env,
            waves=waves,
            build_dir=build_dir,
            test_dir=test_dir,
        )
    except SystemExit as exc:
        # cocotb's runner raises SystemExit both for a crashed simulator and,
        # under pytest, for failed tests; the results file tells which.
        sim_error = str(exc)

    if results_xml is None:
        results_xml = _expected_results_file(test_dir)
    _record("results_xml", str(results_xml))

    run = BenchRun(
        sim=sim,
        top=top,
        build_dir=build_dir,
        test_dir=test_dir,
        results_xml=Path(results_xml),
        seed=seed,
        waves=wave_file if waves else None,
    )

    if waves:
        if wave_file.is_file():
            print(f"direkt-sim: waveform written to {wave_file}", flush=True)
            _record("waves", str(wave_file))
        else:
            print(f"direkt-sim: WARNING: WAVES=1 but no waveform at {wave_file}", flush=True)

    nodeid = current_nodeid() or test_name
    repro = (
        f"reproduce: cd sim && SIM={sim} SEED={seed} ../.venv/bin/pytest '{nodeid}'"
        " (add TESTCASE=<cocotb test> to run one)"
    )
    if not Path(results_xml).is_file():
        _fail(
            f"{sim} produced no cocotb results file in {test_dir}"
            + (f" ({sim_error})" if sim_error else "")
            + f"; the simulation crashed, the bench module {module!r} failed to import, or no cocotb "
            f"test matched TESTCASE={os.environ.get('TESTCASE', '<unset>')!r} (see the cocotb log "
            f"in the captured output).\n{repro}"
        )
    run.results = read_results(Path(results_xml))
    failed = [r for r in run.results if r.status == "failed"]
    ran = [r for r in run.results if r.status != "skipped"]
    summary = ", ".join(f"{r.name}: {r.status}" for r in run.results)
    print(f"direkt-sim: cocotb results ({results_xml}): {summary or 'none'}", flush=True)
    if failed:
        details = "\n".join(
            # cocotb's own message only repeats the seed, which `repro` gives.
            f"  {r.name}" + ("" if r.message.startswith("Test failed with RANDOM_SEED") else f": {r.message}")
            for r in failed
        )
        _fail(
            f"{len(failed)} of {len(run.results)} cocotb test(s) failed on {sim}:\n{details}\n"
            f"(the assertions are in the cocotb log, in the captured stdout below)\n"
            f"{repro}\nresults: {results_xml}"
        )
    if not ran:
        _fail(f"no cocotb test ran (module {module!r}, testcase {testcase!r}, env TESTCASE "
              f"{os.environ.get('TESTCASE', '<unset>')!r}); results: {results_xml}")
    if sim_error:
        _fail(f"{sim} run reported an error although all cocotb tests passed: {sim_error}\n{repro}")
    return run


def read_results(path: Path) -> list[CocotbResult]:
    """Parse cocotb's JUnit XML results file."""
    out = []
    for case in ET.parse(path).iter("testcase"):
        status, message = "passed", ""
        for tag in ("failure", "error"):
            el = case.find(tag)
            if el is not None:
                status = "failed"
                message = (el.get("message") or el.text or "").strip()
                break
        else:
            if case.find("skipped") is not None:
                status = "skipped"
        out.append(CocotbResult(case.get("name", "?"), status, message))
    return out


# --------------------------------------------------------------------------- helpers


def _fail(message: str):
    import pytest

    try:
        pytest.fail(message, pytrace=False)
    except BaseException as exc:
        # Called from `except` blocks whose exception *message* already carries:
        # don't let pytest print it a second time as "During handling of ...".
        exc.__suppress_context__ = True
        raise


def _record(name: str, value) -> None:
    if _current_item is not None:
        _current_item.user_properties.append((name, value))


def _get_runner(sim: str):
    import warnings

    with warnings.catch_warnings():
        # "Python runners and associated APIs are an experimental feature"
        warnings.simplefilter("ignore", UserWarning)
        from cocotb.runner import get_runner
    try:
        return get_runner(sim)
    except SystemExit as exc:  # simulator executable not on PATH
        _fail(str(exc))


def _expected_results_file(test_dir: Path) -> Path:
    """Where cocotb 1.8.1's runner.test() writes results (it deletes it first)."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    if current:
        return test_dir / (current.split(":")[-1].split(" ")[0] + ".results.xml")
    return test_dir / "results.xml"


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def _icarus_support_files(build_dir: Path, top: str) -> Path:
    """Write Icarus' command file and the waveform module; return the module's path."""
    _write_if_changed(build_dir / "icarus_cmds.f", f"+timescale+{TIMESCALE}\n")
    module = build_dir / f"{ICARUS_WAVES_MODULE}.v"
    _write_if_changed(
        module,
        f"""// Generated by direkt_sim.runner: dumps {top} when run with +direkt_waves.
`timescale {TIMESCALE}
module {ICARUS_WAVES_MODULE};
    initial begin
        if ($test$plusargs("direkt_waves")) begin
            $dumpfile("{WAVES_FILE}");
            $dumpvars(0, {top});
        end
    end
endmodule
""",
    )
    return module


@contextmanager
def _locked(build_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on *build_dir* (blocks while another session has it)."""
    with open(build_dir / ".direkt-sim.lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"direkt-sim: waiting for another run using {build_dir}", flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _scrub_verilator_build(build_dir: Path, top: str) -> None:
    for p in build_dir.iterdir():
        if p.is_file() and (
            p.name.startswith(("Vtop", "verilated", "verilator"))
            or p.suffix in (".o", ".a", ".d", ".tmp")
            or p.name == top
        ):
            p.unlink(missing_ok=True)


@contextmanager
def _make_jobs() -> Iterator[None]:
    """Run Verilator's C++ build (make) with -j<N>; cocotb's runner passes none.

    Any MAKEFLAGS inherited from an outer make is replaced for the duration:
    its jobserver file descriptors do not survive into cocotb's subprocess.
    """
    jobs = os.environ.get("DIREKT_BUILD_JOBS", "").strip() or str(os.cpu_count() or 1)
    saved = {k: os.environ.get(k) for k in ("MAKEFLAGS", "OBJCACHE")}
    os.environ["MAKEFLAGS"] = f"-j{jobs}"
    # Every Verilator build compiles the same runtime (verilated*.cpp, cocotb's verilator.cpp):
    # through ccache each is compiled once per machine, which saves about 40 % of a bridge build.
    if saved["OBJCACHE"] is None and shutil.which("ccache"):
        os.environ["OBJCACHE"] = "ccache"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
