// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/**
 * Reading Platform Designer systems into one model: the real a10gx board (Pro 16.1, SPIRIT 2009
 * .ip files), direkt's own Pro 18.1 system (IP-XACT 2014 .ip files, one under a directory with a space
 * in its name), a Standard system, and the example BSP's Standard system.
 */
class SystemReaderTest {

    private static Instance instance(SystemModel m, String name) {
        return m.instance(name).orElseThrow(() -> new AssertionError("no instance " + name + " in " + m.file()));
    }

    private static Interface iface(SystemModel m, String qualified) {
        return m.iface(qualified).orElseThrow(() -> new AssertionError("no interface " + qualified + " in " + m.file()));
    }

    @Test
    void theRealA10gxBoardSystem() throws Exception {
        Path qsys = Trees.a10gxBoard().resolve("board.qsys");
        SystemModel m = SystemReader.read(qsys);
        assertEquals("board", m.name());
        assertEquals(SystemModel.Edition.PRO, m.edition());
        assertEquals(Optional.of("16.1"), m.toolVersion());
        assertEquals(26, m.instances().size());
        assertEquals(82, m.connections().size());
        assertEquals(21, m.exports().size());

        // The generic components' real IP types come from their componentDefinition.
        Instance pcie = instance(m, "pcie");
        assertEquals("altera_pcie_a10_hip", pcie.kind());
        assertEquals("16.1", pcie.version());
        assertEquals("altera_clock_bridge", instance(m, "config_clk").kind());
        assertEquals("altera_avalon_mm_bridge", instance(m, "pipe_stage_host_ctrl").kind());
        assertEquals(Trees.lineOf(qsys, null, "name=\"pcie\""), pcie.where().line());

        // Its parameters come from its .ip file, each with its line there.
        Path ip = Trees.a10gxBoard().resolve("ip/board/board_pcie.ip");
        assertEquals(Optional.of(ip.normalize()), pcie.ipFile().map(Path::normalize));
        assertEquals(Optional.of("1"), pcie.parameter("internal_controller_hwtcl"));
        assertEquals(Optional.of("Avalon-MM with DMA"), pcie.parameter("interface_type_hwtcl"));
        Where w = pcie.parameterWhere().get("internal_controller_hwtcl");
        assertEquals(ip.normalize(), w.file().normalize());
        assertEquals(Trees.lineOf(ip, null, "spirit:id=\"internal_controller_hwtcl\""), w.line());

        // Interfaces from the componentDefinition CDATA, at their real lines in board.qsys.
        Interface rdMaster = iface(m, "pcie.dma_rd_master");
        assertEquals("avalon", rdMaster.type());
        assertTrue(rdMaster.start());
        assertEquals(Optional.of("coreclkout_hip"), rdMaster.associatedClock());
        assertEquals(Trees.lineOf(qsys, null, "<name>dma_rd_master</name>") - 1, rdMaster.where().line());
        Port data = rdMaster.ports().stream().filter(p -> p.role().equals("writedata")).findFirst().orElseThrow();
        assertEquals(new Port("rd_dma_write_data_o", "writedata", "output", 256), data);
        assertEquals(Optional.of("reset"), Optional.of(iface(m, "pcie.app_nreset_status").type()));

        // Agents' spans from the system infos' ADDRESS_MAP (a 64-bit agent's too) and from ADDRESS_WIDTH.
        assertEquals(Optional.of(BigInteger.valueOf(0x2000)), iface(m, "pcie.rd_dts_slave").span());
        assertEquals(Optional.of(BigInteger.ONE.shiftLeft(64)), iface(m, "pcie.txs").span());
        assertEquals(Optional.of(BigInteger.valueOf(8)), iface(m, "alt_pr.avmm_slave").span());
        assertEquals(Optional.of(BigInteger.valueOf(256 * 1024)), iface(m, "pipe_stage_host_ctrl.s0").span());
        assertEquals(Optional.empty(), rdMaster.span());

        // A composed subsystem in a Pro system is read as in Standard: parameters inline, interfaces
        // from connections and exports, without ports.
        Instance ddr = instance(m, "acl_ddr4_a10");
        assertEquals("acl_ddr4_a10", ddr.kind());
        assertEquals(Optional.empty(), ddr.ipFile());
        assertEquals(Optional.of("100000000"), ddr.parameter("AUTO_KERNEL_CLK_CLOCK_RATE"));
        assertEquals(Trees.lineOf(qsys, null, "AUTO_KERNEL_CLK_CLOCK_RATE"), ddr.parameterWhere().get("AUTO_KERNEL_CLK_CLOCK_RATE").line());
        Interface pcieS0 = iface(m, "acl_ddr4_a10.pcie_s0");
        assertFalse(pcieS0.start());
        assertEquals("avalon", pcieS0.type());
        assertTrue(pcieS0.ports().isEmpty());
        assertEquals("conduit", iface(m, "acl_ddr4_a10.ddr4a_mem_conduit_end").type());

        // Connections with their parameters, exports, and the address maps built from them.
        Connection bar4 = m.connectionsOf("pcie.rxm_bar4").getFirst();
        assertEquals("pipe_stage_host_ctrl.s0", bar4.end());
        assertEquals(Optional.of(BigInteger.ZERO), bar4.baseAddress());
        assertEquals("kernel_clk_export.clk", m.exports().stream().filter(e -> e.name().equals("kernel_clk")).findFirst().orElseThrow().internal());
        SystemModel.Mapped first = m.addressMaps().get("pcie.rxm_bar4").getFirst();
        assertEquals("pipe_stage_host_ctrl.s0", first.agent());
        assertEquals(BigInteger.ZERO, first.base());
        List<SystemModel.Mapped> rd = m.addressMaps().get("pcie.dma_rd_master");
        assertTrue(rd.stream().anyMatch(x -> x.agent().equals("pcie.rd_dts_slave") && x.base().equals(new BigInteger("7FFFFFFF0000", 16))), rd.toString());
    }

    /** The board's two other systems read too (the DDR subsystem and its core); neither holds a hard IP. */
    @Test
    void theRealA10gxSubsystems() throws Exception {
        SystemModel ddr = SystemReader.read(Trees.a10gxBoard().resolve("acl_ddr4_a10.qsys"));
        assertEquals(SystemModel.Edition.PRO, ddr.edition());
        assertEquals("altera_avalon_mm_clock_crossing_bridge", instance(ddr, "clock_cross_pcie_to_ddr4a").kind());
        SystemModel core = SystemReader.read(Trees.a10gxBoard().resolve("acl_ddr4_a10_core.qsys"));
        assertEquals("altera_emif", instance(core, "ddr4a").kind());
        assertTrue(DmaView.of(ddr).isEmpty());
        assertTrue(DmaView.of(core).isEmpty());
    }

    @Test
    void aProSystemWithIpXact2014Files() throws Exception {
        Path dir = Trees.resource("pro181_ref");
        Path qsys = dir.resolve("board.qsys");
        SystemModel m = SystemReader.read(qsys);
        assertEquals(SystemModel.Edition.PRO, m.edition());
        assertEquals(Optional.of("18.1"), m.toolVersion());
        assertEquals(List.of("ddr", "pcie", "dma_ctrl", "bar2_bridge", "kernel_pll", "kernel_clk_bridge"),
                m.instances().stream().map(Instance::name).toList());

        Instance pcie = instance(m, "pcie");
        Path ip = dir.resolve("ip/board/board_pcie.ip");
        assertEquals(Optional.of("0"), pcie.parameter("internal_controller_hwtcl"));
        assertEquals(Trees.lineOf(ip, "<ipxact:name>internal_controller_hwtcl", "<ipxact:value>"),
                pcie.parameterWhere().get("internal_controller_hwtcl").line());
        assertEquals(Optional.of("32-bit non-prefetchable memory"), pcie.parameter("bar0_type_hwtcl"));

        // A parameters file under a directory whose name has a space.
        Instance dma = instance(m, "dma_ctrl");
        assertEquals("dma_control", dma.kind());
        assertEquals(Optional.of(dir.resolve("ip/board files/board_dma_ctrl.ip").normalize()), dma.ipFile().map(Path::normalize));
        assertEquals(Optional.of("1"), dma.parameter("ENABLE_MSI"));

        // An Avalon-ST sink with its ready latency and its 160-bit data port.
        Interface sink = iface(m, "pcie.rd_ast_rx");
        assertEquals("avalon_streaming", sink.type());
        assertFalse(sink.start());
        assertEquals("3", sink.properties().get("readyLatency"));
        assertEquals(new Port("rd_ast_rx_data_i", "data", "input", 160), sink.ports().getFirst());
        assertEquals(Trees.lineOf(qsys, "name=\"pcie\"", "<name>rd_ast_rx</name>") - 1, sink.where().line());

        // Spans: ADDRESS_MAP, else ADDRESS_WIDTH, else the interface's addressSpan.
        assertEquals(Optional.of(BigInteger.valueOf(512)), iface(m, "dma_ctrl.csr").span());
        assertEquals(Optional.of(BigInteger.valueOf(8192)), iface(m, "dma_ctrl.rd_dts_slave").span());
        assertEquals(Optional.of(BigInteger.valueOf(256L << 20)), iface(m, "bar2_bridge.s0").span());

        // The subsystem instance with inline parameters; its interfaces from an export and connections.
        Instance ddr = instance(m, "ddr");
        assertEquals(Optional.of("250000000"), ddr.parameter("AUTO_PCIE_CLK_CLOCK_RATE"));
        assertEquals(List.of("pcie_s0", "pcie_clk", "kernel_clk", "kernel_s0"), ddr.interfaces().stream().map(Interface::name).toList());
        assertFalse(iface(m, "ddr.kernel_s0").start());
    }

    @Test
    void aStandardSystem() throws Exception {
        Path qsys = Trees.resource("standard_s10").resolve("board.qsys");
        SystemModel m = SystemReader.read(qsys);
        assertEquals("s10_board", m.name());
        assertEquals(SystemModel.Edition.STANDARD, m.edition());
        assertEquals(Optional.of("19.1"), m.toolVersion());
        Instance pcie = instance(m, "pcie");
        assertEquals("altera_pcie_s10_hip_avmm_bridge", pcie.kind());
        assertEquals(Optional.of("20"), pcie.parameter("pf0_bar2_address_width_hwtcl"));
        assertEquals(Trees.lineOf(qsys, null, "pf0_bar2_address_width_hwtcl"), pcie.parameterWhere().get("pf0_bar2_address_width_hwtcl").line());
        assertEquals(Optional.of("262144"), instance(m, "ocm").parameter("memorySize"));
        assertEquals(Optional.empty(), pcie.ipFile());

        // No ports in a Standard file: the interfaces are what the connections and exports name.
        Interface sink = iface(m, "pcie.rd_ast_rx");
        assertEquals("avalon_streaming", sink.type());
        assertFalse(sink.start());
        assertTrue(sink.ports().isEmpty());
        assertEquals(Optional.empty(), sink.span());
        assertEquals(Trees.lineOf(qsys, null, "end=\"pcie.rd_ast_rx\""), sink.where().line());
        assertTrue(iface(m, "pcie.dma_rd_master").start());
        assertTrue(iface(m, "kernel_clk_out.clk").start());
        assertEquals("conduit", iface(m, "pcie.hip_serial").type());
    }

    /** The example BSP's system, a Standard system this project wrote. */
    @Test
    void theExampleBspsSystem() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!java.nio.file.Files.isDirectory(root.resolve("examples/bsp/direkt_ref"))) {
            root = root.getParent();
        }
        Path qsys = root.resolve("examples/bsp/direkt_ref/hardware/direkt_ref/board.qsys");
        SystemModel m = SystemReader.read(qsys);
        assertEquals(SystemModel.Edition.STANDARD, m.edition());
        assertEquals(Optional.of("20.4"), m.toolVersion());
        assertEquals(5, m.instances().size());
        Instance pcie = instance(m, "pcie");
        assertEquals(Optional.of("0"), pcie.parameter("internal_controller_hwtcl"));
        assertEquals(Trees.lineOf(qsys, null, "internal_controller_hwtcl"), pcie.parameterWhere().get("internal_controller_hwtcl").line());
        assertEquals(List.of("rd_ast_rx", "wr_ast_rx", "rd_ast_tx", "wr_ast_tx", "coreclkout_hip"),
                pcie.interfaces().stream().map(Interface::name).toList());
    }
}
