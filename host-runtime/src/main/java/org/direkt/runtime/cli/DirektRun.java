package org.direkt.runtime.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.SimulatedImporter;


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
    /** The simulated BAR aperture: 1 GB at a multiple of 1 GB, so one bridge window (an aligned power-of-two block) covers it. */
    private static final long APERTURE = 0x38_0000_0000L;
    private static final long APERTURE_SIZE = 1L << 30;
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
        SimulatedImporter importer = new SimulatedImporter(APERTURE, APERTURE_SIZE, 0.5, 2026);
        try (Session s = Session.open(overlay, importer)) {
            // The host opens one window over the importer's BAR aperture: kernels may reach nothing else.
            s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1);
            long half = (bytes + PAGE - 1) / PAGE * PAGE;
            Session.GpuBuffer g = s.allocateGpu(2 * half);
            byte[] src = new byte[bytes];
            new Random(2026).nextBytes(src);
            g.write(0, src);
            System.out.println(s.hasGpu() ? "GPU: CUDA memory, " + g.length() + " bytes, exported as a dma-buf"
                    : "GPU: none here (no libcuda.so.1): host memory stands in for GPU memory");
            System.out.printf("PCIe address table: %d pages in %d segments (simulated importer, BAR aperture 0x%x)%n",
                    g.table().pageCount(), g.table().segmentCount(), APERTURE);
            Session.FpgaBuffer f = s.fpgaBuffer(FPGA_BUFFER, bytes);
            long t0 = System.nanoTime();
            Session.Copy in = s.copy(g, 0, f, 0, bytes);
            in.await();
            if (!Arrays.equals(src, in.fpgaContents())) {
                throw new IllegalStateException("FPGA memory differs from the GPU source after GPU -> FPGA");
            }
            Session.Copy out = s.copy(f, 0, g, half, bytes).withFpgaContents(in.fpgaContents());
            out.await();
            System.out.printf("descriptors: %d GPU->FPGA, %d FPGA->GPU (split at 1 MB - 4 B and at page discontinuities); "
                    + "bridge simulation %.1f s, all statuses OK%n", in.descriptorCount(), out.descriptorCount(),
                    (System.nanoTime() - t0) / 1e9);
            if (!Arrays.equals(src, g.read(half, bytes))) {
                throw new IllegalStateException("GPU memory after the round trip differs from the source");
            }
            System.out.printf("round trip GPU -> FPGA -> GPU: %d bytes byte-exact%s%n", bytes,
                    s.hasGpu() ? " (read back through CUDA)" : "");
        }
        return 0;
    }
}
