// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.direkt.hdl.tests.Lambda.MAIN;
import static org.direkt.hdl.tests.Lambda.here;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Consumer;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Diagnostic;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Instance;
import org.direkt.hdl.Memory;
import org.direkt.hdl.Module;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.SyncCell;
import org.junit.jupiter.api.Test;

/**
 * The whole-module rules in the places a designer reaches them last: second drivers inside a
 * branch, domain crossings through register enables, branch conditions and memory ports, and the
 * warnings about clocks, resets, memories and bits nobody reads.
 */
class CheckerRulesTest {
    private static final String FILE = "CheckerRulesTest.java";
    private static final ClockDomain A = ClockDomain.of("a");
    private static final ClockDomain B = ClockDomain.of("b");

    private static void fails(Consumer<ModuleBuilder> body, Lambda.Line line, String... fragments) {
        ElaborationException e = assertThrows(ElaborationException.class, () -> Lambda.build("dut", body));
        Diagnostic d = e.diagnostics().getFirst();
        for (String f : fragments) {
            assertTrue(d.message().contains(f), () -> "message '" + d.message() + "' lacks '" + f + "'");
        }
        assertEquals(FILE, d.loc().file(), () -> "reported at " + d.loc());
        assertEquals(line.value, d.loc().line(), () -> "reported at " + d.loc() + ": " + d.message());
    }

    private static List<String> warnings(Consumer<ModuleBuilder> body) {
        return Lambda.build("dut", body).warnings().stream().map(Diagnostic::message).toList();
    }

    @Test
    void aSecondDriverInsideABranchIsFound() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal c = m.input("c", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            o.set(0);
            m.when(c, () -> {
                o.set(1);
                l.value = here(); o.set(0);
            });
        }, l, "multiple drivers: output 'o' is already driven at " + FILE);
        fails(m -> {
            m.domain(MAIN);
            Signal c = m.input("c", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            o.set(0);
            m.when(c, () -> o.set(1)).otherwise(() -> {
                o.set(1);
                l.value = here(); o.set(0);
            });
        }, l, "multiple drivers: output 'o'");
    }

    @Test
    void aRegisterKeepsItsValueOnPathsThatDoNotAssignIt() {
        Module mod = Lambda.build("dut", m -> {
            m.domain(MAIN);
            Signal c = m.input("c", 1, MAIN);
            Reg r = m.reg("r", 1, MAIN).init(0);
            m.when(c, () -> r.set(r.not()));
            m.output("o", 1, MAIN).set(r);
        });
        assertEquals(List.of(), mod.warnings());
    }

    @Test
    void aRegisterEnableFromAnotherDomainIsACrossing() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal en = m.input("b_en", 1, B);
            l.value = here(); Reg r = m.reg("r", 1, A).init(0).enableWhen(en);
            r.set(r.not());
            m.output("a_o", 1, A).set(r);
        }, l, "cross-domain read: register 'r' (domain 'a') reads input 'b_en' (domain 'b')");
    }

    @Test
    void aBranchConditionFromAnotherDomainIsACrossing() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal c = m.input("b_c", 1, B);
            Reg r = m.reg("r", 1, A).init(0);
            m.when(c, () -> {
                l.value = here(); r.set(r.not());
            });
            m.output("a_o", 1, A).set(r);
        }, l, "cross-domain read: register 'r' (domain 'a') reads input 'b_c' (domain 'b')");
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal ca = m.input("a_c", 1, A);
            Signal cb = m.input("b_c", 1, B);
            Reg r = m.reg("r", 1, A).init(0);
            m.when(ca, () -> r.set(r)).otherwise(() -> m.when(cb, () -> {
                l.value = here(); r.set(r.not());
            }));
            m.output("a_o", 1, A).set(r);
        }, l, "register 'r' (domain 'a') reads input 'b_c' (domain 'b')");
    }

    @Test
    void memoryPortsReadOnlyTheirOwnDomain() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            Signal addr = m.input("a_addr", 2, A);
            l.value = here(); ram.write(addr, m.input("b_data", 8, B), m.lit(1, 1));
            m.output("a_o", 8, A).set(ram.readAsync(addr));
        }, l, "cross-domain read: write port of memory 'ram' (domain 'a') reads input 'b_data' (domain 'b')");
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.lit(1, 1));
            Signal addr = m.input("a_raddr", 2, A);
            l.value = here(); Signal q = ram.readSync("q", addr, m.lit(1, 1), B);
            m.output("b_o", 8, B).set(q);
        }, l, "cross-domain read: read port 'q' of memory 'ram' (domain 'b') reads input 'a_raddr' (domain 'a')");
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.lit(1, 1));
            Signal en = m.input("a_en", 1, A);
            l.value = here(); Signal q = ram.readSync("q", m.input("b_raddr", 2, B), en, B);
            m.output("b_o", 8, B).set(q);
        }, l, "read port 'q' of memory 'ram' (domain 'b') reads input 'a_en' (domain 'a')");
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.lit(1, 1));
            Signal addr = m.input("a_raddr", 2, A);
            l.value = here(); m.output("b_o", 8, B).set(ram.readAsync(addr, B));
        }, l, "cross-domain read: output 'b_o' (domain 'b') reads input 'a_raddr' (domain 'a')");
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.lit(1, 1));
            Signal addr = m.input("a_raddr", 2, A);
            l.value = here(); ram.readAsync(addr, B);
            m.output("a_o", 8, A).set(ram.readAsync(addr));
        }, l, "cross-domain read: asynchronous read of memory 'ram' (domain 'b') reads input 'a_raddr' (domain 'a')");
    }

    @Test
    void anAsynchronousReadBelongsToItsReadDomain() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.lit(1, 1));
            Signal addr = m.input("b_raddr", 2, B);
            Signal w = m.wire("w", 8);
            w.set(ram.readAsync(addr, B));
            l.value = here(); m.output("a_o", 8, A).set(w);
        }, l, "cross-domain read: output 'a_o' (domain 'a') reads");
        Module ok = Lambda.build("dut", m -> {
            m.clockOnlyDomain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.lit(1, 1));
            Signal w = m.wire("w", 8);
            w.set(ram.readAsync(m.input("b_raddr", 2, B), B));
            Reg r = m.reg("r", 8, B).init(0);
            r.set(w);
            m.output("b_o", 8, B).set(r);
        });
        assertEquals(List.of(), ok.warnings(), "a dual-clock distributed RAM is the one legal crossing without a synchroniser");
    }

    @Test
    void aCombinationalLoopOfOneWireIsReportedAtIt() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal x = m.wire("x", 1);
            l.value = here(); x.set(x.xor(a));
            m.output("o", 1, MAIN).set(x);
        }, l, "combinational loop: wire 'x' -> wire 'x'");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal o = m.output("o", 1, MAIN);
            Signal x = m.wire("x", 1);
            l.value = here(); o.set(x.and(a));
            x.set(o.not());
        }, l, "combinational loop: output 'o' -> wire 'x' -> output 'o'");
    }

    @Test
    void warningsNameUnusedClocksResetsAndBits() {
        assertEquals(List.of("clock 'a_clk' of domain 'a' is never used", "output 'q' of instance 'u' is never read"),
                warnings(m -> {
                    m.domain(MAIN);
                    m.domain(A);
                    Reg r = m.reg("r", 1, MAIN).init(0);
                    r.set(r.not());
                    m.output("o", 1, MAIN).set(r);
                    Instance u = m.instance("u", new ExpressionFormsTest.Stage(), new ExpressionFormsTest.Stage.Params(MAIN)).clock(MAIN);
                    u.pin("i").set(m.lit(0, 4));
                }));
        assertEquals(List.of("reset 'rst' of domain 'main' is never used: no register of the domain has a reset value"),
                warnings(m -> {
                    m.domain(MAIN);
                    Reg r = m.reg("r", 1, MAIN);
                    r.set(r.not());
                    m.output("o", 1, MAIN).set(r);
                }));
        assertEquals(List.of(), warnings(m -> {
            m.domain(MAIN);
            Reg r = m.reg("r", 1, MAIN);
            r.set(r.not().and(m.reset(MAIN)));
            m.output("o", 1, MAIN).set(r);
        }), "reading the reset as logic uses it");
        assertEquals(List.of(), warnings(m -> {
            m.domain(MAIN);
            m.domain(A);
            Reg r = m.reg("r", 4, MAIN).init(0);
            r.set(r.plus(1));
            m.output("o", 4, MAIN).set(r);
            Instance u = m.instance("u", new ExpressionFormsTest.Stage(), new ExpressionFormsTest.Stage.Params(A)).clock(A);
            u.pin("i").set(m.input("a_i", 4, A));
            m.output("a_q", 4, A).set(u.pin("q"));
        }), "a child's registers use the clock and reset bound to them");
        assertEquals(List.of("input 'a' bits [7], [5:4], [0] are never read", "register 'r' bits [3:1] are never read"),
                warnings(m -> {
                    m.domain(MAIN);
                    Signal a = m.input("a", 8, MAIN);
                    Reg r = m.reg("r", 4, MAIN).init(0);
                    r.set(a.bits(6, 6).xor(a.bit(3)).xor(a.bits(2, 1).xorR()).zext(4));
                    m.output("o", 1, MAIN).set(r.bit(0));
                }));
    }

    @Test
    void aMemoryReadSynchronouslyUsesTheReadClock() {
        assertEquals(List.of(), warnings(m -> {
            m.domain(A);
            m.domain(B);
            Memory ram = m.memory("ram", 8, 4, A);
            ram.write(m.input("a_addr", 2, A), m.input("a_data", 8, A), m.input("a_we", 1, A));
            Signal q = ram.readSync("q", m.input("b_addr", 2, B), m.input("b_en", 1, B), B);
            m.output("b_o", 8, B).set(q);
        }).stream().filter(w -> !w.startsWith("reset")).toList());
    }

    @Test
    void aSynchroniserFedByAConditionalAssignmentIsRefused() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(A);
            m.domain(B);
            Signal x = m.input("a_x", 1, A);
            Reg ra = m.reg("ra", 1, A).init(0);
            ra.set(x);
            Instance u = m.instance("u_sync", new SyncCell(), new SyncCell.Params(1, 2, B.polarity(), B.kind())).clock("dst", B);
            l.value = here(); u.pin("d").set(0);
            m.when(x, () -> u.pin("d").set(ra));
            m.output("b_o", 1, B).set(u.pin("q"));
        }, l, "synchroniser 'u_sync' input is driven by conditional assignments");
    }
}
