// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.direkt.runtime.board.CsrRange;
import org.direkt.runtime.board.CsrWindow;
import org.direkt.runtime.board.CsrWindowException;
import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.ffi.ImporterDevice.ImporterException;
import org.direkt.runtime.pcie.PciAddress;

/**
 * {@code direkt-run csr}: opens the bridge's CSR window on a board through the importer kernel
 * module (which checks that the range holds direkt's bridge of the given layout version), then
 * reads and writes its registers in the order given, one line each:
 *
 * <pre>
 * direkt-run csr --fpga D:B:D.F --bar N --offset BYTES --bytes BYTES --layout-version V [--device PATH]
 *                [read OFFSET | write OFFSET=VALUE]...
 * </pre>
 *
 * A refused access prints why and the rest still run; the exit status is then 1, as it is when
 * the window cannot be opened.
 */
final class CsrCommand {
    private CsrCommand() {
    }

    static final String USAGE = """
            usage: direkt-run csr --fpga DOMAIN:BUS:DEV.FN --bar N --offset BYTES --bytes BYTES --layout-version V
                                  [--device PATH] [read OFFSET | write OFFSET=VALUE]...
              open the direkt bridge's CSR window through the importer module, then read and write its registers
              --fpga, --bar, --offset, --bytes   where the CSR is: the overlay manifest's board.csr (direkt-overlay.json)
              --layout-version V                 what the bridge's VERSION register must read (the manifest's layout.version)
              --device      the importer's node (default: $DIREKT_IMPORTER, else /dev/direkt_importer)
              read OFFSET   print the 32-bit register at byte OFFSET of the window (0x8, 8)
              write OFFSET=VALUE   write a 32-bit VALUE there (0x10=0xcafe0001)""";

    /** One access, in the order given. */
    private record Access(boolean write, long offset, int value) {
    }

    static DirektRun.ExitCode run(String[] args, PrintWriter out) {
        String fpga = null;
        Integer bar = null;
        Long offset = null;
        Long bytes = null;
        Integer version = null;
        Path device = null;
        List<Access> accesses = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help" -> {
                    out.println(USAGE);
                    return DirektRun.ExitCode.OK;
                }
                case "--fpga", "--bar", "--offset", "--bytes", "--layout-version", "--device", "read", "write" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("csr: " + a + " needs a value (see --help)");
                    }
                    String v = args[++i];
                    switch (a) {
                        case "--fpga" -> fpga = v;
                        case "--bar" -> bar = (int) number(a, v);
                        case "--offset" -> offset = number(a, v);
                        case "--bytes" -> bytes = number(a, v);
                        case "--layout-version" -> version = (int) number(a, v);
                        case "--device" -> device = Path.of(v);
                        case "read" -> accesses.add(new Access(false, number("read", v), 0));
                        default -> {
                            int eq = v.indexOf('=');
                            if (eq < 0) {
                                throw new IllegalArgumentException("csr: write " + v + ": write OFFSET=VALUE (0x10=0xcafe0001)");
                            }
                            long value = number("write", v.substring(eq + 1));
                            if (value < Integer.MIN_VALUE || value > 0xFFFF_FFFFL) {
                                throw new IllegalArgumentException("csr: write " + v + ": the value does not fit 32 bits");
                            }
                            accesses.add(new Access(true, number("write", v.substring(0, eq)), (int) value));
                        }
                    }
                }
                default -> throw new IllegalArgumentException("csr: unknown argument '" + a + "' (see --help)");
            }
        }
        if (fpga == null || bar == null || offset == null || bytes == null || version == null) {
            throw new IllegalArgumentException("csr: --fpga, --bar, --offset, --bytes and --layout-version are all needed"
                    + " (the manifest's board.csr and layout.version; see --help)");
        }
        CsrRange range = new CsrRange(PciAddress.parse(fpga), bar, offset, bytes);
        Path node = device != null ? device : CsrWindow.defaultNode();
        boolean refused = false;
        try (CsrWindow w = CsrWindow.open(node, range, version)) {
            out.printf("csr: %s: direkt's bridge, layout version %d%n", range, version);
            for (Access a : accesses) {
                try {
                    if (a.write()) {
                        w.write32(a.offset(), a.value());
                        out.printf("write 0x%x = 0x%08x%n", a.offset(), a.value());
                    } else {
                        out.printf("read 0x%x = 0x%08x%n", a.offset(), w.read32(a.offset()));
                    }
                } catch (CsrWindowException e) {
                    out.println("refused: " + e.getMessage());
                    refused = true;
                }
                out.flush();
            }
        }
        try (CsrDevice d = CsrDevice.open(node)) {
            out.printf("closed: the module holds %d CSR windows%n", d.stats().csrWindows());
        } catch (ImporterException e) {
            throw new IllegalStateException("csr: the window closed, but the module's counts cannot be read: " + e.getMessage(), e);
        }
        return refused ? DirektRun.ExitCode.FAILED : DirektRun.ExitCode.OK;
    }

    /** {@link ImporterCommand#number}, its message naming this command. */
    private static long number(String option, String v) {
        try {
            return ImporterCommand.number(option, v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("csr: " + option + " '" + v + "' is not a number (16, 0x10, 4K)", e);
        }
    }
}
