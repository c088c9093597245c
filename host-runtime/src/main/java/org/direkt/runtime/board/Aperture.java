// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.ffi.ApertureDevice;
import org.direkt.runtime.ffi.ImporterDevice.ImporterException;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.pcie.Bytes;

/**
 * The FPGA memory the overlay's aperture exposes ({@code aperture} in its manifest), mapped into
 * this process through the importer kernel module: its file ({@code DIREKT_IOC_APERTURE_OPEN}, on
 * BAR {@code aperture.bar} from offset 0, {@code aperture.bar_bytes} long, granted only where the
 * CSR range reads as direkt's bridge of the manifest's layout version) and one shared read-write
 * mapping of all of it: one {@code VM_IO | VM_PFNMAP} mapping, which CUDA can register as I/O memory
 * for the GPU's copy engine. Byte {@code i} of {@link #segment()} is FPGA address
 * {@code fpgaBase + i}.
 *
 * <p>The host should not touch the mapping itself: it is write-combined (a prefetchable BAR) or
 * uncached, and the GPU reaches the BAR by its bus address either way. Closing unmaps it and
 * closes the file. Unmap and close apertures before reprogramming the FPGA.
 */
public final class Aperture implements AutoCloseable {
    private final OverlayManifest.Aperture declared;
    private final CsrRange csr;
    private final int fd;
    private final MemorySegment mapping;
    private final boolean writeCombining;
    private boolean closed;

    private Aperture(OverlayManifest.Aperture declared, CsrRange csr, int fd, MemorySegment mapping, boolean writeCombining) {
        this.declared = declared;
        this.csr = csr;
        this.fd = fd;
        this.mapping = mapping;
        this.writeCombining = writeCombining;
    }

    /**
     * Opens and maps the aperture {@code declared} of the FPGA whose bridge's CSR is {@code csr},
     * through the module's {@code node}, once the bridge's VERSION reads {@code layoutVersion}.
     *
     * @throws ApertureException naming what is missing: the module, access to its node, apertures in
     *     the module, the FPGA, a flat memory BAR of the manifest's size, direkt's bridge in the
     *     bitstream, its layout version; or why the mapping failed
     */
    public static Aperture open(Path node, CsrRange csr, OverlayManifest.Aperture declared, int layoutVersion) {
        if (!Files.exists(node)) {
            throw ApertureException.noModule(node);
        }
        ApertureDevice device;
        try {
            device = ApertureDevice.open(node);
        } catch (ImporterException e) {
            throw ApertureException.cannotOpen(node, e.errno());
        }
        ApertureDevice.Opened reply;
        try (device) {
            reply = device.openAperture((int) csr.fpga().domain(), csr.fpga().bus(), csr.fpga().device(), csr.fpga().function(),
                    csr.bar(), csr.offset(), csr.bytes(), layoutVersion, declared.bar(), 0, declared.barBytes());
        }
        if (reply.errno() != 0) {
            throw ApertureException.refused(node, csr, layoutVersion, declared.bar(), 0, declared.barBytes(), reply);
        }
        try {
            MemorySegment m = ApertureDevice.map(reply.fd(), declared.barBytes());
            return new Aperture(declared, csr, reply.fd(), m, reply.caching() == ApertureDevice.WRITE_COMBINING);
        } catch (Libc.ErrnoException e) {
            Libc.close(reply.fd());
            throw ApertureException.mapRefused(where(csr, declared), e.errno());
        }
    }

    private static String where(CsrRange csr, OverlayManifest.Aperture a) {
        return csr.fpga() + " BAR " + a.bar() + " [0x0, +" + Bytes.human(a.barBytes()) + ")";
    }

    /** The mapping: {@link OverlayManifest.Aperture#barBytes()} bytes, byte 0 at FPGA address {@link OverlayManifest.Aperture#fpgaBase()}. */
    public MemorySegment segment() {
        if (closed) {
            throw new IllegalStateException("the aperture " + this + " is closed");
        }
        return mapping;
    }

    /** The aperture as the overlay's manifest declares it. */
    public OverlayManifest.Aperture declared() {
        return declared;
    }

    /** Whether the module mapped the BAR write-combining (a prefetchable BAR), else uncached. */
    public boolean writeCombining() {
        return writeCombining;
    }

    /** Unmaps it and closes its file; later calls do nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Libc.munmap(mapping);
        } finally {
            Libc.close(fd);
        }
    }

    @Override
    public String toString() {
        return where(csr, declared) + " = FPGA memory [" + Bytes.hex(declared.fpgaBase()) + ", " + Bytes.hex(declared.fpgaEnd())
                + "), " + (writeCombining ? "write-combining" : "uncached");
    }
}
