// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.nio.file.Path;

import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.pcie.Bytes;

/**
 * A CSR window refused: what is missing or wrong, named in words a user can act on, with the
 * errno the importer module answered. An {@link IllegalStateException}: the machine, not the
 * call, is not as the overlay expects.
 */
public final class CsrWindowException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** Why the window could not be opened or used. */
    public enum Reason {
        /** no device node: the importer kernel module is not loaded */
        NO_MODULE,
        /** the node is root-only and this user may not open it */
        NO_ACCESS,
        /** the loaded module predates CSR windows */
        MODULE_WITHOUT_CSR,
        /** no PCI function at the FPGA's address */
        NO_FPGA,
        /** the BAR is not a memory BAR */
        NOT_A_MEMORY_BAR,
        /** the range ends past the BAR */
        BEYOND_THE_BAR,
        /** the function does not answer memory reads */
        NOT_ANSWERING,
        /** the range's MAGIC register is not direkt's: a bitstream without direkt's bridge */
        NOT_A_DIREKT_BRIDGE,
        /** direkt's bridge, built with another layout version than the overlay's manifest */
        OTHER_LAYOUT_VERSION,
        /** a register outside the window, or not on a 32-bit boundary */
        OUTSIDE_THE_WINDOW,
        /** the function was removed from the bus after the window opened */
        FPGA_REMOVED,
        /** anything else the module refused (its errno is in the message) */
        REFUSED
    }

    private final Reason reason;
    private final int errno;

    CsrWindowException(Reason reason, int errno, String message) {
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

    static CsrWindowException noModule(Path node) {
        return new CsrWindowException(Reason.NO_MODULE, 0, "no " + node + ": the importer kernel module is not loaded"
                + " (build it with `make -C host-runtime/driver`, load it with"
                + " `sudo insmod host-runtime/driver/direkt_importer.ko`)");
    }

    /** open(2) of the node failed with {@code errno}. */
    static CsrWindowException cannotOpen(Path node, int errno) {
        if (errno == CsrDevice.EACCES || errno == CsrDevice.EPERM) {
            return new CsrWindowException(Reason.NO_ACCESS, errno, ImporterRefusals.notOpenToUser(node, errno));
        }
        return new CsrWindowException(Reason.REFUSED, errno, "open(" + node + ") failed: " + CsrDevice.errnoName(errno));
    }

    /** DIREKT_IOC_CSR_OPEN of {@code range} expecting {@code version} was refused as {@code reply} says. */
    static CsrWindowException refused(Path node, CsrRange range, int version, CsrDevice.Opened reply) {
        int e = reply.errno();
        String errno = " (" + CsrDevice.errnoName(e) + ")";
        String where = "BAR " + range.bar() + " + " + Bytes.hex(range.offset()) + " of " + range.fpga();
        return switch (e) {
            case CsrDevice.ENOTTY -> new CsrWindowException(Reason.MODULE_WITHOUT_CSR, e, node + " is a direkt_importer without CSR"
                    + " windows" + errno + ": load the module from this release (`make driver`, then"
                    + " `sudo rmmod direkt_importer; sudo insmod host-runtime/driver/direkt_importer.ko`)");
            case CsrDevice.ENODEV -> new CsrWindowException(Reason.NO_FPGA, e, "no FPGA at " + range.fpga()
                    + ": no PCI function has that address" + errno + "; `lspci -D -d 1172:` lists Intel FPGAs");
            case CsrDevice.ENXIO -> new CsrWindowException(Reason.NOT_A_MEMORY_BAR, e, "BAR " + range.bar() + " of " + range.fpga()
                    + " is not a memory BAR" + errno + ": an I/O BAR, one the function does not implement, or the upper"
                    + " half of a 64-bit BAR; board.csr.bar in direkt-overlay.json names the BAR of the bridge's CSR");
            case CsrDevice.ERANGE -> new CsrWindowException(Reason.BEYOND_THE_BAR, e, range + " ends past BAR " + range.bar()
                    + errno + ": the bitstream's BAR is smaller than the overlay's manifest says (board.csr)");
            case CsrDevice.EIO -> new CsrWindowException(Reason.NOT_ANSWERING, e, ImporterRefusals.notAnswering(where, errno));
            case CsrDevice.EMEDIUMTYPE -> new CsrWindowException(Reason.NOT_A_DIREKT_BRIDGE, e,
                    ImporterRefusals.notADirektBridge(where, reply.foundMagic(), errno));
            case CsrDevice.EPROTO -> new CsrWindowException(Reason.OTHER_LAYOUT_VERSION, e,
                    ImporterRefusals.otherLayoutVersion(where, reply.foundVersion(), version, errno));
            default -> new CsrWindowException(Reason.REFUSED, e, "the CSR window " + range + " was refused" + errno);
        };
    }

    /** A read or write of the register at {@code offset} was refused with {@code errno}. */
    static CsrWindowException access(CsrRange range, String what, long offset, int errno) {
        String name = " (" + CsrDevice.errnoName(errno) + ")";
        String reg = "register " + Bytes.hex(offset);
        return switch (errno) {
            case CsrDevice.ERANGE -> new CsrWindowException(Reason.OUTSIDE_THE_WINDOW, errno, what + " of " + reg
                    + " refused: it lies outside the CSR window " + range + ", registers 0x0.."
                    + Bytes.hex(range.bytes() - 4) + name);
            case CsrDevice.EINVAL -> new CsrWindowException(Reason.OUTSIDE_THE_WINDOW, errno, what + " of " + reg
                    + " refused: the CSR's registers are 32-bit words at multiples of 4" + name);
            case CsrDevice.ENODEV -> new CsrWindowException(Reason.FPGA_REMOVED, errno, what + " of " + reg + " refused: "
                    + range.fpga() + " was removed from the PCI bus after the window opened" + name
                    + "; open the window again once the FPGA is back");
            default -> new CsrWindowException(Reason.REFUSED, errno, what + " of " + reg + " in " + range
                    + " refused" + name);
        };
    }
}
