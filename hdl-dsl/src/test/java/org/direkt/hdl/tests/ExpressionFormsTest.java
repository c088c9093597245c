// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.direkt.hdl.tests.Lambda.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Instance;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/**
 * The Verilog each expression becomes: width changes that change nothing leave the name alone, bit
 * selections land on names (Verilog-2001 cannot select bits of an expression), operands are
 * parenthesised only where precedence needs it, and nets, registers, instance pins and memories take
 * the declaration and always block their drivers call for.
 */
class ExpressionFormsTest {

    /** The Verilog of module {@code name} built by {@code body}. */
    private static String verilog(Consumer<ModuleBuilder> body) {
        return VerilogEmitter.emit(Lambda.build("dut", body)).get("dut");
    }

    /** The right-hand side of the continuous assignment to {@code target}. */
    private static String assigned(String verilog, String target) {
        Matcher m = Pattern.compile("(?m)^  assign " + Pattern.quote(target) + " = (.*); // @\\[").matcher(verilog);
        assertTrue(m.find(), () -> "no assign to " + target + " in\n" + verilog);
        return m.group(1);
    }

    @Test
    void widthChangesThatChangeNothingLeaveTheNameAlone() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal s = m.input("s", 1, MAIN);
            m.output("o_zext", 8, MAIN).set(a.zext(8));
            m.output("o_sext", 8, MAIN).set(a.sext(8));
            m.output("o_trunc", 8, MAIN).set(a.trunc(8));
            m.output("o_bits", 8, MAIN).set(a.bits(7, 0));
            m.output("o_repeat", 8, MAIN).set(a.repeat(1));
            m.output("o_cat", 8, MAIN).set(Expr.cat(a));
            m.output("o_shl", 8, MAIN).set(a.shl(0));
            m.output("o_shr", 8, MAIN).set(a.shr(0));
            m.output("o_bit", 1, MAIN).set(s.bit(0));
        });
        for (String o : new String[] {"o_zext", "o_sext", "o_trunc", "o_bits", "o_repeat", "o_cat", "o_shl", "o_shr"}) {
            assertEquals("a", assigned(v, o), o);
        }
        assertEquals("s", assigned(v, "o_bit"));
    }

    @Test
    void widthChangesThatChangeSomethingAreSpelledOut() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal s = m.input("s", 1, MAIN);
            m.output("o_msb", 1, MAIN).set(a.msb());
            m.output("o_zext", 9, MAIN).set(a.zext(9));
            m.output("o_sext1", 4, MAIN).set(s.sext(4));
            m.output("o_rep", 2, MAIN).set(s.repeat(2));
            m.output("o_trunc", 7, MAIN).set(a.trunc(7));
            m.output("o_shl", 8, MAIN).set(a.shl(7));
        });
        assertEquals("a[7]", assigned(v, "o_msb"));
        assertEquals("{1'b0, a}", assigned(v, "o_zext"));
        assertEquals("{{3{s}}, s}", assigned(v, "o_sext1"));
        assertEquals("{2{s}}", assigned(v, "o_rep"));
        assertEquals("a[6:0]", assigned(v, "o_trunc"));
        assertEquals("a << 7", assigned(v, "o_shl"));
    }

    @Test
    void selectionsLandOnNames() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 8, MAIN);
            Signal s = m.input("s", 1, MAIN);
            Signal p = m.input("p", 2, MAIN);
            m.output("o_slice2", 2, MAIN).set(a.bits(6, 1).bits(3, 2));
            m.output("o_lit", 4, MAIN).set(m.lit(0xA5, 8).bits(5, 2));
            m.output("o_not", 4, MAIN).set(a.not().bits(3, 0));
            m.output("o_mux", 4, MAIN).set(Expr.mux(s, a, b).bits(3, 0));
            m.output("o_rep_mid", 2, MAIN).set(p.repeat(3).bits(3, 2));
            m.output("o_rep_straddle", 4, MAIN).set(p.repeat(3).bits(4, 1));
            m.output("o_zext_top", 6, MAIN).set(a.zext(12).bits(11, 6));
            m.output("o_zext_pad", 4, MAIN).set(a.zext(12).bits(11, 8));
            m.output("o_sext_top", 4, MAIN).set(b.sext(10).bits(9, 6));
            m.output("o_sub_low", 4, MAIN).set(a.minus(b).bits(3, 0));
            m.output("o_shr_const", 5, MAIN).set(a.shr(3).bits(4, 0));
            m.output("o_shl_const", 4, MAIN).set(a.shl(3).bits(6, 3));
            m.output("o_cat_low", 8, MAIN).set(Expr.cat(a, b).bits(7, 0));
            m.output("o_cat_high", 3, MAIN).set(Expr.cat(a, b).bits(15, 13));
        });
        assertEquals("a[4:3]", assigned(v, "o_slice2"), "bits [3:2] of a[6:1] are a[4:3]");
        assertEquals("4'd9", assigned(v, "o_lit"), "bits [5:2] of 8'hA5 (1010_0101) are 1001");
        assertEquals("~a[3:0]", assigned(v, "o_not"));
        assertEquals("s ? a[3:0] : b[3:0]", assigned(v, "o_mux"));
        assertEquals("p", assigned(v, "o_rep_mid"), "bits [3:2] of {p, p, p} are the middle copy");
        assertEquals("{p[0], p, p[1]}", assigned(v, "o_rep_straddle"));
        assertEquals("{4'd0, a[7:6]}", assigned(v, "o_zext_top"));
        assertEquals("4'd0", assigned(v, "o_zext_pad"));
        assertEquals("{{2{b[7]}}, b[7:6]}", assigned(v, "o_sext_top"));
        assertEquals("a[3:0] - b[3:0]", assigned(v, "o_sub_low"), "the low bits of a difference need only the low bits");
        assertEquals("a[7:3]", assigned(v, "o_shr_const"), "bits [4:0] of a >> 3 are a[7:3]");
        assertEquals("a[3:0]", assigned(v, "o_shl_const"), "bits [6:3] of a << 3 are a[3:0]");
        assertEquals("b", assigned(v, "o_cat_low"));
        assertEquals("a[7:5]", assigned(v, "o_cat_high"));
    }

    @Test
    void highBitsOfArithmeticAndRunTimeShiftsGoThroughNumberedTemporaries() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 8, MAIN);
            Signal n = m.input("n", 3, MAIN);
            m.output("o_sum_high", 4, MAIN).set(a.plus(b).bits(7, 4));
            m.output("o_diff_high", 4, MAIN).set(a.minus(b).bits(7, 4));
            m.output("o_shift_low", 4, MAIN).set(a.shl(n).bits(3, 0));
            m.output("o_shift_high", 4, MAIN).set(a.shr(n).bits(7, 4));
        });
        assertEquals("_t0[7:4]", assigned(v, "o_sum_high"));
        assertEquals("a + b", assigned(v, "_t0"));
        assertEquals("_t1[7:4]", assigned(v, "o_diff_high"));
        assertEquals("a - b", assigned(v, "_t1"));
        assertEquals("_t2[3:0]", assigned(v, "o_shift_low"));
        assertEquals("a << n", assigned(v, "_t2"));
        assertEquals("_t3[7:4]", assigned(v, "o_shift_high"));
        assertEquals("a >> n", assigned(v, "_t3"));
        assertTrue(v.contains("  wire [7:0] _t0;"), v);
        assertTrue(v.contains("  wire [7:0] _t3;"), v);
    }

    @Test
    void operandsAreParenthesisedWherePrecedenceNeedsIt() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 8, MAIN);
            Signal c = m.input("c", 4, MAIN);
            m.output("o_sum_and", 8, MAIN).set(a.plus(b).and(a));
            m.output("o_not_and", 8, MAIN).set(a.not().and(b));
            m.output("o_pushed_xor", 4, MAIN).set(a.xor(b).bits(3, 0).and(c));
            m.output("o_plain_slice", 4, MAIN).set(a.bits(3, 0).and(c));
            m.output("o_cat_and", 8, MAIN).set(Expr.cat(c, c).and(a));
            m.output("o_eq_or", 1, MAIN).set(a.eq(b).or(a.ne(b)));
        });
        assertEquals("(a + b) & a", assigned(v, "o_sum_and"));
        assertEquals("~a & b", assigned(v, "o_not_and"));
        assertEquals("(a[3:0] ^ b[3:0]) & c", assigned(v, "o_pushed_xor"));
        assertEquals("a[3:0] & c", assigned(v, "o_plain_slice"));
        assertEquals("{c, c} & a", assigned(v, "o_cat_and"));
        assertEquals("(a == b) | (a != b)", assigned(v, "o_eq_or"));
    }

    @Test
    void memoryReadsAreIndexedArrays() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal addr = m.input("addr", 4, MAIN);
            Signal data = m.input("data", 8, MAIN);
            Signal we = m.input("we", 1, MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            ram.write(addr, data, we);
            m.output("o_word", 8, MAIN).set(ram.readAsync(addr));
            m.output("o_low", 4, MAIN).set(ram.readAsync(addr).bits(3, 0));
        });
        assertEquals("ram[addr]", assigned(v, "o_word"));
        assertEquals("ram[addr][3:0]", assigned(v, "o_low"));
        assertTrue(v.contains("  reg  [7:0] ram [0:15];"), v);
        assertTrue(v.contains("    if (we) begin\n      ram[addr] <= data;\n    end\n"), v);
    }

    @Test
    void netsDrivenConditionallyAreDeclaredReg() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 4, MAIN);
            Signal c = m.input("c", 1, MAIN);
            Signal w = m.wire("w", 4);
            Signal x = m.wire("x", 4);
            w.set(a.not());
            x.set(a);
            m.when(c, () -> x.set(0));
            Signal o = m.output("o", 4, MAIN);
            o.set(w);
            m.when(c, () -> o.set(x));
            m.output("p", 4, MAIN).set(x);
        });
        assertTrue(v.contains("  output reg  [3:0] o, "), v);
        assertTrue(v.contains("  output wire [3:0] p  "), v);
        assertTrue(v.contains("  wire [3:0] w; "), v);
        assertTrue(v.contains("  reg  [3:0] x; "), v);
        assertEquals("~a", assigned(v, "w"));
        assertTrue(v.contains("  always @(*) begin\n    x = a;\n    if (c) begin\n      x = 4'd0;\n    end\n  end\n"), v);
        assertTrue(v.contains("  always @(*) begin\n    o = w;\n    if (c) begin\n      o = x;\n    end\n  end\n"), v);
    }

    @Test
    void theDocParagraphHeadsTheFile() {
        String v = verilog(m -> {
            m.domain(MAIN);
            m.doc("First line.\n\nAfter a blank line.  ");
            m.output("o", 1, MAIN).set(m.lit(1, 1));
        });
        assertTrue(v.contains("// params:    Params[name=dut]\n//\n// First line.\n//\n// After a blank line.\n`timescale"), v);
        String bare = verilog(m -> {
            m.domain(MAIN);
            m.output("o", 1, MAIN).set(m.lit(1, 1));
        });
        assertTrue(bare.contains("// params:    Params[name=dut]\n`timescale"), bare);
    }

    @Test
    void registerEnableWithoutResetGuardsTheUpdate() {
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal en = m.input("en", 1, MAIN);
            Signal d = m.input("d", 4, MAIN);
            Reg r = m.reg("r", 4, MAIN).enableWhen(en);
            r.set(d);
            Reg q = m.reg("q", 4, MAIN).init(0).enableWhen(en);
            q.set(r);
            m.output("o", 4, MAIN).set(q);
        });
        assertTrue(v.contains("  always @(posedge clk) begin\n    if (en) begin\n      r <= d;\n    end\n  end\n"), v);
        assertTrue(v.contains("    if (rst) begin\n      q <= 4'd0;\n    end else if (en) begin\n      q <= r;\n    end\n"), v);
    }

    /** A child with one input and one output of 4 bits, and a register between them. */
    static final class Stage extends org.direkt.hdl.Generator<Stage.Params> {
        record Params(ClockDomain domain) {
        }

        @Override
        public String moduleName(Params p) {
            return "stage_" + p.domain().polarity().name().toLowerCase(java.util.Locale.ROOT);
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            ClockDomain cd = m.domain(p.domain());
            Reg r = m.reg("r", 4, cd).init(0);
            r.set(m.input("i", 4, cd));
            m.output("q", 4, cd).set(r);
        }
    }

    @Test
    void instancePinsTakeTheNetThatDrivesThem() {
        ClockDomain low = ClockDomain.of("k").withPorts("k_clk", "k_rst_n").withPolarity(ClockDomain.ResetPolarity.ACTIVE_LOW);
        String v = verilog(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 4, MAIN);
            Signal b = m.input("b", 4, MAIN);
            Reg hold = m.reg("hold", 1, MAIN).init(1);
            hold.set(m.lit(0, 1));
            Instance direct = m.instance("direct", new Stage(), new Stage.Params(MAIN)).clock(MAIN);
            direct.pin("i").set(a);
            Instance mixed = m.instance("mixed", new Stage(), new Stage.Params(low)).clock("k", MAIN).reset("k", hold);
            mixed.pin("i").set(a.xor(b));
            Instance inverted = m.instance("inverted", new Stage(), new Stage.Params(low)).clock("k", MAIN);
            inverted.pin("i").set(b);
            Instance held = m.instance("held", new Stage(), new Stage.Params(MAIN)).clock(MAIN).reset("main", hold);
            held.pin("i").set(b);
            m.output("o", 4, MAIN).set(direct.pin("q").xor(mixed.pin("q")).xor(inverted.pin("q")).xor(held.pin("q")));
        });
        assertTrue(v.contains("  stage_active_high direct (\n    .clk (clk),\n    .rst (rst),\n    .i   (a),\n    .q   (direct_q)\n  );"), v);
        assertFalse(v.contains("assign direct_i"), "a pin driven by a name takes that name: " + v);
        assertEquals("a ^ b", assigned(v, "mixed_i"));
        assertTrue(v.contains("  stage_active_low mixed (\n    .k_clk   (clk),\n    .k_rst_n (~hold),\n    .i       (mixed_i),"), v);
        assertTrue(v.contains("  stage_active_low inverted (\n    .k_clk   (clk),\n    .k_rst_n (~rst),\n    .i       (b),"), v);
        assertTrue(v.contains("  stage_active_high held (\n    .clk (clk),\n    .rst (hold),\n"), v);
    }
}
