#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks an overlay's register map export against its manifest.

    rdl_check.py OVERLAY_DIR [--self-test]

* ``direkt_bridge_csr.rdl`` is compiled with systemrdl-compiler; every register the manifest lists
  (``layout.csr.registers``) must be there and nothing else, at byte address 4 x its word offset,
  with the manifest's description, and with exactly the fields of its Layout word (or one 32-bit
  ``value``): same bits, reset value (the manifest's ``reset``; none where it is null, as a reset keeps the
  bring-up registers), description, and software access
  as the register's kind says (ro: read; wc: read/write, any write clears; w1: write only, single
  pulse; rw: read/write; ``reserved`` and ``ignored`` fields read only).
* ``include/direkt_bridge_csr.h`` (PeakRDL-cheader) is compiled by gcc together with a program that
  asserts, for every register, its offset in the header's struct, and for every field its bit
  position, width and reset macros.
* ``doc/registers/`` (PeakRDL html) has its index and names every register.

With --self-test the comparison is first run on RDL files changed on purpose (a register moved, a
reset value, an access, a field's bits, a register left out); each must be reported.
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from systemrdl import RDLCompileError, RDLCompiler
from systemrdl.rdltypes import OnWriteType

RDL = "direkt_bridge_csr.rdl"
HEADER = "include/direkt_bridge_csr.h"
HTML = "doc/registers"
PREFIX = "DIREKT_BRIDGE_CSR"


def manifest_registers(manifest):
    """name -> (byte address, access, doc, [(field, lsb, width, reset, doc)])."""
    layout = manifest["layout"]
    regs = {}
    for r in layout["csr"]["registers"]:
        if "word" in r:
            word = layout["words"][r["word"]]
            fields = [(name, f["lsb"], f["width"], None if r["reset"] is None else (r["reset"] >> f["lsb"]) & ((1 << f["width"]) - 1),
                       f["doc"]) for name, f in word["fields"].items()]
        else:
            fields = [("value", 0, 32, r["reset"], r["doc"])]
        regs[r["name"]] = (4 * r["offset"], r["access"], r["doc"], fields)
    return regs


def expected_access(kind, field):
    """(sw, onwrite, singlepulse) a field of a register of this kind must have."""
    if field in ("reserved", "ignored"):
        return ("r", None, False)
    return {"ro": ("r", None, False), "wc": ("rw", "wclr", False), "w1": ("w", None, True), "rw": ("rw", None, False),
            "wo": ("w", None, False)}[kind]


def compare(rdl_path, manifest):
    """Every difference between the compiled RDL and the manifest, as messages (empty: they agree)."""
    rdlc = RDLCompiler()
    try:
        rdlc.compile_file(str(rdl_path))
        top = rdlc.elaborate().top
    except RDLCompileError as e:
        return [f"{rdl_path}: does not compile: {e} (systemrdl-compiler's messages are above)"]
    want = manifest_registers(manifest)
    problems = []
    seen = set()
    for reg in top.registers():
        name = reg.inst_name
        seen.add(name)
        if name not in want:
            problems.append(f"{name}: in the RDL, not in the manifest")
            continue
        address, kind, doc, fields = want[name]
        if reg.absolute_address != address:
            problems.append(f"{name}: RDL address {reg.absolute_address:#x}, manifest {address:#x} (word {address // 4:#x})")
        if reg.get_property("desc") != doc:
            problems.append(f"{name}: description differs: {reg.get_property('desc')!r} vs {doc!r}")
        got = {f.inst_name: f for f in reg.fields()}
        if set(got) != {f[0] for f in fields}:
            problems.append(f"{name}: fields {sorted(got)} in the RDL, {sorted(f[0] for f in fields)} in the manifest")
            continue
        for fname, lsb, width, reset, fdoc in fields:
            f = got[fname]
            if (f.lsb, f.width) != (lsb, width):
                problems.append(f"{name}.{fname}: RDL bits [{f.msb}:{f.lsb}], manifest [{lsb + width - 1}:{lsb}]")
            if f.get_property("reset") != reset:
                problems.append(f"{name}.{fname}: RDL reset {f.get_property('reset')}, manifest {reset}")
            if f.get_property("desc") != fdoc:
                problems.append(f"{name}.{fname}: description differs")
            sw = f.get_property("sw").name
            onwrite = f.get_property("onwrite")
            got_access = (sw, onwrite.name if isinstance(onwrite, OnWriteType) else None, bool(f.get_property("singlepulse")))
            if got_access != expected_access(kind, fname):
                problems.append(f"{name}.{fname}: RDL access {got_access}, a '{kind}' register's field needs "
                                f"{expected_access(kind, fname)}")
    for name in sorted(set(want) - seen):
        problems.append(f"{name}: in the manifest, not in the RDL")
    return problems


def check_header(overlay, manifest):
    """Compiles the C header with asserts of every register's offset and every field's macros."""
    lines = ["#include <stddef.h>", f'#include "{(overlay / HEADER).resolve()}"']
    for name, (address, _kind, _doc, fields) in manifest_registers(manifest).items():
        lines.append(f"_Static_assert(offsetof(direkt_bridge_csr_t, {name}) == {address}, \"{name} offset\");")
        for fname, lsb, width, reset, _ in fields:
            macro = f"{PREFIX}__{name}__{fname.upper()}"
            lines.append(f"_Static_assert({macro}_bp == {lsb}, \"{macro} position\");")
            lines.append(f"_Static_assert({macro}_bw == {width}, \"{macro} width\");")
            if reset is not None:
                lines.append(f"_Static_assert({macro}_reset == {reset}u, \"{macro} reset\");")
            else:
                lines.append(f"#ifdef {macro}_reset\n#error \"{macro} has a reset value; a reset keeps the register\"\n#endif")
    lines.append("int main(void) { return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "check.c"
        src.write_text("\n".join(lines) + "\n")
        r = subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", "-fsyntax-only", str(src)], capture_output=True, text=True)
    if r.returncode != 0:
        return [f"{HEADER}: gcc: " + line for line in (r.stderr or r.stdout).strip().splitlines()[:20]]
    return []


def check_html(overlay, manifest):
    index = overlay / HTML / "index.html"
    if not index.is_file():
        return [f"{HTML}/index.html: missing"]
    text = "".join(p.read_text(errors="replace") for p in (overlay / HTML).rglob("*") if p.suffix in (".html", ".js", ".json"))
    missing = [r["name"] for r in manifest["layout"]["csr"]["registers"] if not re.search(r"\b" + r["name"] + r"\b", text)]
    return [f"{HTML}: no page names {', '.join(missing)}"] if missing else []


def self_test(overlay, manifest):
    """The comparison must report each of these changes to the RDL."""
    rdl = (overlay / RDL).read_text()
    regs = manifest["layout"]["csr"]["registers"]
    last = regs[-1]["name"]
    changes = {
        "a register moved": (r"\} MAGIC @ 0x0;", "} MAGIC @ 0x20;"),
        "a reset value": (r"\} window_entries\[7:0\] = 0x[0-9A-F]+;", "} window_entries[7:0] = 0x7;"),
        "an access": (r"sw = rw;\n            onwrite = wclr;", "sw = rw;"),
        "a field's bits": (r"\} inflight\[15:8\]", "} inflight[14:8]"),
        "a register left out": (r"\n    reg \{\n(?:(?!\n    reg \{).)*?\} " + last + r" @ 0x[0-9A-F]+;\n", "\n"),
    }
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for what, (pattern, replacement) in changes.items():
            changed, n = re.subn(pattern, replacement, rdl, count=1, flags=re.S)
            if n != 1:
                failures.append(f"self-test: could not make '{what}' (pattern not found)")
                continue
            path = Path(tmp) / RDL
            path.write_text(changed)
            if not compare(path, manifest):
                failures.append(f"self-test: '{what}' was not reported")
    return failures


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    overlay = Path(args[0])
    manifest = json.loads((overlay / "direkt-overlay.json").read_text())
    if "--self-test" in sys.argv:
        failures = self_test(overlay, manifest)
        if failures:
            print("\n".join(failures), file=sys.stderr)
            return 1
        print("rdl_check: self-test: a moved register, a reset value, an access, a field's bits and a missing register"
              " are each reported")
    problems = compare(overlay / RDL, manifest) + check_header(overlay, manifest) + check_html(overlay, manifest)
    if problems:
        print("\n".join(f"rdl_check: {p}" for p in problems), file=sys.stderr)
        return 1
    n = len(manifest["layout"]["csr"]["registers"])
    fields = sum(len(r[3]) for r in manifest_registers(manifest).values())
    print(f"rdl_check: {overlay / RDL} compiles (systemrdl-compiler) and matches the manifest: {n} registers, {fields} fields"
          f" (address, bits, reset, access, description); {HEADER} agrees (gcc); {HTML}/ names every register")
    return 0


if __name__ == "__main__":
    sys.exit(main())
