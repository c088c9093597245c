package org.direkt.runtime.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.direkt.runtime.DataPath;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;


/**
 * {@code direkt-run demo [--overlay DIR] [--bytes N] [--gpu auto|simulated|none] [--importer
 * simulated|none|refusing]}: a GPU -> FPGA -> GPU round trip on simulated hardware, on whichever
 * path the session takes, which it prints with the reason. GPU memory is real when a GPU is present
 * (CUDA through FFM; the data is read back through CUDA and compared) and a simulated GPU (host
 * memory exported as a simulated dma-buf) otherwise; {@code --gpu none} plays a machine without a
 * GPU. On the direct path its pages get bus addresses from the simulated importer (scattered 64 KB
 * pages) and the transfer becomes mover-legal kernel descriptors; on the bounce path ({@code
 * --importer none}: no importer; {@code --importer refusing}: the exporter refuses peer-to-peer;
 * or no GPU) it goes through a pinned host buffer with a CUDA copy and host descriptors. Either
 * way the descriptors run through the bridge's system simulation.
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
            usage();
            return args.length > 0 && args[0].equals("--help") ? 0 : 2;
        }
        Path overlay = Path.of("build/demo/overlay");
        int bytes = 256 * 1024 + 4;
        String gpu = "auto";
        String importerKind = "simulated";
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help")) {
                usage();
                return 0;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a.startsWith("--") ? a + " needs a value (see --help)"
                        : "unknown argument '" + a + "' (see --help)");
            }
            switch (a) {
                case "--overlay" -> overlay = Path.of(args[++i]);
                case "--bytes" -> bytes = parseBytes(args[++i]);
                case "--gpu" -> gpu = oneOf("--gpu", args[++i], "auto", "simulated", "none");
                case "--importer" -> importerKind = oneOf("--importer", args[++i], "simulated", "none", "refusing");
                default -> throw new IllegalArgumentException("unknown argument '" + a + "' (see --help)");
            }
        }
        if (bytes <= 0 || bytes % 4 != 0) {
            throw new IllegalArgumentException("--bytes " + bytes + ": must be a positive multiple of 4");
        }
        Session.Gpu gpuChoice = switch (gpu) {
            case "simulated" -> Session.Gpu.SIMULATED;
            case "none" -> Session.Gpu.NONE;
            default -> Session.gpuPresent() ? Session.Gpu.AUTO : Session.Gpu.SIMULATED;
        };
        BusAddressImporter importer;
        if (importerKind.equals("none")) {
            importer = BusAddressImporter.none("no bus-address importer (--importer none): nothing maps GPU memory for the FPGA");
        } else {
            SimulatedImporter sim = new SimulatedImporter(APERTURE, APERTURE_SIZE, 0.5, 2026);
            if (importerKind.equals("refusing")) {
                sim.refuseImports("the exporter refuses to map GPU memory for the FPGA: no peer-to-peer path between the two"
                        + " (simulated: --importer refusing)");
            }
            importer = sim;
        }
        try (Session s = Session.open(overlay, importer, gpuChoice)) {
            // The host opens one window over the importer's BAR aperture: kernels may reach nothing else.
            s.openWindow(APERTURE, APERTURE + APERTURE_SIZE - 1);
            long half = (bytes + PAGE - 1) / PAGE * PAGE;
            Session.GpuBuffer g = s.allocateGpu(2 * half);
            byte[] src = new byte[bytes];
            new Random(2026).nextBytes(src);
            g.write(0, src);
            System.out.println("GPU: " + s.gpuDescription() + (gpuChoice == Session.Gpu.SIMULATED && gpu.equals("auto")
                    ? ", as this machine has none" : "") + "; a buffer of " + g.length() + " bytes");
            boolean direct = g.path() == DataPath.DIRECT;
            System.out.println("path: " + (direct ? "DIRECT (peer-to-peer)" : "BOUNCE (through pinned host memory)") + ", because "
                    + g.pathReason());
            if (direct) {
                System.out.printf("PCIe address table: %d pages in %d segments (simulated importer, BAR aperture 0x%x)%n",
                        g.table().pageCount(), g.table().segmentCount(), APERTURE);
            } else {
                System.out.printf("pinned host buffer: %d bytes at bus address 0x%x (mapped for the FPGA's host DMA)%n",
                        g.length(), g.table().busAddress(0));
            }
            Session.FpgaBuffer f = s.fpgaBuffer(FPGA_BUFFER, bytes);
            long t0 = System.nanoTime();
            Session.Copy in = s.copy(g, 0, f, 0, bytes);
            in.await();
            if (!Arrays.equals(src, in.fpgaContents())) {
                throw new IllegalStateException("FPGA memory differs from the GPU source after GPU -> FPGA");
            }
            Session.Copy out = s.copy(f, 0, g, half, bytes).withFpgaContents(in.fpgaContents());
            out.await();
            System.out.printf("%s: %d GPU->FPGA, %d FPGA->GPU (%s); bridge simulation %.1f s, all statuses OK%n",
                    direct ? "kernel descriptors" : "host descriptors", in.descriptorCount(), out.descriptorCount(),
                    direct ? "split at 1 MB - 4 B and at page discontinuities"
                            : "split at 1 MB - 4 B; and a CUDA copy each way between GPU and pinned host memory",
                    (System.nanoTime() - t0) / 1e9);
            if (!Arrays.equals(src, g.read(half, bytes))) {
                throw new IllegalStateException("GPU memory after the round trip differs from the source");
            }
            System.out.printf("round trip GPU -> FPGA -> GPU: %d bytes byte-exact, %s path%s%n", bytes,
                    direct ? "direct" : "bounce", s.hasGpu() ? " (read back through CUDA)" : "");
        }
        return 0;
    }

    private static void usage() {
        System.out.println("usage: direkt-run demo [--overlay DIR] [--bytes N] [--gpu auto|simulated|none] [--importer simulated|none|refusing]");
        System.out.println("  a GPU -> FPGA -> GPU round trip through the bridge's system simulation, peer-to-peer or through pinned host memory");
        System.out.println("  --gpu auto (default): the GPU when one is present, else a simulated one; simulated; none: as without a GPU");
        System.out.println("  --importer simulated (default); none: no importer; refusing: the exporter refuses peer-to-peer");
    }

    private static int parseBytes(String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--bytes " + v + ": not a whole number of bytes");
        }
    }

    private static String oneOf(String option, String value, String... allowed) {
        for (String a : allowed) {
            if (a.equals(value)) {
                return value;
            }
        }
        throw new IllegalArgumentException(option + " " + value + ": one of " + String.join(", ", allowed));
    }
}
