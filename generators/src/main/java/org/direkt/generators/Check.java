// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

/** Parameter validation shared by the generators' records: every message names generator, parameter, value and rule. */
public final class Check {
    private Check() {
    }

    /** Fails with "{@code <generator> <param> = <value>: <rule>}" unless {@code ok}. */
    public static void require(boolean ok, String generator, String param, Object value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException(generator + " " + param + " = " + value + ": " + rule);
        }
    }

    public static boolean isPowerOfTwo(int v) {
        return v > 0 && Integer.bitCount(v) == 1;
    }

    /** ceil(log2(v)), at least 1: the width of an index into v things. */
    public static int indexWidth(int v) {
        return Math.max(1, 32 - Integer.numberOfLeadingZeros(v - 1));
    }

    /** log2 of a power of two. */
    public static int log2(int powerOfTwo) {
        return Integer.numberOfTrailingZeros(powerOfTwo);
    }
}
