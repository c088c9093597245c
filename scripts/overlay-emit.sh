#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Emitter stand-in for the cocotb runner (DIREKT_EMIT_CMD): instead of generating the bridge, hand
# the runner the IP and manifest an overlay already wrote, so a bench simulates exactly those files.
#   overlay-emit.sh OVERLAY_DIR bridge [key=value ...] --out DIR
# Follows the emitter contract of sim/direkt_sim/emit.py: one line per file written, then "top <module>".
set -euo pipefail
overlay=$1; shift
name=$1; shift
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    *=*) shift ;;
    *) echo "overlay-emit: unexpected argument '$1'" >&2; exit 2 ;;
  esac
done
[ "$name" = bridge ] || { echo "overlay-emit: only the bridge comes from an overlay, not '$name'" >&2; exit 2; }
[ -n "$out" ] || { echo "overlay-emit: no --out" >&2; exit 2; }
[ -f "$overlay/direkt-overlay.json" ] || { echo "overlay-emit: $overlay is not an overlay (no direkt-overlay.json)" >&2; exit 2; }
mkdir -p "$out"
for f in "$overlay"/ip/*.v "$overlay/direkt-overlay.json"; do
  cp "$f" "$out/"
  echo "$out/$(basename "$f")"
done
echo "top direkt_bridge"
