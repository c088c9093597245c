// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.direkt.hdl.tests.Lambda.MAIN;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;

import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Design;
import org.direkt.hdl.Diagnostic;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Gray;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.ResetlessSyncCell;
import org.direkt.hdl.Signal;
import org.direkt.hdl.SyncCell;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.hdl.WhenChain;
import org.direkt.hdl.examples.GrayCrossing;
import org.direkt.hdl.examples.SimpleRam;
import org.direkt.hdl.examples.SkidChain;
import org.direkt.hdl.lib.SkidBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Parameter records refuse values outside their range with a message naming the parameter, the
 * value and the range, and accept the values at its edges; the design refuses parameter sets that
 * would give two definitions one name.
 */
class ParamsTest {

    private static void refused(String message, Executable construct) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construct);
        assertEquals(message, e.getMessage());
    }

    @Test
    void skidBufferAndChain() {
        refused("SkidBuffer width = 0: must be >= 1", () -> new SkidBuffer.Params(0));
        refused("SkidBuffer resetPolarity = null: must be ACTIVE_HIGH or ACTIVE_LOW", () -> new SkidBuffer.Params(8, null));
        assertDoesNotThrow(() -> new SkidBuffer.Params(1));
        refused("SkidChain width 0: must be >= 1", () -> new SkidChain.Params(0, 3));
        refused("SkidChain stages 0: must be in 1..64", () -> new SkidChain.Params(8, 0));
        refused("SkidChain stages 65: must be in 1..64", () -> new SkidChain.Params(8, 65));
        assertDoesNotThrow(() -> new SkidChain.Params(1, 1));
        assertDoesNotThrow(() -> new SkidChain.Params(8, 64));
    }

    @Test
    void simpleRamAndGrayCrossing() {
        refused("SimpleRam width 0: must be >= 1", () -> new SimpleRam.Params(0, 16));
        refused("SimpleRam depth 1: must be a power of two >= 2", () -> new SimpleRam.Params(8, 1));
        refused("SimpleRam depth 12: must be a power of two >= 2", () -> new SimpleRam.Params(8, 12));
        assertDoesNotThrow(() -> new SimpleRam.Params(1, 2));
        refused("GrayCrossing width 1: must be >= 2", () -> new GrayCrossing.Params(1, 2));
        refused("GrayCrossing syncStages 1: must be >= 2", () -> new GrayCrossing.Params(4, 1));
        assertDoesNotThrow(() -> new GrayCrossing.Params(2, 2));
    }

    @Test
    void synchroniserCells() {
        String stages = ": must be >= 2 (one flop does not give metastability time to settle)";
        refused("synchroniser width 0: must be >= 1",
                () -> new SyncCell.Params(0, 2, ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        refused("synchroniser stages 1" + stages,
                () -> new SyncCell.Params(1, 1, ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        assertDoesNotThrow(() -> new SyncCell.Params(1, 2, ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        refused("synchroniser width 0: must be >= 1", () -> new ResetlessSyncCell.Params(0, 2, BigInteger.ZERO));
        refused("synchroniser stages 1" + stages, () -> new ResetlessSyncCell.Params(1, 1, BigInteger.ZERO));
        refused("synchroniser power-up value 4: must fit in 2 unsigned bits", () -> new ResetlessSyncCell.Params(2, 2, BigInteger.valueOf(4)));
        refused("synchroniser power-up value -1: must fit in 2 unsigned bits", () -> new ResetlessSyncCell.Params(2, 2, BigInteger.ONE.negate()));
        assertDoesNotThrow(() -> new ResetlessSyncCell.Params(2, 2, BigInteger.valueOf(3)));
    }

    @Test
    void avalonStreamsAndClockDomains() {
        refused("Avalon-ST dataWidth 0: must be >= 1", () -> new AvalonSt(0, 0, AvalonSt.Side.SOURCE));
        refused("Avalon-ST readyLatency -1: must be in 0..8", () -> new AvalonSt(8, -1, AvalonSt.Side.SOURCE));
        refused("Avalon-ST readyLatency 9: must be in 0..8", () -> new AvalonSt(8, 9, AvalonSt.Side.SOURCE));
        refused("Avalon-ST side: must be SOURCE or SINK", () -> new AvalonSt(8, 0, null));
        assertEquals("Avalon-ST sink (1 bits, ready latency 8)", new AvalonSt(1, 8, AvalonSt.Side.SOURCE).flip().toString());
        assertEquals(AvalonSt.source(8, 2), AvalonSt.source(8, 2).flip().flip());

        assertThrows(IllegalArgumentException.class, () -> new ClockDomain("1x", "clk", "rst",
                ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        assertThrows(IllegalArgumentException.class, () -> ClockDomain.of("a").withPorts("wire", "rst"));
        assertThrows(IllegalArgumentException.class, () -> ClockDomain.of("a").withPorts("clk", "reg"));
        refused("domain a: clock and reset share the name k", () -> ClockDomain.of("a").withPorts("k", "k"));
        assertEquals("a", ClockDomain.of("a").toString());
        assertEquals(ClockDomain.ResetKind.ASYNC, ClockDomain.of("a").withKind(ClockDomain.ResetKind.ASYNC).kind());
    }

    @Test
    void registerAttributesAreIdentifiers() {
        assertThrows(IllegalArgumentException.class, () -> Lambda.build("dut", m -> {
            m.domain(MAIN);
            m.reg("r", 1, MAIN).attribute("not a name", "TRUE");
        }));
        String v = VerilogEmitter.emit(Lambda.build("dut", m -> {
            m.domain(MAIN);
            Reg r = m.reg("r", 1, MAIN).attribute("ASYNC_REG", "TRUE").powerUp(1);
            r.set(m.input("d", 1, MAIN));
            m.output("q", 1, MAIN).set(r);
        })).get("dut");
        assertTrue(v.contains("  (* ASYNC_REG = \"TRUE\" *) reg  r = 1'b1;"), v);
    }

    @Test
    void aWhenChainHasOneElseBranch() {
        for (int variant = 0; variant < 2; variant++) {
            boolean viaElseWhen = variant == 0;
            ElaborationException e = assertThrows(ElaborationException.class, () -> Lambda.build("dut", m -> {
                m.domain(MAIN);
                Signal c = m.input("c", 1, MAIN);
                Signal o = m.output("o", 1, MAIN);
                o.set(0);
                WhenChain w = m.when(c, () -> o.set(1));
                w.otherwise(() -> o.set(0));
                if (viaElseWhen) {
                    w.elseWhen(c, () -> o.set(1));
                } else {
                    w.otherwise(() -> o.set(1));
                }
            }));
            assertTrue(e.getMessage().contains("this when chain already has its else branch"), e.getMessage());
        }
        String v = VerilogEmitter.emit(Lambda.build("dut", m -> {
            m.domain(MAIN);
            Signal c = m.input("c", 1, MAIN);
            Signal d = m.input("d", 1, MAIN);
            Signal o = m.output("o", 2, MAIN);
            m.when(c, () -> o.set(1)).elseWhen(d, () -> o.set(2)).otherwise(() -> o.set(3));
        })).get("dut");
        assertTrue(v.contains("    if (c) begin\n      o = 2'd1;\n    end else if (d) begin\n      o = 2'd2;\n    end else begin\n      o = 2'd3;\n    end\n"), v);
    }

    @Test
    void grayCodesOfOneBitAreTheBitItself() {
        String v = VerilogEmitter.emit(Lambda.build("dut", m -> {
            m.domain(MAIN);
            Signal b = m.input("b", 1, MAIN);
            Signal g = m.input("g", 3, MAIN);
            m.output("o_enc1", 1, MAIN).set(Gray.encode(b));
            m.output("o_dec1", 1, MAIN).set(Gray.decode(b));
            m.output("o_dec3", 3, MAIN).set(Gray.decode(g));
            m.output("o_enc3", 3, MAIN).set(Gray.encode(g));
        })).get("dut");
        assertTrue(v.contains("assign o_enc1 = b; "), v);
        assertTrue(v.contains("assign o_dec1 = b; "), v);
        assertTrue(v.contains("assign o_dec3 = {g[2], ^g[2:1], ^g}; "), v);
        assertTrue(v.contains("assign o_enc3 = g ^ (g >> 1); "), v);
    }

    /** Two generators that claim the same module name for different parameters. */
    static final class Clash extends Generator<Clash.Params> {
        record Params(int width) {
        }

        @Override
        public String moduleName(Params p) {
            return "clash";
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            m.domain(MAIN);
            m.output("o", p.width(), MAIN).set(m.lit(0, p.width()));
        }
    }

    /** A generator that instantiates itself. */
    static final class Forever extends Generator<Forever.Params> {
        record Params(int n) {
        }

        @Override
        public String moduleName(Params p) {
            return "endless";
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            m.domain(MAIN);
            m.instance("again", this, p);
        }
    }

    /** A generator whose module name is not a Verilog identifier. */
    static final class BadName extends Generator<BadName.Params> {
        record Params(int n) {
        }

        @Override
        public String moduleName(Params p) {
            return "module";
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
        }
    }

    @Test
    void theDesignKeepsOneDefinitionPerName() {
        Design d = new Design();
        var one = d.elaborate(new Clash(), new Clash.Params(1));
        assertEquals(one, d.elaborate(new Clash(), new Clash.Params(1)), "the same parameters give the same module");
        ElaborationException e = assertThrows(ElaborationException.class, () -> d.elaborate(new Clash(), new Clash.Params(2)));
        assertTrue(e.getMessage().contains("module name 'clash' is produced by both Clash" + new Clash.Params(1)
                + " and Clash" + new Clash.Params(2) + ": names must tell parameters apart"), e.getMessage());
        ElaborationException self = assertThrows(ElaborationException.class, () -> new Design().elaborate(new Forever(), new Forever.Params(1)));
        assertTrue(self.getMessage().contains("Forever instantiates itself with Params[n=1]: the hierarchy would be infinite"), self.getMessage());
        ElaborationException none = assertThrows(ElaborationException.class, () -> new Design().elaborate(new Clash(), null));
        assertTrue(none.getMessage().contains("Clash: parameters must not be null"), none.getMessage());
        refused("module name 'module' is not a legal Verilog identifier (letters, digits and '_', not starting with a digit, not a keyword)",
                () -> new Design().elaborate(new BadName(), new BadName.Params(1)));
    }

    @Test
    void theDesignGathersEveryModulesWarnings() {
        Design d = new Design();
        d.elaborate(new Lambda(m -> {
            m.domain(MAIN);
            m.input("unused", 1, MAIN);
            m.output("o", 1, MAIN).set(m.lit(0, 1));
        }), new Lambda.Params("dut"));
        List<Diagnostic> w = d.warnings();
        assertEquals(List.of("clock 'clk' of domain 'main' is never used", "input 'unused' is never read"),
                w.stream().map(Diagnostic::message).sorted().toList());
        assertEquals(List.of(), new Design().warnings());
    }
}
