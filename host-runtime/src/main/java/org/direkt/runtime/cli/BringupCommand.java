// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.direkt.runtime.Session;
import org.direkt.runtime.board.BoardDevice;
import org.direkt.runtime.board.BoardDeviceException;
import org.direkt.runtime.board.CsrWindow;
import org.direkt.runtime.board.CsrWindowException;
import org.direkt.runtime.bringup.BoardTarget;
import org.direkt.runtime.bringup.BridgeConfig;
import org.direkt.runtime.bringup.Bringup;
import org.direkt.runtime.bringup.BringupPlan;
import org.direkt.runtime.bringup.BringupReport;
import org.direkt.runtime.bringup.Injection;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.ffi.NativeLibraryException;
import org.direkt.runtime.ffi.OpenClException;
import org.direkt.runtime.pcie.ApertureExhaustedException;
import org.direkt.runtime.pcie.LinuxBusAddressImporter;
import org.direkt.runtime.pcie.PciAddress;
import org.direkt.runtime.sim.SimulatedBridge;

/**
 * {@code direkt-run bringup}: the bring-up ({@link Bringup}) on the simulated back end, with wrong
 * settings injected where asked, or with {@code --board} on a board device ({@link BoardTarget}):
 *
 * <pre>
 * direkt-run bringup [--overlay DIR] [--inject SETTING]...
 * direkt-run bringup --board --fpga D:B:D.F --binary FILE [--platform NAME] [--device PATH] [--overlay DIR]
 * </pre>
 *
 * On a board, what the user gave wrong (the binary, an overlay without {@code board.csr}) exits 2,
 * a bitstream that is not the overlay's bridge 1, and a missing driver, device or platform 3.
 */
final class BringupCommand {
    private BringupCommand() {
    }

    /** The board's OpenCL platform unless {@code --platform} names another (a part of its name or vendor). */
    static final String PLATFORM = "Intel(R) FPGA";

    /** How {@code --board} opens the board its options name: {@link #MACHINE}, or a test's stand-ins. */
    interface Boards {
        BoardTarget open(Path overlay, BoardDevice.Config config) throws IOException;
    }

    /** This machine's: its importer module for the CSR window and GPU memory, its first GPU, its OpenCL platform. */
    static final Boards MACHINE = (overlay, c) -> BoardTarget.open(overlay,
            LinuxBusAddressImporter.system(c.node().toString(), c.fpga().toString()), Session.Gpu.AUTO, m -> BoardDevice.open(m, c));

    static DirektRun.ExitCode run(String[] args, PrintWriter out, Path defaultOverlay, Boards boards) throws IOException {
        Path overlay = defaultOverlay;
        Set<Injection> inject = EnumSet.noneOf(Injection.class);
        boolean board = false;
        String fpga = null;
        Path binary = null;
        String platform = null;
        Path node = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--overlay" -> overlay = Path.of(DirektRun.value(args, i++));
                case "--inject" -> {
                    Injection in = Injection.of(DirektRun.value(args, i++));
                    if (!inject.add(in)) {
                        throw new IllegalArgumentException("--inject " + in.key() + " is given twice");
                    }
                }
                case "--board" -> board = true;
                case "--fpga" -> fpga = DirektRun.value(args, i++);
                case "--binary" -> binary = Path.of(DirektRun.value(args, i++));
                case "--platform" -> platform = DirektRun.value(args, i++);
                case "--device" -> node = Path.of(DirektRun.value(args, i++));
                default -> throw new IllegalArgumentException("bringup: unknown argument '" + args[i] + "' (see --help)");
            }
        }
        if (!board) {
            if (fpga != null || binary != null || node != null || platform != null) {
                throw new IllegalArgumentException("bringup: --fpga, --binary, --platform and --device name a board's parts:"
                        + " they go with --board");
            }
            BridgeConfig config = BridgeConfig.read(overlay);
            return print(Bringup.simulated(config, inject, SimulatedBridge.locate()), out);
        }
        if (!inject.isEmpty()) {
            throw new IllegalArgumentException("bringup --board: --inject makes a setting wrong in the simulation; a board's"
                    + " settings are what its bitstream and kernel compiler made them (leave out --inject, or --board)");
        }
        if (fpga == null || binary == null) {
            throw new IllegalArgumentException("bringup --board needs --fpga D:B:D.F (the FPGA's PCI address, lspci -D -d 1172:)"
                    + " and --binary FILE (the kernel binary holding " + BoardTarget.KERNEL + ")");
        }
        PciAddress address;
        try {
            address = PciAddress.parse(fpga);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bringup --board: --fpga: " + e.getMessage(), e);
        }
        if (!Files.isRegularFile(binary)) {
            throw new IllegalArgumentException("bringup --board: --binary " + binary + ": no such file (the binary aoc built"
                    + " for this board from examples/kernels/direkt_bringup.cl against the overlay's include/direkt_dma.h)");
        }
        BridgeConfig config = BridgeConfig.read(overlay);
        BringupPlan.requireBringup(config);
        BoardDevice.Config parts = new BoardDevice.Config(address, node != null ? node : CsrWindow.defaultNode(),
                platform != null ? platform : PLATFORM, binary, BoardTarget.FPGA_MEMORY);
        BringupReport report;
        try (BoardTarget target = boards.open(overlay, parts)) {
            report = Bringup.run(config, target, List.of());
        } catch (BoardDeviceException e) {
            throw failure(switch (e.reason()) {
                case NO_CSR_IN_MANIFEST, NO_BINARY, BINARY_REFUSED, NO_KERNEL, NO_APERTURE_IN_MANIFEST -> DirektRun.ExitCode.USAGE;
                case NOT_A_DIREKT_BRIDGE, OTHER_LAYOUT_VERSION -> DirektRun.ExitCode.FAILED;
                case NO_PLATFORM, OUTSIDE_FPGA_MEMORY, NO_APERTURE -> DirektRun.ExitCode.BACK_END;
            }, e);
        } catch (CsrWindowException e) {
            throw failure(switch (e.reason()) {
                case NOT_A_DIREKT_BRIDGE, OTHER_LAYOUT_VERSION -> DirektRun.ExitCode.FAILED;
                default -> DirektRun.ExitCode.BACK_END;
            }, e);
        } catch (BoardTarget.Unavailable | NativeLibraryException | OpenClException | CudaException | ApertureExhaustedException e) {
            throw failure(DirektRun.ExitCode.BACK_END, e);
        }
        return print(report, out);
    }

    /**
     * The one line a failure on the board prints. A bitstream that is not the overlay's bridge, found
     * as the device opens, is the bitstream check's mismatch (exit 1).
     */
    private static CommandFailure failure(DirektRun.ExitCode code, RuntimeException e) {
        return new CommandFailure(code, "bringup --board: " + (code == DirektRun.ExitCode.FAILED ? "bitstream MISMATCH: " : "")
                + e.getMessage(), e);
    }

    private static DirektRun.ExitCode print(BringupReport report, PrintWriter out) {
        out.print(report.render());
        return report.allOk() ? DirektRun.ExitCode.OK : DirektRun.ExitCode.FAILED;
    }
}
