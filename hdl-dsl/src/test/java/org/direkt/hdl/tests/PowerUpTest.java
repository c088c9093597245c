// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.direkt.hdl.tests.Lambda.MAIN;
import static org.direkt.hdl.tests.Lambda.here;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Diagnostic;
import org.direkt.hdl.ElaborationException;
import org.direkt.hdl.Module;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Sync;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/**
 * Power-up values ({@link Reg#powerUp}): the declaration initialiser the FPGA tools load at
 * configuration, independent of the reset value; registers no reset moves, a reset read as logic,
 * and synchronisers without a reset ({@link Sync#bitsWithoutReset}).
 */
class PowerUpTest {
    private static final String FILE = "PowerUpTest.java";

    private static String emit(Consumer<ModuleBuilder> body) {
        Module top = Lambda.build("dut", body);
        assertEquals(List.of(), top.warnings());
        return VerilogEmitter.emit(top).get("dut");
    }

    private static Diagnostic fails(Consumer<ModuleBuilder> body, Lambda.Line line, String... fragments) {
        ElaborationException e = assertThrows(ElaborationException.class, () -> Lambda.build("dut", body));
        Diagnostic d = e.diagnostics().getFirst();
        for (String f : fragments) {
            assertTrue(d.message().contains(f), () -> "message '" + d.message() + "' lacks '" + f + "'");
        }
        assertEquals(FILE, d.loc().file(), () -> "reported at " + d.loc());
        assertEquals(line.value, d.loc().line(), () -> "reported at " + d.loc() + ": " + d.message());
        return d;
    }

    @Test
    void aPowerUpValueIsTheDeclarationInitialiserAndNoResetBranch() {
        String v = emit(m -> {
            var cd = m.domain(MAIN);
            var d = m.input("d", 5, cd);
            Reg r = m.reg("ptr", 5, cd).powerUp(17);
            r.set(d.and(m.reset(cd).not().repeat(5)));
            m.output("q", 5, cd).set(r);
        });
        assertTrue(v.contains("reg  [4:0] ptr = 5'd17;"), v);
        assertTrue(v.contains("always @(posedge clk) begin\n    ptr <= d & {5{~rst}};\n  end"), v);
    }

    @Test
    void aRegisterMayHaveBothAPowerUpAndAResetValue() {
        String v = emit(m -> {
            var cd = m.domain(MAIN);
            var d = m.input("d", 1, cd);
            Reg wide = m.reg("wide", 40, cd).powerUp(new BigInteger("123456789a", 16)).init(7);
            wide.set(wide.plus(d.zext(40)));
            Reg flag = m.reg("flag", 1, cd).init(0).powerUp(1);
            flag.set(d);
            m.output("q", 41, cd).set(org.direkt.hdl.Expr.cat(wide, flag));
        });
        assertTrue(v.contains("reg  [39:0] wide = 40'h123456789a;"), v);
        assertTrue(v.contains("reg         flag = 1'b1;"), v);
        assertTrue(v.contains("    if (rst) begin\n      wide <= 40'd7;\n    end else begin"), v);
        assertTrue(v.contains("    if (rst) begin\n      flag <= 1'b0;\n    end else begin"), v);
    }

    @Test
    void aPowerUpValueThatDoesNotFitIsAnError() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.reg("ptr", 5, MAIN).powerUp(32);
        }, l, "power-up value 32 of register 'ptr' needs 6 bits and does not fit in its 5 bits");
        Lambda.Line n = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            n.value = here(); m.reg("ptr", 5, MAIN).powerUp(-1);
        }, n, "power-up value -1 of register 'ptr' is negative");
    }

    @Test
    void aResetReadAsLogicCountsAsUsedAndAnUnreadOneIsReported() {
        emit(m -> {
            var cd = m.domain(MAIN);
            var d = m.input("d", 1, cd);
            Reg r = m.reg("r", 1, cd).powerUp(0);
            r.set(d.and(m.reset(cd)));
            m.output("q", 1, cd).set(r);
        });
        Module unread = Lambda.build("dut", m -> {
            var cd = m.domain(MAIN);
            var d = m.input("d", 1, cd);
            Reg r = m.reg("r", 1, cd).powerUp(0);
            r.set(d);
            m.output("q", 1, cd).set(r);
        });
        assertEquals(1, unread.warnings().size(), unread.warnings().toString());
        assertTrue(unread.warnings().getFirst().message().startsWith("reset 'rst' of domain 'main' is never used"),
                unread.warnings().toString());
    }

    @Test
    void aSynchroniserWithoutResetHasNoResetPortAndStartsAtItsPowerUpValue() {
        ClockDomain a = ClockDomain.of("a");
        ClockDomain b = ClockDomain.of("b");
        Module top = Lambda.build("dut", m -> {
            m.domain(a);
            m.clockOnlyDomain(b);
            var inc = m.input("a_inc", 1, a);
            Reg g = m.reg("a_gray", 3, a).powerUp(6);
            g.set(g.xor(inc.and(m.reset(a).not()).zext(3)));
            m.output("b_gray", 3, b).set(Sync.bitsWithoutReset(m, "u_sync", g, b, 2, 6));
            m.output("b_a_rst", 1, b).set(Sync.bitsWithoutReset(m, "u_rst_sync", m.reset(a), b, 2, 0));
        });
        assertEquals(List.of(), top.warnings());
        Map<String, String> files = VerilogEmitter.emit(top);
        String sync = files.get("direkt_sync_w3_s2_pu6");
        assertFalse(sync.contains("rst"), sync);
        for (int i = 0; i < 2; i++) {
            assertTrue(sync.contains("(* ASYNC_REG = \"TRUE\", altera_attribute = \"-name SYNCHRONIZER_IDENTIFICATION FORCED_IF_ASYNCHRONOUS\" *) reg  [2:0] stage"
                    + i + " = 3'd6;"), sync);
        }
        String dut = files.get("dut");
        assertTrue(dut.contains("direkt_sync_w1_s2_pu0 u_rst_sync (\n    .clk (b_clk),\n    .d   (a_rst),"), dut);
        assertFalse(dut.contains("b_rst"), "a clock-only domain has no reset port: " + dut);
    }

    @Test
    void aResetValueInADomainWithoutResetIsAnError() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            var cd = m.clockOnlyDomain(MAIN);
            var d = m.input("d", 1, cd);
            l.value = here(); Reg r = m.reg("r", 1, cd).init(0);
            r.set(d);
            m.output("q", 1, cd).set(r);
        }, l, "register 'r' has a reset value, but domain 'main' has no reset", "give it a power-up value instead");
    }

    @Test
    void aSynchroniserPowerUpValueMustFit() {
        ClockDomain a = ClockDomain.of("a");
        ClockDomain b = ClockDomain.of("b");
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(a);
            m.domain(b);
            Reg g = m.reg("a_gray", 2, a).powerUp(0);
            g.set(g);
            l.value = here(); Signal s = Sync.bitsWithoutReset(m, "u_sync", g, b, 2, 4);
            m.output("q", 2, b).set(s);
        }, l, "synchroniser 'u_sync': power-up value 4 does not fit in the 2 bits of register 'a_gray'");
    }
}
