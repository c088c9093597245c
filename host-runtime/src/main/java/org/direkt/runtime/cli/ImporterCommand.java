// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.BusAddressImporter;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pcie.LinuxBusAddressImporter;

/**
 * {@code direkt-run importer}: asks the importer kernel module for the bus addresses of GPU memory
 * and prints them, to check a machine's peer-to-peer path before anything else runs:
 *
 * <pre>
 * direkt-run importer --gpu BYTES [--fpga D:B:D.F] [--device PATH] [--hold]
 * direkt-run importer --fd N [--offset BYTES] --length BYTES [--fpga D:B:D.F] [--device PATH] [--hold]
 * </pre>
 *
 * With {@code --gpu} it allocates CUDA memory and exports it as a dma-buf; with {@code --fd} it
 * imports a dma-buf this process inherited. It prints one {@code segment <bus address> <bytes>}
 * line per bus-contiguous run; with {@code --hold} it keeps the import until a line arrives on
 * stdin, printing {@code revoked ...} if the exporter revokes it meanwhile, then releases it.
 */
final class ImporterCommand {
    private static final long PAGE = AddressTable.PAGE_SIZE;

    private ImporterCommand() {
    }

    static final String USAGE = """
            usage: direkt-run importer (--gpu BYTES | --fd N [--offset BYTES] --length BYTES)
                                       [--fpga DOMAIN:BUS:DEV.FN] [--device PATH] [--hold]
              import GPU memory for the FPGA through the importer module and print its bus-address segments
              --gpu BYTES   allocate and export that much CUDA memory (whole 64 KB pages; 64M, 1G, ...)
              --fd N        a dma-buf this process inherited, range --offset/--length (64 KB multiples)
              --fpga        the FPGA's PCI address (default: $DIREKT_FPGA, else the one Intel FPGA found)
              --device      the importer's node (default: $DIREKT_IMPORTER, else /dev/direkt_importer)
              --hold        keep the import until a line arrives on stdin; report revocations meanwhile""";

    static DirektRun.ExitCode run(String[] args, PrintWriter out, InputStream in) throws IOException {
        Long gpu = null;
        Integer fd = null;
        long offset = 0;
        Long length = null;
        String fpga = null;
        String device = null;
        boolean hold = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--hold" -> hold = true;
                case "--help" -> {
                    out.println(USAGE);
                    return DirektRun.ExitCode.OK;
                }
                case "--gpu", "--fd", "--offset", "--length", "--fpga", "--device" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("importer: " + a + " needs a value (see --help)");
                    }
                    String v = args[++i];
                    switch (a) {
                        case "--gpu" -> gpu = number(a, v);
                        case "--fd" -> fd = (int) number(a, v);
                        case "--offset" -> offset = number(a, v);
                        case "--length" -> length = number(a, v);
                        case "--fpga" -> fpga = v;
                        default -> device = v;
                    }
                }
                default -> throw new IllegalArgumentException("importer: unknown argument '" + a + "' (see --help)");
            }
        }
        if ((gpu == null) == (fd == null)) {
            throw new IllegalArgumentException("importer: give exactly one of --gpu BYTES and --fd N (see --help)");
        }
        if (fd != null && length == null) {
            throw new IllegalArgumentException("importer: --fd needs --length BYTES (the range to import)");
        }
        BusAddressImporter found = LinuxBusAddressImporter.system(device, fpga);
        if (found.unavailableReason().isPresent()) {
            throw new IllegalStateException("importer: " + found.unavailableReason().get());
        }
        try (LinuxBusAddressImporter importer = (LinuxBusAddressImporter) found) {
            if (gpu != null) {
                return importGpu(importer, gpu, hold, out, in);
            }
            return show(importer, importer.importDmaBuf(fd, offset, length), hold, out, in);
        }
    }

    private static DirektRun.ExitCode importGpu(LinuxBusAddressImporter importer, long bytes, boolean hold, PrintWriter out,
            InputStream in) throws IOException {
        if (bytes <= 0 || bytes % PAGE != 0) {
            throw new IllegalArgumentException("importer: --gpu " + bytes + " must be a positive multiple of 64 KB");
        }
        if (!Cuda.isAvailable()) {
            throw new IllegalStateException("importer: --gpu needs the CUDA driver (libcuda.so.1), which is not here;"
                    + " use --fd with a dma-buf another program exported");
        }
        Cuda cuda = Cuda.load();
        cuda.init();
        cuda.setCurrentContext(cuda.primaryContextRetain(cuda.device(0)));
        long p = cuda.memAlloc(bytes);
        int fd = -1;
        try {
            fd = cuda.exportDmaBuf(p, bytes, 0);
            out.printf("GPU: %s of CUDA memory at 0x%x, exported as dma-buf fd %d%n", Bytes.size(bytes), p, fd);
            return show(importer, importer.importDmaBuf(fd, 0, bytes), hold, out, in);
        } finally {
            if (fd >= 0) {
                Libc.close(fd);
            }
            cuda.memFree(p);
        }
    }

    private static DirektRun.ExitCode show(LinuxBusAddressImporter importer, ImportedRange r, boolean hold, PrintWriter out,
            InputStream in) throws IOException {
        long[] pages = r.pageBusAddresses();
        int runs = 0;
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < pages.length;) {
            int j = i + 1;
            while (j < pages.length && pages[j] == pages[j - 1] + PAGE) {
                j++;
            }
            lines.append(String.format("segment 0x%x %d%n", pages[i], (j - i) * PAGE));
            runs++;
            i = j;
        }
        out.printf("import: handle %d for the FPGA at %s, %s in %d pages, %d bus-contiguous segments%n", r.handle(),
                importer.fpga(), Bytes.size(r.length()), pages.length, runs);
        out.print(lines);
        out.flush();
        if (hold) {
            importer.addRevocationListener((range, why) -> {
                if (range == r) {
                    out.println("revoked: handle " + range.handle() + ": " + why);
                    out.flush();
                }
            });
            out.println("holding: the import stays until a line arrives on stdin");
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
        }
        importer.release(r);
        var s = importer.stats();
        out.printf("released: the module now holds %d attachments, %d mappings%n", s.attachments(), s.mappings());
        out.flush();
        return DirektRun.ExitCode.OK;
    }

    /** A number, decimal or 0x hex, with an optional K, M or G suffix (powers of 1024): 64M, 0x10000, 65536. */
    static long number(String option, String v) {
        long unit = 1;
        String digits = v;
        if (!v.isEmpty() && !v.startsWith("0x") && !v.startsWith("0X")) {
            switch (Character.toUpperCase(v.charAt(v.length() - 1))) {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
            digits = unit == 1 ? v : v.substring(0, v.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.decode(digits), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("importer: " + option + " '" + v + "' is not a number (65536, 0x10000, 64K, 64M)");
        }
    }
}
