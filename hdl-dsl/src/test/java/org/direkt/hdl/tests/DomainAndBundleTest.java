// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import static org.direkt.hdl.tests.Lambda.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Module;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Sync;
import org.direkt.hdl.VerilogEmitter;
import org.direkt.hdl.examples.GrayCrossing;
import org.direkt.hdl.lib.SkidBuffer;
import org.junit.jupiter.api.Test;

/** Clock domains and Avalon-ST bundles, seen from the designer's side. */
class DomainAndBundleTest {

    @Test
    void crossingThroughTheSynchroniserElaboratesCleanly() {
        Module m = new GrayCrossing().elaborate(new GrayCrossing.Params(4, 2));
        assertEquals(List.of(), m.warnings());
        assertEquals(List.of("a", "b"), m.domains().stream().map(ClockDomain::name).toList());
        assertEquals(1, m.instances().size());
        assertEquals("direkt_sync_w4_s2", m.instances().getFirst().child().name());
    }

    @Test
    void activeHighChildInAnActiveLowParentGetsAnInvertedReset() {
        ClockDomain k = ClockDomain.of("k").withPorts("k_clk", "k_rst_n").withPolarity(ClockDomain.ResetPolarity.ACTIVE_LOW);
        Module m = Lambda.build("dut", mb -> {
            mb.domain(k);
            Stream in = mb.stream("s", AvalonSt.source(8).flip(), k);
            Stream out = mb.stream("m", AvalonSt.source(8), k);
            var u = mb.instance("u", new SkidBuffer(), new SkidBuffer.Params(8)).clock(k);
            mb.connect(in, u.stream("s"));
            mb.connect(u.stream("m"), out);
        });
        assertEquals(List.of(), m.warnings());
        String v = VerilogEmitter.emit(m).get("dut");
        assertTrue(v.contains("(~k_rst_n)"), v);
        assertTrue(v.contains("(k_clk)"), v);
    }

    @Test
    void synchronisedValueBelongsToTheDestinationDomain() {
        ClockDomain a = ClockDomain.of("a");
        ClockDomain b = ClockDomain.of("b");
        Module m = Lambda.build("dut", mb -> {
            mb.domain(a);
            mb.domain(b);
            Signal x = mb.input("a_x", 3, a);
            Reg ra = mb.reg("ra", 3, a).init(0);
            ra.set(x);
            Signal q = Sync.bits(mb, "u_sync", ra, b, 3);
            Reg rb = mb.reg("rb", 3, b).init(0);
            rb.set(q);
            mb.output("b_o", 3, b).set(rb);
        });
        assertEquals(List.of(), m.warnings());
        String v = VerilogEmitter.emit(m).get("dut");
        assertTrue(v.contains("direkt_sync_w3_s3 u_sync ("), v);
        assertTrue(v.contains(".clk (b_clk)"), v);
        assertTrue(v.contains(".d   (ra)"), v);
    }

    @Test
    void activeLowAsyncDomainsGetTheirOwnSynchroniserCell() {
        ClockDomain a = ClockDomain.of("a");
        ClockDomain k = ClockDomain.of("k").withPorts("k_clk", "k_rst_n")
                .withPolarity(ClockDomain.ResetPolarity.ACTIVE_LOW).withKind(ClockDomain.ResetKind.ASYNC);
        Module m = Lambda.build("dut", mb -> {
            mb.domain(a);
            mb.domain(k);
            Reg ra = mb.reg("ra", 1, a).init(0);
            ra.set(mb.input("a_x", 1, a));
            Reg rk = mb.reg("rk", 1, k).init(0);
            rk.set(Sync.bits(mb, "u_sync", ra, k, 2));
            mb.output("k_o", 1, k).set(rk);
        });
        Map<String, String> files = VerilogEmitter.emit(m);
        String cell = files.get("direkt_sync_w1_s2_rna");
        assertTrue(cell.contains("always @(posedge clk or negedge rst_n) begin"), cell);
        assertTrue(files.get("dut").contains(".rst_n (k_rst_n)"), files.get("dut"));
    }

    @Test
    void flippingTwiceGivesTheSameDeclaration() {
        AvalonSt src = AvalonSt.source(256, 1);
        assertEquals(AvalonSt.Side.SINK, src.flip().side());
        assertEquals(src, src.flip().flip());
        assertEquals(256, src.flip().dataWidth());
        assertEquals(1, src.flip().readyLatency());
    }

    @Test
    void impossibleBundlesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AvalonSt.source(0));
        assertEquals("Avalon-ST dataWidth 0: must be >= 1", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> AvalonSt.source(8, -1));
        assertEquals("Avalon-ST readyLatency -1: must be in 0..8", e.getMessage());
    }

    @Test
    void streamPortsAreNamedAsTheKernelSystemNamesThem() {
        Module m = new SkidBuffer().elaborate(new SkidBuffer.Params(32));
        List<String> names = m.ports().stream().map(Signal::name).toList();
        assertEquals(List.of("clk", "rst", "s_data", "s_valid", "s_ready", "m_data", "m_valid", "m_ready"), names);
        assertEquals(Signal.Kind.INPUT, m.port("s_data").kind());
        assertEquals(Signal.Kind.OUTPUT, m.port("s_ready").kind());
        assertEquals(Signal.Kind.OUTPUT, m.port("m_data").kind());
        assertEquals(Signal.Kind.INPUT, m.port("m_ready").kind());
        assertEquals(32, m.port("m_data").width());
        assertEquals(AvalonSt.Side.SINK, m.streams().get("s").side());
        assertEquals(AvalonSt.Side.SOURCE, m.streams().get("m").side());
    }

    @Test
    void registerSliceCutsEveryCombinationalPath() {
        Module m = new SkidBuffer().elaborate(new SkidBuffer.Params(8));
        for (Set<String> ins : m.combPaths().values()) {
            assertEquals(Set.of(), ins, "a register slice has no input-to-output combinational path");
        }
    }

    @Test
    void connectingStreamsDrivesDataValidForwardAndReadyBack() {
        Module m = Lambda.build("wrap", mb -> {
            mb.domain(MAIN);
            Stream in = mb.stream("s", AvalonSt.source(8).flip(), MAIN);
            Stream out = mb.stream("m", AvalonSt.source(8), MAIN);
            mb.connect(in, out);
        });
        String v = VerilogEmitter.emit(m).get("wrap");
        assertTrue(v.contains("assign m_data = s_data;"), v);
        assertTrue(v.contains("assign m_valid = s_valid;"), v);
        assertTrue(v.contains("assign s_ready = m_ready;"), v);
        assertEquals(Set.of("s_data"), m.combPaths().get("m_data"));
        assertEquals(Set.of("m_ready"), m.combPaths().get("s_ready"));
    }

    @Test
    void clockDomainRecordRefusesImpossibleNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ClockDomain("x", "clk", "clk", ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC));
        assertEquals("domain x: clock and reset share the name clk", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClockDomain.of("9lives"));
        assertTrue(e.getMessage().contains("'9lives' is not a legal Verilog identifier"), e.getMessage());
    }
}
