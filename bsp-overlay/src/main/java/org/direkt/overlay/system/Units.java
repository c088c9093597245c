// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import java.math.BigInteger;
import java.util.Locale;

/** Addresses, sizes and clock rates as {@code direkt inspect} writes them. */
public final class Units {
    private Units() {
    }

    private static final String[] SIZE_UNITS = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    private static final BigInteger K = BigInteger.valueOf(1024);

    /** An address: {@code 0x7FFFFFFF0000}. */
    public static String hex(BigInteger v) {
        return "0x" + v.toString(16).toUpperCase(Locale.ROOT);
    }

    /** A size in bytes: {@code 256 KB} when it is a whole number of a binary unit, else its hex value. */
    public static String size(BigInteger bytes) {
        if (bytes.signum() <= 0) {
            return hex(bytes);
        }
        BigInteger v = bytes;
        int u = 0;
        while (u < SIZE_UNITS.length - 1 && v.mod(K).signum() == 0) {
            v = v.divide(K);
            u++;
        }
        return v.bitLength() <= 20 ? v + " " + SIZE_UNITS[u] : hex(bytes);
    }

    /** A clock rate: {@code 250 MHz}, {@code 156.25 MHz}. */
    public static String rate(long hz) {
        if (hz % 1_000_000 == 0) {
            return hz / 1_000_000 + " MHz";
        }
        return java.math.BigDecimal.valueOf(hz, 6).stripTrailingZeros().toPlainString() + " MHz";
    }
}
