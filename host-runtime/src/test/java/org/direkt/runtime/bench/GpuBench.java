package org.direkt.runtime.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * Writes {@code gpu-<device>.json} with the device name and driver version into the results
 * directory.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... org.direkt.runtime.bench.GpuBench OUT_DIR C_DIR [repeats]</pre>
 * (build/gpu/run.sh bench does this on the GPU machine; see scripts/gpu-bundle.sh). C_DIR holds
 * gpu_bench.c and, if the machine has no C compiler, a prebuilt gpu_bench.
 */
public final class GpuBench {
    private GpuBench() {
    }

    private static final long PAGE = AddressTable.PAGE_SIZE;
    private static final long BAR_BASE = 0x380_0000_0000L;
    /** Java/C at every size, each size on its own. */
    static final double TARGET = 1.10;
    private static final String[] STEPS = {"alloc", "sync_memops", "export", "table"};

    /** The placement gpu_bench.c uses: in order, except every 7th page sits after the region. */
    static long[] pages(long bytes) {
        int n = (int) (bytes / PAGE);
        long[] bus = new long[n];
        for (int i = 0; i < n; i++) {
            bus[i] = i % 7 == 6 ? BAR_BASE + ((long) n + i) * PAGE : BAR_BASE + (long) i * PAGE;
        }
        return bus;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "build/gpu/out");
        Path cdir = Path.of(args.length > 1 ? args[1] : "host-runtime/src/test/c");
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 21;
        Files.createDirectories(out);
        Cuda cuda = Cuda.load();
        cuda.init();
        int dev = cuda.device(0);
        GpuDevice info = GpuDevice.query(cuda, 0);
        var ctx = cuda.primaryContextRetain(dev);
        cuda.setCurrentContext(ctx);

        // Warm-up, so the numbers are the runtime's steady state rather than the interpreter's:
        // the whole sequence many times at a small size, and the table build at the largest.
        for (int i = 0; i < 500; i++) {
            long p = cuda.memAlloc(1L << 20);
            cuda.setSyncMemops(p, true);
            Libc.close(cuda.exportDmaBuf(p, 1L << 20, 0));
            cuda.memFree(p);
        }
        for (int i = 0; i < 300; i++) {
            AddressTable.of(0x7f00_0000_0000L, 1L << 30, pages(1L << 30));
        }

        // Rounds alternate the C program and the Java runtime, so neither always runs first on a
        // warm or a cold driver; every sample of every round counts toward the medians.
        int rounds = 3;
        Map<Long, List<Double>> javaSamples = new LinkedHashMap<>();
        Map<Long, List<double[]>> javaSteps = new LinkedHashMap<>();
        Map<Long, List<Double>> cSamples = new LinkedHashMap<>();
        Map<Long, JsonNode> cSteps = new LinkedHashMap<>();
        Map<Long, Integer> segs = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            runC(cdir, out, repeats, cSteps).forEach((size, v) -> cSamples.computeIfAbsent(size, k -> new ArrayList<>()).addAll(v));
            for (long size = 1L << 20; size <= 1L << 30; size <<= 1) {
                for (int r = 0; r < repeats; r++) {
                    long t0 = System.nanoTime();
                    long p = cuda.memAlloc(size);
                    long ta = System.nanoTime();
                    cuda.setSyncMemops(p, true);
                    long tb = System.nanoTime();
                    int fd = cuda.exportDmaBuf(p, size, 0);
                    long tc = System.nanoTime();
                    AddressTable table = AddressTable.of(p, size, pages(size));
                    long t1 = System.nanoTime();
                    javaSteps.computeIfAbsent(size, k -> new ArrayList<>())
                            .add(new double[] {(ta - t0) / 1e3, (tb - ta) / 1e3, (tc - tb) / 1e3, (t1 - tc) / 1e3});
                    segs.put(size, table.segmentCount());
                    Libc.close(fd);
                    cuda.memFree(p);
                    javaSamples.computeIfAbsent(size, k -> new ArrayList<>()).add((t1 - t0) / 1e3);
                }
            }
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        double sumJ = 0;
        double sumC = 0;
        boolean everySize = !javaSamples.isEmpty();
        for (var e : javaSamples.entrySet()) {
            List<Double> cs = cSamples.get(e.getKey());
            double mj = median(e.getValue());
            Double mc = cs == null ? null : median(cs);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("bytes", e.getKey());
            row.put("java_median_us", round(mj));
            row.put("c_median_us", mc == null ? null : round(mc));
            row.put("ratio", mc == null ? null : round(mj / mc));
            // the verdict holds per size: a size without a C figure, or above the target, misses
            boolean meets = mc != null && mj / mc <= TARGET;
            row.put("meets_target", meets);
            everySize &= meets;
            row.put("segments", segs.get(e.getKey()));
            Map<String, Object> steps = new LinkedHashMap<>();
            for (int k = 0; k < STEPS.length; k++) {
                final int step = k;
                steps.put(STEPS[k], round(median(javaSteps.get(e.getKey()).stream().map(v -> v[step]).toList())));
            }
            row.put("java_steps_median_us", steps);
            row.put("c_steps_median_us", cSteps.get(e.getKey()));
            rows.add(row);
            if (mc != null) {
                sumJ += mj;
                sumC += mc;
            }
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("what", "allocate + SYNC_MEMOPS + dma-buf export + PCIe address table (64 KB pages), Java FFM runtime vs C driver-API program; "
                + rounds + " rounds alternating C and Java, " + repeats + " samples per size per round, medians over all samples; "
                + "Java after a JIT warm-up (500 sequences at 1 MB, 300 table builds at 1 GB), C after one warm-up per run");
        res.put("device", info.name());
        res.put("pci", info.pciBusId());
        res.put("driver", Cuda.formatVersion(cuda.driverVersion()));
        res.put("dma_buf_supported", info.dmaBufSupported());
        res.put("sizes", rows);
        res.put("ratio_total", sumC == 0 ? null : round(sumJ / sumC));
        res.put("target_ratio", TARGET);
        res.put("meets_target", everySize);
        String name = "gpu-" + info.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "") + ".json";
        Files.writeString(out.resolve(name), new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(res) + "\n");
        for (Map<String, Object> row : rows) {
            System.out.printf("GpuBench: %10d B  Java %8.2f us  C %8.2f us  ratio %s  %s  Java steps %s  C steps %s%n",
                    row.get("bytes"), row.get("java_median_us"), row.get("c_median_us"), row.get("ratio"),
                    (Boolean) row.get("meets_target") ? "meets" : "MISSES", row.get("java_steps_median_us"),
                    row.get("c_steps_median_us"));
        }
        System.out.println("GpuBench: " + out.resolve(name) + ": " + (everySize ? "every size meets" : "NOT every size meets")
                + " Java/C <= " + TARGET);
        cuda.primaryContextRelease(dev);
    }

    private static double median(List<Double> v) {
        List<Double> sorted = new ArrayList<>(v);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /** Compiles (if a compiler is there) and runs the C reference; every sample per size. */
    private static Map<Long, List<Double>> runC(Path cdir, Path out, int repeats, Map<Long, JsonNode> steps)
            throws IOException, InterruptedException {
        Path exe = out.resolve("gpu_bench");
        Process cc = new ProcessBuilder("gcc", "-O2", "-o", exe.toString(), cdir.resolve("gpu_bench.c").toString(), "-ldl")
                .redirectErrorStream(true).start();
        boolean built;
        try {
            built = cc.waitFor() == 0;
        } catch (Exception e) {
            built = false;
        }
        if (!built) {
            exe = cdir.resolve("gpu_bench");
            System.out.println("GpuBench: no C compiler here; using the prebuilt " + exe);
        }
        Process p = new ProcessBuilder(exe.toString(), Integer.toString(repeats)).redirectErrorStream(true).start();
        Map<Long, List<Double>> res = new LinkedHashMap<>();
        ObjectMapper om = new ObjectMapper();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("{")) {
                    System.out.println("c: " + line);
                    continue;
                }
                JsonNode n = om.readTree(line);
                List<Double> v = new ArrayList<>();
                n.get("samples_us").forEach(x -> v.add(x.asDouble()));
                res.put(n.get("bytes").asLong(), v);
                steps.put(n.get("bytes").asLong(), n.get("steps_median_us")); // the last round's
            }
        }
        if (p.waitFor() != 0) {
            throw new IllegalStateException("the C reference program failed (exit " + p.exitValue() + ")");
        }
        return res;
    }
}
