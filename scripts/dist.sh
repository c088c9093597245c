#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs an installable direkt that needs no Java on the machine it runs on:
#   build/dist/direkt-<version>-linux-x86_64.tar.gz, one top folder direkt-<version>/ holding
#   bin/direkt, bin/direkt-run  launchers that run only the bundled runtime (never a java on PATH or JAVA_HOME)
#   runtime/                    a jlinked Java runtime (the modules jdeps finds in lib/, debug stripped, compressed)
#   lib/                        the module jars and their runtime dependencies
#   examples/                   the example board and kernels, README.md, LICENSE
#   docs/                       the documentation pages README.md links to, as Markdown
# <version> is the root pom's. The tarball is reproducible: sorted entries, owner and group 0, every
# mtime the last commit's time, gzip without a name or time. Needs `make build` (the module jars and
# each module's target/classpath.txt); run as `make dist` (which builds first). scripts/dist_test.sh
# (make test-dist) checks the result in a PATH without java.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}

die() { echo "dist: $*" >&2; exit 1; }

[ -x "$JAVA_HOME/bin/jlink" ] || die "no jlink at $JAVA_HOME/bin/jlink (direkt needs the Temurin 25 JDK; set JAVA_HOME)"
[ -x "$JAVA_HOME/bin/jdeps" ] || die "no jdeps at $JAVA_HOME/bin/jdeps"
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "the runtime is jlinked from this machine's JDK, so this packs linux-x86_64 only (this is $(uname -s)-$(uname -m))"

version=$(python3 -c 'import xml.etree.ElementTree as E; print(E.parse("pom.xml").getroot().findtext("{http://maven.apache.org/POM/4.0.0}version") or "")') \
  || die "cannot read the version from $root/pom.xml"
[ -n "$version" ] || die "$root/pom.xml has no <version> under <project>"
mtime=$(git log -1 --format=%ct) || die "cannot read the last commit's time (git log -1 in $root)"

name=direkt-$version
dist=build/dist
stage=$dist/$name
tarball=$dist/$name-linux-x86_64.tar.gz
rm -rf "$stage" "$tarball"
mkdir -p "$stage/bin" "$stage/lib"

# lib/: each launcher's module jar, then its classpath.txt (what Maven resolved, in Maven's order).
# classpath_of MODULE: prints the launcher's classpath as jar names, one a line, copying the jars into lib/.
classpath_of() {
  local module=$1 jar cpfile=$1/target/classpath.txt
  local own=$module/target/$module-$version.jar
  [ -f "$own" ] || die "$own is missing: run 'make build' first"
  [ -f "$cpfile" ] || die "$cpfile is missing: run 'make build' first"
  { echo "$root/$own"; tr ':' '\n' < "$cpfile"; } | while read -r jar || [ -n "$jar" ]; do
    [ -n "$jar" ] || continue
    case "$jar" in *.jar) ;; *) die "$cpfile names '$jar', which is not a jar: the launcher could not ship it" ;; esac
    [ -f "$jar" ] || die "$cpfile names $jar, which does not exist: run 'make build' first"
    cp "$jar" "$stage/lib/"
    basename "$jar"
  done
}
direkt_cp=$(classpath_of bsp-overlay)
run_cp=$(classpath_of host-runtime)
# launcher_cp NAMES: '$lib/a.jar:$lib/b.jar', for the launcher to expand.
launcher_cp() { sed 's|^|$lib/|' <<< "$1" | paste -sd: -; }

# runtime/: the modules jdeps finds in the jars, and java.xml by name: the overlay reads Platform
# Designer files with StAX (javax.xml.stream), which jdeps reports only through java.desktop.
modules=$("$JAVA_HOME/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 "$stage"/lib/*.jar 2>&1) \
  || { echo "$modules" >&2; die "jdeps failed on $stage/lib/*.jar (its output is above)"; }
modules="$modules,java.xml"
# --generate-cds-archive: the launchers run with -Xshare:auto as bin/direkt does, which wants the
# runtime's default class-data archive (a shorter start; it is the same bytes on every build).
if ! log=$("$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --compress=zip-6 --generate-cds-archive --output "$stage/runtime" 2>&1); then
  echo "$log" >&2
  die "jlink failed for modules $modules (its output is above)"
fi
[ -x "$stage/runtime/bin/java" ] || die "jlink wrote no $stage/runtime/bin/java"

# bin/: the launchers. Each finds its own folder through any symlinks (readlink -f) and runs
# runtime/bin/java with the JVM options of the source tree's bin/direkt and bin/direkt-run.
# launcher NAME DESCRIPTION JVM_OPTIONS CLASSPATH MAIN_CLASS
launcher() {
  local file=$stage/bin/$1
  cat > "$file" <<EOF
#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# $2 (the installed direkt, from scripts/dist.sh). It runs the Java runtime
# bundled beside it (runtime/bin/java), never a java on PATH or in JAVA_HOME.
self=\$(readlink -f -- "\${BASH_SOURCE[0]}") || { echo "$1: cannot find where \${BASH_SOURCE[0]} lives" >&2; exit 2; }
bin=\${self%/*}
here=\${bin%/*}
java=\$here/runtime/bin/java
lib=\$here/lib
if [ ! -x "\$java" ]; then
  echo "$1: the bundled Java runtime \$java is missing or not executable: unpack direkt-$version-linux-x86_64.tar.gz again" >&2
  exit 2
fi
exec "\$java" $3 -cp "$4" \\
  $5 "\$@"
EOF
  chmod 755 "$file"
}
# C1 only and the default CDS archive: a short-lived tool starts faster than it would tuned for peak speed.
launcher direkt "direkt command line: \`direkt --help\`" "-XX:TieredStopAtLevel=1 -Xshare:auto" \
  "$(launcher_cp "$direkt_cp")" org.direkt.overlay.cli.Main
# Unlike the source tree's bin/direkt-run it stays in the caller's folder: relative paths (--overlay) are the caller's.
launcher direkt-run "direkt host runtime: \`direkt-run --help\`" "--enable-native-access=ALL-UNNAMED" \
  "$(launcher_cp "$run_cp")" org.direkt.runtime.cli.DirektRun

# README, LICENSE, the documentation pages its links name, and the examples (of examples/, the tracked files only).
cp README.md LICENSE "$stage/"
mkdir -p "$stage/docs" && cp docs/*.md "$stage/docs/"
git ls-files -z examples | while IFS= read -r -d '' f; do
  mkdir -p "$stage/$(dirname "$f")" && cp "$f" "$stage/$f"
done
[ -f "$stage/examples/bsp/direkt_ref/hardware/direkt_ref/board_spec.xml" ] || die "the example board did not reach $stage/examples"

# The tarball: one fixed order, owner, mode and time, so the same commit packs the same bytes.
tar -C "$dist" --sort=name --format=gnu --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
  --mode='u+rwX,go+rX,go-w' -cf - "$name" | gzip -n > "$tarball.tmp" \
  || die "packing $tarball failed"
mv "$tarball.tmp" "$tarball"
echo "dist: $tarball ($(du -h "$tarball" | cut -f1), $(tar -tzf "$tarball" | grep -vc '/$') files, runtime modules $modules)"
