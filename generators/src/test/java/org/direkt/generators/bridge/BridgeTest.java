// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.Layout;
import org.direkt.generators.Catalog;
import org.direkt.generators.arb.Arbiter;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Module;
import org.direkt.hdl.Signal;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/** The bridge as its users see it: ports, parameters, the Layout and the manifest. */
class BridgeTest {

    private static Bridge.Params with(Map<String, String> overrides) {
        return Catalog.bridgeParams(new Catalog.Args("bridge", overrides));
    }

    @Test
    void kernelSidePortsAreNamedAsTheKernelSystemNamesThemAndDmaSidePortsMirrorTheMovers() {
        Module top = new Bridge().elaborate(Bridge.Params.defaults());
        assertEquals(List.of(), top.warnings());
        for (String t : List.of("rd", "wr")) {
            assertEquals(256, top.port(t + "_desc_data").width());
            assertEquals(Signal.Kind.INPUT, top.port(t + "_desc_valid").kind(), "streamsink: the kernel writes");
            assertEquals(64, top.port(t + "_status_data").width());
            assertEquals(Signal.Kind.OUTPUT, top.port(t + "_status_valid").kind(), "streamsource: the kernel reads");
            assertEquals(160, top.port(t + "_dma_desc_data").width(), "the movers' 160-bit descriptor");
            assertEquals(Signal.Kind.INPUT, top.port(t + "_dma_desc_ready").kind());
            assertEquals(32, top.port(t + "_dma_status_data").width());
            assertEquals(160, top.port(t + "_host_desc_data").width());
            assertEquals(32, top.port(t + "_host_status_data").width());
        }
        List<String> names = top.ports().stream().map(Signal::name).toList();
        assertFalse(names.contains("rd_dma_status_ready"), "the mover's status has no ready");
        assertFalse(names.contains("rd_host_status_ready"), "nor has the status passed back to the host");
        assertTrue(names.containsAll(List.of("kernel_clk", "kernel_resetn", "dma_clk", "dma_resetn", "csr_address", "csr_readdatavalid")));
    }

    @Test
    void everyKernelPortIsAChannelPairOfItsOwnOnTheTopTheBoardAndTheManifest() {
        Bridge.Params p = with(Map.of("preset", "regions", "ports", "4"));
        Module top = new Bridge().elaborate(p);
        assertEquals(List.of(), top.warnings());
        List<String> names = top.ports().stream().map(Signal::name).toList();
        for (String t : List.of("rd", "wr")) {
            for (String pre : List.of(t, t + "_p1", t + "_p2", t + "_p3")) {
                assertEquals(256, top.port(pre + "_desc_data").width());
                assertEquals(64, top.port(pre + "_status_data").width());
            }
            assertFalse(names.contains(t + "_p4_desc_data"));
        }
        List<String> ids = p.channelIds();
        assertEquals(16, ids.size());
        assertEquals(List.of("direkt_rd_desc", "direkt_rd_status", "direkt_wr_desc", "direkt_wr_status",
                "direkt_rd_desc_p1", "direkt_rd_status_p1", "direkt_wr_desc_p1", "direkt_wr_status_p1"), ids.subList(0, 8));
        assertEquals("direkt_bridge_wr_p3_status", p.boardPort(p.channelList().getLast()));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> channels = (List<Map<String, Object>>) Manifest.bridge(p).get("channels");
        assertEquals(16, channels.size());
        assertEquals(3, channels.getLast().get("kernel_port"));
        assertEquals("direkt_wr_status_p3", channels.getLast().get("chan_id"));
        assertEquals(4, Manifest.bridge(p).get("ports"));
        // one port: the bridge of before, its Verilog unchanged by the port parameters
        Bridge.Params one = Bridge.Params.regionsPreset();
        assertEquals(VerilogEmitter.emit(new Bridge().elaborate(one)).keySet(),
                VerilogEmitter.emit(new Bridge().elaborate(one.toBuilder().portCredits(16).portPolicy(Arbiter.Policy.FIXED_PRIORITY).build())).keySet());
    }

    @Test
    void resetPolarityOfTheDmaDomainIsAParameter() {
        Module top = new Bridge().elaborate(with(Map.of("reset", "active_high")));
        List<String> names = top.ports().stream().map(Signal::name).toList();
        assertTrue(names.contains("dma_rst") && !names.contains("dma_resetn"), names.toString());
        String rd = top.instances().stream().filter(i -> i.name().equals("u_rd")).findFirst().orElseThrow().child().name();
        String v = VerilogEmitter.emit(top).get(rd);
        // Each crossing FIFO's DMA side takes dma_rst as it is; the descriptor FIFO's kernel side the inverted kernel reset.
        assertTrue(connects(v, "u_desc_fifo", "rd_rst", "dma_rst"), v);
        assertTrue(connects(v, "u_desc_fifo", "wr_rst", "~kernel_resetn"), v);
        assertTrue(connects(v, "u_status_fifo", "wr_rst", "dma_rst"), v);
        assertFalse(v.contains("dma_resetn"), "no active-low DMA reset is left in the path");
    }

    @Test
    void theSameConfigurationGivesTheSameBytes() {
        Map<String, String> a = VerilogEmitter.emit(new Bridge().elaborate(Bridge.Params.paper()));
        Map<String, String> b = VerilogEmitter.emit(new Bridge().elaborate(Bridge.Params.paper()));
        assertEquals(a, b);
        assertEquals(Manifest.json(Bridge.Params.paper()), Manifest.json(Bridge.Params.paper()));
    }

    @Test
    void impossibleParametersNameTheParameterTheValueAndTheRule() {
        record Case(Map<String, String> params, String message) {
        }
        for (Case c : List.of(
                new Case(Map.of("inflight", "0"), "Bridge inflight = 0: must be in 1..128 (kernel IDs are 128..255)"),
                new Case(Map.of("inflight", "129"), "Bridge inflight = 129: must be in 1..128"),
                new Case(Map.of("inflight", "32"), "Bridge statusFifoDepth = 16: must be a power of two >= max(4, inflight = 32)"),
                new Case(Map.of("desc_depth", "12"), "Bridge descFifoDepth = 12: must be a power of two in 4..1024"),
                new Case(Map.of("windows", "0"), "Bridge windowEntries = 0: must be in 1..32"),
                new Case(Map.of("windows", "33"), "Bridge windowEntries = 33: must be in 1..32"),
                new Case(Map.of("sync_stages", "1"), "Bridge syncStages = 1: must be in 2..8"),
                new Case(Map.of("fpga_mem", "4097"), "Bridge fpgaMemBytes = 4097: must be a multiple of 4, at least 4096"),
                new Case(Map.of("fpga_mem", "2048"), "Bridge fpgaMemBytes = 2048: must be a multiple of 4, at least 4096"),
                new Case(Map.of("fpga_mem", "lots"), "bridge fpga_mem = lots: must be a byte count"),
                new Case(Map.of("rd_status", "direkt_rd_desc"), "Bridge channels = [direkt_rd_desc, direkt_rd_desc, direkt_wr_desc, direkt_wr_status]: the four channel ids must differ"),
                new Case(Map.of("wr_desc", "9lives"), "Bridge channels = 9lives: a channel id must be an identifier"),
                new Case(Map.of("policy", "weighted"), "Arbiter weights = []: WEIGHTED needs one weight per requester (2)"),
                new Case(Map.of("preset", "fast"), "bridge preset = fast: must be one of [default, paper, lean, regions]"),
                new Case(Map.of("id_mode", "auto"), "bridge id_mode = auto: must be one of [managed, paper]"),
                new Case(Map.of("preset", "regions", "id_mode", "paper"), "Bridge idMode = PAPER: must be MANAGED with addressing=regions"),
                new Case(Map.of("preset", "regions", "status_mode", "cycles"), "Bridge statusMode = CYCLES: must be TAGGED with addressing=regions"),
                new Case(Map.of("preset", "regions", "inflight", "32", "status_depth", "32"), "Bridge inflight = 32: must be in 1..16 with addressing=regions"),
                new Case(Map.of("preset", "regions", "bringup", "true"), "Bridge bringup = true: is not available with addressing=regions yet"),
                new Case(Map.of("preset", "regions", "region_pages", "1000"), "Bridge regionPages = 1000: must be a power of two in 16..65536"),
                new Case(Map.of("preset", "regions", "regions", "65"), "Bridge regions = 65: must be in 1..64"),
                new Case(Map.of("addressing", "virtual"), "bridge addressing = virtual: must be one of [raw, regions]"),
                new Case(Map.of("ports", "9"), "Bridge ports = 9: must be in 1..8"),
                new Case(Map.of("ports", "0"), "Bridge ports = 0: must be in 1..8"),
                new Case(Map.of("ports", "4", "port_credits", "3"), "Bridge portCredits = 3: must be a power of two in 2..16"),
                new Case(Map.of("ports", "4", "port_policy", "weighted", "port_weights", "1,2"),
                        "Arbiter weights = [1, 2]: WEIGHTED needs one weight per requester (4)"),
                new Case(Map.of("preset", "paper", "ports", "2"), "Bridge ports = 2: needs status_mode=tagged and id_mode=managed"),
                new Case(Map.of("ports", "2", "rd_status", "direkt_rd_desc_p1"),
                        "Bridge channels = [direkt_rd_desc, direkt_rd_desc_p1, direkt_wr_desc, direkt_wr_status, direkt_rd_desc_p1"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> with(c.params()), c.params().toString());
            assertTrue(e.getMessage().startsWith(c.message()), "got: " + e.getMessage() + "\nwanted: " + c.message());
        }
    }

    @Test
    void thePaperPresetIsThePublishedDesign() {
        Bridge.Params p = Bridge.Params.paper();
        assertEquals(List.of("rdcldesc", "rdclmstatus", "wrcldesc", "wrclmstatus"), p.channels().all());
        assertEquals(BridgeModes.IdMode.PAPER, p.idMode());
        assertEquals(BridgeModes.StatusMode.CYCLES, p.statusMode());
        assertEquals(Arbiter.Policy.FIXED_PRIORITY, p.policy(), "the published priority encoder");
        assertEquals(ClockDomain.ResetPolarity.ACTIVE_LOW, p.dmaResetPolarity());
    }

    @Test
    void cldescPacksX4AsThePublishedKernelDoes() {
        int id = 130;
        int bytes = 4096;
        BigInteger cl = Layout.CLDESC.pack(Map.of("src_lo", 0x1000L, "src_hi", 0x2L, "dst_lo", 0x40L, "dwords", bytes >> 2, "id", id));
        long[] x = Layout.cldescWords(cl);
        assertEquals(0x1000L, x[0]);
        assertEquals(0x2L, x[1]);
        assertEquals(0x40L, x[2]);
        assertEquals(((long) id << 18) | (bytes >> 2), x[4], "x4 = (id << 18) | (bytes >> 2)");
        assertEquals(0L, x[5] | x[6] | x[7]);
        assertEquals(BigInteger.valueOf(bytes >> 2), Layout.CLDESC.unpack(cl).get("dwords"));
    }

    /**
     * The Avalon-MM DMA hard IP's 160-bit descriptor, written out from its user guide's table (source
     * low/high at [31:0]/[63:32], destination at [95:64]/[127:96], dwords at [145:128], ID at
     * [153:146], [159:154] reserved) as 32-bit words the way the IP's sink receives them: Layout
     * must pack to exactly those bits and read them back.
     */
    @Test
    void moverDescriptorFieldsSitWhereTheHardIpExpectsThem() {
        long src = 0xFFFF_0000_0000_1000L;
        long dst = 0x0000_0012_3456_7800L;
        int dwords = (1 << 18) - 1;
        int id = 200;
        // words 0..3: source low, source high, destination low, destination high; word 4: [145:128]
        // the dwords in its bits 0..17, [153:146] the ID in its bits 18..25, the rest reserved
        int[] words = {0x0000_1000, 0xFFFF_0000, 0x3456_7800, 0x0000_0012, dwords | (id << 18)};
        BigInteger hardIp = BigInteger.ZERO;
        for (int i = 4; i >= 0; i--) {
            hardIp = hardIp.shiftLeft(32).or(BigInteger.valueOf(Integer.toUnsignedLong(words[i])));
        }
        Layout.Word d = Layout.MOVER_DESC;
        assertEquals(160, d.bits(), "the movers' descriptor sink is 160 bits wide");
        BigInteger packed = d.pack(Map.of("src", src, "dst", dst, "dwords", dwords, "id", id));
        assertEquals(hardIp.toString(16), packed.toString(16));
        assertEquals(new BigInteger("FFFF000000001000", 16), d.field("src").get(hardIp), "a long address is unsigned");
        assertEquals(dst, d.field("dst").getLong(hardIp));
        assertEquals(dwords, d.field("dwords").getLong(hardIp));
        assertEquals(id, d.field("id").getLong(hardIp));
        assertEquals(0, hardIp.shiftRight(154).signum(), "[159:154] reserved stay 0");
        assertEquals((1 << 18) - 1, Layout.MAX_DWORDS, "1 MB - 4 B in dwords, the most [145:128] holds");
    }

    @Test
    void aValueTooWideForItsFieldIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Layout.CLDESC.pack(Map.of("dwords", 1 << 18)));
        assertEquals("cldesc.dwords = 262144 does not fit in 18 bits", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Layout.CLDESC.field("length"));
    }

    @Test
    void wordsMustCoverEveryBitExactlyOnce() {
        IllegalStateException overlap = assertThrows(IllegalStateException.class, () -> new Layout.Word("w", 8,
                List.of(new Layout.Field("a", 0, 5, ""), new Layout.Field("b", 4, 4, ""))));
        assertEquals("w.b overlaps or leaves the word at bit 4", overlap.getMessage());
        IllegalStateException gap = assertThrows(IllegalStateException.class, () -> new Layout.Word("w", 8,
                List.of(new Layout.Field("a", 0, 4, ""))));
        assertEquals("w bit 4 belongs to no field", gap.getMessage());
    }

    @Test
    void theManifestCarriesTheLayoutTheChannelsAndTheCsrMap() {
        String json = Manifest.json(Bridge.Params.defaults());
        assertTrue(json.startsWith("{\n  \"format\": \"direkt-overlay\",\n  \"format_version\": 1,"), json.substring(0, 80));
        assertTrue(json.contains("\"dwords\": {\n            \"lsb\": 128,\n            \"width\": 18,"), "cldesc dwords from the Layout");
        assertTrue(json.contains("\"chan_id\": \"direkt_rd_desc\""));
        assertTrue(json.contains("\"mover_status_confirmed\": false"), "the unconfirmed status format is flagged");
        int ctrl = Layout.CSR_WINDOW_REGS.indexOf("CTRL");
        int size = Layout.CSR_WINDOW_REGS.indexOf("SIZE");
        assertTrue(json.contains("\"name\": \"WIN3_CTRL\",\n          \"offset\": " + (Layout.CSR_WINDOW_OFFSET + 3 * Layout.CSR_WINDOW_STRIDE + ctrl)));
        assertTrue(json.contains("\"name\": \"WIN3_SIZE\",\n          \"offset\": " + (Layout.CSR_WINDOW_OFFSET + 3 * Layout.CSR_WINDOW_STRIDE + size)));
        assertFalse(json.contains("WIN4_"), "four windows by default");
        assertTrue(json.contains("\"read_latency\": " + Layout.CSR_READ_LATENCY));
        assertTrue(json.contains("\"name\": \"ALARMS\""), "the sticky alarms register");
        for (Layout.Error e : Layout.Error.values()) {
            assertTrue(json.contains("\"" + e.name() + "\": {\n        \"code\": " + e.code()), e.name());
        }
        assertFalse(json.contains("\r"), "LF line ends");
    }

    @Test
    void csrRegistersNeverShareAnOffset() {
        for (int e : new int[] {1, 32}) {
            List<Layout.CsrReg> regs = Layout.csrMap(e, true, true);
            assertEquals(regs.size(), regs.stream().map(Layout.CsrReg::offset).distinct().count(), e + " windows: " + regs);
            int aw = BridgeCsr.addressWidth(e);
            assertTrue(regs.stream().allMatch(r -> r.offset() < (1 << aw)), e + " windows: every register is addressable");
        }
    }

    /** Whether instance {@code inst} in Verilog text {@code v} connects its port {@code port} to exactly {@code net}. */
    private static boolean connects(String v, String inst, String port, String net) {
        int at = v.indexOf(" " + inst + " (");
        if (at < 0) {
            return false;
        }
        String body = v.substring(at, v.indexOf(");", at));
        return java.util.regex.Pattern.compile("\\." + port + "\\s+\\(" + java.util.regex.Pattern.quote(net) + "\\)")
                .matcher(body).find();
    }
}
