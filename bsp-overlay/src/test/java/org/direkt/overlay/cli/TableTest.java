// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The tables of {@code direkt inspect}: columns as wide as their widest cell, '-' for a missing value. */
class TableTest {

    private static String print(String title, List<String> columns, List<Map<String, Object>> rows) {
        StringWriter s = new StringWriter();
        try (PrintWriter o = new PrintWriter(s)) {
            Table.print(o, title, columns, rows);
        }
        return s.toString().replace(System.lineSeparator(), "\n");
    }

    @Test
    void columnsFitTheirWidestCell() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("chan_id", "direkt_rd_desc");
        a.put("width", 256);
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("chan_id", "x");
        b.put("width", null);
        assertEquals("""
                channels (2)
                  chan_id         width  line
                  --------------  -----  ----
                  direkt_rd_desc  256    -
                  x               -      -

                """, print("channels", List.of("chan_id", "width", "line"), List.of(a, b)));
    }

    @Test
    void anEmptyTableIsItsTitle() {
        assertEquals("memories (0)\n\n", print("memories", List.of("memory"), List.of()));
    }
}
