#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lints every Verilog file the project emits, in its tests and its examples:
#   verilator --lint-only -Wall (no waivers: any warning fails), iverilog -g2005, yosys read_verilog.
# Sources: the example designs and generators emitted at several parameter sets, the emitter's golden files,
# the reference IP in ip/ when present, and the RTL the cocotb benches built (sim/build) when present.
set -euo pipefail
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cd "$(dirname "$0")/.."
out=build/lint
rm -rf "$out"
mkdir -p "$out"
cp_classes=hdl-dsl/target/classes
[ -d "$cp_classes" ] || { echo "lint: $cp_classes is missing: run make build" >&2; exit 1; }

emit() {
  local name=$1; shift
  local dir="$out/examples/$name${*:+_}$(IFS=_; echo "$*")"
  "$JAVA" -cp "$cp_classes" org.direkt.hdl.examples.Emit "$name" "$@" --out "$dir" >/dev/null
}
emit skid_buffer width=1
emit skid_buffer width=8
emit skid_buffer width=256
emit gray_crossing width=2
emit gray_crossing width=5 sync_stages=3
emit skid_chain width=8 stages=3
emit simple_ram width=8 depth=16
emit simple_ram width=160 depth=512

gen() {
  local name=$1; shift
  local dir="$out/generators/$name${*:+_}$(IFS=_; echo "$*")"
  "$JAVA" -cp "contract/target/classes:$cp_classes:generators/target/classes" org.direkt.generators.Emit "$name" "$@" --out "$dir" >/dev/null
}
gen sync_fifo width=1 depth=2
gen sync_fifo width=64 depth=512 registered=true almost_full=500
gen sync_fifo width=8 depth=4 show_ahead=false
gen async_fifo width=1 depth=2 registered=false
gen async_fifo width=256 depth=512 sync_stages=3
gen arbiter requesters=8 policy=round_robin
gen arbiter requesters=5 policy=weighted weights=5,1,3,1,8
gen rl_adapter width=8 direction=rl1_to_rl0
gen channel_port port=udp0_in type=streamsink width=64 chan_id=eth0_out registered=false
gen channel_port port=udp0_out type=streamsource width=256 chan_id=eth0_in registered=true
gen bridge preset=paper
gen bridge inflight=128 status_depth=128 windows=1 reset=active_high
gen bridge inflight=1 policy=weighted weights=1,4 word_order=x0_high registered_channels=true
gen bridge preset=paper status_mode=tagged inflight=5 status_depth=8 sync_stages=3
gen bridge ports=8 port_credits=16 port_policy=fixed_priority word_order=x0_high
gen bridge preset=regions ports=4 port_policy=weighted port_weights=4,2,1,1
gen bridge preset=regions ports=3 port_credits=2 word_order=x0_high registered_channels=true
gen host_desc_controller preset=paper desc_ready_latency=3
gen host_desc_controller preset=regions ports=2 reset=active_high desc_ready_latency=2
gen aperture
gen aperture bar_bytes=4096 fpga_base=0x3000 mem_address_bits=14 data_bits=64 max_burst=1 response_beats=32
gen aperture bar_bytes=0x10000000 fpga_base=0x30000000 mem_address_bits=34 data_bits=512 max_burst=64 response_beats=1024

dirs=()
while IFS= read -r d; do dirs+=("$d"); done < <(
  { find "$out/examples" "$out/generators" hdl-dsl/src/test/resources/golden -mindepth 1 -maxdepth 1 -type d
    [ -d ip ] && find ip -name '*.v' -printf '%h\n'
    [ -d sim/build ] && find sim/build -type d -name rtl
  } | sort -u)

files=0
failed=0
log="$out/lint.log"
: > "$log"
for d in "${dirs[@]}"; do
  shopt -s nullglob
  vs=("$d"/*.v)
  shopt -u nullglob
  [ ${#vs[@]} -gt 0 ] || continue
  for f in "${vs[@]}"; do
    files=$((files + 1))
    top=$(basename "$f" .v)
    if ! verilator --lint-only -Wall -y "$d" --top-module "$top" "$f" >>"$log" 2>&1; then
      echo "lint: verilator -Wall: $f" ; failed=$((failed + 1))
    fi
    if ! msg=$(iverilog -g2005 -o /dev/null -y "$d" -s "$top" "$f" 2>&1) || [ -n "$msg" ]; then
      echo "lint: iverilog -g2005: $f"; echo "$msg" >>"$log"; failed=$((failed + 1))
    fi
  done
  if ! yosys -q -p "read_verilog ${vs[*]}; hierarchy -check" >>"$log" 2>&1; then
    echo "lint: yosys read_verilog: $d"; failed=$((failed + 1))
  fi
  for ram in "$d"/direkt_simple_ram_*.v; do
    [ -f "$ram" ] || continue
    # The memory template must be one Yosys turns into a RAM, not a bank of flip-flops.
    if ! yosys -q -p "read_verilog $ram; proc; memory_collect; select -assert-count 1 t:\$mem_v2" >>"$log" 2>&1; then
      echo "lint: yosys did not infer a memory in $ram"; failed=$((failed + 1))
    fi
  done
done
if [ "$failed" -ne 0 ]; then
  echo "lint: $failed problem(s) in $files file(s); details:"; cat "$log"
  exit 1
fi
echo "lint: $files Verilog files in ${#dirs[@]} directories: verilator -Wall 0 warnings, iverilog -g2005 and yosys read_verilog accept all"
