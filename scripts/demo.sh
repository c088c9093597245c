#!/usr/bin/env bash
# The demo: add kernel-issued DMA to the example board with `direkt overlay`, lint the example
# kernel against the edited board, run the bridge system simulation on the IP the overlay wrote, and
# make a GPU -> FPGA -> GPU round trip through the host runtime on one simulated FPGA (a GPU -> FPGA
# copy, then an FPGA -> GPU copy of what FPGA memory holds) on both paths (peer-to-peer, and
# through pinned host memory where no importer is).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=build/demo
rm -rf "$out"
mkdir -p "$out"

echo "== direkt overlay on the example board (examples/bsp/direkt_ref)"
bin/direkt overlay --bsp examples/bsp/direkt_ref --out "$out/overlay"
echo
echo "board_spec.xml, what changed:"
diff examples/bsp/direkt_ref/hardware/direkt_ref/board_spec.xml "$out/overlay/board_spec.xml" | sed 's/^/  /' || true

echo
echo "== direkt lint-kernel examples/kernels/gpu_fpga_roundtrip.cl"
bin/direkt lint-kernel examples/kernels/gpu_fpga_roundtrip.cl --board "$out/overlay/board_spec.xml"

echo
echo "== bridge system simulation (Verilator, cocotb) on $out/overlay/ip"
log="$out/bridge-sim.log"
if (cd sim && DIREKT_EMIT_CMD="$root/scripts/overlay-emit.sh $root/$out/overlay" SIM=verilator \
      ../.venv/bin/pytest -q -s tb/bridge -k default-k4d4 >"../$log" 2>&1); then
  result=PASS
else
  result=FAIL
fi
grep -E "^ *[0-9.]+ns +INFO .*(byte-exact$|B/cycle of|  rejections: [0-9]|arbiter \(|pipelined: [0-9])" "$log" \
  | sed -E 's/^ *[0-9.]+ns +INFO +cocotb\.[a-z_]+ +/  /'
grep -E "^direkt-sim: cocotb results" "$log" | tail -1 | sed -E 's/^direkt-sim: cocotb results \([^)]*\): /  tests: /'

echo
echo "== direkt-run demo: GPU -> FPGA -> GPU through the host runtime on one simulated FPGA"
runlog="$out/direkt-run.log"
if bin/direkt-run demo --overlay "$out/overlay" >"$runlog" 2>&1; then
  run_result=PASS
else
  run_result=FAIL
fi
sed 's/^/  /' "$runlog"

echo
echo "== direkt-run demo --importer none: the same program where peer-to-peer is not possible"
bouncelog="$out/direkt-run-bounce.log"
if bin/direkt-run demo --overlay "$out/overlay" --importer none >"$bouncelog" 2>&1; then
  bounce_result=PASS
else
  bounce_result=FAIL
fi
sed 's/^/  /' "$bouncelog"

echo
echo "summary:"
printf '  overlay      %s files in %s (Verilog, hw.tcl, integrate.tcl, header, manifest, OVERLAY.md)\n' \
  "$(find "$out/overlay" -type f | wc -l)" "$out/overlay"
printf '  kernel lint  clean\n'
printf '  simulation   %s: data byte-exact from 4 B to 4 MB both ways, %s\n' "$result" \
  "$(grep -oE 'rd: [0-9]+ descriptors, [0-9]+ bytes.*' "$log" | head -1 | sed -E 's/, [0-9]+ TLP pieces//')"
if [ -f bench/results/bridge.json ]; then
  .venv/bin/python - <<'PY'
import json
d = json.load(open("bench/results/bridge.json"))
print(f"  bench-bridge latency {d['latency_desc_cycles']} dma_clk cycles descriptor, {d['latency_status_cycles']} kernel_clk cycles status "
      f"(sync stages {d['sync_stages']}); kernel issue rate {d['kernel_issue_rate']:.2f}/cycle; "
      f"4 KB bandwidth {d['bw_4k_inflight_1']:.2f} -> {d['bw_4k_inflight_16']:.2f} of peak with 1 -> 16 in flight "
      "(bench/results/bridge.json)")
PY
fi
printf '  host runtime %s: %s\n' "$run_result" "$(tail -1 "$runlog")"
printf '  fallback     %s: %s\n' "$bounce_result" "$(tail -1 "$bouncelog")"
if [ "$run_result" != PASS ]; then
  echo "demo: direkt-run demo failed; see $runlog" >&2
  exit 1
fi
if [ "$bounce_result" != PASS ]; then
  echo "demo: direkt-run demo --importer none failed; see $bouncelog" >&2
  exit 1
fi
if [ "$result" != PASS ]; then
  echo "demo: the simulation failed; see $log" >&2
  exit 1
fi
