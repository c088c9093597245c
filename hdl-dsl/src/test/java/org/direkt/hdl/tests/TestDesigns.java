// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;

/** Small designs that exercise the emitter: every operator, every reset style, when chains, power-up values. */
final class TestDesigns {
    private TestDesigns() {
    }

    /** One output per operator, so every Verilog form the emitter can produce is linted and golden-checked. */
    static final class AllOps extends Generator<AllOps.Params> {
        record Params(int width) {
        }

        @Override
        public String moduleName(Params p) {
            return "direkt_test_ops_w" + p.width();
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            int w = p.width();
            ClockDomain cd = m.domain(Lambda.MAIN);
            Signal a = m.input("a", w, cd);
            Signal b = m.input("b", w, cd);
            Signal s = m.input("s", 1, cd);
            Signal amt = m.input("amt", 3, cd);
            m.output("o_add", w, cd).set(a.plus(b));
            m.output("o_sub", w, cd).set(a.minus(b));
            m.output("o_addc", w + 1, cd).set(a.plusCarry(b));
            m.output("o_mul", 2 * w, cd).set(a.times(b));
            m.output("o_and", w, cd).set(a.and(b));
            m.output("o_or", w, cd).set(a.or(b));
            m.output("o_xor", w, cd).set(a.xor(b));
            m.output("o_not", w, cd).set(a.not());
            m.output("o_cmp", 6, cd).set(Expr.cat(a.eq(b), a.ne(b), a.lt(b), a.le(b), a.gt(b), a.ge(b)));
            m.output("o_shift", 4 * w, cd).set(Expr.cat(a.shl(1), a.shr(2), b.shl(amt), b.shr(amt)));
            m.output("o_red", 3, cd).set(Expr.cat(a.andR(), a.orR(), a.xorR()));
            // unary on unary: each operand in parentheses ("~~a" and "&&a" are not Verilog)
            m.output("o_unary2", w + 4, cd).set(Expr.cat(a.not().not(), a.not().andR(), a.andR().not(), a.orR().not().not(),
                    a.xorR().orR()));
            m.output("o_slice", w / 2, cd).set(a.xor(b).bits(w - 1, w / 2));
            m.output("o_low_sum", w / 2, cd).set(a.plus(b).bits(w / 2 - 1, 0));
            m.output("o_straddle", 4, cd).set(Expr.cat(a, b).bits(w + 1, w - 2));
            m.output("o_shifted", 8, cd).set(Expr.cat(a.shl(2).bits(3, 0), a.shr(2).bits(w - 1, w - 4)));
            m.output("o_bit", 1, cd).set(a.xor(b).bit(0));
            m.output("o_ext", 4 * w, cd).set(Expr.cat(a.zext(2 * w), a.plus(b).sext(2 * w)));
            m.output("o_trunc", w / 2, cd).set(b.trunc(w / 2));
            m.output("o_rep", 2 * w, cd).set(Expr.cat(s.repeat(w), m.lit(0xA5, 8).bits(7, 8 - w + 4).zext(w)));
            m.output("o_mux", w, cd).set(Expr.mux(s, a, b));
            m.output("o_wide", 40, cd).set(Expr.lit(0x12_3456_789AL, 40));
            Reg toggles = m.reg("toggles", w, cd).init(0);
            m.when(s, () -> toggles.set(toggles.plus(1)));
            m.output("o_toggles", w, cd).set(toggles);
        }
    }

    /** Active-low asynchronous reset, a register enable, and an elseWhen chain into a combinational net. */
    static final class ResetStyles extends Generator<ResetStyles.Params> {
        record Params(boolean asyncLow) {
        }

        @Override
        public String moduleName(Params p) {
            return "direkt_test_reset_" + (p.asyncLow() ? "async_low" : "sync_high");
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            ClockDomain cd = p.asyncLow()
                    ? ClockDomain.of("k").withPorts("k_clk", "k_rst_n")
                            .withPolarity(ClockDomain.ResetPolarity.ACTIVE_LOW).withKind(ClockDomain.ResetKind.ASYNC)
                    : ClockDomain.of("k");
            m.domain(cd);
            Signal en = m.input("en", 1, cd);
            Signal op = m.input("op", 2, cd);
            Signal x = m.input("x", 8, cd);
            Reg acc = m.reg("acc", 8, cd).init(0x5A).enableWhen(en);
            Signal next = m.wire("next", 8);
            next.set(acc);
            m.when(op.eq(0), () -> next.set(x))
                    .elseWhen(op.eq(1), () -> next.set(acc.plus(x)))
                    .elseWhen(op.eq(2), () -> next.set(acc.minus(x)));
            acc.set(next);
            Signal flag = m.wire("flag", 1);
            m.when(acc.eq(0), () -> flag.set(1)).otherwise(() -> flag.set(0));
            m.output("acc_q", 8, cd).set(acc);
            m.output("zero", 1, cd).set(flag);
        }
    }

    /**
     * Power-up values: a Gray counter no reset moves, its reset read as logic (it only holds the
     * count), carried with the counter into another domain through synchronisers no reset clears,
     * and a register with both a power-up and a reset value.
     */
    static final class PowerUp extends Generator<PowerUp.Params> {
        record Params(int width) {
        }

        @Override
        public String moduleName(Params p) {
            return "direkt_test_power_up_w" + p.width();
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            ClockDomain a = m.domain(ClockDomain.of("a"));
            ClockDomain b = m.domain(ClockDomain.of("b"));
            Signal inc = m.input("a_inc", 1, a);
            Reg bin = m.reg("a_bin", p.width(), a).powerUp(3);
            Reg gray = m.reg("a_gray", p.width(), a).powerUp(2);
            Signal next = m.wire("a_next", p.width());
            next.set(bin.plus(inc.and(m.reset(a).not()).zext(p.width())));
            bin.set(next);
            gray.set(next.xor(next.shr(1)));
            Signal grayInB = org.direkt.hdl.Sync.bitsWithoutReset(m, "u_gray_sync", gray, b, 2, 2);
            Signal rstInB = org.direkt.hdl.Sync.bitsWithoutReset(m, "u_rst_sync", m.reset(a), b, 3, 1);
            Reg seen = m.reg("b_seen", p.width(), b).powerUp(5).init(1);
            seen.set(grayInB);
            m.output("b_gray", p.width(), b).set(seen);
            m.output("b_a_rst", 1, b).set(rstInB);
        }
    }
}
