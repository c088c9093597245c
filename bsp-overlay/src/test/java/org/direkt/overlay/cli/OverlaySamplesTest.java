// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.direkt.overlay.cli.Cli.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.direkt.boardspec.BoardSpec;
import org.direkt.boardspec.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code direkt overlay --out} on the real board_spec.xml samples and on the project's SDK 14.x-style
 * files (tabs, CRLF, an unnamed {@code <global_mem>}), each given as a board_spec-only input.
 */
class OverlaySamplesTest {

    private static final Pattern DIREKT_LINE = Pattern.compile(
            "<interface\\b[^>]*\\bchan_id=\"direkt_(rd|wr)_(desc|status)\"[^>]*/>");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Cli.A10, Cli.D5005, Cli.N6001, Cli.SDK14_SINGLE, Cli.SDK14_CHANNELS})
    void roundTripsAndEditsOnlyTheChannels(String sample) throws IOException {
        Path bsp = Cli.sampleBsp(sample, tmp.resolve("bsp"));
        byte[] original = Files.readAllBytes(bsp.resolve("board_spec.xml"));
        Path out = tmp.resolve("out");

        Cli.Run r = Cli.ok("overlay", "--bsp", bsp, "--out", out);
        for (String f : Cli.OVERLAY_FILES) {
            assertTrue(Files.isRegularFile(out.resolve(f)), () -> f + " missing from the overlay\n" + r.show());
        }
        assertArrayEquals(original, Files.readAllBytes(bsp.resolve("board_spec.xml")), "the input must not change");

        // the edited board_spec.xml re-parses and has direkt's channels
        Path edited = out.resolve("board_spec.xml");
        BoardSpec b = Cli.parse(edited);
        Cli.assertDirektChannels(b);
        BoardSpec before = Cli.parse(bsp.resolve("board_spec.xml"));
        assertEquals(before.channels().size() + 4, b.channels().size(), "only direkt's four channels are added");

        // every byte outside the edit is unchanged: the edit is a pure insertion of whole lines
        byte[] after = Files.readAllBytes(edited);
        int p = 0;
        while (p < original.length && p < after.length && original[p] == after[p]) {
            p++;
        }
        int s = 0;
        while (s < original.length - p && s < after.length - p
                && original[original.length - 1 - s] == after[after.length - 1 - s]) {
            s++;
        }
        assertEquals(original.length, p + s, "the original bytes must all survive around one inserted block"
                + " (common prefix " + p + " + suffix " + s + " of " + original.length + ")");

        List<String> o = Cli.linesKeepingEnds(new String(original, StandardCharsets.UTF_8));
        List<String> a = Cli.linesKeepingEnds(new String(after, StandardCharsets.UTF_8));
        int pl = 0;
        while (pl < o.size() && pl < a.size() && o.get(pl).equals(a.get(pl))) {
            pl++;
        }
        int sl = 0;
        while (sl < o.size() - pl && sl < a.size() - pl && o.get(o.size() - 1 - sl).equals(a.get(a.size() - 1 - sl))) {
            sl++;
        }
        assertEquals(o.size(), pl + sl, "whole lines are inserted, none of the original's changed");
        List<String> inserted = a.subList(pl, a.size() - sl);
        boolean hadChannels = before.channelsRegion().isPresent();
        int channelLines = 0;
        for (String line : inserted) {
            String t = line.strip();
            if (DIREKT_LINE.matcher(t).matches()) {
                channelLines++;
            } else {
                assertTrue(!hadChannels && (t.equals("<channels>") || t.equals("</channels>")),
                        () -> "unexpected inserted line " + line.strip() + "; inserted:\n" + String.join("", inserted));
            }
            assertFalse(line.contains("\r") && !before.lineEnding().contains("\r"), "line endings follow the file");
        }
        assertEquals(4, channelLines, () -> "four channel lines inserted:\n" + String.join("", inserted));
        if (!hadChannels) {
            assertEquals("<channels>", inserted.getFirst().strip(), "a new <channels> block");
            assertEquals("</channels>", inserted.getLast().strip(), "a new <channels> block");
        }

        // board_spec-only input: Platform Designer is a manual step
        String md = Cli.read(out.resolve("OVERLAY.md"));
        String mdl = md.toLowerCase(Locale.ROOT);
        assertTrue(mdl.contains("no platform designer system"), () -> "OVERLAY.md should say no system was found:\n" + md);
        assertTrue(mdl.contains("by hand") || mdl.contains("manual"), () -> "OVERLAY.md should call it a manual step:\n" + md);
        assertFalse(md.contains("qsys-script --script"), "no integration script can run without a system");
        assertTrue(r.out().toLowerCase(Locale.ROOT).contains("by hand"), () -> "stdout notes the manual step\n" + r.show());

        // a second run into the same --out: nothing changes, byte for byte, and it says so
        Map<String, byte[]> first = Cli.files(out);
        Map<String, String> firstTree = Cli.snapshot(out);
        Cli.Run again = Cli.ok("overlay", "--bsp", bsp, "--out", out);
        Cli.assertTree(firstTree, out, "second run changes nothing");
        Map<String, byte[]> second = Cli.files(out);
        assertEquals(first.keySet(), second.keySet());
        for (String f : first.keySet()) {
            assertArrayEquals(first.get(f), second.get(f), f + " differs after the second run");
        }
        assertContains(again.out(), "0 files written, " + first.size() + " unchanged", again);
        assertFalse(again.out().contains("  wrote "), () -> again.show());
        assertEquals(List.of("out"), listNames(tmp, "bsp"), "no staging leftovers beside --out");
    }

    /** An overlay's board_spec.xml given again as input: direkt's channels are recognised, not duplicated. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Cli.A10, Cli.D5005, Cli.N6001, Cli.SDK14_SINGLE, Cli.SDK14_CHANNELS})
    void overlayingAnOverlaidBoardIsIdempotent(String sample) throws IOException {
        Path bsp = Cli.sampleBsp(sample, tmp.resolve("bsp"));
        Path out1 = tmp.resolve("out1");
        Cli.ok("overlay", "--bsp", bsp, "--out", out1);
        Path bsp2 = Files.createDirectories(tmp.resolve("bsp2"));
        Files.copy(out1.resolve("board_spec.xml"), bsp2.resolve("board_spec.xml"));
        Path out2 = tmp.resolve("out2");
        Cli.ok("overlay", "--bsp", bsp2, "--out", out2);
        assertArrayEquals(Files.readAllBytes(bsp2.resolve("board_spec.xml")), Files.readAllBytes(out2.resolve("board_spec.xml")),
                "an already overlaid board_spec.xml stays byte-identical");
        Cli.assertDirektChannels(Cli.parse(out2.resolve("board_spec.xml")));
        // the rest of the overlay does not depend on whether the input already had the channels,
        // except for where board_spec.xml came from
        Map<String, byte[]> f1 = Cli.files(out1);
        Map<String, byte[]> f2 = Cli.files(out2);
        assertEquals(f1.keySet(), f2.keySet());
        for (String f : f1.keySet()) {
            assertArrayEquals(f1.get(f), f2.get(f), f + " differs between overlaying the board and the overlaid board");
        }
    }

    /**
     * An SDK 14.x-style board in a BSP tree, overlaid in place: board_spec.xml gains only direkt's lines
     * (with the file's tabs and line ends), a second run changes nothing, and revert restores the tree
     * byte for byte.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Cli.SDK14_SINGLE, Cli.SDK14_CHANNELS})
    void sdk14BoardInABspTreeOverlaysInPlaceIdempotentlyAndReverts(String sample) throws IOException {
        String name = sample.substring(0, sample.length() - ".board_spec.xml".length());
        Path bsp = tmp.resolve("bsp");
        Path board = Cli.sampleBsp(sample, bsp.resolve("hardware").resolve(name));
        Map<String, String> pristine = Cli.snapshot(bsp);
        String original = Cli.read(board.resolve("board_spec.xml"));
        BoardSpec before = Cli.parse(board.resolve("board_spec.xml"));

        Cli.ok("overlay", "--bsp", bsp, "--in-place");
        String edited = Cli.read(board.resolve("board_spec.xml"));
        BoardSpec after = Cli.parse(board.resolve("board_spec.xml"));
        Cli.assertDirektChannels(after);
        String eol = before.lineEnding();
        List<String> added = new ArrayList<>(Cli.linesKeepingEnds(edited));
        for (String line : Cli.linesKeepingEnds(original)) {
            assertTrue(added.remove(line), () -> "original line kept: " + line);
        }
        for (String line : added) {
            assertTrue(line.startsWith("\t") && line.endsWith(eol) && !line.substring(0, line.length() - eol.length()).contains("\r"),
                    () -> "an inserted line is tab-indented and ends like the file's lines: " + line.replace("\r", "\\r"));
        }
        assertEquals(before.channelsRegion().isPresent() ? 4 : 6, added.size(), () -> "inserted: " + added);

        Map<String, String> once = Cli.snapshot(bsp);
        Cli.Run again = Cli.ok("overlay", "--bsp", bsp, "--in-place");
        assertContains(again.out(), "0 files written", again);
        Cli.assertTree(once, bsp, "a second in-place run changes nothing");

        Cli.ok("revert", "--bsp", bsp);
        Cli.assertTree(pristine, bsp, "revert restores the 14.x tree byte for byte");
    }

    /** A different configuration: only direkt's own entries change; the n6001's I/O pipes stay put. */
    @Test
    void changedConfigurationReplacesOnlyDirektsEntries() throws IOException {
        Path bsp = Cli.sampleBsp(Cli.N6001, tmp.resolve("bsp"));
        Path out1 = tmp.resolve("out1");
        Cli.ok("overlay", "--bsp", bsp, "--out", out1);
        Path bsp2 = Files.createDirectories(tmp.resolve("bsp2"));
        Files.copy(out1.resolve("board_spec.xml"), bsp2.resolve("board_spec.xml"));
        Path cfg = tmp.resolve("cfg.json");
        Files.writeString(cfg, "{ \"rd_desc\": \"my_rd_desc\" }\n");
        Path out2 = tmp.resolve("out2");
        Cli.ok("overlay", "--bsp", bsp2, "--out", out2, "--config", cfg);

        BoardSpec before = Cli.parse(bsp2.resolve("board_spec.xml"));
        BoardSpec after = Cli.parse(out2.resolve("board_spec.xml"));
        assertEquals(List.of(), after.channelsWithId("direkt_rd_desc"), "the old direkt_rd_desc entry is gone");
        List<Channel> mine = after.channelsWithId("my_rd_desc");
        assertEquals(1, mine.size(), "my_rd_desc once");
        assertEquals("streamsink", mine.getFirst().type());
        assertEquals("256", mine.getFirst().width());
        for (String id : List.of("direkt_rd_status", "direkt_wr_desc", "direkt_wr_status")) {
            assertEquals(1, after.channelsWithId(id).size(), id + " once");
        }
        assertEquals(before.channels().size(), after.channels().size(), "replaced, not added");

        // foreign channels untouched: the same elements, byte for byte, in the same order
        List<String> foreignBefore = foreign(before);
        assertEquals(16, foreignBefore.size(), "the n6001 sample's 16 I/O pipes");
        assertEquals(foreignBefore, foreign(after));
        // and every line not about direkt's channels is unchanged
        assertEquals(nonDirektLines(Cli.read(bsp2.resolve("board_spec.xml"))), nonDirektLines(Cli.read(out2.resolve("board_spec.xml"))));
        // the original sample is untouched too
        assertEquals(foreign(Cli.parse(bsp.resolve("board_spec.xml"))), foreignBefore);
    }

    private static List<String> foreign(BoardSpec b) {
        List<String> out = new ArrayList<>();
        for (Channel c : b.channels()) {
            if (c.port() == null || !c.port().startsWith("direkt_")) {
                out.add(b.text().substring(c.span().start(), c.span().end()));
            }
        }
        return out;
    }

    private static List<String> nonDirektLines(String text) {
        return Cli.linesKeepingEnds(text).stream().filter(l -> !l.contains("port=\"direkt_bridge_")).toList();
    }

    private static List<String> listNames(Path dir, String except) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(except)).sorted().toList();
        }
    }
}
