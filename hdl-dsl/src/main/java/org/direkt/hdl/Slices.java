// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves a bit selection down through an expression until it lands on names: {@code (a ^ b)[3:0]}
 * becomes {@code a[3:0] ^ b[3:0]}. Verilog-2001 cannot select bits of an expression, and a
 * temporary holding the whole expression would leave the unselected bits unread, which
 * Verilator's -Wall reports. Only high bits of arithmetic (carries flow upwards) and of run-time
 * shifts cannot be moved; those stay a selection of a temporary.
 */
final class Slices {
    private Slices() {
    }

    /** Bits {@code hi..lo} of {@code x}, as an expression whose selections apply to names where possible. */
    static Expr push(Expr x, int hi, int lo) {
        if (lo == 0 && hi == x.width() - 1) {
            return x;
        }
        SourceLoc loc = x.loc();
        if (x instanceof Expr.Lit l) {
            BigInteger v = l.value().shiftRight(lo).and(BigInteger.ONE.shiftLeft(hi - lo + 1).subtract(BigInteger.ONE));
            return new Expr.Lit(v, hi - lo + 1, loc);
        }
        if (!(x instanceof Expr.Op op)) {
            return new Expr.Op(Expr.OpKind.SLICE, hi - lo + 1, loc, List.of(x), hi, lo);
        }
        List<Expr> a = op.args;
        int w = hi - lo + 1;
        return switch (op.kind) {
            case AND, OR, XOR -> new Expr.Op(op.kind, w, loc, List.of(push(a.get(0), hi, lo), push(a.get(1), hi, lo)));
            case NOT -> new Expr.Op(Expr.OpKind.NOT, w, loc, List.of(push(a.get(0), hi, lo)));
            case MUX -> new Expr.Op(Expr.OpKind.MUX, w, loc, List.of(a.get(0), push(a.get(1), hi, lo), push(a.get(2), hi, lo)));
            case SLICE -> push(a.get(0), op.b + hi, op.b + lo);
            case CAT -> concat(a, hi, lo, loc);
            case REPEAT -> {
                List<Expr> copies = new ArrayList<>();
                for (int i = 0; i < op.a; i++) {
                    copies.add(a.get(0));
                }
                yield concat(copies, hi, lo, loc);
            }
            case ZEXT -> {
                Expr y = a.get(0);
                int yw = y.width();
                yield concat(List.of(new Expr.Lit(BigInteger.ZERO, op.width() - yw, loc), y), hi, lo, loc);
            }
            case SEXT -> {
                Expr y = a.get(0);
                int yw = y.width();
                Expr top = new Expr.Op(Expr.OpKind.REPEAT, op.width() - yw, loc, List.of(push(y, yw - 1, yw - 1)), op.width() - yw, 0);
                yield concat(List.of(top, y), hi, lo, loc);
            }
            case ADD, SUB -> lo == 0
                    ? new Expr.Op(op.kind, w, loc, List.of(push(a.get(0), hi, 0), push(a.get(1), hi, 0)))
                    : new Expr.Op(Expr.OpKind.SLICE, w, loc, List.of(x), hi, lo);
            case SHL -> a.size() > 1 ? new Expr.Op(Expr.OpKind.SLICE, w, loc, List.of(x), hi, lo)
                    : concat(List.of(a.get(0), new Expr.Lit(BigInteger.ZERO, op.a, loc)), hi, lo, loc);
            case SHR -> a.size() > 1 ? new Expr.Op(Expr.OpKind.SLICE, w, loc, List.of(x), hi, lo)
                    : concat(List.of(new Expr.Lit(BigInteger.ZERO, op.a, loc), a.get(0)), hi + op.a, lo + op.a, loc);
            default -> new Expr.Op(Expr.OpKind.SLICE, w, loc, List.of(x), hi, lo);
        };
    }

    /** A selection that could not be moved onto names: it needs a temporary. */
    static boolean needsTemporary(Expr e) {
        return e instanceof Expr.Op op && op.kind == Expr.OpKind.SLICE
                && !(op.args.getFirst() instanceof Signal) && !(op.args.getFirst() instanceof Memory.AsyncRead);
    }

    private static Expr concat(List<Expr> parts, int hi, int lo, SourceLoc loc) {
        List<Expr> picked = new ArrayList<>();
        int top = 0;
        for (Expr p : parts) {
            top += p.width();
        }
        int msb = top - 1;
        for (Expr p : parts) {
            int pLo = msb - p.width() + 1;
            int from = Math.min(hi, msb);
            int to = Math.max(lo, pLo);
            if (from >= to) {
                picked.add(push(p, from - pLo, to - pLo));
            }
            msb = pLo - 1;
        }
        return picked.size() == 1 ? picked.getFirst() : new Expr.Op(Expr.OpKind.CAT, hi - lo + 1, loc, picked);
    }
}
