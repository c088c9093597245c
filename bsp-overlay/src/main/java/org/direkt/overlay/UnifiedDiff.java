// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff of two texts (3 lines of context), for {@code --dry-run}. Line-based LCS; the
 * inputs are board files and generated sources, small enough for the quadratic table.
 */
public final class UnifiedDiff {
    private UnifiedDiff() {
    }

    private static final int CONTEXT = 3;

    private static final String NO_NEWLINE = "\\ No newline at end of file\n";

    /**
     * The diff from {@code a} to {@code b}; empty when they are equal. {@code a} null: a new file;
     * {@code b} null: a removed file. A last line without a newline is marked as GNU diff marks it,
     * and differs from the same line with one.
     */
    public static String diff(String aName, String a, String bName, String b) {
        List<String> x = a == null ? List.of() : lines(a);
        List<String> y = b == null ? List.of() : lines(b);
        if (x.equals(y)) {
            return "";
        }
        int n = x.size();
        int m = y.size();
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                lcs[i][j] = x.get(i).equals(y.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        // Edit script: ' ' keep, '-' delete, '+' insert, with positions in both texts.
        List<char[]> ops = new ArrayList<>();
        List<int[]> pos = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && x.get(i).equals(y.get(j))) {
                ops.add(new char[] {' '});
                pos.add(new int[] {i++, j++});
            } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
                ops.add(new char[] {'+'});
                pos.add(new int[] {i, j++});
            } else {
                ops.add(new char[] {'-'});
                pos.add(new int[] {i++, j});
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("--- ").append(a == null ? "/dev/null" : "a/" + aName).append('\n');
        out.append("+++ ").append(b == null ? "/dev/null" : "b/" + bName).append('\n');
        int k = 0;
        while (k < ops.size()) {
            if (ops.get(k)[0] == ' ') {
                k++;
                continue;
            }
            int start = Math.max(0, k - CONTEXT);
            int end = k;
            // Extend the hunk while changes are closer than 2 x CONTEXT.
            int last = k;
            for (int t = k; t < ops.size(); t++) {
                if (ops.get(t)[0] != ' ') {
                    last = t;
                } else if (t - last > 2 * CONTEXT) {
                    break;
                }
            }
            end = Math.min(ops.size(), last + CONTEXT + 1);
            int aStart = pos.get(start)[0];
            int bStart = pos.get(start)[1];
            int aLen = 0;
            int bLen = 0;
            StringBuilder body = new StringBuilder();
            for (int t = start; t < end; t++) {
                char op = ops.get(t)[0];
                int[] p = pos.get(t);
                String line = op == '+' ? y.get(p[1]) : x.get(p[0]);
                boolean ended = line.endsWith("\n");
                body.append(op).append(line, 0, ended ? line.length() - 1 : line.length()).append('\n');
                if (!ended) {
                    body.append(NO_NEWLINE);
                }
                if (op != '+') {
                    aLen++;
                }
                if (op != '-') {
                    bLen++;
                }
            }
            out.append("@@ -").append(aLen == 0 ? aStart : aStart + 1).append(',').append(aLen)
                    .append(" +").append(bLen == 0 ? bStart : bStart + 1).append(',').append(bLen).append(" @@\n");
            out.append(body);
            k = end;
        }
        return out.toString();
    }

    /** The lines of {@code s}, each with its newline (the last one without, when the text has none). */
    private static List<String> lines(String s) {
        List<String> out = new ArrayList<>();
        int from = 0;
        while (from < s.length()) {
            int nl = s.indexOf('\n', from);
            int end = nl < 0 ? s.length() : nl + 1;
            out.add(s.substring(from, end));
            from = end;
        }
        return out;
    }
}
