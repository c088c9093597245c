// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.direkt.overlay.system.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The overlay on a real Arria 10 board as it ships (the stock a10gx, Quartus Pro 16.1, whose hard IP
 * runs its internal descriptor controller): direkt's controller takes its place, the model check
 * passes and says what it checked, the kernel wrapper chain carries the channels, a second run changes
 * nothing, and an in-place overlay reverts byte for byte, also after its script changed the system.
 */
class RealA10OverlayTest {
    @TempDir
    Path tmp;

    @Test
    void overlaysTheStockBoardAndSaysWhatItChecked() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Map<String, String> bspBefore = Cli.snapshot(bsp);
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--out", out);
        assertContains(r.out(), "model check of the Platform Designer integration", r);
        assertFalse(r.out().contains("FAIL"), r::show);
        for (String check : new String[] {"pcie runs the external descriptor controller (internal_controller_hwtcl = 0)",
                "no address host software uses on pcie.rxm_bar4 moved", "direkt_bridge_ctrl.regs at pcie.rxm_bar0 0x0",
                "direkt_bridge_ctrl.rd_dts at pcie.dma_rd_master 0x7FFFFFFF0000", "direkt_bridge_ctrl.wr_dts at pcie.dma_rd_master 0x7FFFFFFF2000",
                "no conduit has more than one other end", "each new Avalon connection joins two interfaces of one clock domain",
                "descriptor streams keep the ready latency"}) {
            assertContains(r.out(), "ok    " + check, r);
        }
        Cli.assertTree(bspBefore, bsp, () -> "--out leaves the BSP as it was\n" + r.show());
        String script = Files.readString(out.resolve("direkt_integrate.tcl"));
        assertContains(script, "load_component pcie\nset_component_parameter_value internal_controller_hwtcl 0\nsave_component", r);
        assertTrue(Files.readString(out.resolve("board/ip/freeze_wrapper.v")).contains("board_direkt_bridge_rd_desc_data"));
        assertTrue(Files.readString(out.resolve("board/top.v")).contains(".direkt_bridge_rd_desc_data(board_direkt_bridge_rd_desc_data)"));
        JsonNode csr = new ObjectMapper().readTree(out.resolve("direkt-overlay.json").toFile()).path("board").path("csr");
        assertEquals(4, csr.path("bar").asInt(), csr.toString());
        assertEquals("0x20000", csr.path("offset").asText(), "above the 64 KB memory window at 0x10000, which ends at 0x1FFFF");

        Map<String, String> first = Cli.snapshot(out);
        Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--out", out);
        Cli.assertTree(first, out, "a second run is byte-identical");
    }

    @Test
    void inPlaceThenRevertRestoresEveryByteEvenAfterTheScriptRan() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/a10gx");
        Map<String, String> before = Cli.snapshot(bsp);
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--in-place");
        assertTrue(Files.isRegularFile(board.resolve("ip/direkt/direkt_bridge_ctrl_hw.tcl")), "the component is under ip/, where Pro finds it");
        assertTrue(Files.readString(board.resolve("ip/freeze_wrapper.v")).contains("board_direkt_bridge_rd_desc_data"), r::show);
        // what running the script does to the Pro system: board.qsys and the hard IP's .ip change, the controller's .ip appears
        Files.writeString(board.resolve("board.qsys"), "changed by qsys-script\n");
        Files.writeString(board.resolve("ip/board/board_pcie.ip"), "changed by save_component\n");
        Files.writeString(board.resolve("ip/board/board_direkt_bridge_ctrl.ip"), "made by save_system\n");
        Cli.ok("revert", "--bsp", board);
        Cli.assertTree(before, bsp, "revert restores the BSP byte for byte");
    }

    @Test
    void dryRunShowsEveryEditAndTheChecksAndWritesNothing() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--board", "a10gx", "--in-place", "--dry-run");
        for (String s : new String[] {"+++ b/hardware/a10gx/ip/freeze_wrapper.v", "+++ b/hardware/a10gx/top.v",
                "+++ b/hardware/a10gx/board_spec.xml", "+++ b/hardware/a10gx/ip/direkt/direkt_integrate.tcl", "ok    pcie runs the external"}) {
            assertContains(r.out(), s, r);
        }
        Cli.assertTree(before, tmp, "a dry run writes nothing");
    }
}
