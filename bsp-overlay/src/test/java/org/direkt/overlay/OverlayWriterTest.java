// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.direkt.generators.bridge.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writing an overlay: a directory is replaced whole or left alone, a second identical run changes
 * nothing, a directory that is not an overlay is never overwritten, and an in-place overlay is
 * backed up once and reverted byte for byte, refusing a backup list that reaches outside the board.
 */
class OverlayWriterTest {

    private static Path example() {
        Path d = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(d.resolve("examples/bsp/direkt_ref"))) {
            d = d.getParent();
        }
        return d.resolve("examples/bsp/direkt_ref");
    }

    private static Path copyOfExample(Path to) throws IOException {
        Path from = example();
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.sorted().toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return to;
    }

    private static Overlay.Plan plan(Path bsp) throws OverlayException {
        return Overlay.plan(new Overlay.Request(bsp, null, null, null));
    }

    private static List<String> sorted(Iterable<String> names) {
        List<String> r = new ArrayList<>();
        names.forEach(r::add);
        r.sort(null);
        return r;
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aDirectoryIsWrittenWholeAndAnIdenticalRunChangesNothing(@TempDir Path dir) throws Exception {
        Overlay.Plan plan = plan(example());
        Path out = dir.resolve("overlay");
        OverlayWriter.Result first = OverlayWriter.writeOut(plan, out);
        assertEquals(out, first.root());
        assertEquals(sorted(plan.files().keySet()), sorted(first.written()));
        assertEquals(List.of(), first.unchanged());
        for (Map.Entry<String, byte[]> e : plan.files().entrySet()) {
            assertArrayEquals(e.getValue(), Files.readAllBytes(out.resolve(e.getKey())), e.getKey());
        }
        assertEquals(List.of("overlay"), listing(dir), "no staging or old directory is left beside it");

        OverlayWriter.Result again = OverlayWriter.writeOut(plan, out);
        assertEquals(List.of(), again.written());
        assertEquals(sorted(plan.files().keySet()), sorted(again.unchanged()));

        Files.writeString(out.resolve(Overlay.OVERLAY_MD), "edited\n");
        Path leftover = Files.writeString(out.resolve("leftover.txt"), "from another configuration\n");
        OverlayWriter.Result repaired = OverlayWriter.writeOut(plan, out);
        assertEquals(List.of(Overlay.OVERLAY_MD), repaired.written());
        assertFalse(Files.exists(leftover), "the directory is replaced whole");
        assertArrayEquals(plan.files().get(Overlay.OVERLAY_MD), Files.readAllBytes(out.resolve(Overlay.OVERLAY_MD)));
        assertEquals(List.of("overlay"), listing(dir));

        Files.writeString(leftover, "only a leftover\n");
        OverlayWriter.Result cleaned = OverlayWriter.writeOut(plan, out);
        assertEquals(List.of(), cleaned.written());
        assertFalse(Files.exists(leftover), "files of another configuration go even when every planned file is up to date");
    }

    @Test
    void whatIsNotAnOverlayIsNeverOverwritten(@TempDir Path dir) throws Exception {
        Overlay.Plan plan = plan(example());
        Path file = Files.writeString(dir.resolve("file"), "x");
        OverlayException notDir = assertThrows(OverlayException.class, () -> OverlayWriter.writeOut(plan, file));
        assertEquals(OverlayException.Kind.WRITE, notDir.kind());
        assertEquals(file + ": exists and is not a directory", notDir.getMessage());

        Path busy = Files.createDirectory(dir.resolve("busy"));
        Files.writeString(busy.resolve("notes.txt"), "mine");
        OverlayException notOverlay = assertThrows(OverlayException.class, () -> OverlayWriter.writeOut(plan, busy));
        assertEquals(busy + ": exists, is not empty and is not a direkt overlay (no " + Manifest.FILE_NAME + "); choose another --out",
                notOverlay.getMessage());
        assertEquals("mine", Files.readString(busy.resolve("notes.txt")));

        Path underFile = file.resolve("overlay");
        OverlayException parentIsFile = assertThrows(OverlayException.class, () -> OverlayWriter.writeOut(plan, underFile));
        assertEquals("cannot write " + underFile + ": " + file + " is not a directory (nothing was changed)", parentIsFile.getMessage());

        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertEquals(plan.files().size(), OverlayWriter.writeOut(plan, empty).written().size(), "an empty directory is taken");
    }

    @Test
    void inPlaceIsBackedUpOnceAndRevertedByteForByte(@TempDir Path dir) throws Exception {
        Path bsp = copyOfExample(dir.resolve("bsp"));
        Path boardDir = bsp.resolve("hardware/direkt_ref");
        byte[] original = Files.readAllBytes(boardDir.resolve("board_spec.xml"));
        Overlay.Plan plan = plan(bsp);

        OverlayWriter.Result first = OverlayWriter.writeInPlace(plan);
        assertEquals(boardDir, first.root());
        List<String> expected = new ArrayList<>();
        plan.files().keySet().stream().filter(f -> !f.equals(Overlay.BOARD_SPEC)).forEach(f -> expected.add(OverlayWriter.IN_PLACE_DIR + "/" + f));
        expected.add(Overlay.BOARD_SPEC);
        assertEquals(sorted(expected), sorted(first.written()));
        assertEquals(List.of(), first.unchanged());
        assertArrayEquals(plan.boardSpecAfter(), Files.readAllBytes(boardDir.resolve("board_spec.xml")));

        OverlayWriter.Result second = OverlayWriter.writeInPlace(plan(bsp));
        assertEquals(List.of(), second.written());
        assertEquals(sorted(expected), sorted(second.unchanged()));
        assertArrayEquals(original, Files.readAllBytes(boardDir.resolve(OverlayWriter.BACKUP_DIR + "/board_spec.xml")),
                "the backup keeps the board as it was before the first run");

        assertEquals(List.of("restored board_spec.xml", "removed " + OverlayWriter.IN_PLACE_DIR), OverlayWriter.revert(boardDir));
        assertArrayEquals(original, Files.readAllBytes(boardDir.resolve("board_spec.xml")));
        assertFalse(Files.exists(boardDir.resolve(OverlayWriter.IN_PLACE_DIR)));
        assertFalse(Files.exists(boardDir.resolve(OverlayWriter.BACKUP_DIR)));

        OverlayException nothing = assertThrows(OverlayException.class, () -> OverlayWriter.revert(boardDir));
        assertEquals(OverlayException.Kind.INPUT, nothing.kind());
        assertEquals(boardDir + ": no direkt backup (" + OverlayWriter.BACKUP_DIR + "/) here: nothing to revert", nothing.getMessage());
    }

    @Test
    void aForeignDirectoryOrABackupReachingOutsideIsRefused(@TempDir Path dir) throws Exception {
        Path bsp = copyOfExample(dir.resolve("bsp"));
        Path boardDir = bsp.resolve("hardware/direkt_ref");
        Path foreign = Files.createDirectory(boardDir.resolve(OverlayWriter.IN_PLACE_DIR));
        Overlay.Plan plan = plan(bsp);
        OverlayException e = assertThrows(OverlayException.class, () -> OverlayWriter.writeInPlace(plan));
        assertEquals(foreign + ": exists but was not made by direkt overlay --in-place (no " + OverlayWriter.BACKUP_DIR
                + "); move it away first", e.getMessage());
        Files.delete(foreign);

        OverlayWriter.writeInPlace(plan);
        Path list = boardDir.resolve(OverlayWriter.BACKUP_DIR + "/created-files.txt");
        Files.writeString(list, "\n  \n" + OverlayWriter.IN_PLACE_DIR + "/\n../../outside\n", StandardCharsets.UTF_8);
        byte[] edited = Files.readAllBytes(boardDir.resolve("board_spec.xml"));
        OverlayException outside = assertThrows(OverlayException.class, () -> OverlayWriter.revert(boardDir));
        assertEquals(list + ": lists ../../outside, which is not inside " + boardDir + "; nothing was changed", outside.getMessage());
        assertArrayEquals(edited, Files.readAllBytes(boardDir.resolve("board_spec.xml")), "a refused revert changes nothing");
        assertTrue(Files.isDirectory(boardDir.resolve(OverlayWriter.IN_PLACE_DIR)));

        Files.writeString(list, "\n  \n" + OverlayWriter.IN_PLACE_DIR + "/\n.\n", StandardCharsets.UTF_8);
        assertThrows(OverlayException.class, () -> OverlayWriter.revert(boardDir), "the board directory itself is not a created file");
        Files.writeString(list, "\n  \n" + OverlayWriter.IN_PLACE_DIR + "/\ngone.txt\n", StandardCharsets.UTF_8);
        assertEquals(List.of("restored board_spec.xml", "removed " + OverlayWriter.IN_PLACE_DIR), OverlayWriter.revert(boardDir),
                "blank lines and files already gone are skipped");
    }
}
