#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what direkt needs and is missing; does nothing when everything is there.
#   Debian packages: the simulators, synthesis and formal tools, OpenCL (PoCL), Maven.
#   .venv: the pinned Python packages of sim/, bench/ and scripts/requirements*.txt and docs/requirements.txt.
#   ~/.m2: the Maven dependencies of the build.
set -euo pipefail
cd "$(dirname "$0")/.."

# g++, make and zlib are what Verilator needs to compile a model with FST tracing; gcc and the OpenCL
# headers build the small host program that runs the generated kernel header under PoCL; tcl runs the
# generated Platform Designer scripts against a recording stand-in. gcc-12 is the compiler Debian's
# 6.1 kernel was built with, which the importer module must be built with too; qemu-system-x86 boots
# that kernel for the importer's VM test (make test-importer). ccache: every Verilator build of a
# bench compiles the same runtime files (verilated*.cpp); through ccache they compile once a machine.
APT_PACKAGES=(verilator iverilog yosys z3 tcl pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers gcc gcc-12 maven g++ make zlib1g-dev python3-venv qemu-system-x86 patch ccache)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v yosys-smtbmc >/dev/null || { echo "setup: yosys-smtbmc not found although yosys is installed" >&2; exit 1; }

if [ ! -x "${JAVA_HOME:-/nonexistent}/bin/javac" ]; then
  echo "setup: the Temurin 25 JDK is not at JAVA_HOME=${JAVA_HOME:-<unset>}; direkt needs Java 25 (FFM API)" >&2
  exit 1
fi

# Python venv with the pinned simulation, bench, ecosystem and documentation packages; reinstalled only when a
# requirements file changes. All files go to one pip run, so its resolver checks them against each other.
REQUIREMENTS=(sim/requirements.txt bench/requirements.txt scripts/requirements-ecosystem.txt docs/requirements.txt)
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
stale=0
[ -f .venv/.installed ] || stale=1
pip_args=()
for r in "${REQUIREMENTS[@]}"; do
  if [ "$r" -nt .venv/.installed ]; then stale=1; fi
  pip_args+=(-r "$r")
done
if [ "$stale" -eq 1 ]; then
  echo "setup: installing ${REQUIREMENTS[*]} into .venv"
  .venv/bin/pip install -q --disable-pip-version-check "${pip_args[@]}"
  touch .venv/.installed
fi

# Maven dependencies and plugins, fetched once per change of any pom.
stamp=target/.maven-resolved
if [ ! -f "$stamp" ] || [ -n "$(find . -name pom.xml -newer "$stamp" -not -path './.venv/*' | head -1)" ]; then
  echo "setup: resolving Maven dependencies"
  # go-offline leaves the reactor's own modules out, so it works before anything is built.
  mvn -B -q dependency:go-offline >/dev/null
  mkdir -p target && touch "$stamp"
fi
