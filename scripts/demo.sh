#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The demo: add kernel-issued DMA to the example board with `direkt overlay`, lint the example
# kernel against the edited board, run the bridge system simulation on the IP the overlay wrote, and
# make a GPU -> FPGA -> GPU round trip through the host runtime on one simulated FPGA (a GPU -> FPGA
# copy, then an FPGA -> GPU copy of what FPGA memory holds) on both paths (peer-to-peer, and
# through pinned host memory where no importer is).
#
# Every line of the summary is taken from what this run printed. A step that fails stops the demo:
# it says which step, shows the end of that step's log and exits non-zero. To see that happen,
# break the simulation on purpose: DIREKT_SIM_FAULT=mover_data make demo (the simulated data movers
# then flip a bit of every descriptor's first byte).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=build/demo
rm -rf "$out"
mkdir -p "$out"

# step NAME LOG COMMAND...: runs COMMAND with its output in LOG; stops the demo, naming the step and
# showing the end of its log, when it fails.
step() {
  local name=$1 log=$2
  shift 2
  echo
  echo "== $name"
  "$@" > "$log" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$log" | sed 's/^/  | /'
    echo >&2
    echo "demo: step '$name' failed (exit $rc); its log: $log" >&2
    exit 1
  fi
}
show() { sed 's/^/  /' "$1"; }

step "direkt overlay on the example board (examples/bsp/direkt_ref)" "$out/overlay.log" \
  bin/direkt overlay --bsp examples/bsp/direkt_ref --out "$out/overlay"
show "$out/overlay.log"
echo "  board_spec.xml, what changed:"
diff examples/bsp/direkt_ref/hardware/direkt_ref/board_spec.xml "$out/overlay/board_spec.xml" | sed 's/^/    /'

step "direkt lint-kernel examples/kernels/gpu_fpga_roundtrip.cl" "$out/lint.log" \
  bin/direkt lint-kernel examples/kernels/gpu_fpga_roundtrip.cl --board "$out/overlay/board_spec.xml"
show "$out/lint.log"

simulate() ( # a subshell: the cd stays in it
  cd sim && DIREKT_EMIT_CMD="$root/scripts/overlay-emit.sh $root/$out/overlay" SIM=verilator \
    ../.venv/bin/pytest -q -s tb/bridge -k default-k4d4
)
step "bridge system simulation (Verilator, cocotb) on $out/overlay/ip" "$out/bridge-sim.log" simulate
grep -E "^ *[0-9.]+ns +INFO .*(byte-exact$|B/cycle of|  rejections: [0-9]|arbiter \(|pipelined: [0-9])" "$out/bridge-sim.log" \
  | sed -E 's/^ *[0-9.]+ns +INFO +cocotb\.[a-z_]+ +/  /'

step "direkt-run demo: GPU -> FPGA -> GPU through the host runtime on one simulated FPGA" \
  "$out/direkt-run.log" bin/direkt-run demo --overlay "$out/overlay"
show "$out/direkt-run.log"

step "direkt-run demo --importer none: the same program where peer-to-peer is not possible" \
  "$out/direkt-run-bounce.log" bin/direkt-run demo --overlay "$out/overlay" --importer none
show "$out/direkt-run-bounce.log"

# The summary: each figure is read from this run's logs; a figure a log does not hold is a failure.
pick() { # pick LOG REGEX: the first line of LOG matching REGEX, the match only
  grep -oE "$2" "$1" | head -1
}
summary=()
add() { # add LABEL TEXT: a summary line; an empty TEXT means the log lacks what the summary needs
  if [ -z "$2" ]; then
    echo "demo: the summary's '$1' line has no figure in this run's logs" >&2
    exit 1
  fi
  summary+=("$(printf '  %-13s%s' "$1" "$2")")
}
add overlay "$(find "$out/overlay" -type f | wc -l) files written in $out/overlay"
add "kernel lint" "$(tail -1 "$out/lint.log")"
add simulation "$(pick "$out/bridge-sim.log" 'TESTS=[0-9]+ PASS=[0-9]+ FAIL=0') cocotb tests; $(pick "$out/bridge-sim.log" \
  'rd: [0-9]+ descriptors, [0-9]+ bytes[^,]*')"
add "host runtime" "$(tail -1 "$out/direkt-run.log")"
add fallback "$(tail -1 "$out/direkt-run-bounce.log")"
echo
echo "summary (this run):"
printf '%s\n' "${summary[@]}"
