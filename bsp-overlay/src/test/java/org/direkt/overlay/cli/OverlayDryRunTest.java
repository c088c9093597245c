package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code direkt overlay --dry-run}: a unified diff on stdout, nothing on disk. */
class OverlayDryRunTest {

    @TempDir
    Path tmp;

    @Test
    void outDryRunPrintsDiffAndWritesNothing() throws IOException {
        Path bsp = Cli.sampleBsp(Cli.N6001, tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(bsp);
        Path out = tmp.resolve("work/out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--dry-run");
        assertFalse(Files.exists(out), "--dry-run must not create --out");
        assertFalse(Files.exists(tmp.resolve("work")), "--dry-run must not create --out's parent");
        Cli.assertTree(before, bsp, "the BSP is unchanged");
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("--- ")), r.show());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("+++ ") && l.endsWith("board_spec.xml")), r.show());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("+++ ") && l.endsWith("ip/direkt_bridge.v")), r.show());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("@@ ")), r.show());
        for (String id : Cli.DIREKT_CHANNELS.keySet()) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("+") && l.contains("chan_id=\"" + id + "\"")),
                    () -> "the added channel " + id + " as a '+' line\n" + r.show());
        }
        assertContains(r.out(), "nothing written", r);
    }

    /** Against an existing earlier overlay the diff is empty for unchanged files and nothing is touched. */
    @Test
    void dryRunOverAnEarlierOverlayShowsOnlyChanges() throws IOException {
        Path bsp = Cli.sampleBsp(Cli.D5005, tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.ok("overlay", "--bsp", bsp, "--out", out);
        Map<String, String> earlier = Cli.snapshot(out);
        Cli.Run same = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--dry-run");
        assertFalse(same.out().lines().anyMatch(l -> l.startsWith("@@ ")), () -> "no change, no hunk\n" + same.show());
        Path cfg = tmp.resolve("cfg.json");
        Files.writeString(cfg, "{\"wr_status\": \"my_wr_status\"}");
        Cli.Run changed = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--dry-run", "--config", cfg);
        List<String> lines = changed.out().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("-") && !l.startsWith("---") && l.contains("chan_id=\"direkt_wr_status\"")),
                changed.show());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("+") && !l.startsWith("+++") && l.contains("chan_id=\"my_wr_status\"")),
                changed.show());
        Cli.assertTree(earlier, out, "--dry-run leaves the earlier overlay alone");
    }

    @Test
    void inPlaceDryRunDiffsTheBoardSpecAndWritesNothing() throws IOException {
        Path bsp = Cli.exampleCopy(tmp.resolve("bsp"));
        Map<String, String> before = Cli.snapshot(bsp);
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--in-place", "--dry-run");
        Cli.assertTree(before, bsp, "--dry-run --in-place writes nothing (no direkt/, no backup)");

        // the board_spec.xml part of the diff: only the new <channels> block is added, nothing removed
        List<String> lines = r.out().lines().toList();
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("+++ ") && lines.get(i).endsWith("board_spec.xml")) {
                start = i + 1;
                break;
            }
        }
        assertTrue(start > 0 && lines.get(start - 2).startsWith("--- ") && !lines.get(start - 2).contains("/dev/null"),
                () -> "board_spec.xml diffed against the BSP's file\n" + r.show());
        List<String> added = new ArrayList<>();
        for (int i = start; i < lines.size() && !lines.get(i).startsWith("--- "); i++) {
            String l = lines.get(i);
            assertFalse(l.startsWith("-"), () -> "nothing removed from board_spec.xml: " + l + "\n" + r.show());
            if (l.startsWith("+")) {
                added.add(l.substring(1).strip());
            }
        }
        assertEquals("<channels>", added.getFirst(), r.show());
        assertEquals("</channels>", added.getLast(), r.show());
        assertEquals(6, added.size(), () -> "the channels block: " + added);
        assertTrue(r.out().contains("+++ b/direkt/ip/direkt_bridge.v") || r.out().lines().anyMatch(
                l -> l.startsWith("+++ ") && l.endsWith("direkt/ip/direkt_bridge.v")), () -> "new files under direkt/\n" + r.show());
    }

    @Test
    void dryRunJson() throws IOException {
        Path bsp = Cli.sampleBsp(Cli.A10, tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--dry-run", "--json");
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertTrue(j.path("dry_run").asBoolean(), r.show());
        assertTrue(j.path("diff").asText().contains("+++ "), r.show());
        assertFalse(Files.exists(out));
    }
}
