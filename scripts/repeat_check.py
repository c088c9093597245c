#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a run of six or more identical lines stands twice inside one folder (sim/, formal/).

    scripts/repeat_check.py [--lines N] [FOLDER ...]     default: sim formal
    scripts/repeat_check.py --self-test                  first shows a planted repeat fails

A line is compared with the whitespace around it removed; a run counts only when every line of it
holds something (blank lines break a run). Each run is reported once, at its longest, as two places
`file:line` and its length. The files are those git tracks in the folder with a source suffix
(.py, .sv, .svh, .v): the benches, their models and the proof harnesses, where one piece of logic
should stand in one place (a shared include, a module of direkt_sim).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".py", ".sv", ".svh", ".v")
DEFAULT_FOLDERS = ("sim", "formal")


def tracked(folder: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "--", folder], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"repeat_check: git ls-files {folder} failed: {out.stderr.strip()}")
    return [ROOT / f for f in out.stdout.split() if f.endswith(SUFFIXES)]


def repeats(files: list[Path], n: int) -> list[tuple[str, int, str, int, int]]:
    """(file a, line a, file b, line b, length) for each run of n or more identical lines standing twice."""
    places = defaultdict(list)  # window of n lines -> [(file, index of its first line)]
    for f in files:
        lines = [line.strip() for line in f.read_text(errors="replace").splitlines()]
        for i in range(len(lines) - n + 1):
            window = tuple(lines[i:i + n])
            if all(window):
                places[window].append((f, i))
    pairs = set()
    for where in places.values():
        for a in range(len(where)):
            for b in range(a + 1, len(where)):
                pairs.add((*where[a], *where[b]))
    runs = []
    for fa, ia, fb, ib in sorted(pairs, key=lambda p: (str(p[0]), p[1], str(p[2]), p[3])):
        if (fa, ia - 1, fb, ib - 1) in pairs:
            continue  # inside a run already reported from its first line
        length = n
        while (fa, ia + length - n + 1, fb, ib + length - n + 1) in pairs:
            length += 1
        runs.append((rel(fa), ia + 1, rel(fb), ib + 1, length))
    return runs


def rel(p: Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def self_test(n: int) -> None:
    shared = [f"    step_{k} = load(word, {k})" for k in range(n)]
    with tempfile.TemporaryDirectory() as d:
        a, b, c = Path(d, "a.py"), Path(d, "b.py"), Path(d, "c.py")
        a.write_text("\n".join(["def one():"] + shared + ["    return step_0"]) + "\n")
        b.write_text("\n".join(["def two():"] + shared + ["    return step_1"]) + "\n")
        # one line short of a run, and a blank line inside: neither counts
        c.write_text("\n".join(["def three():"] + shared[:n - 1] + ["", shared[-1]]) + "\n")
        found = repeats([a, b], n)
        if len(found) != 1 or found[0][4] != n:
            raise SystemExit(f"repeat_check: self-test: a planted run of {n} lines in two files gave {found}")
        if repeats([a, c], n) or repeats([c], n):
            raise SystemExit("repeat_check: self-test: a run one line short (or broken by a blank line) was reported")
    print(f"repeat_check: self-test: a planted run of {n} identical lines fails, one line short passes")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=list(DEFAULT_FOLDERS))
    ap.add_argument("--lines", type=int, default=6, help="the shortest run that counts (default 6)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.lines < 2:
        ap.error("--lines must be at least 2")
    if args.self_test:
        self_test(args.lines)
    failed = False
    for folder in args.folders:
        if not (ROOT / folder).is_dir():
            print(f"repeat_check: {folder}: no such folder in {ROOT}", file=sys.stderr)
            return 2
        files = tracked(folder)
        found = repeats(files, args.lines)
        for fa, la, fb, lb, length in found:
            print(f"repeat_check: {fa}:{la} and {fb}:{lb}: the same {length} lines")
        print(f"repeat_check: {folder}/: {len(files)} files, {len(found)} runs of {args.lines} or more identical lines "
              "standing twice")
        failed |= bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
