// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/** Binary/Gray conversions for pointers that cross clock domains. */
public final class Gray {
    private Gray() {
    }

    /** Gray code of {@code bin}: consecutive values differ in exactly one bit. */
    public static Expr encode(Expr bin) {
        return bin.width() == 1 ? bin : bin.xor(bin.shr(1));
    }

    /** Binary value of Gray code {@code gray}: bit i is the XOR of gray bits i and above. */
    public static Expr decode(Expr gray) {
        int w = gray.width();
        if (w == 1) {
            return gray;
        }
        Expr[] bits = new Expr[w];
        for (int i = w - 1; i >= 0; i--) {
            bits[w - 1 - i] = i == w - 1 ? gray.bit(i) : gray.bits(w - 1, i).xorR();
        }
        return Expr.cat(bits);
    }
}
