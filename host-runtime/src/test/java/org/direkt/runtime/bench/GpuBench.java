package org.direkt.runtime.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.GpuDevice;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.pcie.AddressTable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * GPU benchmark (GPU machine only): for 1 MB .. 1 GB, the time to allocate, set SYNC_MEMOPS,
 * export a dma-buf and build the PCIe address table, in Java (this runtime, FFM) and in C (the
 * reference program {@code host-runtime/src/test/c/gpu_bench.c}, same steps, same simulated page
 * placement: every 7th page moved, and the same table checks: alignment, no shared bus address).
 *
 * <p>The two are measured side by side: the C program runs as a server ({@code gpu_bench --serve})
 * and both it and this thread are pinned to one CPU; for every size, each round runs a block of C
 * samples and a block of Java samples back to back (which goes first alternates by round). The
 * machine's drift (other tenants, clock changes) then reaches both alike, where separate runs
 * seconds apart differed by half. The verdict is per size. Writes {@code gpu-<device>.json} with the
 * device name and driver version into the results directory.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp ... org.direkt.runtime.bench.GpuBench OUT_DIR C_DIR [rounds [block [cpu]]]</pre>
 * (build/gpu/run.sh bench does this on the GPU machine; see scripts/gpu-bundle.sh). C_DIR holds
 * gpu_bench.c and, if the machine has no C compiler, a prebuilt gpu_bench. The CPU defaults to
 * the last one. The heap is fixed and touched at start for the reason the C side keeps freed memory
 * mapped: with pages faulted in on first use, the table builds pay page faults the C side does not.
 */
public final class GpuBench {
    private GpuBench() {
    }

    private static final long PAGE = AddressTable.PAGE_SIZE;
    private static final long BAR_BASE = 0x380_0000_0000L;
    /** Java/C at every size, each size on its own. */
    static final double TARGET = 1.10;
    private static final String[] STEPS = {"alloc", "sync_memops", "export", "table"};
    private static final long FIRST = 1L << 20;
    private static final long LAST = 1L << 30;
    private static final int WARM_SEQUENCES = 20_000;
    private static final int WARM_TABLE_ROUNDS = 2_000;

    /** The placement gpu_bench.c uses: in order, except every 7th page sits after the region. */
    static long[] pages(long bytes) {
        int n = (int) (bytes / PAGE);
        long[] bus = new long[n];
        for (int i = 0; i < n; i++) {
            bus[i] = i % 7 == 6 ? BAR_BASE + ((long) n + i) * PAGE : BAR_BASE + (long) i * PAGE;
        }
        return bus;
    }

    /** Samples of one side at one size: totals and the four steps, in microseconds. */
    static final class Samples {
        final List<Double> total = new ArrayList<>();
        final List<List<Double>> steps = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        int segments;

        void add(double t, double[] step) {
            total.add(t);
            for (int k = 0; k < STEPS.length; k++) {
                steps.get(k).add(step[k]);
            }
        }

        Map<String, Object> stepMedians() {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int k = 0; k < STEPS.length; k++) {
                m.put(STEPS[k], round(median(steps.get(k))));
            }
            return m;
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "build/gpu/out");
        Path cdir = Path.of(args.length > 1 ? args[1] : "host-runtime/src/test/c");
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        int block = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int cpu = args.length > 4 ? Integer.parseInt(args[4]) : Runtime.getRuntime().availableProcessors() - 1;
        Files.createDirectories(out);
        Cuda cuda = Cuda.load();
        cuda.init();
        int dev = cuda.device(0);
        GpuDevice info = GpuDevice.query(cuda, 0);
        var ctx = cuda.primaryContextRetain(dev);
        cuda.setCurrentContext(ctx);
        // After the context, as the C program does: the driver's threads keep every CPU.
        Libc.pinCurrentThread(cpu);

        // The page addresses are made before anything is timed, on both sides: the runtime is
        // handed them (by the importer), it does not make them.
        Map<Long, long[]> placement = new LinkedHashMap<>();
        for (long size = FIRST; size <= LAST; size <<= 1) {
            placement.put(size, pages(size));
        }
        // Warm-up, so the numbers are the runtime's steady state rather than the interpreter's or
        // the profiling compiler's: the table build at every size in turn first (the optimizing
        // compiler shapes its loops by the trip counts it profiled, so it must see the sizes the
        // benchmark measures, not 1 MB alone), then enough whole sequences that every method on
        // the path reaches the optimizing compiler (its threshold is some thousands of calls).
        for (int i = 0; i < WARM_TABLE_ROUNDS; i++) {
            for (long size = FIRST; size <= LAST; size <<= 1) {
                AddressTable.of(0x7f00_0000_0000L, size, placement.get(size));
            }
        }
        for (int i = 0; i < WARM_SEQUENCES; i++) {
            javaSample(cuda, FIRST, placement.get(FIRST), null);
        }

        long jitBefore;
        long gcBefore;
        Map<Long, Samples> java = new LinkedHashMap<>();
        Map<Long, Samples> c = new LinkedHashMap<>();
        Map<Long, Samples> cInJvm = new LinkedHashMap<>();
        try (CReference ref = CReference.start(cdir, out, cpu); Arena arena = Arena.ofConfined()) {
            CInJvm inJvm = CInJvm.load(cdir, out);
            Map<Long, MemorySegment> nativePlacement = new LinkedHashMap<>();
            for (long size = FIRST; size <= LAST; size <<= 1) {
                nativePlacement.put(size, arena.allocateFrom(ValueLayout.JAVA_LONG, placement.get(size)));
            }
            // The C side's warm-up is the same driver work, so both processes bring the same
            // allocation history to the measurement (the driver's allocators remember it).
            ref.samples(FIRST, WARM_SEQUENCES, null);
            jitBefore = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
            gcBefore = gcCount();
            for (long size = FIRST; size <= LAST; size <<= 1) {
                java.put(size, new Samples());
                c.put(size, new Samples());
                cInJvm.put(size, new Samples());
            }
            for (int round = 0; round < rounds; round++) {
                for (long size = FIRST; size <= LAST; size <<= 1) {
                    // three sides back to back, each going first, second and third in turn
                    for (int k = 0; k < 3; k++) {
                        switch ((round + k) % 3) {
                            case 0 -> ref.samples(size, block, c.get(size));
                            case 1 -> {
                                for (int r = 0; r < block; r++) {
                                    javaSample(cuda, size, placement.get(size), java.get(size));
                                }
                            }
                            default -> {
                                for (int r = 0; r < block; r++) {
                                    inJvm.sample(size, nativePlacement.get(size), cInJvm.get(size));
                                }
                            }
                        }
                    }
                }
            }
        }

        // What the JVM did beside the measurement (compilations and collections compete with it).
        long jitMs = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jitBefore;
        long gcs = gcCount() - gcBefore;
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean everySize = true;
        for (long size = FIRST; size <= LAST; size <<= 1) {
            Samples js = java.get(size);
            Samples cs = c.get(size);
            double mj = median(js.total);
            double mc = median(cs.total);
            boolean meets = mj / mc <= TARGET; // the verdict holds per size
            everySize &= meets;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("bytes", size);
            row.put("java_median_us", round(mj));
            row.put("c_median_us", round(mc));
            row.put("ratio", round(mj / mc));
            row.put("meets_target", meets);
            row.put("samples", js.total.size());
            row.put("segments", js.segments);
            if (js.segments != cs.segments) {
                throw new IllegalStateException(size + " bytes: Java built " + js.segments + " segments, C " + cs.segments);
            }
            row.put("java_steps_median_us", js.stepMedians());
            row.put("c_steps_median_us", cs.stepMedians());
            // The same C code inside this process: what separates it from Java is the Java code
            // alone; what separates it from the C process is the process (address space, threads).
            Samples ij = cInJvm.get(size);
            row.put("c_in_jvm_median_us", round(median(ij.total)));
            row.put("java_to_c_in_jvm", round(mj / median(ij.total)));
            row.put("c_in_jvm_steps_median_us", ij.stepMedians());
            rows.add(row);
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("what", "allocate + SYNC_MEMOPS + dma-buf export + PCIe address table (64 KB pages), Java FFM runtime vs C driver-API "
                + "program, side by side: both pinned to CPU " + cpu + ", " + rounds + " rounds, each running " + block
                + " C and " + block + " Java samples per size back to back (order alternating by round); medians over all "
                + rounds * block + " samples per side; Java after a JIT warm-up (" + WARM_TABLE_ROUNDS + " table builds at every size, then " + WARM_SEQUENCES
                + " sequences at 1 MB), "
                + "C after the same " + WARM_SEQUENCES + " sequences at 1 MB");
        res.put("device", info.name());
        res.put("pci", info.pciBusId());
        res.put("driver", Cuda.formatVersion(cuda.driverVersion()));
        res.put("dma_buf_supported", info.dmaBufSupported());
        res.put("cpu", cpu);
        res.put("jvm_options", ManagementFactory.getRuntimeMXBean().getInputArguments());
        res.put("jit_ms_while_measuring", jitMs);
        res.put("gcs_while_measuring", gcs);
        res.put("sizes", rows);
        res.put("target_ratio", TARGET);
        res.put("meets_target", everySize);
        String name = "gpu-" + info.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "") + ".json";
        Files.writeString(out.resolve(name), new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(res) + "\n");
        for (Map<String, Object> row : rows) {
            System.out.printf("GpuBench: %10d B  Java %8.2f us  C %8.2f us  ratio %s  %s  (C in the JVM %8.2f us)  Java steps %s  C steps %s"
                    + "  C-in-JVM steps %s%n",
                    row.get("bytes"), row.get("java_median_us"), row.get("c_median_us"), row.get("ratio"),
                    (Boolean) row.get("meets_target") ? "meets" : "MISSES", row.get("c_in_jvm_median_us"),
                    row.get("java_steps_median_us"), row.get("c_steps_median_us"), row.get("c_in_jvm_steps_median_us"));
        }
        System.out.println("GpuBench: " + out.resolve(name) + ": " + (everySize ? "every size meets" : "NOT every size meets")
                + " Java/C <= " + TARGET);
        cuda.primaryContextRelease(dev);
    }

    /** One buffer through the runtime, timed by step; {@code into} null for warm-up. */
    private static void javaSample(Cuda cuda, long size, long[] placement, Samples into) {
        long t0 = System.nanoTime();
        long p = cuda.memAlloc(size);
        long ta = System.nanoTime();
        cuda.setSyncMemops(p, true);
        long tb = System.nanoTime();
        int fd = cuda.exportDmaBuf(p, size, 0);
        long tc = System.nanoTime();
        AddressTable table = AddressTable.of(p, size, placement);
        long t1 = System.nanoTime();
        Libc.close(fd);
        cuda.memFree(p);
        if (into != null) {
            into.add((t1 - t0) / 1e3, new double[] {(ta - t0) / 1e3, (tb - ta) / 1e3, (tc - tb) / 1e3, (t1 - tc) / 1e3});
            into.segments = table.segmentCount();
        }
    }

    private static long gcCount() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(b -> Math.max(0, b.getCollectionCount())).sum();
    }

    private static double median(List<Double> v) {
        List<Double> sorted = new ArrayList<>(v);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /** The C reference as a server: one "BYTES COUNT" line in, one JSON line of samples out. */
    private static final class CReference implements AutoCloseable {
        private final Process process;
        private final BufferedWriter in;
        private final BufferedReader outLines;
        private final ObjectMapper json = new ObjectMapper();

        private CReference(Process process) {
            this.process = process;
            this.in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII));
            this.outLines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        /** Compiles the reference (when a compiler is there, else takes the prebuilt one) and starts it. */
        static CReference start(Path cdir, Path out, int cpu) throws IOException, InterruptedException {
            Path exe = out.resolve("gpu_bench");
            boolean built;
            try {
                Process cc = new ProcessBuilder("gcc", "-O2", "-o", exe.toString(), cdir.resolve("gpu_bench.c").toString(), "-ldl")
                        .redirectErrorStream(true).start();
                String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                built = cc.waitFor() == 0;
                if (!built && !log.isBlank()) {
                    System.out.println("GpuBench: gcc: " + log.strip());
                }
            } catch (IOException e) {
                built = false;
            }
            if (!built) {
                exe = cdir.resolve("gpu_bench");
                System.out.println("GpuBench: no C compiler here; using the prebuilt " + exe);
            }
            Process p = new ProcessBuilder(exe.toString(), "--serve", "--cpu", Integer.toString(cpu))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new CReference(p);
        }

        void samples(long size, int count, Samples into) throws IOException {
            in.write(size + " " + count + "\n");
            in.flush();
            String line = outLines.readLine();
            if (line == null) {
                throw new IllegalStateException("the C reference ended without answering " + size + " bytes x " + count
                        + " (exit " + waitExit() + "; its error is above)");
            }
            JsonNode n = json.readTree(line);
            if (into == null) {
                return;
            }
            JsonNode steps = n.get("steps_us");
            for (int r = 0; r < count; r++) {
                double[] step = new double[STEPS.length];
                for (int k = 0; k < STEPS.length; k++) {
                    step[k] = steps.get(STEPS[k]).get(r).asDouble();
                }
                into.add(n.get("samples_us").get(r).asDouble(), step);
            }
            into.segments = n.get("segments").asInt();
        }

        private int waitExit() {
            try {
                return process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
            int rc = waitExit();
            if (rc != 0) {
                throw new IllegalStateException("the C reference failed (exit " + rc + ")");
            }
        }
    }

    /** The C reference's sample built as a library and called in this process (see gpu_bench.c). */
    private static final class CInJvm {
        private final MethodHandle sample;
        private final MemorySegment out = Arena.global().allocate(ValueLayout.JAVA_DOUBLE, 5);

        private CInJvm(MethodHandle sample) {
            this.sample = sample;
        }

        @SuppressWarnings("restricted") // a benchmark's own library, run with --enable-native-access
        static CInJvm load(Path cdir, Path out) throws IOException, InterruptedException {
            Path lib = out.toAbsolutePath().resolve("libgpu_bench.so");
            Process cc = new ProcessBuilder("gcc", "-O2", "-shared", "-fPIC", "-DGPU_BENCH_LIBRARY", "-o", lib.toString(),
                    cdir.resolve("gpu_bench.c").toString(), "-ldl").redirectErrorStream(true).start();
            cc.getInputStream().readAllBytes();
            if (cc.waitFor() != 0) {
                lib = cdir.toAbsolutePath().resolve("libgpu_bench.so");
            }
            Linker linker = Linker.nativeLinker();
            SymbolLookup symbols = SymbolLookup.libraryLookup(lib, Arena.global());
            MethodHandle bind = linker.downcallHandle(symbols.find("gpu_bench_bind").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
            try {
                if ((int) bind.invokeExact() != 0) {
                    throw new IllegalStateException(lib + ": gpu_bench_bind found no libcuda.so.1 loaded in this process");
                }
            } catch (Throwable t) {
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }
            return new CInJvm(linker.downcallHandle(symbols.find("gpu_bench_sample").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS)));
        }

        void sample(long size, MemorySegment placement, Samples into) {
            long segments;
            try {
                segments = (long) sample.invokeExact(size, placement, out);
            } catch (Throwable t) {
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }
            into.add(out.getAtIndex(ValueLayout.JAVA_DOUBLE, 0), new double[] {out.getAtIndex(ValueLayout.JAVA_DOUBLE, 1),
                out.getAtIndex(ValueLayout.JAVA_DOUBLE, 2), out.getAtIndex(ValueLayout.JAVA_DOUBLE, 3),
                out.getAtIndex(ValueLayout.JAVA_DOUBLE, 4)});
            into.segments = (int) segments;
        }
    }
}
