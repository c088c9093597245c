// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.direkt.runtime.pcie.Transfer;
import org.direkt.runtime.pin.Lease;
import org.direkt.runtime.pin.PinCache;
import org.direkt.runtime.pin.PinRange;
import org.direkt.runtime.pin.Pinner;

/**
 * Measures the host runtime's address tables and pin cache; not a test. From the repository root:
 *
 * <pre>
 * export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=$JAVA_HOME/bin:$PATH MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow
 * mvn -B -q -o test-compile -pl host-runtime
 * mvn -B -q -o dependency:build-classpath -pl host-runtime -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test
 * java -cp host-runtime/target/classes:host-runtime/target/test-classes:$(cat host-runtime/target/bench-classpath.txt) \
 *     org.direkt.runtime.bench.RuntimeBench [--out bench/results/runtime.json] [--append]
 * </pre>
 *
 * It writes {@code {"runs": [run]}} to the output (default {@code bench/results/runtime.json});
 * {@code --append} adds the run to the runs already in the file. A run holds the machine (CPUs,
 * Java, OS) and:
 * <ul>
 * <li>{@code table_build_1gb}: {@link AddressTable#of} for 1 GB in 64 KB pages (16,384 bus
 *     addresses), contiguous and fragmented (simulated importer, fragmentation 0.5), median and
 *     minimum microseconds over repeated builds after warm-up;</li>
 * <li>{@code split_1gb}: {@link AddressTable#split} of the whole 1 GB into mover descriptors, same
 *     two tables, with the number of pieces;</li>
 * <li>{@code pin_cache_hit}: nanoseconds per hit (a {@code pin} of a cached range and the
 *     {@code close} of its lease), one thread, and 8 threads on one range and on a range each
 *     (per-thread latency: wall time / hits per thread; aggregate hits per second).</li>
 * </ul>
 */
public final class RuntimeBench {
    private static final long P = AddressTable.PAGE_SIZE;
    private static final int PAGES_1GB = 16_384;
    private static final long GPU = 0x7f00_0000_0000L;
    private static volatile long sink;

    private RuntimeBench() {
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of("bench/results/runtime.json");
        boolean append = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--append" -> append = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (use --out FILE, --append)");
            }
        }
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode run = f.objectNode();
        ObjectNode machine = run.putObject("machine");
        machine.put("cpus", Runtime.getRuntime().availableProcessors());
        machine.put("java_version", System.getProperty("java.version"));
        machine.put("java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        machine.put("arch", System.getProperty("os.arch"));
        machine.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);

        long[] flat = new long[PAGES_1GB];
        for (int i = 0; i < PAGES_1GB; i++) {
            flat[i] = 0x40_0000_0000L + i * P;
        }
        long[] fragmented = new SimulatedImporter(0x40_0000_0000L, 4L << 30, 0.5, 1)
                .importDmaBuf(3, 0, PAGES_1GB * P).pageBusAddresses();

        ObjectNode build = run.putObject("table_build_1gb");
        ObjectNode split = run.putObject("split_1gb");
        for (var c : List.of(new Object[] {"contiguous", flat}, new Object[] {"fragmented_0.5", fragmented})) {
            String name = (String) c[0];
            long[] pages = (long[]) c[1];
            AddressTable t = AddressTable.of(GPU, PAGES_1GB * P, pages);
            // Warm-up long enough that the optimizing compiler has compiled the build (a few hundred
            // builds leave it to the profiling tier or to compilation still running).
            ObjectNode b = timing(build.putObject(name), WARM, 200, () -> AddressTable.of(GPU, PAGES_1GB * P, pages).segmentCount());
            b.put("pages", PAGES_1GB);
            b.put("segments", t.segmentCount());
            List<Transfer> pieces = t.split(0, PAGES_1GB * P);
            ObjectNode s = timing(split.putObject(name), WARM, 200, () -> t.split(0, PAGES_1GB * P).size());
            s.put("pieces", pieces.size());
            s.put("largest_piece_bytes", pieces.stream().mapToInt(Transfer::bytes).max().orElseThrow());
            System.out.printf("1 GB %-15s build %8.1f us (%d segments), split %8.1f us (%d pieces)%n", name,
                    b.get("median_us").asDouble(), t.segmentCount(), s.get("median_us").asDouble(), pieces.size());
        }

        ObjectNode hit = run.putObject("pin_cache_hit");
        hit.put("what", "ns per hit: pin() of a cached range + close() of its lease");
        double single = singleThreadHit();
        hit.put("single_thread_ns", round(single));
        System.out.printf("pin-cache hit, 1 thread: %.1f ns%n", single);
        for (boolean shared : new boolean[] {true, false}) {
            ObjectNode m = hit.putObject(shared ? "threads_8_one_range" : "threads_8_range_each");
            multiThreadHit(8, shared, m);
            System.out.printf("pin-cache hit, 8 threads, %s: %.1f ns per hit per thread, %.2f M hits/s in all%n",
                    shared ? "one range" : "a range each", m.get("per_thread_ns").asDouble(),
                    m.get("aggregate_hits_per_s").asDouble() / 1e6);
        }

        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode doc = f.objectNode();
        ArrayNode runs = doc.putArray("runs");
        if (append && Files.exists(out)) {
            json.readTree(out.toFile()).path("runs").forEach(runs::add);
        }
        runs.add(run);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json.writeValueAsString(doc) + "\n");
        System.out.println("wrote " + out);
    }

    /** Warm-up runs before each timed series. */
    private static final int WARM = 5_000;

    /** Runs {@code body} {@code warmup} times, then {@code reps} timed times; fills median/min microseconds. */
    private static ObjectNode timing(ObjectNode node, int warmup, int reps, LongSupplier body) {
        long acc = 0;
        for (int i = 0; i < warmup; i++) {
            acc += body.getAsLong();
        }
        long[] ns = new long[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            acc += body.getAsLong();
            ns[i] = System.nanoTime() - t0;
        }
        sink = acc;
        Arrays.sort(ns);
        node.put("median_us", round(ns[reps / 2] / 1e3));
        node.put("min_us", round(ns[0] / 1e3));
        node.put("reps", reps);
        return node;
    }

    private static PinCache<long[]> cache() {
        return PinCache.lru(1L << 30, Pinner.of(r -> new long[] {r.gpuBase()}, (r, v) -> { }));
    }

    private static double singleThreadHit() {
        PinCache<long[]> cache = cache();
        PinRange range = new PinRange(GPU, P);
        cache.pin(range).close();
        int n = 2_000_000;
        double[] rounds = new double[7];
        for (int warm = 0; warm < 3; warm++) {
            hits(cache, range, n);
        }
        for (int r = 0; r < rounds.length; r++) {
            long t0 = System.nanoTime();
            hits(cache, range, n);
            rounds[r] = (System.nanoTime() - t0) / (double) n;
        }
        Arrays.sort(rounds);
        return rounds[rounds.length / 2];
    }

    private static void hits(PinCache<long[]> cache, PinRange range, int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            try (Lease<long[]> l = cache.pin(range)) {
                acc += l.pinned()[0];
            }
        }
        sink = acc;
    }

    private static void multiThreadHit(int threads, boolean shared, ObjectNode node) throws InterruptedException {
        PinCache<long[]> cache = cache();
        PinRange[] ranges = new PinRange[threads];
        for (int t = 0; t < threads; t++) {
            ranges[t] = shared ? new PinRange(GPU, P) : new PinRange(GPU + t * P, P);
            cache.pin(ranges[t]).close();
        }
        int n = 500_000;
        for (int warm = 0; warm < 2; warm++) {
            parallel(cache, ranges, n);
        }
        double[] wall = new double[5];
        for (int r = 0; r < wall.length; r++) {
            wall[r] = parallel(cache, ranges, n);
        }
        Arrays.sort(wall);
        double median = wall[wall.length / 2];
        node.put("threads", threads);
        node.put("hits_per_thread", n);
        node.put("per_thread_ns", round(median / n));
        node.put("aggregate_hits_per_s", Math.round(threads * (double) n / (median / 1e9)));
    }

    /** Wall nanoseconds for every thread to make n hits on its range. */
    private static double parallel(PinCache<long[]> cache, PinRange[] ranges, int n) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(ranges.length);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (PinRange range : ranges) {
            threads.add(Thread.ofPlatform().start(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                hits(cache, range, n);
            }));
        }
        ready.await();
        long t0 = System.nanoTime();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        return System.nanoTime() - t0;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
