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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.ffi.CudaIo;
import org.direkt.runtime.ffi.DeviceMemory;
import org.direkt.runtime.ffi.GpuDevice;
import org.direkt.runtime.ffi.NativeLibraryException;
import org.direkt.runtime.ffi.PinnedMemory;

/**
 * The GPU's copy engine to and from pinned host memory ({@code cuMemHostAlloc}), as a GPU-master
 * copy drives it through an aperture: one stream per direction, each copy queued
 * ({@code cuMemcpyDtoHAsync_v2}: the copy engine writes host-side memory, as GPU -> FPGA writes the
 * aperture; {@code cuMemcpyHtoDAsync_v2}: it reads it, as FPGA -> GPU reads the aperture) and waited
 * for ({@code cuStreamSynchronize}), timed from Java, 4 KiB .. 64 MiB in powers of 4. RAM answers
 * faster than any FPGA's BAR, so this is the upper bound of what an aperture could see, and its
 * smallest copy the fixed cost of a GPU-master copy ({@code MasterTable.GPU_COPY_MICROS}). Every
 * size is checked byte-exact before it is timed. Writes {@code aperture-gpu-<device>.json} (the
 * device's name in lower case, runs of other characters as {@code -}, as {@code gpu-*.json}).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... org.direkt.runtime.bench.ApertureBench [--out DIR] [--reps N]</pre>
 *
 * On the GPU machine the GPU bundle's {@code run.sh tests} runs it (ApertureGpuTest, into
 * {@code $OUT}). Without a GPU it says so and exits 1 without writing anything; a bad argument exits 2.
 */
public final class ApertureBench {
    private ApertureBench() {
    }

    static final long SMALLEST = 4L << 10;
    static final long LARGEST = 64L << 20;
    static final int REPS_SMALL = 300;
    static final int REPS_LARGE = 40;
    static final long LARGE = 1L << 20;

    public static void main(String[] args) throws IOException {
        Path out = Path.of("bench/results");
        Integer reps = null;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--out" -> out = Path.of(value(args, i++));
                    case "--reps" -> reps = positive(value(args, i++));
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("ApertureBench: " + e.getMessage() + " (usage: ApertureBench [--out DIR] [--reps N])");
            System.exit(2);
            return;
        }
        try {
            Cuda cuda = Cuda.load();
            cuda.init();
            if (cuda.deviceCount() == 0) {
                throw new CudaException("cuDeviceGetCount", 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected");
            }
        } catch (NativeLibraryException | CudaException e) {
            System.err.println("ApertureBench: needs an NVIDIA GPU, and there is none here: " + e.getMessage()
                    + "; nothing measured, nothing written");
            System.exit(1);
            return;
        }
        System.out.println("ApertureBench: wrote " + run(out, reps));
    }

    private static String value(String[] args, int i) {
        if (i + 1 >= args.length) {
            throw new IllegalArgumentException(args[i] + " needs a value");
        }
        return args[i + 1];
    }

    private static int positive(String v) {
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--reps " + v + ": a whole number of at least 1");
    }

    /** The file name for a device: {@code aperture-gpu-nvidia-h100-80gb-hbm3.json}. */
    static String fileName(String deviceName) {
        return "aperture-gpu-" + deviceName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "")
                + ".json";
    }

    /**
     * Measures device 0 (the driver loaded and initialised) and writes the file into {@code out};
     * returns its path. Makes device 0's primary context current on this thread.
     */
    static Path run(Path out, Integer reps) throws IOException {
        Cuda cuda = Cuda.load();
        CudaIo io = CudaIo.load();
        GpuDevice info = GpuDevice.query(cuda, 0);
        int dev = cuda.device(0);
        cuda.setCurrentContext(cuda.primaryContextRetain(dev));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("what", "the GPU's copy engine to and from pinned host memory (cuMemHostAlloc), as a GPU-master copy drives"
                + " it through an aperture: one non-blocking stream per direction, each copy queued (d2h = cuMemcpyDtoHAsync_v2,"
                + " the engine writes host-side memory as GPU -> FPGA writes the aperture; h2d = cuMemcpyHtoDAsync_v2, it reads"
                + " it as FPGA -> GPU reads the aperture) and waited for (cuStreamSynchronize), timed from Java with"
                + " System.nanoTime after a warm-up; bandwidth = bytes / median; the upper bound of what an FPGA's BAR could see;"
                + " every size checked byte-exact first");
        doc.put("device", info.name());
        doc.put("pci", info.pciBusId());
        doc.put("driver", Cuda.formatVersion(cuda.driverVersion()));
        doc.put("machine", Map.of("cpus", Runtime.getRuntime().availableProcessors(), "java", System.getProperty("java.version"),
                "os", System.getProperty("os.name") + " " + System.getProperty("os.version")));
        try (DeviceMemory gpu = cuda.allocate(LARGEST); PinnedMemory host = cuda.allocatePinned(LARGEST);
                CudaIo.Stream down = io.createStream(); CudaIo.Stream up = io.createStream()) {
            doc.putAll(measure(io, gpu, host.segment(), down, up, reps));
        } finally {
            cuda.primaryContextRelease(dev);
        }
        Files.createDirectories(out);
        Path file = out.resolve(fileName(info.name()));
        Files.writeString(file, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc) + "\n");
        return file;
    }

    private static Map<String, Object> measure(CudaIo io, DeviceMemory gpu, MemorySegment host, CudaIo.Stream down,
            CudaIo.Stream up, Integer reps) {
        for (int i = 0; i < 500; i++) {  // JIT and driver warm-up
            copy(io, gpu, host.asSlice(0, SMALLEST), down, true);
            copy(io, gpu, host.asSlice(0, SMALLEST), up, false);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long bytes = SMALLEST; bytes <= LARGEST; bytes *= 4) {
            MemorySegment h = host.asSlice(0, bytes);
            checkExact(io, gpu, h, down, up);
            int n = reps != null ? reps : bytes <= LARGE ? REPS_SMALL : REPS_LARGE;
            long[] d2h = new long[n];
            long[] h2d = new long[n];
            for (int i = 0; i < n; i++) {
                d2h[i] = copy(io, gpu, h, down, true);
                h2d[i] = copy(io, gpu, h, up, false);
            }
            Map<String, Double> a = BounceBench.stats(d2h, bytes);
            Map<String, Double> b = BounceBench.stats(h2d, bytes);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("bytes", bytes);
            row.put("samples", n);
            row.put("d2h", a);
            row.put("h2d", b);
            rows.add(row);
            System.out.printf(Locale.ROOT, "%9d B  d2h %9.2f us (p99 %9.2f) %7.2f GB/s   h2d %9.2f us (p99 %9.2f) %7.2f GB/s%n",
                    bytes, a.get("median_us"), a.get("p99_us"), a.get("gb_per_s"), b.get("median_us"), b.get("p99_us"),
                    b.get("gb_per_s"));
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("sizes", rows);
        return res;
    }

    /** One copy queued on {@code stream} and waited for; its nanoseconds. */
    private static long copy(CudaIo io, DeviceMemory gpu, MemorySegment host, CudaIo.Stream stream, boolean toHost) {
        long t0 = System.nanoTime();
        if (toHost) {
            io.memcpyDtoHAsync(host, gpu.pointer(), stream);
        } else {
            io.memcpyHtoDAsync(gpu.pointer(), host, stream);
        }
        stream.synchronize();
        return System.nanoTime() - t0;
    }

    /** A pattern up and back, compared byte for byte: a broken copy is never timed. */
    private static void checkExact(CudaIo io, DeviceMemory gpu, MemorySegment h, CudaIo.Stream down, CudaIo.Stream up) {
        for (long i = 0; i < h.byteSize(); i += 8) {
            h.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E37_79B9_7F4A_7C15L + h.byteSize());
        }
        byte[] want = h.toArray(ValueLayout.JAVA_BYTE);
        copy(io, gpu, h, up, false);
        h.fill((byte) 0);
        copy(io, gpu, h, down, true);
        if (!Arrays.equals(want, h.toArray(ValueLayout.JAVA_BYTE))) {
            throw new IllegalStateException("stream copies of " + h.byteSize() + " bytes host -> GPU -> host came back different");
        }
    }
}
