# SPDX-License-Identifier: Apache-2.0
"""Obtain the Verilog for a bench from direkt's Java emitter CLI.

Contract of the emitters (``org.direkt.hdl.examples.Emit`` for the HDL core's
example designs, ``org.direkt.generators.Emit`` for the generators)::

    java -cp <classpath> <main class> <example> [key=value ...] --out <dir>

It writes one ``<module>.v`` per Verilog module into ``<dir>`` and prints one
line per file written to stdout, the last line being ``top <module_name>``.
It exits non-zero with a message on stderr on any error.

Environment:

``JAVA_HOME``
    The JDK whose ``bin/java`` runs the emitter
    (default ``/usr/lib/jvm/temurin-25-jdk-amd64``).
``DIREKT_CLASSPATH``
    Classpath for the emitter (default: the Maven modules' ``target/classes``).
``DIREKT_EMIT_CMD``
    Development override: a shell-style command line that replaces
    ``java -cp <classpath> org.direkt.hdl.examples.Emit``; it gets the same
    arguments and must honour the same contract.
"""

from __future__ import annotations

import filecmp
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

SIM_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = SIM_DIR.parent

DEFAULT_JAVA_HOME = "/usr/lib/jvm/temurin-25-jdk-amd64"
# Each emitter: its main class and the Maven modules whose classes it needs.
EMITTERS = {
    "examples": ("org.direkt.hdl.examples.Emit", ("hdl-dsl",)),
    "generators": ("org.direkt.generators.Emit", ("contract", "hdl-dsl", "generators")),
}

# Generous: a cold JVM on a busy 2-core machine plus elaboration.
EMIT_TIMEOUT_S = 300

_TOP_LINE = re.compile(r"^top\s+([A-Za-z_][A-Za-z0-9_$]*)$")


class EmitError(Exception):
    """The emitter could not be run or broke its contract."""


@dataclass(frozen=True)
class Emitted:
    top: str
    sources: tuple[Path, ...]  # absolute, sorted by file name


def param_args(params: Mapping[str, object]) -> list[str]:
    """``key=value`` arguments in a deterministic (sorted) order."""
    return [f"{k}={_fmt(v)}" for k, v in sorted(params.items())]


def _fmt(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def emitter_command(emitter: str = "examples") -> list[str]:
    """The command line that precedes ``<example> [key=value ...] --out <dir>``."""
    if emitter not in EMITTERS:
        raise EmitError(f"unknown emitter {emitter!r} (known: {sorted(EMITTERS)})")
    main_class, modules = EMITTERS[emitter]
    override = os.environ.get("DIREKT_EMIT_CMD", "").strip()
    if override:
        return shlex.split(override)

    java_home = os.environ.get("JAVA_HOME") or DEFAULT_JAVA_HOME
    java = Path(java_home) / "bin" / "java"
    if not os.access(java, os.X_OK):
        raise EmitError(
            f"Java not found at {java} (JAVA_HOME={os.environ.get('JAVA_HOME', '<unset>')}).\n"
            f"Point JAVA_HOME at a JDK (default {DEFAULT_JAVA_HOME})."
        )

    classpath = os.environ.get("DIREKT_CLASSPATH", "").strip()
    if not classpath:
        dirs = [REPO_ROOT / m / "target" / "classes" for m in modules]
        for d in dirs:
            if not d.is_dir():
                raise EmitError(
                    f"The Java emitter is not built: {d} does not exist.\n"
                    "Run `make build` in the repository root first "
                    "(or set DIREKT_CLASSPATH to the emitter's classpath)."
                )
        classpath = os.pathsep.join(str(d) for d in dirs)
    return [str(java), "-cp", classpath, main_class]


def emit(example: str, params: Mapping[str, object], rtl_dir: Path, emitter: str = "examples") -> Emitted:
    """Run the emitter for *example* and leave its Verilog in *rtl_dir*.

    The emitter writes into a scratch directory next to *rtl_dir*; files are
    then copied into *rtl_dir* only where their content changed (and stale
    ones are removed), so unchanged Verilog keeps its timestamp and the
    simulators' incremental builds stay incremental.
    """
    rtl_dir = Path(rtl_dir)
    scratch = rtl_dir.parent / (rtl_dir.name + ".emit-tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)

    cmd = emitter_command(emitter) + [example] + param_args(params) + ["--out", str(scratch)]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=EMIT_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError as exc:
        raise EmitError(f"cannot run the emitter: {exc}\ncommand: {shlex.join(cmd)}") from exc
    except subprocess.TimeoutExpired as exc:
        raise EmitError(f"emitter timed out after {EMIT_TIMEOUT_S} s\ncommand: {shlex.join(cmd)}") from exc

    def broken(why: str) -> EmitError:
        return EmitError(
            f"{why}\ncommand: {shlex.join(cmd)}\nexit code: {proc.returncode}\n"
            f"--- stdout ---\n{proc.stdout.rstrip()}\n--- stderr ---\n{proc.stderr.rstrip()}"
        )

    if proc.returncode != 0:
        raise broken(f"emitter failed for example {example!r}")

    lines = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    if not lines:
        raise broken("emitter printed nothing (expected file lines and a final 'top <module>')")
    m = _TOP_LINE.match(lines[-1])
    if not m:
        raise broken(f"emitter's last stdout line is {lines[-1]!r}, expected 'top <module>'")
    top = m.group(1)

    written = sorted(p for p in scratch.iterdir() if p.is_file())
    verilog = [p for p in written if p.suffix == ".v"]
    if not any(p.name == f"{top}.v" for p in verilog):
        raise broken(f"emitter named top module {top!r} but wrote no {top}.v")
    if len(lines) - 1 != len(written):
        raise broken(
            f"emitter printed {len(lines) - 1} file line(s) but wrote {len(written)} file(s)"
        )

    _sync_dir(scratch, rtl_dir)
    shutil.rmtree(scratch, ignore_errors=True)
    return Emitted(top=top, sources=tuple(rtl_dir / p.name for p in verilog))


def _sync_dir(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    new_names = {p.name for p in src.iterdir() if p.is_file()}
    for old in dst.iterdir():
        if old.is_file() and old.name not in new_names:
            old.unlink()
    for name in sorted(new_names):
        s, d = src / name, dst / name
        if d.is_file() and filecmp.cmp(s, d, shallow=False):
            continue
        shutil.copyfile(s, d)


def describe(params: Mapping[str, object]) -> str:
    """Deterministic directory-name form of a parameter set, e.g. ``width=8``."""
    if not params:
        return "default"
    return ",".join(param_args(params))


__all__: Sequence[str] = ["EmitError", "Emitted", "emit", "emitter_command", "describe", "param_args"]
