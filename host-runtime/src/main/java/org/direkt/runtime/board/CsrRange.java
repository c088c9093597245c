// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import org.direkt.runtime.ffi.CsrDevice;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.PciAddress;

/**
 * Where the bridge's CSR sits on a board: the FPGA's PCI function, and the byte range of one of its
 * BARs that the overlay's manifest names ({@code board.csr}: {@code bar}, {@code offset},
 * {@code bytes}). The range holds 32-bit registers from MAGIC and VERSION on.
 */
public record CsrRange(PciAddress fpga, int bar, long offset, long bytes) {
    public CsrRange {
        if (fpga == null) {
            throw new IllegalArgumentException("the CSR range needs the FPGA's PCI address");
        }
        if (bar < 0 || bar > 5) {
            throw new IllegalArgumentException("CSR BAR " + bar + " of " + fpga + ": a PCI function has BARs 0..5");
        }
        if (offset < 0 || offset % 4 != 0) {
            throw new IllegalArgumentException("CSR offset " + Bytes.hex(offset) + " in BAR " + bar + " of " + fpga
                    + ": must be a non-negative multiple of 4 (the registers are 32-bit words)");
        }
        if (bytes < CsrDevice.MIN_BYTES || bytes % 4 != 0) {
            throw new IllegalArgumentException("CSR size " + bytes + " B in BAR " + bar + " of " + fpga
                    + ": must be a multiple of 4 of at least " + CsrDevice.MIN_BYTES + " B (MAGIC and VERSION)");
        }
    }

    /** {@code 0000:3b:00.0 BAR 4 [0x20000, +4 KB)} */
    @Override
    public String toString() {
        return fpga + " BAR " + bar + " [" + Bytes.hex(offset) + ", +" + Bytes.human(bytes) + ")";
    }
}
