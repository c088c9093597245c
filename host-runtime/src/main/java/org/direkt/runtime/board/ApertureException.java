// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.nio.file.Path;

import org.direkt.runtime.ffi.ApertureDevice;
import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.ffi.Libc;
import org.direkt.runtime.pcie.Bytes;

/**
 * An aperture refused: what is missing or wrong, named in words a user can act on, with the errno
 * the importer module (its {@code DIREKT_IOC_APERTURE_OPEN}, or the aperture's {@code mmap})
 * answered. An {@link IllegalStateException}: the machine, not the call, is not as the overlay
 * expects.
 */
public final class ApertureException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** Why the aperture could not be opened or mapped. */
    public enum Reason {
        /** no device node: the importer kernel module is not loaded */
        NO_MODULE,
        /** the node is root-only and this user may not open it */
        NO_ACCESS,
        /** the loaded module predates apertures */
        MODULE_WITHOUT_APERTURES,
        /** the request's range is not whole pages (or a field the module checks is out of range) */
        NOT_PAGE_ALIGNED,
        /** no PCI function at the FPGA's address */
        NO_FPGA,
        /** the aperture's (or the CSR's) BAR is not a memory BAR */
        NOT_A_MEMORY_BAR,
        /** the aperture's (or the CSR's) range ends past its BAR */
        BEYOND_THE_BAR,
        /** the aperture shares a page with the bridge's registers */
        OVERLAPS_THE_CSR,
        /** the function does not answer memory reads */
        NOT_ANSWERING,
        /** the CSR's MAGIC register is not direkt's: a bitstream without direkt's bridge */
        NOT_A_DIREKT_BRIDGE,
        /** direkt's bridge, built with another layout version than the overlay's manifest */
        OTHER_LAYOUT_VERSION,
        /** no file descriptor, file, memory or address space left */
        NO_RESOURCES,
        /** the function was removed from the bus after the aperture opened */
        FPGA_REMOVED,
        /** anything else refused (the errno is in the message) */
        REFUSED
    }

    private final Reason reason;
    private final int errno;

    ApertureException(Reason reason, int errno, String message) {
        super(message);
        this.reason = reason;
        this.errno = errno;
    }

    public Reason reason() {
        return reason;
    }

    /** The errno the module answered; 0 when the refusal came before any request. */
    public int errno() {
        return errno;
    }

    static ApertureException noModule(Path node) {
        return new ApertureException(Reason.NO_MODULE, 0, "no " + node + ": the importer kernel module is not loaded, and"
                + " GPU-master copies need its aperture (build it with `make -C host-runtime/driver`, load it with"
                + " `sudo insmod host-runtime/driver/direkt_importer.ko`)");
    }

    /** open(2) of the node failed with {@code errno}. */
    static ApertureException cannotOpen(Path node, int errno) {
        if (errno == CsrDevice.EACCES || errno == CsrDevice.EPERM) {
            return new ApertureException(Reason.NO_ACCESS, errno, ImporterRefusals.notOpenToUser(node, errno));
        }
        return new ApertureException(Reason.REFUSED, errno, "open(" + node + ") failed: " + CsrDevice.errnoName(errno));
    }

    /**
     * DIREKT_IOC_APERTURE_OPEN of BAR {@code bar} [{@code offset}, +{@code length}) beside the CSR
     * {@code csr}, expecting layout {@code version}, was refused as {@code reply} says.
     */
    static ApertureException refused(Path node, CsrRange csr, int version, int bar, long offset, long length,
            ApertureDevice.Opened reply) {
        int e = reply.errno();
        String errno = " (" + CsrDevice.errnoName(e) + ")";
        String range = csr.fpga() + " BAR " + bar + " [" + Bytes.hex(offset) + ", +" + Bytes.human(length) + ")";
        String where = "BAR " + csr.bar() + " + " + Bytes.hex(csr.offset()) + " of " + csr.fpga();
        return switch (e) {
            case CsrDevice.ENOTTY -> new ApertureException(Reason.MODULE_WITHOUT_APERTURES, e, node + " is a direkt_importer"
                    + " without apertures" + errno + ": load the module from this release (`make driver`, then"
                    + " `sudo rmmod direkt_importer; sudo insmod host-runtime/driver/direkt_importer.ko`)");
            case CsrDevice.EINVAL -> new ApertureException(Reason.NOT_PAGE_ALIGNED, e, "the aperture " + range + " is not whole"
                    + " pages of " + Bytes.human(Libc.pageSize()) + errno + " (or the CSR range "
                    + csr + " is not whole words): aperture.bar_bytes and board.csr in direkt-overlay.json must describe the"
                    + " bitstream's BARs; regenerate the overlay");
            case CsrDevice.ENODEV -> new ApertureException(Reason.NO_FPGA, e, "no FPGA at " + csr.fpga()
                    + ": no PCI function has that address" + errno + "; `lspci -D -d 1172:` lists Intel FPGAs");
            case CsrDevice.ENXIO -> new ApertureException(Reason.NOT_A_MEMORY_BAR, e, "BAR " + bar + " (the aperture's) or BAR "
                    + csr.bar() + " (the CSR's) of " + csr.fpga() + " is not a memory BAR" + errno + ": the bitstream has no flat"
                    + " FPGA-memory BAR where aperture.bar in direkt-overlay.json says; program the bitstream built from this"
                    + " overlay (`lspci -vv -s " + csr.fpga() + "` lists its BARs)");
            case CsrDevice.ERANGE -> new ApertureException(Reason.BEYOND_THE_BAR, e, range + " (or the CSR " + csr + ") ends past"
                    + " its BAR" + errno + ": the bitstream's BAR is smaller than aperture.bar_bytes in direkt-overlay.json says;"
                    + " program the bitstream built from this overlay");
            case ApertureDevice.EADDRINUSE -> new ApertureException(Reason.OVERLAPS_THE_CSR, e, range + " shares a page with the"
                    + " bridge's registers (" + csr + ")" + errno + ": registers are reached only through a CSR window;"
                    + " aperture.bar and board.csr in direkt-overlay.json must name different BARs");
            case CsrDevice.EIO -> new ApertureException(Reason.NOT_ANSWERING, e, ImporterRefusals.notAnswering(where, errno));
            case CsrDevice.EMEDIUMTYPE -> new ApertureException(Reason.NOT_A_DIREKT_BRIDGE, e,
                    ImporterRefusals.notADirektBridge(where, reply.foundMagic(), errno));
            case CsrDevice.EPROTO -> new ApertureException(Reason.OTHER_LAYOUT_VERSION, e,
                    ImporterRefusals.otherLayoutVersion(where, reply.foundVersion(), version, errno));
            case ApertureDevice.EMFILE, ApertureDevice.ENFILE, ApertureDevice.ENOMEM -> new ApertureException(
                    Reason.NO_RESOURCES, e, "the aperture " + range + " could not be made" + errno + ": the process or the"
                    + " system has no file descriptor, file or memory left (ulimit -n)");
            default -> new ApertureException(Reason.REFUSED, e, "the aperture " + range + " was refused" + errno);
        };
    }

    /** {@code mmap} of the aperture {@code range} failed with {@code errno}. */
    static ApertureException mapRefused(String range, int errno) {
        String name = " (" + CsrDevice.errnoName(errno) + ")";
        return switch (errno) {
            case ApertureDevice.ENOMEM -> new ApertureException(Reason.NO_RESOURCES, errno, "mapping the aperture " + range
                    + " failed" + name + ": no address space or memory left for it in this process");
            case CsrDevice.ENODEV -> new ApertureException(Reason.FPGA_REMOVED, errno, "mapping the aperture " + range
                    + " failed" + name + ": the FPGA was removed from the PCI bus after the aperture opened; open it again once"
                    + " the FPGA is back");
            case CsrDevice.ERANGE -> new ApertureException(Reason.BEYOND_THE_BAR, errno, "mapping the aperture " + range
                    + " failed" + name + ": the mapping ends past the aperture");
            case CsrDevice.EINVAL, CsrDevice.EPERM -> new ApertureException(Reason.REFUSED, errno, "mapping the aperture "
                    + range + " failed" + name + ": the module maps apertures shared (MAP_SHARED), readable and writable,"
                    + " never private or executable");
            default -> new ApertureException(Reason.REFUSED, errno, "mapping the aperture " + range + " failed" + name);
        };
    }
}
