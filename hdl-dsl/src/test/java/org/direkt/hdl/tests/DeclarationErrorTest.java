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
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Sub;
import org.direkt.hdl.Sync;
import org.direkt.hdl.Unit;
import org.direkt.hdl.lib.SkidBuffer;
import org.junit.jupiter.api.Test;

/**
 * Mistakes made while declaring a module, each refused where it is made: domains declared twice or
 * not at all, names taken twice or kept for temporaries, a builder used after its module is done,
 * malformed constants and width changes, memory ports and child bindings that do not fit. The
 * error names the thing and the rule, and points at the designer's line.
 */
class DeclarationErrorTest {
    private static final String FILE = "DeclarationErrorTest.java";
    private static final ClockDomain A = ClockDomain.of("a");

    private static void fails(Consumer<ModuleBuilder> body, Lambda.Line line, String... fragments) {
        ElaborationException e = assertThrows(ElaborationException.class, () -> Lambda.build("dut", body));
        Diagnostic d = e.diagnostics().getFirst();
        for (String f : fragments) {
            assertTrue(d.message().contains(f), () -> "message '" + d.message() + "' lacks '" + f + "'");
        }
        assertEquals(FILE, d.loc().file(), () -> "reported at " + d.loc());
        assertEquals(line.value, d.loc().line(), () -> "reported at " + d.loc() + ": " + d.message());
    }

    // ---------------------------------------------------------------- domains

    @Test
    void aDomainIsDeclaredOnce() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.domain(MAIN);
        }, l, "clock domain 'main' is already declared in module dut");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.clockOnlyDomain(MAIN);
        }, l, "clock domain 'main' is already declared in module dut");
        fails(m -> {
            m.passThroughDomain(MAIN);
            l.value = here(); m.passThroughDomain(MAIN);
        }, l, "clock domain 'main' is already declared in module dut");
    }

    @Test
    void everyDeclarationNamesADeclaredDomain() {
        Lambda.Line l = new Lambda.Line();
        String rule = "clock domain 'a' is not declared in module dut: call domain(...) first";
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.input("i", 1, A);
        }, l, rule);
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.output("o", 1, A);
        }, l, rule);
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.stream("s", AvalonSt.source(8), A);
        }, l, rule);
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.memory("ram", 8, 4, A);
        }, l, rule);
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.reset(A);
        }, l, rule);
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.input("i", 1, null);
        }, l, "no clock domain given: every port, register and memory port needs one");
    }

    @Test
    void aDomainWithoutResetHasNoResetToRead() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.clockOnlyDomain(MAIN);
            l.value = here(); m.reset(MAIN);
        }, l, "domain 'main' has no reset port in module dut (declared with clockOnlyDomain)");
        fails(m -> {
            m.passThroughDomain(MAIN);
            l.value = here(); m.reset(MAIN);
        }, l, "domain 'main' has no reset port in module dut (declared with passThroughDomain)");
    }

    @Test
    void aResetValueNeedsAResetPort() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.clockOnlyDomain(MAIN);
            l.value = here(); Reg r = m.reg("r", 2, MAIN).init(1);
            r.set(r);
            m.output("o", 2, MAIN).set(r);
        }, l, "register 'r' has a reset value, but domain 'main' has no reset in module dut (declared with clockOnlyDomain)");
    }

    @Test
    void aMemoryNeedsAClock() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.passThroughDomain(MAIN);
            l.value = here(); m.memory("ram", 8, 4, MAIN);
        }, l, "memory 'ram' needs a clock, but domain 'main' has none in module dut");
    }

    // ---------------------------------------------------------------- names

    @Test
    void everyKindOfDeclarationTakesAName() {
        Lambda.Line l = new Lambda.Line();
        String taken = "name 'x' is already used in module dut (declared at " + FILE;
        fails(m -> {
            m.domain(MAIN);
            m.wire("x", 1);
            l.value = here(); m.input("x", 1, MAIN);
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.input("x", 1, MAIN);
            l.value = here(); m.reg("x", 1, MAIN);
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.reg("x", 1, MAIN);
            l.value = here(); m.wire("x", 1);
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.memory("x", 8, 4, MAIN);
            l.value = here(); m.wire("x", 1);
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.wire("x", 1);
            l.value = here(); m.memory("x", 8, 4, MAIN);
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.wire("x", 1);
            l.value = here(); m.instance("x", new SkidBuffer(), new SkidBuffer.Params(8));
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.instance("x", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); m.wire("x", 1);
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            m.wire("x", 1);
            l.value = here(); m.reg(1, MAIN).named("x");
        }, l, taken);
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 4, MAIN);
            m.wire("x", 8);
            l.value = here(); ram.readSync("x", m.lit(0, 2), m.lit(1, 1), MAIN);
        }, l, taken);
    }

    @Test
    void aChildsPinsTakeNamesInTheParent() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            m.wire("u_s_data", 8);
            l.value = here(); m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
        }, l, "name 'u_s_data' is already used in module dut");
    }

    @Test
    void underscoreNamesAreKeptForTemporaries() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.wire("_t0", 1);
        }, l, "name '_t0' starts with '_': such names are kept for temporaries the emitter makes");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.input("9lives", 1, MAIN);
        }, l, "name '9lives' is not a legal Verilog identifier");
    }

    // ---------------------------------------------------------------- after elaboration

    @Test
    void aFinishedModuleCannotChange() {
        ModuleBuilder[] kept = new ModuleBuilder[1];
        Signal[] out = new Signal[1];
        Lambda.build("done", m -> {
            kept[0] = m;
            m.domain(MAIN);
            out[0] = m.output("o", 1, MAIN);
            out[0].set(m.lit(0, 1));
        });
        ModuleBuilder m = kept[0];
        String rule = "module done is already elaborated: it cannot change any more";
        List<Runnable> changes = List.of(
                () -> m.doc("late"),
                () -> m.domain(A),
                () -> m.clockOnlyDomain(A),
                () -> m.passThroughDomain(A),
                () -> m.reset(MAIN),
                () -> m.input("i", 1, MAIN),
                () -> m.wire("w", 1),
                () -> m.reg("r", 1, MAIN),
                () -> m.memory("ram", 8, 4, MAIN),
                () -> m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)),
                () -> m.when(out[0], () -> { }),
                () -> out[0].set(m.lit(1, 1)));
        for (Runnable change : changes) {
            ElaborationException e = assertThrows(ElaborationException.class, change::run);
            assertTrue(e.getMessage().contains(rule), e.getMessage());
        }
    }

    // ---------------------------------------------------------------- constants and width changes

    @Test
    void constantsAreUnsignedAndAtLeastOneBit() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.lit(-1, 8);
        }, l, "literal -1 is negative: constants are unsigned");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.lit(0, 0);
        }, l, "literal 0 has width 0: a constant is at least 1 bit wide");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.input("i", 0, MAIN);
        }, l, "width 0 is not legal: a signal is at least 1 bit wide");
        Lambda.build("fits", m -> {
            m.domain(MAIN);
            m.output("o", 8, MAIN).set(m.lit(255, 8));
        });
    }

    @Test
    void widthChangesSayWhichWayIsAllowed() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.sext(7);
        }, l, "sext to 7 bits would shrink 8-bit input 'a': use trunc or bits");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.trunc(9);
        }, l, "trunc to 9 bits would widen 8-bit input 'a': use zext or sext");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.repeat(0);
        }, l, "repeat count 0 for input 'a': must be >= 1");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); Expr.cat();
        }, l, "cat of nothing: give at least one expression");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.bits(3, 4);
        }, l, "slice [3:4] is out of range for 8-bit input 'a' (legal: [7:0] and below)");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.bits(3, -1);
        }, l, "slice [3:-1] is out of range");
    }

    @Test
    void constantShiftsStayInsideTheWidth() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.shl(8);
        }, l, "shift by 8 of 8-bit input 'a': the amount must be in 0..7");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            l.value = here(); a.shr(-1);
        }, l, "shift by -1 of 8-bit input 'a': the amount must be in 0..7");
    }

    @Test
    void countStepsAreOneBit() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Reg c = m.reg("c", 4, MAIN).init(0);
            Signal up = m.input("up", 2, MAIN);
            Signal down = m.input("down", 1, MAIN);
            l.value = here(); c.upDown(up, down);
        }, l, "upDown step input 'up' is 2 bits wide: it must be 1 bit");
        fails(m -> {
            m.domain(MAIN);
            Reg c = m.reg("c", 4, MAIN).init(0);
            Signal up = m.input("up", 1, MAIN);
            Signal down = m.input("down", 3, MAIN);
            l.value = here(); c.upDown(up, down);
        }, l, "upDown step input 'down' is 3 bits wide");
        fails(m -> {
            m.domain(MAIN);
            Reg c = m.reg("c", 4, MAIN).init(0);
            Signal up = m.input("up", 2, MAIN);
            Signal down = m.input("down", 1, MAIN);
            l.value = here(); c.upDownSelected(up, down);
        }, l, "upDownSelected step input 'up' is 2 bits wide");
        fails(m -> {
            m.domain(MAIN);
            Reg c = m.reg("c", 4, MAIN).init(0);
            Signal up = m.input("up", 1, MAIN);
            Signal down = m.input("down", 2, MAIN);
            l.value = here(); c.upDownSelected(up, down);
        }, l, "upDownSelected step input 'down' is 2 bits wide");
    }

    @Test
    void aCarryNeedsEqualWidths() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 8, MAIN);
            Signal b = m.input("b", 4, MAIN);
            l.value = here(); a.plusCarry(b);
        }, l, "width mismatch in 'plusCarry': input 'a' is 8 bits, input 'b' is 4 bits");
    }

    @Test
    void muxArmsOfAnotherModuleAreRefused() {
        Lambda.Line l = new Lambda.Line();
        Signal[] foreign = new Signal[1];
        Lambda.build("other", m -> {
            m.domain(MAIN);
            foreign[0] = m.input("x", 1, MAIN);
            m.output("y", 1, MAIN).set(foreign[0]);
        });
        fails(m -> {
            m.domain(MAIN);
            Signal s = m.input("s", 1, MAIN);
            Signal a = m.input("a", 1, MAIN);
            l.value = here(); Expr.mux(s, a, foreign[0]);
        }, l, "input 'x' belongs to module other and cannot be used in module dut");
        fails(m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            l.value = here(); Expr.mux(m.lit(1, 1), foreign[0], a);
        }, l, "input 'a' belongs to module dut and cannot be used in module other");
    }

    // ---------------------------------------------------------------- registers

    @Test
    void registerEnablesAreOneBitAndSetOnce() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Signal en = m.input("en", 2, MAIN);
            Reg r = m.reg("r", 1, MAIN);
            l.value = here(); r.enableWhen(en);
        }, l, "enable input 'en' of register 'r' is 2 bits wide: it must be 1 bit");
        fails(m -> {
            m.domain(MAIN);
            Signal en = m.input("en", 1, MAIN);
            Reg r = m.reg("r", 1, MAIN).enableWhen(en);
            l.value = here(); r.enableWhen(en);
        }, l, "register 'r' already has an enable (set at " + FILE);
    }

    @Test
    void powerUpValuesFitTheRegister() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.reg("r", 4, MAIN).powerUp(-2);
        }, l, "power-up value -2 of register 'r' is negative: register values are unsigned");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.reg("r", 4, MAIN).powerUp(16);
        }, l, "power-up value 16 of register 'r' needs 5 bits and does not fit in its 4 bits");
    }

    // ---------------------------------------------------------------- memories

    @Test
    void memoryShapeIsChecked() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.memory("ram", 0, 4, MAIN);
        }, l, "memory 'ram' width 0: must be >= 1");
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); m.memory("ram", 8, 1, MAIN);
        }, l, "memory 'ram' depth 1: must be >= 2");
        Lambda.build("two_words", m -> {
            m.domain(MAIN);
            Signal a = m.input("a", 1, MAIN);
            Signal d = m.input("d", 1, MAIN);
            Memory ram = m.memory("ram", 1, 2, MAIN);
            assertEquals(1, ram.addrWidth(), "two words take a 1-bit address");
            ram.write(a, d, m.lit(1, 1));
            m.output("o", 1, MAIN).set(ram.readAsync(a));
        });
    }

    @Test
    void memoryPortsAreChecked() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            Signal addr = m.input("addr", 4, MAIN);
            Signal data = m.input("data", 8, MAIN);
            ram.write(addr, data, m.lit(1, 1));
            l.value = here(); ram.write(addr, data, m.lit(1, 1));
        }, l, "memory 'ram' already has its write port (declared at " + FILE);
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            Signal data = m.input("data", 8, MAIN);
            l.value = here(); ram.write(m.input("addr", 3, MAIN), data, m.lit(1, 1));
        }, l, "memory 'ram' (depth 16) takes a 4-bit address, input 'addr' is 3 bits");
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            Signal addr = m.input("addr", 4, MAIN);
            l.value = here(); ram.write(addr, m.input("data", 7, MAIN), m.lit(1, 1));
        }, l, "memory 'ram' holds 8-bit words, write data input 'data' is 7 bits");
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            Signal addr = m.input("addr", 4, MAIN);
            Signal data = m.input("data", 8, MAIN);
            l.value = here(); ram.write(addr, data, m.lit(1, 2));
        }, l, "memory 'ram' port enable");
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            l.value = here(); ram.readSync("q", m.input("addr", 5, MAIN), m.lit(1, 1), MAIN);
        }, l, "takes a 4-bit address");
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            l.value = here(); ram.readSync("q", m.lit(0, 4), m.lit(0, 2), MAIN);
        }, l, "memory 'ram' port enable");
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            l.value = here(); ram.readSync("q", m.lit(0, 4), m.lit(1, 1), A);
        }, l, "clock domain 'a' is not declared in module dut");
        fails(m -> {
            m.domain(MAIN);
            m.passThroughDomain(A);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            l.value = here(); ram.readSync("q", m.lit(0, 4), m.lit(1, 1), A);
        }, l, "read port 'q' of memory 'ram' needs a clock, but domain 'a' has none");
        fails(m -> {
            m.domain(MAIN);
            Memory ram = m.memory("ram", 8, 16, MAIN);
            l.value = here(); ram.readAsync(m.lit(0, 4), A);
        }, l, "clock domain 'a' is not declared in module dut");
    }

    @Test
    void aMemoryMustBeWrittenAndShouldBeRead() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            l.value = here(); Memory ram = m.memory("ram", 8, 16, MAIN);
            m.output("o", 8, MAIN).set(ram.readAsync(m.lit(0, 4)));
        }, l, "memory 'ram' is never written: give it a write port");
        int[] at = new int[1];
        var mod = Lambda.build("dut", m -> {
            m.clockOnlyDomain(MAIN);
            Signal addr = m.input("addr", 4, MAIN);
            Signal data = m.input("data", 8, MAIN);
            Signal en = m.input("en", 1, MAIN);
            at[0] = here(); Memory ram = m.memory("ram", 8, 16, MAIN);
            ram.write(addr, data, en);
        });
        assertEquals(List.of("memory 'ram' is never read"), mod.warnings().stream().map(Diagnostic::message).toList());
        assertEquals(at[0], mod.warnings().getFirst().loc().line());
    }

    // ---------------------------------------------------------------- instances

    @Test
    void bindingAChildDomainIsChecked() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.clock("core", MAIN);
        }, l, "instance 'u' of direkt_skid_buffer_w8 has no clock domain 'core' (it has [main])");
        fails(m -> {
            m.domain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.clock("main", A);
        }, l, "clock domain 'a' is not declared in module dut");
        fails(m -> {
            m.domain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)).clock(MAIN);
            l.value = here(); u.clock("main", MAIN);
        }, l, "domain 'main' of instance 'u' is already bound (at " + FILE);
        fails(m -> {
            m.clockOnlyDomain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.clock("main", MAIN);
        }, l, "domain 'main' of instance 'u' needs a reset, but 'main' has none in module dut (declared with clockOnlyDomain)");
    }

    @Test
    void aResetOverrideIsARegisterOfTheBoundDomain() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Reg hold = m.reg("hold", 1, MAIN).init(1);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.reset("main", hold);
        }, l, "reset of domain 'main' of instance 'u': bind the domain with clock(...) first");
        fails(m -> {
            m.domain(MAIN);
            Reg hold = m.reg("hold", 2, MAIN).init(1);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)).clock(MAIN);
            l.value = here(); u.reset("main", hold);
        }, l, "reset of domain 'main' of instance 'u': register 'hold' must be a 1-bit register of domain 'main'");
        fails(m -> {
            m.domain(MAIN);
            m.domain(A);
            Reg hold = m.reg("hold", 1, A).init(1);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)).clock(MAIN);
            l.value = here(); u.reset("main", hold);
        }, l, "register 'hold' must be a 1-bit register of domain 'main'");
        fails(m -> {
            m.domain(MAIN);
            Reg hold = m.reg("hold", 1, MAIN).init(1);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)).clock(MAIN).reset("main", hold);
            l.value = here(); u.reset("main", hold);
        }, l, "reset of domain 'main' of instance 'u' is already driven");
        fails(m -> {
            m.domain(MAIN);
            m.clockOnlyDomain(A);
            Reg src = m.reg("src", 1, MAIN).init(0);
            src.set(src.not());
            Reg hold = m.reg("hold", 1, A).powerUp(0);
            hold.set(hold);
            Instance u = m.instance("u", new ClockOnlyChild(), new ClockOnlyChild.Params(1)).clock("k", A);
            l.value = here(); u.reset("k", hold);
        }, l, "domain 'k' of instance 'u' (clock_only_w1) has no reset to drive");
    }

    @Test
    void pinsAndStreamsOfAChildAreLookedUpByName() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.pin("q");
        }, l, "direkt_skid_buffer_w8 has no data pin 'q' (it has [s_data, s_valid, s_ready, m_data, m_valid, m_ready])");
        fails(m -> {
            m.domain(MAIN);
            Instance u = m.instance("u", new SkidBuffer(), new SkidBuffer.Params(8));
            l.value = here(); u.stream("x");
        }, l, "direkt_skid_buffer_w8 has no stream port 'x' (it has [s, m])");
    }

    @Test
    void synchroniserStagesAndPowerUpValueAreChecked() {
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.domain(MAIN);
            m.domain(A);
            Reg src = m.reg("src", 2, MAIN).init(0);
            l.value = here(); Sync.bitsWithoutReset(m, "s", src, A, 1, 0);
        }, l, "synchroniser 's' has 1 stage(s): at least 2 flip-flops are needed against metastability");
        fails(m -> {
            m.domain(MAIN);
            m.domain(A);
            Reg src = m.reg("src", 2, MAIN).init(0);
            l.value = here(); Sync.bitsWithoutReset(m, "s", src, A, 2, 4);
        }, l, "synchroniser 's': power-up value 4 does not fit in the 2 bits of register 'src'");
        fails(m -> {
            m.domain(MAIN);
            m.domain(A);
            Reg src = m.reg("src", 2, MAIN).init(0);
            l.value = here(); Sync.bitsWithoutReset(m, "s", src, A, 2, -1);
        }, l, "power-up value -1 does not fit");
    }

    // ---------------------------------------------------------------- units

    /** A unit whose interface is one input and one output of its width, and whose logic inverts. */
    static final class Inverter extends Unit<Inverter.Params, Inverter.Io> {
        record Params(int width) {
        }

        record Io(Signal i, Signal o) {
        }

        @Override
        public String moduleName(Params p) {
            return "inv_w" + p.width();
        }

        @Override
        protected Io ports(Ports at, Params p) {
            ClockDomain cd = at.passThrough(MAIN);
            return new Io(at.in("i", p.width(), cd), at.out("o", p.width(), cd));
        }

        @Override
        protected void build(ModuleBuilder m, Params p, Io io) {
            io.o().set(io.i().not());
        }
    }

    @Test
    void aUnitsInterfaceRecordCarriesTheInstancePins() {
        var top = Lambda.build("top", m -> {
            m.passThroughDomain(MAIN);
            Signal a = m.input("a", 4, MAIN);
            Sub<Inverter.Io> inv = m.sub("inv", new Inverter(), new Inverter.Params(4)).clock(MAIN);
            inv.io().i().set(a);
            m.output("y", 4, MAIN).set(inv.io().o());
            assertEquals("inv_w4", inv.instance().child().name());
            assertEquals(Signal.Kind.INST_IN, inv.io().i().kind());
            assertEquals(Signal.Kind.INST_OUT, inv.io().o().kind());
        });
        assertEquals(List.of("a", "y"), top.ports().stream().map(Signal::name).toList());
        assertEquals(List.of("inv"), top.instances().stream().map(Instance::name).toList());
        Lambda.Line l = new Lambda.Line();
        fails(m -> {
            m.passThroughDomain(MAIN);
            m.wire("inv", 1);
            l.value = here(); m.sub("inv", new Inverter(), new Inverter.Params(4));
        }, l, "name 'inv' is already used in module dut");
    }

    /** A child with one domain that has a clock and no reset. */
    static final class ClockOnlyChild extends Generator<ClockOnlyChild.Params> {
        record Params(int width) {
        }

        @Override
        public String moduleName(Params p) {
            return "clock_only_w" + p.width();
        }

        @Override
        protected void build(ModuleBuilder m, Params p) {
            ClockDomain k = m.clockOnlyDomain(ClockDomain.of("k"));
            Reg r = m.reg("r", p.width(), k).powerUp(0);
            r.set(r.not());
            m.output("q", p.width(), k).set(r);
        }
    }
}
