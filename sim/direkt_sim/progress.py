# SPDX-License-Identifier: Apache-2.0
"""Progress of a long bench run, one line per finished bench: done / total, elapsed, time left.

On when ``DIREKT_PROGRESS_FD`` is set (sim/conftest.py registers it; ``make regress`` sets it). The
lines go to that file descriptor (``make regress`` hands the terminal's there while pytest's own
output goes to the log), each starting with ``DIREKT_PROGRESS_LABEL`` (the simulator).

Time left is the recorded duration of each bench still to run, from the last run that finished it
(kept in ``DIREKT_PROGRESS_HISTORY``, a JSON file; ``make regress`` keeps one per simulator under
sim/build/); a bench never recorded counts as the mean of those done in this run.
"""
import json
import os
import sys
import time
from pathlib import Path


def _fmt(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}h{s // 60 % 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    def __init__(self, label: str, fd: int, history: Path | None):
        self.label = label
        self.fd = fd
        self.history_path = history
        self.history = {}
        if history is not None and history.is_file():
            try:
                self.history = {k: float(v) for k, v in json.loads(history.read_text()).items()}
            except (ValueError, AttributeError):
                self.history = {}  # an unreadable record only costs the estimate
        self.pending = []
        self.durations = {}
        self.failed = 0
        self.start = None

    def write(self, line: str):
        os.write(self.fd, (f"[{self.label}] {line}\n").encode())

    def pytest_collection_finish(self, session):
        self.pending = [item.nodeid for item in session.items]
        self.start = time.monotonic()
        known = sum(1 for n in self.pending if n in self.history)
        est = sum(self.history.get(n, 0.0) for n in self.pending)
        self.write(f"0/{len(self.pending)} benches" + (f", ~{_fmt(est)} by the last run's times" if known else ""))

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            if report.nodeid not in self.pending:
                return
            self.pending.remove(report.nodeid)
            self.durations[report.nodeid] = report.duration
            if report.outcome == "failed":
                self.failed += 1
            done = len(self.durations)
            total = done + len(self.pending)
            elapsed = time.monotonic() - self.start
            mean = sum(self.durations.values()) / done
            left = sum(self.history.get(n, mean) for n in self.pending)
            self.write(f"{done}/{total} benches, {_fmt(elapsed)} elapsed, ~{_fmt(left)} left"
                       + (f", {self.failed} failed" if self.failed else "")
                       + f"  ({report.nodeid.split('::')[-1]} {report.outcome} in {_fmt(report.duration)})")

    def pytest_sessionfinish(self, session, exitstatus):
        if self.history_path is None or not self.durations:
            return
        merged = dict(self.history)
        merged.update(self.durations)
        self.history_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.history_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
        tmp.replace(self.history_path)


def register(config):
    """Adds the progress lines to this pytest run (see the module comment)."""
    fd = int(os.environ.get("DIREKT_PROGRESS_FD", "2"))
    history = os.environ.get("DIREKT_PROGRESS_HISTORY", "").strip()
    label = os.environ.get("DIREKT_PROGRESS_LABEL", "").strip() or os.environ.get("SIM", "").strip() or "benches"
    try:
        os.fstat(fd)
    except OSError:
        sys.stderr.write(f"direkt_sim.progress: DIREKT_PROGRESS_FD={fd} is not open; progress goes to stderr\n")
        fd = 2
    config.pluginmanager.register(Progress(label, fd, Path(history) if history else None), "direkt-progress")
