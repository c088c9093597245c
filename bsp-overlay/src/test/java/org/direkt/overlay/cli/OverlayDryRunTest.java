// SPDX-License-Identifier: Apache-2.0
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

    /**
     * Applies a dry run's diff with GNU patch ({@code patch -p1} in {@code dir}), as a user checking
     * what --dry-run promised would; patch must accept every hunk.
     */
    private static void applyWithPatch(String diff, Path dir) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("patch", "-p1", "--batch", "--forward", "-d", dir.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("GNU patch is needed to check --dry-run's diff (scripts/setup.sh installs it): " + e.getMessage());
        }
        try (var in = p.getOutputStream()) {
            in.write(diff.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String log = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), () -> "patch -p1 did not apply the dry run's diff cleanly:\n" + log);
    }

    /** Everything but the lines after "nothing written" (the diff alone). */
    private static String diffOf(Cli.Run r) {
        String out = r.out();
        int end = out.lastIndexOf("direkt overlay: dry run, nothing written");
        assertTrue(end >= 0, r.show());
        return out.substring(0, end);
    }

    @Test
    void inPlaceDryRunAppliedWithPatchWritesWhatTheOverlayWrites() throws Exception {
        Path shown = Cli.exampleCopy(tmp.resolve("shown"));
        Path written = Cli.exampleCopy(tmp.resolve("written"));
        // a board_spec.xml without a final newline, as some editors leave it: the diff must say so
        for (Path bsp : List.of(shown, written)) {
            Path spec;
            try (var s = Files.walk(bsp)) {
                spec = s.filter(f -> f.getFileName().toString().equals("board_spec.xml")).findFirst().orElseThrow();
            }
            Files.writeString(spec, Files.readString(spec).stripTrailing());
        }
        Cli.Run dry = Cli.ok("overlay", "--bsp", shown, "--in-place", "--dry-run");
        Cli.ok("overlay", "--bsp", written, "--in-place");
        applyWithPatch(diffOf(dry), shown);
        Map<String, String> expected = new java.util.TreeMap<>(Cli.snapshot(written));
        // the backup is --in-place's own bookkeeping for `direkt revert`, not part of the overlay
        expected.keySet().removeIf(k -> k.contains(OverlayWriterNames.BACKUP));
        Cli.assertTree(expected, shown, () -> "the BSP patched with the dry run's diff differs from the overlaid one\n" + dry.show());
    }

    @Test
    void outDryRunOverAnEarlierOverlayAppliedWithPatchWritesWhatTheOverlayWrites() throws Exception {
        Path bsp = Cli.sampleBsp(Cli.D5005, tmp.resolve("bsp"));
        Path out = tmp.resolve("out");
        Cli.ok("overlay", "--bsp", bsp, "--out", out);
        Path shown = tmp.resolve("shown");
        Cli.copyTree(out, shown);
        Path cfg = tmp.resolve("cfg.json");
        Files.writeString(cfg, "{\"wr_status\": \"my_wr_status\", \"preset\": \"paper\"}");
        Cli.Run dry = Cli.ok("overlay", "--bsp", bsp, "--out", out, "--dry-run", "--config", cfg);
        assertTrue(dry.out().lines().anyMatch(l -> l.startsWith("@@ ")), dry.show());
        Cli.ok("overlay", "--bsp", bsp, "--out", out, "--config", cfg);
        applyWithPatch(diffOf(dry), shown);
        Cli.assertTree(Cli.snapshot(out), shown, () -> "the earlier overlay patched with the dry run's diff differs from the new one\n"
                + dry.show());
    }

    /** The backup directory's name, as the writer spells it. */
    private static final class OverlayWriterNames {
        static final String BACKUP = org.direkt.overlay.OverlayWriter.BACKUP_DIR;
    }
}
