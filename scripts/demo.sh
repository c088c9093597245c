#!/usr/bin/env bash
# The demo: emit the example designs from their Java generators, show what was built, lint it,
# and simulate it under cocotb on Verilator and Icarus.
set -euo pipefail
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cd "$(dirname "$0")/.."
out=build/demo
rm -rf "$out"
classes=hdl-dsl/target/classes

echo "== direkt demo: Java generators -> Verilog -> simulation"
for spec in "skid_buffer width=8" "gray_crossing width=4"; do
  read -r name params <<<"$spec"
  dir="$out/$name"
  top=$("$JAVA" -cp "$classes" org.direkt.hdl.examples.Emit "$name" $params --out "$dir" | awk '/^top /{print $2}')
  echo
  echo "built $top ($name $params) into $dir:"
  for f in "$dir"/*.v; do
    printf '  %-34s %4d lines, %d registers, %d instances\n' "$(basename "$f")" "$(wc -l <"$f")" \
      "$(grep -cE '^\s*(\(\*.*\*\) )?reg ' "$f" || true)" "$(grep -cE '^\s+direkt_\w+ \w+ \($' "$f" || true)"
  done
  echo "  ports of $top:"
  grep -E '^\s+(input|output) ' "$dir/$top.v" | sed -E 's#\s*// @\[.*##; s#^\s+#    #; s#,$##'
  verilator --lint-only -Wall -y "$dir" "$dir/$top.v"
  echo "  verilator --lint-only -Wall: no warnings"
done

echo
echo "== simulating (cocotb benches: random valid/ready, reference model, clock ratios)"
summary=()
for sim in verilator icarus; do
  for bench in "skid_buffer -k width8" "gray_crossing -k width4"; do
    read -r tb filter <<<"$bench"
    log="$out/sim-$sim-$tb.log"
    if (cd sim && SIM=$sim ../.venv/bin/pytest -q "tb/$tb" $filter >"../$log" 2>&1); then
      result="PASS"
    else
      result="FAIL"
    fi
    summary+=("$(printf '  %-10s %-14s %s  (%s)' "$sim" "$tb" "$result" "$(grep -E '[0-9]+ (passed|failed)' "$log" | tail -1)")")
  done
done
echo "result:"
printf '%s\n' "${summary[@]}"
if printf '%s\n' "${summary[@]}" | grep -q FAIL; then
  echo "demo: a simulation failed; logs are in $out" >&2
  exit 1
fi
