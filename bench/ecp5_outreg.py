#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Pack the register after an ECP5 block RAM's read port into the RAM's own output register.

    python3 bench/ecp5_outreg.py NETLIST.json [OUT.json]    (in place without OUT)
    python3 bench/ecp5_outreg.py --self-test

Quartus puts a register that takes an M20K's read data, and nothing else, into the block's output
register; that is why the generators write such a register after every block RAM read (the region
walker's page table: rq_frame). Yosys's synth_ecp5 leaves it in the fabric and maps the DP16KD with
REGMODE NOREG, and nextpnr then times the read as the RAM's unregistered clock-to-output (5.83 ns)
plus the routing to wherever the placer put the flip-flop. bench/timing.py runs this pass on the
netlist between Yosys and nextpnr, so the ECP5 figure charges a block RAM read as the Intel flow
builds it.

A read port (A or B) of a DP16KD with REGMODE NOREG is packed when every one of its data outputs
that is used drives exactly one thing, the DI input of a TRELLIS_FF that
  - is clocked by the port's clock, not inverted (CLKMUX CLK),
  - has no set or reset (LSR absent or constant 0), and either no clock enable (CE absent or
    constant 1, or CEMUX 1) or, with CEMUX CE, the same clock enable net as every other flip-flop of
    the port, so it holds what the RAM's output register would: the word read, a cycle later, or
    kept while the enable is low (an M20K's output register has a clock enable of its own too).
Each such flip-flop goes; its output net is driven by the RAM's output pin, the port's REGMODE
becomes OUTREG and the flip-flops' clock enable, if any, becomes the output register's clock
enable OCE (the port's OCE and reset RST are checked to be constant 1 and 0 first). A RAM 36 bits
wide (DATA_WIDTH_B 36: pseudo dual-port, port B reads) puts its word out on DOA and DOB together,
both in port B's clock: its DOA and DOB outputs are one read port, packed together or not at all,
and both halves' REGMODE and OCE change. A port with any other use of its data stays as it was.
The pass changes nothing else, and says what it did per RAM port.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Optional


def _const(bits, value: str) -> bool:
    return bits is None or bits == [value]


def _width(value) -> Optional[int]:
    """A DATA_WIDTH parameter as Yosys writes it (a binary string) or as a number."""
    text = str(value if value is not None else "").strip()
    if not text:
        return None
    try:
        return int(text, 2) if set(text) <= {"0", "1"} and len(text) > 8 else int(text)
    except ValueError:
        return None


def pack(netlist: dict) -> list[str]:
    """Packs in place; one line per block RAM read port that was looked at."""
    notes: list[str] = []
    for mod_name, mod in netlist.get("modules", {}).items():
        cells = mod.get("cells", {})
        sinks: dict[int, list[tuple[str, str]]] = defaultdict(list)
        for cell_name, cell in cells.items():
            dirs = cell.get("port_directions", {})
            for port, bits in cell.get("connections", {}).items():
                if dirs.get(port) != "output":
                    for b in bits:
                        if isinstance(b, int):
                            sinks[b].append((cell_name, port))
        for port_name, port in mod.get("ports", {}).items():
            if port.get("direction") != "input":
                for b in port.get("bits", []):
                    if isinstance(b, int):
                        sinks[b].append(("<port>", port_name))
        for name in sorted(cells):
            ram = cells.get(name)
            if ram is None or ram.get("type") != "DP16KD":
                continue
            conn, params = ram["connections"], ram["parameters"]
            # 36 bits wide the RAM is pseudo dual-port: port B reads, and its word comes out on DOA and
            # DOB together (both output registers, both in port B's clock: nextpnr times them so).
            wide = _width(params.get("DATA_WIDTH_B")) == 36
            for side in ("B",) if wide else "AB":
                halves = "AB" if wide else side
                if any(params.get(f"REGMODE_{h}") != "NOREG" for h in halves):
                    continue
                where = f"{mod_name}: {name} port {side}" + (" (36 bits wide: DOA and DOB)" if wide else "")
                outputs = sorted((p for p in conn if p[:3] in {f"DO{h}" for h in halves}), key=lambda p: (p[2], int(p[3:])))
                used = [(p, conn[p][0]) for p in outputs if isinstance(conn[p][0], int) and sinks.get(conn[p][0])]
                if not used:
                    continue
                if wide and conn.get("CLKA") != conn.get("CLKB"):
                    notes.append(f"{where}: not packed (its halves have different clocks)")
                    continue
                if not (_const(conn.get(f"OCE{side}"), "1") and _const(conn.get(f"RST{side}"), "0")):
                    notes.append(f"{where}: not packed (output register enable or reset in use)")
                    continue
                plan, why, enables = [], None, set()
                for pin, bit in used:
                    users = sinks[bit]
                    ff_name, ff_port = users[0]
                    ff = cells.get(ff_name)
                    if len(users) != 1 or ff is None or ff.get("type") != "TRELLIS_FF" or ff_port != "DI":
                        why = f"{pin} drives {len(users)} input(s), not one flip-flop's DI"
                    else:
                        fc, fp = ff["connections"], ff["parameters"]
                        if fc.get("CLK") != conn.get(f"CLK{side}") or fp.get("CLKMUX", "CLK") != "CLK":
                            why = f"{pin}'s flip-flop {ff_name} has another clock"
                        elif not (_const(fc.get("CE"), "1") or str(fp.get("CEMUX", "")).strip() in ("1", "CE")):
                            why = f"{pin}'s flip-flop {ff_name} has an inverted clock enable"
                        elif not _const(fc.get("LSR"), "0"):
                            why = f"{pin}'s flip-flop {ff_name} has a set or reset"
                    if why:
                        break
                    enabled = not (_const(fc.get("CE"), "1") or str(fp.get("CEMUX", "")).strip() == "1")
                    enables.add(tuple(fc["CE"]) if enabled else None)
                    plan.append((pin, ff_name))
                if not why and len(enables) > 1:
                    why = "its flip-flops have different clock enables"
                if why:
                    notes.append(f"{where}: not packed ({why})")
                    continue
                for pin, ff_name in plan:
                    conn[pin] = cells.pop(ff_name)["connections"]["Q"]
                enable = enables.pop()
                for h in halves:
                    params[f"REGMODE_{h}"] = "OUTREG"
                    if enable is not None or h != side:
                        conn[f"OCE{h}"] = list(enable) if enable is not None else ["1"]
                notes.append(f"{where}: {len(plan)} flip-flops packed into the output register"
                             + (" (their clock enable its OCE)" if enable is not None else ""))
    return notes


def pack_file(src: Path, dst: Path) -> list[str]:
    netlist = json.loads(src.read_text())
    notes = pack(netlist)
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.write_text(json.dumps(netlist))
    tmp.replace(dst)
    return notes


def _self_test() -> int:
    """A RAM whose two used outputs each feed a plain flip-flop is packed, and so is one whose two
    flip-flops share a clock enable (it becomes OCE); each way of breaking one condition leaves the
    netlist as it was."""
    def netlist(both=None, **ff_changes):
        ram_conn = {"CLKB": [2], "OCEB": ["1"], "RSTB": ["0"], "DOB0": [10], "DOB1": [11], "DOB2": [12]}
        cells = {"ram": {"type": "DP16KD", "parameters": {"REGMODE_A": "NOREG", "REGMODE_B": "NOREG"},
                         "port_directions": {"CLKB": "input", "OCEB": "input", "RSTB": "input",
                                             "DOB0": "output", "DOB1": "output", "DOB2": "output"},
                         "connections": ram_conn}}
        for i in (0, 1):
            conn = {"CLK": [2], "DI": [10 + i], "LSR": ["0"], "Q": [20 + i]}
            params = {"CLKMUX": "CLK", "CEMUX": "1 "}
            if both:
                conn.update(both.get("conn", {}))
                params.update(both.get("params", {}))
            if i == 1:
                conn.update(ff_changes.get("conn", {}))
                params.update(ff_changes.get("params", {}))
            cells[f"ff{i}"] = {"type": "TRELLIS_FF", "parameters": params, "connections": conn,
                               "port_directions": {"CLK": "input", "DI": "input", "LSR": "input", "CE": "input",
                                                   "Q": "output"}}
        cells["lut"] = {"type": "LUT4", "parameters": {}, "port_directions": {"A": "input", "B": "input", "Z": "output"},
                        "connections": {"A": [20], "B": [21], "Z": [30]}}
        if "extra_sink" in ff_changes:
            cells["lut"]["connections"]["B"] = [11]
        return {"modules": {"top": {"ports": {"o": {"direction": "output", "bits": [30]}}, "cells": cells}}}

    failures = []
    good = netlist()
    notes = pack(good)
    cells = good["modules"]["top"]["cells"]
    if not (cells["ram"]["parameters"]["REGMODE_B"] == "OUTREG" and "ff0" not in cells and "ff1" not in cells
            and cells["ram"]["connections"]["DOB0"] == [20] and cells["ram"]["connections"]["DOB1"] == [21]
            and cells["ram"]["parameters"]["REGMODE_A"] == "NOREG"):
        failures.append(f"plain registers not packed: {notes}")
    enabled = netlist(both={"conn": {"CE": [5]}, "params": {"CEMUX": "CE"}})
    notes = pack(enabled)
    cells = enabled["modules"]["top"]["cells"]
    if not (cells["ram"]["parameters"]["REGMODE_B"] == "OUTREG" and "ff0" not in cells and "ff1" not in cells
            and cells["ram"]["connections"]["OCEB"] == [5]):
        failures.append(f"registers sharing a clock enable not packed with it as OCE: {notes}")
    wide = netlist(both={"conn": {"CE": [5]}, "params": {"CEMUX": "CE"}})
    ram = wide["modules"]["top"]["cells"]["ram"]
    ram["parameters"].update(DATA_WIDTH_A="00000000000000000000000000100100", DATA_WIDTH_B="00000000000000000000000000100100")
    ram["connections"].update(CLKA=[2], OCEA=["0"], RSTA=["0"], DOA0=[10])
    ram["connections"]["DOB0"] = [13]
    ram["port_directions"].update(CLKA="input", OCEA="input", RSTA="input", DOA0="output")
    notes = pack(wide)
    cells = wide["modules"]["top"]["cells"]
    if not (cells["ram"]["parameters"]["REGMODE_A"] == "OUTREG" and cells["ram"]["parameters"]["REGMODE_B"] == "OUTREG"
            and "ff0" not in cells and "ff1" not in cells and cells["ram"]["connections"]["DOA0"] == [20]
            and cells["ram"]["connections"]["OCEA"] == [5] and cells["ram"]["connections"]["OCEB"] == [5]):
        failures.append(f"a 36-bit RAM's read registers on DOA and DOB not packed together: {notes}")
    shared_ce = {"conn": {"CE": [5]}, "params": {"CEMUX": "CE"}}
    for what, changes in {"another clock": {"conn": {"CLK": [3]}},
                          "an inverted clock": {"params": {"CLKMUX": "INV"}},
                          "a clock enable the other lacks": {"conn": {"CE": [5]}, "params": {"CEMUX": "CE"}},
                          "another clock enable": dict(both=shared_ce, conn={"CE": [7]}),
                          "an inverted clock enable": dict(both=shared_ce, params={"CEMUX": "INV"}),
                          "a reset": {"conn": {"LSR": [6]}},
                          "a second load": {"extra_sink": True}}.items():
        bad = netlist(**changes)
        before = json.dumps(bad, sort_keys=True)
        notes = pack(bad)
        if json.dumps(bad, sort_keys=True) != before or not any("not packed" in n for n in notes):
            failures.append(f"a flip-flop with {what} was packed: {notes}")
    for f in failures:
        print(f"ecp5_outreg self-test: FAIL: {f}", file=sys.stderr)
    if not failures:
        print("ecp5_outreg self-test: packs plain registers, registers sharing a clock enable and a 36-bit "
              "RAM's two halves, leaves 7 kinds of others alone")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        return _self_test()
    if len(argv) not in (1, 2):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src = Path(argv[0])
    try:
        notes = pack_file(src, Path(argv[-1]))
    except (OSError, ValueError, KeyError) as e:
        print(f"ecp5_outreg: {src}: {e}", file=sys.stderr)
        return 1
    print("\n".join(notes) or f"{src}: no block RAM read port to pack")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
