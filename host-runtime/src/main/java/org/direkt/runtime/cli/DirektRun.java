package org.direkt.runtime.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.direkt.generators.bridge.Layout;
import org.direkt.runtime.Descriptors;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.direkt.runtime.pcie.Transfer;
import org.direkt.runtime.sim.Direction;
import org.direkt.runtime.sim.ReplayJob;
import org.direkt.runtime.sim.ReplayResult;
import org.direkt.runtime.sim.SimulatedBridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code direkt-run demo [--overlay DIR] [--bytes N]}: a GPU -> FPGA -> GPU round trip on simulated
 * hardware. GPU memory is real when a GPU is present (CUDA through FFM; the data is read back
 * through CUDA and compared) and host memory standing in for it otherwise. Its pages get bus
 * addresses from the simulated importer (scattered 64 KB pages), the transfer is split into
 * mover-legal kernel descriptors, and the descriptors run through the bridge's system simulation.
 */
public final class DirektRun {
    private DirektRun() {
    }

    private static final long PAGE = AddressTable.PAGE_SIZE;
    private static final long APERTURE = 0x38_0000_0000L;
    private static final long FPGA_BUFFER = 0x1000_0000L;

    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (DmaException | IllegalArgumentException | IllegalStateException | IOException e) {
            System.err.println("direkt-run: " + e.getMessage());
            System.exit(1);
        }
    }

    static int run(String[] args) throws IOException {
        if (args.length == 0 || args[0].equals("--help") || !args[0].equals("demo")) {
            System.out.println("usage: direkt-run demo [--overlay DIR] [--bytes N]");
            System.out.println("  a GPU -> FPGA -> GPU round trip through the bridge's system simulation; real GPU memory when a GPU is present");
            return args.length > 0 && args[0].equals("--help") ? 0 : 2;
        }
        Path overlay = Path.of("build/demo/overlay");
        int bytes = 256 * 1024 + 4;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--overlay" -> overlay = Path.of(args[++i]);
                case "--bytes" -> bytes = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "' (see --help)");
            }
        }
        if (bytes <= 0 || bytes % 4 != 0) {
            throw new IllegalArgumentException("--bytes " + bytes + ": must be a positive multiple of 4");
        }
        JsonNode manifest = readManifest(overlay);
        String preset = manifest.path("bridge").path("id_mode").asText().equals("managed")
                && manifest.path("bridge").path("status_mode").asText().equals("tagged") ? "default" : null;
        if (preset == null) {
            throw new IllegalArgumentException(overlay + ": the demo drives a bridge with managed IDs and tagged status (the default preset)");
        }

        // ---- GPU memory: two halves, source then destination, in whole 64 KB pages
        long half = (bytes + PAGE - 1) / PAGE * PAGE;
        long total = 2 * half;
        byte[] src = new byte[bytes];
        new Random(2026).nextBytes(src);
        boolean gpu = Cuda.isAvailable();
        Cuda cuda = null;
        long dptr = 0;
        int fd = -1;
        byte[] gpuImage = new byte[(int) total];
        if (gpu) {
            cuda = Cuda.load();
            cuda.init();
            cuda.setCurrentContext(cuda.primaryContextRetain(cuda.device(0)));
            dptr = cuda.memAlloc(total);
            cuda.setSyncMemops(dptr, true);
            cuda.memsetD8(dptr, (byte) 0, total);
            cuda.memcpyHtoD(dptr, src);
            fd = cuda.exportDmaBuf(dptr, total, 0);
            gpuImage = cuda.memcpyDtoH(dptr, (int) total);
            System.out.printf("GPU: %s, %d bytes at 0x%x, dma-buf fd %d%n", cuda.deviceName(cuda.device(0)), total, dptr, fd);
        } else {
            System.arraycopy(src, 0, gpuImage, 0, bytes);
            System.out.println("GPU: none here (no libcuda.so.1): host memory stands in for GPU memory");
        }
        SimulatedImporter importer = new SimulatedImporter(APERTURE, 64 * total, 0.5, 2026);
        ImportedRange range = importer.importDmaBuf(Math.max(fd, 0), 0, total);
        long base = gpu ? dptr : 0x7f00_0000_0000L;
        AddressTable table = range.addressTable(base);
        System.out.printf("PCIe address table: %d pages in %d segments (simulated importer, BAR aperture 0x%x)%n",
                table.pageCount(), table.segmentCount(), APERTURE);

        // ---- descriptors: GPU -> FPGA, then FPGA -> GPU into the second half
        ReplayJob.Builder job = ReplayJob.builder().preset(preset);
        for (int p = 0; p < table.pageCount(); p++) {
            job.gpuPage(table.pageBusAddress(p), Arrays.copyOfRange(gpuImage, (int) (p * PAGE), (int) ((p + 1) * PAGE)));
        }
        // The host opens one window over the importer's BAR aperture: kernels may reach nothing else.
        job.window(APERTURE, APERTURE + 64 * total - 1, true, true);
        long tag = 1;
        List<Transfer> in = table.split(0, bytes);
        for (Transfer t : in) {
            job.descriptor(Direction.RD, Descriptors.cldesc(t.busAddress(), FPGA_BUFFER + t.gpuOffset(), t.bytes(), tag++));
        }
        List<Transfer> out = table.split(half, bytes);
        boolean first = true;
        for (Transfer t : out) {
            var d = ReplayJob.Descriptor.of(Direction.WR, Descriptors.cldesc(FPGA_BUFFER + (t.gpuOffset() - half), t.busAddress(), t.bytes(), tag++));
            job.descriptor(first ? d.afterAll() : d);
            first = false;
        }
        for (int p = (int) (half / PAGE); p < table.pageCount(); p++) {
            job.readBackGpu(table.pageBusAddress(p), (int) PAGE);
        }
        job.readBackFpga(FPGA_BUFFER, bytes);
        System.out.printf("descriptors: %d GPU->FPGA, %d FPGA->GPU (split at 1 MB - 4 B and at page discontinuities)%n",
                in.size(), out.size());

        long t0 = System.nanoTime();
        ReplayResult r = SimulatedBridge.locate().run(job.build());
        double secs = (System.nanoTime() - t0) / 1e9;
        for (ReplayResult.Status s : r.statuses()) {
            if (!s.ok()) {
                throw new DmaException(s.error(), s.tag(), "demo");
            }
        }
        System.out.printf("bridge simulation: %d statuses, all OK (%.1f s)%n", r.statuses().size(), secs);
        if (!Arrays.equals(src, r.fpga(FPGA_BUFFER))) {
            throw new IllegalStateException("FPGA memory differs from the GPU source after GPU -> FPGA");
        }

        // ---- the destination half back into GPU memory, then read through CUDA and compared
        byte[] back = new byte[(int) half];
        for (int p = (int) (half / PAGE); p < table.pageCount(); p++) {
            byte[] page = r.gpu(table.pageBusAddress(p));
            System.arraycopy(page, 0, back, (int) (p * PAGE - half), (int) PAGE);
        }
        byte[] result;
        if (gpu) {
            cuda.memcpyHtoD(dptr + half, back);
            result = Arrays.copyOf(cuda.memcpyDtoH(dptr + half, (int) half), bytes);
            Libc.close(fd);
            cuda.memFree(dptr);
        } else {
            result = Arrays.copyOf(back, bytes);
        }
        importer.release(range);
        if (!Arrays.equals(src, result)) {
            throw new IllegalStateException("GPU memory after the round trip differs from the source");
        }
        System.out.printf("round trip GPU -> FPGA -> GPU: %d bytes byte-exact%s%n", bytes, gpu ? " (read back through CUDA)" : "");
        return 0;
    }

    private static JsonNode readManifest(Path overlay) throws IOException {
        Path f = overlay.resolve("direkt-overlay.json");
        if (!Files.isRegularFile(f)) {
            throw new IllegalArgumentException(overlay + ": no direkt-overlay.json (run `direkt overlay` first, e.g. make demo)");
        }
        JsonNode m = new ObjectMapper().readTree(f.toFile());
        int v = m.path("layout").path("version").asInt(-1);
        if (v != Layout.VERSION) {
            throw new IllegalArgumentException(f + ": layout version " + v + ", this runtime speaks " + Layout.VERSION
                    + ": regenerate the overlay");
        }
        return m;
    }
}
