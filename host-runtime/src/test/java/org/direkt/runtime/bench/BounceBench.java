// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.ffi.DeviceMemory;
import org.direkt.runtime.ffi.GpuDevice;
import org.direkt.runtime.ffi.NativeLibraryException;
import org.direkt.runtime.ffi.PinnedMemory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The CUDA half of the bounce path, measured on a GPU (GPU machine only): copies between pinned
 * host memory ({@code cuMemHostAlloc}) and device memory, GPU -> host ({@code cuMemcpyDtoH_v2},
 * what a GPU -> FPGA copy does before the FPGA's host DMA) and host -> GPU ({@code cuMemcpyHtoD_v2},
 * after it on FPGA -> GPU), each synchronous call timed from Java as the runtime makes it, for
 * 4 B .. 64 MB in powers of 4: median, 99th percentile and minimum latency, and bandwidth at the
 * median. Every size is checked byte-exact before it is timed. Writes
 * {@code bounce-<device>.json} ({@code h100}, {@code h200}, ... from the GPU's name) into the
 * output directory; the bounce-vs-direct table of docs/host-runtime.md is rendered from it
 * ({@code bench/readme_tables.py}).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... org.direkt.runtime.bench.BounceBench [--out DIR] [--reps N] [--device-name SLUG]</pre>
 *
 * {@code make bench-bounce} runs it from the build tree into {@code bench/results}; on the GPU
 * machine, {@code bash build/gpu/run.sh bounce} (see {@code scripts/gpu-bundle.sh}). Without a GPU
 * it says so and exits 1 without writing anything; a bad argument exits 2.
 */
public final class BounceBench {
    private BounceBench() {
    }

    static final long SMALLEST = 4;
    static final long LARGEST = 64L << 20;
    /** Samples per size and direction: many where a copy takes microseconds, fewer where it takes milliseconds. */
    static final int REPS_SMALL = 1000;
    static final int REPS_LARGE = 200;
    static final long LARGE = 1L << 20;
    private static final Pattern MODEL = Pattern.compile("\\b([a-z]+[0-9]+[a-z]*)\\b");

    public static void main(String[] args) throws IOException {
        Path out = Path.of("bench/results");
        Integer reps = null;
        String slug = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help")) {
                    System.out.println("usage: BounceBench [--out DIR] [--reps N] [--device-name SLUG]: pinned host <-> GPU copies,"
                            + " 4 B .. 64 MB, into DIR/bounce-SLUG.json (default bench/results; SLUG from the GPU's name)");
                    return;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a.startsWith("--") ? a + " needs a value" : "unknown argument '" + a + "'");
                }
                switch (a) {
                    case "--out" -> out = Path.of(args[++i]);
                    case "--reps" -> reps = positive("--reps", args[++i]);
                    case "--device-name" -> slug = checkSlug(args[++i]);
                    default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("BounceBench: " + e.getMessage() + " (usage: BounceBench [--out DIR] [--reps N] [--device-name SLUG])");
            System.exit(2);
            return;
        }
        Cuda cuda;
        int count;
        try {
            cuda = Cuda.load();
            cuda.init();
            count = cuda.deviceCount();
        } catch (NativeLibraryException | CudaException e) {
            System.err.println("BounceBench: needs an NVIDIA GPU, and there is none here: " + e.getMessage()
                    + "\nBounceBench: nothing measured, nothing written");
            System.exit(1);
            return;
        }
        if (count == 0) {
            System.err.println("BounceBench: needs an NVIDIA GPU: the CUDA driver reports no device; nothing measured, nothing written");
            System.exit(1);
            return;
        }
        GpuDevice info = GpuDevice.query(cuda, 0);
        String name = slug != null ? slug : deviceSlug(info.name());
        int dev = cuda.device(0);
        cuda.setCurrentContext(cuda.primaryContextRetain(dev));
        Map<String, Object> res;
        try (DeviceMemory gpu = cuda.allocate(LARGEST); PinnedMemory host = cuda.allocatePinned(LARGEST)) {
            res = measure(cuda, gpu, host.segment(), reps);
        } finally {
            cuda.primaryContextRelease(dev);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("what", "the bounce path's CUDA half: synchronous copies between pinned host memory (cuMemHostAlloc) and device"
                + " memory (cuMemAlloc), each call timed from Java (FFM) with System.nanoTime after a warm-up; d2h = cuMemcpyDtoH_v2"
                + " (GPU -> pinned host, before the FPGA's host DMA on GPU -> FPGA), h2d = cuMemcpyHtoD_v2 (pinned host -> GPU,"
                + " after it on FPGA -> GPU); bandwidth = bytes / median; every size checked byte-exact first");
        doc.put("device", info.name());
        doc.put("device_slug", name);
        doc.put("pci", info.pciBusId());
        doc.put("driver", Cuda.formatVersion(cuda.driverVersion()));
        doc.put("machine", Map.of("cpus", Runtime.getRuntime().availableProcessors(),
                "java", System.getProperty("java.version"),
                "os", System.getProperty("os.name") + " " + System.getProperty("os.version")));
        doc.putAll(res);
        Files.createDirectories(out);
        Path file = out.resolve("bounce-" + name + ".json");
        Files.writeString(file, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc) + "\n");
        System.out.println("BounceBench: wrote " + file);
    }

    private static Map<String, Object> measure(Cuda cuda, DeviceMemory gpu, MemorySegment host, Integer reps) {
        // JIT and driver warm-up: the first copies of a process pay for code paths the steady state does not.
        for (int i = 0; i < 2000; i++) {
            cuda.memcpyHtoD(gpu.pointer(), host, 4);
            cuda.memcpyDtoH(host, gpu.pointer(), 4);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long bytes = SMALLEST; bytes <= LARGEST; bytes *= 4) {
            checkExact(cuda, gpu, host, bytes);
            int n = reps != null ? reps : bytes <= LARGE ? REPS_SMALL : REPS_LARGE;
            long[] d2h = new long[n];
            long[] h2d = new long[n];
            for (int i = 0; i < 10; i++) {
                cuda.memcpyDtoH(host, gpu.pointer(), bytes);
                cuda.memcpyHtoD(gpu.pointer(), host, bytes);
            }
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                cuda.memcpyDtoH(host, gpu.pointer(), bytes);
                long t1 = System.nanoTime();
                cuda.memcpyHtoD(gpu.pointer(), host, bytes);
                long t2 = System.nanoTime();
                d2h[i] = t1 - t0;
                h2d[i] = t2 - t1;
            }
            Map<String, Double> down = stats(d2h, bytes);
            Map<String, Double> up = stats(h2d, bytes);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("bytes", bytes);
            row.put("samples", n);
            row.put("d2h", down);
            row.put("h2d", up);
            rows.add(row);
            System.out.printf(Locale.ROOT, "%9d B  d2h %9.2f us (p99 %9.2f) %7.2f GB/s   h2d %9.2f us (p99 %9.2f) %7.2f GB/s%n",
                    bytes, down.get("median_us"), down.get("p99_us"), down.get("gb_per_s"), up.get("median_us"), up.get("p99_us"),
                    up.get("gb_per_s"));
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("sizes", rows);
        return res;
    }

    /** One copy each way of a known pattern, compared byte for byte: a broken copy is never timed. */
    private static void checkExact(Cuda cuda, DeviceMemory gpu, MemorySegment host, long bytes) {
        MemorySegment h = host.asSlice(0, bytes);
        for (long i = 0; i < bytes; i++) {
            h.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + bytes));
        }
        byte[] want = h.toArray(ValueLayout.JAVA_BYTE);
        cuda.memcpyHtoD(gpu.pointer(), h, bytes);
        h.fill((byte) 0);
        cuda.memcpyDtoH(h, gpu.pointer(), bytes);
        if (!Arrays.equals(want, h.toArray(ValueLayout.JAVA_BYTE))) {
            throw new IllegalStateException("pinned copy of " + bytes + " bytes host -> GPU -> host came back different");
        }
    }

    /** Median, 99th percentile and minimum in microseconds; bandwidth at the median in GB/s (10^9 bytes per second). */
    static Map<String, Double> stats(long[] ns, long bytes) {
        long[] s = ns.clone();
        Arrays.sort(s);
        double median = s[s.length / 2] / 1e3;
        double p99 = s[(int) Math.ceil(0.99 * s.length) - 1] / 1e3;
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("median_us", round(median));
        m.put("p99_us", round(p99));
        m.put("min_us", round(s[0] / 1e3));
        m.put("gb_per_s", round(bytes / (median * 1e3)));
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /**
     * The device's short name for a file name: the first model word of the marketing name
     * ("NVIDIA H100 80GB HBM3" -> {@code h100}, "NVIDIA H200" -> {@code h200}), or the whole name
     * made a slug when it has none ("NVIDIA GeForce RTX 4090" -> {@code nvidia-geforce-rtx-4090}).
     */
    static String deviceSlug(String deviceName) {
        String lower = deviceName.toLowerCase(Locale.ROOT);
        Matcher m = MODEL.matcher(lower.replace("nvidia", ""));
        if (m.find()) {
            return m.group(1);
        }
        return lower.replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }

    private static String checkSlug(String s) {
        if (!s.matches("[a-z0-9][a-z0-9-]*")) {
            throw new IllegalArgumentException("--device-name " + s + ": lower-case letters, digits and '-' only (it names the file)");
        }
        return s;
    }

    private static int positive(String option, String v) {
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " " + v + ": a whole number of at least 1");
    }
}
