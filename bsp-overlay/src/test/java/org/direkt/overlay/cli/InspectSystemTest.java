// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.direkt.overlay.system.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code direkt inspect} on Platform Designer systems: a {@code .qsys} alone, and a BSP or board
 * directory (its board_spec.xml and the system beside it that holds the hard IP), as tables, JSON and
 * SVG; and its errors.
 */
class InspectSystemTest {

    @TempDir
    Path tmp;

    private static boolean hasLine(Cli.Run r, String regex) {
        return r.out().lines().anyMatch(l -> l.strip().matches(regex));
    }

    @Test
    void theRealA10gxSystemAsTables() {
        Cli.Run r = Cli.ok("inspect", Trees.a10gxBoard().resolve("board.qsys"));
        assertContains(r.out(), "Platform Designer Pro 16.1, 26 instances", r);
        assertContains(r.out(), "PCIe hard IP pcie: altera_pcie_a10_hip", r);
        assertContains(r.out(), "parameters in ip/board/board_pcie.ip", r);
        assertContains(r.out(), "descriptor controller: internal, in the hard IP (internal_controller_hwtcl = 1, ip/board/board_pcie.ip:"
                + lineOfInternalController() + ")", r);
        assertContains(r.out(), "kernel clock: kernel_clk_gen.kernel_clk, 100 MHz (exported as kernel_clk, through kernel_clk_export.clk)", r);
        assertContains(r.out(), "application clock: pcie.coreclkout_hip, 250 MHz", r);
        assertTrue(hasLine(r, "0\\s+64-bit prefetchable memory\\s+512 B\\s+\\(internal descriptor controller registers\\).*"), r.show());
        assertTrue(hasLine(r, "4\\s+64-bit prefetchable memory\\s+256 KB\\s+pcie\\.rxm_bar4\\s+15\\s+ip/board/board_pcie\\.ip:\\d+"), r.show());
        assertTrue(hasLine(r, "1\\s+disabled.*"), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("BAR4 through pcie.rxm_bar4 (15)")), r.show());
        assertTrue(hasLine(r, "0x0\\s+256 KB\\s+pipe_stage_host_ctrl\\.s0\\s+altera_avalon_mm_bridge\\s+-\\s+board\\.qsys:\\d+"), r.show());
        assertTrue(hasLine(r, "0x4000\\s+16 KB\\s+kernel_interface\\.ctrl\\s+kernel_interface\\s+pipe_stage_host_ctrl\\s+board\\.qsys:\\d+"), r.show());
        assertTrue(hasLine(r, "0x7FFFFFFF0000\\s+8 KB\\s+pcie\\.rd_dts_slave\\s+altera_pcie_a10_hip\\s+-\\s+board\\.qsys:\\d+"), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("pcie.dma_rd_master, read data mover (6)")), r.show());
    }

    private static int lineOfInternalController() {
        try {
            return Trees.lineOf(Trees.a10gxBoard().resolve("ip/board/board_pcie.ip"), null, "spirit:id=\"internal_controller_hwtcl\"");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A BSP directory: its board_spec.xml as before, then the system that holds the hard IP (board.qsys, not the DDR subsystems). */
    @Test
    void aBspDirectoryShowsTheBoardAndItsSystem() {
        Cli.Run r = Cli.ok("inspect", Trees.a10gx());
        assertTrue(r.out().startsWith("board a10gx (version 16.1): "), r.show());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("memories (1)")), r.show());
        assertContains(r.out(), "system board: " + Trees.a10gxBoard().resolve("board.qsys"), r);
        assertContains(r.out(), "descriptor controller: internal", r);
        assertTrue(r.out().indexOf("memories (1)") < r.out().indexOf("system board:"), r.show());
        // The board directory itself, and the root with --board, show the same.
        assertEquals(r.out(), Cli.ok("inspect", Trees.a10gxBoard()).out());
        assertEquals(r.out(), Cli.ok("inspect", Trees.a10gx(), "--board", "a10gx").out());
    }

    @Test
    void aBspDirectoryAsJson() throws Exception {
        Cli.Run r = Cli.ok("inspect", "--json", Trees.a10gx());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("a10gx", j.path("board_spec").path("board").asText());
        assertEquals(1, j.path("board_spec").path("memories").size());
        JsonNode s = j.path("system");
        assertEquals("pro", s.path("edition").asText());
        assertEquals("16.1", s.path("tool_version").asText());
        assertEquals("pcie", s.path("hard_ip").path("instance").asText());
        assertEquals("altera_pcie_a10_hip", s.path("hard_ip").path("kind").asText());
        assertTrue(s.path("hard_ip").path("avalon_mm_dma").asBoolean());
        assertEquals("internal", s.path("descriptor_controller").path("mode").asText());
        assertEquals("ip/board/board_pcie.ip:" + lineOfInternalController(), s.path("descriptor_controller").path("where").asText());
        JsonNode bar4 = s.path("bars").get(4);
        assertEquals(262144, bar4.path("size").asLong());
        assertEquals("pcie.rxm_bar4", bar4.path("rx_master").asText());
        assertEquals("pipe_stage_host_ctrl.s0", bar4.path("agents").get(0).path("agent").asText());
        assertEquals("0x0", bar4.path("agents").get(0).path("base").asText());
        assertTrue(s.path("bars").get(0).path("controller_registers").asBoolean());
        assertFalse(s.path("bars").get(1).path("enabled").asBoolean());
        JsonNode rd = null;
        for (JsonNode m : s.path("dma_masters")) {
            if (m.path("master").asText().equals("pcie.dma_rd_master")) {
                rd = m;
            }
        }
        assertTrue(rd != null, s.toString());
        List<String> reached = new ArrayList<>();
        rd.path("reaches").forEach(x -> reached.add(x.path("base").asText() + " " + x.path("agent").asText()));
        assertTrue(reached.contains("0x7FFFFFFF0000 pcie.rd_dts_slave"), reached.toString());
        assertTrue(reached.contains("0x7FFFFFFF2000 pcie.wr_dts_slave"), reached.toString());
        assertEquals("kernel_clk_gen.kernel_clk", s.path("kernel_clock").path("clock").asText());
        assertEquals(100_000_000L, s.path("kernel_clock").path("rate_hz").asLong());
        assertEquals("pcie.coreclkout_hip", s.path("application_clock").path("clock").asText());
    }

    @Test
    void aSystemAsJsonWithAnExternalController() throws Exception {
        JsonNode j = new ObjectMapper().readTree(Cli.ok("inspect", "--json", Trees.resource("pro181_ref").resolve("board.qsys")).out());
        assertEquals("external", j.path("descriptor_controller").path("mode").asText());
        assertEquals("dma_ctrl", j.path("descriptor_controller").path("instance").asText());
        assertEquals(2, j.path("descriptor_controller").path("feeds").size());
        assertEquals("dma_ctrl.csr", j.path("bars").get(0).path("agents").get(0).path("agent").asText());
        assertEquals("kernel_pll.outclk0", j.path("kernel_clock").path("clock").asText());
    }

    /** The picture of a board directory: the board's part and the system's, in one SVG document. */
    @Test
    void aBspDirectoryAsSvg() throws Exception {
        Path svg = tmp.resolve("a10gx.svg");
        Cli.Run r = Cli.ok("inspect", Trees.a10gx(), "--svg", svg);
        assertContains(r.out(), "drew board a10gx and system board (hard IP pcie) into " + svg, r);
        List<String> texts = texts(Files.readAllBytes(svg));
        for (String t : List.of("board.kernel_mem0", "board.kernel_cra", "pcie", "BAR4 -> pcie.rxm_bar4", "BAR0 (inside the hard IP)",
                "0x0  pipe_stage_host_ctrl.s0", "0x4000  kernel_interface.ctrl", "0x7FFFFFFF0000  pcie.rd_dts_slave",
                "pcie.dma_rd_master", "descriptor controller: internal", "kernel clock kernel_clk_gen.kernel_clk",
                "application clock pcie.coreclkout_hip")) {
            assertTrue(texts.contains(t), () -> "'" + t + "' drawn: " + texts);
        }
        assertTrue(texts.contains("64-bit prefetchable, 256 KB"), texts.toString());
    }

    @Test
    void aSystemAsSvgToStandardOutput() throws Exception {
        Cli.Run r = Cli.ok("inspect", Trees.resource("pro181_ref").resolve("board.qsys"), "--svg", "-");
        List<String> texts = texts(r.out().getBytes(StandardCharsets.UTF_8));
        assertTrue(texts.contains("descriptor controller: external (dma_ctrl)"), texts.toString());
        assertTrue(texts.contains("dma_ctrl.rd_dts_desc -> pcie.rd_ast_rx"), texts.toString());
        assertTrue(texts.contains("0x0  ddr.pcie_s0"), texts.toString());
    }

    /** A system without a hard IP: said, and its instances listed. */
    @Test
    void aSystemWithoutAHardIp() {
        Cli.Run r = Cli.ok("inspect", Trees.a10gxBoard().resolve("acl_ddr4_a10.qsys"));
        assertContains(r.out(), "no PCIe hard IP instance in this system", r);
        assertTrue(hasLine(r, "clock_cross_pcie_to_ddr4a\\s+altera_avalon_mm_clock_crossing_bridge\\s+acl_ddr4_a10\\.qsys:\\d+"), r.show());
    }

    @Test
    void aBrokenSystemIsBadInputAtItsLine() throws Exception {
        Path dir = Trees.copy("pro181_ref", tmp.resolve("bsp"));
        Path qsys = dir.resolve("board.qsys");
        String text = Files.readString(qsys).replace("<name>rxm_bar2</name>", "<name>rxm_bar2</nam>");
        Files.writeString(qsys, text);
        int line = Trees.lineOf(qsys, null, "<name>rxm_bar2</nam>");
        for (Path given : List.of(qsys, dir)) {
            Cli.Run r = Cli.run("inspect", given);
            assertEquals(2, r.exit(), r.show());
            assertContains(r.err(), qsys + ":" + line + ": the componentDefinition of module 'pcie' is not XML", r);
            assertFalse(r.err().contains("Exception"), r.show());
        }
    }

    @Test
    void aMissingIpFileIsBadInput() throws Exception {
        Path dir = Trees.copy("pro181_ref", tmp.resolve("bsp"));
        Files.delete(dir.resolve("ip/board/board_pcie.ip"));
        Cli.Run r = Cli.run("inspect", "--json", dir.resolve("board.qsys"));
        assertEquals(2, r.exit(), r.show());
        assertContains(r.err(), "module 'pcie': its parameters file ip/board/board_pcie.ip does not exist", r);
        assertEquals("", r.out());
    }

    /** In a board directory, a system that cannot be read is a note when another one holds the hard IP. */
    @Test
    void anUnreadableSiblingSystemIsANote() throws Exception {
        Path dir = Trees.copy("pro181_ref", tmp.resolve("bsp"));
        Files.writeString(dir.resolve("a_sub.qsys"), "<system name=\"sub\">\n <module name=\"x\"\n</system>\n");
        Cli.Run r = Cli.ok("inspect", dir);
        assertContains(r.out(), "PCIe hard IP pcie: altera_pcie_a10_hip", r);
        assertContains(r.out(), "note: not read: " + dir.resolve("a_sub.qsys") + ":3:", r);
    }

    @Test
    void usageErrors() throws Exception {
        Cli.Run r = Cli.run("inspect", Trees.a10gxBoard().resolve("board.qsys"), "--board", "a10gx");
        assertEquals(2, r.exit(), r.show());
        assertContains(r.err(), "--board is for a BSP directory", r);
        r = Cli.run("inspect", Trees.a10gx(), "--board", "nope");
        assertEquals(2, r.exit(), r.show());
        assertContains(r.err(), "no board 'nope'", r);
        Path two = tmp.resolve("two");
        Trees.copy("pro181_ref", two.resolve("hardware/one"));
        Trees.copy("pro181_ref", two.resolve("hardware/other"));
        r = Cli.run("inspect", two);
        assertEquals(2, r.exit(), r.show());
        assertContains(r.err(), "2 boards (one, other): choose one with --board", r);
        assertContains(Cli.ok("inspect", two, "--board", "other").out(), "board pro181_ref (version 18.1): " + two.resolve("hardware/other/board_spec.xml"), r);
        r = Cli.run("inspect", tmp.resolve("none.qsys"));
        assertEquals(2, r.exit(), r.show());
        assertContains(r.err(), tmp.resolve("none.qsys") + ": no such file", r);
    }

    @Test
    void helpNamesTheSystemForms() {
        Cli.Run r = Cli.ok("inspect", "--help");
        for (String s : List.of("SYSTEM.qsys", "DIR", "--board", "descriptor controller", "BARs")) {
            assertContains(r.out(), s, r);
        }
    }

    private static List<String> texts(byte[] svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(svg));
        assertEquals("svg", doc.getDocumentElement().getLocalName());
        List<String> out = new ArrayList<>();
        NodeList n = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        for (int k = 0; k < n.getLength(); k++) {
            out.add(n.item(k).getTextContent());
        }
        return out;
    }
}
