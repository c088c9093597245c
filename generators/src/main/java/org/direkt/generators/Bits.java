// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import java.util.ArrayList;
import java.util.List;

import org.direkt.hdl.Expr;

/** Small bit-vector idioms the generators share. */
public final class Bits {
    private Bits() {
    }

    /** The lowest set bit of {@code x}, one-hot (zero when none is set). */
    public static Expr lowestSet(Expr x) {
        return x.and(x.not().plus(1));
    }

    /** The lowest clear bit of {@code x}, one-hot (zero when every bit is set). */
    public static Expr lowestClear(Expr x) {
        return x.not().and(x.plus(1));
    }

    /** Index of the set bit of an n-bit one-hot vector, {@code iw} bits wide (0 when none is set). */
    public static Expr oneHotIndex(Expr oneHot, int n, int iw) {
        List<Expr> bits = new ArrayList<>();
        for (int b = iw - 1; b >= 0; b--) {
            List<Expr> members = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if ((i >> b & 1) == 1) {
                    members.add(oneHot.bit(i));
                }
            }
            bits.add(members.isEmpty() ? Expr.lit(0, 1)
                    : members.size() == 1 ? members.getFirst() : Expr.cat(members.toArray(Expr[]::new)).orR());
        }
        return Expr.cat(bits.toArray(Expr[]::new));
    }

    /**
     * Item {@code index} of {@code items} (2^{@code index.width()} of them, item 0 first), as a tree of
     * two-way muxes on the index bits, highest bit at the root.
     */
    public static Expr select(List<? extends Expr> items, Expr index) {
        if (items.size() != 1 << index.width()) {
            throw new IllegalArgumentException(items.size() + " items for a " + index.width() + "-bit index: need "
                    + (1 << index.width()));
        }
        if (items.size() == 1) {
            return items.getFirst();
        }
        int half = items.size() / 2;
        int top = index.width() - 1;
        Expr rest = top == 0 ? null : index.bits(top - 1, 0);
        Expr lo = rest == null ? items.getFirst() : select(items.subList(0, half), rest);
        Expr hi = rest == null ? items.getLast() : select(items.subList(half, items.size()), rest);
        return Expr.mux(index.bit(top), hi, lo);
    }
}
