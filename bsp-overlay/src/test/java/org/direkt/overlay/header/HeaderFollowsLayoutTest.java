// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.direkt.contract.Layout;

/** A field moved in Layout moves in the OpenCL header's status decoders. */
class HeaderFollowsLayoutTest {

    @Test
    void aMovedStatusFieldMovesInTheHeader() {
        Layout.Word moved = new Layout.Word("kernel_status_tagged", 64, List.of(
                new Layout.Field("error", 0, 4, "moved"), new Layout.Field("tag", 4, 32, "moved"),
                new Layout.Field("elapsed", 36, Layout.ELAPSED_BITS, "moved")));
        String before = Preset.DEFAULT.header();
        String after = Layout.withWords(List.of(moved), Preset.DEFAULT::header);
        assertTrue(before.contains("#define DIREKT_STATUS_ERROR_LSB 32\n"), "default: error at bit 32");
        assertTrue(after.contains("#define DIREKT_STATUS_ERROR_LSB 0\n"), "moved: error at bit 0");
        assertTrue(after.contains("#define DIREKT_STATUS_TAG_LSB 4\n"), "moved: tag at bit 4");
    }
}
