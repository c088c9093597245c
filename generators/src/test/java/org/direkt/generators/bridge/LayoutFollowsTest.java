// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.direkt.contract.Layout;
import org.direkt.hdl.VerilogEmitter;
import org.junit.jupiter.api.Test;

/**
 * A field moved in {@link Layout} moves in the Verilog and the manifest together (the header's
 * side is in the overlay's HeaderFollowsLayoutTest; the benches read the manifest).
 */
class LayoutFollowsTest {

    /** The tagged status with the error code moved to the bottom and the tag above it. */
    private static final Layout.Word STATUS_MOVED = new Layout.Word("kernel_status_tagged", 64, List.of(
            new Layout.Field("error", 0, 4, "moved"), new Layout.Field("tag", 4, 32, "moved"),
            new Layout.Field("elapsed", 36, Layout.ELAPSED_BITS, "moved")));

    /** Window control with enable and allow_wr swapped. */
    private static final Layout.Word CTRL_MOVED = new Layout.Word("csr_window_ctrl", 32, List.of(
            new Layout.Field("allow_wr", 0, 1, "moved"), new Layout.Field("allow_rd", 1, 1, "moved"),
            new Layout.Field("enable", 2, 1, "moved"), new Layout.Field("reserved", 3, 29, "moved")));

    private static Map<String, String> verilog() {
        return VerilogEmitter.emit(new Bridge().elaborate(Bridge.Params.defaults()));
    }

    private static String line(Map<String, String> v, String modulePrefix, String contains) {
        return v.entrySet().stream().filter(e -> e.getKey().startsWith(modulePrefix))
                .flatMap(e -> e.getValue().lines()).filter(l -> l.contains(contains)).map(String::trim).findFirst()
                .orElseThrow(() -> new AssertionError("no line with '" + contains + "' in " + modulePrefix + "*"));
    }

    @Test
    void aMovedStatusFieldMovesInTheStatusBuilderAndTheManifest() {
        Map<String, String> before = verilog();
        String packedBefore = line(before, "direkt_bridge_status", "assign push_data =");
        assertTrue(packedBefore.contains("m1_error, m1_tag}"), "default: error above the tag at the bottom: " + packedBefore);

        Map<String, String> after = Layout.withWords(List.of(STATUS_MOVED), LayoutFollowsTest::verilog);
        String packedAfter = line(after, "direkt_bridge_status", "assign push_data =");
        assertTrue(packedAfter.contains("m1_tag, m1_error}"), "moved: error at the bottom: " + packedAfter);

        String manifest = Layout.withWords(List.of(STATUS_MOVED), () -> Manifest.json(Bridge.Params.defaults()));
        assertTrue(manifest.replaceAll("\\s", "").contains("\"kernel_status_tagged\":{\"bits\":64,\"fields\":{\"error\":{\"lsb\":0"),
                "the manifest carries the moved field: " + manifest.substring(manifest.indexOf("kernel_status_tagged"),
                        manifest.indexOf("kernel_status_tagged") + 200));
        assertEquals(before, verilog(), "outside the scope the layout is the default again");
    }

    @Test
    void aMovedWindowControlFieldMovesInTheCsrWritesAndReads() {
        Map<String, String> before = verilog();
        Map<String, String> after = Layout.withWords(List.of(CTRL_MOVED), LayoutFollowsTest::verilog);
        String enableBefore = line(before, "direkt_bridge_csr", "win0_enable <= csr_writedata");
        String enableAfter = line(after, "direkt_bridge_csr", "win0_enable <= csr_writedata");
        assertTrue(enableBefore.contains("csr_writedata[0]"), enableBefore);
        assertTrue(enableAfter.contains("csr_writedata[2]"), enableAfter);
        assertTrue(line(after, "direkt_bridge_csr", "win0_allow_wr <= csr_writedata").contains("csr_writedata[0]"));
        assertNotEquals(before, after);
        String manifest = Layout.withWords(List.of(CTRL_MOVED), () -> Manifest.json(Bridge.Params.defaults()));
        assertTrue(manifest.replaceAll("\\s", "").contains("\"csr_window_ctrl\":{\"bits\":32,\"fields\":{\"allow_wr\":{\"lsb\":0"),
                "the manifest carries the moved field");
    }

    @Test
    void aReplacementMustKeepTheWordsWidthAndName() {
        assertThrows(IllegalArgumentException.class, () -> Layout.withWords(List.of(new Layout.Word("kernel_status_tagged", 32,
                List.of(new Layout.Field("all", 0, 32, "x")))), () -> 0));
        assertThrows(IllegalArgumentException.class, () -> Layout.withWords(List.of(new Layout.Word("no_such_word", 8,
                List.of(new Layout.Field("all", 0, 8, "x")))), () -> 0));
    }
}
