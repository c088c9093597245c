// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * A run of bus-contiguous bytes: {@code length} bytes starting at the PCIe bus address
 * {@code busAddress}. Bus addresses are 64-bit unsigned; a segment may end exactly at 2^64 but not
 * wrap past it.
 */
public record Segment(long busAddress, long length) {
    public Segment {
        if (length <= 0) {
            throw new IllegalArgumentException("segment at bus " + Bytes.hex(busAddress) + ": length " + length
                    + " must be > 0");
        }
        if (Long.compareUnsigned(busAddress + length - 1, busAddress) < 0) {
            throw new IllegalArgumentException("segment at bus " + Bytes.hex(busAddress) + " of " + Bytes.size(length)
                    + " runs past the end of the 64-bit bus address space (2^64)");
        }
    }

    /** The bus address of the last byte (unsigned). */
    public long lastBusAddress() {
        return busAddress + length - 1;
    }
}
