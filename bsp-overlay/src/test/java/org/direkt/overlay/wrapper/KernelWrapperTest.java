// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.wrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.direkt.overlay.ApertureOption;
import org.direkt.overlay.KernelWrapper;
import org.direkt.overlay.Overlay;
import org.direkt.overlay.OverlayException;
import org.direkt.overlay.system.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel wrapper edit on the real a10gx board's files: the channels reach the kernel system
 * through {@code freeze_wrapper.v} and {@code top.v}, every original line stays, the result lints
 * under Verilator with no warning the original did not have, and a second edit is refused.
 */
class KernelWrapperTest {
    @TempDir
    Path tmp;

    static final List<KernelWrapper.Channel> CHANNELS = List.of(new KernelWrapper.Channel("direkt_rd_desc", 256, true),
            new KernelWrapper.Channel("direkt_rd_status", 64, false));

    static Path board() {
        return Trees.a10gxBoard();
    }

    @Test
    void freezeWrapperGainsEachChannelAndKeepsEveryLine() throws Exception {
        Path f = board().resolve("ip/freeze_wrapper.v");
        String before = Files.readString(f, StandardCharsets.ISO_8859_1);
        String after = KernelWrapper.editWrapper(before, f, CHANNELS);
        for (String s : List.of("output [255:0]   board_direkt_rd_desc_data", "input            board_direkt_rd_desc_ready",
                ".direkt_rd_desc_valid(kernel_system_direkt_rd_desc_valid)", ".direkt_rd_status_data(board_direkt_rd_status_data)",
                "assign board_direkt_rd_desc_valid = pr_freeze_reg ? 1'b0 : kernel_system_direkt_rd_desc_valid;",
                "assign board_direkt_rd_status_ready = pr_freeze_reg ? 1'b0 : kernel_system_direkt_rd_status_ready;")) {
            assertTrue(after.contains(s), () -> "missing: " + s + "\n" + after);
        }
        assertOnlyInserted(before, after);
        OverlayException again = assertThrows(OverlayException.class, () -> KernelWrapper.editWrapper(after, f, CHANNELS));
        assertTrue(again.getMessage().contains("already has port board_direkt_rd_desc_data"), again.getMessage());
    }

    @Test
    void topConnectsTheBoardSystemsExportsToTheWrapper() throws Exception {
        Path f = board().resolve("top.v");
        String before = Files.readString(f, StandardCharsets.ISO_8859_1);
        String after = KernelWrapper.editTop(before, f, "board", CHANNELS);
        for (String s : List.of("wire [255:0]   board_direkt_rd_desc_data;", ".direkt_rd_desc_data(board_direkt_rd_desc_data)",
                ".board_direkt_rd_status_ready(board_direkt_rd_status_ready)")) {
            assertTrue(after.contains(s), () -> "missing: " + s);
        }
        assertOnlyInserted(before, after);
    }

    @Test
    void theEditedWrapperLintsWithNoNewWarning() throws Exception {
        Path f = board().resolve("ip/freeze_wrapper.v");
        String before = Files.readString(f, StandardCharsets.ISO_8859_1);
        String after = KernelWrapper.editWrapper(before, f, CHANNELS);
        List<String> was = WrapperLint.warnings(tmp.resolve("before"), before);
        List<String> is = WrapperLint.warnings(tmp.resolve("after"), after);
        List<String> added = is.stream().filter(w -> !was.contains(w)).toList();
        assertEquals(List.of(), added, "warnings the edit added (the original had " + was.size() + ")");
    }

    /** The whole overlay with a GPU-master aperture (which adds no export) edits the wrapper chain so that it still lints. */
    @Test
    void theApertureOverlaysWrapperLintsWithNoNewWarning() throws Exception {
        Path bsp = Trees.copyTree("a10gx_16.1", tmp.resolve("bsp"));
        Overlay.Plan plan = Overlay.plan(new Overlay.Request(bsp, "a10gx", null, null, false, null, ApertureOption.parse("1G", null)));
        String before = Files.readString(board().resolve("ip/freeze_wrapper.v"), StandardCharsets.ISO_8859_1);
        String after = new String(plan.files().get(Overlay.BOARD_EDITS + "ip/freeze_wrapper.v"), StandardCharsets.ISO_8859_1);
        assertOnlyInserted(before, after);
        assertOnlyInserted(Files.readString(board().resolve("top.v"), StandardCharsets.ISO_8859_1),
                new String(plan.files().get(Overlay.BOARD_EDITS + "top.v"), StandardCharsets.ISO_8859_1));
        List<String> was = WrapperLint.warnings(tmp.resolve("before"), before);
        List<String> is = WrapperLint.warnings(tmp.resolve("after"), after);
        assertEquals(List.of(), is.stream().filter(w -> !was.contains(w)).toList(), "warnings the edit added");
    }

    @Test
    void aWrapperWithoutTheKernelSystemIsRefusedNamingTheFile() {
        Path f = tmp.resolve("freeze_wrapper.v");
        OverlayException e = assertThrows(OverlayException.class, () -> KernelWrapper.editWrapper(
                "module freeze_wrapper(input a);\nendmodule\n", f, CHANNELS));
        assertTrue(e.getMessage().startsWith(f + ": instantiates no kernel_system"), e.getMessage());
        OverlayException open = assertThrows(OverlayException.class, () -> KernelWrapper.editWrapper(
                "module freeze_wrapper(input a;\nkernel_system k(.a(a));\n", f, CHANNELS));
        assertTrue(open.getMessage().contains(f + ":1: unbalanced parentheses"), open.getMessage());
    }

    /** Every line of {@code before} is in {@code after}, in order (the edit only inserts). */
    static void assertOnlyInserted(String before, String after) {
        List<String> a = before.lines().toList();
        List<String> b = after.lines().toList();
        int j = 0;
        for (String line : a) {
            while (j < b.size() && !b.get(j).equals(line) && !b.get(j).startsWith(line.stripTrailing() + ",")) {
                j++;
            }
            assertTrue(j < b.size(), () -> "line lost or reordered: " + line);
            j++;
        }
    }
}
