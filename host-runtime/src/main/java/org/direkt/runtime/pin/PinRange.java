// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pin;

import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.Bytes;

/**
 * A GPU virtual range to pin for the FPGA, the key of a {@link PinCache}: {@code length} bytes from
 * {@code gpuBase}, both whole 64 KB pages because GPU memory is pinned for a peer in 64 KB pages.
 */
public record PinRange(long gpuBase, long length) {
    public PinRange {
        if (gpuBase % AddressTable.PAGE_SIZE != 0) {
            throw new IllegalArgumentException("pin range base " + Bytes.hex(gpuBase) + " is not 64 KB aligned: GPU memory "
                    + "is pinned in 64 KB pages");
        }
        if (length <= 0 || length % AddressTable.PAGE_SIZE != 0) {
            throw new IllegalArgumentException("pin range at " + Bytes.hex(gpuBase) + ": length " + Bytes.size(length)
                    + " must be a positive multiple of 64 KB (GPU memory is pinned in 64 KB pages)");
        }
        if (Long.compareUnsigned(gpuBase + length - 1, gpuBase) < 0) {
            throw new IllegalArgumentException("pin range at " + Bytes.hex(gpuBase) + " of " + Bytes.size(length)
                    + " runs past the end of the 64-bit address space (2^64)");
        }
    }

    @Override
    public String toString() {
        return "[gpu " + Bytes.hex(gpuBase) + ", +" + Bytes.human(length) + ")";
    }
}
