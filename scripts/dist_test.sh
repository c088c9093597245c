#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the installable direkt (scripts/dist.sh) as a machine without Java would run it: unpacks the
# tarball into a fresh temporary folder and, in an empty environment (no JAVA_HOME, a PATH holding only
# bash and readlink, so no java), from an unrelated folder runs direkt --version (also through a
# symlink), direkt overlay on the tarball's example board, direkt lint-kernel on the example kernel,
# direkt inspect (text and --svg) and direkt-run --help, checking what each prints or writes.
#   scripts/dist_test.sh [TARBALL]        default build/dist/direkt-<pom version>-linux-x86_64.tar.gz
#   scripts/dist_test.sh --installed DIR  the checks on an unpacked direkt-<version>/ folder
#   scripts/dist_test.sh --self-test      shows the checks fail: on unpacked copies with runtime/bin/java
#                                         deleted, and with a jar the overlay needs deleted, each must fail
# A failed check exits 1 with a message naming the check and the end of its log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "dist-test: $*" >&2; exit 1; }

version=$(python3 -c 'import xml.etree.ElementTree as E; print(E.parse("pom.xml").getroot().findtext("{http://maven.apache.org/POM/4.0.0}version") or "")') \
  || die "cannot read the version from $root/pom.xml"
[ -n "$version" ] || die "$root/pom.xml has no <version> under <project>"
name=direkt-$version
mode=test installed="" tarball=$root/build/dist/$name-linux-x86_64.tar.gz
case "${1:-}" in
  --installed) [ $# -eq 2 ] || die "usage: $0 --installed DIR"; mode=installed installed=$(cd "$2" && pwd) ;;
  --self-test) [ $# -eq 1 ] || die "usage: $0 --self-test"; mode=self-test ;;
  -h|--help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  "") ;;
  *) [ $# -eq 1 ] || die "usage: $0 [TARBALL]"; tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/direkt-dist-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# unpack DEST: the tarball into DEST, which must then hold exactly one folder, direkt-<version>.
unpack() {
  [ -f "$tarball" ] || die "no tarball at $tarball: run 'make dist' first"
  mkdir -p "$1"
  tar -xzf "$tarball" -C "$1" || die "check 'unpack' failed: tar could not unpack $tarball"
  local top
  top=$(ls -A "$1")
  [ "$top" = "$name" ] || die "check 'layout' failed: $tarball should hold one folder $name/, it holds: $(echo $top)"
}

if [ "$mode" = self-test ]; then
  # Each broken copy must fail, and fail in the check named: the test can see what it is meant to see.
  unpack "$tmp/broken-runtime"
  rm "$tmp/broken-runtime/$name/runtime/bin/java"
  unpack "$tmp/broken-lib"
  rm "$tmp/broken-lib/$name"/lib/velocity-engine-core-*.jar
  for broken in "runtime:version" "lib:overlay"; do
    dir=$tmp/broken-${broken%%:*}/$name
    expect=${broken#*:}
    if out=$(bash "$0" --installed "$dir" 2>&1); then
      echo "$out" >&2
      die "self-test failed: the checks passed on $dir, which was broken on purpose (${broken%%:*})"
    fi
    grep -q "check '$expect' failed" <<< "$out" \
      || { echo "$out" >&2; die "self-test failed: broken ${broken%%:*}: expected check '$expect' to fail; the output is above"; }
  done
  echo "dist-test self-test: OK (runtime/bin/java deleted: check 'version' fails; a jar deleted from lib/: check 'overlay' fails)"
  exit 0
fi

if [ "$mode" = test ]; then
  unpack "$tmp/unpacked"
  installed=$tmp/unpacked/$name
fi
for f in bin/direkt bin/direkt-run runtime/bin/java README.md LICENSE docs/index.md \
    examples/bsp/direkt_ref/hardware/direkt_ref/board_spec.xml examples/kernels/gpu_fpga_roundtrip.cl; do
  # A missing runtime/bin/java is left to the checks below: the launcher must say so and fail.
  [ "$f" = runtime/bin/java ] || [ -e "$installed/$f" ] || die "check 'layout' failed: $installed/$f is missing"
done

# The environment every command runs in: nothing inherited (no JAVA_HOME, JAVA_TOOL_OPTIONS, CLASSPATH),
# and a PATH of one folder holding bash (the launchers' interpreter) and readlink (what they call).
pathdir=$tmp/path
mkdir -p "$pathdir" "$tmp/home" "$tmp/work" "$tmp/logs" "$tmp/links"
for tool in bash readlink; do
  t=$(command -v "$tool") || die "no $tool on this machine's PATH"
  ln -s "$t" "$pathdir/$tool"
done
clean_env=(env -i "PATH=$pathdir" "HOME=$tmp/home" "TMPDIR=$tmp")
if "${clean_env[@]}" bash -c 'command -v java' >/dev/null 2>&1; then
  die "check 'no-java' failed: a java is on the test PATH ($pathdir), so it would prove nothing"
fi
ln -s "$installed/bin/direkt" "$tmp/links/direkt"

checked=()
# run NAME COMMAND...: COMMAND in the clean environment, from $tmp/work; its output in $tmp/logs/NAME.log.
run() {
  local check=$1 rc=0
  shift
  (cd "$tmp/work" && "${clean_env[@]}" "$@") > "$tmp/logs/$check.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 20 "$tmp/logs/$check.log" | sed 's/^/  | /' >&2
    die "check '$check' failed: '$*' exited $rc (in $tmp/work; its output is above)"
  fi
  checked+=("$check")
}
# expect NAME CONDITION...: the check fails, naming NAME and CONDITION, unless CONDITION succeeds.
expect() {
  local check=$1
  shift
  if ! "$@" > /dev/null 2>&1; then
    sed 's/^/  | /' "$tmp/logs/$check.log" | tail -n 20 >&2
    die "check '$check' failed: not true: $* (the command's output is above)"
  fi
}

d=$installed/bin/direkt
run version "$d" --version
expect version grep -qx "direkt $version" "$tmp/logs/version.log"

run symlink "$tmp/links/direkt" --version
expect symlink grep -qx "direkt $version" "$tmp/logs/symlink.log"

cp -r "$installed/examples/bsp/direkt_ref" "$tmp/work/board"
cp "$installed/examples/kernels/gpu_fpga_roundtrip.cl" "$tmp/work/"
run overlay "$d" overlay --bsp board --out overlay
for f in board_spec.xml direkt-overlay.json OVERLAY.md include/direkt_dma.h direkt_integrate.tcl ip/direkt_bridge.v; do
  expect overlay test -s "$tmp/work/overlay/$f"
done
expect overlay grep -q "\"direkt_version\" *: *\"$version\"" "$tmp/work/overlay/direkt-overlay.json"
expect overlay grep -q 'direkt_rd_desc' "$tmp/work/overlay/board_spec.xml"

run lint-kernel "$d" lint-kernel gpu_fpga_roundtrip.cl --board overlay/board_spec.xml
expect lint-kernel grep -q "gpu_fpga_roundtrip.cl: 4 io channels, all match" "$tmp/logs/lint-kernel.log"

run inspect "$d" inspect overlay/board_spec.xml
expect inspect grep -q "^board direkt_ref" "$tmp/logs/inspect.log"
expect inspect grep -q "direkt_wr_status" "$tmp/logs/inspect.log"

run inspect-svg "$d" inspect overlay/board_spec.xml --svg board.svg
svg=$tmp/work/board.svg
expect inspect-svg test -s "$svg"
expect inspect-svg grep -qE '^(<\?xml|<svg)' <(head -n 1 "$svg")
expect inspect-svg grep -q '</svg>' "$svg"
expect inspect-svg grep -q 'direkt' "$svg"

run direkt-run "$installed/bin/direkt-run" --help
expect direkt-run grep -q "^usage: direkt-run demo" "$tmp/logs/direkt-run.log"

if [ "$mode" = test ]; then from="$(basename "$tarball"), unpacked in a fresh folder"; else from=$installed; fi
echo "dist-test: OK, $name ($from), PATH without java, no JAVA_HOME, ${#checked[@]} checks: ${checked[*]}"
