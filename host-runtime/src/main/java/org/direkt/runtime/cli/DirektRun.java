// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.direkt.runtime.DataPath;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.Session;
import org.direkt.runtime.bringup.Bringup;
import org.direkt.runtime.bringup.Injection;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.LinuxBusAddressImporter;
import org.direkt.runtime.pcie.SimulatedImporter;
import org.direkt.runtime.sim.SimulationException;


/**
 * {@code direkt-run}: the host runtime's command line.
 *
 * <ul>
 * <li>{@code demo [--overlay DIR] [--bytes N] [--gpu auto|simulated|none] [--importer
 *     simulated|none|refusing|system]}: a GPU -> FPGA -> GPU round trip on one simulated FPGA (a
 *     GPU -> FPGA copy, then an FPGA -> GPU copy of what FPGA memory holds), on whichever path the
 *     session takes, which it prints with the reason. GPU memory is real when a GPU is
 *     present (CUDA through FFM; the data is read back through CUDA and compared) and a simulated GPU
 *     (host memory exported as a simulated dma-buf) otherwise; {@code --gpu none} plays a machine
 *     without a GPU. On the direct path its pages get bus addresses from the simulated importer
 *     (scattered 64 KB pages) and the transfer becomes mover-legal kernel descriptors; on the bounce
 *     path ({@code --importer none}: no importer; {@code --importer refusing}: the exporter refuses
 *     peer-to-peer; {@code --importer system}: this machine's importer module, or the reason there is
 *     none; or no GPU) it goes through a pinned host buffer with a CUDA copy and host
 *     descriptors. Either way the descriptors run on the session's simulated FPGA (the bridge, its data
 *     movers and FPGA memory in one simulation that lasts the session).</li>
 * <li>{@code bringup [--overlay DIR] [--inject SETTING]...} or {@code bringup --board ...}: the
 *     bring-up ({@link Bringup}) on the simulated back end or a board ({@link BringupCommand}): the
 *     bring-up kernel's known descriptors, the bridge's bring-up registers, one line per check.</li>
 * <li>{@code importer (--gpu BYTES | --fd N ...)}: GPU memory imported for the FPGA through the
 *     importer kernel module, its bus-address segments printed ({@link ImporterCommand}).</li>
 * <li>{@code csr --fpga D:B:D.F --bar N --offset BYTES --bytes BYTES --layout-version V [read OFFSET |
 *     write OFFSET=VALUE]...}: the bridge's registers on a board, through the importer kernel
 *     module's CSR window ({@link CsrCommand}).</li>
 * </ul>
 */
public final class DirektRun {
    private DirektRun() {
    }

    /** What {@code direkt-run} exits with. */
    public enum ExitCode {
        OK(0, "success (bringup: every check OK)"),
        FAILED(1, "bringup: a check found a mismatch or could not decide; demo: the round trip failed"),
        USAGE(2, "bad usage or bad input (the message names it)"),
        BACK_END(3, "the back end could not run it (the simulation's environment, or the board's driver, device or platform, is"
                + " missing, or the back end failed)");

        public final int code;
        public final String meaning;

        ExitCode(int code, String meaning) {
            this.code = code;
            this.meaning = meaning;
        }
    }

    private static final long PAGE = AddressTable.PAGE_SIZE;
    /** The simulated BAR aperture: 1 GB at a multiple of 1 GB, so one bridge window (an aligned power-of-two block) covers it. */
    private static final long APERTURE = 0x38_0000_0000L;
    private static final long APERTURE_SIZE = 1L << 30;
    private static final long FPGA_BUFFER = 0x1000_0000L;
    private static final Path DEFAULT_OVERLAY = Path.of("build/demo/overlay");

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(args, out, err).code);
    }

    /** Runs one command; what it prints goes to {@code out}, errors to {@code err}. */
    public static ExitCode run(String[] args, PrintWriter out, PrintWriter err) {
        return run(args, out, err, BringupCommand.MACHINE);
    }

    /** {@link #run(String[], PrintWriter, PrintWriter)}, {@code bringup --board} opening its board through {@code boards}. */
    static ExitCode run(String[] args, PrintWriter out, PrintWriter err, BringupCommand.Boards boards) {
        try {
            if (args.length == 0) {
                usage(err);
                return ExitCode.USAGE;
            }
            return switch (args[0]) {
                case "--help", "-h", "help" -> {
                    usage(out);
                    yield ExitCode.OK;
                }
                case "demo" -> demo(Arrays.copyOfRange(args, 1, args.length), out);
                case "bringup" -> BringupCommand.run(Arrays.copyOfRange(args, 1, args.length), out, DEFAULT_OVERLAY, boards);
                case "importer" -> ImporterCommand.run(Arrays.copyOfRange(args, 1, args.length), out, System.in);
                case "csr" -> CsrCommand.run(Arrays.copyOfRange(args, 1, args.length), out);
                default -> throw new IllegalArgumentException("unknown command '" + args[0]
                        + "' (demo, bringup or importer; see --help)");
            };
        } catch (CommandFailure e) {
            err.println("direkt-run: " + e.getMessage());
            return e.code();
        } catch (IllegalArgumentException | IOException e) {
            err.println("direkt-run: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (SimulationException e) {
            err.println("direkt-run: the simulated back end failed: " + e.getMessage());
            return ExitCode.BACK_END;
        } catch (DmaException | IllegalStateException e) {
            err.println("direkt-run: " + e.getMessage());
            return ExitCode.FAILED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static void usage(PrintWriter w) {
        w.println("usage: direkt-run demo [--overlay DIR] [--bytes N] [--gpu auto|simulated|none] [--importer simulated|none|refusing|system]");
        w.println("       direkt-run bringup [--overlay DIR] [--inject SETTING]...");
        w.println("       direkt-run bringup --board --fpga D:B:D.F --binary FILE [--platform NAME] [--device PATH] [--overlay DIR]");
        w.println("       direkt-run importer (--gpu BYTES | --fd N [--offset BYTES] --length BYTES) [--fpga D:B:D.F] [--hold]");
        w.println("       direkt-run csr --fpga D:B:D.F --bar N --offset BYTES --bytes BYTES --layout-version V [read OFF | write OFF=VALUE]...");
        w.println();
        w.println("  demo     a GPU -> FPGA -> GPU round trip on one simulated FPGA (the second copy reads what the first left in FPGA");
        w.println("           memory), peer-to-peer or through pinned host memory (it prints the path it took and why); real GPU");
        w.println("           memory when a GPU is present");
        w.println("  bringup  the bring-up kernel (examples/kernels/direkt_bringup.cl) issues known descriptors through the bridge,");
        w.println("           the bridge's bring-up registers are read back, and one line per check says whether the overlay's");
        w.println("           word order and status layout match the hardware (and what to change if not), then the latency per");
        w.println("           direction; it runs on this runtime's simulated back end, the bridge built as the overlay describes, or");
        w.println("           with --board on a board: the kernel from the board's binary, the registers through the CSR window; the");
        w.println("           report then names what the run could not settle");
        w.println("  importer GPU memory imported for the FPGA through the importer kernel module (/dev/direkt_importer),");
        w.println("           its bus-address segments printed: the machine's peer-to-peer path checked (importer --help)");
        w.println("  csr      the direkt bridge's registers on a board, read and written through the importer module's CSR");
        w.println("           window, opened only where the bitstream's bridge answers with the overlay's layout (csr --help)");
        w.println("  --overlay DIR    the overlay (direkt overlay --out DIR); default " + DEFAULT_OVERLAY);
        w.println("  --bytes N        demo: bytes to move, a positive multiple of 4 (default 262148)");
        w.println("  --gpu G          demo: auto (default): the GPU when one is present, else a simulated one; simulated;");
        w.println("                   none: as without a GPU (the bounce path)");
        w.println("  --importer I     demo: simulated (default); none: no importer; refusing: the exporter refuses peer-to-peer;");
        w.println("                   system: this machine's importer module (/dev/direkt_importer), or the reason there is none");
        w.println("  --inject SETTING bringup, simulated only: make one setting wrong, as a board would have it wrong; repeatable:");
        for (Injection i : Injection.values()) {
            w.println("                     " + i.key() + ": " + i.describe);
        }
        w.println("  --board          bringup: on a board: --fpga D:B:D.F its FPGA (lspci -D -d 1172:); --binary FILE the binary aoc");
        w.println("                   built from examples/kernels/direkt_bringup.cl; --platform NAME its OpenCL platform (default");
        w.println("                   " + BringupCommand.PLATFORM + "); --device PATH the importer module's node (default $DIREKT_IMPORTER,");
        w.println("                   else /dev/direkt_importer); the overlay's manifest must name the CSR (board.csr)");
        w.println();
        w.println("exit codes:");
        for (ExitCode c : ExitCode.values()) {
            w.println("  " + c.code + "  " + c.meaning);
        }
    }

    /** The value after option {@code args[i]}; a missing one is an error naming the option. */
    static String value(String[] args, int i) {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
            throw new IllegalArgumentException(args[i] + " needs a value (see --help)");
        }
        return args[i + 1];
    }

    /** {@code value} when it is one of {@code allowed}; otherwise an error naming the option and the choices. */
    private static String oneOf(String option, String value, String... allowed) {
        for (String a : allowed) {
            if (a.equals(value)) {
                return value;
            }
        }
        throw new IllegalArgumentException(option + " " + value + ": one of " + String.join(", ", allowed));
    }

    private static ExitCode demo(String[] args, PrintWriter out) throws IOException {
        Path overlay = DEFAULT_OVERLAY;
        int bytes = 256 * 1024 + 4;
        String gpu = "auto";
        String importerKind = "simulated";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--overlay" -> overlay = Path.of(value(args, i++));
                case "--bytes" -> {
                    String v = value(args, i++);
                    try {
                        bytes = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--bytes " + v + ": not a number");
                    }
                }
                case "--gpu" -> gpu = oneOf("--gpu", value(args, i++), "auto", "simulated", "none");
                case "--importer" -> importerKind = oneOf("--importer", value(args, i++), "simulated", "none", "refusing",
                        "system");
                default -> throw new IllegalArgumentException("demo: unknown argument '" + args[i] + "' (see --help)");
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
        } else if (importerKind.equals("system")) {
            importer = LinuxBusAddressImporter.system();
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
            out.println("GPU: " + s.gpuDescription() + (gpuChoice == Session.Gpu.SIMULATED && gpu.equals("auto")
                    ? ", as this machine has none" : "") + "; a buffer of " + g.length() + " bytes");
            boolean direct = g.path() == DataPath.DIRECT;
            out.println("path: " + (direct ? "DIRECT (peer-to-peer)" : "BOUNCE (through pinned host memory)") + ", because "
                    + g.pathReason());
            if (direct) {
                out.printf("PCIe address table: %d pages in %d segments (simulated importer, BAR aperture 0x%x)%n",
                        g.table().pageCount(), g.table().segmentCount(), APERTURE);
            } else {
                out.printf("pinned host buffer: %d bytes at bus address 0x%x (mapped for the FPGA's host DMA)%n",
                        g.length(), g.table().busAddress(0));
            }
            Session.FpgaBuffer f = s.fpgaBuffer(FPGA_BUFFER, bytes);
            // One device for the whole session: the second copy reads what the first left in FPGA memory.
            long t0 = System.nanoTime();
            Session.Copy in = s.copy(g, 0, f, 0, bytes);
            in.await();
            long t1 = System.nanoTime();
            Session.Copy back = s.copy(f, 0, g, half, bytes);
            back.await();
            long t2 = System.nanoTime();
            out.printf("%s: %d GPU->FPGA, %d FPGA->GPU (%s); all statuses OK%n",
                    direct ? "kernel descriptors" : "host descriptors", in.descriptorCount(), back.descriptorCount(),
                    direct ? "split at 1 MB - 4 B and at page discontinuities"
                            : "split at 1 MB - 4 B; and a CUDA copy each way between GPU and pinned host memory");
            out.printf("simulated FPGA (%s): started in %.1f s; GPU->FPGA %.0f ms, FPGA->GPU %.0f ms wall (%d and %d dma_clk"
                    + " cycles simulated)%n", s.device().simulator(), s.device().startTime().toMillis() / 1e3,
                    (t1 - t0) / 1e6, (t2 - t1) / 1e6, in.dmaCycles(), back.dmaCycles());
            if (!Arrays.equals(src, g.read(half, bytes))) {
                throw new IllegalStateException("GPU memory after the round trip differs from the source");
            }
            out.printf("round trip GPU -> FPGA -> GPU on one simulated FPGA: %d bytes byte-exact, %s path%s%n", bytes,
                    direct ? "direct" : "bounce", s.hasGpu() ? " (read back through CUDA)" : "");
        }
        return ExitCode.OK;
    }
}
