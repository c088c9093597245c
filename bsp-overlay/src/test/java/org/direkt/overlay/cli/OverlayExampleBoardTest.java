// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.direkt.boardspec.BoardSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The full example BSP tree (examples/bsp/direkt_ref): --out, --json, --in-place and revert. */
class OverlayExampleBoardTest {

    @TempDir
    Path tmp;

    @Test
    void findsTheSystemHardIpAndDescriptorController() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Map<String, String> pristine = Cli.snapshot(bsp);
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out);
        assertContains(r.out(), "hardware/direkt_ref/board.qsys", r);
        assertContains(r.out(), "hard IP 'pcie'", r);
        assertContains(r.out(), "descriptor controller 'dma_desc'", r);
        for (String f : Cli.OVERLAY_FILES) {
            assertTrue(Files.isRegularFile(out.resolve(f)), () -> f + " missing\n" + r.show());
        }
        Cli.assertTree(pristine, bsp, "--out leaves the BSP alone");
        BoardSpec b = Cli.parse(out.resolve("board_spec.xml"));
        Cli.assertDirektChannels(b);
        assertEquals("direkt_ref", b.name());
        String md = Cli.read(out.resolve("OVERLAY.md"));
        assertTrue(md.contains("direkt_integrate.tcl") && md.contains("dma_desc") && md.contains("pcie"),
                () -> "OVERLAY.md should tell how to run the integration script between dma_desc and pcie:\n" + md);
        String tcl = Cli.read(out.resolve("direkt_integrate.tcl"));
        assertTrue(tcl.contains("dma_desc") && tcl.contains("pcie"), "the integration script names the instances");
    }

    @Test
    void jsonSummaryListsWrittenFiles() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--json");
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("pcie", j.path("dma_instance").asText(), r.show());
        assertEquals("dma_desc", j.path("desc_instance").asText(), r.show());
        assertTrue(j.path("system").asText().endsWith("board.qsys"), r.show());
        List<String> written = new ArrayList<>();
        j.path("written").forEach(n -> written.add(n.asText()));
        assertTrue(written.containsAll(Cli.OVERLAY_FILES), () -> "written " + written);
        assertEquals(Cli.files(out).size(), written.size(), "every file written is listed");
        assertEquals(0, j.path("unchanged").size());
        List<String> channels = new ArrayList<>();
        j.path("channels").forEach(n -> channels.add(n.asText()));
        assertEquals(List.of("direkt_rd_desc", "direkt_rd_status", "direkt_wr_desc", "direkt_wr_status"), channels);

        Cli.Run again = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--json");
        JsonNode j2 = new ObjectMapper().readTree(again.out());
        assertEquals(0, j2.path("written").size(), again.show());
        assertEquals(written.size(), j2.path("unchanged").size(), again.show());
    }

    /** --bsp may also name hardware/<board> directly. */
    @Test
    void acceptsTheBoardDirectory() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp.resolve("hardware/direkt_ref"), "--out", out);
        assertContains(r.out(), "hard IP 'pcie'", r);
        Cli.assertDirektChannels(Cli.parse(out.resolve("board_spec.xml")));
    }

    @Test
    void inPlaceThenRevertRestoresTheTreeByteForByte() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/direkt_ref");
        Map<String, String> pristine = Cli.snapshot(bsp);
        byte[] pristineSpec = Files.readAllBytes(board.resolve("board_spec.xml"));

        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--in-place");
        Cli.assertDirektChannels(Cli.parse(board.resolve("board_spec.xml")));
        for (String f : Cli.OVERLAY_FILES) {
            if (!f.equals("board_spec.xml")) {
                assertTrue(Files.isRegularFile(board.resolve("direkt").resolve(f)), () -> "direkt/" + f + " missing\n" + r.show());
            }
        }
        assertTrue(Files.isDirectory(board.resolve(".direkt-backup")), "backup present");
        assertArrayEquals(pristineSpec, Files.readAllBytes(board.resolve(".direkt-backup/board_spec.xml")), "backup holds the original");
        assertEquals(Cli.snapshot(Cli.exampleBsp()), pristine, "the copy is complete (and the repo's example untouched)");

        Cli.Run rv = Cli.ok("revert", "--bsp", bsp);
        assertContains(rv.out(), "restored board_spec.xml", rv);
        Cli.assertTree(pristine, bsp, "revert restores the whole tree");
        assertFalse(Files.exists(board.resolve("direkt")));
        assertFalse(Files.exists(board.resolve(".direkt-backup")));
    }

    @Test
    void secondInPlaceRunKeepsTheOriginalBackup() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/direkt_ref");
        Map<String, String> pristine = Cli.snapshot(bsp);
        byte[] pristineSpec = Files.readAllBytes(board.resolve("board_spec.xml"));

        Cli.ok("overlay", "--bsp", bsp, "--in-place");
        byte[] firstEdit = Files.readAllBytes(board.resolve("board_spec.xml"));
        Map<String, String> afterFirst = Cli.snapshot(bsp);

        // the same configuration again: nothing changes
        Cli.Run same = Cli.ok("overlay", "--bsp", bsp, "--in-place");
        assertContains(same.out(), "0 files written", same);
        Cli.assertTree(afterFirst, bsp);

        // another configuration: board_spec.xml changes again, the backup still holds the pristine file
        Path cfg = tmp.resolve("cfg.json");
        Files.writeString(cfg, "{\"rd_desc\": \"my_rd_desc\", \"inflight\": 8}\n");
        Cli.ok("overlay", "--bsp", bsp, "--in-place", "--config", cfg);
        byte[] secondEdit = Files.readAllBytes(board.resolve("board_spec.xml"));
        assertNotEquals(Cli.sha256(firstEdit), Cli.sha256(secondEdit), "the second configuration changed board_spec.xml");
        BoardSpec b = Cli.parse(board.resolve("board_spec.xml"));
        assertEquals(1, b.channelsWithId("my_rd_desc").size());
        assertEquals(0, b.channelsWithId("direkt_rd_desc").size());
        assertArrayEquals(pristineSpec, Files.readAllBytes(board.resolve(".direkt-backup/board_spec.xml")),
                "the backup still holds the original, not the first overlay's board_spec.xml");

        Cli.ok("revert", "--bsp", bsp);
        Cli.assertTree(pristine, bsp, "revert restores the pristine tree");
        assertArrayEquals(pristineSpec, Files.readAllBytes(board.resolve("board_spec.xml")));
    }
    /** A --bsp path with "." components (e.g. `direkt revert --bsp .`) must revert like the plain path. */
    @Test
    void revertAcceptsAPathWithDotComponents() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Map<String, String> pristine = Cli.snapshot(bsp);
        Cli.ok("overlay", "--bsp", bsp, "--in-place");
        Cli.Run rv = Cli.run("revert", "--bsp", Path.of(bsp + "/."));
        assertEquals(0, rv.exit(), () -> "revert --bsp <bsp>/.\n" + rv.show());
        Cli.assertTree(pristine, bsp, "revert restores the whole tree");
    }

    /** A failing revert (a tampered list of created files) must change nothing, not half-revert the BSP. */
    @Test
    void failedRevertChangesNothing() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path board = bsp.resolve("hardware/direkt_ref");
        Cli.ok("overlay", "--bsp", bsp, "--in-place");
        Files.writeString(board.resolve(".direkt-backup/created-files.txt"), "direkt/\n../../../outside\n");
        Map<String, String> before = Cli.snapshot(tmp);
        Cli.Run rv = Cli.run("revert", "--bsp", bsp);
        assertEquals(2, rv.exit(), rv::show);
        assertTrue(rv.err().contains("outside"), rv::show);
        Cli.assertTree(before, tmp, () -> "a failed revert must leave the BSP as it was\n" + rv.show());
    }

    /** The board is named by its directory even when --bsp is given as "<board dir>/.". */
    @Test
    void boardNameWithDotPath() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", Path.of(bsp.resolve("hardware/direkt_ref") + "/."), "--out", out, "--json");
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("direkt_ref", j.path("board").asText(), r.show());
    }
}
