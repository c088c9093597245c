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
        if self.fd is None:
            return
        try:
            os.write(self.fd, (f"[{self.label}] {line}\n").encode())
        except OSError:
            self.fd = None  # the terminal went away (a closed pipe): the run goes on without its progress lines

    def pytest_collection_finish(self, session):
        if session.items:
            self._collected([item.nodeid for item in session.items])

    def pytest_xdist_node_collection_finished(self, node, ids):
        """Under pytest-xdist the controller collects nothing itself: each worker reports the same ids."""
        if self.start is None:
            self._collected(list(ids))

    def _collected(self, ids):
        self.pending = ids
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
    """Adds the progress lines to this pytest run (see the module comment); under pytest-xdist, to the
    controller only (it sees every report)."""
    if hasattr(config, "workerinput"):
        return
    fd = int(os.environ.get("DIREKT_PROGRESS_FD", "2"))
    history = os.environ.get("DIREKT_PROGRESS_HISTORY", "").strip()
    label = os.environ.get("DIREKT_PROGRESS_LABEL", "").strip() or os.environ.get("SIM", "").strip() or "benches"
    try:
        os.fstat(fd)
    except OSError:
        sys.stderr.write(f"direkt_sim.progress: DIREKT_PROGRESS_FD={fd} is not open; progress goes to stderr\n")
        fd = 2
    config.pluginmanager.register(Progress(label, fd, Path(history) if history else None), "direkt-progress")


def self_test() -> int:
    """Runs pytest on two throwaway tests with the progress lines on: each bench's line, then the
    estimate from the recorded times on a second run. Returns 0 when every line is as it must be."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "conftest.py").write_text("import sys\nsys.path.insert(0, %r)\nfrom direkt_sim import progress\n\n\n"
                                       "def pytest_configure(config):\n    progress.register(config)\n"
                                       % str(Path(__file__).resolve().parent.parent))
        (d / "test_two.py").write_text("import time\n\n\ndef test_a():\n    time.sleep(0.2)\n\n\n"
                                       "def test_b():\n    assert False\n")
        lines = []
        for run in range(3):  # the third under pytest-xdist, two workers, as make regress runs
            r_fd, w_fd = os.pipe()
            env = dict(os.environ, DIREKT_PROGRESS_FD=str(w_fd), DIREKT_PROGRESS_LABEL="selftest",
                       DIREKT_PROGRESS_HISTORY=str(d / "times.json"))
            xdist = ["-n", "2"] if run == 2 else []
            p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *xdist, str(d)], cwd=d, env=env,
                               pass_fds=(w_fd,), capture_output=True, text=True)
            os.close(w_fd)
            with os.fdopen(r_fd) as f:
                lines.append(f.read().splitlines())
            if p.returncode != 1:
                print(f"progress self-test: pytest exited {p.returncode}, expected 1 (one test fails)\n{p.stdout}{p.stderr}",
                      file=sys.stderr)
                return 1
        first, second, xdist = lines
        checks = [
            (len(first) == 3 and first[0] == "[selftest] 0/2 benches", f"first run's lines: {first}"),
            (first[1].startswith("[selftest] 1/2 benches, ") and "test_a passed" in first[1], f"after test_a: {first[1:2]}"),
            (first[2].startswith("[selftest] 2/2 benches, ") and ", 1 failed" in first[2] and "test_b failed" in first[2],
             f"after test_b: {first[2:3]}"),
            (second and second[0].startswith("[selftest] 0/2 benches, ~") and "by the last run's times" in second[0],
             f"second run's estimate: {second[:1]}"),
            ((d / "times.json").is_file() and len(json.loads((d / "times.json").read_text())) == 2, "recorded times"),
            (len(xdist) == 3 and xdist[0].startswith("[selftest] 0/2 benches") and xdist[2].startswith("[selftest] 2/2 benches, "),
             f"under pytest-xdist: {xdist}"),
        ]
        bad = [what for ok, what in checks if not ok]
        if bad:
            print("progress self-test failed: " + "; ".join(bad), file=sys.stderr)
            return 1
    print("progress self-test: a line per finished bench (done / total, elapsed, left, failures) and the next run's estimate,"
          " also under pytest-xdist")
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else 2)
