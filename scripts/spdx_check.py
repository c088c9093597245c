#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that every source file of the project names its licence with an SPDX line.

Which licence a file carries depends on where it is:
  * the importer kernel module (host-runtime/driver/):   GPL-2.0 OR MIT (the kernel needs GPL-compatible code)
  * generated output (ip/, the emitter's golden files):  0BSD (users ship it in their BSPs without conditions)
  * everything else:                                      Apache-2.0 (LICENSE)
Test fixtures shaped after vendors' BSP trees (bsp-kinds/) are data, not direkt's source, and are skipped.

  scripts/spdx_check.py            check every tracked source file (exit 1 naming each miss)
  scripts/spdx_check.py --fix      add the expected line where it is missing, then check
  scripts/spdx_check.py --self-test  show that the check fails on a file without its line
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = re.compile(r"(\.(java|py|sh|c|h|cl|v|sv|tcl|g4|vm|toml|sby)|(^|/)(Makefile|Kbuild|dkms\.conf|pom\.xml|requirements\.txt))$")
SCRIPTS = ("bin/", ".ci/")
SKIP = re.compile(r"/bsp-kinds/")
SPDX = re.compile(r"SPDX-License-Identifier:\s*([^*\n]+?)\s*(\*/|-->|\*#)?\s*$")
HEAD_LINES = 6


# the module's headers shared with user space may carry the kernel's syscall note
DRIVER_ALSO = {"(GPL-2.0 WITH Linux-syscall-note) OR MIT"}


def expected(path: str) -> str:
    if path.startswith("host-runtime/driver/"):
        return "GPL-2.0 OR MIT"
    if path.startswith("ip/") or "/golden/" in path:
        return "0BSD"
    return "Apache-2.0"


def is_source(path: str) -> bool:
    return (SOURCE.search(path) is not None or path.startswith(SCRIPTS)) and not SKIP.search(path)


def found(text: str):
    for line in text.splitlines()[:HEAD_LINES]:
        m = SPDX.search(line)
        if m:
            return m.group(1)
    return None


def comment(path: str, licence: str) -> str:
    tag = f"SPDX-License-Identifier: {licence}"
    if path.endswith((".java", ".c", ".h", ".cl", ".v", ".sv", ".g4")):
        return f"// {tag}\n"
    if path.endswith("pom.xml"):
        return f"<!-- {tag} -->\n"
    if path.endswith(".vm"):  # a Velocity line comment: it takes its newline with it, the output has no trace of it
        return f"## {tag}\n"
    return f"# {tag}\n"


def add(path: Path, rel: str, licence: str) -> None:
    text = path.read_text()
    line = comment(rel, licence)
    lines = text.splitlines(keepends=True)
    # after a shebang or an XML declaration, which must stay first
    at = 1 if lines and (lines[0].startswith("#!") or lines[0].startswith("<?xml")) else 0
    lines.insert(at, line)
    path.write_text("".join(lines))


def check(root: Path, files, fix: bool) -> list[str]:
    problems = []
    for rel in files:
        p = root / rel
        if not p.is_file() or not is_source(rel):
            continue
        want = expected(rel)
        got = found(p.read_text(errors="replace"))
        if got is None and fix:
            add(p, rel, want)
            got = found(p.read_text())
        if got is None:
            problems.append(f"{rel}: no SPDX-License-Identifier line in its first {HEAD_LINES} lines (expected {want})")
        elif got != want and not (want == "GPL-2.0 OR MIT" and rel.endswith(".h") and got in DRIVER_ALSO):
            problems.append(f"{rel}: SPDX-License-Identifier is '{got}', expected '{want}'")
    if not (root / "LICENSE").is_file():
        problems.append("LICENSE: missing at the repository root")
    return problems


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def self_test() -> int:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "LICENSE").write_text("licence\n")
        (root / "a").mkdir()
        (root / "a/Good.java").write_text("// SPDX-License-Identifier: Apache-2.0\nclass Good {}\n")
        (root / "a/Bad.java").write_text("class Bad {}\n")
        (root / "ip").mkdir()
        (root / "ip/x.v").write_text("// SPDX-License-Identifier: Apache-2.0\nmodule x; endmodule\n")
        (root / "run.sh").write_text("#!/bin/sh\necho\n")
        files = ["a/Good.java", "a/Bad.java", "ip/x.v", "run.sh"]
        got = check(root, files, fix=False)
        want = {"a/Bad.java", "ip/x.v", "run.sh"}
        named = {p.split(":")[0] for p in got}
        if named != want:
            print(f"spdx_check self-test: expected misses in {sorted(want)}, the check reported {got}")
            return 1
        check(root, ["a/Bad.java", "run.sh"], fix=True)
        if check(root, ["a/Bad.java", "run.sh"], fix=False) or not (root / "run.sh").read_text().startswith("#!/bin/sh\n# SPDX"):
            print("spdx_check self-test: --fix did not add the lines where they belong")
            return 1
    print("spdx_check self-test: a missing line, a wrong licence and a script's line after its shebang are all caught")
    return 0


def main(argv: list[str]) -> int:
    if "--self-test" in argv:
        return self_test()
    files = tracked(ROOT)
    problems = check(ROOT, files, fix="--fix" in argv)
    for p in problems:
        print(f"spdx_check: {p}")
    n = sum(1 for f in files if is_source(f) and (ROOT / f).is_file())
    if problems:
        print(f"spdx_check: {len(problems)} of {n} source files lack the licence line they need (scripts/spdx_check.py --fix adds them)")
        return 1
    print(f"spdx_check: {n} source files, each with its SPDX licence line (Apache-2.0; the driver GPL-2.0 OR MIT; generated output 0BSD)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
