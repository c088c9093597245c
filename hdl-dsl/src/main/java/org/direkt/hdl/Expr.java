// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A hardware expression with an exact width. Every operator checks the widths of its operands and
 * fails at once, naming both widths and the designer's line, when they disagree: widths change only
 * through explicit calls ({@link #zext}, {@link #sext}, {@link #trunc}, {@link #bits}, {@link #plusCarry},
 * {@link #times}, {@link #cat}, {@link #repeat}). All values are unsigned bit vectors.
 */
public abstract sealed class Expr permits Expr.Lit, Expr.Op, Signal, Memory.AsyncRead {

    private final int width;
    private final SourceLoc loc;

    Expr(int width, SourceLoc loc) {
        if (width < 1) {
            throw ElaborationException.at(loc, "width %d is not legal: a signal is at least 1 bit wide", width);
        }
        this.width = width;
        this.loc = loc;
    }

    public final int width() {
        return width;
    }

    public final SourceLoc loc() {
        return loc;
    }

    /** The module this expression belongs to, or null for a constant. */
    abstract ModuleBuilder owner();

    /** A short description for messages: the signal name, or the operator. */
    abstract String describe();

    // ---------------------------------------------------------------- constants

    /** An unsigned constant of exactly {@code width} bits; fails if the value does not fit. */
    public static Expr lit(long value, int width) {
        return lit(BigInteger.valueOf(value), width, SourceLoc.capture());
    }

    public static Expr lit(BigInteger value, int width) {
        return lit(value, width, SourceLoc.capture());
    }

    static Lit lit(BigInteger value, int width, SourceLoc loc) {
        if (value.signum() < 0) {
            throw ElaborationException.at(loc, "literal %s is negative: constants are unsigned", value);
        }
        if (width < 1) {
            throw ElaborationException.at(loc, "literal %s has width %d: a constant is at least 1 bit wide", value, width);
        }
        if (value.bitLength() > width) {
            throw ElaborationException.at(loc, "literal %s needs %d bits and does not fit in %d bits",
                    value, value.bitLength(), width);
        }
        return new Lit(value, width, loc);
    }

    /** A constant of this expression's width. */
    private Lit same(long value, SourceLoc loc) {
        return lit(BigInteger.valueOf(value), width, loc);
    }

    // ---------------------------------------------------------------- arithmetic

    /** Sum modulo 2^width: both operands and the result have the same width. */
    public Expr plus(Expr o) {
        return binary(OpKind.ADD, o, SourceLoc.capture());
    }

    public Expr plus(long v) {
        SourceLoc loc = SourceLoc.capture();
        return binary(OpKind.ADD, same(v, loc), loc);
    }

    /** Difference modulo 2^width. */
    public Expr minus(Expr o) {
        return binary(OpKind.SUB, o, SourceLoc.capture());
    }

    public Expr minus(long v) {
        SourceLoc loc = SourceLoc.capture();
        return binary(OpKind.SUB, same(v, loc), loc);
    }

    /** Full sum: one bit wider than the (equal-width) operands, so the carry is kept. */
    public Expr plusCarry(Expr o) {
        SourceLoc loc = SourceLoc.capture();
        requireSameWidth("plusCarry", o, loc);
        return new Op(OpKind.ADD, width + 1, loc, List.of(zext(width + 1, loc), o.zext(width + 1, loc)));
    }

    /**
     * This count's next value when it goes up by one on {@code up} and down by one on {@code down}
     * (both, or neither: unchanged), modulo 2^width. One adder: plus 1, or plus all ones (minus 1).
     * {@code up} and {@code down} enter the adder, so use {@link #upDownSelected} where they
     * arrive late.
     */
    public Expr upDown(Expr up, Expr down) {
        SourceLoc loc = SourceLoc.capture();
        requireFlag("upDown", up, loc);
        requireFlag("upDown", down, loc);
        Expr step = width == 1 ? same(1, loc) : cat(down.repeat(width - 1), lit(1, 1));
        return mux(up.xor(down), plus(step), this);
    }

    /**
     * The same next value as {@link #upDown}, with plus 1 and minus 1 computed from the count
     * alone, so {@code up} and {@code down} only select among three values at the end of the path:
     * for a count whose steps are decided late in the cycle. Costs a second adder.
     */
    public Expr upDownSelected(Expr up, Expr down) {
        SourceLoc loc = SourceLoc.capture();
        requireFlag("upDownSelected", up, loc);
        requireFlag("upDownSelected", down, loc);
        return mux(up, mux(down, this, plus(1)), mux(down, minus(1), this));
    }

    private static void requireFlag(String what, Expr e, SourceLoc loc) {
        if (e.width != 1) {
            throw ElaborationException.at(loc, "%s step %s is %d bits wide: it must be 1 bit", what, e.describe(), e.width);
        }
    }

    /** Full product: width is the sum of the operand widths. */
    public Expr times(Expr o) {
        SourceLoc loc = SourceLoc.capture();
        int w = width + o.width;
        return new Op(OpKind.MUL, w, loc, List.of(zext(w, loc), o.zext(w, loc)));
    }

    // ---------------------------------------------------------------- logic

    public Expr and(Expr o) {
        return binary(OpKind.AND, o, SourceLoc.capture());
    }

    public Expr or(Expr o) {
        return binary(OpKind.OR, o, SourceLoc.capture());
    }

    public Expr xor(Expr o) {
        return binary(OpKind.XOR, o, SourceLoc.capture());
    }

    public Expr not() {
        return new Op(OpKind.NOT, width, SourceLoc.capture(), List.of(this));
    }

    // ---------------------------------------------------------------- comparison (1-bit results)

    public Expr eq(Expr o) {
        return compare(OpKind.EQ, o, SourceLoc.capture());
    }

    public Expr eq(long v) {
        SourceLoc loc = SourceLoc.capture();
        return compare(OpKind.EQ, same(v, loc), loc);
    }

    public Expr ne(Expr o) {
        return compare(OpKind.NE, o, SourceLoc.capture());
    }

    public Expr ne(long v) {
        SourceLoc loc = SourceLoc.capture();
        return compare(OpKind.NE, same(v, loc), loc);
    }

    public Expr lt(Expr o) {
        return compare(OpKind.LT, o, SourceLoc.capture());
    }

    public Expr le(Expr o) {
        return compare(OpKind.LE, o, SourceLoc.capture());
    }

    public Expr gt(Expr o) {
        return compare(OpKind.GT, o, SourceLoc.capture());
    }

    public Expr ge(Expr o) {
        return compare(OpKind.GE, o, SourceLoc.capture());
    }

    public Expr ge(long v) {
        SourceLoc loc = SourceLoc.capture();
        return compare(OpKind.GE, same(v, loc), loc);
    }

    // ---------------------------------------------------------------- shifts (width kept: bits leave the top or bottom)

    public Expr shl(int n) {
        return shiftConst(OpKind.SHL, n, SourceLoc.capture());
    }

    public Expr shr(int n) {
        return shiftConst(OpKind.SHR, n, SourceLoc.capture());
    }

    /** Shift left by a run-time amount; the amount may have any width. */
    public Expr shl(Expr amount) {
        SourceLoc loc = SourceLoc.capture();
        return new Op(OpKind.SHL, width, loc, List.of(this, checkOwner(amount, loc)));
    }

    public Expr shr(Expr amount) {
        SourceLoc loc = SourceLoc.capture();
        return new Op(OpKind.SHR, width, loc, List.of(this, checkOwner(amount, loc)));
    }

    // ---------------------------------------------------------------- reductions

    public Expr andR() {
        return new Op(OpKind.REDUCE_AND, 1, SourceLoc.capture(), List.of(this));
    }

    public Expr orR() {
        return new Op(OpKind.REDUCE_OR, 1, SourceLoc.capture(), List.of(this));
    }

    public Expr xorR() {
        return new Op(OpKind.REDUCE_XOR, 1, SourceLoc.capture(), List.of(this));
    }

    // ---------------------------------------------------------------- bit selection and width changes

    /** Bits {@code hi} down to {@code lo}, inclusive. */
    public Expr bits(int hi, int lo) {
        return bits(hi, lo, SourceLoc.capture());
    }

    public Expr bit(int i) {
        return bits(i, i, SourceLoc.capture());
    }

    /** The most significant bit. */
    public Expr msb() {
        return bits(width - 1, width - 1, SourceLoc.capture());
    }

    Expr bits(int hi, int lo, SourceLoc loc) {
        if (lo < 0 || hi < lo || hi >= width) {
            throw ElaborationException.at(loc, "slice [%d:%d] is out of range for %d-bit %s (legal: [%d:0] and below)",
                    hi, lo, width, describe(), width - 1);
        }
        if (lo == 0 && hi == width - 1) {
            return this;
        }
        return new Op(OpKind.SLICE, hi - lo + 1, loc, List.of(this), hi, lo);
    }

    /** Zero-extend to {@code w} bits ({@code w >= width}). */
    public Expr zext(int w) {
        return zext(w, SourceLoc.capture());
    }

    Expr zext(int w, SourceLoc loc) {
        if (w < width) {
            throw ElaborationException.at(loc, "zext to %d bits would shrink %d-bit %s: use trunc or bits", w, width, describe());
        }
        return w == width ? this : new Op(OpKind.ZEXT, w, loc, List.of(this));
    }

    /** Sign-extend to {@code w} bits ({@code w >= width}), replicating the top bit. */
    public Expr sext(int w) {
        SourceLoc loc = SourceLoc.capture();
        if (w < width) {
            throw ElaborationException.at(loc, "sext to %d bits would shrink %d-bit %s: use trunc or bits", w, width, describe());
        }
        return w == width ? this : new Op(OpKind.SEXT, w, loc, List.of(this));
    }

    /** Keep the low {@code w} bits ({@code w <= width}). */
    public Expr trunc(int w) {
        SourceLoc loc = SourceLoc.capture();
        if (w > width) {
            throw ElaborationException.at(loc, "trunc to %d bits would widen %d-bit %s: use zext or sext", w, width, describe());
        }
        return bits(w - 1, 0, loc);
    }

    /** {@code n} copies side by side. */
    public Expr repeat(int n) {
        SourceLoc loc = SourceLoc.capture();
        if (n < 1) {
            throw ElaborationException.at(loc, "repeat count %d for %s: must be >= 1", n, describe());
        }
        return n == 1 ? this : new Op(OpKind.REPEAT, width * n, loc, List.of(this), n, 0);
    }

    /** Concatenation, first argument most significant (Verilog's {a, b}). */
    public static Expr cat(Expr... parts) {
        SourceLoc loc = SourceLoc.capture();
        if (parts.length == 0) {
            throw ElaborationException.at(loc, "cat of nothing: give at least one expression");
        }
        int w = 0;
        for (Expr p : parts) {
            w += p.width;
        }
        return parts.length == 1 ? parts[0] : new Op(OpKind.CAT, w, loc, List.of(parts));
    }

    /** {@code sel ? ifTrue : ifFalse}; sel is 1 bit, the arms have the same width. */
    public static Expr mux(Expr sel, Expr ifTrue, Expr ifFalse) {
        SourceLoc loc = SourceLoc.capture();
        if (sel.width != 1) {
            throw ElaborationException.at(loc, "mux select %s is %d bits wide: it must be 1 bit", sel.describe(), sel.width);
        }
        if (ifTrue.width != ifFalse.width) {
            throw ElaborationException.at(loc, "width mismatch in mux arms: %s is %d bits, %s is %d bits",
                    ifTrue.describe(), ifTrue.width, ifFalse.describe(), ifFalse.width);
        }
        mergeOwner(mergeOwner(sel.owner(), ifTrue, loc), ifFalse, loc);
        return new Op(OpKind.MUX, ifTrue.width, loc, List.of(sel, ifTrue, ifFalse));
    }

    // ---------------------------------------------------------------- internals

    private Expr binary(OpKind k, Expr o, SourceLoc loc) {
        requireSameWidth(k.symbol, o, loc);
        return new Op(k, width, loc, List.of(this, o));
    }

    private Expr compare(OpKind k, Expr o, SourceLoc loc) {
        requireSameWidth(k.symbol, o, loc);
        return new Op(k, 1, loc, List.of(this, o));
    }

    private Expr shiftConst(OpKind k, int n, SourceLoc loc) {
        if (n < 0 || n >= width) {
            throw ElaborationException.at(loc, "shift by %d of %d-bit %s: the amount must be in 0..%d",
                    n, width, describe(), width - 1);
        }
        return n == 0 ? this : new Op(k, width, loc, List.of(this), n, 0);
    }

    private void requireSameWidth(String op, Expr o, SourceLoc loc) {
        checkOwner(o, loc);
        if (o.width != width) {
            throw ElaborationException.at(loc, "width mismatch in '%s': %s is %d bits, %s is %d bits",
                    op, describe(), width, o.describe(), o.width);
        }
    }

    private Expr checkOwner(Expr o, SourceLoc loc) {
        mergeOwner(owner(), o, loc);
        return o;
    }

    static ModuleBuilder mergeOwner(ModuleBuilder owner, Expr e, SourceLoc loc) {
        ModuleBuilder other = e.owner();
        if (owner == null) {
            return other;
        }
        if (other != null && other != owner) {
            throw ElaborationException.at(loc, "%s belongs to module %s and cannot be used in module %s",
                    e.describe(), other.name(), owner.name());
        }
        return owner;
    }

    /** Operator kinds, with the Verilog symbol of the infix ones. */
    enum OpKind {
        ADD("+"), SUB("-"), MUL("*"), AND("&"), OR("|"), XOR("^"), NOT("~"),
        EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">="),
        SHL("<<"), SHR(">>"), REDUCE_AND("&"), REDUCE_OR("|"), REDUCE_XOR("^"),
        SLICE("[]"), ZEXT("zext"), SEXT("sext"), REPEAT("repeat"), CAT("cat"), MUX("?:");

        final String symbol;

        OpKind(String symbol) {
            this.symbol = symbol;
        }
    }

    /** A constant. */
    public static final class Lit extends Expr {
        private final BigInteger value;

        Lit(BigInteger value, int width, SourceLoc loc) {
            super(width, loc);
            this.value = value;
        }

        public BigInteger value() {
            return value;
        }

        @Override
        ModuleBuilder owner() {
            return null;
        }

        @Override
        String describe() {
            return "constant " + value;
        }
    }

    /** An operator applied to operands; {@code a}/{@code b} hold the slice bounds, repeat count or shift amount. */
    public static final class Op extends Expr {
        final OpKind kind;
        final List<Expr> args;
        final int a;
        final int b;
        private final ModuleBuilder owner;

        Op(OpKind kind, int width, SourceLoc loc, List<Expr> args) {
            this(kind, width, loc, args, 0, 0);
        }

        Op(OpKind kind, int width, SourceLoc loc, List<Expr> args, int a, int b) {
            super(width, loc);
            this.kind = kind;
            this.args = List.copyOf(args);
            this.a = a;
            this.b = b;
            ModuleBuilder o = null;
            for (Expr e : args) {
                o = mergeOwner(o, e, loc);
            }
            this.owner = o;
        }

        @Override
        ModuleBuilder owner() {
            return owner;
        }

        @Override
        String describe() {
            return "'" + kind.symbol + "' expression";
        }
    }

    /** Every operand directly under this expression (none for leaves). */
    List<Expr> children() {
        if (this instanceof Op op) {
            return op.args;
        }
        if (this instanceof Memory.AsyncRead r) {
            return List.of(r.addr);
        }
        return List.of();
    }

    /** Calls {@code visit} on every signal this expression reads, leaves first order not guaranteed. */
    void forEachSignal(java.util.function.Consumer<Signal> visit) {
        List<Expr> stack = new ArrayList<>();
        stack.add(this);
        while (!stack.isEmpty()) {
            Expr e = stack.removeLast();
            if (e instanceof Signal s) {
                visit.accept(s);
            } else {
                stack.addAll(e.children());
            }
        }
    }
}
