// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.nio.file.Files;
import java.nio.file.Path;

import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.ffi.ImporterDevice;
import org.direkt.runtime.ffi.ImporterDevice.ImporterException;

/**
 * The registers of direkt's bridge on a board, read and written through the importer kernel
 * module beside the BSP's driver, which keeps owning the FPGA. The module maps only the CSR's
 * range ({@link CsrRange}, the overlay manifest's {@code board.csr}) and only after its MAGIC and
 * VERSION registers read as direkt's bridge of the manifest's layout version: opened, the window
 * is on the bridge the overlay describes. Registers are 32-bit words at byte offsets from the
 * range's start; everything outside it is refused.
 *
 * <p>Each window is one open file of the module's node; closing the window (or the process
 * ending) closes it. Thread-safe: the module serialises accesses; a write is posted, and a later
 * read of the window reaches the FPGA after it.
 */
public final class CsrWindow implements AutoCloseable {
    private final CsrDevice device;
    private final CsrRange range;
    private final int layoutVersion;
    private final int handle;
    private volatile boolean closed;

    private CsrWindow(CsrDevice device, CsrRange range, int layoutVersion, int handle) {
        this.device = device;
        this.range = range;
        this.layoutVersion = layoutVersion;
        this.handle = handle;
    }

    /** The module's node: {@code $DIREKT_IMPORTER}, else {@code /dev/direkt_importer}. */
    public static Path defaultNode() {
        String dev = System.getenv("DIREKT_IMPORTER");
        return dev == null || dev.isBlank() ? ImporterDevice.DEFAULT_PATH : Path.of(dev);
    }

    /**
     * Opens the window on {@code range} through the module's {@code node}, once VERSION reads
     * {@code layoutVersion} (the manifest's {@code layout.version}).
     *
     * @throws CsrWindowException naming what is missing: the module, access to its node, the FPGA,
     *     a memory BAR that holds the range, direkt's bridge in the bitstream, its layout version
     */
    public static CsrWindow open(Path node, CsrRange range, int layoutVersion) {
        if (!Files.exists(node)) {
            throw CsrWindowException.noModule(node);
        }
        CsrDevice device;
        try {
            device = CsrDevice.open(node);
        } catch (ImporterException e) {
            throw CsrWindowException.cannotOpen(node, e.errno());
        }
        CsrDevice.Opened reply;
        try {
            reply = device.openWindow((int) range.fpga().domain(), range.fpga().bus(), range.fpga().device(),
                    range.fpga().function(), range.bar(), range.offset(), range.bytes(), layoutVersion);
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
        if (reply.errno() != 0) {
            device.close();
            throw CsrWindowException.refused(node, range, layoutVersion, reply);
        }
        return new CsrWindow(device, range, layoutVersion, reply.handle());
    }

    public CsrRange range() {
        return range;
    }

    /** The layout version the bridge's VERSION register read when the window opened. */
    public int layoutVersion() {
        return layoutVersion;
    }

    /** The register at byte {@code offset} of the window. */
    public int read32(long offset) {
        try {
            return device.read(handle, offset);
        } catch (ImporterException e) {
            throw CsrWindowException.access(range, "read", offset, e.errno());
        }
    }

    /** {@code value} to the register at byte {@code offset} of the window. */
    public void write32(long offset, int value) {
        try {
            device.write(handle, offset, value);
        } catch (ImporterException e) {
            throw CsrWindowException.access(range, "write", offset, e.errno());
        }
    }

    /** Closes the window, then the module's file that held it. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            device.closeWindow(handle);
        } finally {
            device.close();
        }
    }
}
