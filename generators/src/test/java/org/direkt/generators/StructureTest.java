// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.fifo.AsyncFifo;
import org.direkt.generators.fifo.SyncFifo;
import org.direkt.generators.stream.ChannelPort;
import org.direkt.hdl.Module;
import org.direkt.hdl.Signal;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/** Structural promises a user relies on: crossings, names, timing isolation. */
class StructureTest {

    @Test
    void asyncFifoHasOneSubmodulePerDomainAndOnlyGrayPointersCross() {
        Module fifo = new AsyncFifo().elaborate(AsyncFifo.Params.of(160, 16));
        List<String> children = fifo.instances().stream().map(i -> i.name() + ":" + i.child().name()).toList();
        assertEquals(List.of("u_wr:direkt_async_fifo_wr_d16", "u_rd:direkt_async_fifo_rd_d16_r",
                "u_rd_ptr_sync:direkt_sync_w5_s2", "u_wr_ptr_sync:direkt_sync_w5_s2"), children);
        String top = VerilogEmitter.emit(fifo).get("direkt_async_fifo_w160_d16_r");
        assertTrue(top.contains(".d   (u_rd_rd_ptr_gray)"), top);
        assertTrue(top.contains(".d   (u_wr_wr_ptr_gray)"), top);
        assertTrue(fifo.instances().get(0).child().isRegisteredOutput("wr_ptr_gray"));
        assertTrue(fifo.instances().get(1).child().isRegisteredOutput("rd_ptr_gray"));
        assertTrue(fifo.isRegisteredOutput("m_data"), "registered output: m_data comes from the read-data register");
    }

    @Test
    void fifosNeverPassReadyOrValidCombinationally() {
        for (SyncFifo.Params p : List.of(SyncFifo.Params.of(8, 4), SyncFifo.Params.of(8, 4).withRegisteredOutput(true),
                SyncFifo.Params.of(8, 4).withShowAhead(false))) {
            Map<String, Set<String>> paths = new SyncFifo().elaborate(p).combPaths();
            assertEquals(Set.of(), paths.get("s_ready"), p + ": s_ready");
            assertEquals(Set.of(), paths.get("m_valid"), p + ": m_valid");
        }
        Map<String, Set<String>> async = new AsyncFifo().elaborate(AsyncFifo.Params.of(8, 4)).combPaths();
        assertEquals(Set.of(), async.get("s_ready"));
        assertEquals(Set.of(), async.get("m_valid"));
        assertEquals(Set.of(), async.get("m_data"));
    }

    @Test
    void channelPortCarriesTheKernelSystemNames() {
        ChannelPort.Channel c = new ChannelPort.Channel("direkt", "rdcldesc", ChannelPort.Type.STREAMSINK, 256, "rdcldesc");
        Module m = new ChannelPort().elaborate(ChannelPort.Params.of(c));
        List<String> ports = m.ports().stream().map(Signal::name).toList();
        assertEquals(List.of("kernel_clk", "kernel_resetn", "rdcldesc_data", "rdcldesc_valid", "rdcldesc_ready",
                "core_data", "core_valid", "core_ready"), ports);
        assertEquals(Signal.Kind.INPUT, m.port("rdcldesc_data").kind(), "streamsink: the kernel writes, the BSP takes");
        ChannelPort.Channel src = new ChannelPort.Channel("direkt", "rdclmstatus", ChannelPort.Type.STREAMSOURCE, 64, "rdclmstatus");
        Module s = new ChannelPort().elaborate(new ChannelPort.Params(src, ChannelPort.KERNEL, false));
        assertEquals(Signal.Kind.OUTPUT, s.port("rdclmstatus_data").kind(), "streamsource: the BSP feeds the kernel");
        assertEquals(64, s.port("rdclmstatus_data").width());
        assertEquals(Set.of("core_data"), s.combPaths().get("rdclmstatus_data"), "unregistered: a plain connection");
    }

    @Test
    void arbiterBoundsFollowThePolicy() {
        assertEquals(2, Arbiter.Params.roundRobin(3).waitBound(0));
        assertEquals(3, Arbiter.Params.weighted(4, 2, 1).waitBound(0));
        assertEquals(5, Arbiter.Params.weighted(4, 2, 1).waitBound(1));
        assertEquals(Integer.MAX_VALUE, Arbiter.Params.fixed(2).waitBound(1));
        Module rr = new Arbiter().elaborate(Arbiter.Params.roundRobin(3));
        assertEquals(Set.of("req"), rr.combPaths().get("grant"),
                "a free arbiter grants in the cycle the request arrives; done only acts at the clock edge");
    }
}
