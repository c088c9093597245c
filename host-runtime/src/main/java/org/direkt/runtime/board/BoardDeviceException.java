// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

/**
 * A board device that cannot open or cannot do what was asked, with what is missing named in
 * words a user can act on. (What the importer module refuses, the CSR window itself, is a
 * {@link CsrWindowException}.)
 */
public final class BoardDeviceException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** What is missing. */
    public enum Reason {
        /** the overlay's manifest does not say where the bridge's CSR sits on the board ({@code board.csr}) */
        NO_CSR_IN_MANIFEST,
        /** the CSR's MAGIC register is not direkt's: a bitstream without direkt's bridge */
        NOT_A_DIREKT_BRIDGE,
        /** direkt's bridge of another layout version than the overlay's */
        OTHER_LAYOUT_VERSION,
        /** no kernel binary at the path given */
        NO_BINARY,
        /** no OpenCL platform of that name with a device */
        NO_PLATFORM,
        /** the platform does not load the binary */
        BINARY_REFUSED,
        /** the binary has no kernel of that name */
        NO_KERNEL,
        /** an FPGA range outside the memory the device holds */
        OUTSIDE_FPGA_MEMORY,
        /** the overlay's manifest declares no aperture ({@code aperture}): no GPU-master copies */
        NO_APERTURE_IN_MANIFEST,
        /** the device was opened on registers given (a stand-in), with no FPGA function to map an aperture of */
        NO_APERTURE
    }

    private final Reason reason;

    BoardDeviceException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    BoardDeviceException(Reason reason, String message) {
        this(reason, message, null);
    }

    public Reason reason() {
        return reason;
    }
}
