// SPDX-License-Identifier: Apache-2.0
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
 * <p>Both sides run as servers in processes of their own, several of each ("forks"): the C program
 * as {@code gpu_bench --serve}, the Java runtime as this class with {@code --serve} in a JVM started
 * with this JVM's options. This process only conducts: it never touches the GPU. A process's own
 * draw matters on these machines: the same C allocation loop, run in eight fresh processes one
 * after another, took from 44 to 131 us at 128 MB by process while varying little within one, and
 * the Java and C processes' spreads overlapped. One process per side made the verdict a coin toss
 * of two such draws; pooling several processes per side measures the languages instead.
 *
 * <p>Every server process runs on one CPU, all its threads: it is started under {@code taskset -c
 * CPU} (the driver's threads and a JVM's compiler and collector threads included). Pinning only the
 * thread that samples, as earlier versions did, left the JVMs' other threads on the other CPUs, and
 * that made cuMemAlloc of 32 to 256 MB about a fifth slower in every Java process than in the C
 * processes (whose other threads are the driver's few), the C code called inside the JVMs as slow
 * as Java: both ways side by side on one machine are in bench/results/pinning/ (the table in docs/measurements.md).
 * {@code --pin thread} measures that way still. Every server is warmed up the same way
 * (Java's JIT additionally by table builds at every size), then runs three uncounted rounds of the
 * whole sequence, so the JIT has compiled every size's path before anything is counted (on one CPU a
 * compilation competes with the samples). Then, for every round and size, each
 * fork in turn (the order rotating by round) runs a block of C samples, a block of Java samples
 * and a block of "C in the JVM" samples (the C sample built as a library and called inside the Java
 * server: what separates Java from it is the Java code) back to back, the order of the three
 * rotating too. The machine's drift reaches all sides alike. Medians pool every fork's samples;
 * the verdict is per size. Writes {@code gpu-<device>.json} with the device name, the driver
 * version and every fork's median into the results directory.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp ... org.direkt.runtime.bench.GpuBench OUT_DIR C_DIR [--forks F] [--rounds R] [--block B] [--cpu N] [--pin process|thread]</pre>
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
    private static final String[] SIDES = {"c", "java", "c_in_jvm"};
    private static final long FIRST = 1L << 20;
    private static final long LAST = 1L << 30;
    private static final int WARM_SEQUENCES = 20_000;
    /** Uncounted rounds of the whole measurement sequence before the counted ones. */
    private static final int WARM_ROUNDS = 3;
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
        /** The device address of each sample's allocation. */
        final List<Long> addresses = new ArrayList<>();
        int segments;

        void add(double t, double[] step, long address) {
            total.add(t);
            addresses.add(address);
            for (int k = 0; k < STEPS.length; k++) {
                steps.get(k).add(step[k]);
            }
        }

        void addAll(Samples other) {
            total.addAll(other.total);
            addresses.addAll(other.addresses);
            for (int k = 0; k < STEPS.length; k++) {
                steps.get(k).addAll(other.steps.get(k));
            }
            segments = other.segments;
        }

        Map<String, Object> stepMedians() {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int k = 0; k < STEPS.length; k++) {
                m.put(STEPS[k], round(median(steps.get(k))));
            }
            return m;
        }

        /** Writes these samples as one JSON line, the format gpu_bench.c answers in. */
        String toJson(long bytes) {
            StringBuilder b = new StringBuilder("{\"bytes\": ").append(bytes).append(", \"segments\": ").append(segments)
                    .append(", \"samples_us\": ").append(list(total)).append(", \"steps_us\": {");
            for (int k = 0; k < STEPS.length; k++) {
                b.append(k == 0 ? "" : ", ").append('"').append(STEPS[k]).append("\": ").append(list(steps.get(k)));
            }
            b.append("}, \"addresses\": [");
            for (int i = 0; i < addresses.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(addresses.get(i));
            }
            return b.append("]}").toString();
        }

        static Samples fromJson(JsonNode n) {
            Samples s = new Samples();
            JsonNode steps = n.get("steps_us");
            for (int r = 0; r < n.get("samples_us").size(); r++) {
                double[] step = new double[STEPS.length];
                for (int k = 0; k < STEPS.length; k++) {
                    step[k] = steps.get(STEPS[k]).get(r).asDouble();
                }
                s.add(n.get("samples_us").get(r).asDouble(), step, n.get("addresses").get(r).asLong());
            }
            s.segments = n.get("segments").asInt();
            return s;
        }

        private static String list(List<Double> v) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < v.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", v.get(i)));
            }
            return b.append(']').toString();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--serve")) {
            JavaServer.serve(args);
            return;
        }
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: GpuBench OUT_DIR C_DIR [--forks F] [--rounds R] [--block B] [--cpu N]"
                    + " [--pin process|thread]");
        }
        Path out = Path.of(args[0]);
        Path cdir = Path.of(args[1]);
        int forks = 10;
        int rounds = 10;
        int block = 5;
        int cpu = Runtime.getRuntime().availableProcessors() - 1;
        boolean pinProcess = true;
        for (int a = 2; a < args.length; a += 2) {
            if (a + 1 >= args.length) {
                throw new IllegalArgumentException("GpuBench: " + args[a] + " needs a value");
            }
            if (args[a].equals("--pin")) {
                if (!args[a + 1].equals("process") && !args[a + 1].equals("thread")) {
                    throw new IllegalArgumentException("GpuBench: --pin takes process or thread, not " + args[a + 1]);
                }
                pinProcess = args[a + 1].equals("process");
                continue;
            }
            int v = Integer.parseInt(args[a + 1]);
            switch (args[a]) {
                case "--forks" -> forks = v;
                case "--rounds" -> rounds = v;
                case "--block" -> block = v;
                case "--cpu" -> cpu = v;
                default -> throw new IllegalArgumentException("GpuBench: unknown option " + args[a]);
            }
        }
        if (forks < 1 || rounds < 1 || block < 1) {
            throw new IllegalArgumentException("GpuBench: forks, rounds and block must be at least 1");
        }
        // Every thread of a server on the CPU: started under taskset, so nothing of it runs elsewhere.
        List<String> pin = List.of();
        if (pinProcess) {
            Path taskset = org.direkt.runtime.sim.SimulatedBridge.onPath("taskset");
            if (taskset == null) {
                throw new IllegalStateException("GpuBench: --pin process (the default) starts the servers under taskset, which is not"
                        + " on PATH (util-linux); install it or measure with --pin thread");
            }
            pin = List.of(taskset.toString(), "-c", Integer.toString(cpu));
        }
        Files.createDirectories(out);
        Path cExe = buildCReference(cdir, out);
        Path cLib = JavaServer.buildLibrary(cdir, out);
        List<String> jvmOptions = ManagementFactory.getRuntimeMXBean().getInputArguments();

        List<Server> cForks = new ArrayList<>();
        List<Server> javaForks = new ArrayList<>();
        // [side][fork][size index]
        List<List<List<Samples>>> samples = new ArrayList<>();
        JsonNode hello = null;
        long jitMs = 0;
        long gcs = 0;
        try {
            // One process at a time is started and warmed up while the others wait: the same
            // driver work on both sides (the driver's allocators remember their history), and the
            // Java side's JIT brought to its optimizing compiler first (see JavaServer).
            for (int f = 0; f < forks; f++) {
                List<String> cCmd = new ArrayList<>(pin);
                cCmd.addAll(List.of(cExe.toString(), "--serve", "--cpu", Integer.toString(cpu)));
                Server c = Server.start("C fork " + f, cCmd);
                cForks.add(c);
                c.request(FIRST + " " + WARM_SEQUENCES);
                List<String> cmd = new ArrayList<>(pin);
                cmd.add(ProcessHandle.current().info().command().orElseThrow());
                cmd.addAll(jvmOptions);
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), GpuBench.class.getName(), "--serve",
                    Integer.toString(cpu), cLib.toString()));
                Server j = Server.start("Java fork " + f, cmd);
                javaForks.add(j);
                JsonNode h = j.hello();
                if (hello == null) {
                    hello = h;
                }
                j.request("java " + FIRST + " " + WARM_SEQUENCES);
                System.out.println("GpuBench: fork " + f + " of " + forks + " started and warmed up (C pid " + c.pid() + ", Java pid "
                        + j.pid() + ")");
            }
            // Whole rounds, every size and side, not counted: the code paths of every size are
            // compiled before the measurement (with each process on one CPU a compilation would
            // compete with the samples on it), and the C servers run the same sequence.
            for (int w = 0; w < WARM_ROUNDS; w++) {
                for (long size = FIRST; size <= LAST; size <<= 1) {
                    for (int f = 0; f < forks; f++) {
                        cForks.get(f).request(size + " " + block);
                        javaForks.get(f).request("java " + size + " " + block);
                        javaForks.get(f).request("c " + size + " " + block);
                    }
                }
            }
            for (Server j : javaForks) {
                JsonNode st = j.request("stats");
                jitMs -= st.get("jit_ms").asLong();
                gcs -= st.get("gcs").asLong();
            }
            int sizes = Long.numberOfTrailingZeros(LAST / FIRST) + 1;
            for (int side = 0; side < SIDES.length; side++) {
                List<List<Samples>> bySide = new ArrayList<>();
                for (int f = 0; f < forks; f++) {
                    List<Samples> bySize = new ArrayList<>();
                    for (int i = 0; i < sizes; i++) {
                        bySize.add(new Samples());
                    }
                    bySide.add(bySize);
                }
                samples.add(bySide);
            }
            for (int round = 0; round < rounds; round++) {
                int i = 0;
                for (long size = FIRST; size <= LAST; size <<= 1, i++) {
                    for (int k = 0; k < forks; k++) {
                        int f = (k + round) % forks;
                        // three sides back to back, each going first, second and third in turn
                        for (int s = 0; s < SIDES.length; s++) {
                            int side = (s + round + k) % SIDES.length;
                            String line = switch (side) {
                                case 0 -> size + " " + block;
                                case 1 -> "java " + size + " " + block;
                                default -> "c " + size + " " + block;
                            };
                            Server server = side == 0 ? cForks.get(f) : javaForks.get(f);
                            samples.get(side).get(f).get(i).addAll(Samples.fromJson(server.request(line)));
                        }
                    }
                }
                System.out.println("GpuBench: round " + (round + 1) + " of " + rounds + " done");
            }
            // What the JVMs did beside the measurement (compilations and collections compete with it).
            for (Server j : javaForks) {
                JsonNode st = j.request("stats");
                jitMs += st.get("jit_ms").asLong();
                gcs += st.get("gcs").asLong();
            }
        } finally {
            for (Server s : cForks) {
                s.close();
            }
            for (Server s : javaForks) {
                s.close();
            }
        }

        List<Map<String, Object>> rows = new ArrayList<>();
        boolean everySize = true;
        int i = 0;
        for (long size = FIRST; size <= LAST; size <<= 1, i++) {
            Samples[] pooled = new Samples[SIDES.length];
            List<List<Double>> forkMedians = new ArrayList<>();
            List<List<Integer>> forkAddresses = new ArrayList<>();
            for (int side = 0; side < SIDES.length; side++) {
                pooled[side] = new Samples();
                List<Double> medians = new ArrayList<>();
                List<Integer> distinct = new ArrayList<>();
                for (int f = 0; f < forks; f++) {
                    Samples one = samples.get(side).get(f).get(i);
                    pooled[side].addAll(one);
                    medians.add(round(median(one.total)));
                    distinct.add((int) one.addresses.stream().distinct().count());
                }
                forkMedians.add(medians);
                forkAddresses.add(distinct);
            }
            Samples cs = pooled[0];
            Samples js = pooled[1];
            Samples ij = pooled[2];
            double mj = median(js.total);
            double mc = median(cs.total);
            boolean meets = mj / mc <= TARGET; // the verdict holds per size
            everySize &= meets;
            if (js.segments != cs.segments) {
                throw new IllegalStateException(size + " bytes: Java built " + js.segments + " segments, C " + cs.segments);
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("bytes", size);
            row.put("java_median_us", round(mj));
            row.put("c_median_us", round(mc));
            row.put("ratio", round(mj / mc));
            row.put("meets_target", meets);
            row.put("samples", js.total.size());
            row.put("segments", js.segments);
            row.put("java_steps_median_us", js.stepMedians());
            row.put("c_steps_median_us", cs.stepMedians());
            // The same C code inside the Java processes: what separates it from Java is the Java
            // code alone; what separates it from the C processes is the process.
            row.put("c_in_jvm_median_us", round(median(ij.total)));
            row.put("java_to_c_in_jvm", round(mj / median(ij.total)));
            row.put("c_in_jvm_steps_median_us", ij.stepMedians());
            row.put("java_fork_medians_us", forkMedians.get(1));
            row.put("c_fork_medians_us", forkMedians.get(0));
            row.put("c_in_jvm_fork_medians_us", forkMedians.get(2));
            // How many different device addresses each fork's allocations got: the driver reuses
            // a freed range or maps a new one, and the two cost differently.
            row.put("java_fork_distinct_addresses", forkAddresses.get(1));
            row.put("c_fork_distinct_addresses", forkAddresses.get(0));
            row.put("c_in_jvm_fork_distinct_addresses", forkAddresses.get(2));
            rows.add(row);
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("what", "allocate + SYNC_MEMOPS + dma-buf export + PCIe address table (64 KB pages), Java FFM runtime vs C driver-API "
                + "program, side by side in " + forks + " processes per side, " + (pinProcess ? "every thread of each" : "the sampling thread of each")
                + " pinned to CPU " + cpu + "; " + rounds
                + " rounds, each running, per size and per fork, " + block + " C, " + block + " Java and " + block
                + " C-in-the-JVM samples back to back (orders rotating); medians over all " + forks * rounds * block
                + " samples per side; every process warmed up by " + WARM_SEQUENCES + " sequences at 1 MB, the Java ones' JIT first by "
                + WARM_TABLE_ROUNDS + " table builds at every size, then " + WARM_ROUNDS + " uncounted rounds of the whole sequence");
        res.put("device", hello.get("device").asText());
        res.put("pci", hello.get("pci").asText());
        res.put("driver", hello.get("driver").asText());
        res.put("dma_buf_supported", hello.get("dma_buf_supported").asBoolean());
        res.put("cpu", cpu);
        res.put("pinned", pinProcess ? "process" : "thread");
        res.put("forks", forks);
        res.put("rounds", rounds);
        res.put("block", block);
        res.put("jvm_options", jvmOptions);
        res.put("jit_ms_while_measuring", jitMs);
        res.put("gcs_while_measuring", gcs);
        res.put("sizes", rows);
        res.put("target_ratio", TARGET);
        res.put("meets_target", everySize);
        String name = "gpu-" + hello.get("device").asText().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "")
                + ".json";
        Files.writeString(out.resolve(name), new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(res) + "\n");
        for (Map<String, Object> row : rows) {
            System.out.printf("GpuBench: %10d B  Java %8.2f us  C %8.2f us  ratio %s  %s  (C in the JVM %8.2f us)  Java steps %s  C steps %s"
                    + "  C-in-JVM steps %s  forks: Java %s C %s%n",
                    row.get("bytes"), row.get("java_median_us"), row.get("c_median_us"), row.get("ratio"),
                    (Boolean) row.get("meets_target") ? "meets" : "MISSES", row.get("c_in_jvm_median_us"),
                    row.get("java_steps_median_us"), row.get("c_steps_median_us"), row.get("c_in_jvm_steps_median_us"),
                    row.get("java_fork_medians_us"), row.get("c_fork_medians_us"));
        }
        System.out.println("GpuBench: " + out.resolve(name) + ": " + (everySize ? "every size meets" : "NOT every size meets")
                + " Java/C <= " + TARGET);
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
            into.add((t1 - t0) / 1e3, new double[] {(ta - t0) / 1e3, (tb - ta) / 1e3, (tc - tb) / 1e3, (t1 - tc) / 1e3}, p);
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

    /** Runs gcc; false when there is none or it fails (its output is shown then). */
    private static boolean gcc(List<String> args) throws InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("gcc", "-O2"));
        cmd.addAll(args);
        try {
            Process cc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (cc.waitFor() != 0) {
                System.out.println("GpuBench: gcc: " + log.strip());
                return false;
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** One server process: a line in, one JSON line out; its stderr goes to ours. */
    private static final class Server implements AutoCloseable {
        private final String name;
        private final Process process;
        private final BufferedWriter in;
        private final BufferedReader outLines;
        private final ObjectMapper json = new ObjectMapper();

        private Server(String name, Process process) {
            this.name = name;
            this.process = process;
            this.in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII));
            this.outLines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Server start(String name, List<String> command) throws IOException {
            return new Server(name, new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }

        long pid() {
            return process.pid();
        }

        /** The first line a Java server writes once its context exists: the device it found. */
        JsonNode hello() throws IOException {
            return read("starting");
        }

        JsonNode request(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
            return read(line);
        }

        private JsonNode read(String what) throws IOException {
            String line = outLines.readLine();
            if (line == null) {
                throw new IllegalStateException(name + " ended without answering \"" + what + "\" (exit " + waitExit()
                        + "; its error is above)");
            }
            return json.readTree(line);
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
                throw new IllegalStateException(name + " failed (exit " + rc + ")");
            }
        }
    }

    /** The C reference program: compiled here when a compiler is there, else the prebuilt one. */
    private static Path buildCReference(Path cdir, Path out) throws InterruptedException {
        Path exe = out.toAbsolutePath().resolve("gpu_bench");
        if (gcc(List.of("-o", exe.toString(), cdir.resolve("gpu_bench.c").toString(), "-ldl"))) {
            return exe;
        }
        System.out.println("GpuBench: no C compiler here; using the prebuilt " + cdir.resolve("gpu_bench"));
        return cdir.toAbsolutePath().resolve("gpu_bench");
    }

    /**
     * The Java side as a server ({@code GpuBench --serve CPU LIBRARY}): makes its context, pins
     * itself, warms its JIT by table builds at every size, writes one line naming the device, then
     * answers "java BYTES COUNT" (the runtime), "c BYTES COUNT" (the C sample in this process) and
     * "stats" (JIT time and collections so far), until its input ends.
     */
    private static final class JavaServer {
        private JavaServer() {
        }

        static Path buildLibrary(Path cdir, Path out) throws InterruptedException {
            Path lib = out.toAbsolutePath().resolve("libgpu_bench.so");
            if (gcc(List.of("-shared", "-fPIC", "-DGPU_BENCH_LIBRARY", "-o", lib.toString(), cdir.resolve("gpu_bench.c").toString(), "-ldl"))) {
                return lib;
            }
            return cdir.toAbsolutePath().resolve("libgpu_bench.so");
        }

        static void serve(String[] args) throws Exception {
            int cpu = Integer.parseInt(args[1]);
            Path lib = Path.of(args[2]);
            // stdout is the protocol: nothing else may be written to it
            java.io.PrintStream protocol = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                    StandardCharsets.UTF_8);
            System.setOut(System.err);
            Cuda cuda = Cuda.load();
            cuda.init();
            int dev = cuda.device(0);
            GpuDevice info = GpuDevice.query(cuda, 0);
            var ctx = cuda.primaryContextRetain(dev);
            cuda.setCurrentContext(ctx);
            // After the context, as the C program does: with --pin thread the driver's threads and
            // the JVM's keep every CPU; with --pin process (taskset) every thread is on it already.
            Libc.pinCurrentThread(cpu);
            CInJvm inJvm = CInJvm.load(lib);

            // The page addresses are made before anything is timed, on both sides: the runtime is
            // handed them (by the importer), it does not make them.
            Map<Long, long[]> placement = new LinkedHashMap<>();
            Map<Long, MemorySegment> nativePlacement = new LinkedHashMap<>();
            for (long size = FIRST; size <= LAST; size <<= 1) {
                placement.put(size, pages(size));
                nativePlacement.put(size, Arena.global().allocateFrom(ValueLayout.JAVA_LONG, placement.get(size)));
            }
            // The optimizing compiler shapes its loops by the trip counts it profiled, so it must
            // see the sizes the benchmark measures, not 1 MB alone; the whole sequences that follow
            // (sent by the conductor, as to the C side) bring every method on the path to it.
            for (int i = 0; i < WARM_TABLE_ROUNDS; i++) {
                for (long size = FIRST; size <= LAST; size <<= 1) {
                    AddressTable.of(0x7f00_0000_0000L, size, placement.get(size));
                }
            }
            protocol.println(new ObjectMapper().writeValueAsString(Map.of("device", info.name(), "pci", info.pciBusId(), "driver",
                    Cuda.formatVersion(cuda.driverVersion()), "dma_buf_supported", info.dmaBufSupported())));
            protocol.flush();
            BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            for (String line; (line = lines.readLine()) != null;) {
                String[] w = line.trim().split(" ");
                if (w.length == 1 && w[0].equals("stats")) {
                    protocol.println("{\"jit_ms\": " + ManagementFactory.getCompilationMXBean().getTotalCompilationTime() + ", \"gcs\": "
                            + gcCount() + "}");
                    protocol.flush();
                    continue;
                }
                if (w.length != 3 || !(w[0].equals("java") || w[0].equals("c"))) {
                    throw new IllegalArgumentException("GpuBench server: expected \"java|c BYTES COUNT\" or \"stats\", got: " + line);
                }
                long size = Long.parseLong(w[1]);
                int count = Integer.parseInt(w[2]);
                long[] pages = placement.get(size);
                if (pages == null) {
                    throw new IllegalArgumentException("GpuBench server: no placement for " + size + " bytes");
                }
                Samples s = new Samples();
                for (int r = 0; r < count; r++) {
                    if (w[0].equals("java")) {
                        javaSample(cuda, size, pages, s);
                    } else {
                        inJvm.sample(size, nativePlacement.get(size), s);
                    }
                }
                protocol.println(s.toJson(size));
                protocol.flush();
            }
            cuda.primaryContextRelease(dev);
        }
    }

    /** The C reference's sample built as a library and called in this process (see gpu_bench.c). */
    private static final class CInJvm {
        private final MethodHandle sample;
        private final MethodHandle lastAddress;
        private final MemorySegment out = Arena.global().allocate(ValueLayout.JAVA_DOUBLE, 5);

        private CInJvm(MethodHandle sample, MethodHandle lastAddress) {
            this.sample = sample;
            this.lastAddress = lastAddress;
        }

        @SuppressWarnings("restricted") // a benchmark's own library, run with --enable-native-access
        static CInJvm load(Path lib) {
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
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS)),
                    linker.downcallHandle(symbols.find("gpu_bench_last_address").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG)));
        }

        void sample(long size, MemorySegment placement, Samples into) {
            long segments;
            long address;
            try {
                segments = (long) sample.invokeExact(size, placement, out);
                address = (long) lastAddress.invokeExact();
            } catch (Throwable t) {
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }
            into.add(out.getAtIndex(ValueLayout.JAVA_DOUBLE, 0), new double[] {out.getAtIndex(ValueLayout.JAVA_DOUBLE, 1),
                out.getAtIndex(ValueLayout.JAVA_DOUBLE, 2), out.getAtIndex(ValueLayout.JAVA_DOUBLE, 3),
                out.getAtIndex(ValueLayout.JAVA_DOUBLE, 4)}, address);
            into.segments = (int) segments;
        }
    }
}
