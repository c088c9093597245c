// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

/**
 * A bridge address window: the naturally aligned block of {@code 2^log2} bytes at {@code base}
 * (the bridge compares address bits from {@code log2} up, so a window cannot be of any other
 * shape). {@link #of} checks a range {@code [base, last]} (inclusive, unsigned 64-bit) against
 * that rule and the bridge's smallest and largest window, and says what is wrong otherwise.
 *
 * @param base first byte, a multiple of {@code 2^log2}
 * @param log2 log2 of the size in bytes
 */
public record WindowBlock(long base, int log2) {

    public WindowBlock {
        if (log2 < 0 || log2 > 63) {
            throw new IllegalArgumentException("window of 2^" + log2 + " bytes: log2 must be in 0..63");
        }
        if ((base & (size() - 1)) != 0) {
            throw new IllegalArgumentException("window at " + Bytes.hex(base) + " of 2^" + log2
                    + " bytes: the base must be a multiple of the size");
        }
    }

    /** Size in bytes (unsigned: 2^63 reads as a negative long). */
    public long size() {
        return 1L << log2;
    }

    /** The last byte (inclusive). */
    public long last() {
        return base + size() - 1;
    }

    /**
     * The window {@code [base, last]} (inclusive, unsigned 64-bit addresses).
     *
     * @param minLog2 the smallest window the bridge holds (the manifest's {@code window_min_log2}, 20: 1 MB)
     * @param maxLog2 the largest (the manifest's {@code window_max_log2}, 63)
     * @throws IllegalArgumentException naming the problem: last below base, a size that is not a
     *                                  power of two, too small or too large, or a base that is not
     *                                  a multiple of the size
     */
    public static WindowBlock of(long base, long last, int minLog2, int maxLog2) {
        String what = "window [" + Bytes.hex(base) + ", " + Bytes.hex(last) + "]";
        if (Long.compareUnsigned(last, base) < 0) {
            throw new IllegalArgumentException(what + ": the last byte is below the base");
        }
        long size = last - base + 1; // unsigned; 0 stands for 2^64
        if (size == 0 || Long.numberOfTrailingZeros(size) > maxLog2) {
            throw new IllegalArgumentException(what + ": larger than the largest window, 2^" + maxLog2 + " bytes");
        }
        if (Long.bitCount(size) != 1) {
            throw new IllegalArgumentException(what + ": " + Long.toUnsignedString(size)
                    + " bytes is not a power of two (a window is an aligned power-of-two block)");
        }
        int log2 = Long.numberOfTrailingZeros(size);
        if (log2 < minLog2) {
            throw new IllegalArgumentException(what + ": " + Bytes.size(size) + " is smaller than the smallest window, "
                    + Bytes.size(1L << minLog2));
        }
        if ((base & (size - 1)) != 0) {
            throw new IllegalArgumentException(what + ": the base is not a multiple of the size " + Bytes.size(size)
                    + " (a window is naturally aligned; the aligned block holding the base starts at "
                    + Bytes.hex(base & -size) + ")");
        }
        return new WindowBlock(base, log2);
    }
}
