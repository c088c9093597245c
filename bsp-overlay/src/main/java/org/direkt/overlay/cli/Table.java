// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** Plain-text tables for {@code direkt inspect}. */
final class Table {
    private Table() {
    }

    static void print(PrintWriter o, String title, List<String> columns, List<Map<String, Object>> rows) {
        o.println(title + " (" + rows.size() + ")");
        if (rows.isEmpty()) {
            o.println();
            return;
        }
        int[] w = new int[columns.size()];
        for (int c = 0; c < columns.size(); c++) {
            w[c] = columns.get(c).length();
            for (Map<String, Object> r : rows) {
                w[c] = Math.max(w[c], String.valueOf(r.get(columns.get(c))).length());
            }
        }
        StringBuilder head = new StringBuilder("  ");
        StringBuilder rule = new StringBuilder("  ");
        for (int c = 0; c < columns.size(); c++) {
            head.append(String.format("%-" + w[c] + "s  ", columns.get(c)));
            rule.append("-".repeat(w[c])).append("  ");
        }
        o.println(head.toString().stripTrailing());
        o.println(rule.toString().stripTrailing());
        for (Map<String, Object> r : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int c = 0; c < columns.size(); c++) {
                Object v = r.get(columns.get(c));
                line.append(String.format("%-" + w[c] + "s  ", v == null ? "-" : v));
            }
            o.println(line.toString().stripTrailing());
        }
        o.println();
    }
}
