#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Debian's current 6.1 kernel for the importer (host-runtime/driver), unpacked under build/kernel/
# with apt-get download and dpkg-deb -x: nothing is installed on the system.
#   scripts/kernel.sh headers   prints the kernel tree to build modules against (make -C <tree> M=...)
#   scripts/kernel.sh vm        prints "<vmlinuz> <busybox>": the matching kernel image and a static
#                               busybox, for the importer's VM test
# On a user's machine the importer builds against /lib/modules/$(uname -r)/build instead.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/build/kernel"
what=${1:-headers}

depends() { apt-cache depends "$1" 2>/dev/null | awk '$1 == "Depends:" {print $2}'; }

# Downloads the packages named after $2.. into build/kernel/$1 and unpacks them there.
unpack() {
  local dir="$out/$1"; shift
  rm -rf "$dir" "$dir.debs"
  mkdir -p "$dir.debs" "$dir"
  echo "kernel: fetching $*" >&2
  (cd "$dir.debs" && apt-get download -q "$@" >/dev/null 2>&1) \
    || { echo "kernel: apt-get download $* failed" >&2; exit 1; }
  for deb in "$dir.debs"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  rm -rf "$dir.debs" "$dir/lib/modules"  # the VM test loads only the project's own modules
}

meta=$(depends linux-headers-amd64 | grep '^linux-headers-' | head -n 1 || true)
if [ -z "$meta" ]; then
  # a fresh machine may have no package lists yet
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  meta=$(depends linux-headers-amd64 | grep '^linux-headers-' | head -n 1 || true)
fi
[ -n "$meta" ] || { echo "kernel: apt knows no linux-headers-amd64 (is this Debian 12?)" >&2; exit 1; }
abi=${meta#linux-headers-}

case "$what" in
headers)
  tree="$out/root/usr/src/linux-headers-$abi"
  if [ ! -f "$tree/.direkt-ready" ]; then
    pkgs=("$meta")
    for d in $(depends "$meta"); do
      case "$d" in linux-headers-*|linux-kbuild-*) pkgs+=("$d") ;; esac
    done
    unpack root "${pkgs[@]}"
    # The flavour's Makefile includes the common tree by its absolute installed path: point it here.
    sed -i "s|/usr/src/|$out/root/usr/src/|" "$tree/Makefile"
    [ -e "$tree/scripts/mod/modpost" ] || { echo "kernel: $tree has no kbuild tools (modpost)" >&2; exit 1; }
    touch "$tree/.direkt-ready"
  fi
  echo "$tree"
  ;;
vm)
  vmlinuz="$out/vm/boot/vmlinuz-$abi"
  busybox="$out/vm/bin/busybox"
  if [ ! -f "$out/vm/.direkt-ready-$abi" ]; then
    # the signed image when the archive has it (same kernel), else the unsigned one
    image="linux-image-$abi"
    apt-cache show "$image" >/dev/null 2>&1 || image="linux-image-$abi-unsigned"
    unpack vm "$image" busybox-static
    [ -f "$vmlinuz" ] || { echo "kernel: $image has no boot/vmlinuz-$abi" >&2; exit 1; }
    [ -x "$busybox" ] || { echo "kernel: busybox-static has no bin/busybox" >&2; exit 1; }
    touch "$out/vm/.direkt-ready-$abi"
  fi
  echo "$vmlinuz $busybox"
  ;;
*)
  echo "usage: scripts/kernel.sh headers|vm" >&2
  exit 2
  ;;
esac
