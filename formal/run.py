#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Formal proofs of the reference IP in ../ip (Yosys + yosys-smtbmc + z3).

For every configuration and every property this builds an SMT-LIB2 model of the harness in
formal/ around the unchanged IP, then proves the property by k-induction the way SymbiYosys
does in prove mode: the base case (BMC from reset, `yosys-smtbmc -t K`) and the induction
step (`yosys-smtbmc -i -t K`) at the same depth K, both with z3. A property is PASSED only
when both pass. The property `reachable` of each configuration is a cover check instead
(`yosys-smtbmc -c`): every cover statement of the harness must be reached from reset, which
shows that the assumptions leave the interesting behaviour possible (non-vacuity).

    python3 formal/run.py                          # everything (what `make formal` runs)
    python3 formal/run.py --only arbiter_rr        # '<config> <property>' contains this
    python3 formal/run.py --only data_in_order --only "async_fifo_w64_d16 helpers"
    python3 formal/run.py --list
    python3 formal/run.py --ip /tmp/broken-ip      # the same proofs on another copy of ip/
    python3 formal/run.py --long                   # the long proofs, SLOW and LONG_CONFIGS (`make regress`)
    python3 formal/run.py --only "async_fifo_w64_d16 helpers" --depth 40   # a deeper base case

Output: one line per property, `PASSED  <config>  <property>  (k-induction, depth K, ...)`
or `FAILED ...` followed by the reason, the counterexample trace (VCD) and the assertions
that failed; then `N passed, M failed`. Exit status 0 only when every selected proof passed.

Work files go to formal/build/<config>/<property>/: flat.ys and tapped.il (stage 1), model.ys
and model.smt2 (stage 2), the solver logs base.log / induction.log / cover.log and, on a
failure, base.vcd / induction.vcd / cover<N>.vcd. A base-case failure is a real trace from
reset; an induction failure may start in an unreachable state (a missing helper invariant).
Two properties are proven at a time, each running its base case and induction step side by
side.
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
IP = os.path.join(ROOT, "ip")
BUILD = os.path.join(HERE, "build")

# --------------------------------------------------------------------------- configurations

SYNC_FIFO_PROPS = ["never_exceeds_depth", "no_accept_when_full", "no_emit_when_empty",
                   "exact_flags", "data_in_order", "helpers", "reachable"]
ASYNC_FIFO_PROPS = ["never_exceeds_depth", "no_accept_when_full", "no_emit_when_empty",
                    "data_in_order", "sync_stage_gray_lags", "helpers", "reachable"]
ASYNC_FIFO_SR_PROPS = ["gray_one_bit", "sync_stage_gray_lags", "never_exceeds_depth",
                       "no_accept_when_full", "no_emit_when_empty", "data_in_order", "reset_blocks",
                       "drop_only_when_flushing", "flush_drains", "helpers", "reachable"]
BRIDGE_ISSUE_PROPS = ["credit_invariant", "no_status_dropped", "outstanding_bounded", "id_unique",
                      "only_admitted_reach_mover", "host_passthrough",
                      "one_status_per_descriptor", "helpers", "reachable"]
ID_POOL_PROPS = ["id_unique", "any_free_exact", "issued_exact", "helpers", "reachable"]
STATUS_PROPS = ["one_status_per_report", "stray_dropped", "host_passthrough", "reject_waits",
                "events_exact", "stamp_exact", "helpers", "reachable"]
STATUS_PAPER_PROPS = ["one_status_per_report", "stray_dropped", "host_passthrough", "reject_waits",
                      "events_exact", "cycles_exact", "helpers", "reachable"]
PORT_MUX_PROPS = ["status_room", "token_fresh", "status_routed", "entries_together", "port_credits", "helpers", "reachable"]
CREDITS_PROPS = ["no_push_when_full", "outstanding_exact", "inflight_bounded", "drained_exact", "helpers", "reachable"]
ARB_PROPS = ["grant_onehot", "fresh_grant_only_to_requester", "free_arbiter_grants",
             "grant_held_until_done", "bounded_wait", "helpers", "reachable"]


def sync_fifo(module, width, depth, afull, regout, k, data_k, cover_k, regflags=0):
    # regout: 1 for a registered output word (`_r`), 0 for m_data straight from the memory;
    # regflags: 1 for flags from the count register (`_rg`)
    return dict(name=module.replace("direkt_", ""), harness="sync_fifo.sv", top="fv_sync_fifo",
                ip=[module], multiclock=False, depth=k, cover_depth=cover_k,
                prop_depth=dict(data_in_order=data_k),
                defines=dict(DUT=module, WIDTH=width, DEPTH=depth, AFULL=afull, REGOUT=regout,
                             REGFLAGS=regflags),
                props=SYNC_FIFO_PROPS)


def async_fifo(width, k, data_k, cover_k, lookahead=False):
    # lookahead: the `_la` variant (full flag a cycle ahead, read pointer one ahead in registers)
    module = "direkt_async_fifo_w%d_d16_r%s" % (width, "_la" if lookahead else "")
    return dict(name=module.replace("direkt_", ""), harness="async_fifo.sv", top="fv_async_fifo",
                ip=[module, "direkt_async_fifo_wr_d16" + ("_rf" if lookahead else ""),
                    "direkt_async_fifo_rd_d16_r" + ("_la" if lookahead else ""), "direkt_sync_w5_s2"],
                multiclock=True, depth=k, cover_depth=cover_k,
                prop_depth=dict(data_in_order=data_k),
                defines=dict(DUT=module, WIDTH=width, LA=int(lookahead)),
                props=ASYNC_FIFO_PROPS)


def async_fifo_sr(width, regout, lookahead, k, data_k, cover_k, read_pointer=False, write_empty=False, read_ahead=False):
    # the `_sr` variants (either side reset alone): regout 1 for registered read data (`_r`);
    # lookahead: the full flag a cycle ahead (`_la`), with regout also the read pointer one ahead
    # in registers; read_ahead: that read side without regout too (`_ra`); read_pointer: the write
    # side outputs the read pointer it sees and its own (`_p`); write_empty: the write side says
    # when it sees the FIFO empty (`_we`)
    module = "direkt_async_fifo_w%d_d16%s%s%s%s%s_sr" % (width, "_r" if regout else "", "_p" if read_pointer else "",
                                                       "_la" if lookahead else "", "_ra" if read_ahead else "",
                                                       "_we" if write_empty else "")
    wr = "direkt_async_fifo_wr_d16" + ("_p" if read_pointer else "") + ("_rf" if lookahead else "") \
        + ("_e" if write_empty else "") + "_sr"
    ahead = lookahead and regout or read_ahead
    rd = "direkt_async_fifo_rd_d16" + ("_r" if regout else "") + ("_la" if ahead else "") + "_sr"
    return dict(name=module.replace("direkt_", ""), harness="async_fifo_sr.sv", top="fv_async_fifo_sr",
                ip=[module, wr, rd, "direkt_sync_w5_s2_pu0", "direkt_sync_w1_s2_pu0"],
                multiclock=True, depth=k, cover_depth=cover_k,
                prop_depth=dict(data_in_order=data_k),
                defines=dict(DUT=module, WIDTH=width, REGOUT=int(regout), LA=int(ahead),
                             RF=int(lookahead), RP=int(read_pointer), WE=int(write_empty)),
                props=ASYNC_FIFO_SR_PROPS[:-2] + (["read_pointer_lags"] if read_pointer else [])
                + (["write_empty_sound"] if write_empty else []) + ASYNC_FIFO_SR_PROPS[-2:])


def arbiter(module, n, policy, weights, k, cover_k):
    # POLICY: 0 fixed priority, 1 round robin, 2 weighted round robin; a module ending in `_o`
    # has `offer` in place of the one-hot grant (OFFERS defined)
    w = list(weights) + [1] * (3 - len(weights))
    offers = module.endswith("_o")
    defines = dict(DUT=module, N=n, POLICY=policy, W0=w[0], W1=w[1], W2=w[2])
    if offers:
        defines["OFFERS"] = 1
    return dict(name=module.replace("direkt_", ""), harness="arbiter.sv", top="fv_arbiter",
                ip=[module], multiclock=False, depth=k, cover_depth=cover_k,
                defines=defines,
                props=ARB_PROPS[:-1] + (["fixed_priority_order"] if policy == 0 else [])
                + (["offer_matches_grant"] if offers else []) + ARB_PROPS[-1:])


def credits(n, k, cover_k):
    module = "direkt_bridge_credits_n%d_s16" % n
    ow = max(1, (n).bit_length())  # Check.indexWidth(n + 1)
    return dict(name=module.replace("direkt_", ""), harness="credits.sv", top="fv_credits",
                ip=[module], multiclock=False, depth=k, cover_depth=cover_k,
                defines=dict(DUT=module, N=n, OW=ow), props=CREDITS_PROPS)


def port_mux(k, cover_k):
    # three kernel ports, 2 credits each, round robin, a 40-bit word (tag [35:4], more bit 39)
    module = "direkt_port_mux_n3_c2_rr_w40_t4_m39"
    return dict(name=module.replace("direkt_", ""), harness="port_mux.sv", top="fv_port_mux",
                ip=[module, "direkt_arbiter_rr_n3", "direkt_sync_fifo_w64_d2_nf"], multiclock=False, depth=k,
                cover_depth=cover_k, map_memories=True, defines=dict(DUT=module), props=PORT_MUX_PROPS)


def id_pool(n, k, cover_k):
    module = "direkt_bridge_id_pool_n%d" % n
    defines = dict(DUT=module, N=n, SW=(n - 1).bit_length())
    if n == 16:
        defines["N16"] = 1
    return dict(name=module.replace("direkt_", ""), harness="id_pool.sv", top="fv_id_pool",
                ip=[module], multiclock=False, depth=k, cover_depth=cover_k, map_memories=True,
                defines=defines, props=ID_POOL_PROPS)


def status(n, k, cover_k):
    module = "direkt_bridge_status_n%d" % n
    return dict(name=module.replace("direkt_", ""), harness="status.sv", top="fv_status",
                ip=[module], multiclock=False, depth=k, cover_depth=cover_k,
                defines=dict(DUT=module), props=STATUS_PROPS)


def status_paper(n, k, cover_k):
    # the paper preset's: the kernel's own IDs, cycle-count statuses
    module = "direkt_bridge_status_n%d_pid_cyc" % n
    return dict(name=module.replace("direkt_", ""), harness="status_paper.sv",
                top="fv_status_paper", ip=[module], multiclock=False, depth=k, cover_depth=cover_k,
                defines=dict(DUT=module), props=STATUS_PAPER_PROPS)


APERTURE_PROPS = ["buffer_room", "commands", "helpers", "reachable"]


def aperture(k, cover_k):
    # the GPU-master aperture's PCIe side: a 256-byte BAR, 32-bit data, bursts of up to 4, 32 response beats
    module = "direkt_aperture_front_a8_w32_b4_r32"
    return dict(name=module.replace("direkt_", ""), harness="aperture.sv", top="fv_aperture",
                ip=[module], multiclock=False, depth=k, cover_depth=cover_k, defines=dict(DUT=module), props=APERTURE_PROPS)


HOST_DESC_PROPS = ["issued_in_order", "flag_once_in_order", "status_routing", "fetch_ids", "helpers", "reachable"]


def host_desc(k, cover_k):
    # the descriptor controller's front with 4-entry tables (IDs 0..3) and both sides
    module = "direkt_host_desc_front_e4"
    return dict(name=module.replace("direkt_", ""), harness="host_desc.sv", top="fv_host_desc",
                ip=[module, "direkt_host_desc_rd_e4_f254", "direkt_host_desc_wr_e4_f255"],
                multiclock=False, depth=k, cover_depth=cover_k, defines=dict(DUT=module), props=HOST_DESC_PROPS)


REGION_WALKER_PROPS = ["page_in_region", "page_write_outside_walk", "helpers", "reachable"]
# one status per request needs the invariants of the whole walk pipeline and the ID pool (STATUS=1):
# a model of its own, so the others stay small
REGION_WALKER_STATUS_PROPS = ["one_status", "helpers"]


def region_walker(k, cover_k, status=False):
    # the smallest walker: 16 pages, 2 regions, 2 pieces and 2 requests in flight
    module = "direkt_region_walker_rd_e16_r2_p2_q2_s2_id192_mem200000000"
    return dict(name="region_walker_rd_e16" + ("_status" if status else ""), harness="region_walker.sv",
                top="fv_region_walker", ip=[module, "direkt_bridge_id_pool_n2"], multiclock=False, depth=k,
                cover_depth=cover_k, defines=dict(DUT=module, **({"STATUS": 1} if status else {})),
                props=REGION_WALKER_STATUS_PROPS if status else REGION_WALKER_PROPS)


def bridge_issue(direction, k, cover_k):
    module = "direkt_bridge_issue_%s_e4_mem200000000_n16_s16" % direction
    return dict(name="bridge_issue_%s_n16" % direction, harness="bridge_issue.sv",
                top="fv_bridge_issue",
                ip=[module, "direkt_bridge_credits_n16_s16", "direkt_bridge_status_n16",
                    "direkt_bridge_id_pool_n16"],
                multiclock=False, depth=k, cover_depth=cover_k, defines=dict(DUT=module),
                props=BRIDGE_ISSUE_PROPS)


def _desc_crossing_bits():
    # The default bridge's descriptor crossing, as ip/ holds it (its width follows the bridge's
    # crossing word, bring-up fields included): the `_r_la_we_sr` FIFO its rd path instantiates.
    found = set()
    for path in glob.glob(os.path.join(IP, "direkt_bridge_rd_h*.v")):
        with open(path) as f:
            found.update(re.findall(r"\bdirekt_async_fifo_w(\d+)_d16_r_la_we_sr\b", f.read()))
    if len(found) != 1:
        raise SystemExit("formal: expected the rd path in %s to instantiate one direkt_async_fifo_w*_d16_r_la_we_sr, "
                         "found %s (run make ip)" % (IP, sorted(found)))
    return int(found.pop())


DESC_CROSSING_BITS = _desc_crossing_bits()

CONFIGS = [
    sync_fifo("direkt_sync_fifo_w160_d16", 160, 16, 16, 0, k=20, data_k=5, cover_k=24),
    sync_fifo("direkt_sync_fifo_w160_d4_af3_rg", 160, 4, 3, 0, k=12, data_k=5, cover_k=12, regflags=1),
    async_fifo(160, k=8, data_k=6, cover_k=44),
    async_fifo(256, k=8, data_k=6, cover_k=44),
    async_fifo(64, k=8, data_k=6, cover_k=44),
    # either side reset alone, no reset assumption: the plain one and the bridge's two crossings
    async_fifo_sr(160, True, False, k=8, data_k=6, cover_k=90),
    # the descriptor crossing's build (registered, lookahead, write-side empty) at 32 bits: the
    # logic is the same at every width but the memory word's; the crossing at its own width
    # (DESC_CROSSING_BITS) takes minutes per property and is in LONG_CONFIGS
    async_fifo_sr(32, True, True, k=8, data_k=6, cover_k=90, write_empty=True),
    async_fifo_sr(64, False, True, k=8, data_k=6, cover_k=90, read_pointer=True),
    async_fifo_sr(64, False, True, k=8, data_k=6, cover_k=90, read_pointer=True, read_ahead=True),
    arbiter("direkt_arbiter_fixed_n2", 2, 0, [], k=10, cover_k=12),
    arbiter("direkt_arbiter_fixed_n3", 3, 0, [], k=10, cover_k=12),
    arbiter("direkt_arbiter_rr_n2", 2, 1, [], k=10, cover_k=12),
    arbiter("direkt_arbiter_rr_n3", 3, 1, [], k=10, cover_k=12),
    arbiter("direkt_arbiter_wrr_n2_3_1", 2, 2, [3, 1], k=10, cover_k=12),
    arbiter("direkt_arbiter_wrr_n3_4_2_1", 3, 2, [4, 2, 1], k=10, cover_k=12),
    # the bridge's status credits, on their own (16, fewer and one in flight)
    credits(16, k=10, cover_k=40),
    credits(8, k=10, cover_k=40),
    credits(1, k=10, cover_k=60),
    # the bridge's kernel descriptor IDs, on their own (4 slots here; 16 in LONG_CONFIGS)
    id_pool(4, k=1, cover_k=8),
    # the bridge's kernel statuses, on their own
    status(16, k=2, cover_k=8),
    status_paper(16, k=2, cover_k=8),
    # the bridge's variants: ready from the offer
    arbiter("direkt_arbiter_fixed_n2_o", 2, 0, [], k=10, cover_k=12),
    arbiter("direkt_arbiter_rr_n2_o", 2, 1, [], k=10, cover_k=12),
    arbiter("direkt_arbiter_wrr_n2_3_1_o", 2, 2, [3, 1], k=10, cover_k=12),
    # several kernel ports: per-port credits, statuses routed back, a request's entries together
    port_mux(k=3, cover_k=14),
    # the GPU region walker: a translation reads only its region's pages
    region_walker(k=4, cover_k=14),
    region_walker(k=4, cover_k=14, status=True),
    # the descriptor controller: each host ID handed over once and flagged once, in LAST_PTR order;
    # statuses routed by ID range
    host_desc(k=2, cover_k=26),
    # the GPU-master aperture: the response buffer never overflows; the commands the memory side follows
    aperture(k=4, cover_k=16),
]

# The rebuilt admission unit's harness (bridge_issue.sv) is not yet inductive: its helper invariants
# still admit unreachable states, so its properties are not run here until they are. Run it alone:
#   python3 formal/run.py --bridge
BRIDGE_CONFIGS = [
    bridge_issue("rd", k=8, cover_k=24),
    bridge_issue("wr", k=8, cover_k=24),
]

# The same proofs at the default preset's size where they take minutes each (z3 on every word of
# the 16-slot retired queue); `make regress` runs them:  python3 formal/run.py --long
LONG_CONFIGS = [
    id_pool(16, k=1, cover_k=20),
    async_fifo_sr(DESC_CROSSING_BITS, True, True, k=8, data_k=6, cover_k=90, write_empty=True),
]

# Proofs of CONFIGS that take over a minute each: `make formal` (and so `make test`) leaves them to
# `--long` (`make regress`). The FIFOs' data order stays proven in `make formal` at the other widths
# (the same logic but the memory word's); the one-side-reset FIFOs' covers (90 steps deep), one
# status per walker request and the descriptor controller's covers are proven only here.
SLOW = {
    ("async_fifo_w256_d16_r", "data_in_order"),
    ("async_fifo_w160_d16_r_sr", "data_in_order"),
    ("async_fifo_w160_d16_r_sr", "reachable"),
    ("async_fifo_w32_d16_r_la_we_sr", "reachable"),
    ("async_fifo_w64_d16_p_la_sr", "reachable"),
    ("async_fifo_w64_d16_p_la_ra_sr", "reachable"),
    ("region_walker_rd_e16_status", "one_status"),
    ("region_walker_rd_e16_status", "helpers"),
    # every cover of the controller's front: a whole table's flags on one side is 23 steps deep
    ("host_desc_front_e4", "reachable"),
}

# --------------------------------------------------------------------------- model building
#
# A harness is read with `read_verilog -I formal/`: harnesses of one kind share the files they
# `include (*.svh, in formal/); what run.py reads of a harness (taps, which properties it has)
# it reads from the harness and the files it includes.
#
# Yosys 0.23 has no hierarchical references, so a harness declares undriven "tap" wires and
# names, in `//@tap <wire> = <internal>` comment lines, the flattened internal signal that
# drives each one:
#   //@tap f_wr_ptr = dut.wr_ptr          assign f_wr_ptr = dut.wr_ptr;      (connect -set)
#   //@tap f_word   = dut.mem[f_addr]     assign f_word = dut.mem[f_addr];   (one more
#                                          asynchronous read port on memory dut.mem)
# Stage 1 flattens the design and writes RTLIL; the read ports are added to that text; stage 2
# makes the connections, checks that nothing is left undriven and writes the SMT2 model.

TAP_RE = re.compile(r"^//@tap\s+(\w+)\s*=\s*([\w.]+)(?:\[(\w+)\])?"
                    r"(?:\s+if\s+(\w+)\s*(==|!=|>=|<=|>|<)\s*(-?\d+))?\s*$")
OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b,
       "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


INCLUDE_RE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)


def harness_files(harness):
    """The paths of harness formal/<harness> and of the files it includes, directly or not, each
    once (every `include line counts, whatever `ifdef it stands in)."""
    out = []

    def visit(name):
        path = os.path.join(HERE, name)
        if path in out:
            return
        out.append(path)
        with open(path) as f:
            for inc in INCLUDE_RE.findall(f.read()):
                visit(inc)

    visit(harness)
    return out


def taps(paths, defines):
    """(wire, internal, address-or-None) for each `//@tap` line of the harness files that
    applies to a configuration (`... if MACRO>=1` applies where the -D macro satisfies the test)."""
    out = []
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.startswith("//@tap"):
                    continue
                m = TAP_RE.match(line.strip())
                if not m:
                    raise RuntimeError("bad tap line: %s" % line.strip())
                wire, internal, addr, macro, op, val = m.groups()
                # (a macro the configuration does not define counts as 0)
                if macro and not OPS[op](int(defines.get(macro, 0)), int(val)):
                    continue
                out.append((wire, internal, addr))
    return out


def add_read_ports(il_text, top, mem_taps):
    """Adds one asynchronous $memrd cell per memory tap to module `top` of an RTLIL text."""
    # (RTLIL leaves "width 1" out for a memory of 1-bit words)
    mems = dict((m.group(3), (int(m.group(1) or 1), int(m.group(2))))
                for m in re.finditer(r"^\s*memory (?:width (\d+) )?size (\d+) \\(\S+)\s*$",
                                     il_text, re.M))
    wires = dict((m.group(2), int(m.group(1) or 1))
                 for m in re.finditer(r"^\s*wire (?:width (\d+) )?(?:\w+ \d+ )*\\(\S+)\s*$",
                                      il_text, re.M))
    cells = []
    for n, (wire, mem, addr) in enumerate(mem_taps):
        if mem not in mems:
            raise RuntimeError("tap %s: no memory %s in the flattened design" % (wire, mem))
        width, _size = mems[mem]
        if wires.get(wire) != width:
            raise RuntimeError("tap %s: width %s, memory %s has width %d"
                               % (wire, wires.get(wire), mem, width))
        if addr not in wires:
            raise RuntimeError("tap %s: no address wire %s" % (wire, addr))
        cells.append("\n".join([
            "  cell $memrd $formal_tap_rd_%d" % n,
            "    parameter \\ABITS %d" % wires[addr],
            "    parameter \\CLK_ENABLE 0",
            "    parameter \\CLK_POLARITY 0",
            "    parameter \\MEMID \"\\\\%s\"" % mem,
            "    parameter \\TRANSPARENT 0",
            "    parameter \\WIDTH %d" % width,
            "    connect \\ADDR \\%s" % addr,
            "    connect \\CLK 1'x",
            "    connect \\DATA \\%s" % wire,
            "    connect \\EN 1'1",
            "  end", ""]))
    # insert before the `end` that closes module `top`
    start = il_text.index("module \\%s\n" % top)
    end = il_text.index("\nend\n", start) + 1
    return il_text[:end] + "".join(cells) + il_text[end:]


def yosys(wd, name, script):
    """Writes the Yosys script <name>.ys in wd and runs it (log <name>.log); None, or why not."""
    with open(os.path.join(wd, name + ".ys"), "w") as f:
        f.write("\n".join(script) + "\n")
    rc, _ = run(["yosys", "-q", "-l", name + ".log", "-s", name + ".ys"], wd, name + ".out")
    return None if rc == 0 else "yosys failed, see %s" % os.path.join(wd, name + ".log")


def build_model(cfg, prop, ip_dir, wd):
    files = harness_files(cfg["harness"])
    text = ""
    for path in files:
        with open(path) as f:
            text += f.read()
    # a property selected by a macro the harness does not test would prove nothing
    if prop != "helpers" and ("`ifdef CHECK_%s\n" % prop) not in text:
        return "harness %s has no `ifdef CHECK_%s" % (cfg["harness"], prop)
    defs = " ".join("-D%s=%s" % (k, v) for k, v in cfg["defines"].items())
    stage1 = ["read_verilog -formal -I%s %s -DCHECK_%s %s" % (HERE, defs, prop, files[0])]
    for m in cfg["ip"]:
        stage1.append("read_verilog %s" % os.path.join(ip_dir, m + ".v"))
    stage1 += [
        "hierarchy -check -top %s" % cfg["top"],
        "proc",
        "flatten",
        "write_rtlil flat.il",
    ]
    err = yosys(wd, "flat", stage1)
    if err:
        return err

    all_taps = taps(files, cfg["defines"])
    with open(os.path.join(wd, "flat.il")) as f:
        il = f.read()
    il = add_read_ports(il, cfg["top"], [t for t in all_taps if t[2]])
    with open(os.path.join(wd, "tapped.il"), "w") as f:
        f.write(il)

    stage2 = ["read_rtlil tapped.il"]
    for wire, internal, addr in all_taps:
        if not addr:
            stage2.append("connect -nomap -nounset -set \\%s \\%s" % (wire, internal))
    stage2 += [
        # collect the memories as SMT arrays (no memory_dff: registered read data stays the
        # IP's own register; no memory_map: z3 handles the arrays far better, except where a
        # helper invariant ranges over every word of a small memory: map_memories)
        "memory_collect",
    ] + (["memory_map"] if cfg.get("map_memories") else []) + [
        "opt_clean",
        "check -assert",          # fails on any undriven wire, e.g. a misspelt tap
        "clk2fflogic" if cfg["multiclock"] else "async2sync",
        "setundef -anyseq",
        "opt -keepdc -fast",
        "dffunmap",
        "check -assert",
        "stat",
        "write_smt2 -wires model.smt2",
    ]
    return yosys(wd, "model", stage2)


# --------------------------------------------------------------------------- running

def run(cmd, cwd, log):
    with open(os.path.join(cwd, log), "w") as f:
        p = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    with open(os.path.join(cwd, log)) as f:
        return p.returncode, f.read()


def failed_asserts(text):
    out = []
    for line in text.splitlines():
        m = re.search(r"Assert failed in \S+: (.*)$", line)
        if m:
            out.append(m.group(1).strip())
    return out


def prove(cfg, prop, ip_dir, depth=None):
    """Returns (ok, message). depth: overrides the configuration's depth (base case and
    induction step, or the cover run)."""
    wd = os.path.join(BUILD, cfg["name"], prop)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    err = build_model(cfg, prop, ip_dir, wd)
    if err:
        return False, err

    with open(os.path.join(wd, "model.smt2")) as f:
        has_mem = "; yosys-smt2-memory " in f.read()
    # QF_BV lets z3 use its SAT-based bit-vector solver; arrays (memories) need QF_ABV
    smtbmc = ["yosys-smtbmc", "-s", "z3", "--logic", "QF_ABV" if has_mem else "QF_BV",
              "--unroll", "--noprogress"]

    if prop == "reachable":
        return cover(cfg, wd, smtbmc, depth)

    k = str(depth or cfg.get("prop_depth", {}).get(prop, cfg["depth"]))
    jobs = {
        "base": smtbmc + ["--presat", "-t", k, "--dump-vcd", "base.vcd", "model.smt2"],
        "induction": smtbmc + ["-i", "-t", k, "--dump-vcd", "induction.vcd", "model.smt2"],
    }
    res = {}

    def go(name):
        res[name] = run(jobs[name], wd, name + ".log")

    threads = [threading.Thread(target=go, args=(n,)) for n in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    brc, blog = res["base"]
    irc, ilog = res["induction"]
    if brc != 0:
        why = "PREUNSAT: the assumptions contradict each other" if "PREUNSAT" in blog \
            else "base case failed (a real counterexample from reset)"
        return False, "%s: %s%s" % (why, trace(wd, "base.vcd", "base.log"),
                                    failed_list(blog))
    if irc != 0:
        return False, "induction step failed at depth %s (may be unreachable; needs a helper " \
                      "invariant or more depth): %s%s" % (
                          k, trace(wd, "induction.vcd", "induction.log"), failed_list(ilog))
    m = re.findall(r"Trying induction in step (\d+)", ilog)
    used = int(k) - int(m[-1]) if m else None
    return True, "k-induction, depth %s%s" % (k, "" if used is None or used == int(k)
                                               else ", inductive at %d" % used)


def trace(wd, vcd, log):
    path = os.path.join(wd, vcd)
    return path if os.path.exists(path) else os.path.join(wd, log)


def failed_list(log):
    fa = failed_asserts(log)
    return ("\n        failed: " + "; ".join(fa)) if fa else ""


def cover(cfg, wd, smtbmc, depth=None):
    """Non-vacuity: every cover statement of the harness must be reached from reset."""
    k = str(depth or cfg["cover_depth"])
    rc, log = run(smtbmc + ["-c", "-t", k, "--dump-vcd", "cover%.vcd", "model.smt2"],
                  wd, "cover.log")
    reached = re.findall(r"Reached cover statement at .* in step (\d+)", log)
    unreached = re.findall(r"Unreached cover statement at (\S+)", log)
    if rc != 0 or unreached or not reached:
        what = ("unreached within %s steps: %s" % (k, ", ".join(unreached))) if unreached \
            else "cover run failed"
        return False, "%s, see %s%s" % (what, os.path.join(wd, "cover.log"), failed_list(log))
    return True, "cover, %d statements reached by step %d of %s" % (
        len(reached), max(int(x) for x in reached), k)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", default=[],
                    help="run only the proofs whose '<config> <property>' contains this "
                         "substring (repeatable)")
    ap.add_argument("--ip", default=IP, help="directory with the IP Verilog (default: ../ip)")
    ap.add_argument("--depth", type=int, default=None,
                    help="prove at this depth instead of each configuration's own (e.g. a deeper "
                         "base case, to look for a counterexample further from reset)")
    ap.add_argument("--list", action="store_true", help="list the proofs and exit")
    ap.add_argument("--bridge", action="store_true",
                    help="the bridge admission unit's proofs instead (harness not yet inductive)")
    ap.add_argument("--long", action="store_true",
                    help="the long proofs instead: those of SLOW (over a minute each) and LONG_CONFIGS")
    args = ap.parse_args()

    for tool in ("yosys", "yosys-smtbmc", "z3"):
        if shutil.which(tool) is None:
            print("missing tool: %s" % tool)
            return 2

    stale = SLOW - {(c["name"], p) for c in CONFIGS for p in c["props"]}
    if stale:
        print("SLOW names proofs CONFIGS does not have: %s" % sorted(stale))
        return 2
    if args.bridge:
        todo = [(c, p) for c in BRIDGE_CONFIGS for p in c["props"]]
    elif args.long:
        todo = [(c, p) for c in CONFIGS for p in c["props"] if (c["name"], p) in SLOW] \
            + [(c, p) for c in LONG_CONFIGS for p in c["props"]]
    else:
        todo = [(c, p) for c in CONFIGS for p in c["props"] if (c["name"], p) not in SLOW]
    todo = [(c, p) for c, p in todo if not args.only or any(s in "%s %s" % (c["name"], p) for s in args.only)]
    if args.list:
        for c, p in todo:
            print("%-28s %s" % (c["name"], p))
        return 0
    if not todo:
        print("no proof matches %s" % args.only)
        return 2

    os.makedirs(BUILD, exist_ok=True)
    ip_dir = os.path.abspath(args.ip)
    t_all = time.time()
    npass = nfail = 0

    def task(c, p):
        t0 = time.time()
        try:
            ok, msg = prove(c, p, ip_dir, args.depth)
        except Exception as e:  # a broken setup is a failure, not a crash of the runner
            ok, msg = False, "runner error: %r" % (e,)
        return ok, msg, time.time() - t0

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        # start the slow proofs (the data of the FIFOs) first, report in the usual order
        order = sorted(range(len(todo)), key=lambda i: todo[i][1] != "data_in_order")
        started = {}
        for i in order:
            started[i] = ex.submit(task, *todo[i])
        futs = [(c, p, started[i]) for i, (c, p) in enumerate(todo)]
        for c, p, fut in futs:
            ok, msg, dt = fut.result()
            if ok:
                npass += 1
                print("PASSED  %-26s %-30s (%s, %.1f s)" % (c["name"], p, msg, dt), flush=True)
            else:
                nfail += 1
                print("FAILED  %-26s %-30s (%.1f s)\n        %s" % (c["name"], p, dt, msg),
                      flush=True)

    print("%d passed, %d failed  (%.1f s)" % (npass, nfail, time.time() - t_all))
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
