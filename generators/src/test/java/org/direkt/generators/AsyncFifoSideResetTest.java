// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.hdl.Module;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/**
 * The async FIFO that tolerates one side's reset ({@code sideReset}, {@code _sr}): in every
 * combination of registered output, write-side read pointer and lookahead, no register of it is
 * cleared by a reset (each has a power-up value instead), the only crossings are the two Gray
 * pointers and wr_rst, and the reset contract is in the module's comment. formal/async_fifo_sr.sv
 * proves the behaviour.
 */
class AsyncFifoSideResetTest {
    private static final Pattern REG = Pattern.compile("^\\s+(?:\\(\\*.*\\*\\) )?reg\\s+(?:\\[\\d+:0\\]\\s+)?(\\w+)( = [^;]+)?( \\[0:\\d+\\])?;",
            Pattern.MULTILINE);

    private static List<AsyncFifo.Params> everyCombination() {
        List<AsyncFifo.Params> r = new ArrayList<>();
        for (boolean registered : new boolean[] {false, true}) {
            for (boolean readPointer : new boolean[] {false, true}) {
                for (boolean lookahead : new boolean[] {false, true}) {
                    r.add(new AsyncFifo.Params(16, 8, 2, registered, readPointer, lookahead, true));
                }
            }
        }
        return r;
    }

    @Test
    void noResetClearsAnyRegisterInAnyCombination() {
        for (AsyncFifo.Params p : everyCombination()) {
            Module fifo = new AsyncFifo().elaborate(p);
            assertEquals(List.of(), fifo.warnings(), p.toString());
            assertTrue(fifo.name().endsWith("_sr"), fifo.name());
            for (Map.Entry<String, String> e : VerilogEmitter.emit(fifo).entrySet()) {
                String v = e.getValue();
                assertFalse(v.contains("if (wr_rst)") || v.contains("if (rd_rst)") || v.contains("if (rst)"),
                        e.getKey() + " has a reset branch:\n" + v);
                Matcher m = REG.matcher(v);
                while (m.find()) {
                    boolean dataOnly = m.group(1).equals("rd_data_q") || m.group(3) != null;
                    assertTrue(dataOnly || m.group(2) != null, e.getKey() + ": register " + m.group(1) + " has no power-up value");
                }
            }
        }
    }

    @Test
    void onlyTheGrayPointersAndTheWriteResetCross() {
        Module fifo = new AsyncFifo().elaborate(AsyncFifo.Params.of(160, 16).withSideReset());
        assertEquals("direkt_async_fifo_w160_d16_r_sr", fifo.name());
        List<String> children = fifo.instances().stream().map(i -> i.name() + ":" + i.child().name()).toList();
        assertEquals(List.of("u_wr:direkt_async_fifo_wr_d16_sr", "u_rd:direkt_async_fifo_rd_d16_r_sr",
                "u_rd_ptr_sync:direkt_sync_w5_s2_pu0", "u_wr_ptr_sync:direkt_sync_w5_s2_pu0",
                "u_wr_rst_sync:direkt_sync_w1_s2_pu0"), children);
        String top = VerilogEmitter.emit(fifo).get("direkt_async_fifo_w160_d16_r_sr");
        assertTrue(top.contains(".d   (u_rd_rd_ptr_gray)"), top);
        assertTrue(top.contains(".d   (u_wr_wr_ptr_gray)"), top);
        assertTrue(top.contains(".d   (wr_rst)"), top);
        assertTrue(top.contains("assign rd_wr_rst = u_wr_rst_sync_q;"), top);
        assertTrue(fifo.instances().get(0).child().isRegisteredOutput("wr_ptr_gray"));
        assertTrue(fifo.instances().get(1).child().isRegisteredOutput("rd_ptr_gray"));
    }

    @Test
    void theModuleCommentStatesTheResetContract() {
        String top = VerilogEmitter.emit(new AsyncFifo().elaborate(AsyncFifo.Params.of(160, 16).withSideReset()))
                .get("direkt_async_fifo_w160_d16_r_sr");
        String doc = String.join(" ", top.lines().takeWhile(l -> l.startsWith("//")).map(l -> l.replaceFirst("^//\\s?", "")).toList());
        for (String promise : List.of("Reset: either side alone, at any time.", "While wr_rst is high s_ready is low.",
                "rd_wr_rst is wr_rst synchronised to rd_clk", "wr_rst must come from a flip-flop.")) {
            assertTrue(doc.contains(promise), "module comment lacks '" + promise + "':\n" + doc);
        }
    }

    @Test
    void theSameFifoWithoutSideResetKeepsItsNameAndPorts() {
        AsyncFifo.Params plain = new AsyncFifo.Params(64, 16, 2, false, true, true);
        Module m = new AsyncFifo().elaborate(plain);
        assertEquals("direkt_async_fifo_w64_d16_p_la", m.name());
        assertEquals(null, m.port("rd_wr_rst"));
        Module sr = new AsyncFifo().elaborate(plain.withSideReset());
        assertEquals("direkt_async_fifo_w64_d16_p_la_sr", sr.name());
        assertEquals(m.ports().stream().map(p -> p.name()).toList(),
                sr.ports().stream().map(p -> p.name()).filter(n -> !n.equals("rd_wr_rst")).toList());
    }
}
