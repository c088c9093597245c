#!/usr/bin/env bash
# Debian's headers for its current 6.1 kernel (linux-headers-amd64, the kernel the importer's VM
# test boots), unpacked under build/kernel/ with apt-get download and dpkg-deb -x: nothing is
# installed on the system. Prints the kernel tree to build modules against (make -C <tree> M=...).
# On a user's machine the importer builds against /lib/modules/$(uname -r)/build instead.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/build/kernel"

depends() { apt-cache depends "$1" 2>/dev/null | awk '$1 == "Depends:" {print $2}'; }

meta=$(depends linux-headers-amd64 | grep '^linux-headers-' | head -n 1 || true)
if [ -z "$meta" ]; then
  # a fresh machine may have no package lists yet
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  meta=$(depends linux-headers-amd64 | grep '^linux-headers-' | head -n 1 || true)
fi
[ -n "$meta" ] || { echo "kernel-headers: apt knows no linux-headers-amd64 (is this Debian 12?)" >&2; exit 1; }
abi=${meta#linux-headers-}
tree="$out/root/usr/src/linux-headers-$abi"
if [ ! -f "$tree/.direkt-ready" ]; then
  rm -rf "$out/root" "$out/debs"
  mkdir -p "$out/debs" "$out/root"
  pkgs=("$meta")
  for d in $(depends "$meta"); do
    case "$d" in linux-headers-*|linux-kbuild-*) pkgs+=("$d") ;; esac
  done
  echo "kernel-headers: fetching ${pkgs[*]}" >&2
  (cd "$out/debs" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1) \
    || { echo "kernel-headers: apt-get download ${pkgs[*]} failed" >&2; exit 1; }
  for deb in "$out"/debs/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
  # The flavour's Makefile includes the common tree by its absolute installed path: point it here.
  sed -i "s|/usr/src/|$out/root/usr/src/|" "$tree/Makefile"
  [ -e "$tree/scripts/mod/modpost" ] || { echo "kernel-headers: $tree has no kbuild tools (modpost)" >&2; exit 1; }
  touch "$tree/.direkt-ready"
fi
echo "$tree"
