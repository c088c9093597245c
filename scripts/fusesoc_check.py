#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs FuseSoC on every .core direkt ships: the reference IP's (ip/) and an overlay's (OVERLAY/ip).

    fusesoc_check.py [--self-test] [--sim] CORES_ROOT...

For each CORES_ROOT, every ``*.core`` in it is run with ``fusesoc --cores-root CORES_ROOT run
--target=lint <its name>`` (Verilator, -Wall: a warning fails it); with --sim also ``--target=sim``
(Icarus). FuseSoC is the venv's (scripts/requirements-ecosystem.txt); builds go to build/fusesoc/.
--self-test first shows that a lint warning in a core's top and a core naming a file that is not
there each make the run fail.
"""
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUSESOC = ROOT / ".venv" / "bin" / "fusesoc"
BUILD = ROOT / "build" / "fusesoc"


def core_name(core: Path) -> str:
    m = re.search(r"^name:\s*(\S+)\s*$", core.read_text(), re.M)
    if not m:
        raise SystemExit(f"fusesoc_check: {core}: no 'name:' line")
    return m.group(1)


def run(root: Path, core: Path, target: str, build: Path):
    """(ok, log) of one FuseSoC run."""
    cmd = [str(FUSESOC), "--cores-root", str(root), "run", "--build-root", str(build), f"--target={target}",
           core_name(core)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return r.returncode == 0, " ".join(cmd) + "\n" + r.stdout + r.stderr


def self_test():
    """A warning in a top and a missing file must each fail the lint target."""
    ip = ROOT / "ip"
    core = ip / "direkt_arbiter_rr_n2.core"
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for what in ("a lint warning in the top", "a file the core names is missing"):
            d = Path(tmp) / what.replace(" ", "_")
            d.mkdir()
            shutil.copy(core, d)
            for f in re.findall(r"^\s+- (\S+\.v)$", core.read_text(), re.M):
                shutil.copy(ip / f, d)
            top = d / "direkt_arbiter_rr_n2.v"
            if what.startswith("a lint"):
                text = top.read_text()
                # a 3-bit constant assigned to a 2-bit wire: Verilator says WIDTH
                top.write_text(text.replace(");\n", ");\n  wire [1:0] self_test_narrow = 3'd5;\n", 1))
            else:
                top.unlink()
            ok, _ = run(d, d / core.name, "lint", Path(tmp) / "build")
            if ok:
                failures.append(f"fusesoc_check: self-test: {what}: the lint target passed")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return False
    print("fusesoc_check: self-test: a lint warning in a core's top and a missing file each fail its lint target")
    return True


def main():
    args = sys.argv[1:]
    roots = [Path(a) for a in args if not a.startswith("--")]
    if not roots:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if not FUSESOC.exists():
        print(f"fusesoc_check: {FUSESOC} is missing: run `make setup` (scripts/requirements-ecosystem.txt)", file=sys.stderr)
        return 2
    if "--self-test" in args and not self_test():
        return 1
    targets = ["lint", "sim"] if "--sim" in args else ["lint"]
    failed = []
    count = 0
    start = time.monotonic()
    for root in roots:
        cores = sorted(root.glob("*.core"))
        if not cores:
            failed.append(f"{root}: no .core files")
            continue
        build = BUILD / re.sub(r"[^A-Za-z0-9_.-]", "_", str(root.resolve().relative_to(ROOT) if root.resolve().is_relative_to(ROOT)
                                                           else root.resolve()))
        for core in cores:
            for target in targets:
                ok, log = run(root, core, target, build)
                count += 1
                if not ok:
                    failed.append(f"{core}: --target={target} failed:\n{log.strip()}")
    if failed:
        print("\n\n".join(f"fusesoc_check: {f}" for f in failed), file=sys.stderr)
        return 1
    names = ", ".join(f"{r} ({len(list(r.glob('*.core')))} cores)" for r in roots)
    print(f"fusesoc_check: {count} FuseSoC runs passed (targets {', '.join(targets)}) for {names} in "
          f"{time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
