#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs what the GPU machine needs to run the host runtime's GPU tests and benchmarks: it has no
# Java, so this builds build/gpu/ with a jlinked Java runtime, the host runtime's classes and tests,
# their dependencies and the JUnit console launcher, plus build/gpu/run.sh to start them there:
#   bash build/gpu/run.sh tests   # the @Tag("gpu") tests; reports into $OUT (or build/gpu/out), and there the copy
#                                 # engine's rate to pinned memory (aperture-gpu-<device>.json, ApertureRateGpuTest)
#   bash build/gpu/run.sh bench   # the GPU benchmark (Java and the C reference program; options
#                                 # such as --forks 4 --rounds 5 or --pin thread go on to GpuBench;
#                                 # its servers run under taskset, which the machine must have)
#   bash build/gpu/run.sh bounce  # the fallback path's CUDA half (pinned copies): $OUT/bounce-<device>.json
#   bash build/gpu/run.sh runtime # the address-table and pin-cache benchmark: $OUT/runtime.json
# Needs `make build`; run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH="$JAVA_HOME/bin:$PATH"
export MAVEN_OPTS=${MAVEN_OPTS:---sun-misc-unsafe-memory-access=allow}
out=build/gpu
rm -rf "$out"
mkdir -p "$out/lib" "$out/classes" "$out/test-classes"

if ! log=$(mvn -B -q -o package -DskipTests -pl host-runtime -am 2>&1); then
  echo "$log" >&2
  echo "gpu-bundle: the host runtime did not build (the errors are above)" >&2
  exit 1
fi
cp -r host-runtime/target/classes/. "$out/classes/"
cp -r host-runtime/target/test-classes/. "$out/test-classes/"
tr ':' '\n' < host-runtime/target/classpath.txt | while read -r jar || [ -n "$jar" ]; do [ -n "$jar" ] && cp "$jar" "$out/lib/"; done
mvn -B -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.11.4 \
  -DoutputDirectory="$out/tools" >/dev/null
mkdir -p "$out/c" && cp host-runtime/src/test/c/*.c "$out/c/"
# A prebuilt copy of the C reference, for a GPU machine without a C compiler.
gcc -O2 -o "$out/c/gpu_bench" host-runtime/src/test/c/gpu_bench.c -ldl
gcc -O2 -shared -fPIC -DGPU_BENCH_LIBRARY -o "$out/c/libgpu_bench.so" host-runtime/src/test/c/gpu_bench.c -ldl

# The smallest runtime that runs the launcher and the FFM code: no debug symbols, compressed.
"$JAVA_HOME/bin/jlink" --add-modules java.base,java.logging,java.management,java.scripting,java.xml,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-man-pages --no-header-files --compress=zip-6 --output "$out/jre"

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine (no Java installed): see scripts/gpu-bundle.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
results=${OUT:-$here/out}
mkdir -p "$results"
cp="$here/classes:$here/test-classes:$(ls "$here"/lib/*.jar | tr '\n' ':')"
java="$here/jre/bin/java"
case "${1:-tests}" in
  tests)
    OUT="$results" "$java" --enable-native-access=ALL-UNNAMED -jar "$here"/tools/junit-platform-console-standalone-*.jar execute \
      --class-path "$cp" --scan-class-path "$here/test-classes" --include-tag gpu --details=tree --disable-banner \
      --reports-dir "$results/reports" 2>&1 | tee "$results/gpu-tests.txt"
    ;;
  bench)
    # A heap of fixed size touched at start: its pages stay mapped, as the C side keeps its freed
    # memory mapped (mallopt); otherwise G1 places new objects on pages never touched before and
    # each table build pays their page faults (measured: 1.5x the table time, in some runs only).
    "$java" --enable-native-access=ALL-UNNAMED -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "$cp" org.direkt.runtime.bench.GpuBench \
      "$results" "$here/c" "${@:2}" \
      2>&1 | tee "$results/gpu-bench.txt"
    ;;
  bounce)
    "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" org.direkt.runtime.bench.BounceBench --out "$results" \
      2>&1 | tee "$results/bounce-bench.txt"
    ;;
  runtime)
    "$java" -cp "$cp" org.direkt.runtime.bench.RuntimeBench --out "$results/runtime.json" 2>&1 | tee "$results/runtime-bench.txt"
    ;;
  *) echo "run.sh: tests | bench | bounce | runtime" >&2; exit 2 ;;
esac
RUN
chmod +x "$out/run.sh"
du -sh "$out" | awk '{print "gpu bundle: " $1 " in '"$out"'"}'
