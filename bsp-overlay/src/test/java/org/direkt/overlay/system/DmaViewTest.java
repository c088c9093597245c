// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The DMA-relevant part of real and synthetic systems: hard IP, controller, BARs, masters, clocks. */
class DmaViewTest {

    @TempDir
    Path tmp;

    private static DmaView view(Path qsys) throws Exception {
        return DmaView.of(SystemReader.read(qsys)).orElseThrow(() -> new AssertionError("no hard IP in " + qsys));
    }

    private static DmaView.Reach reach(List<DmaView.Reach> rs, String agent) {
        return rs.stream().filter(r -> r.agent().equals(agent)).findFirst()
                .orElseThrow(() -> new AssertionError(agent + " not reached: " + rs.stream().map(DmaView.Reach::agent).toList()));
    }

    private static DmaView.DmaMaster master(DmaView v, String name) {
        return v.dmaMasters().stream().filter(m -> m.master().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no DMA master " + name));
    }

    private static BigInteger hex(String h) {
        return new BigInteger(h, 16);
    }

    /** FACTS §9: the stock a10gx runs the internal controller; BAR0 is its registers, BAR4 everything else. */
    @Test
    void theRealA10gxBoard() throws Exception {
        DmaView v = view(Trees.a10gxBoard().resolve("board.qsys"));
        assertEquals("pcie", v.hardIp().name());
        assertEquals("altera_pcie_a10_hip", v.hardIp().kind());
        assertTrue(v.avalonMmDma(), v.dmaEvidence());

        DmaView.Controller c = v.controller();
        assertEquals(DmaView.Mode.INTERNAL, c.mode());
        assertEquals(Optional.empty(), c.instance());
        assertTrue(c.feeds().isEmpty());
        Path ip = Trees.a10gxBoard().resolve("ip/board/board_pcie.ip");
        assertEquals(Trees.lineOf(ip, null, "spirit:id=\"internal_controller_hwtcl\""), c.where().orElseThrow().line());

        assertEquals(List.of(0, 1, 2, 3, 4, 5), v.bars().stream().map(DmaView.Bar::index).toList());
        DmaView.Bar bar0 = v.bars().get(0);
        assertTrue(bar0.enabled() && bar0.prefetchable());
        assertEquals(64, bar0.bits());
        assertEquals(Optional.of(BigInteger.valueOf(512)), bar0.size());
        assertTrue(bar0.controllerRegisters());
        assertEquals(Optional.empty(), bar0.rxMaster());
        for (int n : List.of(1, 2, 3, 5)) {
            assertFalse(v.bars().get(n).enabled(), "BAR" + n);
        }
        DmaView.Bar bar4 = v.bars().get(4);
        assertEquals("64-bit prefetchable memory", bar4.type());
        assertEquals(Optional.of(BigInteger.valueOf(256 * 1024)), bar4.size());
        assertEquals(Optional.of("pcie.rxm_bar4"), bar4.rxMaster());
        assertFalse(bar4.controllerRegisters());
        DmaView.Reach host = bar4.agents().getFirst();
        assertEquals("pipe_stage_host_ctrl.s0", host.agent());
        assertEquals(BigInteger.ZERO, host.base());
        assertEquals(List.of(), host.via());
        // Behind the pipe stage, at the addresses host software uses (FACTS §9).
        assertEquals(hex("4000"), reach(bar4.agents(), "kernel_interface.ctrl").base());
        assertEquals(List.of("pipe_stage_host_ctrl"), reach(bar4.agents(), "kernel_interface.ctrl").via());
        assertEquals(hex("B000"), reach(bar4.agents(), "kernel_clk_gen.ctrl").base());
        assertEquals(hex("CFC0"), reach(bar4.agents(), "version_id.s").base());
        assertEquals(hex("10000"), reach(bar4.agents(), "memwindow.windowed_slave").base());
        assertEquals(List.of("pipe_stage_host_ctrl", "pipe_stage_pcie_to_memwindow_mem"), reach(bar4.agents(), "memwindow.windowed_slave").via());

        DmaView.DmaMaster rd = master(v, "pcie.dma_rd_master");
        assertEquals("read data mover", rd.role());
        assertEquals(hex("7FFFFFFF0000"), reach(rd.reaches(), "pcie.rd_dts_slave").base());
        assertEquals(Optional.of(BigInteger.valueOf(0x2000)), reach(rd.reaches(), "pcie.rd_dts_slave").span());
        assertEquals(hex("7FFFFFFF2000"), reach(rd.reaches(), "pcie.wr_dts_slave").base());
        DmaView.Reach ddr = reach(rd.reaches(), "memory_bank_divider_ddr4a.s");
        assertEquals(BigInteger.ZERO, ddr.base());
        assertEquals(List.of("pipe_stage_dma_rd_master", "pipe_stage_dma_rdwr_master", "pipe_stage_dma_rdwr_master_512"), ddr.via());
        assertEquals("write data mover", master(v, "pcie.dma_wr_master").role());
        assertEquals("pcie.txs", master(v, "pcie.rd_dcm_master").reaches().getFirst().agent());
        assertEquals(List.of("pcie.dma_rd_master", "pcie.dma_wr_master", "pcie.rd_dcm_master", "pcie.wr_dcm_master"),
                v.dmaMasters().stream().map(DmaView.DmaMaster::master).toList());

        DmaView.Clock k = v.kernelClock().orElseThrow();
        assertEquals("kernel_clk_gen.kernel_clk", k.clock());
        assertEquals(Optional.of("kernel_clk"), k.export());
        assertEquals(List.of("kernel_clk_export.clk"), k.through());
        assertEquals(Optional.of(100_000_000L), k.rateHz());
        DmaView.Clock app = v.applicationClock().orElseThrow();
        assertEquals("pcie.coreclkout_hip", app.clock());
        assertEquals(Optional.of(250_000_000L), app.rateHz());
    }

    @Test
    void aProSystemWithAnExternalController() throws Exception {
        DmaView v = view(Trees.resource("pro181_ref").resolve("board.qsys"));
        DmaView.Controller c = v.controller();
        assertEquals(DmaView.Mode.EXTERNAL, c.mode());
        assertEquals(Optional.of("dma_ctrl"), c.instance());
        assertEquals(List.of("dma_ctrl.rd_dts_desc -> pcie.rd_ast_rx", "dma_ctrl.wr_dts_desc -> pcie.wr_ast_rx"), c.feeds());

        DmaView.Bar bar0 = v.bars().get(0);
        assertEquals(32, bar0.bits());
        assertFalse(bar0.prefetchable());
        assertEquals(Optional.of(BigInteger.valueOf(4096)), bar0.size());
        assertFalse(bar0.controllerRegisters());
        assertEquals("dma_ctrl.csr", bar0.agents().getFirst().agent());
        DmaView.Bar bar2 = v.bars().get(2);
        assertEquals(Optional.of("pcie.rxm_bar2"), bar2.rxMaster());
        assertEquals(Optional.of(BigInteger.ONE.shiftLeft(28)), bar2.size());
        assertEquals(List.of("bar2_bridge.s0", "ddr.pcie_s0"), bar2.agents().stream().map(DmaView.Reach::agent).toList());
        assertEquals(List.of("bar2_bridge"), bar2.agents().get(1).via());

        assertEquals(hex("80000000"), reach(master(v, "pcie.dma_rd_master").reaches(), "dma_ctrl.rd_dts_slave").base());
        DmaView.Clock k = v.kernelClock().orElseThrow();
        assertEquals("kernel_pll.outclk0", k.clock());
        assertEquals(List.of("kernel_clk_bridge.out_clk"), k.through());
        assertEquals(Optional.of(300_000_000L), k.rateHz());
    }

    /** The descriptor controller comes first in the file; the hard IP is still the AVMM bridge. */
    @Test
    void aStandardStratix10StyleSystem() throws Exception {
        DmaView v = view(Trees.resource("standard_s10").resolve("board.qsys"));
        assertEquals("pcie", v.hardIp().name());
        assertTrue(v.avalonMmDma());
        assertEquals(DmaView.Mode.EXTERNAL, v.controller().mode());
        assertEquals(Optional.of("dma_ctrl"), v.controller().instance());
        DmaView.Bar bar2 = v.bars().get(2);
        assertEquals(Optional.of(BigInteger.ONE.shiftLeft(20)), bar2.size());
        assertEquals(hex("40000"), reach(bar2.agents(), "ocm.s1").base());
        assertEquals(List.of("mem_pipe"), reach(bar2.agents(), "ocm.s1").via());
        DmaView.Bar bar4 = v.bars().get(4);
        assertTrue(bar4.enabled());
        assertEquals(32, bar4.bits());
        assertEquals(Optional.empty(), bar4.rxMaster());
        assertEquals(hex("40000"), reach(master(v, "pcie.dma_wr_master").reaches(), "ocm.s1").base());
        assertEquals("kernel_clk_gen.outclk0", v.kernelClock().orElseThrow().clock());
        assertEquals(List.of("kernel_clk_out.clk"), v.kernelClock().orElseThrow().through());
        assertEquals(Optional.empty(), v.kernelClock().orElseThrow().rateHz());
    }

    @Test
    void theExampleBsp() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(root.resolve("examples/bsp/direkt_ref"))) {
            root = root.getParent();
        }
        DmaView v = view(root.resolve("examples/bsp/direkt_ref/hardware/direkt_ref/board.qsys"));
        assertEquals(DmaView.Mode.EXTERNAL, v.controller().mode());
        assertEquals(Optional.of("dma_desc"), v.controller().instance());
        assertTrue(v.bars().isEmpty());
        assertEquals(Optional.empty(), v.kernelClock());
        assertEquals("pcie.coreclkout_hip", v.applicationClock().orElseThrow().clock());
    }

    /** Descriptor controllers alone are not a hard IP. */
    @Test
    void descriptorControllersAreNotHardIps() throws Exception {
        Path qsys = tmp.resolve("ctl.qsys");
        Files.writeString(qsys, """
                <?xml version="1.0" encoding="UTF-8"?>
                <system name="ctl">
                 <module name="a" kind="altera_pcie_dma_desc_controller" version="18.1" enabled="1" />
                 <module name="b" kind="dma_control" version="18.1" enabled="1" />
                 <module name="c" kind="altera_pcie_s10_dma_controller" version="19.1" enabled="1" />
                </system>
                """);
        assertTrue(DmaView.of(SystemReader.read(qsys)).isEmpty());
    }

    /** With internal_controller_hwtcl = 0 and nothing feeding the movers, the view says so. */
    @Test
    void anExternalControllerThatNothingFeeds() throws Exception {
        Path qsys = tmp.resolve("hip.qsys");
        Files.writeString(qsys, """
                <?xml version="1.0" encoding="UTF-8"?>
                <system name="hip">
                 <module name="pcie" kind="altera_pcie_a10_hip" version="18.1" enabled="1">
                  <parameter name="interface_type_hwtcl" value="Avalon-MM" />
                  <parameter name="internal_controller_hwtcl" value="0" />
                 </module>
                </system>
                """);
        DmaView v = view(qsys);
        assertFalse(v.avalonMmDma());
        assertEquals(DmaView.Mode.EXTERNAL, v.controller().mode());
        assertEquals(Optional.empty(), v.controller().instance());
        assertTrue(v.controller().evidence().contains("nothing feeds"), v.controller().evidence());
        assertEquals(5, v.controller().where().orElseThrow().line());
    }
}
