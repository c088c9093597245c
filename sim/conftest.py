# SPDX-License-Identifier: Apache-2.0
"""pytest glue for the direkt benches (rootdir: sim/)."""

import os
import sys
from pathlib import Path

import pytest

# pyproject's `pythonpath = ["."]` already does this; kept so that running a
# bench with an explicit `-c`/`--rootdir` elsewhere still finds direkt_sim.
_SIM_DIR = str(Path(__file__).resolve().parent)
if _SIM_DIR not in sys.path:
    sys.path.insert(0, _SIM_DIR)

from direkt_sim import runner  # noqa: E402


@pytest.fixture(autouse=True)
def _direkt_current_item(request):
    """Let the runner attach sim/seed/results/waves as properties of the test."""
    runner.set_current_item(request.node)
    yield
    runner.set_current_item(None)


def pytest_addoption(parser):
    parser.addoption("--smoke", action="store_true",
                     help="only the smoke set (direkt_sim/plan.py; make test runs it on Icarus)")


def pytest_collection_modifyitems(session, config, items):
    from direkt_sim import plan

    if config.getoption("--smoke"):
        missing = plan.smoke_missing([it.nodeid for it in items])
        # (a run narrowed to some benches collects only theirs)
        missing = [m for m in missing if any(it.nodeid.split("::")[0] == m.split("::")[0] for it in items)]
        if missing:
            raise pytest.UsageError("direkt_sim/plan.py SMOKE names tests that do not exist: " + ", ".join(missing))
        keep = set(plan.SMOKE)
        config.hook.pytest_deselected(items=[it for it in items if it.nodeid not in keep])
        items[:] = [it for it in items if it.nodeid in keep]
    # the longest benches first: under `pytest -n` the workers then finish together
    items.sort(key=lambda it: plan.rank(it.nodeid))


def pytest_configure(config):
    # make regress: a line per finished bench on the terminal (direkt_sim/progress.py)
    if os.environ.get("DIREKT_PROGRESS_FD", "").strip():
        from direkt_sim import progress

        progress.register(config)


def pytest_report_header(config):
    sim = os.environ.get("SIM", "").strip() or runner.DEFAULT_SIM
    seed = os.environ.get("SEED", "").strip() or "per-test default"
    waves = "1" if runner.waves_enabled() else "0"
    return [f"direkt-sim: SIM={sim} SEED={seed} WAVES={waves}"]


def pytest_terminal_summary(terminalreporter):
    waves = []
    for reports in terminalreporter.stats.values():
        for rep in reports:
            if getattr(rep, "when", None) != "call":
                continue
            for name, value in getattr(rep, "user_properties", ()):
                if name == "waves":
                    waves.append((rep.nodeid, value))
    if waves:
        terminalreporter.section("waveforms (open with gtkwave or surfer)")
        for nodeid, path in waves:
            terminalreporter.write_line(f"{nodeid}: {path}")
