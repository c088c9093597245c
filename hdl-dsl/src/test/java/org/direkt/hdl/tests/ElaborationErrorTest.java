// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.direkt.hdl.tests.Lambda.MAIN;
import static org.direkt.hdl.tests.Lambda.here;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Consumer;

import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Diagnostic;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Instance;
import org.direkt.hdl.Memory;
import org.direkt.hdl.Module;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Sync;
import org.direkt.hdl.lib.SkidBuffer;
import org.junit.jupiter.api.Test;

/**
 * Every elaboration rule, broken on purpose: the error must say what is wrong in words a designer
 * recognises, and point at the designer's own line.
 */
class ElaborationErrorTest {
    private static final String FILE = "ElaborationErrorTest.java";
    private static final ClockDomain A = ClockDomain.of("a");
    private static final ClockDomain B = ClockDomain.of("b");

    private static Diagnostic fails(Consumer<ModuleBuilder> body, Lambda.Line line, String... fragments) {
        ElaborationException e = assertThrows(ElaborationException.class, () -> Lambda.build("dut", body));
        Diagnostic d = e.diagnostics().getFirst();
        assertEquals(Diagnostic.Severity.ERROR, d.severity());
        for (String f : fragments) {
            assertTrue(d.message().contains(f), () -> "message '" + d.message() + "' lacks '" + f + "'");
        }
        assertEquals(FILE, d.loc().file(), () -> "reported at " + d.loc());
        assertEquals(line.value, d.loc().line(), () -> "reported at " + d.loc() + ": " + d.message());
        assertTrue(e.getMessage().startsWith(FILE + ":" + line.value + ": error: "), e.getMessage());
        return d;
    }

    @Test
    void widthMismatchInAssignmentNamesBothWidths() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal o = m.output("o", 4, MAIN);
            l.value = here(); o.set(a);
        }, l, "width mismatch", "8-bit input 'a'", "4-bit output 'o'");
    }

    @Test
    void widthMismatchInOperatorNamesBothWidths() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 7, MAIN);
            l.value = here(); a.plus(b);
        }, l, "width mismatch in '+'", "input 'a' is 8 bits", "input 'b' is 7 bits");
    }

    @Test
    void widthMismatchInComparison() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 3, MAIN);
            Signal b = m.input("b", 4, MAIN);
            l.value = here(); a.lt(b);
        }, l, "width mismatch in '<'", "3 bits", "4 bits");
    }

    @Test
    void muxArmsMustMatch() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal s = m.input("s", 1, MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 16, MAIN);
            l.value = here(); Expr.mux(s, a, b);
        }, l, "width mismatch in mux arms", "input 'a' is 8 bits", "input 'b' is 16 bits");
    }

    @Test
    void muxSelectMustBeOneBit() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal s = m.input("s", 2, MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); Expr.mux(s, a, a);
        }, l, "mux select input 's' is 2 bits wide", "must be 1 bit");
    }

    @Test
    void whenConditionMustBeOneBit() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal c = m.input("c", 4, MAIN);
            Signal o = m.output("o", 1, MAIN);
            l.value = here(); m.when(c, () -> o.set(1));
        }, l, "when condition input 'c' is 4 bits wide");
    }

    @Test
    void sliceOutOfRange() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.bits(8, 4);
        }, l, "slice [8:4] is out of range for 8-bit input 'a'");
    }

    @Test
    void literalTooWide() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.lit(256, 8);
        }, l, "literal 256 needs 9 bits and does not fit in 8 bits");
    }

    @Test
    void noSilentTruncationThroughZext() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.zext(4);
        }, l, "zext to 4 bits would shrink 8-bit input 'a'");
    }

    @Test
    void undrivenOutput() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.output("o", 1, MAIN);
        }, l, "output 'o' is never driven");
    }

    @Test
    void undrivenWire() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal o = m.output("o", 2, MAIN);
            l.value = here(); Signal w = m.wire("w", 2);
            o.set(w);
        }, l, "wire 'w' is never driven");
    }

    @Test
    void registerNeverAssigned() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal o = m.output("o", 2, MAIN);
            l.value = here(); Reg r = m.reg("r", 2, MAIN).init(0);
            o.set(r);
        }, l, "register 'r' is never assigned");
    }

    @Test
    void multipleDriversOnOnePath() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            o.set(a);
            l.value = here(); o.set(a.not());
        }, l, "multiple drivers: output 'o' is already driven at " + FILE);
    }

    @Test
    void assignmentAfterConditionalDriverIsAMultipleDriver() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            m.when(a, () -> o.set(1));
            l.value = here(); o.set(0);
        }, l, "multiple drivers", "output 'o'");
    }

    @Test
    void incompleteCombinationalAssignmentWouldInferALatch() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            m.when(a, () -> {
                l.value = here(); o.set(1);
            });
        }, l, "output 'o' is not driven on every path", "latch");
    }

    @Test
    void combinationalLoop() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            Signal x = m.wire("x", 1);
            Signal y = m.wire("y", 1);
            l.value = here(); x.set(y.and(a));
            y.set(x.not());
            o.set(y);
        }, l, "combinational loop: wire 'x' -> wire 'y' -> wire 'x'");
    }

    /** A child whose output follows its input combinationally. */
    static final class Passthrough extends Generator<Passthrough.Params> {
        record Params(int width) {
        }

        @Override
        public String moduleName(Params p) {
            return "pass_w" + p.width();
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            m.domain(MAIN);
            Signal i = m.input("i", p.width(), MAIN);
            m.output("o", p.width(), MAIN).set(i.not());
        }
    }

    @Test
    void combinationalLoopThroughAChildInstance() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal o = m.output("o", 1, MAIN);
            Instance u = m.instance("u", new Passthrough(), new Passthrough.Params(1)).clock(MAIN);
            l.value = here(); u.pin("i").set(u.pin("o"));
            o.set(u.pin("o"));
        }, l, "combinational loop: instance input 'u_i' -> instance output 'u_o' -> instance input 'u_i'");
    }

    @Test
    void registerWithoutAName() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            l.value = here(); Reg r = m.reg(1, MAIN).init(0);
            r.set(a);
            m.output("o", 1, MAIN).set(r);
        }, l, "register declared here has no name");
    }

    @Test
    void crossDomainReadWithoutSynchroniser() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal in = m.input("a_in", 1, A);
            Reg ra = m.reg("ra", 1, A).init(0);
            ra.set(in);
            Reg rb = m.reg("rb", 1, B).init(0);
            l.value = here(); rb.set(ra);
            m.output("b_out", 1, B).set(rb);
        }, l, "cross-domain read", "register 'rb' (domain 'b') reads register 'ra' (domain 'a')", "synchroniser");
    }

    @Test
    void crossDomainReadThroughAWireIntoAnOutput() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal in = m.input("a_in", 1, A);
            Signal w = m.wire("w", 1);
            w.set(in.not());
            l.value = here(); m.output("b_out", 1, B).set(w);
        }, l, "cross-domain read: output 'b_out' (domain 'b') reads input 'a_in' (domain 'a')");
    }

    @Test
    void wireMixingTwoDomains() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal x = m.input("a_x", 1, A);
            Signal y = m.input("b_y", 1, B);
            l.value = here(); Signal w = m.wire("w", 1);
            w.set(x.and(y));
            Reg r = m.reg("r", 1, A).init(0);
            r.set(x);
            m.output("a_o", 1, A).set(r);
            m.output("b_o", 1, B).set(y);
        }, l, "wire 'w' mixes clock domains 'a'", "'b'");
    }

    @Test
    void synchroniserMustBeFedStraightFromARegister() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal x = m.input("a_x", 2, A);
            Reg ra = m.reg("ra", 2, A).init(0);
            ra.set(x);
            Signal w = m.wire("w", 2);
            w.set(ra.not());
            l.value = here(); Signal q = Sync.bits(m, "u_sync", w, B, 2);
            m.output("b_o", 2, B).set(q);
        }, l, "synchroniser 'u_sync' input is driven by wire 'w'", "straight from a register");
    }

    /** A module that synchronises its input a_x (domain a) into domain b: legal on its own. */
    private static Module syncsItsInput(String name) {
        return Lambda.build(name, m -> {
            m.domain(A);
            m.domain(B);
            Signal x = m.input("a_x", 2, A);
            m.output("b_o", 2, B).set(Sync.bits(m, "u_sync", x, B, 2));
        });
    }

    /** A module that passes its input a_y straight to a child that synchronises it. */
    private static Module passesItOn(String name, Module child) {
        return Lambda.build(name, m -> {
            m.domain(A);
            m.domain(B);
            Instance u = m.instance("u_leaf", child).clock("a", A).clock("b", B);
            u.pin("a_x").set(m.input("a_y", 2, A));
            m.output("b_o", 2, B).set(u.pin("b_o"));
        });
    }

    @Test
    void crossingInputIsCheckedInTheParent() {
        Module leaf = syncsItsInput("leaf2");
        assertEquals("'u_sync'", leaf.crossingInputs().get("a_x"));
        Lambda.Line l = new Lambda.Line();
        Diagnostic d = fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal i1 = m.input("a_i1", 2, A);
            Signal i2 = m.input("a_i2", 2, A);
            Instance u = m.instance("u_leaf", leaf).clock("a", A).clock("b", B);
            l.value = here(); u.pin("a_x").set(i1.and(i2));
            m.output("b_o", 2, B).set(u.pin("b_o"));
        }, l, "input 'a_x' of instance 'u_leaf' (leaf2) reaches synchroniser 'u_sync'", "straight from a register");
        assertTrue(d.message().contains("and"), d.message());
    }

    @Test
    void crossingInputIsCheckedThreeLevelsUp() {
        Module mid = passesItOn("mid3", syncsItsInput("leaf3"));
        assertEquals("'u_leaf.u_sync'", mid.crossingInputs().get("a_y"));
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal i1 = m.input("a_i1", 2, A);
            Signal i2 = m.input("a_i2", 2, A);
            Instance u = m.instance("u_mid", mid).clock("a", A).clock("b", B);
            l.value = here(); u.pin("a_y").set(i1.and(i2));
            m.output("b_o", 2, B).set(u.pin("b_o"));
        }, l, "input 'a_y' of instance 'u_mid' (mid3) reaches synchroniser 'u_leaf.u_sync'", "straight from a register");
    }

    @Test
    void crossingInputIsCheckedThroughAConditionThreeLevelsUp() {
        Module mid = passesItOn("mid3c", syncsItsInput("leaf3c"));
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal i1 = m.input("a_i1", 2, A);
            Signal c = m.input("a_c", 1, A);
            Reg r = m.reg("r", 2, A).init(0);
            r.set(i1);
            Instance u = m.instance("u_mid", mid).clock("a", A).clock("b", B);
            l.value = here(); u.pin("a_y").set(0);
            m.when(c, () -> u.pin("a_y").set(r));
            m.output("b_o", 2, B).set(u.pin("b_o"));
        }, l, "input 'a_y' of instance 'u_mid' (mid3c)", "conditional assignments");
    }

    @Test
    void crossingInputFromARegisterOrTheTopIsAccepted() {
        Module mid = passesItOn("mid3ok", syncsItsInput("leaf3ok"));
        Module fromReg = Lambda.build("top_reg", m -> {
            m.domain(A);
            m.domain(B);
            Reg r = m.reg("r", 2, A).init(0);
            r.set(m.input("a_i", 2, A));
            Instance u = m.instance("u_mid", mid).clock("a", A).clock("b", B);
            u.pin("a_y").set(r);
            m.output("b_o", 2, B).set(u.pin("b_o"));
        });
        assertTrue(fromReg.crossingInputs().isEmpty(), fromReg.crossingInputs()::toString);
        // a top-level input passed straight down is a crossing input of the top: its driver is the user's
        Module passed = Lambda.build("top_in", m -> {
            m.domain(A);
            m.domain(B);
            Instance u = m.instance("u_mid", mid).clock("a", A).clock("b", B);
            u.pin("a_y").set(m.input("a_z", 2, A));
            m.output("b_o", 2, B).set(u.pin("b_o"));
        });
        assertEquals("'u_mid.u_leaf.u_sync'", passed.crossingInputs().get("a_z"));
    }

    @Test
    void synchroniserNeedsTwoStages() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Reg ra = m.reg("ra", 1, A).init(0);
            l.value = here(); Sync.bits(m, "u_sync", ra, B, 1);
        }, l, "synchroniser 'u_sync' has 1 stage(s)", "at least 2 flip-flops");
    }

    @Test
    void bundleDirectionConflict() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Stream in = m.stream("s", AvalonSt.source(8).flip(), MAIN);
            Stream in2 = m.stream("t", AvalonSt.source(8).flip(), MAIN);
            l.value = here(); m.connect(in, in2);
        }, l, "bundle direction conflict", "'s' (producer)", "'t' (producer)");
    }

    @Test
    void bundleWidthMismatch() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Stream in = m.stream("s", AvalonSt.source(8).flip(), MAIN);
            Stream out = m.stream("m", AvalonSt.source(16), MAIN);
            l.value = here(); m.connect(in, out);
        }, l, "width mismatch connecting stream 's' (8 bits) to 'm' (16 bits)");
    }

    @Test
    void bundleReadyLatencyMismatch() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Stream in = m.stream("s", AvalonSt.source(8).flip(), MAIN);
            Stream out = m.stream("m", AvalonSt.source(8, 1), MAIN);
            l.value = here(); m.connect(in, out);
        }, l, "ready latency mismatch", "'s' (ready latency 0)", "'m' (ready latency 1)");
    }

    @Test
    void instanceStreamsFacingTheSameWay() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)).clock(MAIN);
            Stream out = m.stream("m", AvalonSt.source(8), MAIN);
            l.value = here(); m.connect(out, u.stream("s"));
        }, l, "bundle direction conflict", "'m' (consumer)", "'u.s' (consumer)");
    }

    @Test
    void duplicateName() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            m.input("a", 1, MAIN);
            l.value = here(); m.wire("a", 1);
        }, l, "name 'a' is already used in module dut (declared at " + FILE);
    }

    @Test
    void keywordIsNotAName() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.wire("always", 1);
        }, l, "name 'always' is not a legal Verilog identifier");
    }

    @Test
    void drivingAnInputIsRefused() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            l.value = here(); a.set(1);
        }, l, "input 'a' cannot be driven here");
    }

    @Test
    void childDomainMustBeBound() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Stream in = m.stream("s", AvalonSt.source(8).flip(), MAIN);
            Stream out = m.stream("m", AvalonSt.source(8), MAIN);
            l.value = here(); Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            m.connect(in, u.stream("s"));
            m.connect(u.stream("m"), out);
        }, l, "clock domain 'main' of instance 'u' (direkt_skid_buffer_w8) is not bound");
    }

    @Test
    void unconnectedInstanceInput() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); Instance u = m.instance("u", new Passthrough(), new Passthrough.Params(2)).clock(MAIN);
            m.output("o", 2, MAIN).set(u.pin("o"));
        }, l, "input 'i' of instance 'u' (pass_w2) is not connected");
    }

    @Test
    void resetStyleMustMatchWhenBinding() {
        Lambda.Line l = new Lambda.Line();
        ClockDomain lowAsync = ClockDomain.of("k").withPorts("k_clk", "k_rst_n")
                .withPolarity(ClockDomain.ResetPolarity.ACTIVE_LOW).withKind(ClockDomain.ResetKind.ASYNC);
        fails(m -> {
            m.domain(lowAsync);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.clock("main", lowAsync);
        }, l, "reset mismatch binding domain 'main' of instance 'u' to 'k'", "ACTIVE_HIGH SYNC", "ACTIVE_LOW ASYNC");
    }

    @Test
    void undeclaredDomain() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.reg("r", 1, A);
        }, l, "clock domain 'a' is not declared in module dut");
    }

    @Test
    void memoryAddressWidth() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Memory mem = m.memory("ram", 8, 16, MAIN);
            Signal addr = m.input("addr", 5, MAIN);
            l.value = here(); mem.readAsync(addr);
        }, l, "memory 'ram' (depth 16) takes a 4-bit address", "input 'addr' is 5 bits");
    }

    @Test
    void signalOfAnotherModule() {
        Lambda.Line l = new Lambda.Line();
        Signal[] foreign = new Signal[1];
        assertThrows(ElaborationException.class, () -> Lambda.build("other", m -> {
            m.domain(MAIN);
            foreign[0] = m.input("x", 1, MAIN);
            m.output("y", 1, MAIN).set(foreign[0]);
            throw new ElaborationException(java.util.List.of());
        }));
        fails(m -> {
            m.domain(MAIN);
            Signal o = m.output("o", 1, MAIN);
            l.value = here(); o.set(foreign[0]);
        }, l, "input 'x' belongs to module other and cannot be used in module dut");
    }

    @Test
    void everyErrorIsReportedNotJustTheFirst() {
        ElaborationException e = assertThrows(ElaborationException.class, () -> Lambda.build("dut", m -> {
            m.domain(MAIN);
            m.output("o1", 1, MAIN);
            m.output("o2", 1, MAIN);
            m.reg(1, MAIN);
        }));
        assertEquals(4, e.diagnostics().size(), e.getMessage());
        assertTrue(e.getMessage().contains("output 'o1' is never driven"));
        assertTrue(e.getMessage().contains("output 'o2' is never driven"));
        assertTrue(e.getMessage().contains("register declared here has no name"));
    }

    @Test
    void unusedInputIsAWarningWithItsLine() {
        Lambda.Line l = new Lambda.Line();
        Module mod = Lambda.build("dut", m -> {
            m.domain(MAIN);
            l.value = here(); Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 1, MAIN);
            Reg r = m.reg("r", 4, MAIN).init(0);
            r.set(a.bits(5, 2));
            m.output("o", 4, MAIN).set(r);
            m.output("p", 1, MAIN).set(m.lit(0, 1));
            assertEquals(1, b.width());
        });
        assertEquals(2, mod.warnings().size(), mod.warnings().toString());
        Diagnostic partial = mod.warnings().get(0);
        assertEquals(Diagnostic.Severity.WARNING, partial.severity());
        assertEquals("input 'a' bits [7:6], [1:0] are never read", partial.message());
        assertEquals(l.value, partial.loc().line());
        assertEquals("input 'b' is never read", mod.warnings().get(1).message());
        assertEquals(l.value + 1, mod.warnings().get(1).loc().line());
    }

    @Test
    void highBitsOfASumWarnThatTheLowBitsGoUnread() {
        Lambda.Line l = new Lambda.Line();
        Module mod = Lambda.build("dut", m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 8, MAIN);
            Reg r = m.reg("r", 4, MAIN).init(0);
            l.value = here(); r.set(a.plus(b).bits(7, 4));
            m.output("o", 4, MAIN).set(r);
        });
        assertEquals(1, mod.warnings().size(), mod.warnings().toString());
        assertEquals(l.value, mod.warnings().getFirst().loc().line());
        assertTrue(mod.warnings().getFirst().message().startsWith("only bits [7:4] of this 8-bit '+' expression are read"),
                mod.warnings().getFirst().message());
    }

    @Test
    void selectingBitsOfBitwiseLogicReadsOnlyThoseBits() {
        Module mod = Lambda.build("dut", m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 8, MAIN);
            Reg r = m.reg("r", 2, MAIN).init(0);
            r.set(a.xor(b.not()).bits(5, 4));
            m.output("o", 2, MAIN).set(r);
        });
        assertEquals(List.of("input 'a' bits [7:6], [3:0] are never read", "input 'b' bits [7:6], [3:0] are never read"),
                mod.warnings().stream().map(Diagnostic::message).toList());
    }

    @Test
    void passThroughDomainHoldsNoRegister() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.passThroughDomain(MAIN);
            l.value = here(); m.reg("r", 1, MAIN);
        }, l, "register 'r' needs a clock, but domain 'main' has none in module dut (declared with passThroughDomain)");
    }

    @Test
    void passThroughDomainHasNoClockToLend() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.passThroughDomain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.clock(MAIN);
        }, l, "domain 'main' of instance 'u' needs a clock, but 'main' has none in module dut");
    }

    @Test
    void passThroughDomainStillChecksCrossings() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.passThroughDomain(A);
            m.passThroughDomain(B);
            Signal x = m.input("a_x", 4, A);
            l.value = here(); m.output("b_y", 4, B).set(x);
        }, l, "cross-domain read: output 'b_y' (domain 'b') reads input 'a_x' (domain 'a')");
    }
}
