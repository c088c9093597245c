// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Catalog;
import org.direkt.generators.stream.ReadyLatencyAdapter;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.Instance;
import org.direkt.hdl.Module;
import org.direkt.hdl.Signal;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/** The descriptor controller as the overlay and the host software see it: its interfaces, parameters and IDs. */
class HostDescControllerTest {

    private static Module top(HostDescController.Params p) {
        return new HostDescController().elaborate(p);
    }

    private static void refused(Supplier<?> build, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::get);
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' names " + part);
        }
    }

    /** Every port of the top, by name: direction and width, as the overlay's Platform Designer wiring expects them. */
    private static Map<String, String> ports(Module m) {
        Map<String, String> r = new LinkedHashMap<>();
        for (Signal s : m.ports()) {
            r.put(s.name(), s.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + s.width());
        }
        return r;
    }

    @Test
    void theTopHasTheInterfacesTheOverlayWiresByName() {
        Module m = top(HostDescController.Params.defaults());
        assertEquals("direkt_bridge_ctrl", m.name());
        assertEquals(List.of(), m.warnings());
        Map<String, String> want = new LinkedHashMap<>();
        want.put("regs_address", "input 7");
        want.put("regs_read", "input 1");
        want.put("regs_write", "input 1");
        want.put("regs_writedata", "input 32");
        want.put("regs_readdata", "output 32");
        want.put("dcm_address", "output 64");
        want.put("dcm_write", "output 1");
        want.put("dcm_writedata", "output 32");
        want.put("dcm_waitrequest", "input 1");
        for (String t : List.of("rd", "wr")) {
            want.put(t + "_dts_write", "input 1");
            want.put(t + "_dts_address", "input 8");
            want.put(t + "_dts_burstcount", "input 5");
            want.put(t + "_dts_writedata", "input 256");
            want.put(t + "_dma_status_valid", "input 1");
            want.put(t + "_dma_status_data", "input 32");
            want.put(t + "_dma_desc_data", "output 160");
            want.put(t + "_dma_desc_valid", "output 1");
            want.put(t + "_dma_desc_ready", "input 1");
            want.put(t + "_desc_data", "input 256");
            want.put(t + "_status_data", "output 64");
        }
        want.put("csr_address", "input 7");
        want.put("csr_readdatavalid", "output 1");
        Map<String, String> got = ports(m);
        want.forEach((name, what) -> assertEquals(what, got.get(name), name));
        for (String name : List.of("kernel_clk", "kernel_resetn", "dma_clk", "dma_resetn")) {
            assertTrue(got.containsKey(name), name);
        }
        // the hard IP's descriptor controller ports the controller replaces are not on the top
        for (String gone : List.of("rd_host_desc_data", "rd_host_status_valid", "wr_host_desc_valid", "rd_dts_waitrequest",
                "rd_dma_status_ready", "regs_waitrequest", "regs_readdatavalid")) {
            assertFalse(got.containsKey(gone), gone);
        }
    }

    @Test
    void theBridgeIsInsideWithItsHierarchyAndItsOwnPortsUnchanged() {
        HostDescController.Params p = HostDescController.Params.defaults();
        Module m = top(p);
        Instance bridge = m.instances().stream().filter(i -> i.name().equals("u_bridge")).findFirst().orElseThrow();
        assertEquals("direkt_bridge_f2", bridge.child().name(), "a bridge keeping table-fetch IDs is a module of its own");
        Module plain = new Bridge().elaborate(Bridge.Params.defaults());
        assertEquals("direkt_bridge", plain.name(), "the plain bridge keeps its name");
        // every kernel channel and CSR port of the bridge is a port of the top, same name, width and direction
        Map<String, String> top = ports(m);
        for (Signal s : bridge.child().ports()) {
            String n = s.name();
            if (n.contains("_host_") || n.contains("_dma_")) {
                continue;
            }
            assertEquals(ports(bridge.child()).get(n), top.get(n), n);
        }
        Map<String, String> files = VerilogEmitter.emit(m);
        assertTrue(files.containsKey("direkt_host_desc_front_e128"));
        assertTrue(files.containsKey("direkt_host_desc_rd_e128_f254"));
        assertTrue(files.containsKey("direkt_host_desc_wr_e128_f255"));
        // the direction paths take host descriptors at ready latency 0 from the front, without the host
        // buffer (the plain bridge's ready-latency 1 to 0 adapter): modules of their own; so are the
        // admission units and their status builders, which ignore the table fetches' statuses (every
        // mover status reaches the bridge); everything else below them is the plain bridge's
        Map<String, String> hostBuffer = VerilogEmitter.emit(new ReadyLatencyAdapter().elaborate(
                new ReadyLatencyAdapter.Params(Layout.MOVER_DESC.bits(), ReadyLatencyAdapter.Direction.RL1_TO_RL0)));
        assertTrue(files.keySet().stream().anyMatch(k -> k.startsWith("direkt_bridge_status_") && k.endsWith("_f2")), files.keySet().toString());
        assertTrue(files.keySet().stream().anyMatch(k -> k.startsWith("direkt_bridge_issue_rd_") && k.endsWith("_f2")), files.keySet().toString());
        assertTrue(files.keySet().stream().anyMatch(k -> k.startsWith("direkt_bridge_issue_wr_") && k.endsWith("_f2")), files.keySet().toString());
        List<String> below = VerilogEmitter.emit(plain).keySet().stream()
                .filter(k -> !k.equals("direkt_bridge") && !k.startsWith("direkt_bridge_rd_h") && !k.startsWith("direkt_bridge_wr_h")
                        && !k.startsWith("direkt_bridge_issue_") && !k.startsWith("direkt_bridge_status_")
                        && !hostBuffer.containsKey(k)).toList();
        assertTrue(files.keySet().containsAll(below), "with managed IDs every module below the bridge's paths is the plain bridge's");
        assertFalse(files.keySet().stream().anyMatch(hostBuffer::containsKey),
                "no host buffer (a ready-latency 1 to 0 adapter) inside the controller's bridge");
    }

    @Test
    void theDescriptorSourcesHaveTheHardIpsReadyLatency() {
        for (int n = HostDescController.MIN_READY_LATENCY; n <= HostDescController.MAX_READY_LATENCY; n++) {
            Module m = top(HostDescController.Params.defaults().withDescReadyLatency(n));
            assertEquals(List.of(), m.warnings());
            for (String t : List.of("rd", "wr")) {
                AvalonSt s = m.streams().get(t + "_dma_desc");
                assertEquals(n, s.readyLatency(), t + " at ready latency " + n);
                assertEquals(160, s.dataWidth());
            }
            String v = VerilogEmitter.emit(m).get("direkt_bridge_ctrl");
            // the bridge's ready-latency-1 source sees ready n - 1 flops late
            for (int i = 1; i <= 2; i++) {
                assertEquals(i < n, v.contains("rd_dma_desc_ready_d" + i), "ready latency " + n + ": delay flop " + i);
            }
        }
    }

    @Test
    void impossibleParametersNameTheParameterTheValueAndTheRule() {
        refused(() -> HostDescController.Params.defaults().withDescReadyLatency(0), "descReadyLatency = 0", "1..3");
        refused(() -> HostDescController.Params.defaults().withDescReadyLatency(4), "descReadyLatency = 4", "17.1");
        refused(() -> new HostDescController.Params(Bridge.Params.defaults(), 1), "bridge.tableFetchIds = 0", "must be 2",
                "254", "Params.of");
        refused(() -> new HostDescController.Params(null, 1), "bridge = null");
        refused(() -> HostDescController.Params.of(Bridge.Params.defaults().toBuilder().inflight(128).statusFifoDepth(128).build(), 1),
                "inflight = 128", "at most 126", "254..255");
        refused(() -> Bridge.Params.defaults().toBuilder().tableFetchIds(17).build(), "tableFetchIds = 17", "0..16");
        refused(() -> new HostDescFront.Params(2), "entries = 2", "power of two in 4..128");
        refused(() -> new HostDescFront.Params(256), "entries = 256");
        refused(() -> new HostDescSide.Params(BridgeModes.Direction.RD, 128, 127), "fetchId = 127", "kernel-range");
        refused(() -> new DescChecks.Params(BridgeModes.Direction.RD, BridgeModes.IdMode.MANAGED, true, 1L << 30, 2), "fetchIds = 2",
                "managed");
    }

    @Test
    void theTableFetchIdsAreCarvedFromTheKernelRangeAndTheManifestSaysSo() {
        HostDescController.Params p = HostDescController.Params.of(Bridge.Params.paper(), 1);
        assertEquals(254, HostDescFront.fetchId(BridgeModes.Direction.RD));
        assertEquals(255, HostDescFront.fetchId(BridgeModes.Direction.WR));
        assertEquals(254, p.bridge().tableFetchFirst());
        @SuppressWarnings("unchecked")
        Map<String, Object> ids = (Map<String, Object>) ((Map<String, Object>) HostDescController.manifest(p).get("layout")).get("ids");
        assertEquals(List.of(0, 127), ids.get("host"));
        assertEquals(List.of(128, 253), ids.get("kernel"));
        assertEquals(List.of(254, 255), ids.get("table_fetch"));
        // without the controller: the ranges of before, no table_fetch
        @SuppressWarnings("unchecked")
        Map<String, Object> plain = (Map<String, Object>) Manifest.layout(Bridge.Params.paper()).get("ids");
        assertEquals(List.of(128, 255), plain.get("kernel"));
        assertFalse(plain.containsKey("table_fetch"));
        // a paper-mode kernel descriptor naming 254 or 255 is refused (BAD_ID) by checks of their own
        Map<String, String> files = VerilogEmitter.emit(top(p));
        String checks = files.get("direkt_bridge_checks_rd_pid_cyc_mem200000000_f2");
        assertTrue(checks != null && checks.contains("8'd254"), "the paper checks refuse IDs from 254");
        assertFalse(files.containsKey("direkt_bridge_checks_rd_pid_cyc_mem200000000"));
        @SuppressWarnings("unchecked")
        Map<String, Object> c = (Map<String, Object>) HostDescController.manifest(p).get("controller");
        assertEquals("direkt_bridge_ctrl", c.get("top"));
        assertEquals(2, c.get("regs_read_latency"));
        assertEquals(128, c.get("table_entries"));
    }

    @Test
    void theSameConfigurationGivesTheSameBytes() {
        HostDescController.Params p = HostDescController.Params.of(Bridge.Params.lean(), 3);
        assertEquals(VerilogEmitter.emit(top(p)), VerilogEmitter.emit(top(p)));
        assertEquals(HostDescController.manifestJson(p), HostDescController.manifestJson(p));
    }

    @Test
    void theCommandLineTakesTheReadyLatencyAndTheBridgesParameters() {
        Module m = Catalog.build("host_desc_controller", Map.of("desc_ready_latency", "2", "preset", "paper", "instance", "b0"));
        assertEquals("b0_ctrl", m.name());
        assertEquals(2, m.streams().get("wr_dma_desc").readyLatency());
        refused(() -> Catalog.build("host_desc_controller", Map.of("desc_ready_latency", "1", "no_such_key", "1")), "no_such_key");
        refused(() -> Catalog.build("host_desc_controller", Map.of("table_fetch_ids", "0")), "bridge.tableFetchIds = 0");
        assertEquals("direkt_bridge_ctrl", Catalog.build("host_desc_controller", Map.of("table_fetch_ids", "2")).name());
    }

    @Test
    void everyRegisterHasAWordAndTheRestReadZero() {
        assertEquals(List.of("RC_BASE_LO", "RC_BASE_HI", "EP_BASE_LO", "EP_BASE_HI", "LAST_PTR", "TABLE_SIZE", "CONTROL", "INT_CONTROL"),
                HostDescSide.REGISTERS.subList(0, 8), "the hard IP's registers at 0x00..0x1C, in its order");
        assertTrue(HostDescSide.REGISTERS.size() <= 1 << HostDescSide.INDEX_BITS);
        assertEquals(0x100, 4 << (HostDescFront.REGS_ADDRESS_BITS - 1), "address bit 8 of the byte address picks the wr side");
    }
}
